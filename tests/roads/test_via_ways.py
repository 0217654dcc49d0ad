"""OSM turn restrictions with via ways (forbidden sequences of roads):
hand-made towns with their expected routes, and random grids with random
via-way and via-node rules against a plain search over (edge, the edges
driven just before) written here, for every algorithm, matrices, pairs,
routes() and points on roads.

(The shared extracts hold no via-way relation: Helsinki has 45 restriction
relations, all with a via node; Monaco none.)"""
import heapq

import numpy as np
import pytest

import navcore
import navcore_roads
from navcore_roads import contract

from test_turns import STEP, relation, town_world, steps

ALGORITHMS = ("dijkstra", "astar", "bidijkstra", "auto", "ch")


# ------------------------------------------------------------ the reference

def sequence_dijkstra(src, dst, cost, seeds, banned, extra=None):
    """Cheapest cost of every state over directed edges (``src[e] ->
    dst[e]`` at ``cost[e]``) where no run of edges in ``banned`` (tuples of
    edge ids) may be driven: a state is the edge last driven with the
    edges driven before it (as many as the longest banned run needs), so
    a move is allowed unless the run it ends is banned; moving from ``e``
    onto ``f`` costs ``cost[f]`` plus ``extra.get((e, f), 0)``. ``seeds``:
    (edge, cost) to start on. Returns {state: cost}; heapq, no tricks."""
    extra = extra or {}
    keep = max((len(b) for b in banned), default=1) - 1
    out = {}
    for e, u in enumerate(src):
        out.setdefault(int(u), []).append(e)
    best = {}
    heap = [(float(c), (e,)) for e, c in seeds]
    heapq.heapify(heap)
    while heap:
        d, state = heapq.heappop(heap)
        if state in best:
            continue
        best[state] = d
        for f in out.get(int(dst[state[-1]]), []):
            run = state + (f,)
            if any(run[i:] in banned for i in range(len(run))):
                continue
            nxt = run[max(len(run) - keep, 0):] if keep else (f,)
            if nxt not in best:
                heapq.heappush(heap, (d + float(cost[f]) + extra.get((state[-1], f), 0.0),
                                      nxt))
    return best


def node_costs(src, dst, cost, s, banned, extra=None):
    """Cost from node ``s`` to every node under ``banned`` (and ``extra``)."""
    best = sequence_dijkstra(src, dst, cost, [(e, cost[e]) for e in range(len(src))
                                              if src[e] == s], banned, extra)
    to = {int(s): 0.0}
    for state, d in best.items():
        v = int(dst[state[-1]])
        to[v] = min(to.get(v, np.inf), d)
    return to


def banned_runs(src, dst, node_runs):
    """Edge runs of node runs ``(n0, n1, ..., nk)`` (each consecutive pair
    a directed edge; no parallel edges here)."""
    edge = {(int(a), int(b)): e for e, (a, b) in enumerate(zip(src, dst))}
    return {tuple(edge[p] for p in zip(run, run[1:])) for run in node_runs
            if all(p in edge for p in zip(run, run[1:]))}


def has_run(nodes, node_runs):
    nodes = tuple(nodes)
    return any(nodes[i:i + len(r)] == tuple(r) for r in node_runs
               for i in range(len(nodes) - len(r) + 1))


# ------------------------------------------------------ hand-made towns
#   7 - 8 - 9        the town of test_turns: node 1 + 3 * row + col, every
#   |   |   |        street its own two-way way 10a + b
#   4 - 5 - 6
#   |   |   |
#   1 - 2 - 3

def town_runs_match(w, g, node_runs):
    """Every algorithm, matrix and pairs between every junction of the
    town against the reference banning ``node_runs`` (OSM nodes)."""
    from test_turns import STREETS
    src = [a for a, b in STREETS] + [b for a, b in STREETS]
    dst = [b for a, b in STREETS] + [a for a, b in STREETS]
    banned = banned_runs(src, dst, node_runs)
    ids = [int(o) for o in g.osm_ids]
    n = len(ids)
    matrix = w.distance_matrix("town", np.arange(n), np.arange(n))
    for i, a in enumerate(ids):
        ref = node_costs(src, dst, np.full(len(src), STEP), a, banned)
        want = np.array([ref.get(b, np.inf) for b in ids])
        assert np.allclose(matrix[i], want, rtol=0, atol=1e-5), (a, matrix[i] / STEP)
        for algorithm in ("dijkstra", "astar", "bidijkstra"):
            for j in range(n):
                r = w.find_path("town", i, j, algorithm=algorithm)
                assert abs(r.cost - want[j]) < 1e-5, (algorithm, a, ids[j])
                assert not has_run([ids[v] for v in r.nodes], node_runs)


