"""The directed contraction hierarchy (``navcore_csr.hierarchy``) against
scipy's Dijkstra: random directed graphs with every awkward edge (one-way,
parallel, self-loop, zero, inf), the real Monaco and Helsinki road graphs
with their stored truth, the arrays round trip and corrupt arrays."""
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from navcore.errors import GraphError, QueryError
from navcore_csr.hierarchy import DirectedHierarchy
from roadlike import roadlike

ROADS = Path("/work/shared/data/roads")


def csr_from_edges(n, src, dst, w):
    """CSR arrays (offsets int64, targets int32, weights) sorted by source."""
    order = np.argsort(src, kind="stable")
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.add.at(offsets, np.asarray(src)[order] + 1, 1)
    return (np.cumsum(offsets), np.asarray(dst)[order].astype(np.int32),
            np.asarray(w, dtype=np.float64)[order])


def truth(offsets, targets, weights):
    """All-pairs distances by scipy on the cheapest parallel edges; zero
    weights kept as explicit entries (scipy reads a stored 0 as an edge)."""
    n = offsets.shape[0] - 1
    src = np.repeat(np.arange(n), np.diff(offsets))
    keep = np.isfinite(weights) & (src != targets)
    s, t, w = src[keep], targets[keep], weights[keep]
    best = {}
    for a, b, c in zip(s.tolist(), t.tolist(), w.tolist()):
        if c < best.get((a, b), np.inf):
            best[(a, b)] = c
    rows = np.array([k[0] for k in best], dtype=np.int64)
    cols = np.array([k[1] for k in best], dtype=np.int64)
    vals = np.array(list(best.values()), dtype=np.float64)
    g = csr_matrix((vals, (rows, cols)), shape=(n, n))
    g.data[g.data == 0] = 0.0                  # explicit zeros stay edges
    return dijkstra(g, directed=True)


def random_graph(rng, n=None):
    """A directed graph with one-way, parallel, self-loop, zero and inf
    edges, and often a part that cannot be reached."""
    n = int(rng.integers(1, 40)) if n is None else n
    m = int(rng.integers(0, 4 * n + 1))
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    w = rng.choice([0.0, 1.0, 2.5, 3.0, 7.25], m) * rng.integers(1, 4, m)
    w = np.where(rng.random(m) < 0.05, np.inf, w)
    back = rng.random(m) < 0.5                 # half the streets run both ways
    src, dst, w = (np.concatenate([src, dst[back]]), np.concatenate([dst, src[back]]),
                   np.concatenate([w, w[back]]))
    dup = rng.random(src.shape[0]) < 0.1       # parallel edges, dearer or cheaper
    src = np.concatenate([src, src[dup]])
    dst = np.concatenate([dst, dst[dup]])
    w = np.concatenate([w, w[dup] * rng.choice([0.5, 2.0], int(dup.sum()))])
    if rng.random() < 0.5 and n > 3:           # an island nothing reaches
        cut = n - 2
        bad = (src < cut) & (dst >= cut)
        src, dst, w = src[~bad], dst[~bad], w[~bad]
    return csr_from_edges(n, src, dst, w)


def close(a, b, rel=1e-9):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    assert (np.isinf(a) == np.isinf(b)).all()
    f = np.isfinite(b)
    assert np.all(np.abs(a[f] - b[f]) <= rel * np.maximum(1.0, np.abs(b[f])))


def check_path(offsets, targets, weights, s, t, cost, edges, want, atol=None):
    """``edges`` walks from ``s`` to ``t`` in the graph and its weights sum
    to ``cost``, which is ``want`` (to 1e-9 relative, or ``atol``)."""
    if not np.isfinite(want):
        assert cost == np.inf and edges.shape == (0,)
        return
    assert edges.dtype == np.int64
    tails = np.searchsorted(offsets, edges, side="right") - 1
    at = s
    for e, tail in zip(edges.tolist(), tails.tolist()):
        assert tail == at
        at = int(targets[e])
    assert at == t
    total = 0.0
    for e in edges.tolist():                   # summed in path order, as promised
        total += weights[e]
    assert cost == total
    if atol is None:
        close(cost, want)
    else:
        assert abs(cost - want) <= atol


