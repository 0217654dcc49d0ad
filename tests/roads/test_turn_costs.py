"""A profile's turn costs (``turn_costs=True``): hand-made OSM junctions
with their turn angles and costs worked out here from OSRM's car.lua
formula, U-turns at dead ends only, left-hand traffic, merging with
restrictions and ``turns=`` tables, bad profile values, and Monaco against
a plain Dijkstra over the extract's segments (every move between two
segments costed here from the segments' bearings) for every algorithm,
matrices, pairs and (lon, lat) ends."""
import heapq
import math

import numpy as np
import pytest

import navcore
from navcore.errors import GraphError
from navcore_roads import contract
from navcore_roads.profiles import get_profile

from roadtruth import ROADS, project

ALGORITHMS = ("dijkstra", "astar", "bidijkstra", "auto")


def osrm_turn(angle, penalty=7.5, bias=1.075, left_hand=False):
    """car.lua's ``process_turn``: seconds of a turn by ``angle`` degrees
    (positive right), written out as OSRM writes it."""
    b = 1.0 / bias if left_hand else bias
    if angle >= 0:
        return penalty / (1 + math.exp(-((13 / b) * angle / 180 - 6.5 * b)))
    return penalty / (1 + math.exp(-((13 * b) * -angle / 180 - 6.5 / b)))


U_TURN = osrm_turn(-180) + 20.0          # across the traffic, plus u_turn_penalty


def osm_file(tmp_path, nodes, ways, relations="", name="x.osm"):
    """An OSM XML file: ``nodes`` {id: (lon, lat)}, ``ways`` [(id, [node
    ids], {tag: value})] (``highway=residential`` unless given)."""
    text = "".join(f'<node id="{i}" lon="{x}" lat="{y}"/>' for i, (x, y) in nodes.items())
    for wid, refs, tags in ways:
        tags = {"highway": "residential", **tags}
        text += (f'<way id="{wid}">' + "".join(f'<nd ref="{r}"/>' for r in refs)
                 + "".join(f'<tag k="{k}" v="{v}"/>' for k, v in tags.items()) + "</way>")
    path = tmp_path / name
    path.write_text(f'<osm version="0.6">{text}{relations}</osm>')
    return path


def load(path, **params):
    w = navcore.World()
    g = w.add_graph("g", type="roads", osm=path, max_snap=None, **params)
    return w, g


def node_index(g):
    return {int(o): i for i, o in enumerate(g.osm_ids)}


def extra_cost(path, pairs, **params):
    """Per (a, b) of OSM node ids: the route's cost with turn costs minus
    its cost with free turns, by every algorithm and the matrix (which
    must agree)."""
    w, g = load(path, turn_costs=True, **params)
    fw, fg = load(path, **params)
    assert fg.turns is None
    ix = node_index(g)
    out = []
    for a, b in pairs:
        free = fw.find_path("g", ix[a], ix[b]).cost
        costs = {w.find_path("g", ix[a], ix[b], algorithm=alg).cost for alg in ALGORITHMS}
        costs.add(float(w.distance_matrix("g", [ix[a]], [ix[b]])[0, 0]))
        assert max(costs) - min(costs) < 1e-9, costs
        out.append(costs.pop() - free)
    return out


# ------------------------------------------------------------- the profile

def test_car_profile_turn_costs_are_osrms():
    car = get_profile("car")
    assert (car.turn_penalty, car.turn_bias, car.u_turn_penalty, car.u_turns,
            car.driving_side) == (7.5, 1.075, 20.0, "dead_ends", "right")
    angles = [0.0, 45.0, 90.0, 135.0, 180.0, -45.0, -90.0, -180.0]
    assert np.allclose(car.turn_seconds(angles), [osrm_turn(a) for a in angles],
                       rtol=0, atol=1e-12)
    # right turns are cheaper in right-hand traffic, left ones in left-hand
    assert car.turn_seconds(90.0) < car.turn_seconds(-90.0)
    left = get_profile({"driving_side": "left"})
    assert np.allclose(left.turn_seconds(angles),
                       [osrm_turn(a, left_hand=True) for a in angles], rtol=0, atol=1e-12)
    # mirrored: a turn costs in left-hand traffic what its mirror image costs
    # in right-hand traffic (straight on and back aside: a >= 0 is "right")
    assert np.allclose(left.turn_seconds([45.0, -90.0, 135.0]),
                       car.turn_seconds([-45.0, 90.0, -135.0]), rtol=0, atol=1e-12)
    for name in ("bike", "foot"):
        assert not get_profile(name).has_turn_costs


