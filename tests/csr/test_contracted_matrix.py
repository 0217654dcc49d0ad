"""``distance_matrix`` and ``distance_pairs`` of a contracted graph (the
bucket many-to-many of ``navcore_csr.buckets``, through
``HierarchyQuery``) against scipy.sparse.csgraph.dijkstra: directed and
undirected csr graphs and a grid, blocked nodes, unreachable pairs,
repeated and empty ends."""
import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra as sp_dijkstra

import navcore
import navcore_csr
from navcore_csr import DirectedHierarchy, contract


def scipy_all(graph):
    """Every distance of the graph now (blocked nodes: inf from and to)."""
    csr, walk = graph.csr, graph.walkable
    n = graph.num_nodes
    tails = np.repeat(np.arange(n), np.diff(csr.offsets))
    heads = csr.targets.astype(np.int64)
    cost = np.asarray(csr.cost, dtype=np.float64)
    keep = np.isfinite(cost) & walk[tails] & walk[heads]
    t, h, c = tails[keep], heads[keep], cost[keep]
    order = np.lexsort((c, h, t))              # parallel edges: the cheapest (scipy sums)
    t, h, c = t[order], h[order], c[order]
    first = np.ones(t.size, dtype=bool)
    first[1:] = (t[1:] != t[:-1]) | (h[1:] != h[:-1])
    m = csr_matrix((c[first], (t[first], h[first])), shape=(n, n))
    d = sp_dijkstra(m, directed=True)
    d[~walk] = np.inf
    d[:, ~walk] = np.inf
    return d


def random_csr(world, gid, seed, directed):
    """A graph of two parts (unreachable pairs), a few blocked nodes and
    parallel edges; costs > 0 (scipy drops explicit zeros)."""
    rng = np.random.default_rng(seed)
    n = 40
    m = 110
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    cross = (src < n // 2) != (dst < n // 2)
    src, dst = src[~cross], dst[~cross]
    cost = rng.choice([1.0, 2.5, 0.5, 3.0], src.size) * rng.integers(1, 4, src.size)
    walkable = rng.random(n) > 0.1
    return world.add_graph(gid, type="csr", src=src, dst=dst, cost=cost, num_nodes=n,
                           directed=directed, walkable=walkable)


def ends(rng, n):
    """Sources and targets of every kind: repeats, more of one than the other."""
    a = rng.integers(0, n, 12)
    a[3] = a[0]
    b = rng.integers(0, n, 7)
    b[5] = b[1]
    return a, b


@pytest.mark.nojit
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_contracted_csr_matrix_and_pairs_are_scipys(directed, seed, monkeypatch):
    world = navcore.World(warm_up=False)
    g = random_csr(world, "g", seed, directed)
    truth = scipy_all(g)
    contract(g)

    def no_search(*args):
        raise AssertionError("a contracted graph's matrix searched the graph")
    monkeypatch.setattr(navcore_csr.search, "distance_matrix", no_search)
    monkeypatch.setattr(navcore_csr.search, "distance_pairs", no_search)
    rng = np.random.default_rng(seed + 100)
    a, b = ends(rng, g.num_nodes)
    assert np.isinf(truth[np.ix_(a, b)]).any()            # unreachable pairs are asked
    for s, t in ((a, b), (b, a), (a, a)):                  # fewer targets, fewer sources
        got = world.distance_matrix("g", s, t)
        assert got.shape == (s.size, t.size)
        np.testing.assert_allclose(got, truth[np.ix_(s, t)], rtol=1e-12)
    pairs = world.distance_pairs("g", a[:7], b)
    np.testing.assert_allclose(pairs, truth[a[:7], b], rtol=1e-12)
    assert world.distance_matrix("g", [], b).shape == (0, b.size)
    assert world.distance_matrix("g", a, []).shape == (a.size, 0)
    assert world.distance_pairs("g", [], []).shape == (0,)


@pytest.mark.nojit
def test_contracted_grid_matrix_is_scipys():
    world = navcore.World(warm_up=False)
    rng = np.random.default_rng(7)
    walls = rng.random((14, 17)) < 0.25
    walls[:, 8] = True                                     # two halves: unreachable pairs
    g = world.add_graph("grid", type="grid", array=~walls)
    truth = scipy_all(g)
    plain = world.distance_matrix("grid", np.arange(0, g.num_nodes, 7),
                                  np.arange(3, g.num_nodes, 11))
    contract(g)
    src, dst = np.arange(0, g.num_nodes, 7), np.arange(3, g.num_nodes, 11)
    got = world.distance_matrix("grid", src, dst)
    np.testing.assert_allclose(got, truth[np.ix_(src, dst)], rtol=1e-12)
    np.testing.assert_allclose(got, plain, rtol=1e-12)     # as without the hierarchy
    assert np.isinf(got).any() and np.isfinite(got).any()


@pytest.mark.nojit
def test_matrix_uses_the_current_hierarchy_only():
    """A stale hierarchy is left alone: the searches answer for the graph now."""
    world = navcore.World(warm_up=False)
    g = world.add_graph("r", type="csr", src=[0, 1, 2], dst=[1, 2, 0], cost=[1.0, 1.0, 1.0])
    contract(g)
    assert world.distance_matrix("r", [0], [2]).tolist() == [[2.0]]
    world.update("r", edges=[(1, 2)], cost=5.0)
    world.tick()
    assert world.distance_matrix("r", [0], [2]).tolist() == [[6.0]]
    assert world.distance_pairs("r", [0], [2]).tolist() == [6.0]


@pytest.mark.parametrize("seed", [4, 5])
def test_hierarchy_matrix_retries_when_its_room_runs_out(seed):
    """``HierarchyQuery.matrix`` grows its output room and asks again; both sides fill the buckets in turn (more sources than targets
    and fewer)."""
    rng = np.random.default_rng(seed)
    n = 300
    key = np.unique(rng.integers(0, n * n, 900))           # no parallel edges
    src, dst = key // n, key % n
    cost = rng.random(key.size) + 0.1
    offsets = np.zeros(n + 1, dtype=np.int64)
    order = np.argsort(src, kind="stable")
    np.cumsum(np.bincount(src, minlength=n), out=offsets[1:])
    targets, weights = dst[order].astype(np.int32), cost[order]
    q = DirectedHierarchy.build(offsets, targets, weights).query()
    q._space = 1                                           # too small for any search
    truth = sp_dijkstra(csr_matrix((weights, targets, offsets), shape=(n, n)))
    a = rng.integers(0, n, 30)
    b = np.concatenate([rng.integers(0, n, 9), [a[0], a[0]]])
    np.testing.assert_allclose(q.matrix(a, b), truth[np.ix_(a, b)], rtol=1e-12)
    np.testing.assert_allclose(q.matrix(b, a), truth[np.ix_(b, a)], rtol=1e-12)
    assert q.matrix([], b).shape == (0, b.size)


@pytest.mark.nojit
def test_a_contracted_graph_cuts_matrix_blocks_along_the_larger_side():
    """The buckets cost a search from every end (the csr rule without a
    hierarchy searches from the targets of a directed graph when fewer)."""
    world = navcore.World(warm_up=False)
    g = world.add_graph("d", type="csr", src=[0, 1], dst=[1, 2], directed=True)

    def side(ns, nt):
        return world.plugins.hook.navcore_matrix_search_side(
            world=world, graph=g, num_sources=ns, num_targets=nt)
    assert side(5, 3) == "targets"
    contract(g)
    assert side(5, 3) == "sources" and side(3, 5) == "targets"
