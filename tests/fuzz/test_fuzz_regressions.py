"""One small test per raw exception the fuzzing found (each was
a TypeError, ValueError, OverflowError, ... before its fix): the call now
raises the NavError named here, with a message naming the argument, and
the world keeps what it had."""
from pathlib import Path

import numpy as np
import pytest

import navcore
from navcore_grid.mapfile import read_scen

pytestmark = pytest.mark.nojit

DUNGEON = Path(__file__).resolve().parents[2] / "scenes" / "maps" / "dungeon.map"


@pytest.fixture
def w():
    world = navcore.World()
    world.add_graph("keep", type="grid", rows=["...", "..."])
    return world


def _refused(world, error, match, **params):
    with pytest.raises(error, match=match):
        world.add_graph("new", **params)
    assert list(world.graphs) == ["keep"]


def test_ragged_edge_arrays(w):
    # np.asarray raised "setting an array element with a sequence"
    _refused(w, navcore.GraphError, r"dst must be a flat sequence of integer node ids, got "
             r"\[\[\], \[0\]\]", type="csr", src=[0, 1], dst=[[], [0]])


def test_costs_too_large_for_a_float(w):
    # float(10**400): OverflowError
    _refused(w, navcore.GraphError, "cost must be numbers", type="csr", src=[0], dst=[1],
             cost=[10 ** 400])


def test_unhashable_generator(w):
    # `generate not in GENERATORS` hashed a dict
    _refused(w, navcore.GraphError, r"unknown generator \{'a': 1\}; choose one of: maze",
             type="grid", generate={"a": 1}, width=3, height=2)


@pytest.mark.parametrize("walkable", [[[1], [2, 3]], ["a", "b"], [0.5, 1.0]])
def test_walkable_mask_that_is_not_booleans(w, walkable):
    # ragged: ValueError from np.array; strings and 0.5 were truth values
    _refused(w, navcore.GraphError, "walkable must be a sequence of True/False per node",
             type="csr", src=[0], dst=[1], walkable=walkable)


def test_walkable_mask_of_zeros_and_ones_still_works(w):
    g = w.add_graph("new", type="csr", src=[0], dst=[1], walkable=[1, 0])
    assert g.walkable.tolist() == [True, False]


@pytest.mark.parametrize("params, error", [
    (dict(type="grid", map="a\0.map"), navcore.MapFormatError),
    (dict(type="navmesh", mesh="a\0.mesh"), navcore.MeshFormatError),
    (dict(type="navmesh", map="a\0.map"), navcore.MapFormatError),
    (dict(type="roads", dimacs="a\0.gr"), navcore.MapFormatError),
    (dict(type="roads", geojson="a\0.geojson"), navcore.MapFormatError),
])
def test_file_paths_with_a_nul_character(w, params, error):
    # open() raised a bare ValueError: embedded null byte
    _refused(w, error, "is not a file path: it holds a NUL character", **params)


def test_scenario_and_scene_paths_with_a_nul_character():
    with pytest.raises(navcore.MapFormatError, match="NUL"):
        read_scen("a\0.scen")
    with pytest.raises(navcore.SceneError, match="NUL"):
        navcore.load_scene("a\0.yaml")


def test_timedelta_is_not_a_node_id(w):
    # numpy makes timedelta64 a signed integer: int() of it raised TypeError
    with pytest.raises(navcore.NodeError, match="timedelta64"):
        w.find_path("keep", np.timedelta64(3, "s"), 0)
    with pytest.raises(navcore.NodeError):
        w.locate("keep", np.timedelta64(3, "s"))


def test_osm_coordinate_that_is_not_a_number(w, tmp_path):
    # libosmium's InvalidLocationError derives from Exception only: it
    # passed the reader's RuntimeError/ValueError/OSError net
    path = tmp_path / "bad.osm"
    path.write_text('<osm version="0.6">\n <node id="1" lat="0.0" lon="&amp;"/>'
                    '<node id="2" lat="0.0" lon="0.001"/>\n <way id="7"><nd ref="1"/>'
                    '<nd ref="2"/><tag k="highway" v="primary"/></way>\n</osm>\n')
    _refused(w, navcore.MapFormatError, r"bad.osm: cannot read OSM data: wrong format for "
             r"coordinate: '&'", type="roads", osm=str(path))
    _refused(w, navcore.MapFormatError, "NUL", type="roads", osm="a\0.osm")


def test_tile_size_too_small_for_the_tile_grid(w):
    # 1e-9 made TileGrid ask for 10**10 grid lines (MemoryError) before the
    # tile count was checked
    _refused(w, navcore.GraphError, r"cuts the free space into 100000000000000000000 tiles "
             r"\(at most 65536\)", type="navmesh", bounds=(0, 0, 10, 10), tile_size=1e-9)