def random_drawing(h, targets, rng, most=3):
    """A drawing of ``h``'s input graph (``DirectedHierarchy.drawing``):
    0 to ``most`` points along each edge (``most`` 0: exactly one, the
    drawing of a graph without shape points), random node positions."""
    runs = np.zeros(h.num_edges + 1, dtype=np.int64)
    np.cumsum(rng.integers(0, most + 1, h.num_edges) if most else np.ones(h.num_edges, int),
              out=runs[1:])
    run_xy = rng.random((int(runs[-1]), 2))
    start_xy = rng.random((h.num_nodes, 2))
    return h.drawing(targets, runs, run_xy, start_xy), runs, run_xy, start_xy


def check_drawn(q, drawing, a, b, cost, edges, targets, runs, run_xy, start_xy):
    """``drawn_path(a, b)`` is ``path(a, b)`` (its ``cost`` and ``edges``,
    the same settled count) as nodes and drawn points."""
    settled = q.settled
    r = q.drawn_result(a, b, drawing, "ch")
    assert r.found == np.isfinite(cost) and r.cost == cost and r.expanded == settled
    assert r.algorithm == "ch" and q.settled == settled
    got_cost, nodes, points = q.drawn_path(a, b, drawing)
    assert got_cost == cost and q.settled == settled
    if r.found:
        assert np.array_equal(r.nodes, nodes) and np.array_equal(r.points, points)
    assert nodes.dtype == np.int32 and points.dtype == np.float64
    if not np.isfinite(cost):
        assert nodes.shape == (0,) and points.shape == (0, 2)
        return
    assert np.array_equal(nodes, np.concatenate(([a], targets[edges])))
    want = [start_xy[[a]]] + [run_xy[runs[e]:runs[e + 1]] for e in edges.tolist()]
    assert np.array_equal(points, np.concatenate(want))


def check_all(offsets, targets, weights, rng, pairs=60, **build):
    h = DirectedHierarchy.build(offsets, targets, weights, **build)
    n = h.num_nodes
    d = truth(offsets, targets, weights)
    q = h.query()
    drawings = [random_drawing(h, targets, rng, most) for most in (3, 0)]
    s = rng.integers(0, n, pairs)
    t = rng.integers(0, n, pairs)
    for a, b in zip(s.tolist(), t.tolist()):
        close(q.distance(a, b), d[a, b])
        cost, edges = q.path(a, b)
        check_path(offsets, targets, weights, a, b, cost, edges, d[a, b])
        for drawing, *drawn in drawings:
            check_drawn(q, drawing, a, b, cost, edges, targets, *drawn)
    close(q.distances(s, t), d[s, t])
    for ns, nt in ((3, 7), (7, 3), (5, 5), (0, 4), (4, 0)):
        ss = rng.integers(0, n, ns)
        tt = rng.integers(0, n, nt)
        got = q.matrix(ss, tt)
        assert got.shape == (ns, nt)
        close(got, d[np.ix_(ss, tt)])
    return h, q, d


@pytest.mark.nojit
def test_tiny_one_way_ring():
    offsets, targets, weights = csr_from_edges(3, [0, 1, 2], [1, 2, 0], [1.0, 2.0, 4.0])
    q = DirectedHierarchy.build(offsets, targets, weights).query()
    assert q.distance(0, 2) == 3.0 and q.distance(2, 1) == 5.0 and q.distance(1, 1) == 0.0
    cost, edges = q.path(1, 0)
    assert cost == 6.0 and edges.tolist() == [1, 2]
    assert q.matrix([0, 1], [2]).tolist() == [[3.0], [2.0]]
    assert q.distances([2], [1]).tolist() == [5.0]


@pytest.mark.nojit
def test_small_random_graphs_nojit():
    rng = np.random.default_rng(7)
    for _ in range(4):
        check_all(*random_graph(rng, n=int(rng.integers(1, 12))), rng, pairs=10)


