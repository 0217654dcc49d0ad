"""Closures and traffic: after each tick every answer equals scipy's on
the graph as it now is, and nothing changes when an update is refused."""
import numpy as np
import pytest

import navcore

from roadtruth import close, npz_segments, scipy_distances


def monaco(weight="time"):
    from navcore_roads.network import build_road_graph
    w = navcore.World()
    g = build_road_graph(npz_segments("monaco"), weight=weight)
    g.graph_id = "m"
    g.kind = "roads"
    w.graphs["m"] = g
    return w, g


def check_all_queries(w, g, rng, k=25):
    s = rng.integers(0, g.num_nodes, k)
    t = rng.integers(0, g.num_nodes, k)
    ref = scipy_distances(g, s)
    want = ref[np.arange(k), t]
    assert close(w.distance_pairs("m", s, t), want)
    assert close(w.distance_matrix("m", s, t), ref[:, t])
    for algorithm in ("dijkstra", "astar", "bidijkstra"):
        got = [w.find_path("m", int(a), int(b), algorithm=algorithm).cost
               for a, b in zip(s[:8], t[:8])]
        assert close(got, want[:8]), algorithm


def test_every_kind_of_update_keeps_answers_exact():
    w, g = monaco()
    rng = np.random.default_rng(0)
    ways = np.unique(g.segments.way[g.seg_edge >= 0])
    lon, lat = g.positions[:, 0], g.positions[:, 1]
    mid = (np.median(lon), np.median(lat))
    box = (mid[0] - 0.002, mid[1] - 0.002, mid[0] + 0.002, mid[1] + 0.002)
    steps = [dict(osm_way=int(ways[3]), cost=np.inf),
             dict(osm_way=[int(x) for x in ways[10:40]], factor=3.0),
             dict(bbox=box, speed=5.0),
             dict(edges=[(int(g.edge_src[0]), int(g.csr.targets[0]))], cost=float("inf")),
             dict(nodes=[5, 6, 7], walkable=False),
             dict(bbox=box, reset=True),
             dict(osm_way=[int(x) for x in ways[10:20]], factor=1.0),
             dict(nodes=[5, 6, 7], walkable=True)]
    before = g.csr.cost.copy()
    for params in steps:
        version = g.version
        w.update("m", **params)
        w.tick()
        assert g.version == version + 1
        check_all_queries(w, g, rng)
    w.update("m", osm_way=[int(x) for x in ways], reset=True)
    w.tick()
    assert np.array_equal(g.csr.cost, before)            # reset is the loaded state


def test_factor_is_relative_to_free_flow_and_speed_sets_time():
    w, g = monaco()
    way = int(g.segments.way[g.chain[0]])
    segs = np.flatnonzero(g.segments.way == way)
    free = g.seg_cost[segs].copy()
    w.update("m", osm_way=way, factor=2.0)
    w.update("m", osm_way=way, factor=3.0)                # later wins, not 6x
    w.tick()
    assert np.allclose(g.seg_cost[segs], 3 * free)
    w.update("m", osm_way=way, speed=36.0)
    w.tick()
    assert np.allclose(g.seg_cost[segs], 3 * g.segments.length[segs] / 10.0)
    w.update("m", osm_way=way, cost=np.inf)
    w.update("m", osm_way=way, factor=1.0)                 # does not reopen
    w.tick()
    assert np.isinf(g.seg_cost[segs]).all()


def test_a_jam_on_part_of_a_compressed_edge_costs_only_that_part():
    w, g = monaco()
    lengths = np.diff(g.chain_start)
    e = int(np.argmax(lengths))                            # the longest chain
    segs = g.edge_segments(e)
    ways = np.unique(g.segments.way[segs])
    one = segs[g.segments.way[segs] == ways[0]]
    before = g.csr.cost[e]
    w.update("m", osm_way=int(ways[0]), factor=2.0)
    w.tick()
    if ways.size > 1:
        assert g.csr.cost[e] < 2 * before
    assert np.isclose(g.csr.cost[e], before + g.seg_cost[one].sum() / 2)


def test_distance_graphs_refuse_speed_and_bad_updates_change_nothing():
    w, g = monaco("distance")
    version, cost = g.version, g.csr.cost.copy()
    bad = [dict(bbox=(7.42, 43.73, 7.43, 43.74), speed=50.0),     # weight is distance
           dict(osm_way=-5, cost=np.inf),                 # no such way
           dict(osm_way=int(g.segments.way[0]), cost=5.0),
           dict(osm_way=int(g.segments.way[0]), factor=0.0),
           dict(osm_way=int(g.segments.way[0]), factor=True),
           dict(osm_way=int(g.segments.way[0]), reset=1),
           dict(bbox=(0, 0, 1), factor=2.0),
           dict(bbox=(0, 0, 1, 100), factor=2.0),
           dict(edges=[(0, 0)], cost=np.inf),             # no such edge
           dict(edges=[(0, g.num_nodes)], cost=np.inf),
           dict(nodes=[0], factor=2.0),
           dict(nodes=[0], walkable="no"),
           dict(osm_way=1, bbox=(0, 0, 1, 1), factor=2.0),
           dict(osm_way=1),
           dict(lanes=2)]
    for params in bad:
        with pytest.raises(navcore.UpdateError):
            w.update("m", **params)
    w.tick()
    assert g.version == version and np.array_equal(g.csr.cost, cost)


def test_boxes_are_bbox_west_south_east_north_and_rect_is_refused():
    w, g = monaco()
    version, cost = g.version, g.csr.cost.copy()
    harbour = (7.4225, 43.7345, 7.4255, 43.7362)
    x, y = harbour[0], harbour[1]
    for params, says in [
            # the trap: a planar (x, y, w, h) box, or rect= at all
            (dict(rect=harbour, cost=np.inf), r"bbox=\(west, south, east, north\).*not rect="),
            (dict(bbox=(x, y, 0.003, 0.0017), cost=np.inf), "needs west < east"),
            (dict(bbox=harbour[2:] + harbour[:2], cost=np.inf), "needs west < east"),
            (dict(bbox=(y, x, y + 0.001, x + 0.001), factor=2.0),
             r"lies outside road graph 'm' .* looks like \(south, west, north, east\)"),
            (dict(bbox=(0, 0, 1, 1), factor=2.0), r"lies outside road graph 'm' \(lon"),
            (dict(bbox=(x, 89, x + 1, 91), factor=2.0), r"within ±90"),
            (dict(bbox=(-181, 0, 1, 1), factor=2.0), r"within ±180"),
            (dict(bbox=(0, np.nan, 1, 1), factor=2.0), "bbox must be"),
            (dict(bbox="harbour", factor=2.0), "bbox must be")]:
        with pytest.raises(navcore.UpdateError, match=says):
            w.update("m", **params)
    w.tick()
    assert g.version == version and np.array_equal(g.csr.cost, cost)
    # the box selects the roads with a segment end inside it (a reference by hand)
    seg = g.segments
    inside = ((seg.lon >= harbour[0]) & (seg.lon <= harbour[2]) & (seg.lat >= harbour[1])
              & (seg.lat <= harbour[3]))
    want = np.flatnonzero((inside[seg.src] | inside[seg.dst]) & (g.seg_edge >= 0))
    assert want.size > 0
    w.update("m", bbox=harbour, cost=np.inf)
    w.tick()
    assert np.flatnonzero(np.isinf(g.seg_cost)).tolist() == want.tolist()