@pytest.mark.parametrize("spec,match", [
    ({"turn_penalty": -1}, r"'turn_penalty' must be a number of seconds from 0 to 86400, "
                           r"not -1"),
    ({"turn_penalty": "7"}, r"'turn_penalty' must be a number of seconds from 0"),
    ({"turn_penalty": 1e308}, r"'turn_penalty' must be a number of seconds from 0 to 86400"),
    ({"u_turn_penalty": math.inf}, r"'u_turn_penalty' must be a number of seconds"),
    ({"u_turn_penalty": True}, r"'u_turn_penalty' must be a number of seconds"),
    ({"turn_bias": 0}, r"'turn_bias' must be a number from 0.01 to 100"),
    ({"turn_bias": 1e300}, r"'turn_bias' must be a number from 0.01 to 100"),
    ({"turn_bias": None}, r"'turn_bias' must be a number from"),
    ({"u_turns": "never"}, r"'u_turns' must be one of 'anywhere', 'dead_ends', not 'never'"),
    ({"driving_side": "middle"}, r"'driving_side' must be one of 'right', 'left'"),
    ({"driving_side": 1}, r"'driving_side' must be one of"),
])
def test_bad_turn_cost_values_are_graph_errors(spec, match):
    with pytest.raises(GraphError, match=match):
        get_profile(spec)


def test_turn_costs_need_a_profile(tmp_path):
    w = navcore.World()
    with pytest.raises(GraphError, match=r"turn_costs=True applies the profile of osm="):
        w.add_graph("a", type="roads", src=[0], dst=[1], cost=[1.0], turn_costs=True)
    with pytest.raises(navcore.NavError, match=r"turn_costs"):
        w.add_graph("a", type="roads", src=[0], dst=[1], cost=[1.0], turn_costs="yes")
    assert "a" not in w.graphs


# -------------------------------------------------------- a T junction

#        A --- B --- C       (lon, lat) = 0.001 * (-1, 0), (0, 0), (1, 0)
#              |
#              D             (0, -0.001)
T_NODES = {1: (-0.001, 0.0), 2: (0.0, 0.0), 3: (0.001, 0.0), 4: (0.0, -0.001)}
T_WAYS = [(10, [1, 2, 3], {}), (20, [2, 4], {})]


def test_t_junction_turns_cost_by_their_angle(tmp_path):
    path = osm_file(tmp_path, T_NODES, T_WAYS)
    # A->D: heading east, then south: right by 90; C->D left by 90; D->A
    # (north, then west) left; D->C right; A->C straight on (0 degrees)
    got = extra_cost(path, [(1, 4), (3, 4), (4, 1), (4, 3), (1, 3)])
    want = [osrm_turn(90), osrm_turn(-90), osrm_turn(-90), osrm_turn(90), osrm_turn(0)]
    assert np.allclose(got, want, rtol=0, atol=1e-9), (got, want)
    assert abs(want[0] - 2.1048) < 1e-3 and abs(want[1] - 5.3952) < 1e-3


def test_left_hand_traffic_makes_left_turns_cheap(tmp_path):
    path = osm_file(tmp_path, T_NODES, T_WAYS)
    got = extra_cost(path, [(1, 4), (3, 4)], profile={"driving_side": "left"})
    want = [osrm_turn(90, left_hand=True), osrm_turn(-90, left_hand=True)]
    assert np.allclose(got, want, rtol=0, atol=1e-9)
    assert np.isclose(want[0], osrm_turn(-90)) and want[0] > want[1]


def test_distance_weight_keeps_turns_free(tmp_path):
    path = osm_file(tmp_path, T_NODES, T_WAYS)
    assert extra_cost(path, [(1, 4), (3, 4)], weight="distance") == [0.0, 0.0]
    w, g = load(path, weight="distance", turn_costs=True)
    assert g.report["turn_costs"]["costed_turns"] == 0


