"""``array=`` and ``cost=`` read cells as python-tcod does: a number > 0 is
a cost, 0 / False / inf a wall, negative / NaN / non-numbers refused.

Walls, reachability and uniform-cost lengths are checked against
``tcod.path.SimpleGraph`` on the same array. tcod prices a move by the
cost of the cell it enters (navcore by the mean of both cells), so
lengths under varying costs are checked against the naive Dijkstra in
``tests/reference.py`` that follows navcore's rule.
"""
import math

import numpy as np
import pytest

import navcore
import reference

tcod_path = pytest.importorskip("tcod.path")

#: tcod's move costs are integers: a straight move 2, a diagonal 3, so
#: navcore's lengths with ``diagonal_cost=1.5`` are half of tcod's
CARDINAL, DIAGONAL = 2, 3


def _tcod_distances(cost, connectivity):
    """tcod's distance from cell (0, 0) of the int array ``cost`` (indexed
    [y, x], 0 = wall) to every cell; ``None`` where unreachable."""
    graph = tcod_path.SimpleGraph(cost=cost, cardinal=CARDINAL,
                                  diagonal=DIAGONAL if connectivity == 8 else 0)
    finder = tcod_path.Pathfinder(graph)
    finder.add_root((0, 0))
    finder.resolve()
    d = finder.distance.astype(np.float64)
    return np.where(d == np.iinfo(finder.distance.dtype).max, np.nan, d)


def _navcore_distances(array, connectivity, algorithm="astar"):
    world = navcore.World(autoload=False)
    g = world.add_graph("g", type="grid", array=array, connectivity=connectivity,
                        diagonal_cost=DIAGONAL / CARDINAL, corner_cutting=True)
    H, W = g.height, g.width
    out = np.full((H, W), np.nan)
    for y in range(H):
        for x in range(W):
            r = world.find_path("g", (0, 0), (x, y), algorithm=algorithm)
            if r.found:
                out[y, x] = r.cost
    return g, out


def _random_map(seed, kind, shape=(9, 11)):
    rng = np.random.default_rng(seed)
    open_ = rng.random(shape) >= 0.3
    open_[0, 0] = True                      # the start
    if kind == "int01":
        return open_.astype(np.int64)
    if kind == "bool":
        return open_
    return np.where(open_, 1.0, 0.0)        # float 1.0 / 0.0


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("kind", ["int01", "bool", "float01"])
@pytest.mark.parametrize("seed", range(4))
def test_uniform_maps_give_tcod_lengths(kind, connectivity, seed):
    array = _random_map(seed, kind)
    g, ours = _navcore_distances(array, connectivity)
    theirs = _tcod_distances(np.asarray(array, dtype=np.int32), connectivity)
    # 0 / False are walls for both, every other cell is walkable at cost 1
    assert g.walkable_grid.tolist() == (np.asarray(array) != 0).tolist()
    assert (g.cost == 1.0).all()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_allclose(ours * CARDINAL, theirs, rtol=1e-12)


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("seed", range(4))
def test_weighted_maps_walls_and_reach_match_tcod_and_lengths_match_reference(
        connectivity, seed):
    rng = np.random.default_rng(100 + seed)
    H, W = 8, 10
    # integral costs tcod can read as they are, 0 among them
    array = rng.choice([0, 1, 2, 3, 5], size=(H, W), p=[0.25, 0.3, 0.2, 0.15, 0.1])
    array[0, 0] = 1
    g, ours = _navcore_distances(array.astype(np.float64), connectivity)
    theirs = _tcod_distances(array.astype(np.int32), connectivity)
    assert g.walkable_grid.tolist() == (array > 0).tolist()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    truth = reference.grid_dijkstra(array > 0, array, (0, 0), connectivity=connectivity,
                                    diagonal_cost=DIAGONAL / CARDINAL, corner_cutting=True)
    for (x, y), d in truth.items():
        assert ours[y, x] == pytest.approx(d, rel=1e-12, abs=1e-12)
    assert np.count_nonzero(~np.isnan(ours)) == len(truth)


@pytest.mark.parametrize("rule", [dict(), dict(connectivity=4), dict(corner_cutting=True),
                                  dict(diagonal_cost=1.0)])