def test_no_left_turn_via_one_way(tmp_path):
    # 4 -> 5 -> 6 then left to 9 is forbidden; 5 -> 6 -> 9 is not
    members = [("way", 45, "from"), ("way", 56, "via"), ("way", 69, "to")]
    w, g = town_world(tmp_path, relation({"restriction": "no_left_turn"}, members))
    rep = g.report["turns"]
    assert rep["restrictions"] == 1 and rep["skipped"] == {}
    assert rep["forbidden_sequences"] == 1 and rep["via_copies"] == 1
    cost, nodes = steps(w, g, 4, 9)
    assert cost == 3.0 and nodes[:4] != [4, 5, 6, 9]
    town_runs_match(w, g, [(4, 5, 6, 9)])
    # 4-5-6-9 would be 3 too: close 4-7 and 5-8 so the rule decides the cost
    w.update("town", edges=[(3, 6), (6, 3), (4, 7), (7, 4)], cost=np.inf)
    w.tick()
    for algorithm in ("dijkstra", "astar", "bidijkstra"):
        cost, nodes = steps(w, g, 4, 9, algorithm)
        assert cost == 5.0 and not has_run(nodes, [(4, 5, 6, 9)]), (algorithm, nodes)
        assert steps(w, g, 5, 9, algorithm) == (2.0, [5, 6, 9])
        assert steps(w, g, 2, 9, algorithm)[0] == 3.0


def test_only_straight_on_via_one_way(tmp_path):
    # from 4 along 5-6: only on to 9 at 6 (not to 3, not back to 5)
    members = [("way", 45, "from"), ("way", 56, "via"), ("way", 69, "to")]
    w, g = town_world(tmp_path, relation({"restriction": "only_left_turn"}, members))
    assert g.report["turns"]["forbidden_sequences"] == 2
    runs = [(4, 5, 6, 3), (4, 5, 6, 5)]
    assert steps(w, g, 4, 3)[0] == 3.0                    # by 5-2-3, not 5-6-3
    assert not has_run(steps(w, g, 4, 3)[1], runs)
    assert steps(w, g, 5, 3) == (2.0, [5, 6, 3]) or steps(w, g, 5, 3)[0] == 2.0
    town_runs_match(w, g, runs)


def test_via_two_ways_in_order_and_out_of_order(tmp_path):
    # from 1 along 1-2... : from 14 (1 -> 4) via 45 then 56 to 69 (left at 6)
    members = [("way", 14, "from"), ("way", 45, "via"), ("way", 56, "via"),
               ("way", 69, "to")]
    w, g = town_world(tmp_path, relation({"restriction": "no_left_turn"}, members))
    assert g.report["turns"]["forbidden_sequences"] == 1
    assert g.report["turns"]["via_copies"] == 2
    town_runs_match(w, g, [(1, 4, 5, 6, 9)])
    # the via ways swapped: the chain has a gap, the relation is skipped
    swapped = [members[0], members[2], members[1], members[3]]
    w, g = town_world(tmp_path, relation({"restriction": "no_left_turn"}, swapped))
    assert g.report["turns"]["skipped"] == {"not on the roads read": 1} and g.turns is None
    # a gap: 45 then 69 (5 never meets 6 by them)
    gap = [members[0], members[1], ("way", 69, "via"), ("way", 98, "to")]
    w, g = town_world(tmp_path, relation({"restriction": "no_left_turn"}, gap))
    assert g.report["turns"]["skipped"] == {"not on the roads read": 1} and g.turns is None


def test_only_via_two_ways(tmp_path):
    members = [("way", 14, "from"), ("way", 45, "via"), ("way", 56, "via"),
               ("way", 69, "to")]
    w, g = town_world(tmp_path, relation({"restriction": "only_left_turn"}, members))
    runs = [(1, 4, 5, 6, 3), (1, 4, 5, 6, 5)]
    assert g.report["turns"]["forbidden_sequences"] == 2
    town_runs_match(w, g, runs)


def test_overlapping_via_way_and_via_node_rules(tmp_path):
    # two via-way rules share the via way 5-6; a via-node rule at 6 and one
    # at 5 on the same junctions; and a rule whose run starts inside another's
    rels = (relation({"restriction": "no_left_turn"},
                     [("way", 45, "from"), ("way", 56, "via"), ("way", 69, "to")], 1)
            + relation({"restriction": "no_right_turn"},
                       [("way", 25, "from"), ("way", 56, "via"), ("way", 36, "to")], 2)
            + relation({"restriction": "no_straight_on"},
                       [("way", 56, "from"), ("node", 6, "via"), ("way", 36, "to")], 3)
            + relation({"restriction": "no_right_turn"},
                       [("way", 58, "from"), ("node", 5, "via"), ("way", 45, "to")], 4)
            + relation({"restriction": "only_straight_on"},
                       [("way", 12, "from"), ("way", 25, "via"), ("way", 58, "to")], 5))
    w, g = town_world(tmp_path, rels)
    rep = g.report["turns"]
    assert rep["restrictions"] == 5 and rep["skipped"] == {}
    runs = [(4, 5, 6, 9), (2, 5, 6, 3), (5, 6, 3), (8, 5, 4),
            (1, 2, 5, 4), (1, 2, 5, 6), (1, 2, 5, 2)]
    town_runs_match(w, g, runs)


