"""Customizable contraction hierarchies on road graphs, through
the world and the public API: exact against the extracts' truth and
scipy after every random batch of closures, reopenings, jams, speeds and
blocked junctions; graphs without coordinates; disconnected graphs; the
order saved and loaded only for its topology; bad input."""
import numpy as np
import pytest

import navcore
import navcore_roads
from navcore.files import npz_bytes
from navcore_roads import cch

from roadtruth import NAMES, ROADS, close, matrix, need, pairs, scipy_distances


def dimacs(name, coords=True, **params):
    need(name)
    w = navcore.World()
    extra = {"coords": ROADS / f"{name}.co"} if coords else {}
    g = w.add_graph(name, type="roads", dimacs=ROADS / f"{name}.gr", keep="all", **extra,
                    **params)
    return w, g


def timed_graph(name, compress=False):
    """The extract's npz as arrays: travel times, so speed= updates apply."""
    d = np.load(need(name))
    w = navcore.World()
    g = w.add_graph(name, type="roads", src=d["src"], dst=d["dst"], length=d["length_m"],
                    speed=d["speed_kmh"], positions=np.column_stack((d["lon"], d["lat"])),
                    keep="all", compress=compress)
    return w, g


def check_exact(w, gid, g, rng, k=30, rows=8):
    """Pairs, a matrix and a few routes against scipy on the graph now."""
    n = g.num_nodes
    s, t = rng.integers(0, n, k), rng.integers(0, n, k)
    ref = scipy_distances(g, s)
    assert close(w.distance_pairs(gid, s, t), ref[np.arange(k), t])
    assert close(w.distance_matrix(gid, s[:rows], t), ref[:rows][:, t])
    for i in range(3):
        r = w.find_path(gid, int(s[i]), int(t[i]))
        want = ref[i, t[i]]
        if not (g.walkable[s[i]] and g.walkable[t[i]]):
            continue
        if np.isinf(want):
            assert not r.found
            continue
        assert r.algorithm == "cch" and close(r.cost, want)
        edges = g.path_edges(r.nodes)
        assert (edges >= 0).all() and close(g.csr.cost[edges].sum(), r.cost)


@pytest.mark.parametrize("name", NAMES)
def test_cch_answers_the_truth_exactly(name):
    w, g = dimacs(name)
    h = navcore_roads.contract(g, customizable=True)
    assert isinstance(h, navcore_roads.RoadCCH) and h.current and cch.current(g) is h
    p = pairs(name)
    s, t = p["source"].astype(int), p["target"].astype(int)
    got = [w.find_path(name, int(a), int(b)) for a, b in zip(s[:100], t[:100])]
    assert {r.algorithm for r in got} == {"cch"}
    assert np.array_equal([r.cost for r in got], p["dimacs_dm"][:100])
    assert np.array_equal(w.distance_pairs(name, s, t), p["dimacs_dm"])
    m = matrix(name)
    assert np.array_equal(w.distance_matrix(name, m["sources"], m["targets"]), m["dimacs_dm"])
    assert np.array_equal(w.distance_matrix(name, m["sources"][:5], m["targets"]),
                          m["dimacs_dm"][:5])
    assert np.array_equal(w.distance_matrix(name, m["sources"], m["targets"][:3]),
                          m["dimacs_dm"][:, :3])
    anyp = pairs(name, "pairs_any")
    assert np.array_equal(w.distance_pairs(name, anyp["source"].astype(int),
                                           anyp["target"].astype(int)), anyp["dimacs_dm"])
    for r in got[:20]:                      # walks on the graph, drawn along the roads
        edges = g.path_edges(r.nodes)
        assert (edges >= 0).all() and g.csr.cost[edges].sum() == r.cost
        assert r.points.shape == (r.nodes.size, 2)
        assert np.array_equal(r.points[[0, -1]], g.positions[r.nodes[[0, -1]]])
    rs = navcore_roads.routes(g, s[:50], t[:50])
    assert rs.algorithm == "cch" and np.array_equal(rs.costs, p["dimacs_dm"][:50])
    for i in range(50):
        e = rs.route_edges(i)
        assert g.csr.cost[e].sum() == rs.costs[i]
        assert np.array_equal(rs.nodes(i), got[i].nodes) or e.size == 0 or \
            g.csr.cost[g.path_edges(rs.nodes(i))].sum() == rs.costs[i]
    st = h.stats()
    assert st["arcs"] > 0 and st["forward_arcs"] <= st["arcs"] and st["current"]