@pytest.mark.parametrize("seed", range(40))
def test_random_graphs(seed):
    rng = np.random.default_rng(seed)
    check_all(*random_graph(rng), rng)


@pytest.mark.parametrize("seed", range(8))
def test_random_graphs_dijkstra_estimates(seed):
    """Priorities estimated with bounded Dijkstras (an integer
    ``priority_limit``) instead of the default three-edge witnesses: another
    order, the same answers."""
    rng = np.random.default_rng(500 + seed)
    h, _, _ = check_all(*random_graph(rng), rng, priority_limit=30)
    assert h.stats()["priority_limit"] == 30
    offsets, targets, weights, _, _ = roadlike(300, seed=seed)
    check_all(offsets, targets, weights, rng, priority_limit=1)


@pytest.mark.parametrize("seed", range(12))
def test_tie_heavy_graphs_all_pairs(seed):
    """Weights 1 and 2 only, so many nodes are reached at equal labels
    from above and below: the queries stall on equal labels, and every
    pair's distance (path, distances, paths, matrix) is still exact."""
    rng = np.random.default_rng(1000 + seed)
    for _ in range(8):
        n = int(rng.integers(5, 40))
        m = int(rng.integers(n, 4 * n))
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        if rng.random() < 0.5:
            src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
        offsets, targets, weights = csr_from_edges(n, src, dst,
                                                   rng.integers(1, 3, src.size))
        d = truth(offsets, targets, weights)
        q = DirectedHierarchy.build(offsets, targets, weights).query()
        s, t = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
        close(q.paths(s, t, parallel=False)[0], d[s, t])
        close(q.distances(s, t), d[s, t])
        close(q.matrix(np.arange(n), np.arange(n)), d)
        close([q.path(a, b)[0] for a, b in zip(s.tolist(), t.tolist())], d[s, t])


def test_all_pairs_matrix_and_closed_edges():
    rng = np.random.default_rng(99)
    offsets, targets, weights = random_graph(rng, n=60)
    h = DirectedHierarchy.build(offsets, targets, weights)
    everyone = np.arange(60)
    close(h.query().matrix(everyone, everyone), truth(offsets, targets, weights))
    # an inf edge is never used, even as the only way
    offsets, targets, weights = csr_from_edges(2, [0], [1], [np.inf])
    q = DirectedHierarchy.build(offsets, targets, weights).query()
    assert q.distance(0, 1) == np.inf and q.path(0, 1)[1].shape == (0,)


def test_parallel_edges_path_takes_the_cheapest():
    offsets, targets, weights = csr_from_edges(3, [0, 0, 1, 1], [1, 1, 2, 2],
                                               [5.0, 2.0, 1.0, 3.0])
    cost, edges = DirectedHierarchy.build(offsets, targets, weights).query().path(0, 2)
    assert cost == 3.0 and weights[edges].tolist() == [2.0, 1.0]


def test_roadlike_graph():
    rng = np.random.default_rng(3)
    offsets, targets, weights, _, _ = roadlike(2000, seed=3)
    h, q, d = None, None, None
    h = DirectedHierarchy.build(offsets, targets, weights)
    q = h.query()
    s = rng.integers(0, 2000, 30)
    d = dijkstra(csr_matrix((weights, targets, offsets), shape=(2000, 2000)), indices=s)
    t = rng.integers(0, 2000, 40)
    close(q.matrix(s, t), d[:, t])
    close(q.matrix(s[:5], t), d[:5][:, t])
    for i in range(30):
        cost, edges = q.path(s[i], t[i])
        check_path(offsets, targets, weights, s[i], t[i], cost, edges, d[i, t[i]])


def unpacked(arc, m, c1, c2):
    """The input edges arc ``arc`` stands for, by plain recursion."""
    if arc < m:
        return [arc]
    return unpacked(int(c1[arc - m]), m, c1, c2) + unpacked(int(c2[arc - m]), m, c1, c2)