def test_via_way_rules_with_profile_turn_costs(tmp_path):
    # the car's turn costs (time) and the via-node rules are rules between
    # two edges (graph.turns, test_turn_costs checks them); the via-way
    # rules' copies must charge them too: the reference takes them as given
    rels = (relation({"restriction": "no_left_turn"},
                     [("way", 45, "from"), ("way", 56, "via"), ("way", 69, "to")], 1)
            + relation({"restriction": "only_straight_on"},
                       [("way", 25, "from"), ("way", 58, "via"), ("way", 89, "to")], 2)
            + relation({"restriction": "no_right_turn"},
                       [("way", 56, "from"), ("node", 6, "via"), ("way", 36, "to")], 3)
            + relation({"restriction": "no_right_turn"},      # round the free corner 7
                       [("way", 14, "from"), ("way", 47, "via"), ("way", 78, "to")], 4))
    from test_turns import town
    w = navcore.World()
    g = w.add_graph("town", type="roads", osm=town(tmp_path, rels), weight="time",
                    compress=False, turn_costs=True)
    assert g.report["turns"]["via_copies"] == 3 and g.report["turn_costs"]["rules"] > 20
    src, dst, cost = g.edge_src, g.csr.targets, g.csr.cost
    tr = g.turns
    rule_from = np.repeat(np.arange(dst.size), np.diff(tr.off))
    extra = {(int(e), int(f)): float(c) for e, f, c in zip(rule_from, tr.to, tr.cost)}
    banned = {b for b, c in extra.items() if c == np.inf}
    ids = g.osm_ids.tolist()
    runs = [(4, 5, 6, 9), (2, 5, 8, 7), (2, 5, 8, 5), (1, 4, 7, 8)]
    banned |= banned_runs(src, dst, [tuple(ids.index(v) for v in run) for run in runs])
    n = g.num_nodes
    contract(g)
    matrix = w.distance_matrix("town", np.arange(n), np.arange(n))
    changed = 0
    for s in range(n):
        ref = node_costs(src, dst, cost, s, banned, extra)
        want = np.array([ref.get(t, np.inf) for t in range(n)])
        assert np.allclose(matrix[s], want, rtol=0, atol=1e-6), (s, matrix[s], want)
        for algorithm in ALGORITHMS:
            for t in range(n):
                assert abs(w.find_path("town", s, t, algorithm=algorithm).cost - want[t]) \
                    < 1e-6, (algorithm, s, t)
        plain = node_costs(src, dst, cost, s, {b for b in banned if len(b) == 2}, extra)
        changed += sum(want[t] > plain[t] + 1e-6 for t in range(n))
    assert changed > 0                     # the via-way rules make some routes longer


@pytest.mark.parametrize("tags,car,bike", [
    ({"restriction:motorcar": "no_left_turn"}, True, False),
    ({"restriction:bicycle": "no_left_turn"}, False, True),
    ({"restriction": "no_left_turn", "except": "bicycle"}, True, False),
    ({"restriction": "no_left_turn", "except": "motorcar"}, False, True),
])
def test_via_way_rules_per_transport_and_except(tmp_path, tags, car, bike):
    members = [("way", 45, "from"), ("way", 56, "via"), ("way", 69, "to")]
    for profile, applies in (("car", car), ("bike", bike)):
        w, g = town_world(tmp_path, relation(tags, members), profile)
        assert (g.turns is not None) == applies, profile
        if applies:
            town_runs_match(w, g, [(4, 5, 6, 9)])
        else:
            assert g.report["turns"]["skipped"] == \
                {"excepted" if "except" in tags else "other transport": 1}


def long_ways_osm(tmp_path, oneway_via=False, rels=""):
    """A street 1-2-3 (way 100, three nodes; one-way 1 -> 3 with
    ``oneway_via``), side streets 4-1 (way 41), 3-6 (way 36), 3-9 (way 39):

        4       6
        |       |
        1 - 2 - 3 - 9
    """
    xy = {1: (0, 0), 2: (1, 0), 3: (2, 0), 4: (0, 1), 6: (2, 1), 9: (3, 0)}
    nodes = "".join(f'<node id="{i}" lat="{0.001 * y}" lon="{0.001 * x}"/>'
                    for i, (x, y) in xy.items())

    def way(i, refs, extra=""):
        return (f'<way id="{i}">' + "".join(f'<nd ref="{r}"/>' for r in refs)
                + f'<tag k="highway" v="residential"/>{extra}</way>')
    ways = (way(100, [1, 2, 3], '<tag k="oneway" v="yes"/>' if oneway_via else "")
            + way(41, [4, 1]) + way(36, [3, 6]) + way(39, [3, 9]))
    path = tmp_path / "long.osm"
    path.write_text(f'<osm version="0.6">{nodes}{ways}{rels}</osm>')
    return path