def test_times_on_osm_travel_times_match_the_truth():
    w, g = timed_graph("helsinki")
    navcore_roads.contract(g, customizable=True)
    p = pairs("helsinki")
    got = w.distance_pairs("helsinki", p["source"].astype(int), p["target"].astype(int))
    assert np.all(np.abs(got - p["time_s"]) <= 1e-5)
    m = matrix("helsinki")
    got = w.distance_matrix("helsinki", m["sources"], m["targets"])
    assert np.all(np.abs(got - m["time_s"]) <= 1e-5)


def random_batch(w, gid, g, rng, closed):
    """One seeded batch: closures, reopenings, jams, speeds, junctions."""
    m = g.csr.num_edges
    for _ in range(int(rng.integers(1, 5))):
        kind = rng.choice(["close", "reopen", "factor", "speed", "junction"],
                          p=[0.3, 0.2, 0.2, 0.2, 0.1])
        e = rng.integers(0, m, int(rng.integers(1, 8)))
        edges = [(int(g.edge_src[i]), int(g.csr.targets[i])) for i in e]
        if kind == "close":
            w.update(gid, edges=edges, cost=float("inf"))
            closed.update(edges)
        elif kind == "reopen" and closed:
            pick = list(closed)[:int(rng.integers(1, 6))]
            w.update(gid, edges=pick, reset=True)
            closed.difference_update(pick)
        elif kind == "factor":
            w.update(gid, edges=edges, factor=float(rng.uniform(0.5, 5.0)))
        elif kind == "speed":
            w.update(gid, edges=edges, speed=float(rng.uniform(5.0, 120.0)))
        else:
            nodes = rng.integers(0, g.num_nodes, int(rng.integers(1, 3))).tolist()
            w.update(gid, nodes=nodes, walkable=bool(rng.random() < 0.5))


def run_batches(name, batches, seed, compress=False, perfect=False):
    w, g = timed_graph(name, compress=compress)
    h = navcore_roads.contract(g, customizable=True)
    h.perfect = perfect
    rng = np.random.default_rng(seed)
    closed = set()
    for _ in range(batches):
        random_batch(w, name, g, rng, closed)
        w.tick()
        assert h.current and cch.current(g) is h          # customized inline, topology kept
        check_exact(w, name, g, rng)
    assert h.customizations == batches + 1


def test_every_random_batch_leaves_it_current_and_exact():
    run_batches("helsinki", 25, seed=7)


def test_batches_on_compressed_edges():
    run_batches("monaco", 10, seed=8, compress=True)


def test_every_random_batch_with_perfect_customization():
    run_batches("helsinki", 15, seed=17, perfect=True)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_hundreds_of_random_batches(name):
    run_batches(name, 300, seed=2026, compress=name == "monaco", perfect=name == "helsinki")


def test_graph_without_coordinates_uses_pseudo_coordinates():
    w, g = dimacs("helsinki", coords=False)
    assert g.positions is None
    h = navcore_roads.contract(g, customizable=True)
    p = pairs("helsinki")
    assert np.array_equal(w.distance_pairs("helsinki", p["source"].astype(int),
                                           p["target"].astype(int)), p["dimacs_dm"])
    # the separators keep the tree shallow: far below one node per level
    assert h.stats()["tree_depth"] < g.num_nodes // 10
    r = w.find_path("helsinki", int(p["source"][0]), int(p["target"][0]))
    assert r.algorithm == "cch" and r.cost == p["dimacs_dm"][0] and np.isnan(r.points).all()


def random_arrays(rng, n):
    """Directed graph with one-way, parallel, self-loop, zero and closed
    edges, and islands."""
    m = int(rng.integers(0, 4 * n + 1))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    cost = rng.choice([0.0, 1.0, 2.5, 3.0, 7.25], m) * rng.integers(1, 4, m)
    back = rng.random(m) < 0.5
    src, dst, cost = (np.concatenate([src, dst[back]]), np.concatenate([dst, src[back]]),
                      np.concatenate([cost, cost[back]]))
    if n > 4:                                  # two islands nothing joins
        cut = n // 2
        keep = (src < cut) == (dst < cut)
        src, dst, cost = src[keep], dst[keep], cost[keep]
    return src, dst, cost


