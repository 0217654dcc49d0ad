"""Generic searches against a naive Dijkstra and scipy.sparse.csgraph."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, strategies as st
from scipy.sparse.csgraph import dijkstra as scipy_dijkstra

import navcore
from navcore_csr import (astar, bfs, dijkstra, dijkstra_all, distance_matrix,
                         reachable, reachable_counts)
from navcore_csr.search import SearchScratch, scratch_for
import reference


@st.composite
def graphs(draw, max_nodes=14, max_edges=45, zero=True, positions=False):
    n = draw(st.integers(1, max_nodes))
    m = draw(st.integers(0, max_edges))
    src = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), dtype=np.int64)
    dst = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), dtype=np.int64)
    choices = [0.5, 1.0, 2.0, 3.25, 7.0, np.inf] + ([0.0] if zero else [])
    cost = np.array(draw(st.lists(st.sampled_from(choices), min_size=m, max_size=m)))
    directed = draw(st.booleans())
    pos = None
    if positions:
        pos = np.array(draw(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)),
                                     min_size=n, max_size=n)), dtype=float)
    walk = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))) | \
        draw(st.booleans())
    return n, src, dst, cost, directed, pos, walk


def _build(n, src, dst, cost, directed, pos, walk, heuristic=None):
    return navcore.NavGraph.from_edges(src, dst, cost, num_nodes=n, positions=pos,
                                       directed=directed, walkable=walk,
                                       heuristic=heuristic)


@pytest.mark.nojit
@given(graphs(positions=True), st.data())
def test_astar_dijkstra_bfs_match_naive_reference(g, data):
    n, src, dst, cost, directed, pos, walk = g
    graph = _build(*g, heuristic=data.draw(st.sampled_from(["euclidean", "manhattan",
                                                            "octile", "zero"])))
    adj = reference.adjacency(src, dst, cost, n, directed)
    s = data.draw(st.integers(0, n - 1))
    t = data.draw(st.integers(0, n - 1))
    truth = reference.dijkstra(adj, s, walkable=walk)
    for fn in (astar, dijkstra):
        r = fn(graph, s, t)
        if not walk[s]:
            assert r.status == navcore.PathStatus.INVALID_START
        elif not walk[t]:
            assert r.status == navcore.PathStatus.INVALID_GOAL
        elif t in truth:
            assert r.found and r.cost == pytest.approx(truth[t], rel=1e-12, abs=1e-12)
            assert r.nodes[0] == s and r.nodes[-1] == t
            assert reference.path_cost(adj, r.nodes.tolist()) == pytest.approx(r.cost)
            assert walk[r.nodes].all()
        else:
            assert r.status == navcore.PathStatus.UNREACHABLE and len(r.nodes) == 0
    if walk[s] and walk[t]:
        r = bfs(graph, s, t)
        hops = reference.bfs_hops(adj, s, t, walk)
        assert (len(r.nodes) - 1 if r.found else -1) == hops
        if r.found:
            assert r.cost == pytest.approx(reference.path_cost(adj, r.nodes.tolist()))


def _scipy_matrix(n, src, dst, cost, directed):
    """First-wins dedup in Python, then a dense matrix for scipy (no summing)."""
    adj = reference.adjacency(src, dst, cost, n, directed)
    dense = np.full((n, n), np.inf)
    for u, row in adj.items():
        for v, c in row.items():
            if u != v:
                dense[u, v] = c
    return dense


@given(graphs(zero=False), st.data())
def test_one_to_all_and_matrix_match_scipy(g, data):
    n, src, dst, cost, directed, pos, walk = g
    walk = np.ones(n, dtype=bool)
    graph = _build(n, src, dst, cost, directed, None, walk)
    dense = _scipy_matrix(n, src, dst, cost, directed)
    finite = np.where(np.isinf(dense), 0.0, dense)
    truth = scipy_dijkstra(sp.csr_matrix(finite), directed=True)
    s = data.draw(st.integers(0, n - 1))
    dist, parent = dijkstra_all(graph, s)
    np.testing.assert_allclose(dist, truth[s], rtol=1e-12)
    for v in np.flatnonzero(np.isfinite(dist)):
        if v != s:
            assert dist[parent[v]] + dense[parent[v], v] == pytest.approx(dist[v])
    sources = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=6)), dtype=np.int32)
    targets = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=6)), dtype=np.int32)
    np.testing.assert_allclose(distance_matrix(graph, sources, targets),
                               truth[np.ix_(sources, targets)], rtol=1e-12)


@given(graphs())
def test_reachable_counts_match_per_node_sets(g):
    n, src, dst, cost, directed, pos, walk = g
    graph = _build(n, src, dst, cost, directed, None, walk)
    adj = reference.adjacency(src, dst, cost, n, directed)
    assert reachable_counts(graph).tolist() == reference.reach_count_sets(adj, walk)
    for a in range(min(n, 4)):
        for b in range(min(n, 4)):
            expect = bool(walk[a] and walk[b] and
                          b in reference.dijkstra(adj, a, walkable=walk))
            assert reachable(graph, a, b) == expect


def test_reachable_counts_on_a_larger_random_digraph():
    rng = np.random.default_rng(7)
    n, m = 3000, 2400
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    graph = navcore.NavGraph.from_edges(src, dst, num_nodes=n)
    adj = reference.adjacency(src, dst, np.ones(m), n)
    assert reachable_counts(graph).tolist() == reference.reach_count_sets(adj)


@pytest.mark.nojit
def test_generation_wraparound_wipes_stamps_and_stays_correct():
    g = navcore.NavGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 1.0, 1.0])
    sc = scratch_for(g)
    first = dijkstra(g, 0, 3)
    sc.gen = (np.iinfo(np.int32).max - 3) // 2     # next query wraps
    sc.stamp[:] = 2 * sc.gen + 1                   # as if everything were closed
    again = dijkstra(g, 0, 3)
    assert sc.gen == 1 and again.nodes.tolist() == first.nodes.tolist() == [0, 1, 2, 3]


def test_scratch_is_per_thread_and_reused():
    import threading
    g = navcore.NavGraph.from_edges([0], [1])
    mine = scratch_for(g)
    assert scratch_for(g) is mine and isinstance(mine, SearchScratch)
    other = []
    t = threading.Thread(target=lambda: other.append(scratch_for(g)))
    t.start()
    t.join()
    assert other[0] is not mine


@pytest.mark.nojit
def test_zero_cost_edges_self_loops_and_isolated_nodes():
    g = navcore.NavGraph.from_edges([0, 0, 1, 2, 1], [0, 1, 2, 0, 1],
                                    [5.0, 0.0, 0.0, 1.0, 0.0], num_nodes=5)
    r = dijkstra(g, 0, 2)
    assert r.found and r.cost == 0.0 and r.nodes.tolist() == [0, 1, 2]
    assert dijkstra(g, 0, 4).status == navcore.PathStatus.UNREACHABLE
    assert dijkstra(g, 3, 3).nodes.tolist() == [3]


@pytest.mark.nojit
def test_heuristic_stays_exact_when_costs_are_below_distances():
    # positions 10 apart but edge costs 1: an unscaled euclidean heuristic
    # would overestimate and return the wrong path.
    pos = np.array([[0, 0], [10, 0], [20, 0], [10, 10]], dtype=float)
    g = navcore.NavGraph.from_edges([0, 1, 0, 3], [1, 2, 3, 2], [1.0, 1.0, 0.5, 0.5],
                                    positions=pos)
    assert astar(g, 0, 2).cost == dijkstra(g, 0, 2).cost == 1.0


@pytest.mark.nojit
def test_search_inputs_are_validated():
    g = navcore.NavGraph.from_edges([0], [1])
    with pytest.raises(navcore.NodeError, match="start node 5 is out of range"):
        dijkstra(g, 5, 0)
    with pytest.raises(navcore.NodeError, match="goal must be an integer node id"):
        astar(g, 0, "x")
    with pytest.raises(navcore.NodeError, match="sources holds node id 9"):
        distance_matrix(g, [9], [0])
    with pytest.raises(navcore.QueryError, match="needs node positions"):
        astar(g, 0, 1, heuristic="euclidean")
    assert math.isinf(distance_matrix(g, [1], [0])[0, 0])


@pytest.mark.parametrize("span", [1e200, 1e307])
def test_euclidean_heuristic_on_positions_whose_squares_overflow(span):
    # nodes 0..4 on a line towards the goal, 5..8 a spur away from it, each
    # step span / 8 long and costing 1e-20 per unit of distance, so the
    # heuristic scale is 1e-20 (dx * dx overflows float64: the distances
    # were inf, the scale 0, and A* searched as Dijkstra does)
    step = span / 8
    xs = np.array([0, 1, 2, 3, 4, -1, -2, -3, -4]) * step
    pos = np.column_stack((xs, np.zeros(9)))
    src = np.array([0, 1, 2, 3, 0, 5, 6, 7])
    dst = np.array([1, 2, 3, 4, 5, 6, 7, 8])
    cost = 1e-20 * np.abs(xs[dst] - xs[src])
    g = navcore.NavGraph.from_edges(src, dst, cost, positions=pos)
    from navcore_csr.search import heuristic_scale
    assert heuristic_scale(g, "euclidean") == pytest.approx(1e-20, rel=1e-9, abs=0)
    r, d = astar(g, 0, 4), dijkstra(g, 0, 4)
    assert r.found and r.nodes.tolist() == d.nodes.tolist() == [0, 1, 2, 3, 4]
    assert r.cost == pytest.approx(cost[:4].sum(), rel=1e-12)
    assert r.expanded < d.expanded      # the spur is left alone
