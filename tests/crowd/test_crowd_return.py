"""An agent that has arrived keeps its goal: pushed off it by others it
walks back once they have passed, and a crowd sent to one point still
settles there."""
import numpy as np
import pytest

import navcore
from crowdkit import blocked_depth, worst_overlap

#: a room at each end of a corridor one cell wide and twelve long
ROOMS = ["....############....",
         "....############....",
         "....................",
         "....############....",
         "....############...."]


def _passage(workers=0):
    """Agent 0 stands at its goal halfway along the corridor; agent 1
    then walks through it from the west room to the east one. ``(crowd,
    graph, world)``."""
    world = navcore.World(workers=workers, deterministic=True)
    graph = world.add_graph("g", type="grid", rows=ROOMS)
    crowd = world.add_crowd("c", graph="g", radius=0.4, max_speed=1.5)
    crowd.add([(8.5, 2.5)], goals=[(8.5, 2.5)])
    for _ in range(3):
        world.tick(0.1)
    assert crowd.state_names() == ["arrived"]
    crowd.add([(1.5, 2.5)], goals=[(19.5, 0.5)])
    return crowd, graph, world


def test_an_arrived_agent_pushed_through_a_passage_walks_back():
    """The walker pushes the one standing ahead of it out of the corridor
    (one cell wide: there is no way round); once it has passed, the pushed
    one walks back and stands within its arrival reach (its radius) of its
    goal. No two discs overlap and none reaches into a wall at any step."""
    crowd, graph, world = _passage()
    goal = np.array([8.5, 2.5])
    worst = depth = pushed = 0.0
    for _ in range(400):
        world.tick(0.1)
        pos = crowd.positions
        worst = max(worst, worst_overlap(pos, crowd.radii))
        depth = max(depth, blocked_depth(graph, pos, crowd.radii))
        pushed = max(pushed, float(np.hypot(*(pos[0] - goal))))
        if pushed > 4.0 and crowd.arrived.all():
            break
    assert crowd.arrived.all(), crowd.state_names()
    assert pushed > 4.0                         # it was pushed well off its goal
    assert np.hypot(*(crowd.positions[0] - goal)) <= 0.4
    assert np.hypot(*(crowd.positions[1] - (19.5, 0.5))) <= 0.4
    assert worst <= 1e-3
    assert depth <= 1e-9


def test_two_goals_in_the_wrong_order_in_a_passage_settle():
    """The walker's goal lies beyond the standing agent's in the corridor:
    both cannot stand on their goals. The walker arrives, the one it
    pushed walks back until the walker holds it up and arrives there;
    then nothing changes any more (no endless waking and pushing)."""
    crowd, graph, world = _passage()
    crowd.set_goals([1], [(12.5, 2.5)])
    for _ in range(200):
        world.tick(0.1)
    assert crowd.arrived.all(), crowd.state_names()
    # held up by the one ahead: arrived within four radii (CLOSE_RADII)
    assert np.hypot(*(crowd.positions[1] - (12.5, 2.5))) <= 4 * 0.4
    settled, served = crowd.positions, crowd.paths_served
    for _ in range(100):
        world.tick(0.1)
        assert crowd.arrived.all(), crowd.state_names()
    assert np.array_equal(crowd.positions, settled)
    assert np.array_equal(crowd.paths_served, served)
    assert blocked_depth(graph, settled, crowd.radii) <= 1e-9


def test_a_crowd_sent_to_one_point_settles():
    """Thirty agents sent to one point of an open room cannot all stand on
    it: they arrive around it, and then stand still (no agent keeps being
    woken and pushing the others)."""
    world = navcore.World(deterministic=True)
    world.add_graph("g", type="grid", rows=["." * 20] * 20)
    crowd = world.add_crowd("c", graph="g", radius=0.4, max_speed=1.5)
    starts = [(1.5 + 2 * (i % 6), 1.5 + 2 * (i // 6)) for i in range(30)]
    crowd.add(starts, goals=(15.5, 15.5))
    for _ in range(600):
        world.tick(0.1)
        if crowd.arrived.all():
            break
    assert crowd.arrived.all(), crowd.state_names()
    for _ in range(30):                  # the last pushes die down
        world.tick(0.1)
    settled = crowd.positions
    served = crowd.paths_served
    for _ in range(100):
        world.tick(0.1)
        assert crowd.arrived.all(), crowd.state_names()
    assert np.abs(crowd.positions - settled).max() <= 1e-6
    assert np.array_equal(crowd.paths_served, served)
    assert worst_overlap(crowd.positions, crowd.radii) <= 1e-3


def test_a_new_goal_or_a_stop_ends_a_walk_back():
    """An agent on its way back is sent elsewhere or stopped like any
    other: it walks to the new goal (and stands there), or stands."""
    crowd, _, world = _passage()
    for _ in range(400):
        world.tick(0.1)
        if crowd.state_names()[0] != "arrived":
            break
    assert crowd.state_names()[0] in ("waiting", "moving")      # walking back
    crowd.stop([0])
    world.tick(0.1)
    assert crowd.state_names()[0] == "idle"
    crowd.set_goals([0], [(19.5, 4.5)])
    for _ in range(300):
        world.tick(0.1)
        if crowd.arrived.all():
            break
    assert crowd.arrived.all(), crowd.state_names()
    assert np.hypot(*(crowd.positions[0] - (19.5, 4.5))) <= 0.4


@pytest.mark.parametrize("workers", [1, 2])
def test_walking_back_steps_the_same_on_every_worker_count(workers, monkeypatch):
    import navcore_crowd.crowd as C
    monkeypatch.setattr(C, "PARALLEL_AGENTS", 1)       # split even these two
    monkeypatch.setattr(C, "PARALLEL_MOVES", 1)

    def run(w):
        crowd, _, world = _passage(w)
        out = []
        for _ in range(200):
            world.tick(0.1)
            out.append(np.concatenate([crowd.positions.ravel(), crowd.state]))
        world.close()
        return np.array(out)

    assert np.array_equal(run(workers), run(0))
