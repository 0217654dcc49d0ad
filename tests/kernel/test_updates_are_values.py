"""``World.update`` copies what it checked, and a batch that fails at
``tick`` neither drops the other graphs' batches nor escapes as a raw
exception."""
import numpy as np
import pytest

import navcore

pytestmark = pytest.mark.nojit


def test_reusing_the_callers_buffer_changes_nothing_queued():
    w = navcore.World()
    w.add_graph("c", type="csr", src=[0, 1, 2], dst=[1, 2, 3], directed=False)
    w.add_graph("g", type="grid", rows=["....", "...."])
    nodes = np.array([1])
    cells = [[1, 0], [1, 1]]
    w.update("c", nodes=nodes, walkable=False)
    w.update("g", cells=cells, walkable=False)
    nodes[0] = 99                       # out of range now: must not matter
    cells[0][0] = 3
    cells.append([2, 0])
    stats = w.tick()
    assert stats.updates_applied == 2
    assert not w.graph("c").walkable[1] and w.graph("c").walkable[2]
    assert not w.reachable("g", (0, 0), (3, 0))
    assert w.reachable("g", (2, 0), (3, 0))


def test_a_failing_batch_is_reported_after_the_others_are_applied():
    boom = []

    class Faulty:
        """Applies nothing on graph 'bad': as a backend with a bug would."""
        @navcore.hookimpl(tryfirst=True)
        def navcore_apply_updates(self, graph, batch):
            if graph.graph_id == "bad":
                boom.append(len(batch))
                raise IndexError("index 99 is out of bounds")

    w = navcore.World(plugins=[Faulty()])
    for gid in ("a", "bad", "b"):
        w.add_graph(gid, type="csr", src=[0, 1], dst=[1, 2], directed=False)
        w.update(gid, nodes=[1], walkable=False)
    with pytest.raises(navcore.UpdateError, match="IndexError") as err:
        w.tick()
    assert "the 1 update(s) queued for graph 'bad' were dropped" in str(err.value)
    assert "2 other graph(s)' batches were applied" in str(err.value)
    assert boom == [1]
    assert not w.reachable("a", 0, 2) and not w.reachable("b", 0, 2)
    assert w.reachable("bad", 0, 2) and w.pending_updates() == 0
    w.tick()                                      # the next frames run as usual
