"""Grid A*, JPS and Dijkstra against a naive grid Dijkstra."""
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import navcore
from navcore import PathStatus
import reference


@st.composite
def grids(draw, max_side=9, costs=False):
    w = draw(st.integers(1, max_side))
    h = draw(st.integers(1, max_side))
    density = draw(st.sampled_from([0.0, 0.2, 0.35, 0.5]))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    walk = rng.random((h, w)) >= density
    cost = rng.choice([0.5, 1.0, 2.0, 3.0], size=(h, w)) if costs else None
    return walk, cost


def _world_grid(walk, cost=None, **opts):
    w = navcore.World(autoload=False)
    arr = walk if cost is None else np.where(walk, cost, np.inf)
    w.add_graph("g", type="grid", array=arr, **opts)
    return w


def _cells(g, nodes):
    return [g.cell_of(n) for n in nodes]


def _check(world, walk, cost, start, goal, algorithm, **rule):
    g = world.graph("g")
    truth = reference.grid_dijkstra(walk, cost, start, **rule)
    r = world.find_path("g", start, goal, algorithm=algorithm)
    if not walk[start[1], start[0]]:
        assert r.status == PathStatus.INVALID_START
    elif not walk[goal[1], goal[0]]:
        assert r.status == PathStatus.INVALID_GOAL
    elif goal in truth:
        assert r.found, (start, goal, truth[goal])
        assert r.cost == pytest.approx(truth[goal], rel=1e-12, abs=1e-12)
        cells = _cells(g, r.nodes)
        assert cells[0] == start and cells[-1] == goal
        assert reference.is_valid_grid_walk(walk, cells, rule.get("connectivity", 8),
                                            rule.get("corner_cutting", False))
        np.testing.assert_array_equal(r.points, np.array(cells) + 0.5)
    else:
        assert r.status == PathStatus.UNREACHABLE and len(r.nodes) == 0


@pytest.mark.nojit
@given(grids(), st.data())
def test_default_rule_astar_jps_dijkstra_match_reference(grid, data):
    walk, _ = grid
    h, w = walk.shape
    world = _world_grid(walk)
    start = (data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1)))
    goal = (data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1)))
    for algorithm in ("astar", "jps", "dijkstra", "auto"):
        _check(world, walk, None, start, goal, algorithm)


@given(grids(max_side=12), st.data(),
       st.sampled_from([dict(connectivity=4), dict(corner_cutting=True),
                        dict(diagonal_cost=1.0, corner_cutting=True),
                        dict(diagonal_cost=1.0), dict(diagonal_cost=1.9),
                        dict(diagonal_cost=0.8), dict(diagonal_cost=2.5)]))
def test_other_movement_rules_match_reference(grid, data, rule):
    walk, _ = grid
    h, w = walk.shape
    world = _world_grid(walk, **rule)
    start = (data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1)))
    goal = (data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1)))
    algos = ["astar", "dijkstra", "auto"]
    if rule in (dict(diagonal_cost=1.0), dict(diagonal_cost=1.9)):
        algos.append("jps")
    for algorithm in algos:
        _check(world, walk, None, start, goal, algorithm, **rule)


@given(grids(costs=True), st.data(), st.booleans())
def test_per_cell_costs_match_reference(grid, data, corner_cutting):
    walk, cost = grid
    h, w = walk.shape
    world = _world_grid(walk, cost, corner_cutting=corner_cutting)
    start = (data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1)))
    goal = (data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1)))
    for algorithm in ("astar", "dijkstra", "auto"):
        _check(world, walk, cost, start, goal, algorithm, corner_cutting=corner_cutting)



@pytest.mark.nojit
def test_jps_refuses_grids_where_its_pruning_is_not_exact():
    for opts in (dict(corner_cutting=True), dict(connectivity=4),
                 dict(diagonal_cost=2.5)):
        world = _world_grid(np.ones((3, 3), dtype=bool), **opts)
        with pytest.raises(navcore.QueryError, match="jps needs a uniform-cost"):
            world.find_path("g", (0, 0), (2, 2), algorithm="jps")
        assert world.find_path("g", (0, 0), (2, 2)).algorithm == "astar"   # auto
    world = _world_grid(np.ones((3, 3), dtype=bool), np.full((3, 3), 2.0))
    with pytest.raises(navcore.QueryError, match="uniform costs=False"):
        world.find_path("g", (0, 0), (2, 2), algorithm="jps")


