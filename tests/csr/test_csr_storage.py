"""CSR build against a naive adjacency (first edge wins, sorted rows)."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import navcore
from navcore_csr import build_csr
from reference import adjacency


@st.composite
def edge_lists(draw, max_nodes=12, max_edges=40):
    n = draw(st.integers(1, max_nodes))
    m = draw(st.integers(0, max_edges))
    src = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    cost = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5, np.inf]),
                         min_size=m, max_size=m))
    return n, np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), \
        np.array(cost, dtype=np.float64)


@pytest.mark.nojit
@given(edge_lists(), st.booleans())
def test_sorted_dedup_matches_first_edge_wins(edges, sort):
    n, src, dst, cost = edges
    csr = build_csr(src, dst, {"cost": cost}, n, sort=sort, dedup=True)
    ref = adjacency(src, dst, cost, n)
    assert csr.offsets.dtype == np.int64 and csr.targets.dtype == np.int32
    assert csr.offsets[0] == 0 and csr.offsets[-1] == csr.num_edges
    for u in range(n):
        nb = csr.neighbors(u).tolist()
        expected = sorted(ref[u]) if sort else list(ref[u])   # dict keeps first-seen order
        assert nb == expected
        assert csr.edge_data(u).tolist() == [ref[u][v] for v in nb]


@given(edge_lists())
def test_no_dedup_keeps_every_edge_in_stable_order(edges):
    n, src, dst, cost = edges
    csr = build_csr(src, dst, {"cost": cost, "id": np.arange(src.size)}, n,
                    sort=True, dedup=False)
    assert csr.num_edges == src.size
    for u in range(n):
        ids = csr.edge_data(u, "id")
        expected = sorted(np.flatnonzero(src == u), key=lambda e: (dst[e], e))
        assert ids.tolist() == expected


@given(edge_lists())
def test_reverse_view_lists_in_edges_with_shared_costs(edges):
    n, src, dst, cost = edges
    csr = build_csr(src, dst, {"cost": cost}, n)
    rev = csr.reverse()
    fwd = {(u, int(v)): c for u in range(n)
           for v, c in zip(csr.neighbors(u), csr.edge_data(u))}
    back = {(int(u), v): c for v in range(n)
            for u, c in zip(rev.neighbors(v), rev.cost[rev.offsets[v]:rev.offsets[v + 1]])}
    assert fwd == back
    assert (csr.cost[rev.edge_ids] == rev.cost).all()


def test_reverse_cost_follows_cost_updates():
    csr = build_csr([0, 1], [1, 2], {"cost": [1.0, 2.0]})
    rev = csr.reverse()
    assert rev.cost.tolist() == [1.0, 2.0]
    csr.set_cost(np.array([1]), np.array([9.0]))
    assert rev.cost.tolist() == [1.0, 9.0]


@pytest.mark.nojit
def test_seed_004_memory_layout_example():
    src = [0, 0, 1, 1, 1, 3, 3, 3]
    dst = [1, 3, 0, 2, 4, 0, 1, 2]
    csr = build_csr(src, dst, num_nodes=5)
    assert csr.offsets.tolist() == [0, 2, 5, 5, 8, 8]
    assert csr.targets.tolist() == [1, 3, 0, 2, 4, 0, 1, 2]
    assert csr.degree().tolist() == [2, 3, 0, 3, 0]
    assert csr.degree(1) == 3


def test_long_rows_sort_stably():
    rng = np.random.default_rng(1)
    dst = rng.integers(0, 50, 500)
    csr = build_csr(np.zeros(500, dtype=int), dst, {"id": np.arange(500)}, 50,
                    sort=True, dedup=True)
    assert csr.neighbors(0).tolist() == sorted(set(dst.tolist()))
    firsts = [int(np.flatnonzero(dst == v)[0]) for v in csr.neighbors(0)]
    assert csr.edge_data(0, "id").tolist() == firsts


@pytest.mark.nojit
@pytest.mark.parametrize("kwargs, message", [
    (dict(src=[0, 1], dst=[1]), "src has 2 entries but dst has 1"),
    (dict(src=[0, -1], dst=[1, 0]), "negative src node id -1"),
    (dict(src=[0, 1], dst=[1, 5], num_nodes=3), "beyond num_nodes=3"),
    (dict(src=[0], dst=[1], data={"cost": [-1.0]}), "has cost -1.0"),
    (dict(src=[0], dst=[1], data={"cost": [np.nan]}), "has cost nan"),
    (dict(src=[0], dst=[1], data={"cost": [1.0, 2.0]}), "cost has 2 entries"),
    (dict(src=[0.5], dst=[1]), "src must be an array of integer node ids"),
    (dict(src=[[0]], dst=[[1]]), "one-dimensional"),
    (dict(src=[0], dst=[1], data={"cost": ["x"]}), "cost must be numbers"),
    (dict(src=[0], dst=[1], data={"w": [1, 2]}), "edge data 'w' has"),
])
def test_bad_edges_are_graph_errors(kwargs, message):
    with pytest.raises(navcore.GraphError, match=message.replace("(", r"\(")):
        build_csr(**kwargs)


@pytest.mark.nojit
def test_node_id_limit_is_a_capacity_error_not_an_overflow():
    with pytest.raises(navcore.CapacityError, match="int32"):
        build_csr([0], [1], num_nodes=2**31)
    with pytest.raises(navcore.CapacityError, match="int32"):
        build_csr(np.array([2**31], dtype=np.int64), np.array([0]))


@pytest.mark.nojit
def test_view_accessors_validate_nodes():
    csr = build_csr([0], [1])
    with pytest.raises(navcore.GraphError, match="out of range"):
        csr.neighbors(2)
    with pytest.raises(navcore.GraphError, match="no edge data 'w'"):
        csr.edge_data(0, "w")
    assert csr.edge_positions([0, 1], [1, 0]).tolist() == [0, -1]


def test_unsorted_dedup_of_a_high_degree_row_keeps_first_edges_in_order():
    rng = np.random.default_rng(2)
    dst = rng.integers(0, 300, 20000)               # one node, many repeats
    csr = build_csr(np.zeros(dst.size, dtype=int), dst, {"id": np.arange(dst.size)},
                    300, sort=False, dedup=True)
    _, first = np.unique(dst, return_index=True)
    assert csr.edge_data(0, "id").tolist() == sorted(first.tolist())
