"""Road readers: OSM extracts against the road benchmark's truth graphs, small
hand-made OSM files for each tagging rule, GeoJSON, and malformed input."""
import gzip
import json
from xml.sax.saxutils import quoteattr

import numpy as np
import pytest

from conftest import SHARED
from navcore.errors import GraphError, MapFormatError
from navcore_roads.io.geojson import read_geojson
from navcore_roads.io.osm import read_osm
from navcore_roads.segments import haversine_m

ROADS = SHARED / "data" / "roads"
EXTRACTS = {"monaco": "monaco.osm.gz", "helsinki": "Helsinki.osm.pbf"}
needs_data = pytest.mark.skipif(not (ROADS / "monaco.graph.npz").is_file(),
                                reason=f"road benchmark data not found at {ROADS}")


# ---------------------------------------------------------------- truth graphs

def keyed(node_id, src, dst, way):
    """{(src OSM id, dst OSM id, way id): segment index}."""
    return {(int(a), int(b), int(w)): k for k, (a, b, w)
            in enumerate(zip(node_id[src], node_id[dst], way))}


@needs_data
@pytest.mark.parametrize("name", EXTRACTS)
def test_car_segments_are_the_truth_graph(name):
    seg = read_osm(ROADS / EXTRACTS[name], "car")
    truth = np.load(ROADS / f"{name}.graph.npz")
    want = keyed(truth["osm_id"], truth["src"], truth["dst"], truth["way_id"])
    got = keyed(seg.node_id, seg.src, seg.dst, seg.way)
    assert seg.num_segments == len(got) == len(want)
    assert got.keys() == want.keys()
    keys = sorted(want)
    t = np.array([want[k] for k in keys])
    g = np.array([got[k] for k in keys])
    np.testing.assert_allclose(seg.length[g], truth["length_m"][t], rtol=0, atol=1e-6)
    assert np.array_equal(seg.speed[g], truth["speed_kmh"][t])
    assert np.array_equal(np.array(seg.highway_names)[seg.highway[g]],
                          truth["highway_names"][truth["highway"][t]])
    # the same nodes, at the same coordinates
    order = np.argsort(truth["osm_id"])
    assert np.array_equal(seg.node_id, truth["osm_id"][order])
    assert np.array_equal(seg.lon, truth["lon"][order])
    assert np.array_equal(seg.lat, truth["lat"][order])
    assert seg.src.dtype == seg.dst.dtype == np.int32 and seg.highway.dtype == np.uint8
    assert seg.source.endswith(EXTRACTS[name])


@needs_data
def test_clipped_ways_are_cut_or_refused():
    """The Helsinki extract has ways running off its edge: cut by default,
    an error naming the way and the node when asked for."""
    with pytest.raises(MapFormatError, match=r"Helsinki\.osm\.pbf: way \d+ references "
                                             r"node \d+, which the file has no location"):
        read_osm(ROADS / "Helsinki.osm.pbf", missing_nodes="error")
    assert read_osm(ROADS / "monaco.osm.gz", missing_nodes="error").num_segments == 4906


@needs_data
@pytest.mark.parametrize("profile", ["bike", "foot"])
def test_bike_and_foot_read_the_extracts(profile):
    car = read_osm(ROADS / "monaco.osm.gz", "car")
    seg = read_osm(ROADS / "monaco.osm.gz", profile)
    names = np.array(seg.highway_names)[seg.highway]
    assert seg.num_segments > car.num_segments      # footways, steps, paths...
    assert not np.isin(names, ["motorway", "trunk"]).any()
    assert seg.speed.max() <= {"bike": 18, "foot": 5}[profile]
    if profile == "foot":                            # both ways, everywhere
        fwd = set(zip(seg.src.tolist(), seg.dst.tolist()))
        assert fwd == {(b, a) for a, b in fwd}


# ------------------------------------------------------------ hand-made files

#: five nodes in a row along the equator, 0.001 degrees (about 111 m) apart
NODES = {i: (0.001 * (i - 1), 0.0) for i in range(1, 6)}


