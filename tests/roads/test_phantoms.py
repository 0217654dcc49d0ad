"""Points snap onto the nearest road segment (a phantom node on its edge):
routes, matrices and pairs between points equal scipy's Dijkstra on the
segment graph with the snapped segments split at the projected points
(both directions of a two-way road, one of a one-way road), for every
road algorithm; points beyond ``max_snap`` are invalid; a (lat, lon) swap
is named."""
import numpy as np
import pytest

import navcore
import navcore_roads

from roadtruth import NAMES, close, extract_world, phantom_reference as reference

ALGORITHMS = ("dijkstra", "astar", "bidijkstra", "ch", "cch")


def near_road_points(graph, rng, k, spread=0.0006):
    """Points beside random segments of the graph (within ~70 m)."""
    seg = graph.segments
    on = np.flatnonzero(graph.seg_edge >= 0)
    s = rng.choice(on, k)
    t = rng.random(k)
    lon = seg.lon[seg.src[s]] + t * (seg.lon[seg.dst[s]] - seg.lon[seg.src[s]])
    lat = seg.lat[seg.src[s]] + t * (seg.lat[seg.dst[s]] - seg.lat[seg.src[s]])
    return np.column_stack((lon + rng.normal(0, spread / 3, k), lat + rng.normal(0, spread / 3,
                                                                                 k)))


@pytest.fixture(scope="module", params=NAMES)
def extract(request):
    return extract_world(request.param)


def test_phantom_routes_equal_scipy_on_the_split_graph(extract):
    name, w, g = extract
    rng = np.random.default_rng(32)
    starts, goals = near_road_points(g, rng, 12), near_road_points(g, rng, 12)
    want = reference(g, starts, goals)
    navcore_roads.contract(g)
    navcore_roads.contract(g, customizable=True)
    assert navcore_roads.snap(g, starts).edges.max() >= 0
    for algorithm in ALGORITHMS:
        got = np.array([w.find_path(name, tuple(a), tuple(b), algorithm=algorithm).cost
                        for a, b in zip(starts, goals)])
        assert close(got, np.diag(want)), algorithm
    # matrices and pairs by the hierarchies, and by the searches without one
    assert close(w.distance_matrix(name, starts, goals), want)
    assert close(w.distance_pairs(name, starts, goals), np.diag(want))


def test_phantom_matrices_without_a_hierarchy_agree_with_find_path(extract):
    name, _, g = extract
    w = navcore.World()
    seg = g.segments
    h = w.add_graph("h", type="roads", src=seg.src, dst=seg.dst, length=seg.length,
                    speed=seg.speed, positions=np.column_stack((seg.lon, seg.lat)),
                    compress=True)
    rng = np.random.default_rng(7)
    pts = near_road_points(h, rng, 8)
    nodes = rng.integers(0, h.num_nodes, 3)
    m = w.distance_matrix("h", pts, pts)
    assert close(m, reference(h, pts, pts))
    each = np.array([[w.find_path("h", tuple(a), tuple(b)).cost for b in pts] for a in pts])
    assert close(m, each)
    # points on one side, node ids on the other
    mixed = w.distance_matrix("h", pts, nodes)
    assert close(mixed, [[w.find_path("h", tuple(a), int(v)).cost for v in nodes]
                         for a in pts])
    assert close(w.distance_pairs("h", pts[:3], nodes), np.diag(mixed[:3]))
    # ids and points mixed on one side: each entry as find_path reads it
    ends = [tuple(pts[0]), int(nodes[0]), tuple(pts[1]), int(nodes[1])]
    want = [[w.find_path("h", a, b).cost for b in ends] for a in ends]
    assert close(w.distance_matrix("h", ends, ends), want)
    assert close(w.distance_pairs("h", ends, ends[::-1]), np.diag(np.array(want)[:, ::-1]))


def line_world(oneway, **params):
    """Three junctions on a line along the equator, 0 - 1 - 2, each road two
    segments (a middle node that only continues the road), and a spur
    to node 3 so 1 is a junction."""
    w = navcore.World()
    pos = [(0.0, 0.0), (0.001, 0.0), (0.002, 0.0), (0.003, 0.0), (0.004, 0.0),
           (0.002, 0.001)]
    src, dst = [0, 1, 2, 3, 2], [1, 2, 3, 4, 5]
    g = w.add_graph("l", type="roads", src=src, dst=dst, positions=pos, speed=36.0,
                    oneway=oneway, compress=True, keep="all", **params)
    return w, g


@pytest.mark.parametrize("oneway", [False, True])
def test_same_edge_start_and_goal_both_directions(oneway):
    w, g = line_world(oneway)
    a, b = (0.0004, 0.00001), (0.0016, -0.00001)
    fwd, back = w.find_path("l", a, b), w.find_path("l", b, a)
    want = reference(g, [a, b], [a, b])
    assert close(fwd.cost, want[0, 1]) and close(back.cost, want[1, 0])
    assert fwd.found and fwd.nodes.size == 0                   # along the road, no junction
    assert np.allclose(fwd.points[0], (0.0004, 0.0)) and np.allclose(fwd.points[-1],
                                                                      (0.0016, 0.0))
    assert fwd.points.shape[0] == 3                            # through the middle node
    if oneway:
        assert not back.found                                  # against the one-way road
    else:
        assert close(back.cost, fwd.cost)
    assert close(w.distance_matrix("l", [a, b], [a, b]), want)


