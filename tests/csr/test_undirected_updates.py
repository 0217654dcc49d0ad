"""An edge update on an undirected graph changes both directions alike:
the last cost given for an edge, in either direction, is its cost both
ways (it used to leave 0->1 and 1->0 with each other's costs)."""
import numpy as np
import pytest

import navcore
from navcore import limits

pytestmark = pytest.mark.nojit


def _line(directed=False):
    w = navcore.World()
    g = w.add_graph("g", type="csr", src=[0, 1, 2], dst=[1, 2, 3], cost=[1.0, 1.0, 1.0],
                    directed=directed)
    return w, g


def _cost(g, u, v):
    return float(g.csr.cost[g.csr.edge_positions(np.array([u]), np.array([v]))[0]])


def test_both_directions_of_one_edge_in_one_update_take_the_last_cost():
    w, g = _line()
    w.update("g", edges=[(0, 1), (1, 0)], cost=[5.0, 2.0])
    w.tick()
    assert _cost(g, 0, 1) == _cost(g, 1, 0) == 2.0
    w.update("g", edges=[(1, 0), (0, 1), (2, 3)], cost=[4.0, 7.0, 3.0])
    w.tick()
    assert _cost(g, 0, 1) == _cost(g, 1, 0) == 7.0 and _cost(g, 3, 2) == 3.0


def test_closing_one_direction_closes_the_edge_and_every_answer_agrees():
    w, g = _line()
    w.update("g", edges=[(0, 1), (1, 0)], cost=[1.0, np.inf])
    w.tick()
    assert np.isinf(_cost(g, 0, 1)) and np.isinf(_cost(g, 1, 0))
    assert w.find_path("g", 0, 3).status is navcore.PathStatus.UNREACHABLE
    assert not w.reachable("g", 0, 3)


def test_a_directed_graph_keeps_its_directions_apart():
    w, g = _line(directed=True)
    w.add_graph("h", type="csr", src=[0, 1], dst=[1, 0], cost=[1.0, 1.0])
    h = w.graph("h")
    w.update("h", edges=[(0, 1), (1, 0)], cost=[5.0, 2.0])
    w.tick()
    assert _cost(h, 0, 1) == 5.0 and _cost(h, 1, 0) == 2.0


@pytest.mark.parametrize("cost", [True, "2", [True], 1e300, [1.0 + 1j]])
def test_costs_that_are_not_summable_numbers_are_refused(cost):
    w, g = _line()
    with pytest.raises(navcore.UpdateError, match="cost"):
        w.update("g", edges=[(0, 1)], cost=cost)
    assert w.pending_updates() == 0
    assert limits.MAX_COST < 1e300
