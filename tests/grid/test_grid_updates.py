"""Grid updates: queued until tick, last write wins, dirty nodes, CSR view
and search scratch kept consistent."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import navcore
from navcore import PathStatus
from navcore_grid import GridGraph
import reference


def _world(rows):
    w = navcore.World(autoload=False)
    w.add_graph("g", type="grid", rows=rows)
    return w


@pytest.mark.nojit
def test_door_closes_on_tick_and_reopens():
    w = _world([".#.", "...", ".#."])
    before = w.find_path("g", (0, 0), (2, 0))
    assert before.cost == 4.0        # down, through the door, up: no corner cutting
    w.update("g", cells=[(1, 1)], walkable=False)
    assert w.find_path("g", (0, 0), (2, 0)).cost == before.cost      # not yet applied
    stats = w.tick()
    assert w.find_path("g", (0, 0), (2, 0)).status == PathStatus.UNREACHABLE
    assert stats.dirty_nodes == 9                                     # cell + 8 neighbours
    w.update("g", rect=(1, 1, 1, 1), walkable=True)
    w.tick()
    assert w.find_path("g", (0, 0), (2, 0)).cost == before.cost


@pytest.mark.nojit
def test_last_write_wins_and_dirty_nodes():
    w = _world(["....."] * 4)
    g = w.graph("g")
    w.update("g", rect=(0, 0, 2, 2), walkable=False)
    w.update("g", cells=[(1, 1)], walkable=True)
    mask = np.zeros((4, 5), dtype=bool)
    mask[3, 4] = True
    w.update("g", mask=mask, cost=np.inf)
    w.update("g", rect=(3, 0, 2, 1), cost=np.array([[2.0, 3.0]]))
    w.tick()
    assert g.walkable_grid.tolist() == [[False, False, True, True, True],
                                        [False, True, True, True, True],
                                        [True, True, True, True, True],
                                        [True, True, True, True, False]]
    assert g.cost[0].tolist() == [1.0, 1.0, 1.0, 2.0, 3.0]
    w.update("g", cells=[(2, 2)], walkable=False)
    w.update("g", cells=[(2, 2)], walkable=True)      # net no change
    assert w.tick().dirty_nodes == 0


@pytest.mark.nojit
@pytest.mark.parametrize("params, message", [
    (dict(rect=(4, 0, 2, 1), walkable=False), "does not lie inside the 5 x 4 grid"),
    (dict(rect=(0, 0, 1), walkable=False), r"rect must be \(x, y, width, height\)"),
    (dict(cells=[(0, 9)], walkable=False), r"cell \(0, 9\) is outside"),
    (dict(cells=[0, 1], walkable=False), "cells must be a list of"),
    (dict(mask=np.ones((2, 2), bool), walkable=False), r"mask must be a bool array of shape \(4, 5\)"),
    (dict(rect=(0, 0, 2, 2), cost=np.ones(3)), r"cost has shape \(3,\)"),
    (dict(rect=(0, 0, 1, 1), cost=-1), r"cell \(0, 0\) has cost -1.0"),
    (dict(rect=(0, 0, 1, 1)), "exactly one of rect=, cells=, mask=, nodes= and exactly one"),
    (dict(nodes=[20], walkable=False), r"nodes of grid .* holds node id 20"),
    (dict(rect=(0, 0, 1, 1), walkable=False, cost=2), "exactly one of"),
    (dict(rect=(0, 0, 1, 1), walkable=0), "walkable must be True or False"),
    (dict(circle=3, walkable=False), r"unknown grid update parameter\(s\) \['circle'\]"),
])
def test_bad_grid_updates_raise_at_once(params, message):
    w = _world(["....."] * 4)
    with pytest.raises(navcore.UpdateError, match=message):
        w.update("g", **params)
    assert w.pending_updates() == 0


@pytest.mark.nojit
def test_rect_cost_array_must_have_the_rectangles_shape():
    w = _world(["....."] * 4)
    g = w.graph("g")
    # rect=(x=1, y=0, w=3, h=2): rows y = 0, 1; columns x = 1, 2, 3
    cost = np.array([[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]])
    with pytest.raises(navcore.UpdateError, match=r"cost has shape \(3, 2\), expected a "
                                                  r"scalar or shape \(2, 3\)"):
        w.update("g", rect=(1, 0, 3, 2), cost=cost.T)        # (w, h): transposed
    with pytest.raises(navcore.UpdateError, match=r"cost has shape \(6,\), expected"):
        w.update("g", rect=(1, 0, 3, 2), cost=cost.ravel())
    assert w.pending_updates("g") == 0
    w.update("g", rect=(1, 0, 3, 2), cost=cost)
    w.update("g", rect=(0, 3, 2, 1), cost=9.0)                # a scalar fills it
    w.tick()
    assert g.cost.tolist() == [[1.0, 2.0, 3.0, 4.0, 1.0], [1.0, 5.0, 6.0, 7.0, 1.0],
                               [1.0] * 5, [9.0, 9.0, 1.0, 1.0, 1.0]]


@given(st.integers(0, 2**31), st.sampled_from([dict(), dict(corner_cutting=True),
                                               dict(connectivity=4)]))
def test_csr_view_and_searches_stay_consistent_through_updates(seed, rule):
    rng = np.random.default_rng(seed)
    H, W = 9, 11
    w = navcore.World(autoload=False)
    g = w.add_graph("g", type="grid", array=rng.random((H, W)) > 0.25, **rule)
    _ = g.csr                                  # built before the updates
    w.find_path("g", (0, 0), (W - 1, H - 1))   # scratch exists before the updates
    for _ in range(4):
        x, y = rng.integers(0, W - 2), rng.integers(0, H - 2)
        if rng.random() < 0.5:
            w.update("g", rect=(int(x), int(y), 2, 2), walkable=bool(rng.random() < 0.5))
        else:
            w.update("g", cells=[(int(x), int(y))], cost=float(rng.choice([0.5, 2.0, np.inf])))
        w.tick()
    fresh = GridGraph(g.walkable_grid.copy(), np.array(g.cost), **rule)
    np.testing.assert_array_equal(g.csr.offsets, fresh.csr.offsets)
    np.testing.assert_array_equal(g.csr.targets, fresh.csr.targets)
    np.testing.assert_array_equal(g.csr.cost, fresh.csr.cost)
    walk = g.walkable_grid
    cost = np.array(g.cost)
    free = np.argwhere(walk)
    if len(free):
        sy, sx = free[0]
        truth = reference.grid_dijkstra(walk, cost, (int(sx), int(sy)), **rule)
        for gy, gx in free[rng.integers(len(free), size=min(6, len(free)))]:
            r = w.find_path("g", (int(sx), int(sy)), (int(gx), int(gy)))
            if (gx, gy) in truth:
                assert r.cost == pytest.approx(truth[(gx, gy)], rel=1e-12)
            else:
                assert r.status == PathStatus.UNREACHABLE


def test_dirty_nodes_are_changed_cells_and_their_neighbours():
    seen = []

    class Spy:
        @navcore.hookimpl
        def navcore_graph_updated(self, dirty):
            seen.append(dirty.tolist())

    w = _world(["....."] * 4)
    w.plugins.register(Spy())
    w.update("g", cells=[(0, 0), (4, 3)], walkable=False)
    w.tick()
    assert seen == [sorted([0, 1, 5, 6, 13, 14, 18, 19])]


@pytest.mark.nojit
def test_graphs_never_share_or_write_the_callers_arrays():
    walk = np.ones((4, 5), dtype=bool)
    world = navcore.World(autoload=False)
    world.add_graph("a", type="grid", array=walk)
    world.add_graph("b", type="grid", array=walk)
    mask = np.ones(3, dtype=bool)
    world.add_graph("c", type="csr", src=[0, 1], dst=[1, 2], walkable=mask)
    world.update("a", cells=[(1, 1)], walkable=False)
    world.update("c", nodes=[1], walkable=False)
    world.tick()
    assert walk.all() and mask.all()
    assert world.graph("b").walkable_grid.all()
    assert not world.graph("a").walkable_grid[1, 1]


@given(st.integers(0, 2**31))
def test_jps_bit_lines_follow_updates(seed):
    from navcore_grid._jps import pack_lines
    rng = np.random.default_rng(seed)
    H, W = 12, 140                           # lines longer than two words
    w = navcore.World(autoload=False)
    g = w.add_graph("g", type="grid", array=rng.random((H, W)) > 0.1)
    w.find_path("g", (0, 0), (W - 1, H - 1), algorithm="auto")   # bit lines exist now
    for _ in range(5):
        x, y = int(rng.integers(0, W - 3)), int(rng.integers(0, H - 3))
        w.update("g", rect=(x, y, 3, 3), walkable=bool(rng.random() < 0.5))
        w.tick()
    free2d = g.padded_free.reshape(H + 2, W + 2)
    rows, cols = g.bit_lines
    np.testing.assert_array_equal(rows, pack_lines(free2d))
    np.testing.assert_array_equal(cols, pack_lines(free2d.T))
    free = np.argwhere(g.walkable_grid)
    sy, sx = free[0]
    truth = reference.grid_dijkstra(g.walkable_grid, None, (int(sx), int(sy)))
    for gy, gx in free[rng.integers(len(free), size=6)]:
        r = w.find_path("g", (int(sx), int(sy)), (int(gx), int(gy)), algorithm="jps")
        if (gx, gy) in truth:
            assert r.cost == pytest.approx(truth[(gx, gy)], rel=1e-12)
        else:
            assert r.status == PathStatus.UNREACHABLE
