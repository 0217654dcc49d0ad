"""A grid search stepped across frames whose grid changes so that jump
point search no longer applies (costs no longer uniform), or applies
again, ends as ``find_path`` answers on the grid as it is then."""
import numpy as np
import pytest

import navcore
from navcore import QueryError

from reference import grid_dijkstra


def _walk():
    """40 x 30 cells; every fourth column a wall with a gap, at the bottom
    and the top by turns: a search between the corners winds through."""
    walk = np.ones((30, 40), bool)
    for k, x in enumerate(range(3, 37, 4)):
        walk[:, x] = False
        walk[(0 if k % 2 else 29), x] = True
    return walk


def _world():
    w = navcore.World()
    rows = ["".join(".#"[not c] for c in r) for r in _walk()]
    g = w.add_graph("g", type="grid", rows=rows, connectivity=8)
    return w, g


def test_auto_stepped_under_jps_goes_on_as_astar_once_costs_differ():
    w, g = _world()
    s = w.begin_search("g", (0, 0), (39, 29))
    assert not s.step(3)
    w.update("g", rect=(10, 5, 8, 20), cost=3.0)       # mud: JPS no longer applies
    w.tick()
    while not s.step(50):
        pass
    got, want = s.result(), w.find_path("g", (0, 0), (39, 29))
    assert want.algorithm == got.algorithm == "astar"
    assert got.cost == want.cost and got.nodes.tolist() == want.nodes.tolist()
    assert got.expanded == want.expanded
    cost = np.ones((30, 40))
    cost[5:25, 10:18] = 3.0
    walk = _walk()
    walk[5:25, 10:18] = True                  # a cost makes a wall cell walkable
    truth = grid_dijkstra(walk, cost, start=(0, 0))
    assert got.cost == pytest.approx(truth[(39, 29)])


def test_auto_stepped_under_astar_goes_on_as_jps_once_costs_are_uniform():
    w, g = _world()
    w.update("g", rect=(10, 5, 8, 20), cost=3.0)
    w.tick()
    s = w.begin_search("g", (0, 0), (39, 29))
    assert not s.step(3)
    w.update("g", rect=(10, 5, 8, 20), cost=1.0)
    w.tick()
    while not s.step(50):
        pass
    got, want = s.result(), w.find_path("g", (0, 0), (39, 29))
    assert want.algorithm == got.algorithm == "jps"
    assert got.cost == want.cost and got.expanded == want.expanded


def test_explicit_jps_stepped_when_costs_come_to_differ_is_refused_as_find_path():
    w, g = _world()
    s = w.begin_search("g", (0, 0), (39, 29), algorithm="jps")
    assert not s.step(3)
    w.update("g", rect=(10, 5, 8, 20), cost=3.0)
    w.tick()
    with pytest.raises(QueryError, match="jps needs a uniform-cost"):
        s.step(50)
    with pytest.raises(QueryError, match="jps needs a uniform-cost"):
        w.find_path("g", (0, 0), (39, 29), algorithm="jps")