def test_via_way_of_several_segments_compressed_and_not(tmp_path):
    rel = relation({"restriction": "no_left_turn"},
                   [("way", 41, "from"), ("way", 100, "via"), ("way", 36, "to")])
    for compress in (True, False):
        w = navcore.World()
        g = w.add_graph("g", type="roads", osm=long_ways_osm(tmp_path, rels=rel),
                        weight="distance", compress=compress)
        idx = {int(o): i for i, o in enumerate(g.osm_ids)}
        assert {1, 3} <= set(idx) and (2 in idx) == (not compress)
        assert g.report["turns"]["via_copies"] == (1 if compress else 2)
        # not 4-1-2-3-6 (4): on to 9 and back (compressed), or a U-turn at 2
        # or 3 and back (6 either way)
        for algorithm in ("dijkstra", "astar", "bidijkstra"):
            r = w.find_path("g", idx[4], idx[6], algorithm=algorithm)
            nodes = [int(g.osm_ids[v]) for v in r.nodes]
            assert round(r.cost / STEP, 6) == 6.0, (compress, algorithm, nodes)
            assert not has_run([v for v in nodes if v != 2], [(4, 1, 3, 6)])
            r = w.find_path("g", idx[1], idx[6], algorithm=algorithm)
            assert round(r.cost / STEP, 6) == 3.0            # not from 4: free
            r = w.find_path("g", idx[4], idx[9], algorithm=algorithm)
            assert round(r.cost / STEP, 6) == 4.0
        # from a point on 4-1 (the from way): the same rule
        r = w.find_path("g", (0.0, 0.0005), idx[6])
        assert round(r.cost / STEP, 6) == 5.5
        # and to a point on 3-6 from 4
        r = w.find_path("g", idx[4], (0.002, 0.0005))
        assert round(r.cost / STEP, 6) == 5.5
        # to a point on the via way itself from 4 (reached on its copy), and
        # from there (it did not come from 4) on to 6
        for algorithm in ("dijkstra", "bidijkstra"):
            r = w.find_path("g", idx[4], (0.0015, 0.0), algorithm=algorithm)
            assert round(r.cost / STEP, 6) == 2.5
            r = w.find_path("g", (0.0015, 0.0), idx[6], algorithm=algorithm)
            assert round(r.cost / STEP, 6) == 1.5
        got = w.distance_matrix("g", [idx[4], (0.0, 0.0005)], [(0.0015, 0.0), idx[6]])
        assert np.allclose(got / STEP, [[2.5, 6.0], [2.0, 5.5]])
        got = w.distance_pairs("g", [idx[4], (0.0, 0.0005)], [(0.0015, 0.0), idx[6]])
        assert np.allclose(got / STEP, [2.5, 5.5])


def test_via_way_the_profile_cannot_drive_that_way_is_skipped(tmp_path):
    # the via way is one-way 1 -> 3: from 36 via it to 41 runs against it
    rels = (relation({"restriction": "no_right_turn"},
                     [("way", 36, "from"), ("way", 100, "via"), ("way", 41, "to")], 1)
            + relation({"restriction": "no_left_turn"},
                       [("way", 41, "from"), ("way", 100, "via"), ("way", 36, "to")], 2)
            + relation({"restriction": "no_left_turn"},         # a via way no road has
                       [("way", 41, "from"), ("way", 777, "via"), ("way", 36, "to")], 3)
            + relation({"restriction": "only_left_turn"},       # only_ with two to ways
                       [("way", 41, "from"), ("way", 100, "via"), ("way", 36, "to"),
                        ("way", 39, "to")], 4)
            + relation({"restriction": "no_left_turn"},         # a via way twice
                       [("way", 41, "from"), ("way", 100, "via"), ("way", 100, "via"),
                        ("way", 36, "to")], 5))
    w = navcore.World()
    g = w.add_graph("g", type="roads", osm=long_ways_osm(tmp_path, True, rels),
                    weight="distance", keep="all")
    assert g.report["turns"]["skipped"] == {"not on the roads read": 2, "malformed": 2}
    assert g.report["turns"]["restrictions"] == 1
    idx = {int(o): i for i, o in enumerate(g.osm_ids)}
    r = w.find_path("g", idx[4], idx[6])          # not 4-1-3-6: round the dead end 9
    assert round(r.cost / STEP, 6) == 6.0 and g.osm_ids[r.nodes].tolist() == [4, 1, 3, 9, 3, 6]
    assert round(w.find_path("g", idx[1], idx[6]).cost / STEP, 6) == 3.0


# ------------------------------------------------------------ random grids

