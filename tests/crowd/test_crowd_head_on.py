"""Agents meeting head-on in a passage one agent wide: one side backs out
and everyone arrives, without overlapping or touching a wall."""
import numpy as np
import pytest

import navcore
from crowdkit import blocked_depth

#: a room at each end of a corridor one cell wide and twelve long
ROOMS = ["....############....",
         "....############....",
         "....................",
         "....############....",
         "....############...."]
#: the corridor's end as a dead end, with a niche one cell deep halfway
NICHE = ["....#################",
         "....#######.#########",
         ".....................",
         "....#################"]
#: a room, and a corridor one cell wide from it into a dead end
DEAD_END = ["....############",
            "....############",
            "...............#",
            "....############",
            "....############"]


def _overlap(pos, radii) -> float:
    """The deepest overlap of any two discs (every pair)."""
    d = np.hypot(*(pos[:, None, :] - pos[None, :, :]).transpose(2, 0, 1))
    gap = d - radii[:, None] - radii[None, :]
    np.fill_diagonal(gap, np.inf)
    return float(max(0.0, -gap.min()))


def _walk(rows, starts, goals, steps):
    """Steps a deterministic crowd (radius 0.4 in cells of 1) from
    ``starts`` to ``goals``; the crowd, the deepest overlap and the
    deepest reach into a blocked cell seen at any step, the steps taken
    and the largest x each agent reached."""
    world = navcore.World(deterministic=True)
    graph = world.add_graph("g", type="grid", rows=rows)
    crowd = world.add_crowd("c", graph="g", radius=0.4, max_speed=1.5)
    crowd.add(starts, goals=goals)
    worst = depth = 0.0
    east = crowd.positions[:, 0]
    for taken in range(1, steps + 1):
        world.tick(0.1)
        pos = crowd.positions
        worst = max(worst, _overlap(pos, crowd.radii))
        depth = max(depth, blocked_depth(graph, pos, crowd.radii))
        east = np.maximum(east, pos[:, 0])
        if crowd.arrived.all():
            break
    return crowd, worst, depth, taken, east


@pytest.mark.parametrize("east_first", [True, False])
@pytest.mark.parametrize("eastward, westward", [(1, 1), (2, 1), (1, 2)])
def test_head_on_in_a_corridor_one_side_backs_out(east_first, eastward, westward):
    """Agents walk east through the corridor and others west (a second one
    behind the first); whichever side backs out (by their ids), everyone
    arrives."""
    east = ([(1.5, 2.5), (3.5, 2.5)][:eastward], [(19.5, 2.5), (19.5, 0.5)][:eastward])
    west = ([(19.5, 2.5), (17.5, 2.5)][:westward], [(1.5, 2.5), (1.5, 0.5)][:westward])
    first, second = (east, west) if east_first else (west, east)
    crowd, worst, depth, _, _ = _walk(ROOMS, first[0] + second[0], first[1] + second[1], 600)
    assert crowd.arrived.all(), crowd.state_names()
    assert worst <= 1e-3
    assert depth <= 1e-9
    assert np.hypot(*(crowd.positions - crowd.goals).T).max() <= 0.4 * 4


def test_head_on_with_a_niche_halfway():
    """A dead-end corridor with a niche one cell deep halfway, where the
    two meet: the one beside the niche steps into it (the shorter way to a
    place where the other can pass) and the other walks by; both arrive,
    sooner than if one backed all the way out to the room (some 310
    steps)."""
    crowd, worst, depth, taken, _ = _walk(NICHE, [(1.5, 2.5), (20.5, 2.5)],
                                          [(19.5, 2.5), (1.5, 0.5)], 600)
    assert crowd.arrived.all(), crowd.state_names()
    assert worst <= 1e-3
    assert depth <= 1e-9
    assert taken <= 250


@pytest.mark.parametrize("deep", [False, True])
def test_the_agent_coming_out_of_a_dead_end_is_not_sent_deeper(deep):
    """Agent 0 walks out of a dead end (its id the lower) as agent 1 walks
    in: agent 1 has a room behind it and agent 0 nothing, so agent 1 backs
    out to the room, agent 0 never goes deeper than it started, and both
    arrive at their goals (agent 1 deeper in, or nearer the mouth, than
    where agent 0 started)."""
    start, goal = ((12.5, 2.5), (14.5, 2.5)) if deep else ((14.5, 2.5), (12.5, 2.5))
    crowd, worst, depth, _, east = _walk(DEAD_END, [start, (1.5, 2.5)], [(1.5, 0.5), goal],
                                         600)
    assert crowd.arrived.all(), crowd.state_names()
    assert east[0] <= start[0] + 1e-9
    assert np.hypot(*(crowd.positions - crowd.goals).T).max() <= 0.4
    assert worst <= 1e-3
    assert depth <= 1e-9


@pytest.mark.parametrize("rows, starts, goals", [
    (NICHE, [(1.5, 2.5), (20.5, 2.5)], [(19.5, 2.5), (1.5, 0.5)]),
    (DEAD_END, [(12.5, 2.5), (1.5, 2.5)], [(1.5, 0.5), (14.5, 2.5)])])
def test_backing_out_steps_the_same_on_every_worker_count(monkeypatch, rows, starts, goals):
    import navcore_crowd.crowd as C
    monkeypatch.setattr(C, "PARALLEL_AGENTS", 1)       # split even these two
    monkeypatch.setattr(C, "PARALLEL_MOVES", 1)
    monkeypatch.setattr(C, "PARALLEL_STEER", 1)

    def run(workers):
        world = navcore.World(workers=workers, deterministic=True)
        world.add_graph("g", type="grid", rows=rows)
        crowd = world.add_crowd("c", graph="g", radius=0.4, max_speed=1.5)
        crowd.add(starts, goals=goals)
        out = []
        for _ in range(350):
            world.tick(0.1)
            out.append(crowd.positions)
        assert crowd.arrived.all(), crowd.state_names()
        world.close()
        return np.array(out)

    first = run(0)
    for workers in (0, 1, 2):
        assert np.array_equal(run(workers), first)