@pytest.mark.parametrize("seed", range(3))
def test_cheap_cells_and_inf_walls_keep_astar_exact(rule, seed):
    # costs below 1 (the octile heuristic must scale by the cheapest cell)
    rng = np.random.default_rng(200 + seed)
    array = rng.choice([0.0, 0.05, 0.25, 1.0, 4.0, np.inf], size=(9, 9))
    array[0, 0] = 0.05
    walk = np.isfinite(array) & (array > 0)
    world = navcore.World(autoload=False)
    g = world.add_graph("g", type="grid", array=array, **rule)
    assert g.walkable_grid.tolist() == walk.tolist()
    truth = reference.grid_dijkstra(walk, np.where(walk, array, 1.0), (0, 0), **rule)
    for y in range(9):
        for x in range(9):
            for algorithm in ("astar", "dijkstra", "auto"):
                r = world.find_path("g", (0, 0), (x, y), algorithm=algorithm)
                if (x, y) in truth:
                    assert r.found and r.cost == pytest.approx(truth[(x, y)], rel=1e-12)
                else:
                    assert not r.found


@pytest.mark.nojit
@pytest.mark.parametrize("array, where, what", [
    (np.array([[1.0, 2.0], [-0.5, 1.0]]), r"cell \(0, 1\) has cost -0.5", "negative"),
    (np.array([[1.0, np.nan, -1.0]]), r"cell \(1, 0\) has cost nan", "NaN"),
    (np.array([[1, 2, 3], [4, -7, 6]]), r"cell \(1, 1\) has cost -7.0", "negative int"),
    (np.array([[1, None], [1, 1]], dtype=object), r"cell \(1, 0\) is None", "None"),
    (np.array([["a", "b"]]), r"cell \(0, 0\) is np.str_\('a'\)|cell \(0, 0\) is 'a'", "text"),
    (np.array([[1 + 1j]]), r"cell \(0, 0\)", "complex"),
])
def test_bad_cells_are_refused_by_name(array, where, what):
    w = navcore.World(autoload=False)
    with pytest.raises(navcore.GraphError, match=where) as info:
        w.add_graph("g", type="grid", array=array)
    assert "0, False and inf are walls" in str(info.value)
    assert list(w.graphs) == []


@pytest.mark.nojit
def test_cost_updates_follow_the_same_rule():
    w = navcore.World(autoload=False)
    g = w.add_graph("g", type="grid", array=np.full((3, 4), 2.0))
    # 0 is a wall, like inf: the cell's cost is kept for when it opens again
    w.update("g", cells=[(1, 0), (2, 0)], cost=[0.0, np.inf])
    w.update("g", rect=(0, 2, 2, 1), cost=np.array([[0.5, 0]]))
    w.tick()
    assert g.walkable_grid.tolist() == [[True, False, False, True], [True] * 4,
                                        [True, False, True, True]]
    assert g.cost.tolist() == [[2.0] * 4, [2.0] * 4, [0.5, 2.0, 2.0, 2.0]]
    w.update("g", cells=[(1, 0)], walkable=True)
    w.tick()
    assert g.cost[0, 1] == 2.0 and g.walkable_grid[0, 1]
    # the first bad selected cell is named, in the order the region lists them
    with pytest.raises(navcore.UpdateError, match=r"cost: cell \(3, 1\) has cost nan"):
        w.update("g", rect=(2, 1, 2, 2), cost=np.array([[1.0, np.nan], [-1.0, 1.0]]))
    mask = np.zeros((3, 4), bool)
    mask[2, 3] = True
    with pytest.raises(navcore.UpdateError, match=r"cell \(3, 2\) has cost -2.0"):
        w.update("g", mask=mask, cost=np.full((3, 4), -2.0))
    assert w.pending_updates("g") == 0


@pytest.mark.nojit
def test_a_zero_one_map_is_not_walked_through():
    # the trap: a 0/1 int map used to be free floor at cost 0 and 1
    maze = np.array([[1, 0, 1],
                     [1, 0, 1],
                     [1, 1, 1]])
    w = navcore.World(autoload=False)
    w.add_graph("m", type="grid", array=maze, connectivity=4)
    r = w.find_path("m", (0, 0), (2, 0))
    assert r.found and r.cost == 6.0 and len(r.nodes) == 7
    assert w.find_path("m", (0, 0), (1, 0)).status == navcore.PathStatus.INVALID_GOAL
    assert math.isclose(w.find_path("m", (0, 0), (0, 2)).cost, 2.0)