def random_grid(rng, tmp_path, rows=4, cols=4, rules=9):
    """An OSM grid of ``rows`` x ``cols`` nodes 0.001 degrees apart (id
    ``1 + r * cols + c``), horizontal streets merged two at a time into one
    way at random, some one-way; random via-way rules (one or two via ways,
    no_ or only_) and via-node rules along drivable runs, and some broken
    chains (via ways swapped). Returns (path, forbidden node runs, number
    of rules applied, number broken)."""
    def nid(r, c):
        return 1 + r * cols + c
    ways = []
    for r in range(rows):
        c = 0
        while c < cols - 1:
            span = 2 if c + 2 < cols and rng.random() < 0.5 else 1
            ways.append([nid(r, c + k) for k in range(span + 1)])
            c += span
    for c in range(cols):
        for r in range(rows - 1):
            ways.append([nid(r, c), nid(r + 1, c)])
    oneway = [bool(rng.random() < 0.2) for _ in ways]
    speed = [int(s) for s in rng.integers(20, 90, len(ways))]     # few equal routes
    for i in range(len(ways)):
        if oneway[i] and rng.random() < 0.5:
            ways[i] = ways[i][::-1]
    wid = {i: 1000 + i for i in range(len(ways))}
    segs = [(a, b, i) for i, wn in enumerate(ways) for a, b in zip(wn, wn[1:])]
    segs += [(b, a, i) for i, wn in enumerate(ways) if not oneway[i]
             for a, b in zip(wn, wn[1:])]

    def drive(i, start):
        """Nodes of way i driven from its end ``start`` (None: cannot)."""
        wn = ways[i]
        if start == wn[0]:
            return wn
        if start == wn[-1] and not oneway[i]:
            return wn[::-1]
        return None

    rels, runs, applied, broken = [], [], 0, 0
    tries = 0
    while len(rels) < rules and tries < 500:
        tries += 1
        a = int(rng.integers(len(ways)))
        ins = [(x, y) for x, y, i in segs if i == a]
        x_prev, x0 = ins[int(rng.integers(len(ins)))]
        via_node = rng.random() < 0.2
        chain, at, path_nodes = [], x0, [x0]
        for _ in range(0 if via_node else int(rng.integers(1, 3))):
            options = [i for i in range(len(ways)) if i != a and i not in chain
                       and drive(i, at) is not None]
            if not options:
                break
            i = options[int(rng.integers(len(options)))]
            chain.append(i)
            path_nodes += drive(i, at)[1:]
            at = path_nodes[-1]
        if not via_node and not chain:
            continue
        outs = [(x, y, i) for x, y, i in segs if x == at and i not in chain]
        outs = [o for o in outs if o[2] != a or via_node]
        if not outs:
            continue
        x, y, b = outs[int(rng.integers(len(outs)))]
        kind = "no" if rng.random() < 0.6 else "only"
        members = [("way", wid[a], "from")]
        members += [("node", x0, "via")] if via_node else [("way", wid[i], "via")
                                                           for i in chain]
        members.append(("way", wid[b], "to"))
        from_ins = [p for p, q, i in segs if i == a and q == x0]
        to_outs = {q for p, q, i in segs if i == b and p == at}
        if via_node and b == a:
            continue                       # a U-turn rule along one way: test_turns' job
        if kind == "only":
            banned_to = {q for p, q, i in segs if p == at} - to_outs
        else:
            banned_to = to_outs
        if via_node:
            # from a way through the via node onto itself is its U-turn only
            # (test_turns): going on along the from way stays free
            along = {q for p, q, i in segs if i == a and p == at}
            runs_here = [(p, at, q) for p in from_ins for q in banned_to
                         if not (q in along and q != p)]
        else:
            runs_here = [(p, *path_nodes, q) for p in from_ins for q in banned_to]
        swap = len(chain) == 2 and rng.random() < 0.25
        if swap:
            members[1], members[2] = members[2], members[1]
            broken += 1
        else:
            applied += 1
            runs += runs_here
        rels.append(relation({"restriction": f"{kind}_turn"}, members, len(rels) + 1))
    nodes = "".join(f'<node id="{nid(r, c)}" lat="{0.001 * r}" lon="{0.001 * c}"/>'
                    for r in range(rows) for c in range(cols))
    xml = "".join(f'<way id="{wid[i]}">' + "".join(f'<nd ref="{n}"/>' for n in wn)
                  + '<tag k="highway" v="residential"/>'
                  + f'<tag k="maxspeed" v="{speed[i]}"/>'
                  + ('<tag k="oneway" v="yes"/>' if oneway[i] else "") + "</way>"
                  for i, wn in enumerate(ways))
    path = tmp_path / "grid.osm"
    path.write_text(f'<osm version="0.6">{nodes}{xml}{"".join(rels)}</osm>')
    seg_list = [(x, y) for x, y, i in segs]
    return path, runs, applied, broken, seg_list


def segment_reference(g, seg_list, runs):
    """The reference's graph on the source segments of ``g`` (every node,
    ``seg_list`` as ``random_grid`` made it): ``(src, dst, cost, banned,
    seg)``, ``cost`` the seconds the graph sums its edges from, ``banned``
    the edge runs of node ``runs``, ``seg[k]``: ``g.segments``' id of
    reference edge ``k``."""
    where = {int(o): i for i, o in enumerate(g.segments.node_id)}
    src = np.array([where[a] for a, b in seg_list])
    dst = np.array([where[b] for a, b in seg_list])
    seg_of = {(int(a), int(b)): i for i, (a, b) in
              enumerate(zip(g.segments.src.tolist(), g.segments.dst.tolist()))}
    seg = np.array([seg_of[(int(a), int(b))] for a, b in zip(src, dst)])
    banned = banned_runs(src, dst, [tuple(where[n] for n in run) for run in runs])
    return src, dst, g.seg_cost[seg], banned, seg


def junction_truth(g, src, dst, cost, banned):
    """The reference's costs between every two junctions of ``g``."""
    node_of = g.node_source                       # graph node -> source node
    n = g.num_nodes
    return np.array([[node_costs(src, dst, cost, int(node_of[i]), banned)
                      .get(int(node_of[j]), np.inf) for j in range(n)] for i in range(n)])