def test_one_way_start_goes_forward_and_goal_is_reached_from_behind():
    w, g = line_world(True)
    start, goal = (0.0025, 0.00002), (0.0035, 0.0)      # on 2 -> 4 (one way), 1 -> 2 side
    r = w.find_path("l", start, goal)
    want = reference(g, [start], [goal])
    assert close(r.cost, want[0, 0])
    assert not w.find_path("l", goal, start).found
    # routes start and end at the snapped points; nodes are the junctions between
    r = w.find_path("l", (0.0005, 0.0), (0.0035, 0.0))
    assert np.allclose(r.points[0], (0.0005, 0.0)) and np.allclose(r.points[-1],
                                                                    (0.0035, 0.0))
    assert r.nodes.tolist() == [g.locate((0.002, 0.0))]
    assert close(r.cost, reference(g, [(0.0005, 0.0)], [(0.0035, 0.0)])[0, 0])


def test_points_beyond_max_snap_are_invalid_and_none_is_unlimited():
    w, g = line_world(False)
    off = (0.001, 0.01)                                        # ~1,000 m north of the road
    assert w.find_path("l", off, (0.0, 0.0)).status is navcore.PathStatus.INVALID_START
    assert w.find_path("l", (0.0, 0.0), off).status is navcore.PathStatus.INVALID_GOAL
    s = navcore_roads.snap(g, [off, (0.001, 0.001)])
    assert s.valid.tolist() == [False, True] and s.nodes[0] == -1
    # nearest: the spur's end (0.002, 0.001)
    assert abs(s.metres[0] - navcore_roads.haversine_m(0.001, 0.01, 0.002, 0.001)) < 1e-6
    with pytest.raises(navcore.NodeError, match="outside"):
        w.distance_matrix("l", [off], [(0.0, 0.0)])
    w2, g2 = line_world(False, max_snap=None)
    assert w2.find_path("l", off, (0.0, 0.0)).found
    w3, _ = line_world(False, max_snap=2000)
    assert w3.find_path("l", off, (0.0, 0.0)).found
    for bad in (0, -5, "far", True):
        with pytest.raises(navcore.GraphError, match="max_snap"):
            line_world(False, max_snap=bad)


def test_a_graph_without_roads_places_no_point():
    w = navcore.World()
    g = w.add_graph("one", type="roads", src=[0], dst=[1], positions=[(0, 0), (0.001, 0)],
                    speed=36.0)                    # one way: its largest SCC is one node
    assert g.csr.num_edges == 0
    assert w.find_path("one", (0.0, 0.0), (0.001, 0.0)).status is \
        navcore.PathStatus.INVALID_START
    s = navcore_roads.snap(g, [(0.0, 0.0)])
    assert s.nodes.tolist() == [-1] and not s.valid.any()


def test_swapped_lat_lon_is_a_node_error_with_a_hint():
    w = navcore.World()
    pos = [(120.0, 30.0), (120.001, 30.0), (120.002, 30.0)]
    w.add_graph("c", type="roads", src=[0, 1], dst=[1, 2], positions=pos, speed=36.0,
                oneway=False)
    with pytest.raises(navcore.NodeError, match=r"read as \(lat, lon\)"):
        w.find_path("c", (30.0, 120.0005), (120.0, 30.0))
    with pytest.raises(navcore.NodeError, match="not a \\(lon, lat\\)") as err:
        w.find_path("c", (30.0, 100.0), (120.0, 30.0))        # swapped, but far away
    assert "read as" not in str(err.value)
    with pytest.raises(navcore.NodeError, match="not a \\(lon, lat\\)"):
        w.distance_matrix("c", [(30.0, 120.0005)], [(120.0, 30.0)])
    with pytest.raises(navcore.NodeError):
        w.find_path("c", (float("nan"), 30.0), (120.0, 30.0))


def test_closed_roads_are_not_snapped_to_and_request_path_uses_phantoms():
    w, g = line_world(False)
    a, b = (0.0004, 0.0), (0.0035, 0.0)
    before = w.find_path("l", a, b)
    u, v = g.locate((0.0, 0.0)), g.locate((0.002, 0.0))
    w.update("l", edges=[(u, v), (v, u)], cost=np.inf)      # both ways: the road is closed
    w.tick()
    s = navcore_roads.snap(g, [a])
    assert np.allclose(s.points[0], (0.002, 0.0))          # the nearest open road
    r = w.find_path("l", a, b)
    assert r.found and np.allclose(r.points[0], (0.002, 0.0))
    assert close(r.cost, reference(g, [a], [b])[0, 0])
    w.update("l", edges=[(u, v), (v, u)], reset=True)
    w.tick()
    h = w.scheduler.request_path("l", a, b)
    for _ in range(20):
        w.tick()
        if h.done:
            break
    assert h.done and close(h.result().cost, before.cost)
    assert np.allclose(h.result().points[0], (0.0004, 0.0))
