"""Turn rules on road graphs: hand-made OSM towns for each restriction kind
with their expected routes, ``turns=`` tables of arrays, bad input, and
Helsinki's real restrictions against a plain turn-expanded Dijkstra (the
graph of (edge, edge) moves) written here."""
import heapq

import numpy as np
import pytest

import navcore
from navcore.errors import GraphError, QueryError

from roadtruth import ROADS

STEP = 111.19508      # metres between neighbouring nodes 0.001 degrees apart at the equator


# ------------------------------------------------------------ the reference

def expanded_dijkstra(src, dst, cost, s, banned, extra=None):
    """Cheapest cost from node ``s`` to every node over directed edges
    (``src[e] -> dst[e]`` at ``cost[e]``) where going from edge ``e`` onto
    edge ``f`` is allowed unless ``(e, f) in banned`` and costs ``cost[f]``
    plus ``extra.get((e, f), 0)``: Dijkstra over the edges, heapq, no tricks."""
    extra = extra or {}
    out_edges = {}
    for e, u in enumerate(src):
        out_edges.setdefault(int(u), []).append(e)
    best_edge = {}
    heap = [(float(cost[f]), f) for f in out_edges.get(int(s), [])]
    heapq.heapify(heap)
    while heap:
        d, e = heapq.heappop(heap)
        if e in best_edge:
            continue
        best_edge[e] = d
        for f in out_edges.get(int(dst[e]), []):
            if f not in best_edge and (e, f) not in banned:
                heapq.heappush(heap, (d + float(cost[f]) + extra.get((e, f), 0.0), f))
    to_node = {int(s): 0.0}
    for e, d in best_edge.items():
        v = int(dst[e])
        to_node[v] = min(to_node.get(v, np.inf), d)
    return to_node


# ------------------------------------------------------ hand-made OSM towns

#   7 - 8 - 9        node id 1 + 3 * row + col at (lon, lat) = 0.001 * (col, row);
#   |   |   |        every street between neighbours its own two-way way, id 10a + b
#   4 - 5 - 6
#   |   |   |
#   1 - 2 - 3
STREETS = [(1, 2), (2, 3), (4, 5), (5, 6), (7, 8), (8, 9), (1, 4), (4, 7), (2, 5), (5, 8),
           (3, 6), (6, 9)]


def town(tmp_path, relations=""):
    nodes = "".join(f'<node id="{i}" lat="{0.001 * ((i - 1) // 3)}" '
                    f'lon="{0.001 * ((i - 1) % 3)}"/>' for i in range(1, 10))
    ways = "".join(f'<way id="{10 * a + b}"><nd ref="{a}"/><nd ref="{b}"/>'
                   f'<tag k="highway" v="residential"/></way>' for a, b in STREETS)
    path = tmp_path / "town.osm"
    path.write_text(f'<osm version="0.6">{nodes}{ways}{relations}</osm>')
    return path


def relation(tags, members, rid=1):
    """A relation of ``tags`` ({k: v}, type=restriction added) and
    ``members`` (type, ref, role)."""
    tags = {"type": "restriction", **tags}
    return (f'<relation id="{rid}">'
            + "".join(f'<member type="{t}" ref="{r}" role="{role}"/>' for t, r, role in members)
            + "".join(f'<tag k="{k}" v="{v}"/>' for k, v in tags.items()) + "</relation>")


VIA5 = [("way", 45, "from"), ("node", 5, "via"), ("way", 56, "to")]


def town_world(tmp_path, relations, profile="car"):
    w = navcore.World()
    g = w.add_graph("town", type="roads", osm=town(tmp_path, relations), profile=profile,
                    weight="distance", compress=False)
    return w, g


def steps(w, g, a, b, algorithm="dijkstra"):
    """Route from OSM node ``a`` to ``b``: (its cost in steps, its OSM nodes)."""
    index = {int(o): i for i, o in enumerate(g.osm_ids)}
    r = w.find_path("town", index[a], index[b], algorithm=algorithm)
    return round(r.cost / STEP, 6), [int(g.osm_ids[v]) for v in r.nodes]


def town_reference(g, banned_triples, s):
    """``expanded_dijkstra`` from OSM node ``s`` over the town's streets
    (both ways), banning the turns ``(a, via, b)`` given as OSM nodes."""
    src = [a for a, b in STREETS] + [b for a, b in STREETS]
    dst = [b for a, b in STREETS] + [a for a, b in STREETS]
    banned = {(e, f) for e in range(len(src)) for f in range(len(src))
              if dst[e] == src[f] and (src[e], dst[e], dst[f]) in banned_triples}
    return expanded_dijkstra(src, dst, np.full(len(src), STEP), s, banned)


def neighbours(v):
    return {b for a, b in STREETS if a == v} | {a for a, b in STREETS if b == v}