def write_osm(path, ways, nodes=NODES):
    """An OSM XML file of ``ways``: [(way id, [node ids], {tag: value})]."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<osm version="0.6">']
    lines += [f'  <node id="{n}" lat="{lat}" lon="{lon}"/>' for n, (lon, lat) in nodes.items()]
    for way_id, refs, tags in ways:
        lines.append(f'  <way id="{way_id}">')
        lines += [f'    <nd ref="{r}"/>' for r in refs]
        lines += [f'    <tag k={quoteattr(k)} v={quoteattr(v)}/>' for k, v in tags.items()]
        lines.append("  </way>")
    lines.append("</osm>")
    path.write_text("\n".join(lines) + "\n")
    return path


def one_way(tmp_path, tags, refs=(1, 2, 3), profile="car"):
    """{(src id, dst id): speed} of a single way with ``tags``."""
    seg = read_osm(write_osm(tmp_path / "w.osm", [(10, list(refs), tags)]), profile)
    assert set(seg.way.tolist()) <= {10}
    return {(int(seg.node_id[a]), int(seg.node_id[b])): float(s)
            for a, b, s in zip(seg.src, seg.dst, seg.speed)}


BOTH = {(1, 2), (2, 1), (2, 3), (3, 2)}
FORWARD = {(1, 2), (2, 3)}
BACKWARD = {(2, 1), (3, 2)}


@pytest.mark.nojit
@pytest.mark.parametrize("tags, expected", [
    ({"highway": "residential"}, BOTH),
    ({"highway": "residential", "oneway": "yes"}, FORWARD),
    ({"highway": "residential", "oneway": "1"}, FORWARD),
    ({"highway": "residential", "oneway": "-1"}, BACKWARD),
    ({"highway": "residential", "oneway": "reverse"}, BACKWARD),
    ({"highway": "primary", "junction": "roundabout"}, FORWARD),
    ({"highway": "primary", "junction": "circular", "oneway": "no"}, BOTH),
    ({"highway": "motorway"}, FORWARD),
    ({"highway": "motorway", "oneway": "no"}, BOTH),
    ({"highway": "residential", "oneway": "reversible"}, set()),
    ({"highway": "residential", "oneway": "alternating"}, set()),
], ids=lambda v: "-".join(f"{k}={x}" for k, x in v.items()) if isinstance(v, dict) else None)
def test_direction_rules(tmp_path, tags, expected):
    assert set(one_way(tmp_path, tags)) == expected


@pytest.mark.parametrize("tags, kept", [
    ({"access": "private"}, False),
    ({"access": "private", "motor_vehicle": "yes"}, True),
    ({"access": "no", "motorcar": "destination"}, True),
    ({"access": "yes", "motor_vehicle": "no"}, False),
    ({"motorcar": "private"}, False),
    ({"access": "permissive"}, True),
    ({"area": "yes"}, False),
    ({"vehicle": "no"}, True),                     # as the truth: not read by car
])
def test_car_access(tmp_path, tags, kept):
    assert bool(one_way(tmp_path, {"highway": "service", **tags})) == kept


@pytest.mark.parametrize("maxspeed, speed", [
    ("50", 50.0), ("30 mph", 30 * 1.609344), ("none", 25.0), ("signals", 25.0),
    ("walk", 7.0), ("50;30", 50.0), ("DE:zone30", 30.0), ("DE:urban", 50.0),
    ("10 knots", 18.52), ("", 25.0),
])
def test_maxspeed_in_files(tmp_path, maxspeed, speed):
    speeds = one_way(tmp_path, {"highway": "residential", "maxspeed": maxspeed})
    assert len(speeds) == 4
    assert all(s == pytest.approx(speed, abs=1e-12) for s in speeds.values())


def test_maxspeed_per_direction(tmp_path):
    speeds = one_way(tmp_path, {"highway": "primary", "maxspeed": "50",
                                "maxspeed:forward": "70", "maxspeed:backward": "none"})
    assert speeds == {(1, 2): 70.0, (2, 3): 70.0, (2, 1): 65.0, (3, 2): 65.0}
    speeds = one_way(tmp_path, {"highway": "primary", "maxspeed": "50",
                                "maxspeed:backward": "30", "oneway": "-1"})
    assert speeds == {(2, 1): 30.0, (3, 2): 30.0}


def test_nodes_lengths_and_codes(tmp_path):
    path = write_osm(tmp_path / "net.osm", [
        (1, [1, 2, 3], {"highway": "primary", "oneway": "yes"}),
        (2, [3, 4], {"highway": "footway"}),              # not for cars: node 4 left out
        (3, [3, 3, 5], {"highway": "service"}),           # a repeated node is no loop
    ])
    seg = read_osm(path)
    assert seg.node_id.tolist() == [1, 2, 3, 5]
    pairs = [(int(seg.node_id[a]), int(seg.node_id[b])) for a, b in zip(seg.src, seg.dst)]
    assert pairs == [(1, 2), (2, 3), (3, 5), (5, 3)]
    assert seg.way.tolist() == [1, 1, 3, 3]
    assert [seg.highway_names[c] for c in seg.highway] == ["primary"] * 2 + ["service"] * 2
    np.testing.assert_allclose(seg.length, haversine_m(0, 0, 0.001, 0)
                               * np.array([1, 1, 2, 2]), rtol=1e-12)


def test_missing_nodes_cut_the_way(tmp_path):
    path = write_osm(tmp_path / "cut.osm", [(7, [1, 2, 99, 3, 4], {"highway": "service"})])
    seg = read_osm(path)
    assert seg.node_id.tolist() == [1, 2, 3, 4]
    assert {(int(seg.node_id[a]), int(seg.node_id[b])) for a, b in zip(seg.src, seg.dst)} \
        == {(1, 2), (2, 1), (3, 4), (4, 3)}                 # nothing across the gap
    with pytest.raises(MapFormatError, match=r"cut\.osm: way 7 references node 99"):
        read_osm(path, missing_nodes="error")


def test_compressed_xml_and_custom_profile(tmp_path):
    plain = write_osm(tmp_path / "a.osm", [(1, [1, 2], {"highway": "motorway",
                                                        "maxspeed": "130"})])
    packed = tmp_path / "a.osm.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    seg = read_osm(packed, {"name": "truck", "max_speed": 80})
    assert seg.speed.tolist() == [80.0]
    assert read_osm(packed).speed.tolist() == [130.0]
    with pytest.raises(GraphError, match="unknown profile 'lorry'"):
        read_osm(packed, "lorry")


# ------------------------------------------------------------- malformed input

@needs_data
def test_truncated_pbf(tmp_path):
    data = (ROADS / "Helsinki.osm.pbf").read_bytes()
    cut = tmp_path / "cut.osm.pbf"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(MapFormatError, match=r"cut\.osm\.pbf: cannot read OSM data: "
                                             r"PBF error"):
        read_osm(cut)


@pytest.mark.nojit
def test_bad_files(tmp_path):
    garbage = tmp_path / "garbage.osm.pbf"
    garbage.write_bytes(b"\x00\x01not a pbf" * 50)
    with pytest.raises(MapFormatError, match=r"garbage\.osm\.pbf: cannot read OSM data"):
        read_osm(garbage)
    with pytest.raises(MapFormatError, match=r"nothere\.osm\.pbf: OSM file not found"):
        read_osm(tmp_path / "nothere.osm.pbf")
    folder = tmp_path / "dir.osm"
    folder.mkdir()
    with pytest.raises(MapFormatError, match=r"dir\.osm: not a file"):
        read_osm(folder)
    text = tmp_path / "roads.txt"
    text.write_text("hello")
    with pytest.raises(MapFormatError, match=r"roads\.txt: unknown OSM file type"):
        read_osm(text)
    broken = tmp_path / "broken.osm"
    broken.write_text('<osm version="0.6">\n <node id="1" lat="0" lon="0"/>\n'
                      ' <way id="2"><nd ref="1"/>\n</osm>\n')
    with pytest.raises(MapFormatError, match=r"broken\.osm:4:\d+: cannot read OSM data: "
                                             r"XML parsing error") as caught:
        read_osm(broken)
    assert caught.value.line == 4
    with pytest.raises(GraphError, match="missing_nodes must be 'skip' or 'error'"):
        read_osm(broken, missing_nodes="ignore")


# --------------------------------------------------------------------- GeoJSON

def feature(coords, kind="LineString", **props):
    return {"type": "Feature", "properties": props,
            "geometry": {"type": kind, "coordinates": coords}}


def collection(*features):
    return {"type": "FeatureCollection", "features": list(features)}


@pytest.mark.nojit
def test_geojson_shared_points_directions_and_speeds(tmp_path):
    path = tmp_path / "roads.geojson"
    path.write_text(json.dumps(collection(
        feature([[0, 0], [0.001, 0], [0.002, 0]], highway="primary", oneway=True,
                maxspeed=50, osm_id=11),
        feature([[0.001, 0], [0.001, 0.001]], highway="service", oneway="-1", id="7"),
        feature([[0.002, 0], [0.003, 0, 12.5]]),          # no highway: residential
        feature([[0.003, 0], [0.004, 0]], highway="footway"),
        feature([[[0.003, 0], [0.003, 0.001]], [[0, 0], [0, -0.001]]], "MultiLineString",
                highway="primary", speed=33.0),
    )))
    seg = read_geojson(path)
    pts = list(zip(seg.lon.tolist(), seg.lat.tolist()))
    assert seg.node_id.tolist() == list(range(len(pts)))
    assert pts == [(0, 0), (0.001, 0), (0.002, 0), (0.001, 0.001), (0.003, 0),
                   (0.003, 0.001), (0, -0.001)]
    got = {(pts[a], pts[b]): (float(s), int(w), seg.highway_names[c])
           for a, b, s, w, c in zip(seg.src, seg.dst, seg.speed, seg.way, seg.highway)}
    assert got == {
        ((0, 0), (0.001, 0)): (50.0, 11, "primary"),
        ((0.001, 0), (0.002, 0)): (50.0, 11, "primary"),
        ((0.001, 0.001), (0.001, 0)): (15.0, 7, "service"),
        ((0.002, 0), (0.003, 0)): (25.0, -1, "residential"),
        ((0.003, 0), (0.002, 0)): (25.0, -1, "residential"),
        ((0.003, 0), (0.003, 0.001)): (33.0, -1, "primary"),
        ((0.003, 0.001), (0.003, 0)): (33.0, -1, "primary"),
        ((0, 0), (0, -0.001)): (33.0, -1, "primary"),
        ((0, -0.001), (0, 0)): (33.0, -1, "primary"),
    }
    assert seg.source == str(path)
    foot = read_geojson(path, "foot")
    assert foot.num_segments == 2 * 7 and set(foot.speed.tolist()) == {5.0}


@pytest.mark.parametrize("data, message", [
    ([], r"expected a GeoJSON FeatureCollection, found 'list'"),
    ({"type": "Feature"}, r"expected a GeoJSON FeatureCollection, found 'Feature'"),
    ({"type": "FeatureCollection", "features": {}}, r"the FeatureCollection's 'features' must be a list"),
    (collection(feature([[0, 0], [1, 1]]), feature([0, 0], "Point")),
     r"feature 1: geometry must be a LineString or MultiLineString, not 'Point'"),
    (collection(feature([[0, 0]])), r"feature 0: a line needs at least 2 points"),
    (collection(feature([[[0, 0], [1, 1]], [[2, 2]]], "MultiLineString")),
     r"feature 0: a line needs at least 2 points \(part 1\)"),
    (collection(feature([[0, 0], ["1", 1]])), r"feature 0: point 1 must be \[lon, lat\]"),
    (collection(feature([[0, 0], [1, True]])), r"feature 0: point 1 must be \[lon, lat\]"),
    (collection(feature([[0, 0], [1, 91]])), r"feature 0: point 1 \[1, 91\] is not a lon/lat"),
    (collection(feature([[0, 0], [181, 0]])), r"feature 0: point 1 \[181, 0\] is not"),
    (collection(feature([[0, 0], [1, 1]], speed=-3)), r"feature 0: 'speed' must be a positive number of km/h, not -3"),
    (collection(feature([[0, 0], [1, 1]], highway=["primary"])),
     r"feature 0: 'highway' must be a string"),
    (collection({"type": "Feature", "geometry": None}), r"feature 0: geometry must be"),
])
def test_geojson_errors_name_file_and_feature(tmp_path, data, message):
    path = tmp_path / "bad.geojson"
    path.write_text(json.dumps(data))
    with pytest.raises(MapFormatError, match=r"bad\.geojson: " + message):
        read_geojson(path)
    if isinstance(data, dict):                     # a dict is named <geojson>
        with pytest.raises(MapFormatError, match=r"<geojson>: " + message):
            read_geojson(data)


@pytest.mark.nojit
def test_geojson_unreadable_files(tmp_path):
    path = tmp_path / "syntax.geojson"
    path.write_text('{"type": "FeatureCollection",\n "features": [,]}')
    with pytest.raises(MapFormatError, match=r"syntax\.geojson:2:15: not valid JSON") as caught:
        read_geojson(path)
    assert (caught.value.line, caught.value.column) == (2, 15)
    with pytest.raises(MapFormatError, match=r"none\.geojson: GeoJSON file not found"):
        read_geojson(tmp_path / "none.geojson")
    with pytest.raises(MapFormatError, match=r": not a file"):
        read_geojson(tmp_path)
    binary = tmp_path / "bin.geojson"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(MapFormatError, match=r"bin\.geojson: not UTF-8"):
        read_geojson(binary)