def test_shortcuts_are_numbered_in_unpacking_order():
    """A built hierarchy numbers each shortcut right after its children
    (post-order from the upward arcs), so unpacking reads runs of memory;
    the renumbering keeps every arc standing for the same input edges."""
    from navcore_csr import _ch as K
    offsets, targets, weights, _, _ = roadlike(3000, seed=11)
    h = DirectedHierarchy.build(offsets, targets, weights)
    a = h.arrays()
    m, c1, c2 = h.num_edges, a["sc_c1"], a["sc_c2"]
    nsc = c1.shape[0]
    assert nsc > 1000
    own = m + np.arange(nsc)
    assert (c1 < own).all() and (c2 < own).all()          # children older, as loading checks
    # each arc's shortcut and those of its tree no earlier arc's tree holds
    # are one run of ids, ending at its own
    seen = set()
    for arc in np.concatenate([a["fwd_arc"], a["bwd_arc"]]).tolist():
        if arc < m or arc - m in seen:
            continue
        tree, todo = [], [arc - m]
        while todo:
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                tree.append(x)
                todo += [int(c) - m for c in (c1[x], c2[x]) if c >= m]
        assert sorted(tree) == list(range(arc - m - len(tree) + 1, arc - m + 1))
    # shortcuts no arc reaches (dropped for a cheaper one) come last
    assert seen == set(range(len(seen)))
    # renumbering shuffled shortcuts again gives the same input edges per
    # arc, and children older than their shortcut
    perm = np.random.default_rng(2).permutation(nsc)          # old -> shuffled
    back = np.empty(nsc, np.int64)
    back[perm] = np.arange(nsc)
    # a shuffle breaks "children older", which the renumbering does not need
    sc1 = np.empty(nsc, np.int64)
    sc2 = np.empty(nsc, np.int64)
    remap = lambda v: np.where(v < m, v, m + perm[np.maximum(v - m, 0)])   # noqa: E731
    sc1[perm], sc2[perm] = remap(c1), remap(c2)
    fa, ba = remap(a["fwd_arc"]), remap(a["bwd_arc"])
    n1, n2, nfa, nba = K.shortcuts_in_unpacking_order(m, sc1, sc2, fa, ba)
    assert (n1 < own).all() and (n2 < own).all()
    for old, new in zip(np.concatenate([a["fwd_arc"], a["bwd_arc"]]).tolist(),
                        np.concatenate([nfa, nba]).tolist()):
        assert unpacked(new, m, n1, n2) == unpacked(old, m, c1, c2)


def road_graph(name, metric):
    g = np.load(ROADS / f"{name}.graph.npz")
    n = g["lon"].shape[0]
    return csr_from_edges(n, g["src"], g["dst"], g[metric])


def read_pairs(name):
    data = np.genfromtxt(ROADS / f"{name}.pairs.csv", delimiter=",", names=True)
    return data


@pytest.mark.skipif(not ROADS.exists(), reason="the shared road data is not here")
@pytest.mark.parametrize("name", ["monaco", "helsinki"])
@pytest.mark.parametrize("metric", ["time_s", "length_m"])
def test_real_roads_against_stored_truth(name, metric):
    offsets, targets, weights = road_graph(name, metric)
    h = DirectedHierarchy.build(offsets, targets, weights)
    q = h.query()
    mx = np.load(ROADS / f"{name}.matrix.npz")
    got = q.matrix(mx["sources"], mx["targets"])
    assert np.all(np.abs(got - mx[metric]) <= 1e-5)
    pairs = read_pairs(name)
    s = pairs["source"].astype(np.int64)
    t = pairs["target"].astype(np.int64)
    assert np.all(np.abs(q.distances(s, t) - pairs[metric]) <= 1e-5)
    for a, b, want in list(zip(s.tolist(), t.tolist(), pairs[metric].tolist()))[:100]:
        cost, edges = q.path(a, b)
        check_path(offsets, targets, weights, a, b, cost, edges, want, atol=1e-5)
        assert abs(q.distance(a, b) - want) <= 1e-5


