"""Isochrones on road networks: the shared extracts' reached junctions and
costs equal scipy's bounded Dijkstra (``limit``, ``min_only`` for several
sources), from junctions and from points snapped onto roads (scipy on the
segment graph split at the snapped points), bands, hand-checked partly
reached roads, outlines that hold the reached junctions, GeoJSON and the
``navcore roads --isochrone`` command."""
import json

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

import navcore
from navcore.cli import main

from roadtruth import NAMES, ROADS, csgraph_of, extract_world, need, project, split_graph


@pytest.fixture(scope="module", params=NAMES)
def extract(request):
    return extract_world(request.param, keep="all")


def truth(g, sources, limit):
    d = dijkstra(csgraph_of(g), indices=np.asarray(sources), limit=limit, min_only=True)
    nodes = np.flatnonzero(np.isfinite(d))
    return nodes, d[nodes]


def test_junction_isochrones_equal_scipy_on_the_extracts(extract):
    name, w, g = extract
    rng = np.random.default_rng(11)
    for k in (1, 4):
        sources = rng.choice(g.num_nodes, k, replace=False)
        bands = [30.0, 90.0, 180.0]
        iso = w.isochrone(name, sources.tolist(), bands)
        for b, limit in enumerate(bands):
            nodes, costs = truth(g, sources, limit)
            assert iso.nodes[iso.band <= b].tolist() == nodes.tolist(), (k, limit)
            np.testing.assert_allclose(iso.costs[iso.band <= b], costs, rtol=1e-12)
        assert iso.nodes.size > 10


@pytest.mark.parametrize("share", [0.0, 0.25])
def test_on_the_road_hierarchy_isochrones_equal_scipy(extract, share, monkeypatch):
    """With a current contraction hierarchy: PHAST (forced with share 0,
    else past a quarter of the junctions) equals scipy too, from
    junctions and from points; a stale hierarchy is left alone."""
    import navcore_roads
    from navcore_csr import isochrone as I
    name, w, g = extract
    monkeypatch.setattr(I, "SWEEP_SHARE", share)
    swept = []
    real = I.swept
    monkeypatch.setattr(I, "swept", lambda *a: swept.append(1) or real(*a))
    navcore_roads.contract(g, progress=False)
    rng = np.random.default_rng(3)
    for k in (1, 3):
        sources = rng.choice(g.num_nodes, k, replace=False)
        bands = [20.0, 200.0, np.inf]
        iso = w.isochrone(name, sources.tolist(), bands)
        for b, limit in enumerate(bands):
            nodes, costs = truth(g, sources, limit)
            assert iso.nodes[iso.band <= b].tolist() == nodes.tolist(), (k, limit)
            np.testing.assert_allclose(iso.costs[iso.band <= b], costs, rtol=1e-12)
    assert swept
    pt = tuple(g.positions[17] * 0.5 + g.positions[int(g.csr.targets[g.csr.offsets[17]])] * 0.5)
    with_h = w.isochrone(name, pt, 150.0)
    swept.clear()
    w.update(name, nodes=[int(sources[0])], walkable=False)
    w.tick()                                           # the hierarchy is stale now
    after = w.isochrone(name, sources.tolist(), 200.0)
    assert not swept
    assert after.nodes.tolist() == truth(g, sources[1:], 200.0)[0].tolist()   # 0: blocked
    w.update(name, nodes=[int(sources[0])], walkable=True)
    w.tick()
    without = w.isochrone(name, pt, 150.0)
    assert with_h.nodes.tolist() == without.nodes.tolist()
    np.testing.assert_allclose(with_h.costs, without.costs, rtol=1e-12)