def test_random_small_graphs_without_positions_and_disconnected():
    rng = np.random.default_rng(3)
    for trial in range(40):
        n = int(rng.integers(2, 40))
        src, dst, cost = random_arrays(rng, n)
        if src.size == 0:
            continue
        w = navcore.World()
        try:
            g = w.add_graph("r", type="roads", src=src, dst=dst, cost=cost, keep="all")
        except navcore.GraphError:
            continue
        navcore_roads.contract(g, customizable=True)
        check_exact(w, "r", g, rng, k=40, rows=g.num_nodes)
        closed = set()
        for _ in range(3):
            random_batch_costs(w, g, rng, closed)
            w.tick()
            check_exact(w, "r", g, rng, k=40, rows=g.num_nodes)


def random_batch_costs(w, g, rng, closed):
    m = g.csr.num_edges
    e = rng.integers(0, m, 3)
    edges = [(int(g.edge_src[i]), int(g.csr.targets[i])) for i in e]
    if rng.random() < 0.5:
        w.update("r", edges=edges, cost=float("inf"))
    else:
        w.update("r", edges=edges, factor=float(rng.uniform(0.5, 3.0)))


def test_auto_prefers_a_current_cch_then_ch_then_bidirectional():
    w, g = dimacs("helsinki")
    assert w.find_path("helsinki", 0, 5).algorithm == "bidijkstra"
    navcore_roads.contract(g)
    assert w.find_path("helsinki", 0, 5).algorithm == "ch"
    h = navcore_roads.contract(g, customizable=True)
    assert w.find_path("helsinki", 0, 5).algorithm == "cch"
    assert "cch" in w.algorithms("helsinki")
    # a view that does not follow updates goes stale; auto falls back, exactly
    h.follow_updates = False
    w.update("helsinki", nodes=[3], walkable=False)
    w.tick()
    assert not h.current and cch.current(g) is None
    assert w.find_path("helsinki", 0, 5).algorithm == "bidijkstra"    # the CH is stale too
    with pytest.raises(navcore.QueryError, match="not yet customized.*customize"):
        w.find_path("helsinki", 0, 5, algorithm="cch")
    h.customize()                                   # what a scheduler job would run
    assert h.current and w.find_path("helsinki", 0, 5).algorithm == "cch"
    check_exact(w, "helsinki", g, np.random.default_rng(0))


def test_no_cch_is_a_query_error_naming_contract():
    w, g = dimacs("helsinki")
    with pytest.raises(navcore.QueryError, match="no customizable hierarchy.*customizable=True"):
        w.find_path("helsinki", 0, 5, algorithm="cch")


def test_save_and_load_only_for_the_same_topology(tmp_path):
    w, g = dimacs("helsinki")
    h = navcore_roads.contract(g, customizable=True)
    path = tmp_path / "h.npz"
    h.save(path)
    w2, g2 = dimacs("helsinki")
    w2.update("helsinki", nodes=[4], walkable=False)   # other costs, same topology: fine
    w2.update("helsinki", edges=[(int(g2.edge_src[0]), int(g2.csr.targets[0]))],
              cost=float("inf"))
    w2.tick()
    h2 = navcore_roads.load_hierarchy(g2, path)
    assert isinstance(h2, navcore_roads.RoadCCH) and h2.current
    assert np.array_equal(h2.topology.order, h.topology.order)
    check_exact(w2, "helsinki", g2, np.random.default_rng(5))
    _, other = dimacs("monaco")
    with pytest.raises(navcore.GraphError, match="another road network"):
        navcore_roads.load_hierarchy(other, path)
    _, g3 = dimacs("helsinki", coords=False)     # same roads: the order still fits
    assert navcore_roads.load_hierarchy(g3, path).current
    chp = tmp_path / "ch.npz"
    navcore_roads.contract(g).save(chp)           # plain CH files still load as such
    assert isinstance(navcore_roads.load_hierarchy(g, chp), navcore_roads.RoadHierarchy)
    bad = tmp_path / "bad.npz"
    bad.write_bytes(npz_bytes(format=np.array(cch.FORMAT), fingerprint=np.array("x")))
    with pytest.raises(navcore.GraphError, match="another road network"):
        navcore_roads.load_hierarchy(g, bad)
    with pytest.raises(navcore.GraphError, match="cannot write"):
        h.save(tmp_path / "no" / "such" / "dir.npz")


