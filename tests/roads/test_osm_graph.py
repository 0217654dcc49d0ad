"""Roads from OpenStreetMap extracts, end to end through the world: the
compressed graph answers every truth query between junctions exactly."""
import numpy as np
import pytest

import navcore

from roadtruth import NAMES, ROADS, matrix, need, pairs

FILES = {"monaco": "monaco.osm.gz", "helsinki": "Helsinki.osm.pbf"}


def osm_world(name, **params):
    need(name)
    # the truth has no turn restrictions (README there): Helsinki's are left out
    params.setdefault("restrictions", False)
    w = navcore.World()
    g = w.add_graph(name, type="roads", osm=ROADS / FILES[name], **params)
    return w, g


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("weight,column", [("time", "time_s"), ("distance", "length_m")])
def test_osm_graph_answers_the_truth_between_its_nodes(name, weight, column):
    w, g = osm_world(name, weight=weight, keep="all")
    d = np.load(ROADS / f"{name}.graph.npz")
    assert g.num_nodes * 3 < d["osm_id"].size                # compressed several times
    node_of = {int(o): i for i, o in enumerate(g.osm_ids)}
    truth_ids = d["osm_id"]
    m = matrix(name)
    rows = np.array([node_of.get(int(truth_ids[i]), -1) for i in m["sources"]])
    cols = np.array([node_of.get(int(truth_ids[i]), -1) for i in m["targets"]])
    ri, ci = np.flatnonzero(rows >= 0), np.flatnonzero(cols >= 0)
    assert ri.size >= 10 and ci.size >= 10
    got = w.distance_matrix(name, rows[ri], cols[ci])
    assert np.allclose(got, m[column][np.ix_(ri, ci)], rtol=0, atol=1e-5)
    p = pairs(name, "pairs_any")
    a = np.array([node_of.get(int(x), -1) for x in p["source_id"]])
    b = np.array([node_of.get(int(x), -1) for x in p["target_id"]])
    ok = (a >= 0) & (b >= 0)
    got = w.distance_pairs(name, a[ok], b[ok])
    assert np.array_equal(np.isinf(got), np.isinf(p[column][ok]))
    fin = np.isfinite(got)
    assert np.allclose(got[fin], p[column][ok][fin], rtol=0, atol=1e-5)
    for s, t, want in list(zip(a[ok], b[ok], p[column][ok]))[:20]:
        r = w.find_path(name, int(s), int(t))
        assert (r.cost == want == np.inf) or abs(r.cost - want) < 1e-5


@pytest.mark.parametrize("name", NAMES)
def test_osm_points_snap_and_routes_are_drawn(name):
    w, g = osm_world(name)
    lo, hi = g.positions.min(axis=0), g.positions.max(axis=0)
    a, b = tuple(lo + (hi - lo) * 0.3), tuple(lo + (hi - lo) * 0.7)
    r = w.find_path(name, a, b)
    assert r.found and r.points.shape[0] > r.nodes.size
    from navcore_roads import snap
    s = snap(g, [a, b])
    # the route runs from the point on the nearest road to the one near b
    assert np.array_equal(r.points[0], s.points[0]) and np.array_equal(r.points[-1],
                                                                        s.points[1])
    assert (s.metres < 500).all() and s.valid.all()
    assert r.nodes.size and all(g.positions[v].tolist() in r.points.tolist() for v in r.nodes)
    assert g.report["dropped"] and g.num_nodes == g.report["nodes"]


def test_osm_profiles_change_the_network():
    _, car = osm_world("monaco")
    _, foot = osm_world("monaco", profile="foot")
    assert foot.segments.num_segments > car.segments.num_segments
    assert foot.profile.name == "foot" and car.profile.name == "car"
    with pytest.raises(navcore.GraphError, match="unknown"):
        osm_world("monaco", profile={"name": "x", "wings": 2})


def test_geojson_roads_load_and_route(tmp_path):
    import json
    fc = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"highway": "primary", "maxspeed": "50"},
         "geometry": {"type": "LineString", "coordinates": [[0, 0], [0.001, 0], [0.002, 0]]}},
        {"type": "Feature", "properties": {"highway": "residential", "oneway": "yes"},
         "geometry": {"type": "LineString", "coordinates": [[0.002, 0], [0.002, 0.001]]}},
        {"type": "Feature", "properties": {"highway": "residential", "oneway": "-1"},
         "geometry": {"type": "LineString", "coordinates": [[0, 0], [0.002, 0.001]]}},
        {"type": "Feature", "properties": {"highway": "service"},
         "geometry": {"type": "LineString", "coordinates": [[0.002, 0.001], [0.003, 0.001]]}}]}
    path = tmp_path / "town.geojson"
    path.write_text(json.dumps(fc))
    w = navcore.World()
    g = w.add_graph("town", type="roads", geojson=path, keep="all")
    assert g.num_nodes == 4                       # the middle point of the first is folded
    r = w.find_path("town", (0, 0), (0.002, 0.001))
    assert r.found and r.points.shape[0] == 4     # along the primary, then north
    back = w.find_path("town", (0.002, 0.001), (0, 0))
    assert back.points.shape[0] == 2              # the -1 one-way runs that way only
    path.write_text('{"type": "FeatureCollection", "features": [{"type": "Feature", '
                    '"geometry": {"type": "Point", "coordinates": [0, 0]}}]}')
    with pytest.raises(navcore.MapFormatError, match="LineString"):
        w.add_graph("bad", type="roads", geojson=path)
    assert "bad" not in w.graphs
