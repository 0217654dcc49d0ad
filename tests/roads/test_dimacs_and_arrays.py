"""Roads from DIMACS files and arrays: every answer equals scipy's
Dijkstra, and the shared extracts' truth files."""
import numpy as np
import pytest

import navcore
import navcore_roads
from navcore_roads.io.dimacs import read_dimacs
from navcore_roads.network import build_road_graph

from roadtruth import NAMES, ROADS, close, matrix, need, npz_segments, pairs, scipy_distances


def dimacs_world(name, **params):
    need(name)
    w = navcore.World()
    g = w.add_graph(name, type="roads", dimacs=ROADS / f"{name}.gr",
                    coords=ROADS / f"{name}.co", **params)
    return w, g


@pytest.mark.parametrize("name", NAMES)
def test_dimacs_pairs_equal_the_truth_exactly(name):
    w, g = dimacs_world(name, keep="all")
    assert g.num_nodes == g.segments.num_nodes            # DIMACS ids stay the node ids
    p = pairs(name)
    s, t = p["source"].astype(int), p["target"].astype(int)
    for algorithm in ("dijkstra", "astar", "bidijkstra"):
        got = [w.find_path(name, int(a), int(b), algorithm=algorithm).cost
               for a, b in zip(s[:150], t[:150])]
        assert np.array_equal(got, p["dimacs_dm"][:150]), algorithm
    assert np.array_equal(w.distance_pairs(name, s, t), p["dimacs_dm"])