def test_point_isochrones_equal_scipy_on_the_split_segment_graph(extract):
    name, w, g = extract
    rng = np.random.default_rng(5)
    seg = g.segments
    on = np.flatnonzero(g.seg_edge >= 0)
    s = rng.choice(on, 3)
    t = rng.uniform(0.2, 0.8, 3)
    pts = np.column_stack((seg.lon[seg.src[s]] + t * (seg.lon[seg.dst[s]] - seg.lon[seg.src[s]]),
                           seg.lat[seg.src[s]] + t * (seg.lat[seg.dst[s]] - seg.lat[seg.src[s]])))
    mat, phantom = split_graph(g, project(g, pts))
    for limit in (20.0, 120.0):
        for which in ([0], [0, 1, 2]):
            got = w.isochrone(name, [tuple(p) for p in pts[which]], limit)
            d = dijkstra(mat, indices=[phantom[i] for i in which], limit=limit,
                         min_only=True)[g.node_source]       # the junctions' columns
            d[d < 1e-200] = 0.0
            want = np.flatnonzero(np.isfinite(d))
            assert got.nodes.tolist() == want.tolist(), (limit, which)
            np.testing.assert_allclose(got.costs, d[want], rtol=1e-9, atol=1e-9)
    # a point and a junction id together: the least of both
    both = w.isochrone(name, [tuple(pts[0]), 7], 60.0)
    alone = w.isochrone(name, 7, 60.0)
    assert set(alone.nodes.tolist()) <= set(both.nodes.tolist())


def test_outlines_hold_the_reached_junctions_and_write_geojson(extract):
    import shapely
    name, w, g = extract
    iso = w.isochrone(name, (float(g.positions[40, 0]), float(g.positions[40, 1])), [60, 120],
                      polygons=True)
    polys = iso.polygons()
    assert polys[0].area < polys[1].area
    for b, poly in enumerate(polys):
        xy = g.positions[iso.nodes[iso.band <= b]]
        assert shapely.contains_xy(poly, xy[:, 0], xy[:, 1]).all()
    gj = json.loads(json.dumps(iso.to_geojson()))
    assert gj["type"] == "FeatureCollection"
    assert [f["properties"]["max_cost"] for f in gj["features"]] == [120.0, 60.0]
    assert shapely.geometry.shape(gj["features"][1]["geometry"]).equals(polys[0])
    import navcore_roads
    assert navcore_roads.to_geojson(iso) == iso.to_geojson()       # __geo_interface__
    # 25 m (the default) around the roads reached, measured in metres:
    # the outline's south edge lies 25 m below the southmost piece of road
    edges, lo, hi = iso.segments()
    cost = g.csr.cost[edges]
    lines = g.edge_pieces(edges, lo * cost, hi * cost).reshape(-1, 2)
    south = polys[1].bounds[1]
    assert abs((lines[:, 1].min() - south) * 111_195 - 25.0) < 0.5


def line_roads():
    """Three junctions on a line (0.001 degrees apart at the equator), two
    way streets costing 10 per road, and a one-way spur 2 -> 3."""
    w = navcore.World()
    w.add_graph("r", type="roads", src=[0, 1, 1, 2, 2], dst=[1, 0, 2, 1, 3],
                cost=[10.0, 10.0, 10.0, 10.0, 4.0],
                positions=[[0.0, 0.0], [0.001, 0.0], [0.002, 0.0], [0.002, 0.001]],
                keep="all")
    return w


def test_partly_reached_roads_hand_checked():
    w = line_roads()
    g = w.graph("r")
    iso = w.isochrone("r", 0, [5, 15, 22])
    assert iso.nodes.tolist() == [0, 1, 2] and iso.band.tolist() == [0, 1, 2]
    assert iso.costs.tolist() == [0.0, 10.0, 20.0]          # junction 3 costs 24 > 22

    def reached(band):
        edges, lo, hi = iso.segments(band)
        csr = g.csr
        tails = np.repeat(np.arange(g.num_nodes), np.diff(csr.offsets))
        return sorted((int(tails[e]), int(csr.targets[e]), round(a, 9), round(b, 9))
                      for e, a, b in zip(edges, lo, hi))

    assert reached(0) == [(0, 1, 0.0, 0.5)]
    assert reached(1) == [(0, 1, 0.0, 1.0), (1, 0, 0.0, 0.5), (1, 2, 0.0, 0.5)]
    assert reached(2) == [(0, 1, 0.0, 1.0), (1, 0, 0.0, 1.0), (1, 2, 0.0, 1.0),
                          (2, 1, 0.0, 0.2), (2, 3, 0.0, 0.5)]
    # the outline's roads: the line up to 0.5 of the road 1 -> 2 in band 1
    lines = g.edge_pieces(*[np.array([x]) for x in (2, 0.0, 5.0)])   # edge 2: 1 -> 2
    np.testing.assert_allclose(lines[0], [[0.001, 0.0], [0.0015, 0.0]])