def test_jps_on_larger_random_grids_matches_astar_and_reference():
    rng = np.random.default_rng(11)
    for density in (0.1, 0.25, 0.4):
        walk = rng.random((60, 70)) >= density
        world = _world_grid(walk)
        free = np.argwhere(walk)
        for _ in range(15):
            (sy, sx), (gy, gx) = free[rng.integers(len(free), size=2)]
            truth = reference.grid_dijkstra(walk, None, (sx, sy))
            a = world.find_path("g", (sx, sy), (gx, gy), algorithm="astar")
            j = world.find_path("g", (sx, sy), (gx, gy), algorithm="jps")
            if (gx, gy) in truth:
                assert a.cost == pytest.approx(truth[(gx, gy)], rel=1e-12)
                assert j.cost == pytest.approx(truth[(gx, gy)], rel=1e-12)
                assert j.expanded <= a.expanded
                assert reference.is_valid_grid_walk(walk, _cells(world.graph("g"), j.nodes))
            else:
                assert a.status == j.status == PathStatus.UNREACHABLE


@pytest.mark.nojit
def test_corner_cases():
    world = _world_grid(np.array([[True]]))
    r = world.find_path("g", (0, 0), (0, 0))
    assert r.found and r.cost == 0.0 and r.nodes.tolist() == [0]
    walls = ["..#.", ".##.", "....", "###."]
    w = navcore.World(autoload=False)
    w.add_graph("m", type="grid", rows=walls)
    assert w.find_path("m", (0, 0), (2, 0)).status == PathStatus.INVALID_GOAL
    assert w.find_path("m", (1, 1), (3, 3)).status == PathStatus.INVALID_START
    assert w.find_path("m", (-1, 0), (3, 3)).status == PathStatus.INVALID_START
    assert w.find_path("m", (0, 0), (4, 0)).status == PathStatus.INVALID_GOAL
    assert w.find_path("m", (0, 0), (3.7, 3.2)).nodes[-1] == 15   # point in cell (3, 3)
    assert w.find_path("m", 0, 15).nodes[-1] == 15          # node ids work too
    with pytest.raises(navcore.NodeError, match="node id 16 is out of range"):
        w.find_path("m", 0, 16)
    with pytest.raises(navcore.NodeError, match=r"a grid point is \(x, y\)"):
        w.find_path("m", (0, 0), "here")
    island = [".#.", "##.", "..."]
    w.add_graph("i", type="grid", rows=island)
    assert w.find_path("i", (0, 0), (2, 2)).status == PathStatus.UNREACHABLE


@pytest.mark.nojit
def test_no_corner_cutting_is_the_default():
    w = navcore.World(autoload=False)
    w.add_graph("a", type="grid", rows=[".#", ".."])
    w.add_graph("b", type="grid", rows=[".#", ".."], corner_cutting=True)
    w.add_graph("c", type="grid", rows=[".#", "#."], corner_cutting=True)
    assert w.find_path("a", (0, 0), (1, 1)).cost == 2.0
    assert w.find_path("b", (0, 0), (1, 1)).cost == pytest.approx(math.sqrt(2))
    assert w.find_path("c", (0, 0), (1, 1)).found
    assert w.find_path("a", (0, 0), (1, 1), algorithm="jps").cost == 2.0