def assert_town_matches(w, g, banned_triples):
    """Every junction pair of the town, every algorithm and the matrix,
    against the reference with ``banned_triples``."""
    ids = [int(o) for o in g.osm_ids]
    got = w.distance_matrix("town", np.arange(9), np.arange(9))
    pairs = w.distance_pairs("town", np.repeat(np.arange(9), 9), np.tile(np.arange(9), 9))
    for i, a in enumerate(ids):
        ref = town_reference(g, banned_triples, a)
        want = np.array([ref.get(b, np.inf) for b in ids])
        assert np.allclose(got[i], want, rtol=0, atol=1e-6), (a, got[i] / STEP, want / STEP)
        assert np.allclose(pairs[9 * i:9 * i + 9], want, rtol=0, atol=1e-6)
        for algorithm in ("dijkstra", "astar", "bidijkstra", "auto"):
            for j, b in enumerate(ids):
                r = w.find_path("town", i, j, algorithm=algorithm)
                assert abs(r.cost - want[j]) < 1e-6, (algorithm, a, b)
                nodes = [ids[v] for v in r.nodes]
                assert not any(t in banned_triples for t in zip(nodes, nodes[1:], nodes[2:]))


def test_town_without_restrictions_goes_straight(tmp_path):
    w, g = town_world(tmp_path, "")
    assert g.turns is None and "turns" not in g.report
    assert steps(w, g, 4, 6) == (2.0, [4, 5, 6])


def test_no_straight_on_via_node_goes_around(tmp_path):
    w, g = town_world(tmp_path, relation({"restriction": "no_straight_on"}, VIA5))
    assert g.report["turns"]["restrictions"] == 1
    assert g.report["turns"]["forbidden_turns"] == 1
    for algorithm in ("dijkstra", "astar", "bidijkstra"):
        cost, nodes = steps(w, g, 4, 6, algorithm)
        assert cost == 4.0 and nodes[0] == 4 and nodes[-1] == 6
        assert (4, 5, 6) not in set(zip(nodes, nodes[1:], nodes[2:]))
    assert steps(w, g, 6, 4) == (2.0, [6, 5, 4])           # the other way is free
    assert_town_matches(w, g, {(4, 5, 6)})


def test_only_right_turn_forbids_every_other_way_on(tmp_path):
    members = [("way", 45, "from"), ("node", 5, "via"), ("way", 25, "to")]
    w, g = town_world(tmp_path, relation({"restriction": "only_right_turn"}, members))
    # from 4 into 5 only south to 2: not straight to 6, not left to 8, no U-turn to 4
    assert g.report["turns"]["forbidden_turns"] == 3
    assert steps(w, g, 4, 6)[0] == 4.0
    assert steps(w, g, 4, 2)[0] == 2.0
    assert_town_matches(w, g, {(4, 5, 6), (4, 5, 8), (4, 5, 4)})


def test_no_entry_with_several_from_ways(tmp_path):
    members = [("way", 45, "from"), ("way", 25, "from"), ("node", 5, "via"),
               ("way", 56, "to")]
    w, g = town_world(tmp_path, relation({"restriction": "no_entry"}, members))
    assert steps(w, g, 4, 6)[0] == 4.0
    assert_town_matches(w, g, {(4, 5, 6), (2, 5, 6)})


@pytest.mark.parametrize("tags,car,bike", [
    ({"restriction:motorcar": "no_straight_on"}, 4.0, 2.0),
    ({"restriction:bicycle": "no_straight_on"}, 2.0, 4.0),
    ({"restriction": "no_straight_on", "except": "motorcar"}, 2.0, 4.0),
    ({"restriction": "no_straight_on", "except": "psv;bicycle"}, 4.0, 2.0),
    ({"restriction:vehicle": "no_straight_on"}, 4.0, 4.0),
])
def test_restrictions_per_transport_and_except(tmp_path, tags, car, bike):
    for profile, want in (("car", car), ("bike", bike)):
        w, g = town_world(tmp_path, relation(tags, VIA5), profile)
        assert steps(w, g, 4, 6)[0] == want, profile
        if want == 4.0:
            assert_town_matches(w, g, {(4, 5, 6)})
        else:
            skipped = g.report["turns"]["skipped"]
            assert skipped == {"excepted" if "except" in tags else "other transport": 1}


def test_foot_ignores_plain_restrictions_by_default(tmp_path):
    w, g = town_world(tmp_path, relation({"restriction": "no_straight_on"}, VIA5), "foot")
    assert g.turns is None and steps(w, g, 4, 6)[0] == 2.0
    w, g = town_world(tmp_path, relation({"restriction": "no_straight_on"}, VIA5),
                      {"base": "foot", "restrictions": True})
    assert steps(w, g, 4, 6)[0] == 4.0


def test_restrictions_false_ignores_the_relations(tmp_path):
    w = navcore.World()
    g = w.add_graph("town", type="roads", weight="distance", compress=False,
                    osm=town(tmp_path, relation({"restriction": "no_straight_on"}, VIA5)),
                    restrictions=False)
    assert g.turns is None and "turns" not in g.report
    assert steps(w, g, 4, 6)[0] == 2.0