@pytest.mark.parametrize("seed", range(6))
def test_random_grids_match_the_sequence_reference(tmp_path, seed):
    rng = np.random.default_rng(seed)
    path, runs, applied, broken, seg_list = random_grid(rng, tmp_path)
    w = navcore.World()
    compress = seed % 2 == 0
    g = w.add_graph("g", type="roads", osm=path, weight="time", compress=compress,
                    keep="all")
    rep = g.report["turns"]
    assert rep["restrictions"] == applied and \
        rep["skipped"].get("not on the roads read", 0) == broken, rep
    src, dst, cost, banned, _ = segment_reference(g, seg_list, runs)
    ids = g.segments.node_id
    lon, lat = g.segments.lon, g.segments.lat
    node_of = g.node_source                       # graph node -> source node
    n = g.num_nodes
    truth = junction_truth(g, src, dst, cost, banned)
    # the rules make some routes between source nodes longer
    k = len(ids)
    assert any(node_costs(src, dst, cost, v, banned).get(u, np.inf) >
               node_costs(src, dst, cost, v, set()).get(u, np.inf) + 1e-6
               for v in range(k) for u in range(k))
    for build in (False, True):
        if build:
            contract(g)
        got = w.distance_matrix("g", np.arange(n), np.arange(n))
        assert np.allclose(got, truth, rtol=0, atol=1e-6), (build, got - truth)
        pairs = w.distance_pairs("g", np.repeat(np.arange(n), n), np.tile(np.arange(n), n))
        assert np.allclose(pairs, truth.reshape(-1), rtol=0, atol=1e-6)
        many = navcore_roads.routes(g, np.repeat(np.arange(n), n), np.tile(np.arange(n), n))
        assert np.allclose(many.costs, truth.reshape(-1), rtol=0, atol=1e-6)
        node_runs = [tuple(run) for run in runs]
        for algorithm in (ALGORITHMS if build else ALGORITHMS[:4]):
            for s in range(n):
                for t in range(0, n, 3):
                    r = w.find_path("g", s, t, algorithm=algorithm)
                    assert r.cost == truth[s, t] or abs(r.cost - truth[s, t]) < 1e-6, \
                        (algorithm, s, t, r.cost, truth[s, t])
                    if r.found and r.nodes.size > 1:
                        assert not has_run([int(g.osm_ids[v]) for v in r.nodes], node_runs)
                        # the route's own edges add up to its cost
                        e = g.path_edges(r.nodes)
                        if not has_parallel(g):
                            assert abs(g.csr.cost[e].sum() - r.cost) < 1e-6
    # points in the middle of source segments: seeds and goals on the edges
    mids = rng.choice(len(seg_list), 5, replace=False)
    points = [((lon[src[k]] + lon[dst[k]]) / 2, (lat[src[k]] + lat[dst[k]]) / 2)
              for k in mids]
    want = np.array([[point_truth(src, dst, cost, banned, mids, i, j) for j in range(5)]
                     for i in range(5)])
    got = w.distance_matrix("g", points, points)
    assert np.allclose(got, want, rtol=0, atol=1e-4), (got, want)
    assert np.allclose(w.distance_pairs("g", points, points[::-1]),
                       [want[i, 4 - i] for i in range(5)], rtol=0, atol=1e-4)
    for i in range(5):
        for j in range(5):
            for algorithm in ALGORITHMS:
                r = w.find_path("g", points[i], points[j], algorithm=algorithm)
                assert r.cost == want[i, j] or abs(r.cost - want[i, j]) < 1e-4, \
                    (algorithm, i, j, r.cost, want[i, j])
        # junction to point and back
        t = int(node_of[0])
        to_pt = w.find_path("g", 0, points[i]).cost
        want_pt = junction_point_truth(src, dst, cost, banned, t, mids[i])
        assert to_pt == want_pt or abs(to_pt - want_pt) < 1e-4, (i, to_pt, want_pt)


def has_parallel(g):
    pairs = set()
    for e in range(g.csr.num_edges):
        key = (int(g.edge_src[e]), int(g.csr.targets[e]))
        if key in pairs:
            return True
        pairs.add(key)
    return False


def _point_states(src, dst, k):
    """The directed segments a point in the middle of segment ``k`` lies
    on (``k`` and its reverse when there is one)."""
    return [e for e in range(len(src))
            if {int(src[e]), int(dst[e])} == {int(src[k]), int(dst[k])}]


def point_truth(src, dst, cost, banned, mids, i, j):
    """Cost from the middle of segment ``mids[i]`` to the middle of
    ``mids[j]``: on along a segment under it from the middle, then states
    until turning onto a segment under the goal, then half of it."""
    if i == j:
        return 0.0
    seeds = [(e, cost[e] / 2) for e in _point_states(src, dst, mids[i])]
    best = sequence_dijkstra(src, dst, cost, seeds, banned)
    goals = set(_point_states(src, dst, mids[j]))
    if set(_point_states(src, dst, mids[i])) & goals:
        return 0.0                       # one street: the same point
    return min((d - cost[state[-1]] / 2 for state, d in best.items()
                if state[-1] in goals), default=np.inf)


def junction_point_truth(src, dst, cost, banned, s, k):
    seeds = [(e, cost[e]) for e in range(len(src)) if src[e] == s]
    best = sequence_dijkstra(src, dst, cost, seeds, banned)
    goals = set(_point_states(src, dst, k))
    return min((d - cost[state[-1]] / 2 for state, d in best.items()
                if state[-1] in goals), default=np.inf)