def test_a_point_on_a_road_reaches_both_ways_along_it():
    w = line_roads()
    g = w.graph("r")
    iso = w.isochrone("r", (0.0005, 0.00001), [3, 6])     # mid-road between 0 and 1
    assert iso.nodes.tolist() == [0, 1] and np.allclose(iso.costs, [5, 5]) \
        and iso.band.tolist() == [1, 1]
    same = w.isochrone("r", [0.0005, 0.00001], [3, 6])    # a list of floats: one point
    assert same.nodes.tolist() == [0, 1] and np.allclose(same.costs, iso.costs)
    edges, lo, hi = iso.segments(0)
    csr = g.csr
    tails = np.repeat(np.arange(g.num_nodes), np.diff(csr.offsets))
    got = sorted((int(tails[e]), int(csr.targets[e]), round(a, 9), round(b, 9))
                 for e, a, b in zip(edges, lo, hi))
    assert got == [(0, 1, 0.5, 0.8), (1, 0, 0.5, 0.8)]


def test_points_off_the_roads_and_bad_limits_are_errors():
    w = line_roads()
    with pytest.raises(navcore.NodeError, match="outside graph"):
        w.isochrone("r", (10.0, 10.0), 5)
    with pytest.raises(navcore.NodeError, match="not a \\(lon, lat\\)"):
        w.isochrone("r", (500.0, 0.0), 5)
    with pytest.raises(navcore.QueryError, match="max_cost"):
        w.isochrone("r", 0, -5)


def test_isochrone_from_the_command_line(tmp_path, capsys):
    need("monaco")
    out, geo = tmp_path / "r.json", tmp_path / "iso.geojson"
    assert main(["roads", str(ROADS / "monaco.osm.gz"), "--isochrone", "7.42,43.735,120",
                 "--geojson", str(geo), "--json", str(out)]) == 0
    assert "isochrone 120 s:" in capsys.readouterr().out
    report = json.loads(out.read_text())["isochrone"]
    assert report["junctions"] > 10 and report["roads"] >= report["partial_roads"] > 0
    assert 0 < report["area_km2"] < 5
    gj = json.loads(geo.read_text())
    assert gj["features"][0]["geometry"]["type"] in ("Polygon", "MultiPolygon")
    # with a route: one FeatureCollection, the route's LineString first
    assert main(["roads", str(ROADS / "monaco.osm.gz"), "--isochrone", "7.42,43.735,60",
                 "--from", "7.4205,43.7335", "--to", "7.4275,43.7420", "--geojson",
                 str(geo)]) == 0
    capsys.readouterr()
    both = json.loads(geo.read_text())
    assert both["type"] == "FeatureCollection"
    assert [f["geometry"]["type"] for f in both["features"]][0] == "LineString"
    assert [f["properties"].get("band") for f in both["features"]][1:] == [0]
    assert main(["roads", str(ROADS / "monaco.gr"), "--geojson", str(geo)]) == 2
    assert "or --isochrone too" in capsys.readouterr().err


def test_isochrone_without_a_limit_from_the_command_line_writes_json(tmp_path, capsys):
    need("monaco")
    out = tmp_path / "r.json"
    assert main(["roads", str(ROADS / "monaco.osm.gz"), "--isochrone", "7.42,43.735,inf",
                 "--json", str(out)]) == 0
    report = json.loads(out.read_text())["isochrone"]
    assert report["max_cost"] is None and report["junctions"] > 10