def test_free_profiles_and_turn_costs_false_stay_on_the_junctions(tmp_path):
    path = osm_file(tmp_path, T_NODES, T_WAYS)
    for params in ({}, {"turn_costs": False}, {"turn_costs": True, "profile": "bike"},
                   {"turn_costs": True, "profile": "foot"},
                   {"turn_costs": True, "profile": {"turn_penalty": 0, "u_turn_penalty": 0,
                                                    "u_turns": "anywhere"}}):
        w, g = load(path, **params)
        assert g.turns is None and "turn_costs" not in g.report, params


# ------------------------------------------------------ a cross of five arms

#   N, E, S, W and SE arms around O, each a dead end 0.001 degrees away, at
#   the equator so the compass bearings out of O are exactly 0, 90, 180, 270
#   and 135 degrees
ARMS = {"N": (1, 0.0), "E": (2, 90.0), "S": (3, 180.0), "W": (4, 270.0), "SE": (5, 135.0)}


def test_cross_turns_cost_by_their_angle(tmp_path):
    nodes = {9: (0.0, 0.0)}
    for name, (i, bearing) in ARMS.items():
        r = math.radians(bearing)
        nodes[i] = (round(0.001 * math.sin(r), 12), round(0.001 * math.cos(r), 12))
    nodes[5] = (0.001, -0.001)                                      # exactly 135 degrees
    path = osm_file(tmp_path, nodes, [(10 * i, [9, i], {}) for i, _ in ARMS.values()])
    pairs, want = [], []
    for x, (i, bx) in ARMS.items():
        for y, (j, by) in ARMS.items():
            if x != y:
                heading = (bx + 180.0) % 360.0          # driving from arm x into O
                angle = (by - heading + 180.0) % 360.0 - 180.0
                pairs.append((i, j))
                want.append(osrm_turn(angle))
    assert sorted({round(abs(a), 6) for a in (
        ((ARMS[y][1] - (ARMS[x][1] + 180) + 180) % 360 - 180)
        for x in ARMS for y in ARMS if x != y)}) == [0.0, 45.0, 90.0, 135.0]
    got = extra_cost(path, pairs)
    assert np.allclose(got, want, rtol=0, atol=1e-9), list(zip(pairs, got, want))


# ---------------------------------------------- U-turns at dead ends only

#   A ==> B --- C --- E      A->B one way east; B-C-E two-way, E a dead
#         |                  end; B-D north to the dead end D; turning left
#         D                  from A-B onto B-D is forbidden
def dead_end_file(tmp_path, to_e=True):
    nodes = {1: (-0.001, 0.0), 2: (0.0, 0.0), 3: (0.001, 0.0), 4: (0.0, 0.001),
             5: (0.002, 0.0)}
    ways = [(12, [1, 2], {"oneway": "yes"}), (24, [2, 4], {}),
            (23, [2, 3, 5] if to_e else [2, 3], {})]
    rel = ('<relation id="1"><member type="way" ref="12" role="from"/>'
           '<member type="node" ref="2" role="via"/><member type="way" ref="24" role="to"/>'
           '<tag k="type" v="restriction"/><tag k="restriction" v="no_left_turn"/></relation>')
    if not to_e:
        del nodes[5]
    return osm_file(tmp_path, nodes, ways, rel)


def leg_costs(g):
    """Seconds of each directed road between neighbouring OSM nodes."""
    seg = g.segments
    return {(int(seg.node_id[a]), int(seg.node_id[b])): float(c)
            for a, b, c in zip(seg.src, seg.dst, g.seg_cost)}


def route_of(w, g, a, b, algorithm="auto"):
    ix = node_index(g)
    r = w.find_path("g", ix[a], ix[b], algorithm=algorithm)
    return r.cost, [int(g.osm_ids[v]) for v in r.nodes]


def test_u_turn_at_a_dead_end(tmp_path):
    # C is a dead end: round the forbidden left turn by a U-turn there
    w, g = load(dead_end_file(tmp_path, to_e=False), turn_costs=True, keep="all")
    c = leg_costs(g)
    want = (c[1, 2] + osrm_turn(0) + c[2, 3] + U_TURN + c[3, 2] + osrm_turn(90) + c[2, 4])
    for algorithm in ALGORITHMS:
        cost, nodes = route_of(w, g, 1, 4, algorithm)
        assert abs(cost - want) < 1e-9 and nodes == [1, 2, 3, 2, 4], (algorithm, nodes)
    assert g.report["turn_costs"]["forbidden_u_turns"] == 2      # at B, from C and from D