def test_bad_input_is_a_nav_error_with_a_clear_message():
    w, g = dimacs("helsinki")
    with pytest.raises(navcore.GraphError, match="customizable must be True or False"):
        navcore_roads.contract(g, customizable="yes")
    with pytest.raises(navcore.GraphError, match="order= is a node order"):
        navcore_roads.contract(g, order=np.arange(g.num_nodes))
    with pytest.raises(navcore.GraphError, match="each of the 1916 nodes once"):
        navcore_roads.contract(g, customizable=True, order=np.arange(5))
    with pytest.raises(navcore.GraphError, match="permutation"):
        navcore_roads.contract(g, customizable=True, order=np.zeros(g.num_nodes, int))
    with pytest.raises(navcore.GraphError, match="1-d array of node ids"):
        navcore_roads.contract(g, customizable=True, order=np.ones(g.num_nodes))
    with pytest.raises(navcore.GraphError, match="road graph"):
        navcore_roads.contract(navcore.World().add_graph("c", type="csr", src=[0], dst=[1]),
                               customizable=True)
    h = navcore_roads.contract(g, customizable=True,
                               order=np.random.default_rng(1).permutation(g.num_nodes))
    check_exact(w, "helsinki", g, np.random.default_rng(2))   # any order is exact, if slow
    q = h.query()
    with pytest.raises(navcore.QueryError, match="node id from 0 to 1915"):
        q.distance(-1, 3)
    with pytest.raises(navcore.QueryError, match="node id"):
        q.path(True, 3)
    with pytest.raises(navcore.QueryError, match="same length"):
        q.distances([0, 1], [2])
    with pytest.raises(navcore.QueryError, match=r"targets\[1\] = 5000"):
        q.matrix([0], [1, 5000])
    with pytest.raises(navcore.QueryError, match="1-d array"):
        q.paths([[0]], [[1]])


def test_order_kernel_is_a_permutation_and_separates():
    from roadlike import roadlike
    off, tg, wt, lon, lat = roadlike(3000, 4)
    order = cch.node_order(off, tg, np.column_stack((lon / 1e5, lat / 1e5)))
    assert np.array_equal(np.sort(order), np.arange(3000))
    topo = cch.CCHTopology.build(off, tg, order)
    # nested dissection: a shallow tree and little fill-in on a near-planar mesh
    assert topo.depth < 200 and topo.num_arcs < 12 * 3000
    empty = cch.node_order(np.zeros(1, np.int64), np.zeros(0, np.int32))
    assert empty.shape == (0,)


def test_perfect_customization_is_exact_and_keeps_fewer_arcs():
    w, g = timed_graph("monaco")
    h = navcore_roads.contract(g, customizable=True)
    assert not h.perfect                    # the default: basic only, every finite arc
    kept = h.stats()["forward_arcs"] + h.stats()["backward_arcs"]
    h.perfect = True
    rng = np.random.default_rng(11)
    closed = set()
    for _ in range(5):
        random_batch(w, "monaco", g, rng, closed)
        w.tick()
        assert h.current
        assert h.stats()["forward_arcs"] + h.stats()["backward_arcs"] < kept
        check_exact(w, "monaco", g, rng, k=60, rows=20)