@pytest.mark.parametrize("name", NAMES)
def test_dimacs_matrix_and_unreachable_pairs(name):
    w, g = dimacs_world(name, keep="all")
    m = matrix(name)
    assert np.array_equal(w.distance_matrix(name, m["sources"], m["targets"]), m["dimacs_dm"])
    assert np.array_equal(w.distance_matrix(name, m["sources"][:7], m["targets"]),
                          m["dimacs_dm"][:7])
    assert np.array_equal(w.distance_matrix(name, m["sources"], m["targets"][:7]),
                          m["dimacs_dm"][:, :7])
    anyp = pairs(name, "pairs_any")
    got = w.distance_pairs(name, anyp["source"].astype(int), anyp["target"].astype(int))
    assert np.array_equal(got, anyp["dimacs_dm"])
    assert np.isinf(got).sum() == np.isinf(anyp["dimacs_dm"]).sum() > 0


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("weight,column", [("time", "time_s"), ("distance", "length_m")])
def test_compressed_graph_keeps_every_distance(name, weight, column):
    """Chains of degree-2 nodes fold into edges; between the nodes that stay,
    every distance is the truth's (computed on the full graph)."""
    g = build_road_graph(npz_segments(name), weight=weight, keep="all")
    assert g.num_nodes < g.segments.num_nodes / 3           # several times smaller
    w = navcore.World()
    w.graphs[name] = g                                      # as add_graph would
    g.graph_id = name
    raw_to_node = np.full(g.segments.num_nodes, -1)
    raw_to_node[g.node_source] = np.arange(g.num_nodes)
    m = matrix(name)
    rows, cols = raw_to_node[m["sources"]], raw_to_node[m["targets"]]
    ri, ci = np.flatnonzero(rows >= 0), np.flatnonzero(cols >= 0)
    assert ri.size > 10 and ci.size > 10
    got = w.distance_matrix(name, rows[ri], cols[ci])
    assert np.allclose(got, m[column][np.ix_(ri, ci)], rtol=0, atol=1e-5)
    p = pairs(name)
    a, b = raw_to_node[p["source"].astype(int)], raw_to_node[p["target"].astype(int)]
    ok = (a >= 0) & (b >= 0)
    assert np.allclose(w.distance_pairs(name, a[ok], b[ok]), p[column][ok], rtol=0, atol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_largest_scc_matches_the_truth_and_reports_what_was_dropped(name):
    import json
    _, g = dimacs_world(name)            # skips when the shared data is not beside the repo
    stats = json.loads((ROADS / f"{name}.stats.json").read_text())
    assert g.num_nodes == stats["largest_scc"]
    dropped = g.report["dropped"]["not in the largest strongly connected component"]
    assert dropped["nodes"] == stats["nodes"] - stats["largest_scc"]
    assert dropped["components"] == stats["scc_count"] - 1


def test_route_points_follow_the_whole_road():
    g = build_road_graph(npz_segments("monaco"), keep="largest_scc")
    w = navcore.World()
    w.graphs["m"] = g
    g.graph_id = "m"
    r = w.find_path("m", 0, g.num_nodes - 1)
    assert r.found and r.points.shape[0] > r.nodes.size      # shape points between junctions
    seg = g.segments
    # consecutive points are the ends of one segment of the source data
    lonlat = {(x, y): i for i, (x, y) in enumerate(zip(seg.lon, seg.lat))}
    idx = [lonlat[tuple(p)] for p in r.points]
    pairs_ = set(zip(seg.src.tolist(), seg.dst.tolist()))
    assert all((a, b) in pairs_ for a, b in zip(idx, idx[1:]))
    assert np.allclose(r.points[[0, -1]], g.positions[[r.nodes[0], r.nodes[-1]]])
    # every search draws the road it found as route_points draws its edges
    # (segment by segment through the source data)
    navcore_roads.contract(g)
    for algorithm in ("ch", "dijkstra", "astar", "bidijkstra"):
        q = w.find_path("m", 0, g.num_nodes - 1, algorithm=algorithm)
        assert np.array_equal(q.points, g.route_points(g.path_edges(q.nodes))), algorithm


def arrays_world(rng, n=60, **params):
    lon = 10 + rng.random(n) * 0.05
    lat = 50 + rng.random(n) * 0.05
    m = n * 3
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    w = navcore.World()
    g = w.add_graph("r", type="roads", src=src, dst=dst, positions=np.column_stack((lon, lat)),
                    speed=rng.choice([20.0, 50.0, 90.0], m), oneway=rng.random(m) < 0.3,
                    keep="all", **params)
    return w, g


@pytest.mark.nojit
@pytest.mark.parametrize("seed", range(3))
def test_arrays_every_algorithm_equals_scipy(seed):
    rng = np.random.default_rng(seed)
    w, g = arrays_world(rng, n=40)
    src = rng.integers(0, g.num_nodes, 12)
    dst = rng.integers(0, g.num_nodes, 12)
    ref = scipy_distances(g, src)
    want = ref[np.arange(12), dst]
    for algorithm in ("dijkstra", "astar", "bidijkstra", "auto"):
        got = [w.find_path("r", int(a), int(b), algorithm=algorithm).cost
               for a, b in zip(src, dst)]
        assert close(got, want), algorithm
    assert close(w.distance_pairs("r", src, dst), want)
    assert close(w.distance_matrix("r", src, dst), ref[:, dst])
    assert close(w.distance_matrix("r", src[:3], dst), ref[:3][:, dst])


@pytest.mark.parametrize("seed", range(4))
def test_compressed_arrays_equal_scipy_on_the_full_graph(seed):
    rng = np.random.default_rng(seed)
    # a long two-way chain with one-way stretches and spurs: lots to compress
    n = 200
    src = np.arange(n - 1)
    dst = src + 1
    oneway = rng.random(n - 1) < 0.2
    spurs = rng.integers(0, n, 15)
    src = np.concatenate((src, spurs, rng.integers(0, n, 5)))
    dst = np.concatenate((dst, rng.integers(0, n, 15), rng.integers(0, n, 5)))
    oneway = np.concatenate((oneway, rng.random(20) < 0.5))
    pos = np.column_stack((np.linspace(0, 0.2, n), rng.random(n) * 1e-3))
    full = navcore.World()
    fg = full.add_graph("f", type="roads", src=src, dst=dst, positions=pos, speed=30.0,
                        oneway=oneway, keep="all")
    small = navcore.World()
    sg = small.add_graph("s", type="roads", src=src, dst=dst, positions=pos, speed=30.0,
                         oneway=oneway, keep="all", compress=True)
    assert sg.num_nodes < fg.num_nodes
    keep = sg.node_source
    ref = scipy_distances(fg, keep)[:, keep]
    assert close(small.distance_matrix("s", np.arange(sg.num_nodes), np.arange(sg.num_nodes)),
                 ref)


@pytest.mark.nojit
def test_snap_finds_the_nearest_road_point_and_says_how_far():
    from navcore_roads import snap
    from navcore_roads.segments import haversine_m
    rng = np.random.default_rng(5)
    w, g = arrays_world(rng, n=80)
    pts = np.column_stack((10 + rng.random(300) * 0.07 - 0.01, 50 + rng.random(300) * 0.07
                           - 0.01))
    pts = np.vstack((pts, [[-170.0, -60.0], [179.9, 89.0]]))    # far away: off the graph
    s = snap(g, pts)
    # brute force over every segment, in the plane tangent at each point
    seg = g.segments
    on = np.flatnonzero(g.seg_edge >= 0)
    a, b = seg.src[on], seg.dst[on]
    kx = np.cos(np.radians(pts[:, 1]))[:, None]
    ax, ay = (seg.lon[a][None] - pts[:, :1]) * kx, seg.lat[a][None] - pts[:, 1:]
    dx, dy = (seg.lon[b][None] - pts[:, :1]) * kx - ax, seg.lat[b][None] - pts[:, 1:] - ay
    dd = dx * dx + dy * dy
    t = np.clip(-(ax * dx + ay * dy) / np.where(dd > 0, dd, 1.0), 0.0, 1.0)
    d2 = (ax + t * dx) ** 2 + (ay + t * dy) ** 2
    near = np.argmin(d2[:-2], axis=1)
    rows = np.arange(near.size)
    proj_lon = seg.lon[a[near]] + t[rows, near] * (seg.lon[b[near]] - seg.lon[a[near]])
    proj_lat = seg.lat[a[near]] + t[rows, near] * (seg.lat[b[near]] - seg.lat[a[near]])
    want = haversine_m(pts[:-2, 0], pts[:-2, 1], proj_lon, proj_lat)
    assert np.allclose(s.metres[:-2], want, rtol=1e-9, atol=1e-6)
    assert np.allclose(s.points[:-2], np.column_stack((proj_lon, proj_lat)), atol=1e-12)
    assert s.valid.tolist() == (s.metres <= 500).tolist() and not s.valid[-2:].any()
    assert (s.nodes[~s.valid] == -1).all() and (s.nodes[s.valid] >= 0).all()
    assert w.locate("r", tuple(pts[0])) == s.nodes[0]
    r = w.find_path("r", pts[0], pts[1])
    assert not r.found or np.allclose(r.points[0], s.points[0])


def test_malformed_dimacs_files_name_the_line(tmp_path):
    cases = {
        "p sp 3\na 1 2 5\n": (1, "problem line"),
        "p sp 3 1\na 1 4 5\n": (2, "out of range"),
        "p sp 3 1\na 1 2 -5\n": (2, ">= 0"),
        "p sp 3 1\na 1 2 nan\n": (2, "finite"),
        "p sp 3 2\na 1 2 5\n": (1, "promises 2 arcs"),
        "c x\na 1 2 5\n": (2, "problem line"),
        "p sp 3 1\na 1 x 5\n": (2, "integer ids"),
        "p sp 3 1\nq 1 2 5\n": (2, "expected an arc"),
        "": (None, "no problem line"),
    }
    for text, (line, words) in cases.items():
        path = tmp_path / "bad.gr"
        path.write_text(text)
        with pytest.raises(navcore.MapFormatError, match=words) as err:
            read_dimacs(path)
        assert err.value.path == str(path) and err.value.line == line, text
    good = tmp_path / "good.gr"
    good.write_text("p sp 2 1\na 1 2 5\n")
    co = tmp_path / "bad.co"
    co.write_text("p aux sp co 2\nv 1 7000000 43000000\nv 2 7000000 95000000\n")
    with pytest.raises(navcore.MapFormatError, match="not on Earth") as err:
        read_dimacs(good, co)
    assert err.value.line == 3
    w = navcore.World()
    with pytest.raises(navcore.MapFormatError, match="directory"):
        w.add_graph("x", type="roads", dimacs=tmp_path)
    assert "x" not in w.graphs


def test_bad_parameters_are_graph_errors_and_add_nothing():
    w = navcore.World()
    bad = [dict(), dict(src=[0], dst=[1], length=[1.0], speed=[50.0], osm="x.pbf"),
           dict(src=[0], dst=[1], length=[-1.0], speed=[50.0]),
           dict(src=[0], dst=[1], length=[1.0], speed=[0.0]),
           dict(src=[0], dst=[1], length=[np.nan], speed=[50.0]),
           dict(src=[0], dst=[1], length=[1.0]),
           dict(src=[0], dst=[1], speed=[50.0]),
           dict(src=[0], dst=[1], length=[1.0], speed=[50.0], weight="fuel"),
           dict(src=[0], dst=[1], length=[1.0], speed=[50.0], keep="most"),
           dict(src=[0], dst=[1], length=[1.0], speed=[50.0], oneway="yes"),
           dict(src=[0], dst=[1], positions=[[0, 0], [0, 95]], speed=[50.0]),
           dict(src=[0, 1], dst=[1], length=[1.0], speed=[50.0])]
    for params in bad:
        with pytest.raises(navcore.NavError):
            w.add_graph("x", type="roads", **params)
        assert "x" not in w.graphs, params
