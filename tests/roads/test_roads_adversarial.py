"""Cases an adversarial review of navcore_roads found wrong, each kept as a
test: a blocked junction reachable from itself through the hierarchy,
loop streets and junction-less rings lost by compression, a scene jam
reopening a closure, hierarchy files trusted by their stored fingerprint
or saved under another name, raw errors from bad calls and files, a
20-byte DIMACS header asking for gigabytes, and JSON with Infinity."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import navcore
import navcore_roads
from navcore.errors import NavError
from navcore_roads.scene_layer import RoadSceneLayer

from roadtruth import close

TRI = dict(src=[0, 1, 2], dst=[1, 2, 0], length=[100.0] * 3, speed=36.0, oneway=False,
           keep="all", positions=[(0, 0), (0.001, 0), (0, 0.001)])


def test_truth_helper_close_rejects_finite_against_inf():
    # roadtruth.close: rel * max(|b|, 1) is inf when b is inf, so any
    # finite answer "matches" an unreachable truth; every test using it is
    # blind to found-but-should-be-unreachable answers
    assert not close(0.0, np.inf)
    assert not close([1.0, 2.0], [np.inf, np.inf])


@pytest.mark.parametrize("contracted", [False, True])
def test_blocked_junction_to_itself_is_unreachable_with_and_without_hierarchy(contracted):
    w = navcore.World()
    g = w.add_graph("r", type="roads", **TRI)
    w.update("r", nodes=[1], walkable=False)
    w.tick()
    if contracted:
        navcore_roads.contract(g)
    # the searches say inf (and scipy_distances too); the hierarchy says 0
    assert w.distance_pairs("r", [1], [1]).tolist() == [np.inf]
    assert w.distance_matrix("r", [1], [1]).tolist() == [[np.inf]]


def test_compress_keeps_a_ring_without_junctions():
    # a circular track (GeoJSON and OSM compress by default) becomes one
    # node and no edge; opposite points of the ring snap to the same node
    w = navcore.World()
    pos = [(0.0, 0.0), (0.01, 0.0), (0.01, 0.01), (0.0, 0.01)]
    g = w.add_graph("ring", type="roads", src=[0, 1, 2, 3], dst=[1, 2, 3, 0],
                    positions=pos, speed=36.0, oneway=False, compress=True)
    r = w.find_path("ring", (0.0, 0.0), (0.01, 0.01))
    assert g.num_nodes >= 2 and g.csr.num_edges >= 2
    assert r.cost > 0


def test_compress_keeps_a_loop_street_or_reports_it():
    # a "P"-shaped cul-de-sac 3-4-5-3 hanging off junction 3: its nodes
    # vanish, its way cannot be updated, and the report says nothing dropped
    w = navcore.World()
    pos = [(0, 0), (-0.01, 0), (0, -0.01), (0.01, 0), (0.02, 0.005), (0.02, -0.005)]
    g = w.add_graph("p", type="roads", src=[0, 0, 0, 3, 4, 5], dst=[1, 2, 3, 4, 5, 3],
                    way=[1, 2, 3, 9, 9, 9], positions=pos, speed=36.0, oneway=False,
                    compress=True)
    kept = set(g.osm_ids.tolist())
    assert {4, 5} <= kept or g.report["dropped"], (kept, g.report)
    w.update("p", osm_way=9, factor=2.0)          # UpdateError: "has no way 9"


def test_scene_jam_does_not_reopen_a_closed_road():
    w = navcore.World()
    g = w.add_graph("r", type="roads", src=[0, 1], dst=[1, 2], speed=36.0, oneway=False,
                    keep="all", positions=[(0, 0), (0.001, 0), (0.002, 0)])
    layer = RoadSceneLayer(w, "r", g)
    layer.set_cost(layer.region([0.0005, -0.001, 0.0015, 0.001]), np.inf)   # closes 0-1, 1-2
    w.tick()
    assert w.find_path("r", 1, 2).status.value == "unreachable"
    layer.set_cost(layer.region([0.0015, -0.001, 0.0025, 0.001]), 3.0)     # jam near node 2
    w.tick()
    # set_cost queues reset=True first, which reopens the closed 1-2 road
    assert w.find_path("r", 1, 2).status.value == "unreachable"


def test_load_hierarchy_checks_the_arrays_not_only_the_stored_fingerprint(tmp_path):
    w = navcore.World()
    g = w.add_graph("r", type="roads", **TRI)
    h = navcore_roads.contract(g)
    w2 = navcore.World()
    g2 = w2.add_graph("r", type="roads", src=[0, 1, 2, 3, 4], dst=[1, 2, 3, 4, 0],
                      speed=36.0, oneway=False,
                      positions=[(0, 0), (0.001, 0), (0.002, 0), (0.001, 0.001), (0, .002)])
    other = navcore_roads.contract(g2).hierarchy.arrays()
    path = tmp_path / "forged.npz"
    np.savez(path, format=np.array("navcore-road-ch-1"), fingerprint=np.array(h.fingerprint),
             **other)
    with pytest.raises(navcore.errors.GraphError):
        navcore_roads.load_hierarchy(g, path)     # loads a 5-node hierarchy on 3 nodes


def test_save_then_load_with_the_same_path(tmp_path):
    w = navcore.World()
    g = w.add_graph("r", type="roads", **TRI)
    h = navcore_roads.contract(g)
    path = tmp_path / "city.ch"
    h.save(path)                                  # np.savez writes city.ch.npz
    navcore_roads.load_hierarchy(g, path)


@pytest.mark.parametrize("call", [
    lambda w, g: navcore_roads.routes(w.add_graph("c", type="csr", src=[0], dst=[1],
                                                  cost=[1.0]), [0], [1]),
    lambda w, g: navcore_roads.load_hierarchy(g, None),
    lambda w, g: navcore_roads.contract(g).save(None),
    lambda w, g: w.update("r", edges=[(0, 1), (1,)], cost=float("inf")),
], ids=["routes-on-csr", "load-none", "save-none", "ragged-edges"])
def test_bad_calls_raise_nav_errors(call):
    w = navcore.World()
    g = w.add_graph("r", type="roads", **TRI)
    with pytest.raises(NavError):
        call(w, g)


GEOJSON_LINE = ('{"type":"FeatureCollection","features":[{"type":"Feature","properties":%s,'
                '"geometry":{"type":"LineString","coordinates":[[%s,0],[0.001,0]]}}]}')


@pytest.mark.parametrize("text", [
    GEOJSON_LINE % ('{"osm_id": %d}' % 2 ** 70, "0"),       # OverflowError
    GEOJSON_LINE % ("{}", "9" * 400),                       # OverflowError
    "[" * 100000 + "]" * 100000,                             # RecursionError
], ids=["huge-way-id", "huge-int-coordinate", "deep-nesting"])
def test_bad_geojson_is_a_map_format_error(tmp_path, text):
    path = tmp_path / "bad.geojson"
    path.write_text(text)
    with pytest.raises(navcore.errors.MapFormatError):
        navcore.World().add_graph("g", type="roads", geojson=str(path))


def test_dimacs_header_cannot_ask_for_gigabytes(tmp_path):
    # 20 bytes asked for 2e9 nodes: np.full(2e9) of lon/lat (15 GiB each);
    # refused from the header, before any array is made
    path = tmp_path / "huge.gr"
    path.write_text("p sp 2000000000 1\na 1 2 5\n")
    with pytest.raises(navcore.MapFormatError, match="declares 2000000000 nodes") as err:
        navcore.World().add_graph("g", type="roads", dimacs=str(path))
    assert err.value.line == 1


def test_dimacs_indented_arc_line_message(tmp_path):
    path = tmp_path / "lead.gr"
    path.write_text("p sp 3 2\n a 1 2 5\na 2 3 7\n")
    try:
        navcore.World().add_graph("g", type="roads", dimacs=str(path))
    except navcore.errors.MapFormatError as exc:
        assert "promises 2 arcs, the file has 2" not in str(exc)


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "navcore", "roads", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_cli_json_is_valid_json_for_unreachable_routes(tmp_path):
    (tmp_path / "two.gr").write_text("p sp 3 1\na 1 2 5\n")
    (tmp_path / "two.co").write_text("p aux sp co 3\nv 1 0 0\nv 2 1000 0\nv 3 2000 0\n")
    out = _cli("two.gr", "--keep", "all", "--from", "0.002,0", "--to", "0,0", "--json", "-",
               cwd=tmp_path)
    assert out.returncode == 0, out.stderr

    def strict(c):
        raise ValueError(f"not JSON: {c}")
    json.loads(out.stdout, parse_constant=strict)


def test_cli_matrix_on_an_empty_network_is_a_clean_error(tmp_path):
    (tmp_path / "empty.osm").write_text('<osm version="0.6"></osm>')
    out = _cli("empty.osm", "--matrix", "3", cwd=tmp_path)
    assert "Traceback" not in out.stderr, out.stderr[-300:]


def test_arrays_refuse_boolean_speeds_and_cost_with_a_distance_weight():
    w = navcore.World()
    with pytest.raises(navcore.GraphError, match="booleans"):
        w.add_graph("a", type="roads", src=[0], dst=[1], length=[10.0], speed=True)
    with pytest.raises(navcore.GraphError, match="cost= gives"):
        w.add_graph("b", type="roads", src=[0], dst=[1], cost=[3.0], weight="distance")
    with pytest.raises(navcore.GraphError, match="progress"):
        navcore_roads.contract(w.add_graph("c", type="roads", **TRI), progress="yes")
    assert set(w.graphs) == {"c"}


def test_bbox_updates_need_coordinates(tmp_path):
    path = tmp_path / "t.gr"
    path.write_text("p sp 2 1\na 1 2 5\n")
    w = navcore.World()
    w.add_graph("g", type="roads", dimacs=str(path), keep="all")
    with pytest.raises(navcore.UpdateError, match="no coordinates"):
        w.update("g", bbox=(0, 0, 1, 1), factor=2.0)