def test_unhashable_heuristic_option(w):
    # `heuristic not in HKIND` hashed the list
    w.add_graph("c", type="csr", src=[0, 1], dst=[1, 2], positions=[[0, 0], [1, 0], [2, 0]])
    with pytest.raises(navcore.QueryError, match=r"unknown heuristic \[1\]"):
        w.find_path("c", 0, 2, heuristic=[1])


@pytest.mark.parametrize("params, match", [
    (dict(way=[[1], [2, 3]]), "way must be an array"),
    (dict(length=[[1.0], [1.0, 2.0]]), "length must be an array"),
    (dict(oneway=[[True], [False, True]]), "oneway must be an array"),
    (dict(positions=[[10 ** 400, 0.0], [0.0, 0.0]]), "positions .* must be an array of numbers"),
])
def test_ragged_or_huge_road_arrays(w, params, match):
    # np.asarray raised ValueError (ragged) or OverflowError (10**400)
    base = dict(src=[0, 1], dst=[1, 0], length=[10.0, 10.0], speed=[30.0, 30.0])
    _refused(w, navcore.GraphError, match, type="roads", **{**base, **params})


def test_navmesh_with_an_empty_walkable_list_among_other_parts(w):
    # GEOS asserted "Unable to determine overlay result geometry dimension"
    # when intersecting with the empty union of walkable=[]
    _refused(w, navcore.GraphError, "the free space is empty", type="navmesh",
             bounds=(0, 0, 10, 10), map=str(DUNGEON), walkable=[], tile_size=0)


@pytest.mark.parametrize("kwargs, match", [
    (dict(plugins=[np.array(["a"])]), "a plugin is a module, a class or an object"),
    (dict(plugins=[None]), "a plugin is a module"),
    (dict(autoload=np.array([])), "autoload must be True or False"),
])
def test_world_plugins_and_autoload_that_are_data(kwargs, match):
    # an array's .mT raised ValueError while its attributes were scanned for
    # hooks; `if autoload:` on an empty array raised ValueError
    with pytest.raises(navcore.PluginError, match=match):
        navcore.World(**kwargs)


@pytest.fixture
def every():
    world = navcore.World()
    world.add_graph("g", type="grid", rows=["....", "...."])
    world.add_graph("c", type="csr", src=[0, 1], dst=[1, 2])
    world.add_graph("r", type="roads", src=[0, 1], dst=[1, 2], length=[10.0, 10.0],
                    speed=[30.0, 30.0], way=[7, 8], oneway=False)
    world.add_graph("m", type="navmesh", bounds=(0, 0, 10, 10))
    return world


@pytest.mark.parametrize("gid, params, match", [
    ("g", dict(cells=[[0, 0], [1]], walkable=False), "cells must be an array"),
    ("g", dict(rect=(0, 0, 2, 2), cost=10 ** 400), "cost must be a number"),
    ("g", dict(rect=(0, 0, 2, 2), cost=np.ones((2, 2), complex)), "cost must be a number"),
    ("g", dict(mask=[[True], [True, False]], cost=1.0), "mask must be an array"),
    ("g", dict(mask=np.ones((2, 4), bool), cost=[[1.0], [1.0, 2.0]]), "cost must be an array"),
    ("c", dict(nodes=[[0], [1, 2]], walkable=False), "must be an array"),
    ("c", dict(edges=[[0, 1], [1]], cost=1.0), "edges must be an array"),
    ("c", dict(edges=[(0, 1)], cost=10 ** 400), "cost must be numbers"),
    ("c", dict(edges=[(0, 1)], cost=[1.0, 2.0, 3.0]), "cost must be numbers"),
    ("r", dict(osm_way=[[7], [7, 8]], cost=float("inf")), "osm_way must be an array"),
    ("r", dict(nodes=[[0], [1, 2]], walkable=False), "nodes must be an array"),
    ("r", dict(edges=[(0, 1)], factor=10 ** 400), "factor must be a number"),
    ("m", dict(rect=(0, 0, 10 ** 400, 1), walkable=False), "rect must be"),
])
def test_ragged_huge_or_complex_update_values(every, gid, params, match):
    # numpy raised ValueError (ragged, broadcast) or OverflowError (10**400);
    # complex costs were cast to their real part with a warning
    with pytest.raises(navcore.UpdateError, match=match):
        every.update(gid, **params)
    assert every.pending_updates() == 0


@pytest.mark.parametrize("gid", ["m", "r"])
def test_points_with_an_int_too_large_for_a_float(every, gid):
    # validate.xy's fast path ran float(10**400): OverflowError
    far = (10 ** 400, 0)
    for call in (lambda: every.find_path(gid, far, 0), lambda: every.locate(gid, far),
                 lambda: every.distance_matrix(gid, [far], [0])):
        with pytest.raises(navcore.NodeError, match="coordinate too large for a float"):
            call()