def test_conditional_restrictions_are_counted_and_ignored(tmp_path):
    rels = (relation({"restriction:conditional": "no_straight_on @ (Mo-Fr 07:00-09:00)"},
                     VIA5, 1)
            + relation({"restriction:motorcar:conditional": "no_left_turn @ (wet)"},
                       [("way", 45, "from"), ("node", 5, "via"), ("way", 58, "to")], 2))
    w, g = town_world(tmp_path, rels)
    assert g.turns is None
    assert g.report["turns"]["skipped"] == {"conditional": 2}
    assert steps(w, g, 4, 6) == (2.0, [4, 5, 6])


def test_a_plain_restriction_beside_a_conditional_one_applies(tmp_path):
    tags = {"restriction": "no_straight_on", "restriction:conditional": "none @ (Su)"}
    w, g = town_world(tmp_path, relation(tags, VIA5))
    assert steps(w, g, 4, 6)[0] == 4.0


def test_via_way_restrictions_apply(tmp_path):
    # routed as forbidden sequences (test_via_ways has them in full)
    members = [("way", 45, "from"), ("way", 56, "via"), ("way", 69, "to")]
    w, g = town_world(tmp_path, relation({"restriction": "no_left_turn"}, members))
    assert g.report["turns"]["skipped"] == {} and g.report["turns"]["restrictions"] == 1
    cost, nodes = steps(w, g, 4, 9)
    assert cost == 3.0 and nodes != [4, 5, 6, 9]


@pytest.mark.parametrize("tags,members", [
    ({"restriction": "no_straight_on"}, VIA5[:2]),                           # no to
    ({"restriction": "no_straight_on"}, VIA5[1:]),                           # no from
    ({"restriction": "no_straight_on"}, [VIA5[0], VIA5[2]]),                 # no via
    ({"restriction": "no_straight_on"}, VIA5 + [("node", 2, "via")]),         # two vias
    ({"restriction": "no_straight_on"}, [("node", 4, "from")] + VIA5[1:]),    # node from
    ({"restriction": "give_way"}, VIA5),                                     # no kind
    ({"restriction": "only_straight_on"}, VIA5 + [("way", 58, "to")]),        # two only
    ({"restriction": "no_straight_on"}, VIA5 + [("way", 25, "via")]),         # node + way
])
def test_malformed_relations_are_counted_and_skipped(tmp_path, tags, members):
    w, g = town_world(tmp_path, relation(tags, members))
    assert g.report["turns"]["skipped"] == {"malformed": 1}
    assert g.turns is None and steps(w, g, 4, 6)[0] == 2.0


def test_relations_off_the_roads_are_counted(tmp_path):
    # a from way that does not end at the via node, a via node no road has
    rels = (relation({"restriction": "no_straight_on"},
                     [("way", 12, "from"), ("node", 5, "via"), ("way", 56, "to")], 1)
            + relation({"restriction": "no_straight_on"},
                       [("way", 45, "from"), ("node", 99, "via"), ("way", 56, "to")], 2))
    w, g = town_world(tmp_path, rels)
    assert g.report["turns"]["skipped"] == {"not on the roads read": 2}
    assert g.turns is None


def test_restricted_corner_survives_chain_compression(tmp_path):
    # corner 1 (two neighbours) is folded into the edge 2-1-4 when chains are
    # compressed; a rule there keeps it a node, and routes obey it
    w = navcore.World()
    g = w.add_graph("free", type="roads", osm=town(tmp_path), weight="distance")
    assert 1 not in g.osm_ids.tolist()
    rel = relation({"restriction": "no_right_turn"},
                   [("way", 12, "from"), ("node", 1, "via"), ("way", 14, "to")])
    g = w.add_graph("town", type="roads", osm=town(tmp_path, rel), weight="distance")
    assert 1 in g.osm_ids.tolist() and g.turns.forbidden == 1
    cost, nodes = steps(w, g, 2, 4)
    assert cost == 2.0 and nodes == [2, 5, 4]


# ------------------------------------------------------------ turns= tables

GRID_SRC = [0, 1, 3, 4, 6, 7, 0, 3, 1, 4, 2, 5]
GRID_DST = [1, 2, 4, 5, 7, 8, 3, 6, 4, 7, 5, 8]


