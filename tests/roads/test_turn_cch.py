"""The customizable hierarchy and isochrones under turn rules, against
plain references written here or in ``test_turns`` (Dijkstra over the
(edge, edge) moves, heapq): random small one-way graphs with random
forbidden and costly turns, before and after a closure and a jam; routes,
matrices, pairs, ``routes`` and point ends of ``cch``; isochrones' reached
junctions, costs, bands and entered roads from several sources."""
import heapq

import numpy as np
import pytest

import navcore
import navcore_roads
from navcore.errors import GraphError

from test_turns import expanded_dijkstra, grid_reference, grid_world, split_grid_reference


def random_case(seed):
    """``(src, dst, cost, positions, rows)``: a one-way graph on 7-12
    junctions (a ring both ways, so every junction is reached, plus
    random chords, no parallel roads), integer costs, and turn rules
    ``rows`` (from road, to road, extra cost or inf) on a third of the
    moves, U-turns included."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(7, 13))
    pairs = {(i, (i + 1) % n) for i in range(n)} | {((i + 1) % n, i) for i in range(n)}
    for _ in range(2 * n):
        a, b = (int(x) for x in rng.integers(0, n, 2))
        if a != b:
            pairs.add((a, b))
    pairs = sorted(pairs)
    src = np.array([a for a, b in pairs])
    dst = np.array([b for a, b in pairs])
    cost = rng.integers(1, 10, src.size).astype(float)
    rows = []
    for e in range(src.size):
        for f in np.flatnonzero(src == dst[e]):
            if rng.random() < 0.33:
                rows.append([e, int(f), np.inf if rng.random() < 0.6
                             else float(rng.integers(1, 20))])
    return src, dst, cost, rng.random((n, 2)) * 0.01, rows


def rules(rows):
    banned = {(int(a), int(b)) for a, b, c in rows if c == np.inf}
    extra = {(int(a), int(b)): float(c) for a, b, c in rows if c < np.inf}
    return banned, extra


def add(w, src, dst, cost, positions, rows):
    return w.add_graph("g", type="roads", src=src, dst=dst, cost=cost, positions=positions,
                       oneway=True, compress=False, turns=rows)


def check_routes(w, g, src, dst, cost, rows, n):
    """cch's matrix, pairs, routes and ``routes`` equal the reference;
    each route drives allowed turns and costs what its roads and turns
    add up to."""
    banned, extra = rules(rows)
    road = {(int(a), int(b)): e for e, (a, b) in enumerate(zip(src, dst))}
    want = np.array([[expanded_dijkstra(src, dst, cost, s, banned, extra).get(t, np.inf)
                      for t in range(n)] for s in range(n)])
    assert np.allclose(w.distance_matrix("g", np.arange(n), np.arange(n)), want, atol=1e-9)
    s, t = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    assert np.allclose(w.distance_pairs("g", s, t), want.ravel(), atol=1e-9)
    many = navcore_roads.routes(g, s, t)
    assert many.algorithm == "cch" and np.allclose(many.costs, want.ravel(), atol=1e-9)
    for a in range(n):
        for b in range(n):
            r = w.find_path("g", a, b, algorithm="cch")
            assert r.algorithm == "cch"
            assert abs(r.cost - want[a, b]) < 1e-9 or r.cost == want[a, b] == np.inf
            if r.found and a != b:
                edges = [road[int(u), int(v)] for u, v in zip(r.nodes[:-1], r.nodes[1:])]
                assert not set(zip(edges, edges[1:])) & banned
                total = sum(cost[e] for e in edges) + sum(extra.get(m, 0.0)
                                                          for m in zip(edges, edges[1:]))
                assert abs(total - r.cost) < 1e-9
    return want


@pytest.mark.parametrize("seed", range(6))
def test_cch_equals_the_turn_reference_on_random_graphs_and_after_updates(seed):
    src, dst, cost, positions, rows = random_case(seed)
    n = positions.shape[0]
    w = navcore.World()
    g = add(w, src, dst, cost, positions, rows)
    assert g.turns is not None
    view = navcore_roads.contract(g, customizable=True)
    assert w.find_path("g", 0, 1).algorithm == "cch"            # auto: the hierarchy
    before = check_routes(w, g, src, dst, cost, rows, n)
    # a closure and a jam: customized again at the tick, turn costs kept
    rng = np.random.default_rng(100 + seed)
    shut, slow = (int(e) for e in rng.choice(src.size, 2, replace=False))
    w.update("g", edges=[(int(src[shut]), int(dst[shut]))], cost=np.inf)
    w.update("g", edges=[(int(src[slow]), int(dst[slow]))], factor=3.0)
    w.tick()
    assert view.current and view.customizations == 2
    now = cost.copy()
    now[shut] = np.inf
    now[slow] *= 3.0
    after = check_routes(w, g, src, dst, now, rows, n)
    assert (after >= before - 1e-9).all()
    w.update("g", edges=[(int(src[shut]), int(dst[shut])), (int(src[slow]), int(dst[slow]))],
             reset=True)
    w.tick()
    assert np.array_equal(w.distance_matrix("g", np.arange(n), np.arange(n)), before)


def test_cch_follows_blocked_junctions_after_a_warm_up():
    w, g = grid_world([[2, 3]])
    navcore_roads.contract(g, customizable=True)
    w.warm_up()                 # the turn CCH's and the edge isochrone's kernels too
    w.update("g", nodes=[4], walkable=False)
    w.tick()
    # without junction 4 the grid is a ring: 3 to 5 goes round it, and
    r = w.find_path("g", 3, 5, algorithm="cch")
    assert r.cost == 40.0 and 4 not in r.nodes.tolist()
    assert w.distance_matrix("g", [3, 4], [5, 4]).tolist() == [[40.0, np.inf],
                                                                [np.inf, np.inf]]
    iso = w.isochrone("g", 3, 40.0)
    assert iso.nodes.tolist() == [0, 1, 2, 3, 5, 6, 7, 8]
    assert iso.costs.tolist() == [10.0, 20.0, 30.0, 0.0, 40.0, 10.0, 20.0, 30.0]


def test_cch_point_ends_obey_turn_rules():
    """From and to the middle of road 3-4 (3->4->5 forbidden) under cch:
    the search over the edges answers, as the grid cut there says."""
    w, g = grid_world([[2, 3]])
    navcore_roads.contract(g, customizable=True)
    middle = (0.0005, 0.001)
    from_middle = split_grid_reference((3, 4), {(9, 4, 5)}, 9)
    to_middle = [split_grid_reference((3, 4), {(9, 4, 5)}, s)[9] for s in range(9)]
    for t in range(9):
        r = w.find_path("g", middle, t, algorithm="cch")
        assert r.algorithm == "cch" and abs(r.cost - from_middle[t]) < 1e-9, (t, r.cost)
        assert abs(w.find_path("g", t, middle, algorithm="cch").cost - to_middle[t]) < 1e-9
    assert from_middle[5] == 35.0
    got = w.distance_matrix("g", np.arange(9), [middle])[:, 0]
    assert np.allclose(got, to_middle)
    pairs = w.distance_pairs("g", [middle] * 9, np.arange(9))
    assert np.allclose(pairs, [from_middle[t] for t in range(9)])


def test_turn_cch_save_and_load(tmp_path):
    w, g = grid_world([[2, 3, 7.5], [8, 9, np.inf]])
    view = navcore_roads.contract(g, customizable=True)
    view.save(tmp_path / "t.npz")
    want = w.distance_matrix("g", np.arange(9), np.arange(9))
    w2, g2 = grid_world([[2, 3, 7.5], [8, 9, np.inf]])
    loaded = navcore_roads.load_hierarchy(g2, tmp_path / "t.npz")
    assert loaded.current and np.array_equal(loaded.topology.order, view.topology.order)
    assert np.array_equal(w2.distance_matrix("g", np.arange(9), np.arange(9)), want)
    # other rules: another edge-based graph, refused
    w3, g3 = grid_world([[2, 3]])
    with pytest.raises(GraphError, match=r"an order for another road network or other turn "
                                         r"rules than road graph 'g'"):
        navcore_roads.load_hierarchy(g3, tmp_path / "t.npz")
    # a junction order of the graph without rules does not fit either
    w4, g4 = grid_world(np.zeros((0, 2)))
    navcore_roads.contract(g4, customizable=True).save(tmp_path / "plain.npz")
    with pytest.raises(GraphError, match=r"an order for another road network"):
        navcore_roads.load_hierarchy(g, tmp_path / "plain.npz")


# ----------------------------------------------------------------- isochrones

def bounded_reference(src, dst, cost, seeds, limit, banned, extra):
    """``(junction costs, road entries)`` within ``limit`` from ``seeds``
    (junction: cost spent there): Dijkstra over the roads, a road entered
    from its tail at the cost of the turn onto it (any road out of a
    source junction at the source's cost), its head reached after its
    cost; heapq, no tricks."""
    out_edges = {}
    for e, u in enumerate(src):
        out_edges.setdefault(int(u), []).append(e)
    node, entry, done, heap = {}, {}, set(), []

    def enter(f, c):
        if c <= limit and cost[f] < np.inf:
            entry[f] = min(entry.get(f, np.inf), c)
            heapq.heappush(heap, (c + cost[f], f))
    for s, c in seeds.items():
        if c <= limit:
            node[s] = min(node.get(s, np.inf), c)
            for f in out_edges.get(s, []):
                enter(f, c)
    while heap:
        d, e = heapq.heappop(heap)
        if d > limit:
            break
        if e in done:
            continue
        done.add(e)
        v = int(dst[e])
        node[v] = min(node.get(v, np.inf), d)
        for f in out_edges.get(v, []):
            if (e, f) not in banned:
                enter(f, d + extra.get((e, f), 0.0))
    return node, entry


@pytest.mark.parametrize("seed", range(6))
def test_isochrones_equal_the_bounded_turn_reference(seed):
    src, dst, cost, positions, rows = random_case(seed)
    n = positions.shape[0]
    banned, extra = rules(rows)
    w = navcore.World()
    g = add(w, src, dst, cost, positions, rows)
    rng = np.random.default_rng(200 + seed)
    road = {(int(a), int(b)): e for e, (a, b) in enumerate(zip(src, dst))}
    limits = [4.0, 9.0, 15.0]
    for k in (1, 3):
        sources = rng.choice(n, k, replace=False)
        spent = np.zeros(k)
        iso = w.isochrone("g", sources.tolist(), limits)
        for b, limit in enumerate(limits):
            node, entry = bounded_reference(src, dst, cost, dict(zip(sources.tolist(), spent)),
                                            limit, banned, extra)
            got = iso.nodes[iso.band <= b]
            assert got.tolist() == sorted(node), (k, limit)
            assert np.allclose(iso.costs[iso.band <= b], [node[v] for v in sorted(node)])
            edges, lo, hi = iso.segments(b)
            u, v = g.edge_src[edges], g.csr.targets[edges]
            pieces = {road[int(a), int(c)]: h for a, c, h in zip(u, v, hi)}
            assert (lo == 0).all() and set(pieces) == set(entry)
            for f, c in entry.items():         # reached from its tail, the turn paid
                assert abs(pieces[f] - min(1.0, (limit - c) / cost[f])) < 1e-9


def test_isochrones_follow_closures_and_the_turn_hierarchy_leaves_them_alone():
    w, g = grid_world([[2, 3]])
    navcore_roads.contract(g)
    navcore_roads.contract(g, customizable=True)
    src = [0, 1, 3, 4, 6, 7, 0, 3, 1, 4, 2, 5]
    dst = [1, 2, 4, 5, 7, 8, 3, 6, 4, 7, 5, 8]
    want = grid_reference([[2, 3]], 3)
    iso = w.isochrone("g", 3, 100.0)
    assert dict(zip(iso.nodes.tolist(), iso.costs.tolist())) == want
    w.update("g", edges=[(0, 1), (1, 0)], cost=np.inf)
    w.tick()
    both_src, both_dst = src + dst, dst + src
    cost = np.full(24, 10.0)
    cost[[0, 12]] = np.inf
    banned = {(e, f) for e in (2, 14) for f in (3, 15) if both_dst[e] == both_src[f]}
    node, _ = bounded_reference(both_src, both_dst, cost, {3: 0.0}, 100.0, banned, {})
    iso = w.isochrone("g", 3, 100.0)
    assert dict(zip(iso.nodes.tolist(), iso.costs.tolist())) == node
    assert node[5] == 40.0 and node[1] == 20.0      # round by 6, 7, 8; by 4 to 1


def test_point_isochrones_obey_turn_rules():
    w, g = grid_world([[2, 3]])
    middle = (0.0005, 0.001)             # of road 3-4, cut there by node 9
    truth = split_grid_reference((3, 4), {(9, 4, 5)}, 9)
    iso = w.isochrone("g", [middle, 8], [12.0, 30.0])
    other = grid_reference([[2, 3]], 8)
    want = {v: min(truth.get(v, np.inf), other.get(v, np.inf)) for v in range(9)}
    want = {v: c for v, c in want.items() if c <= 30.0}
    assert want[5] == 10.0                    # from 8
    assert dict(zip(iso.nodes.tolist(), iso.costs.tolist())) == want
    assert truth[5] == 35.0                   # straight on from the point is forbidden
    assert iso.band.tolist() == [int(c > 12.0) for c in iso.costs]
    # the point's own road, from the point on both ways
    edges, lo, hi = iso.segments(0)
    halves = [(int(g.edge_src[e]), int(g.csr.targets[e]), a, b)
              for e, a, b in zip(edges, lo, hi) if a > 0]
    assert sorted(halves) == [(3, 4, 0.5, 1.0), (4, 3, 0.5, 1.0)]
    # and 3-4 from its tail too, after turning back at 3 (at 5, to 12 of its
    # 10): its head was settled from the point first
    behind = [b for e, a, b in zip(edges, lo, hi)
              if (int(g.edge_src[e]), int(g.csr.targets[e])) == (3, 4) and a == 0]
    assert len(behind) == 1 and abs(behind[0] - 0.7) < 1e-9
    assert len(iso.polygons()) == 2


def test_edge_hierarchies_check_junction_ids():
    """An id out of range would name another node of the edge-based graph
    (a road edge, a start or end node): ``NodeError`` instead."""
    from navcore.errors import NodeError, QueryError
    w, g = grid_world([[2, 3]])
    for view in (navcore_roads.contract(g), navcore_roads.contract(g, customizable=True)):
        with pytest.raises(NodeError, match=r"start node -1 is out of range for a graph of 9"):
            view.route(-1, 3)
        with pytest.raises(NodeError, match=r"goal node 9 is out of range"):
            view.route(0, 9)
        with pytest.raises(NodeError, match=r"sources"):
            view.matrix([12], [0])
        with pytest.raises(NodeError, match=r"targets must be a 1-d sequence"):
            view.pairs([0], [[0, 1]])
        with pytest.raises(QueryError, match=r"same length, got 2 and 1"):
            view.pairs([0, 1], [2])
        assert view.route(np.int64(3), 5).cost == 40.0
    with pytest.raises(QueryError, match=r"same length, got 1 and 2"):
        view.paths([0], [1, 2])
    costs, offsets, edges = view.paths([3, 4], [5, 4])
    assert costs.tolist() == [40.0, 0.0] and offsets.tolist() == [0, 4, 4]