@pytest.mark.parametrize("params, match", [
    (dict(bounds=(0, 0, 10 ** 400, 1)), "bounds must be"),
    (dict(bounds=(0, 0, 10, 10), agent_radius=10 ** 400),
     "agent_radius must be a finite number"),
    (dict(bounds=(0, 0, 10, 10), snap=10 ** 400), "snap must be a finite number"),
    (dict(bounds=(0, 0, 10, 10), tile_size=10 ** 400), "tile_size must be a finite number"),
    (dict(bounds=(0, 0, 10, 10), obstacles=[[[1, 1], [10 ** 400, 1], [2, 2]]]),
     r"obstacles\[0\] must be a ring"),
    (dict(vertices=[[0, 0], [1, 0], [0, 1]], polygons=[[0, 1, 2 ** 63]]),
     r"polygons\[0\] names vertex 9223372036854775808, beyond any vertex id"),
])
def test_navmesh_numbers_too_large_for_a_float_or_an_int64(w, params, match):
    # float(10**400) and np.array([2**63], int64) raised OverflowError
    _refused(w, navcore.GraphError, match, type="navmesh", **params)


@pytest.mark.parametrize("params", [
    dict(bounds=(0, 0, 1e300, 1e300)), dict(walkable=[[0, 0], [1e300, 0], [0, 1e300]]),
    dict(vertices=[[0, 0], [1e300, 0], [0, 1e300]], polygons=[[0, 1, 2]]),
    dict(bounds=(1e15, 1e15, 1e15 + 10, 1e15 + 10))])
def test_navmesh_coordinates_beyond_the_limit(w, params):
    # 1e300 gave "positions of node 0 are not finite: [nan, nan]" (areas
    # overflow); at 1e15 a float's spacing is 0.125, too coarse for a mesh
    _refused(w, navcore.GraphError, r"1e\+12", type="navmesh", **params)


def test_navmesh_rect_update_beyond_the_limit(every):
    with pytest.raises(navcore.UpdateError, match=r"within ±1e\+12"):
        every.update("m", rect=(0, 0, 1e300, 1), walkable=False)


def test_tile_size_that_would_build_for_minutes(w):
    # 0.01 on a 10 x 10 square: a million tiles, minutes of clipping
    _refused(w, navcore.GraphError, r"into 1000000 tiles \(at most 65536\)", type="navmesh",
             bounds=(0, 0, 10, 10), tile_size=0.01)
    g = w.add_graph("new", type="navmesh", bounds=(0, 0, 10, 10), tile_size=0.5)
    assert g.tiles.grid.count == 400


@pytest.mark.parametrize("params, match", [
    (dict(type="grid", rows=[".."], diagonal_cost=10 ** 400), "diagonal_cost must be"),
    (dict(type="grid", rows=[".."], connectivity=np.array([4, 8])), "connectivity must be 4 or 8"),
    (dict(type="csr", src=[0], dst=[1], positions=[[10 ** 400, 0], [0, 0]]),
     "positions must be numbers"),
    (dict(type="roads", geojson={"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"speed": 10 ** 400},
         "geometry": {"type": "LineString", "coordinates": [[0, 0], [0.001, 0]]}}]}),
     "speed"),
])
def test_builder_numbers_past_a_float_or_arrays_as_scalars(w, params, match):
    # float(10**400) / math.isfinite(10**400): OverflowError; `array in (4, 8)`:
    # "truth value of an array is ambiguous"
    error = navcore.MapFormatError if "geojson" in params else navcore.GraphError
    _refused(w, error, match, **params)


@pytest.mark.parametrize("params, match", [
    (dict(type="grid", array=np.ones((2, 2), complex)), "got dtype complex128"),
    (dict(type="grid", array=np.zeros((2, 2), "timedelta64[s]")), "got dtype timedelta64"),
    (dict(type="csr", src=np.array([1], "timedelta64[s]"), dst=[0]), "got dtype timedelta64"),
    (dict(type="csr", src=[0], dst=[1], positions=np.ones((2, 2), complex)),
     "positions must be numbers"),
])
def test_complex_and_timedelta_arrays_are_not_numbers_here(w, params, match):
    # were accepted: complex cast to its real part (a ComplexWarning),
    # timedelta64 taken for integers by np.issubdtype(.., np.integer)
    _refused(w, navcore.GraphError, match, **params)