def test_cch_and_isochrones_apply_via_way_rules_in_the_town(tmp_path):
    # 4 -> 5 -> 6 then left to 9 forbidden; with 4-7 and 5-8 closed the
    # rule decides: 4 to 9 costs 5 (round by 3 or turning back), not 3
    members = [("way", 45, "from"), ("way", 56, "via"), ("way", 69, "to")]
    w, g = town_world(tmp_path, relation({"restriction": "no_left_turn"}, members))
    view = contract(g, customizable=True)
    assert view.m == g.csr.num_edges + 1 and view.stats()["edge_nodes"] == view.m
    w.warm_up()
    assert steps(w, g, 4, 9, "cch")[0] == 3.0
    # saved and loaded into the same town: the same edge-based graph, copy included
    view.save(tmp_path / "town.npz")
    w2, g2 = town_world(tmp_path, relation({"restriction": "no_left_turn"}, members))
    loaded = navcore_roads.load_hierarchy(g2, tmp_path / "town.npz")
    assert loaded.m == view.m and np.array_equal(loaded.topology.order, view.topology.order)
    n = g.num_nodes
    assert np.array_equal(w2.distance_matrix("town", np.arange(n), np.arange(n)),
                          w.distance_matrix("town", np.arange(n), np.arange(n)))
    w.update("town", edges=[(3, 6), (6, 3), (4, 7), (7, 4)], cost=np.inf)
    w.tick()
    assert view.current
    cost, nodes = steps(w, g, 4, 9, "cch")
    assert cost == 5.0 and not has_run(nodes, [(4, 5, 6, 9)]), nodes
    assert steps(w, g, 5, 9, "cch") == (2.0, [5, 6, 9])
    idx = {int(o): i for i, o in enumerate(g.osm_ids)}
    iso = w.isochrone("town", idx[4], 10 * STEP)
    got = {int(g.osm_ids[v]): round(c / STEP, 6) for v, c in zip(iso.nodes, iso.costs)}
    # 6 is reached at 2 (on the copy of 5-6 that may not turn to 9)
    assert got == {1: 1.0, 2: 2.0, 3: 3.0, 4: 0.0, 5: 1.0, 6: 2.0, 7: 7.0, 8: 6.0, 9: 5.0}
    edges, lo, hi = iso.segments()
    ends = [(int(g.osm_ids[g.edge_src[e]]), int(g.osm_ids[g.csr.targets[e]])) for e in edges]
    assert len(ends) == len(set(ends))            # each road edge once, copies not listed
    entry = {p: round(r / STEP, 6) for p, r in zip(ends, iso.reach)}
    assert entry[(5, 6)] == 1.0 and entry[(6, 9)] == 4.0 and entry[(9, 8)] == 5.0




def grid_case(tmp_path, seed, compress):
    """A ``random_grid`` world ``(w, g, node runs, src, dst, cost, banned,
    seg)`` (``segment_reference``)."""
    rng = np.random.default_rng(seed)
    path, runs, applied, broken, seg_list = random_grid(rng, tmp_path)
    w = navcore.World()
    g = w.add_graph("g", type="roads", osm=path, weight="time", compress=compress,
                    keep="all")
    assert g.turns is not None and g.turns.via is not None
    return (w, g, [tuple(run) for run in runs], *segment_reference(g, seg_list, runs))


def close(w, g, cost, seg, e, factor=np.inf):
    """Close road edge ``e`` of ``g`` (``factor``: or slow it) and its
    segments in the reference costs ``cost`` (a copy)."""
    u, v = int(g.edge_src[e]), int(g.csr.targets[e])
    same = np.flatnonzero((g.edge_src == u) & (g.csr.targets == v))
    segs = np.concatenate([g.chain[g.chain_start[f]:g.chain_start[f + 1]] for f in same])
    if factor == np.inf:
        w.update("g", edges=[(u, v)], cost=np.inf)
    else:
        w.update("g", edges=[(u, v)], factor=factor)
    cost = cost.copy()
    cost[np.isin(seg, segs)] *= factor
    return cost


def check_cch(w, g, truth, node_runs):
    n = g.num_nodes
    s, t = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    got = w.distance_matrix("g", np.arange(n), np.arange(n))
    assert np.allclose(got, truth, rtol=0, atol=1e-6), got - truth
    assert np.allclose(w.distance_pairs("g", s, t), truth.ravel(), rtol=0, atol=1e-6)
    many = navcore_roads.routes(g, s, t)
    assert many.algorithm == "cch"
    assert np.allclose(many.costs, truth.ravel(), rtol=0, atol=1e-6)
    for a in range(n):
        for b in range(n):
            r = w.find_path("g", a, b, algorithm="cch")
            assert r.cost == truth[a, b] or abs(r.cost - truth[a, b]) < 1e-6, \
                (a, b, r.cost, truth[a, b])
            if r.found and r.nodes.size > 1:
                assert not has_run([int(g.osm_ids[v]) for v in r.nodes], node_runs)


@pytest.mark.parametrize("seed", range(4))
def test_random_grids_cch_matches_the_sequence_reference_after_updates(tmp_path, seed):
    w, g, node_runs, src, dst, cost, banned, seg = grid_case(tmp_path, seed, seed % 2 == 0)
    view = contract(g, customizable=True)
    assert view.m == g.csr.num_edges + g.report["turns"]["via_copies"]
    assert w.find_path("g", 0, 1).algorithm == "cch"          # auto: the hierarchy
    before = junction_truth(g, src, dst, cost, banned)
    check_cch(w, g, before, node_runs)
    # close the first road of the longest finite route, slow another one down
    far = np.where(np.isfinite(before), before, -1.0)
    a, b = np.unravel_index(np.argmax(far), far.shape)
    first = g.path_edges(w.find_path("g", int(a), int(b), algorithm="cch").nodes)[0]
    now = close(w, g, cost, seg, first)
    now = close(w, g, now, seg, (first + 7) % g.csr.num_edges, 3.0)
    w.tick()
    assert view.current and view.customizations == 2
    after = junction_truth(g, src, dst, now, banned)
    assert (after > before + 1e-6).any()
    check_cch(w, g, after, node_runs)