@pytest.mark.parametrize("compress", [True, False])
def test_u_turns_mid_road_are_forbidden_unless_the_profile_allows(tmp_path, compress):
    path = dead_end_file(tmp_path)
    w, g = load(path, turn_costs=True, keep="all", compress=compress)
    c = leg_costs(g)
    # C is not a dead end (the road goes on to E): turn back at E
    want = (c[1, 2] + osrm_turn(0) + c[2, 3] + c[3, 5] + U_TURN + c[5, 3] + c[3, 2]
            + osrm_turn(90) + c[2, 4])
    cost, nodes = route_of(w, g, 1, 4)
    assert abs(cost - want) < 1e-9 and 5 in nodes
    if not compress:
        # U-turns anywhere (at their cost): back at C; free turns: the same
        # way at no turn cost
        w, g = load(path, turn_costs=True, keep="all", compress=False,
                    profile={"u_turns": "anywhere"})
        want = (c[1, 2] + osrm_turn(0) + c[2, 3] + U_TURN + c[3, 2] + osrm_turn(90)
                + c[2, 4])
        assert np.isclose(route_of(w, g, 1, 4)[0], want, rtol=0, atol=1e-9)
        w, g = load(path, keep="all", compress=False)
        assert route_of(w, g, 1, 4) == (c[1, 2] + c[2, 3] + c[3, 2] + c[2, 4],
                                        [1, 2, 3, 2, 4])
        # a distance weight: no seconds, but the U-turn at C stays forbidden
        w, g = load(path, turn_costs=True, keep="all", compress=False, weight="distance")
        assert route_of(w, g, 1, 4)[1] == [1, 2, 3, 5, 3, 2, 4]


def test_restrictions_and_turn_costs_merge(tmp_path):
    # forbidden wins (the restriction's left turn stays forbidden although
    # the profile costs it), and the report counts what the profile added
    w, g = load(dead_end_file(tmp_path, to_e=False), turn_costs=True, keep="all")
    assert g.report["turns"]["forbidden_turns"] == 1
    assert g.turns.forbidden == 1 + 2
    report = g.report["turn_costs"]
    assert report["profile"] == "car" and report["rules"] == g.turns.num_rules
    assert report["bytes"] == 16 * g.turns.num_rules
    w, g = load(dead_end_file(tmp_path, to_e=False), turn_costs=True, keep="all",
                restrictions=False)
    c = leg_costs(g)
    assert np.isclose(route_of(w, g, 1, 4)[0], c[1, 2] + osrm_turn(-90) + c[2, 4])


def test_turns_table_costs_add_to_the_profiles(tmp_path):
    # GeoJSON roads: a turns= cost of 5 s on the T's right turn A->D comes on
    # top of the profile's
    def xy(i):
        return list(T_NODES[i])
    roads = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"id": wid},
         "geometry": {"type": "LineString", "coordinates": [xy(i) for i in refs]}}
        for wid, refs, _ in T_WAYS]}
    fw, w = navcore.World(), navcore.World()
    fg = fw.add_graph("g", type="roads", geojson=roads)
    g = w.add_graph("g", type="roads", geojson=roads, turns=[[10, 20, 5.0]], turn_costs=True)

    def at(graph, i):
        return int(np.flatnonzero(np.all(np.isclose(graph.positions, T_NODES[i]), axis=1))[0])
    base = fw.find_path("g", at(fg, 1), at(fg, 4)).cost
    for algorithm in ALGORITHMS:
        got = w.find_path("g", at(g, 1), at(g, 4), algorithm=algorithm).cost
        assert np.isclose(got - base, 5.0 + osrm_turn(90), rtol=0, atol=1e-9), algorithm


# ------------------------------------------------- Monaco against the truth