@pytest.mark.nojit
def test_arrays_round_trip():
    rng = np.random.default_rng(5)
    offsets, targets, weights = random_graph(rng, n=12)
    h = DirectedHierarchy.build(offsets, targets, weights)
    arrays = h.arrays()
    assert all(isinstance(v, np.ndarray) for v in arrays.values())
    h2 = DirectedHierarchy.from_arrays(arrays)
    assert h2.num_nodes == h.num_nodes and h2.num_shortcuts == h.num_shortcuts
    q1, q2 = h.query(), h2.query()
    every = np.arange(12)
    assert np.array_equal(q1.matrix(every, every), q2.matrix(every, every))
    for s in range(12):
        for t in range(12):
            c1, e1 = q1.path(s, t)
            c2, e2 = q2.path(s, t)
            assert (c1 == c2 or (np.isinf(c1) and np.isinf(c2))) and np.array_equal(e1, e2)
    # what it holds: the saved arrays, and the tail and the input edges of
    # every upward arc (made again on load, so the query walks a path back
    # without searching and sizes its edges without walking them twice)
    stats = h.stats()
    tails = 8 * (stats["forward_edges"] + stats["backward_edges"])
    assert h.nbytes == sum(v.nbytes for v in arrays.values()) + tails == h2.nbytes
    assert stats["nodes"] == 12


def corruptions(a):
    """(name, arrays) pairs, each broken in one way."""
    n = a["rank"].shape[0]
    yield "missing", {k: v for k, v in a.items() if k != "fwd_head"}
    yield "dtype", {**a, "fwd_w": a["fwd_w"].astype(np.float32)}
    yield "rank not a permutation", {**a, "rank": np.zeros(n, np.int32)}
    bad = a["fwd_head"].copy()
    bad[0] = n
    yield "head out of range", {**a, "fwd_head": bad}
    bad = a["bwd_head"].copy()
    bad[0] = 0                                  # not above its node (rank 0 is lowest)
    yield "head below", {**a, "bwd_head": bad}
    bad = a["fwd_first"].copy()
    bad[-1] += 1
    yield "first", {**a, "fwd_first": bad}
    bad = a["sc_c1"].copy()
    bad[0] = a["weights"].shape[0] + 5          # a child younger than its shortcut
    yield "child", {**a, "sc_c1": bad}
    bad = a["fwd_w"].copy()
    bad[0] = np.nan
    yield "nan", {**a, "fwd_w": bad}
    yield "2-d", {**a, "rank": a["rank"].reshape(1, -1)}
    bad = a["fwd_w"].copy()
    bad[0] += 0.5                               # finite, >= 0: only its arc tells
    yield "weight", {**a, "fwd_w": bad}
    bad = a["weights"].copy()
    bad[0] += 0.5                               # an input edge: its arcs disagree
    yield "input weight", {**a, "weights": bad}
    if a["sc_c1"].shape[0]:
        bad, other = a["sc_c1"].copy(), a["sc_c2"].copy()
        bad[0], other[0] = other[0], bad[0]     # children swapped: same sum
        yield None, {**a, "sc_c1": bad, "sc_c2": other}


@pytest.mark.nojit
def test_corrupt_arrays_raise_graph_error():
    offsets, targets, weights = csr_from_edges(
        6, [0, 1, 2, 3, 4, 5, 1, 3], [1, 2, 3, 4, 5, 0, 0, 1], [1.0] * 6 + [5.0, 5.0])
    a = DirectedHierarchy.build(offsets, targets, weights).arrays()
    assert a["sc_c1"].shape[0] > 0 and a["fwd_head"].shape[0] > 0
    for name, broken in corruptions(a):
        if name is None:                        # harmless: still loads
            DirectedHierarchy.from_arrays(broken)
            continue
        with pytest.raises(GraphError):
            DirectedHierarchy.from_arrays(broken)
    with pytest.raises(GraphError):
        DirectedHierarchy.from_arrays([1, 2])