def bounded_truth(src, dst, cost, banned, node_seeds, edge_seeds, limit):
    """``(junction costs, road entries)`` within ``limit``: the reference
    (``sequence_dijkstra``) from junctions ``node_seeds`` ({node: cost}:
    onto any road out) and edge states ``edge_seeds`` ([(edge, cost at
    its head)]) keeping the states settled within ``limit``: a junction
    costs the least of the states arriving at it (and of a source on it),
    a road is entered at the least cost of a state within the limit that
    may turn onto it (or of a source at its tail)."""
    seeds = [(e, c + cost[e]) for s, c in node_seeds.items() if c <= limit
             for e in range(len(src)) if src[e] == s] + list(edge_seeds)
    best = sequence_dijkstra(src, dst, cost, seeds, banned)
    node, entry = {}, {}
    for s, c in node_seeds.items():
        if c <= limit:
            node[s] = min(node.get(s, np.inf), c)
            for f in np.flatnonzero((src == s) & np.isfinite(cost)):
                entry[int(f)] = min(entry.get(int(f), np.inf), c)
    for state, d in best.items():
        if d > limit:
            continue
        v = int(dst[state[-1]])
        node[v] = min(node.get(v, np.inf), d)
        for f in np.flatnonzero((src == v) & np.isfinite(cost)):
            run = state + (int(f),)
            if not any(run[i:] in banned for i in range(len(run))):
                entry[int(f)] = min(entry.get(int(f), np.inf), d)
    return node, entry


def check_isochrone(w, g, src, dst, cost, banned, sources, point, k, limits):
    """Isochrones from junctions ``sources`` and the middle of reference
    edge ``k`` (``point``) in every band against ``bounded_truth``; ``g``
    is uncompressed, so reference edges are its segments."""
    node_of = g.node_source
    graph_node = {int(v): i for i, v in enumerate(node_of)}
    road = {(int(node_of[g.edge_src[e]]), int(node_of[g.csr.targets[e]])): e
            for e in range(g.csr.num_edges)}
    iso = w.isochrone("g", [*sources, point], limits)
    on = _point_states(src, dst, k)
    for b, limit in enumerate(limits):
        node, entry = bounded_truth(src, dst, cost, banned,
                                    {int(node_of[s]): 0.0 for s in sources},
                                    [(e, cost[e] / 2) for e in on], limit)
        mine = iso.band <= b
        want = sorted((graph_node[v], c) for v, c in node.items())
        assert iso.nodes[mine].tolist() == [v for v, c in want], (b, limit)
        assert np.allclose(iso.costs[mine], [c for v, c in want], rtol=0, atol=1e-4)
        edges, lo, hi = iso.segments(b)
        from_tail = edges[lo == 0]
        assert from_tail.size == np.unique(from_tail).size          # a road edge once
        got = dict(zip(from_tail.tolist(), hi[lo == 0].tolist()))
        want_edges = {road[int(src[f]), int(dst[f])]: f for f in entry}
        assert set(got) == set(want_edges), (b, limit)
        for e, f in want_edges.items():     # reached from its tail, the turn paid
            assert abs(got[e] - min(1.0, (limit - entry[f]) / cost[f])) < 1e-4
        # the point's own road from the point on, both ways it runs
        assert sorted(edges[lo > 0].tolist()) == \
            sorted(road[int(src[e]), int(dst[e])] for e in on if cost[e] < np.inf)
    return iso


@pytest.mark.parametrize("seed", range(4))
def test_random_grids_isochrones_match_the_bounded_sequence_reference(tmp_path, seed):
    w, g, _, src, dst, cost, banned, seg = grid_case(tmp_path, seed, False)
    rng = np.random.default_rng(300 + seed)
    limits = [10.0, 25.0, 45.0]
    lon, lat = g.segments.lon, g.segments.lat
    # junctions whose isochrone the via-way rules change (some must)
    pair_bans = {b for b in banned if len(b) == 2}
    cut = [s for s in range(g.num_nodes)
           if bounded_truth(src, dst, cost, banned, {int(g.node_source[s]): 0.0}, [],
                            limits[-1])
           != bounded_truth(src, dst, cost, pair_bans, {int(g.node_source[s]): 0.0}, [],
                            limits[-1])]
    assert cut
    for sources in ([int(rng.choice(cut))], rng.choice(g.num_nodes, 3, replace=False).tolist()):
        k = int(rng.integers(len(src)))
        point = ((lon[src[k]] + lon[dst[k]]) / 2, (lat[src[k]] + lat[dst[k]]) / 2)
        check_isochrone(w, g, src, dst, cost, banned, sources, point, k, limits)
    # after a closure, with a hierarchy that leaves isochrones alone
    contract(g)
    now = close(w, g, cost, seg, int(rng.integers(g.csr.num_edges)))
    w.tick()
    check_isochrone(w, g, src, dst, now, banned, sources, point, k, limits)
