"""Edge costs are numbers (not bools or numeric strings) and finite costs
stay below ``limits.MAX_COST``, so no sum along a path overflows to inf:
every algorithm and ``reachable`` agree on huge costs."""
import numpy as np
import pytest

import navcore
from navcore import limits

pytestmark = pytest.mark.nojit


@pytest.mark.parametrize("cost, words", [
    ([True, False], "bools"), (["1", "2"], "numbers"), ([1e300, 1.0], r"at most 1e\+290"),
    ([None, 1.0], "numbers")])
def test_csr_costs_that_are_not_numbers_or_too_large_are_refused(cost, words):
    w = navcore.World()
    with pytest.raises(navcore.GraphError, match=words):
        w.add_graph("g", type="csr", src=[0, 1], dst=[1, 2], cost=cost)
    assert not w.graphs


def test_the_largest_cost_sums_along_a_long_path_without_overflow():
    n = 1000
    w = navcore.World()
    w.add_graph("g", type="csr", src=np.arange(n - 1), dst=np.arange(1, n),
                cost=np.full(n - 1, limits.MAX_COST))
    for algorithm in ("auto", "dijkstra", "astar", "bfs"):
        r = w.find_path("g", 0, n - 1, algorithm=algorithm)
        assert r.status is navcore.PathStatus.FOUND and np.isfinite(r.cost), algorithm
    assert w.reachable("g", 0, n - 1)
    assert np.isfinite(w.distance_matrix("g", [0], [n - 1])[0, 0])
    assert limits.MAX_COST * 2 ** 31 * 2 ** 0.5 < np.finfo(np.float64).max


def test_grid_costs_above_the_limit_are_refused_and_the_largest_sums():
    w = navcore.World()
    costs = np.ones((3, 40))
    costs[1, 5] = 1e300
    with pytest.raises(navcore.GraphError, match=r"cell \(5, 1\) has cost 1e\+300"):
        w.add_graph("g", type="grid", array=costs)
    costs[:] = limits.MAX_COST
    w.add_graph("g", type="grid", array=costs)
    with pytest.raises(navcore.UpdateError, match="at most"):
        w.update("g", cells=[(0, 0)], cost=1e300)
    for algorithm in ("auto", "astar", "dijkstra"):
        r = w.find_path("g", (0, 0), (39, 2), algorithm=algorithm)
        assert r.status is navcore.PathStatus.FOUND and np.isfinite(r.cost), algorithm
    assert w.reachable("g", (0, 0), (39, 2))