@pytest.mark.nojit
def test_bad_input_and_queries():
    offsets, targets, weights = csr_from_edges(3, [0, 1], [1, 2], [1.0, 1.0])
    with pytest.raises(GraphError, match="weights"):
        DirectedHierarchy.build(offsets, targets, np.array([1.0, -1.0]))
    with pytest.raises(GraphError, match="weights"):
        DirectedHierarchy.build(offsets, targets, np.array([1.0, np.nan]))
    with pytest.raises(GraphError, match="targets"):
        DirectedHierarchy.build(offsets, np.array([1, 3], np.int32), weights)
    with pytest.raises(GraphError, match="offsets"):
        DirectedHierarchy.build(np.array([0, 2, 1, 2]), targets, weights)
    with pytest.raises(GraphError, match="witness_limit"):
        DirectedHierarchy.build(offsets, targets, weights, witness_limit=0)
    for bad in (0, -3, 2.5, "30"):
        with pytest.raises(GraphError, match="priority_limit"):
            DirectedHierarchy.build(offsets, targets, weights, priority_limit=bad)
    q = DirectedHierarchy.build(offsets, targets, weights).query()
    with pytest.raises(QueryError, match="t must be"):
        q.distance(0, 3)
    with pytest.raises(QueryError, match="sources"):
        q.matrix([0, -1], [1])
    with pytest.raises(QueryError, match="same length"):
        q.distances([0, 1], [1])


@pytest.mark.nojit
def test_drawings_that_do_not_fit_are_refused():
    offsets, targets, weights = csr_from_edges(3, [0, 1], [1, 2], [1.0, 1.0])
    h = DirectedHierarchy.build(offsets, targets, weights)
    runs, run_xy, start_xy = np.array([0, 1, 3]), np.zeros((3, 2)), np.zeros((3, 2))
    good = h.drawing(targets, runs, run_xy, start_xy)
    for bad, match in (((np.array([1, 3]), runs, run_xy, start_xy), "targets"),
                       ((targets[:1], runs, run_xy, start_xy), "targets"),
                       ((targets.astype(float), runs, run_xy, start_xy), "targets"),
                       ((targets, np.array([0, 2, 1]), run_xy, start_xy), "runs"),
                       ((targets, np.array([0, 1, 4]), run_xy, start_xy), "runs"),
                       ((targets, runs[:2], run_xy, start_xy), "runs"),
                       ((targets, runs, run_xy[:, :1], start_xy), "run_xy"),
                       ((targets, runs, run_xy, start_xy[:2]), "start_xy"),
                       ((targets, runs, run_xy, [[0, 1], [2]]), "start_xy")):
        with pytest.raises(GraphError, match=match):
            h.drawing(*bad)
    q = h.query()
    other = DirectedHierarchy.build(offsets, targets, weights)
    for drawing in (other.drawing(targets, runs, run_xy, start_xy), None, (1, 2)):
        with pytest.raises(QueryError, match="drawing"):
            q.drawn_path(0, 2, drawing)
    for s, t in ((0, 3), (-1, 2), (0.5, 2), ("0", 2)):
        with pytest.raises(QueryError):
            q.drawn_path(s, t, good)
    cost, nodes, points = q.drawn_path(np.int64(0), 2, good)      # numpy ids are ids
    assert cost == 2.0 and nodes.tolist() == [0, 1, 2] and points.shape == (4, 2)


def test_progress_is_reported():
    offsets, targets, weights, _, _ = roadlike(3000, seed=1)
    seen = []
    DirectedHierarchy.build(offsets, targets, weights, progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1] == (3000, 3000)
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))


@pytest.mark.slow
def test_roadlike_20k_matrix_and_pairs():
    rng = np.random.default_rng(11)
    offsets, targets, weights, _, _ = roadlike(20000, seed=11)
    n = 20000
    q = DirectedHierarchy.build(offsets, targets, weights).query()
    s = rng.integers(0, n, 20)
    t = rng.integers(0, n, 300)
    d = dijkstra(csr_matrix((weights, targets, offsets), shape=(n, n)), indices=s)
    close(q.matrix(s, t), d[:, t])
    close(q.matrix(s, t[:10]), d[:, t[:10]])        # more sources: the reversed run
    close(q.distances(np.repeat(s, 15), t), d[np.repeat(np.arange(20), 15), t])