def test_numbers_of_thousands_of_digits_in_files(w, tmp_path):
    # int() of 5000 digits: ValueError "Exceeds the limit (4300 digits)";
    # int(400 digits) / 1e6: OverflowError
    many, some = "9" * 5000, "9" * 400
    (tmp_path / "a.map").write_text(f"type octile\nheight {many}\nwidth 2\nmap\n..\n")
    _refused(w, navcore.MapFormatError, r"a.map:2: height has 5000 digits; a number may have "
             r"at most 64", type="grid", map=str(tmp_path / "a.map"))
    (tmp_path / "a.mesh").write_text(f"mesh\n2\n3 1\n0 0 1 0\n1 0 1 0\n0 1 1 {many}\n"
                                     f"3 0 1 2 -1 -1 -1\n")
    _refused(w, navcore.MeshFormatError, r"a.mesh:6: a polygon id of vertex 2 has 5000 digits",
             type="navmesh", mesh=str(tmp_path / "a.mesh"))
    (tmp_path / "a.gr").write_text("p sp 2 1\na 1 2 3\n")
    (tmp_path / "a.co").write_text(f"p aux sp co 2\nv 1 {some} 0\nv 2 0 0\n")
    _refused(w, navcore.MapFormatError, r"a.co:2: 'v ID X Y' needs integers", type="roads",
             dimacs=str(tmp_path / "a.gr"), coords=str(tmp_path / "a.co"))


def test_geojson_with_an_integer_of_thousands_of_digits(w, tmp_path):
    # json.loads raised a bare ValueError: Exceeds the limit (4300 digits)
    path = tmp_path / "a.geojson"
    path.write_text('{"type": "FeatureCollection", "features": [], "n": ' + "9" * 5000 + "}")
    _refused(w, navcore.MapFormatError, r"a.geojson: a number in the JSON has more than 4300 "
             r"digits", type="roads", geojson=str(path))


def test_road_search_without_coordinates_reads_no_coordinate():
    # the A* kernel read unit[t] from its one-row stand-in array even for
    # Dijkstra (scale 0): out of bounds, silent under numba, an IndexError
    # with NUMBA_DISABLE_JIT=1 (this test runs in the nojit selection too)
    world = navcore.World()
    world.add_graph("r", type="roads", src=[0, 1], dst=[1, 2], cost=[1.0, 2.0],
                    length=[10.0, 10.0], oneway=False)
    assert world.find_path("r", 0, 2, algorithm="dijkstra").cost == 3.0


@pytest.mark.parametrize("seed", [np.array([], dtype=np.complex64), np.array([1, 2])])
def test_grid_seed_given_as_an_array_without_generate(w, seed):
    # (width, height, seed) != (None, None, None) compared the array with
    # None element-wise: "truth value of an empty array is ambiguous"
    _refused(w, navcore.GraphError, r"seed= go with generate=", type="grid", rows=["..", ".."],
             seed=seed)


@pytest.mark.parametrize("kind, params", [
    ("csr", dict(src=[0, 1], dst=[1, 2], num_nodes=np.timedelta64(3, "s"))),
    ("grid", dict(generate="maze", width=np.timedelta64(3, "s"), height=2)),
    ("grid", dict(generate="maze", width=3, height=2, seed=np.timedelta64(1, "s"))),
    ("grid", dict(rows=["..", ".."], diagonal_cost=np.timedelta64(1, "s"))),
])
def test_a_timedelta_is_not_a_count(w, kind, params):
    # numpy makes timedelta64 a subclass of its integers: int() of one is a
    # TypeError, and comparisons with numbers pass
    with pytest.raises(navcore.GraphError):
        w.add_graph("t", type=kind, **params)
    assert "t" not in w.graphs


def test_a_heuristic_given_as_an_array(w):
    # `array([]) not in HEURISTICS`: "the truth value of an empty array is ambiguous"
    _refused(w, navcore.GraphError, "unknown heuristic", type="csr", src=[0, 1], dst=[1, 2],
             positions=[[0, 0], [1, 0], [0, 1]], heuristic=np.array([], dtype="<U1"))


@pytest.mark.parametrize("ids, error, match", [
    ([0.0, 1e30], navcore.CapacityError, "src holds node id 1e\\+30, beyond the int32"),
    ([0.0, -1e30], navcore.GraphError, "src holds negative node id -1e\\+30"),
])
def test_whole_float_ids_beyond_int64(w, ids, error, match):
    # the cast to int64 wrapped them around (numpy: "invalid value encountered in cast")
    with np.errstate(invalid="raise"):
        _refused(w, error, match, type="csr", src=ids, dst=[1, 2])


def test_nearest_node_to_a_point_far_beyond_the_positions(w):
    # the squared distances overflowed to inf, so every node tied and node 0 won
    g = w.add_graph("far", type="csr", src=[0, 1], dst=[1, 2],
                    positions=[[-1e200, 0.0], [0.0, 0.0], [1e200, 0.0]])
    with np.errstate(over="raise"):
        assert w.locate("far", (1e201, 0.0)) == 2
        assert w.locate("far", (-1e201, 5.0)) == 0
    assert g.locate((1.0, 1.0)) == 1
