"""The hierarchy's member blocks (1 KB per hierarchical node off lattices)
are checked against free memory before they grow: a graph of
many isolated nodes is a CapacityError, not minutes of swapping."""
import pytest

import navcore
from navcore import limits

pytestmark = pytest.mark.nojit


def test_isolated_nodes_past_free_memory_are_a_capacity_error(monkeypatch):
    monkeypatch.setattr(limits, "available_memory", lambda: 200 * 10 ** 6)
    w = navcore.World()
    w.add_graph("ok", type="csr", src=[0, 1], dst=[1, 2])
    with pytest.raises(navcore.CapacityError, match=r"the areas of a graph of 1000001 nodes"):
        w.add_graph("x", type="csr", src=[0], dst=[10 ** 6])
    assert list(w.graphs) == ["ok"]
    # the same graph with the memory it needs builds, each node its own area
    monkeypatch.setattr(limits, "available_memory", lambda: None)
    g = w.add_graph("y", type="csr", src=[0], dst=[10 ** 5])
    import numpy as np
    assert np.unique(w.areas("y")).size == g.num_nodes - 1     # 0 and 10**5 share one