def test_generic_csr_search_on_the_grid_view_agrees():
    rng = np.random.default_rng(5)
    walk = rng.random((25, 30)) >= 0.3
    world = _world_grid(walk)
    free = np.argwhere(walk)
    for _ in range(10):
        (sy, sx), (gy, gx) = free[rng.integers(len(free), size=2)]
        a = world.find_path("g", (sx, sy), (gx, gy), algorithm="astar")
        b = world.find_path("g", (sx, sy), (gx, gy), algorithm="bfs")  # csr plugin
        assert a.status == b.status
        if a.found:
            assert reference.is_valid_grid_walk(walk, _cells(world.graph("g"), b.nodes))
            assert b.cost >= a.cost - 1e-9
    import navcore_csr
    g = world.graph("g")
    s = int(np.flatnonzero(walk.ravel())[0])
    dist, _ = navcore_csr.dijkstra_all(g, s)
    truth = reference.grid_dijkstra(walk, None, g.cell_of(s))
    for node in range(g.num_nodes):
        expect = truth.get(g.cell_of(node), math.inf)
        assert dist[node] == pytest.approx(expect, rel=1e-12) or (
            math.isinf(expect) and math.isinf(dist[node]))


@pytest.mark.nojit
def test_grid_queries_never_build_the_csr_view():
    # (the areas plugin builds it for its BFS, so take that one out)
    world = navcore.World(autoload=False)
    world.plugins.unregister("areas")
    world.add_graph("g", type="grid", array=np.ones((50, 50), dtype=bool))
    for algorithm in ("auto", "astar", "jps", "dijkstra"):
        assert world.find_path("g", (0, 0), (49, 49), algorithm=algorithm).found
    assert not world.graph("g").csr_built


@pytest.mark.nojit
def test_astar_grows_its_open_list_pool_and_stays_exact():
    # A pool of 2 entries runs out on the first expansion; the wrapper must
    # rerun with a larger one and still return the optimal path.
    from navcore_grid.search import scratch_for

    rng = np.random.default_rng(5)
    walk = rng.random((20, 24)) >= 0.25
    walk[0, 0] = walk[19, 23] = True
    cost = rng.choice([1.0, 2.5], size=walk.shape)
    world = _world_grid(walk, cost)
    g = world.graph("g")
    sc = scratch_for(g)
    enode, ekey, enext, head, fbits, ibits, regs = sc.pool()
    sc._pool = (enode[:2], ekey[:2], enext[:2], head, fbits, ibits, regs)
    for goal in [(23, 19), (5, 7), (12, 3)]:
        if walk[goal[1], goal[0]]:
            _check(world, walk, cost, (0, 0), goal, "astar")
    assert sc.pool()[0].size > 2


@pytest.mark.parametrize("density", [0.0, 0.02, 0.1])
def test_jps_block_scans_on_large_open_grids_match_scipy(density):
    """Open grids wider than several 64-cell words: JPS's word-at-a-time
    scans cross word borders, meet the goal mid-word and stop at walls and
    forced neighbours anywhere in a word."""
    rng = np.random.default_rng(int(density * 100) + 3)
    walk = rng.random((150, 333)) >= density
    walk[70, 5:320] = False                  # a long wall with a gap
    walk[70, 200] = True
    world = _world_grid(walk)
    free = np.argwhere(walk)
    for _ in range(6):
        sy, sx = free[rng.integers(len(free))]
        dist = reference.grid_distances_scipy(walk, (int(sx), int(sy)))
        for gy, gx in free[rng.integers(len(free), size=8)]:
            j = world.find_path("g", (int(sx), int(sy)), (int(gx), int(gy)), algorithm="jps")
            if np.isfinite(dist[gy, gx]):
                assert j.cost == pytest.approx(dist[gy, gx], rel=1e-12)
                assert reference.is_valid_grid_walk(walk, _cells(world.graph("g"), j.nodes))
            else:
                assert j.status == PathStatus.UNREACHABLE
        # goals in the start's own row and column, near and far
        for gx, gy in ((int(sx) + 70, int(sy)), (int(sx) - 65, int(sy)),
                       (int(sx), int(sy) + 66), (int(sx), int(sy) - 3)):
            if 0 <= gx < walk.shape[1] and 0 <= gy < walk.shape[0] and walk[gy, gx]:
                j = world.find_path("g", (int(sx), int(sy)), (gx, gy), algorithm="jps")
                assert j.cost == pytest.approx(dist[gy, gx], rel=1e-12)