def segment_reference(g, seeds, left_hand=False):
    """Cheapest cost onto every kept segment of ``g``'s source roads from
    ``seeds`` ({segment: cost on reaching its end}), where going from
    segment ``s`` (a -> v) onto segment ``t`` (v -> c) costs ``t``'s cost
    plus, computed here from the nodes' coordinates: a U-turn (c == a)
    ``osrm_turn(-180) + 20``, forbidden unless every segment out of v goes
    back to a; at a node of three or more roads (distinct neighbours) a
    turn by the bearing of ``t`` minus that of ``s``; else nothing."""
    seg = g.segments
    kept = [k for k in range(seg.num_segments) if g.seg_edge[k] >= 0]
    src, dst, lon, lat = seg.src, seg.dst, seg.lon, seg.lat
    out, near = {}, {}
    for k in kept:
        out.setdefault(int(src[k]), []).append(k)
        near.setdefault(int(src[k]), set()).add(int(dst[k]))
        near.setdefault(int(dst[k]), set()).add(int(src[k]))

    def bearing(p, q):
        dx = (lon[q] - lon[p]) * math.cos(math.radians(0.5 * (lat[p] + lat[q])))
        return math.degrees(math.atan2(dx, lat[q] - lat[p]))

    def turn(s, t):
        a, v, c = int(src[s]), int(dst[s]), int(dst[t])
        if c == a:
            if any(int(dst[x]) != a for x in out[v]):
                return math.inf
            return osrm_turn(180 if left_hand else -180, left_hand=left_hand) + 20.0
        if len(near[v]) <= 2:
            return 0.0
        angle = (bearing(v, c) - bearing(a, v) + 180.0) % 360.0 - 180.0
        return osrm_turn(180.0 if angle == -180.0 else angle, left_hand=left_hand)

    best = {}
    heap = [(c, s) for s, c in seeds.items()]
    heapq.heapify(heap)
    while heap:
        d, s = heapq.heappop(heap)
        if s in best:
            continue
        best[s] = d
        for t in out.get(int(dst[s]), []):
            if t not in best:
                extra = turn(s, t)
                if extra < math.inf:
                    heapq.heappush(heap, (d + float(g.seg_cost[t]) + extra, t))
    return best, turn


def reverse_segment(g, s):
    seg = g.segments
    back = np.flatnonzero((seg.src == seg.dst[s]) & (seg.dst == seg.src[s]) & (g.seg_edge >= 0))
    return int(back[0]) if back.size else None


def point_seeds(g, snap):
    """Seeds of a search from a point at fraction ``t`` of segment ``s``:
    the rest of ``s`` and the part of its reverse back to ``s``'s start."""
    s, t = snap
    seeds = {s: (1.0 - t) * float(g.seg_cost[s])}
    r = reverse_segment(g, s)
    if r is not None:
        seeds[r] = t * float(g.seg_cost[r])
    return seeds


def to_point(g, best, turn, snap):
    """Cost onto a point at fraction ``t`` of segment ``s`` (either way)."""
    s, t = snap
    seg = g.segments
    out = math.inf
    for k, part in ((s, t), (reverse_segment(g, s), 1.0 - t)):
        if k is None:
            continue
        for e, d in best.items():
            if seg.dst[e] == seg.src[k]:
                out = min(out, d + turn(e, k) + part * float(g.seg_cost[k]))
    return out


@pytest.fixture(scope="module", params=[True, False], ids=["compressed", "every_node"])
def monaco(request):
    # the reference is the same for both: a U-turn mid-road is forbidden,
    # whether the road's middle nodes are graph nodes or not
    if not (ROADS / "monaco.osm.gz").exists():
        pytest.skip("the shared Monaco extract is not here")
    w = navcore.World()
    g = w.add_graph("m", type="roads", osm=ROADS / "monaco.osm.gz", restrictions=False,
                    turn_costs=True, max_snap=None, compress=request.param)
    return w, g, request.param


