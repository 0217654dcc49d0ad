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


def _overlap(pos, radii) -> float:
    """The deepest overlap of any two discs (every pair)."""
    d = np.hypot(*(pos[:, None, :] - pos[None, :, :]).transpose(2, 0, 1))
    gap = d - radii[:, None] - radii[None, :]
    np.fill_diagonal(gap, np.inf)
    return float(max(0.0, -gap.min()))


def _walk(rows, starts, goals, steps):
    """Steps a deterministic crowd (radius 0.4 in cells of 1) from
    ``starts`` to ``goals``; the crowd, its graph, the deepest overlap and
    the deepest reach into a blocked cell seen at any step."""
    world = navcore.World(deterministic=True)
    graph = world.add_graph("g", type="grid", rows=rows)
    crowd = world.add_crowd("c", graph="g", radius=0.4, max_speed=1.5)
    crowd.add(starts, goals=goals)
    worst = depth = 0.0
    for _ in range(steps):
        world.tick(0.1)
        pos = crowd.positions
        worst = max(worst, _overlap(pos, crowd.radii))
        depth = max(depth, blocked_depth(graph, pos, crowd.radii))
        if crowd.arrived.all():
            break
    return crowd, worst, depth


@pytest.mark.parametrize("east_first", [True, False])
@pytest.mark.parametrize("eastward, westward", [(1, 1), (2, 1), (1, 2)])
def test_head_on_in_a_corridor_one_side_backs_out(east_first, eastward, westward):
    """Agents walk east through the corridor and others west (a second one
    behind the first); whichever side backs out (by their ids), everyone
    arrives."""
    east = ([(1.5, 2.5), (3.5, 2.5)][:eastward], [(19.5, 2.5), (19.5, 0.5)][:eastward])
    west = ([(19.5, 2.5), (17.5, 2.5)][:westward], [(1.5, 2.5), (1.5, 0.5)][:westward])
    first, second = (east, west) if east_first else (west, east)
    crowd, worst, depth = _walk(ROOMS, first[0] + second[0], first[1] + second[1], 600)
    assert crowd.arrived.all(), crowd.state_names()
    assert worst <= 1e-3
    assert depth <= 1e-9
    assert np.hypot(*(crowd.positions - crowd.goals).T).max() <= 0.4 * 4


def test_head_on_with_a_niche_halfway():
    """A dead-end corridor with a niche one cell deep halfway: the agent
    heading into the dead end backs out of the other's way (into the niche
    or the room), then walks in; both arrive."""
    crowd, worst, depth = _walk(NICHE, [(1.5, 2.5), (20.5, 2.5)], [(19.5, 2.5), (1.5, 0.5)],
                                600)
    assert crowd.arrived.all(), crowd.state_names()
    assert worst <= 1e-3
    assert depth <= 1e-9


def test_backing_out_steps_the_same_on_every_worker_count(monkeypatch):
    import navcore_crowd.crowd as C
    monkeypatch.setattr(C, "PARALLEL_AGENTS", 1)       # split even these two
    monkeypatch.setattr(C, "PARALLEL_MOVES", 1)
    monkeypatch.setattr(C, "PARALLEL_STEER", 1)

    def run(workers):
        world = navcore.World(workers=workers, deterministic=True)
        world.add_graph("g", type="grid", rows=NICHE)
        crowd = world.add_crowd("c", graph="g", radius=0.4, max_speed=1.5)
        crowd.add([(1.5, 2.5), (20.5, 2.5)], goals=[(19.5, 2.5), (1.5, 0.5)])
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