def grid_world(turns, **params):
    w = navcore.World()
    g = w.add_graph("g", type="roads", src=GRID_SRC, dst=GRID_DST, cost=np.full(12, 10.0),
                    length=np.full(12, 100.0), oneway=False, turns=turns,
                    positions=[(0.001 * (i % 3), 0.001 * (i // 3)) for i in range(9)],
                    **params)
    return w, g


def grid_reference(turns, s):
    """``expanded_dijkstra`` on the two-way grid with a ``turns`` table,
    each row applied where its roads meet."""
    src = GRID_SRC + GRID_DST
    dst = GRID_DST + GRID_SRC
    m = len(GRID_SRC)
    banned, extra = set(), {}
    for row in turns:
        a, b = int(row[0]), int(row[1])
        c = float(row[2]) if len(row) > 2 else np.inf
        for e in (a, a + m):
            for f in (b, b + m):
                if dst[e] == src[f]:
                    if c == np.inf:
                        banned.add((e, f))
                    else:
                        extra[(e, f)] = max(extra.get((e, f), 0.0), c)
    return expanded_dijkstra(src, dst, np.full(2 * m, 10.0), s, banned, extra)


@pytest.mark.parametrize("turns", [
    [[2, 3]],                                   # 3->4 then 4->5 forbidden
    [[2, 3, 7.5], [8, 9, np.inf]],              # a cost, and 1->4->7 forbidden
    [[2, 3, 25.0], [3, 2, 1.0], [9, 3, np.inf]],        # both ways; 7->4->5 forbidden
    np.zeros((0, 2), np.int64),                 # an empty table: free turns
])
def test_turn_tables_match_the_reference(turns):
    w, g = grid_world(turns)
    got = w.distance_matrix("g", np.arange(9), np.arange(9))
    for s in range(9):
        ref = grid_reference(turns, s)
        want = np.array([ref.get(t, np.inf) for t in range(9)])
        assert np.allclose(got[s], want), (s, got[s], want)
        for algorithm in ("dijkstra", "astar", "bidijkstra"):
            costs = [w.find_path("g", s, t, algorithm=algorithm).cost for t in range(9)]
            assert np.allclose(costs, want)


def test_turn_table_forbidden_left_turn_route():
    w, g = grid_world([[2, 3]])
    assert g.report["turns"] == {"restrictions": 1, "skipped": {}, "forbidden_turns": 1,
                                 "turn_costs": 0}
    r = w.find_path("g", 3, 5)
    assert r.cost == 40.0 and (3, 4, 5) not in set(zip(r.nodes, r.nodes[1:], r.nodes[2:]))
    assert w.find_path("g", 5, 3).cost == 20.0


def test_turn_rules_follow_closures():
    w, g = grid_world([[2, 3]])
    assert w.find_path("g", 3, 5).cost == 40.0
    # every way into 5 but the forbidden 3-4-5 closed: 5 is out of reach
    # (it would be 20 away ignoring the rule)
    closed = [(1, 2), (7, 8), (1, 4), (4, 7)]
    w.update("g", edges=closed + [(b, a) for a, b in closed], cost=np.inf)
    w.tick()
    for algorithm in ("dijkstra", "astar", "bidijkstra"):
        assert w.find_path("g", 3, 5, algorithm=algorithm).cost == np.inf
    assert w.distance_matrix("g", [3], [5])[0, 0] == np.inf
    w.update("g", edges=[(7, 8)], reset=True)
    w.tick()
    r = w.find_path("g", 3, 5)
    assert r.cost == 40.0 and r.nodes.tolist() == [3, 6, 7, 8, 5]


@pytest.mark.parametrize("turns,match", [
    ([[0, 12]], r"turns\[0\] = \[0, 12\] names an edge that does not exist \(there are 12"),
    ([[-1, 2]], r"names an edge that does not exist"),
    ([[0, 4]], r"turns\[0\]: edge 0 \(0->1\) never ends where edge 4 \(6->7\) starts"),
    ([[0, 1, -2.0]], r"turns\[0\] cost -2.0 must be >= 0"),
    ([[0, 1, np.nan]], r"cost nan must be >= 0"),
    ([[0.5, 1]], r"turns\[0\] = \[0.5, 1.0\]: edges must be whole numbers"),
    ([0, 1], r"turns must be rows of \(from edge, to edge\)"),
    ([["a", "b"]], r"turns must be rows"),
])
def test_bad_turn_tables_are_graph_errors(turns, match):
    w = navcore.World()
    with pytest.raises(GraphError, match=match):
        w.add_graph("g", type="roads", src=GRID_SRC, dst=GRID_DST, cost=np.full(12, 10.0),
                    length=np.full(12, 100.0), oneway=False, turns=turns)
    assert "g" not in w.graphs


def test_turns_belong_to_arrays():
    with pytest.raises(GraphError, match=r"turns= is a table of turns between array or GeoJSON"):
        navcore.World().add_graph("g", type="roads", dimacs="x.gr", turns=[[0, 1]])


def test_hierarchies_under_turn_rules_refuse_until_built():
    w, g = grid_world([[2, 3]])
    with pytest.raises(QueryError, match=r"has no customizable hierarchy; build it with "):
        w.find_path("g", 3, 5, algorithm="cch")
    with pytest.raises(QueryError, match=r"has no hierarchy; build it with navcore_roads"):
        w.find_path("g", 3, 5, algorithm="ch")
    from navcore_roads.ch import contract
    with pytest.raises(GraphError, match=r"order= is a junction order, and road graph 'g' "
                                         r"has turn rules \(1\)"):
        contract(g, customizable=True, order=np.arange(9))
    assert g.stored_view("navcore_roads.cch") is None


@pytest.mark.parametrize("turns", [[[2, 3]], [[2, 3, 7.5], [8, 9, np.inf]],
                                   [[2, 3, 25.0], [3, 2, 1.0], [9, 3, np.inf]]])
def test_the_edge_hierarchy_matches_the_reference(turns):
    w, g = grid_world(turns, contract=True)
    assert w.find_path("g", 3, 5).algorithm == "ch"            # auto: the hierarchy
    got = w.distance_matrix("g", np.arange(9), np.arange(9))
    pairs = w.distance_pairs("g", np.repeat(np.arange(9), 9), np.tile(np.arange(9), 9))
    for s in range(9):
        ref = grid_reference(turns, s)
        want = np.array([ref.get(t, np.inf) for t in range(9)])
        assert np.allclose(got[s], want) and np.allclose(pairs[9 * s:9 * s + 9], want)
        for t in range(9):
            r = w.find_path("g", s, t, algorithm="ch")
            assert r.algorithm == "ch" and abs(r.cost - want[t]) < 1e-9
            if t != s:                 # the route's own edges add up to its cost
                e = g.path_edges(r.nodes)
                assert (e >= 0).all()
    # points: a search over the edges answers for ch too
    r = w.find_path("g", (0.0005, 0.001), 5, algorithm="ch")
    assert r.cost == 35.0 or turns != [[2, 3]]
    # an update leaves it stale: auto searches, ch refuses
    w.update("g", edges=[(0, 1)], factor=2.0)
    w.tick()
    assert w.find_path("g", 3, 5).algorithm == "bidijkstra"
    with pytest.raises(QueryError, match=r"stale hierarchy of its edges"):
        w.find_path("g", 3, 5, algorithm="ch")


# ------------------------------------------- Helsinki's real restrictions

def helsinki_reference_bans(g):
    """The car's banned turns of Helsinki's restriction relations as
    (from OSM node, via OSM node, to OSM node), the relations read here with
    pyosmium directly: the from way's segments into the via node and the to
    way's out of it (a relation missing either is skipped, as OSRM does)."""
    import osmium
    rels = []
    for o in osmium.FileProcessor(str(ROADS / "Helsinki.osm.pbf"), osmium.osm.RELATION):
        tags = {t.k: t.v for t in o.tags}
        if tags.get("type") == "restriction":
            rels.append((tags, [(m.type, m.ref, m.role) for m in o.members]))
    seg = g.segments
    segs = set(zip(seg.node_id[seg.src].tolist(), seg.node_id[seg.dst].tolist(),
                   seg.way.tolist()))
    banned = set()
    for tags, members in rels:
        kind = next((tags[k] for k in ("restriction:motorcar", "restriction:motor_vehicle",
                                       "restriction:vehicle") if k in tags), None)
        if kind is None:
            excepted = {"motorcar", "motor_vehicle", "vehicle"} & \
                set(tags.get("except", "").split(";"))
            kind = None if excepted else tags.get("restriction")
        vias = [r for t, r, role in members if role == "via" and t == "n"]
        if kind is None or len(vias) != 1:
            continue
        v = vias[0]
        froms = {r for t, r, role in members if role == "from"}
        tos = {r for t, r, role in members if role == "to"}
        ins = {a for a, b, way in segs if b == v and way in froms}
        outs = {b for a, b, way in segs if a == v and way in tos}
        if not ins or not outs:
            continue
        if kind.startswith("no_"):
            banned |= {(a, v, b) for a in ins for b in outs}
        elif kind.startswith("only_"):
            every = {b for a, b, way in segs if a == v}
            banned |= {(a, v, b) for a in ins for b in every - outs}
    return banned


@pytest.fixture(scope="module")
def helsinki():
    if not (ROADS / "Helsinki.osm.pbf").exists():
        pytest.skip("the shared Helsinki extract is not here")
    w = navcore.World()
    g = w.add_graph("h", type="roads", osm=ROADS / "Helsinki.osm.pbf", compress=False)
    return w, g


def test_helsinki_restrictions_match_the_reference(helsinki):
    w, g = helsinki
    assert g.report["turns"]["restrictions"] > 30 and g.turns is not None
    banned = helsinki_reference_bans(g)
    ids = g.osm_ids
    src, dst = g.edge_src, g.csr.targets
    cost = g.csr.cost
    ban_edges = set()
    out = {}
    for f in range(dst.size):
        out.setdefault(int(src[f]), []).append(f)
    for e in range(dst.size):
        for f in out.get(int(dst[e]), []):
            if (int(ids[src[e]]), int(ids[dst[e]]), int(ids[dst[f]])) in banned:
                ban_edges.add((e, f))
    assert len(ban_edges) == g.turns.forbidden > 20
    from navcore_roads import contract
    rng = np.random.default_rng(7)
    sources = rng.choice(g.num_nodes, 12, replace=False)
    targets = rng.choice(g.num_nodes, 40, replace=False)
    matrix = w.distance_matrix("h", sources, targets)
    pairs = w.distance_pairs("h", np.repeat(sources, 3), targets[:36])
    for customizable in (False, True):      # the same from the hierarchies of the edges
        contract(g, customizable=customizable)
        assert np.allclose(w.distance_matrix("h", sources, targets), matrix, rtol=0,
                           atol=1e-6)
        assert np.allclose(w.distance_pairs("h", np.repeat(sources, 3), targets[:36]), pairs,
                           rtol=0, atol=1e-6)
    free = navcore.World()
    free.add_graph("h", type="roads", osm=ROADS / "Helsinki.osm.pbf", compress=False,
                   restrictions=False)
    changed = 0
    for i, s in enumerate(sources):
        ref = expanded_dijkstra(src, dst, cost, int(s), ban_edges)
        want = np.array([ref.get(int(t), np.inf) for t in targets])
        assert np.allclose(matrix[i], want, rtol=0, atol=1e-6)
        assert np.allclose(pairs[3 * i:3 * i + 3], want[3 * i:3 * i + 3], rtol=0, atol=1e-6)
        for algorithm in ("dijkstra", "astar", "bidijkstra", "ch", "cch"):
            for j in range(4 * (i % 3), 4 * (i % 3) + 4):
                r = w.find_path("h", int(s), int(targets[j]), algorithm=algorithm)
                assert abs(r.cost - want[j]) < 1e-6 or r.cost == want[j] == np.inf
                if r.nodes.size > 2:
                    trip = set(zip(ids[r.nodes[:-2]].tolist(), ids[r.nodes[1:-1]].tolist(),
                                   ids[r.nodes[2:]].tolist()))
                    assert not trip & banned
        changed += int(np.count_nonzero(
            free.distance_matrix("h", [int(s)], targets)[0] < want - 1e-9))
    assert changed > 0          # the restrictions make some routes longer here


def test_helsinki_cch_and_isochrones_follow_updates(helsinki):
    """Helsinki's real restrictions, a closure on a route and a jam: the
    customizable hierarchy of the edges (customized again at the tick)
    and an isochrone equal the plain references on the updated costs."""
    from navcore_roads import contract
    from test_turn_cch import bounded_reference
    w, g = helsinki
    ids = g.osm_ids
    banned = helsinki_reference_bans(g)
    src, dst = g.edge_src, g.csr.targets
    out = {}
    for f in range(dst.size):
        out.setdefault(int(src[f]), []).append(f)
    ban_edges = {(e, f) for e in range(dst.size) for f in out.get(int(dst[e]), [])
                 if (int(ids[src[e]]), int(ids[dst[e]]), int(ids[dst[f]])) in banned}
    view = contract(g, customizable=True)
    rng = np.random.default_rng(5)
    sources = rng.choice(g.num_nodes, 6, replace=False)
    targets = rng.choice(g.num_nodes, 30, replace=False)
    r = w.find_path("h", int(sources[0]), int(targets[0]), algorithm="cch")
    assert r.found and r.nodes.size > 3
    shut = (int(r.nodes[1]), int(r.nodes[2]))
    slow = (int(r.nodes[-2]), int(r.nodes[-1])) if r.nodes.size > 4 else \
        (int(r.nodes[0]), int(r.nodes[1]))
    w.update("h", edges=[shut], cost=np.inf)
    w.update("h", edges=[slow], factor=4.0)
    w.tick()
    try:
        assert view.current
        cost = g.csr.cost.copy()         # the updated costs, as the reference takes them
        assert np.isinf(cost).sum() >= 1
        matrix = w.distance_matrix("h", sources, targets)
        for i, s in enumerate(sources):
            ref = expanded_dijkstra(src, dst, cost, int(s), ban_edges)
            want = np.array([ref.get(int(t), np.inf) for t in targets])
            assert np.allclose(matrix[i], want, rtol=0, atol=1e-6)
            for j in range(3):
                got = w.find_path("h", int(s), int(targets[j]), algorithm="cch").cost
                assert abs(got - want[j]) < 1e-6 or got == want[j] == np.inf
        assert w.find_path("h", int(sources[0]), int(targets[0])).cost > r.cost
        # an isochrone from two junctions, in bands
        limits = [60.0, 180.0]
        iso = w.isochrone("h", sources[:2].tolist(), limits)
        for b, limit in enumerate(limits):
            node, _ = bounded_reference(src, dst, cost, {int(v): 0.0 for v in sources[:2]},
                                        limit, ban_edges, {})
            assert iso.nodes[iso.band <= b].tolist() == sorted(node)
            assert np.allclose(iso.costs[iso.band <= b], [node[v] for v in sorted(node)],
                               rtol=0, atol=1e-6)
        assert iso.nodes.size > 50
    finally:
        w.update("h", edges=[shut, slow], reset=True)
        w.tick()


# ------------------------------------------------------ points on roads

def split_grid_reference(split, banned_triples, s, more=None):
    """Costs from node ``s`` on the two-way grid (every road 10) with road
    ``split`` = (a, b) cut at its middle by node 9 (5 each side), and road
    ``more`` by node 10, banning the turns ``(x, via, y)`` given as nodes:
    the truth of routes from and to the middles of those roads."""
    cuts = [(split, 9)] + ([(more, 10)] if more else [])
    roads = [(u, v, 10.0) for u, v in zip(GRID_SRC, GRID_DST)
             if all({u, v} != set(cut) for cut, _ in cuts)]
    for (a, b), mid in cuts:
        roads += [(a, mid, 5.0), (mid, b, 5.0)]
    src = [u for u, v, c in roads] + [v for u, v, c in roads]
    dst = [v for u, v, c in roads] + [u for u, v, c in roads]
    cost = [c for u, v, c in roads] * 2
    banned = {(e, f) for e in range(len(src)) for f in range(len(src))
              if dst[e] == src[f] and (src[e], dst[e], dst[f]) in banned_triples}
    return expanded_dijkstra(src, dst, np.array(cost), s, banned)


def test_routes_from_and_to_points_obey_turn_rules():
    # edge 2 is 3->4 (and back), edge 3 is 4->5: 3->4->5 forbidden
    w, g = grid_world([[2, 3]])
    middle = (0.0005, 0.001)             # of road 3-4
    from_middle = split_grid_reference((3, 4), {(9, 4, 5)}, 9)
    for algorithm in ("dijkstra", "astar", "bidijkstra", "auto"):
        for t in range(9):
            r = w.find_path("g", middle, t, algorithm=algorithm)
            assert abs(r.cost - from_middle[t]) < 1e-9, (algorithm, t, r.cost)
        r = w.find_path("g", middle, 5, algorithm=algorithm)
        assert r.cost == 35.0 and r.nodes.tolist() != [4, 5]
    middle = (0.002 - 0.0005, 0.001)     # of road 4-5
    for s in range(9):
        want = split_grid_reference((4, 5), {(3, 4, 9)}, s)[9]
        for algorithm in ("dijkstra", "astar", "bidijkstra"):
            assert abs(w.find_path("g", s, middle, algorithm=algorithm).cost - want) < 1e-9
    assert w.find_path("g", 3, middle).cost == 35.0      # by 0-1-4, not straight on
    # point to point: the middle of 3-4 to the middle of 4-5, not straight on
    # at 4 (that would be 10): the truth is the grid cut at both middles
    want = split_grid_reference((3, 4), {(9, 4, 10)}, 9, more=(4, 5))[10]
    assert want == 30.0                  # on to 4, a U-turn at 1, back to 4, on to the point
    for algorithm in ("dijkstra", "astar", "bidijkstra"):
        r = w.find_path("g", (0.0005, 0.001), (0.0015, 0.001), algorithm=algorithm)
        assert r.cost == want and r.nodes.tolist() == [4, 1, 4]


def test_matrices_and_pairs_from_and_to_points_obey_turn_rules():
    w, g = grid_world([[2, 3]])
    mid34, mid45 = (0.0005, 0.001), (0.0015, 0.001)
    # the truth: the grid cut at both middles (node 9 on 3-4, node 10 on 4-5)
    truth = {s: split_grid_reference((3, 4), {(9, 4, 10)}, s, more=(4, 5))
             for s in range(11)}
    ends = list(range(9)) + [9, 10]
    where = {9: mid34, 10: mid45}
    got = w.distance_matrix("g", [where.get(e, e) for e in ends], [where.get(e, e) for e in ends])
    want = np.array([[truth[a].get(b, np.inf) if a != b else 0.0 for b in ends] for a in ends])
    assert np.allclose(got, want), (got, want)
    k = len(ends)
    a = [where.get(e, e) for e in np.repeat(ends, k)]
    b = [where.get(e, e) for e in np.tile(ends, k)]
    assert np.allclose(w.distance_pairs("g", a, b), want.reshape(-1))
    for s in ends:                      # and find_path agrees
        for t in ends:
            r = w.find_path("g", where.get(s, s), where.get(t, t))
            assert abs(r.cost - want[ends.index(s), ends.index(t)]) < 1e-9


def test_routes_of_many_pairs_obey_turn_rules():
    import navcore_roads
    w, g = grid_world([[2, 3]])
    r = navcore_roads.routes(g, [3, 5, 0], [5, 3, 8])
    assert r.costs.tolist() == [40.0, 20.0, 40.0]
    nodes = r.nodes(0).tolist()
    assert nodes[0] == 3 and nodes[-1] == 5 and nodes[:3] != [3, 4, 5]


def test_helsinki_compressed_keeps_every_restricted_junction(helsinki):
    # chains compressed: the costs between the junctions both graphs have
    # are the same, but where the uncompressed graph turns back at a node
    # in the middle of a road (U-turns are turns at any graph node) to get
    # round a restriction; never cheaper
    w, g = helsinki
    w.add_graph("hc", type="roads", osm=ROADS / "Helsinki.osm.pbf")
    c = w.graphs["hc"]
    assert c.num_nodes < g.num_nodes / 3
    assert c.report["turns"]["forbidden_turns"] == g.report["turns"]["forbidden_turns"]
    index = {int(o): i for i, o in enumerate(g.osm_ids)}
    rng = np.random.default_rng(3)
    picks = rng.choice(c.num_nodes, 30, replace=False)
    full = np.array([index[int(o)] for o in c.osm_ids[picks]])
    compressed = w.distance_matrix("hc", picks, picks)
    uncompressed = w.distance_matrix("h", full, full)
    same = np.isclose(compressed, uncompressed, rtol=0, atol=1e-6)
    assert (compressed >= uncompressed - 1e-6).all() and same.mean() > 0.9, same.mean()


def test_scheduled_paths_obey_turn_rules():
    w, g = grid_world([[2, 3]])
    handles = [w.scheduler.request_path("g", 3, 5, algorithm=a)
               for a in ("dijkstra", "astar", "bidijkstra", "auto")]
    for _ in range(3):
        w.tick()
    for h in handles:
        r = h.result()
        assert r.cost == 40.0 and r.nodes[:3].tolist() != [3, 4, 5]


def test_blocked_junctions_and_warm_up_under_turn_rules():
    w, g = grid_world([[2, 3]])
    w.warm_up()
    w.update("g", nodes=[1, 7], walkable=False)
    w.tick()
    # from 3 every way round the forbidden 3-4-5 passes 1 or 7: 5 is out of
    # reach (20 away ignoring the rule); the other way is free
    assert w.find_path("g", 3, 5).cost == np.inf
    assert w.distance_matrix("g", [3, 5], [5, 1]).tolist() == [[np.inf, np.inf],
                                                                [0.0, np.inf]]
    assert w.find_path("g", 5, 3).cost == 20.0


# ------------------------------------------------------ GeoJSON turns=

def town_geojson():
    """The hand-made town as GeoJSON: a feature per street, id 10a + b."""
    def xy(i):
        return [0.001 * ((i - 1) % 3), 0.001 * ((i - 1) // 3)]
    return {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"id": 10 * a + b},
         "geometry": {"type": "LineString", "coordinates": [xy(a), xy(b)]}}
        for a, b in STREETS]}


def geo_steps(w, g, a, b):
    # GeoJSON numbers nodes in the order they first appear; find them by place
    def node(i):
        x, y = 0.001 * ((i - 1) % 3), 0.001 * ((i - 1) // 3)
        return int(np.flatnonzero(np.all(np.isclose(g.positions, (x, y)), axis=1))[0])
    return round(w.find_path("town", node(a), node(b)).cost / STEP, 6)


def test_geojson_turn_tables_by_way_id():
    w = navcore.World()
    g = w.add_graph("town", type="roads", geojson=town_geojson(), weight="distance",
                    compress=False, turns=[[45, 56]])
    assert geo_steps(w, g, 4, 6) == 4.0 and geo_steps(w, g, 6, 4) == 2.0
    w2 = navcore.World()
    g = w2.add_graph("town", type="roads", geojson=town_geojson(), weight="distance",
                     turns=[[45, 56, 0.5 * STEP]])
    assert geo_steps(w2, g, 4, 6) == 2.5
    for turns, match in (([[45, 99]], r"turns\[0\] names way 99, which no road has"),
                         ([[12, 56]], r"turns\[0\]: way 12 never ends where way 56 starts"),
                         ([[45, 56, -1.0]], r"cost -1.0 must be >= 0")):
        with pytest.raises(GraphError, match=match):
            w.add_graph("bad", type="roads", geojson=town_geojson(), turns=turns)


def test_no_u_turn_on_a_way_through_the_via_node_forbids_only_the_u_turn(tmp_path):
    # one way 4-5-6 and a dead end 5-2 (way 25): a U-turn at 5 is banned,
    # going on along the way is not
    nodes = "".join(f'<node id="{i}" lat="{0.001 * ((i - 1) // 3)}" '
                    f'lon="{0.001 * ((i - 1) % 3)}"/>' for i in (2, 4, 5, 6))
    ways = ('<way id="456"><nd ref="4"/><nd ref="5"/><nd ref="6"/>'
            '<tag k="highway" v="residential"/></way>'
            '<way id="25"><nd ref="2"/><nd ref="5"/><tag k="highway" v="residential"/></way>')
    rel = relation({"restriction": "no_u_turn"},
                   [("way", 456, "from"), ("node", 5, "via"), ("way", 456, "to")])
    path = tmp_path / "line.osm"
    path.write_text(f'<osm version="0.6">{nodes}{ways}{rel}</osm>')
    w = navcore.World()
    g = w.add_graph("town", type="roads", osm=path, weight="distance", compress=False)
    assert g.turns.forbidden == 2                    # 4-5-4 and 6-5-6
    assert steps(w, g, 4, 6) == (2.0, [4, 5, 6])
    assert steps(w, g, 6, 4) == (2.0, [6, 5, 4])
    index = {int(o): i for i, o in enumerate(g.osm_ids)}
    r = w.distance_matrix("town", [index[4]], [index[2]])
    assert round(float(r[0, 0]) / STEP, 6) == 2.0


def test_isochrones_apply_turn_rules():
    w, g = grid_world([[2, 3]])
    iso = w.isochrone("g", 3, 30.0)
    ref = grid_reference([[2, 3]], 3)
    assert iso.nodes.tolist() == sorted(t for t in ref if ref[t] <= 30.0)
    assert 5 not in iso.nodes.tolist()          # 3-4-5 is forbidden: 5 is 40 away
    w, g = grid_world(np.zeros((0, 2)))               # no rule left: isochrones as ever
    assert w.isochrone("g", 3, 20.0).nodes.tolist() == [0, 1, 3, 4, 5, 6, 7]