def test_monaco_matches_the_segment_reference(monaco):
    w, g, compress = monaco
    seg = g.segments
    rng = np.random.default_rng(11)
    sources = rng.choice(g.num_nodes, 5, replace=False)
    targets = rng.choice(g.num_nodes, 25, replace=False)
    truth = np.empty((sources.size, targets.size))
    for i, s in enumerate(sources):
        v = int(g.node_source[s])
        best, _ = segment_reference(g, {k: float(g.seg_cost[k]) for k in
                                        np.flatnonzero((seg.src == v) & (g.seg_edge >= 0))})
        for j, t in enumerate(targets):
            into = [d for k, d in best.items() if seg.dst[k] == g.node_source[t]]
            truth[i, j] = 0.0 if s == t else min(into, default=np.inf)
    w.add_graph("free", type="roads", osm=ROADS / "monaco.osm.gz", restrictions=False,
                compress=compress)
    got = w.distance_matrix("m", sources, targets)
    assert np.allclose(got, truth, rtol=0, atol=1e-6)
    pairs = w.distance_pairs("m", np.repeat(sources, 5), targets)
    assert np.allclose(pairs, truth[np.repeat(np.arange(5), 5), np.arange(25)], rtol=0,
                       atol=1e-6)
    for i, s in enumerate(sources):
        for j in range(5 * i, 5 * i + 5):
            for algorithm in ALGORITHMS:
                r = w.find_path("m", int(s), int(targets[j]), algorithm=algorithm)
                assert abs(r.cost - truth[i, j]) < 1e-6, (algorithm, s, targets[j])
    # turn costs make routes slower than free turns, never faster
    free = w.distance_matrix("free", sources, targets)
    assert (free <= truth + 1e-9).all() and (free < truth - 1.0).mean() > 0.5
    contract(g)
    assert np.allclose(w.distance_matrix("m", sources, targets), truth, rtol=0, atol=1e-6)
    for i, s in enumerate(sources):
        r = w.find_path("m", int(s), int(targets[i]), algorithm="ch")
        assert r.algorithm == "ch" and abs(r.cost - truth[i, i]) < 1e-6


def test_monaco_point_ends_match_the_segment_reference(monaco):
    w, g, _ = monaco
    rng = np.random.default_rng(5)
    lon0, lat0 = g.positions.min(axis=0)
    lon1, lat1 = g.positions.max(axis=0)
    pts = np.column_stack((rng.uniform(lon0, lon1, 12), rng.uniform(lat0, lat1, 12)))
    snaps = project(g, pts)
    # eight points on eight different segments (no route along one segment)
    first = sorted({s: k for k, (s, _) in reversed(list(enumerate(snaps)))}.values())[:8]
    pts, snaps = pts[first], [snaps[k] for k in first]
    starts, goals = pts[:4], pts[4:]
    truth = np.empty((4, 4))
    for i in range(4):
        best, turn = segment_reference(g, point_seeds(g, snaps[i]))
        for j in range(4):
            truth[i, j] = to_point(g, best, turn, snaps[4 + j])
    got = w.distance_matrix("m", starts, goals)
    assert np.allclose(got, truth, rtol=0, atol=1e-6), (got, truth)
    assert np.allclose(w.distance_pairs("m", starts, goals), np.diag(truth), rtol=0,
                       atol=1e-6)
    contract(g)             # ch between points: a search over the edges all the same
    for i in range(4):
        for algorithm in ALGORITHMS + ("ch",):
            r = w.find_path("m", tuple(starts[i]), tuple(goals[i]), algorithm=algorithm)
            assert abs(r.cost - truth[i, i]) < 1e-6, (algorithm, i)
    # a junction to a point
    s = int(g.node_source[0])
    best, turn = segment_reference(g, {k: float(g.seg_cost[k]) for k in np.flatnonzero(
        (g.segments.src == s) & (g.seg_edge >= 0))})
    want = [to_point(g, best, turn, snaps[4 + j]) for j in range(4)]
    assert np.allclose(w.distance_matrix("m", [0], goals)[0], want, rtol=0, atol=1e-6)


# ------------------------------------------------------------------ scenes

def test_scenes_take_turn_costs_and_check_the_profile(tmp_path):
    path = osm_file(tmp_path, T_NODES, T_WAYS)
    scene = tmp_path / "t.yaml"
    spec = ("name: t\ngraphs:\n  - {id: s, type: roads, osm: x.osm, turn_costs: true,\n"
            "     profile: {driving_side: left, u_turns: anywhere, turn_penalty: 6}}\n")
    scene.write_text(spec)
    g = navcore.load_scene(scene).world.graph("s")
    assert g.profile.driving_side == "left" and g.profile.turn_penalty == 6.0
    assert g.report["turn_costs"]["forbidden_u_turns"] == 0 and g.turns is not None
    assert path.exists()
    scene.write_text(spec.replace("left", "centre"))
    with pytest.raises(navcore.NavError, match=r"'driving_side' must be one of 'right', "
                                               r"'left', not 'centre'"):
        navcore.load_scene(scene)