def test_customize_from_a_worker_thread_while_queries_run():
    import threading
    w, g = dimacs("helsinki")
    h = navcore_roads.contract(g, customizable=True)
    h.follow_updates = False
    m = matrix("helsinki")
    errors = []

    def ask():
        for _ in range(20):
            try:
                got = h.query().matrix(m["sources"][:10], m["targets"])
                assert got.shape == (10, 100)
            except Exception as exc:           # noqa: BLE001
                errors.append(exc)

    w.update("helsinki", nodes=[4], walkable=False)
    w.tick()
    threads = [threading.Thread(target=ask), threading.Thread(target=h.customize)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and h.current
    check_exact(w, "helsinki", g, np.random.default_rng(9))


def check_whole_subtrees(parent, first, nodes):
    """Groups ``first``/``nodes`` (``tree_parts``) hold every node once,
    and each is whole subtrees: a node's parent is in its group or in the
    top (the last group), whose parents are all in the top."""
    parts = first.shape[0] - 2
    label = np.empty(parent.shape[0], dtype=np.int64)
    for p in range(parts + 1):
        label[nodes[first[p]:first[p + 1]]] = p
    assert np.array_equal(np.sort(nodes), np.arange(parent.shape[0]))
    inner = (parent >= 0) & (label < parts)
    assert ((label[parent[inner]] == label[inner]) | (label[parent[inner]] == parts)).all()
    assert (label[parent[(parent >= 0) & (label == parts)]] == parts).all()


def test_parallel_subtrees_give_the_sequential_customization_bit_for_bit():
    from navcore_roads import _cch as K
    _, g = timed_graph("monaco")
    h = navcore_roads.contract(g, customizable=True)
    t = h.topology
    # the groups: whole subtrees (every node's parent in its group or the top)
    check_whole_subtrees(t.parent, t.part_first, t.part_nodes)
    cost = g.csr.cost.copy()
    out = []
    for parallel in (False, True):
        m = cch.Metric(t)
        marks = np.full((4, t.num_nodes), 7, dtype=np.int64)      # any content will do
        K.customize(t.arrays, cost, marks, parallel, m.weights)
        b_up, b_down = np.empty_like(m.w_up), np.empty_like(m.w_up)
        basic = [a.copy() for a in (m.w_up, m.w_down, m.mid_up, m.mid_down)]
        K.perfect(t.up_first, t.up_head, t.part_first, t.part_nodes, parallel, m.w_up,
                  m.w_down, b_up, b_down)
        out.append(basic + [m.w_up.copy(), m.w_down.copy()])
    for a, b in zip(*out):
        assert np.array_equal(a, b)


def _groups(parent, parts):
    """``tree_parts`` of an elimination tree without triangles (every node
    one unit of work), checked to be whole subtrees: each group's size."""
    from navcore_roads import _cch as K
    n = parent.shape[0]
    zeros = np.zeros(n + 1, dtype=np.int64)
    none = np.zeros(0, dtype=np.int64)
    first, nodes = K.tree_parts(parent, zeros, zeros, none, none, parts)
    assert first.shape == (parts + 2,)
    check_whole_subtrees(parent, first, nodes)
    for p in range(parts + 1):
        assert (np.diff(nodes[first[p]:first[p + 1]]) > 0).all()   # ascending by rank
    return np.diff(first)


def test_subtree_groups_reach_below_a_long_top_separator():
    """Two halves of 1,000 nodes under a chain of 600 (a city's top
    separator is such a chain): the halves become the two groups. At most
    256 splits left every node in the top, and a 250k-node city's
    customization on one thread."""
    chain = 600
    parent = np.empty(2000 + chain, dtype=np.int64)
    parent[:2000] = np.arange(1, 2001)                 # two chains of 1,000
    parent[999] = parent[1999] = 2000                  # under the separator
    parent[2000:] = np.arange(2001, 2001 + chain)
    parent[-1] = -1
    assert _groups(parent, 2).tolist() == [1000, 1000, chain]


def test_subtree_groups_of_a_tree_that_never_balances_are_valid():
    """A chain with a leaf at every node splits one node a time without
    ever balancing: the splits stop (the packings' work is bounded) with
    whole subtrees in every group."""
    n = 40_000
    parent = np.full(n, -1, dtype=np.int64)
    spine = np.arange(1, n, 2)                         # odd ids: the chain
    parent[spine[:-1]] = spine[1:]
    parent[np.arange(0, n, 2)] = np.arange(1, n, 2)   # even ids: its leaves
    sizes = _groups(parent, 2)
    assert sizes.sum() == n and sizes[2] < n


def test_an_order_that_is_no_permutation_is_refused_naming_the_file(tmp_path):
    # the checksum is recomputed, so only the structural check can see it
    w, g = dimacs("helsinki")
    path = tmp_path / "h.npz"
    navcore_roads.contract(g, customizable=True).save(path)
    saved = {k: v for k, v in np.load(path).items() if k != "checksum"}
    order = saved["order"]
    for damaged in (np.concatenate([order[:1], order[:-1]]), order - 1, order[:-2]):
        bad = tmp_path / "bad.npz"
        bad.write_bytes(npz_bytes(**{**saved, "order": damaged}))
        with pytest.raises(navcore.GraphError, match=f"{bad}: not a saved road hierarchy: "
                                                     "order must"):
            navcore_roads.load_hierarchy(g, bad)
