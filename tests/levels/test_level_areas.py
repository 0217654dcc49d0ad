"""Area types on level graphs: marking at build (``areas=`` volumes,
``tag_areas=``; ``navcore_levels.areas``) and per-query filters and costs
(``include_areas=``, ``exclude_areas=``, ``area_costs=``;
``navcore_navmesh.areafilter``).

Truths: the volumes' geometry (which cell centres lie inside), a
visibility-graph shortest length over the polygons a filter lets through
(``reference.visibility_length``), the same level with the strip cut out
by an ``"unwalkable"`` volume, a hand-computed detour, and polygon-graph
costs summed from the centroids."""
from __future__ import annotations

import math
import re
import time

import numpy as np
import pytest
import shapely

import navcore
import navcore.testing
from tests.reference import visibility_length

CELL = 0.3
FLOOR = np.array([[0, 0, 0], [20, 0, 0], [20, 0, 10], [0, 0, 10]], dtype=float)
QUADS = np.array([[0, 2, 1], [0, 3, 2]])
#: water across the floor from z = -1 to 7: a dry way round it at z > 7
STRIP = [[8, -1], [12, -1], [12, 7], [8, 7]]
WATER = {"convex": STRIP, "ymin": -1, "ymax": 1, "area": "water"}
S, G = (1.0, 0.0, 2.0), (19.0, 0.0, 2.0)
#: the cells whose centre lies in the strip, eroded floor from z = 0.9:
#: x 8.1..12.0, z 0.9..6.9; the detour turns at their two far corners
DETOUR = math.hypot(8.1 - 1, 6.9 - 2) + (12.0 - 8.1) + math.hypot(19 - 12.0, 6.9 - 2)


def polygons(graph, which=None):
    """Shapely polygons of the graph's ground projection (x, z)."""
    out = []
    ids = range(graph.num_polygons) if which is None else which
    for p in ids:
        corners = graph.poly_verts[graph.poly_start[p]:graph.poly_start[p + 1]]
        out.append(shapely.Polygon(graph.vertices[corners]))
    return out


@pytest.fixture(scope="module")
def pond():
    w = navcore.World()
    g = w.add_graph("pond", type="level", vertices=FLOOR, triangles=QUADS, areas=[WATER])
    yield w, g
    w.close()


def water_of(graph):
    return np.flatnonzero(graph.area_ids == graph.area_names["water"])


def test_the_volume_marks_exactly_the_cells_whose_centre_is_inside(pond):
    _, g = pond
    assert g.area_names["water"] not in (0, 63)
    wet = water_of(g)
    assert wet.size and (g.area_ids[np.setdiff1d(np.arange(g.num_polygons), wet)] == 63).all()
    # the marked cells: centres at 0.15 + 0.3 k inside [8, 12] x [-1, 7], on
    # the floor left after erosion (z >= 0.9)
    want = shapely.box(8.1, 0.9, 12.0, 6.9)
    got = shapely.union_all(polygons(g, wet))
    assert got.symmetric_difference(want).area < 1e-9
    dry = shapely.union_all(polygons(g, np.setdiff1d(np.arange(g.num_polygons), wet)))
    assert dry.intersection(want).area < 1e-9


ALGORITHMS = ["polyanya", "funnel"]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("option", [{"exclude_areas": ["water"]},
                                    {"include_areas": ["walkable"]},
                                    {"include_areas": [63]},
                                    {"include_areas": "walkable", "exclude_areas": []}])
def test_leaving_water_out_walks_round_it(pond, algorithm, option):
    w, g = pond
    plain = w.find_path("pond", S, G, algorithm=algorithm)
    assert plain.cost == pytest.approx(18.0)          # straight across the water
    r = w.find_path("pond", S, G, algorithm=algorithm, **option)
    assert r.status is navcore.PathStatus.FOUND
    assert r.cost == pytest.approx(DETOUR, abs=1e-9)
    assert not np.isin(r.nodes, water_of(g)).any()
    dry = shapely.union_all(polygons(g, np.flatnonzero(g.area_ids == 63)))
    assert r.cost == pytest.approx(visibility_length(dry, (S[0], S[2]), (G[0], G[2])),
                                   abs=1e-6)


def test_excluding_equals_the_level_with_the_strip_cut_out(pond):
    w, _ = pond
    cut = dict(WATER, area="unwalkable")
    w.add_graph("cut", type="level", vertices=FLOOR, triangles=QUADS, areas=[cut])
    try:
        for a, b in [(S, G), ((1.0, 0.0, 1.0), (19.0, 0.0, 8.0)), ((5, 0, 8.5), (15, 0, 1))]:
            want = w.find_path("cut", a, b)
            got = w.find_path("pond", a, b, exclude_areas=["water"])
            assert got.cost == pytest.approx(want.cost, abs=1e-9)
    finally:
        w.remove_graph("cut")


def test_ends_on_left_out_polygons_are_refused(pond):
    w, _ = pond
    wet = (10.0, 0.0, 3.0)
    assert w.find_path("pond", wet, G).status is navcore.PathStatus.FOUND
    for algorithm in ALGORITHMS + ["polygon_astar"]:
        r = w.find_path("pond", wet, G, algorithm=algorithm, exclude_areas=["water"])
        assert r.status is navcore.PathStatus.INVALID_START
        r = w.find_path("pond", S, wet, algorithm=algorithm, include_areas=["walkable"])
        assert r.status is navcore.PathStatus.INVALID_GOAL
    s = w.begin_search("pond", wet, G, exclude_areas=["water"])
    s.step()
    assert s.result().status is navcore.PathStatus.INVALID_START


@pytest.mark.parametrize("cost, crosses", [(0.5, True), (1.0, True),
                                           (5.0, False), (50.0, False)])
def test_funnel_weighs_area_costs(pond, cost, crosses):
    w, g = pond
    r = w.find_path("pond", S, G, algorithm="funnel", area_costs={"water": cost})
    assert np.isin(r.nodes, water_of(g)).any() == crosses
    assert r.cost == pytest.approx(18.0 if crosses else DETOUR, abs=1e-9)   # a length


def test_polygon_searches_cost_the_weighted_polygon_graph(pond):
    w, g = pond
    weights = {63: 1.0, g.area_names["water"]: 2.5}
    for algorithm in ("polygon_astar", "polygon_dijkstra"):
        r = w.find_path("pond", S, G, algorithm=algorithm, area_costs={"water": 2.5})
        c = g.positions[r.nodes]
        step = np.hypot(*(c[1:] - c[:-1]).T)
        mean = [(weights[g.area_ids[u]] + weights[g.area_ids[v]]) / 2
                for u, v in zip(r.nodes[:-1], r.nodes[1:])]
        assert r.cost == pytest.approx(float((step * mean).sum()), rel=1e-12)
        # and no walk over the weighted polygon graph is cheaper
        d = w.find_path("pond", S, G, algorithm="polygon_dijkstra",
                        area_costs={"water": 2.5})
        assert r.cost == pytest.approx(d.cost, rel=1e-12)


def test_polyanya_refuses_area_costs_and_names_the_alternatives(pond):
    w, _ = pond
    for algorithm in ("auto", "polyanya", "astar"):
        with pytest.raises(navcore.QueryError, match="funnel.*polygon_astar"):
            w.find_path("pond", S, G, algorithm=algorithm, area_costs={"water": 3.0})
        with pytest.raises(navcore.QueryError, match="funnel"):
            w.begin_search("pond", S, G, algorithm=algorithm, area_costs={"water": 3.0})
    r = w.find_path("pond", S, G, area_costs={"water": 1.0, "walkable": 1})
    assert r.cost == pytest.approx(18.0)


@pytest.mark.parametrize("algorithm, options", [
    ("polyanya", {"exclude_areas": ["water"]}),
    ("funnel", {"area_costs": {"water": 5.0}}),
    ("polygon_astar", {"area_costs": {"water": 5.0}, "exclude_areas": []}),
])
def test_stepped_searches_match_find_path(pond, algorithm, options):
    w, _ = pond
    whole = w.find_path("pond", S, G, algorithm=algorithm, **options)
    s = w.begin_search("pond", S, G, algorithm=algorithm, **options)
    steps = 0
    while not s.step(1):
        steps += 1
    r = s.result()
    assert steps > 0
    assert r.cost == pytest.approx(whole.cost, abs=1e-12)
    assert r.nodes.tolist() == whole.nodes.tolist()
    np.testing.assert_allclose(r.points, whole.points, atol=1e-12)


@pytest.mark.parametrize("options, fragment", [
    ({"exclude_areas": ["lava"]}, "unknown area 'lava'"),
    ({"include_areas": "lava"}, "unknown area 'lava'"),
    ({"include_areas": [64]}, "area id 64"),
    ({"include_areas": 3.5}, "list of area names"),
    ({"area_costs": {"lava": 2}}, "unknown area 'lava'"),
    ({"area_costs": {"water": 0}}, "must be a number > 0 and at most"),
    ({"area_costs": {"water": float("nan")}}, "must be a number > 0 and at most"),
    ({"area_costs": {"water": "2"}}, "must be a number > 0 and at most"),
    ({"area_costs": ["water"]}, "mapping of area"),
])
def test_bad_query_options_are_query_errors(pond, options, fragment):
    w, _ = pond
    with pytest.raises(navcore.QueryError, match=fragment):
        w.find_path("pond", S, G, algorithm="funnel", **options)


def test_area_options_are_refused_where_polygons_have_no_areas():
    w = navcore.World()
    w.add_graph("flat", type="navmesh", bounds=(0, 0, 10, 10))
    with pytest.raises(navcore.QueryError, match="unknown find_path option"):
        w.find_path("flat", (1, 1), (9, 9), exclude_areas=["water"])
    w.close()


def test_box_and_cylinder_volumes():
    w = navcore.World()
    box = {"box": [[2, -1, 2], [5, 1, 5]], "area": "sand"}
    cyl = {"cylinder": {"center": [15, -1, 5], "radius": 2.5, "height": 2}, "area": 7}
    g = w.add_graph("v", type="level", vertices=FLOOR, triangles=QUADS, areas=[box, cyl])
    assert g.area_names["sand"] == 1
    sand = shapely.union_all(polygons(g, np.flatnonzero(g.area_ids == 1)))
    # every cell overlapping [2, 5] on x and z: cells 6..16 (1.8 .. 5.1)
    assert sand.symmetric_difference(shapely.box(1.8, 1.8, 5.1, 5.1)).area < 1e-9
    seven = shapely.union_all(polygons(g, np.flatnonzero(g.area_ids == 7)))
    disc = shapely.Point(15, 5).buffer(2.5, 256)
    assert seven.area > 0.8 * disc.area
    # only cells whose centre is in the disc: never beyond half a cell's diagonal
    assert seven.difference(disc.buffer(CELL * math.sqrt(0.5) + 1e-9)).area < 1e-9
    w.close()


def test_later_volumes_overwrite_earlier_ones_and_unwalkable_cuts_holes():
    w = navcore.World()
    hole = {"box": [[9, -1, 3], [11, 1, 5]], "area": "unwalkable"}
    g = w.add_graph("h", type="level", vertices=FLOOR, triangles=QUADS, areas=[WATER, hole])
    ground = shapely.union_all(polygons(g))
    assert ground.intersection(shapely.box(9.3, 3.3, 10.7, 4.7)).area < 1e-9
    assert (g.area_ids == g.area_names["water"]).any()
    w.close()


def test_z_up_volumes_are_in_the_callers_axes():
    w = navcore.World()
    zup = FLOOR[:, [0, 2, 1]] * [1, -1, 1]            # (x, y, z) -> (x, -z, y): z up
    spec = {"convex": [[x, -z] for x, z in STRIP], "zmin": -1, "zmax": 1, "area": "water"}
    g = w.add_graph("z", type="level", vertices=zup, triangles=QUADS, up="z",
                    areas=[spec])
    wet = shapely.union_all(polygons(g, water_of(g)))
    assert wet.symmetric_difference(shapely.box(8.1, -6.9, 12.0, -0.9)).area < 1e-9
    r = w.find_path("z", (1, -2, 0), (19, -2, 0), exclude_areas=["water"])
    assert r.cost == pytest.approx(DETOUR, abs=1e-9)
    with pytest.raises(navcore.GraphError, match=r"areas\[0\].*zmin and zmax"):
        w.add_graph("z2", type="level", vertices=zup, triangles=QUADS, up="z",
                    areas=[WATER])
    w.close()


def test_tiled_levels_mark_volumes_too(pond):
    w = navcore.World()
    g = w.add_graph("t", type="level", vertices=FLOOR, triangles=QUADS, areas=[WATER],
                    tile_size=24)
    wet = shapely.union_all(polygons(g, water_of(g)))
    assert wet.symmetric_difference(shapely.box(8.1, 0.9, 12.0, 6.9)).area < 1e-9
    r = w.find_path("t", S, G, exclude_areas=["water"])
    assert r.cost == pytest.approx(DETOUR, abs=1e-9)
    w.close()


OBJ = """\
v 0 0 0
v 10 0 0
v 10 0 10
v 0 0 10
v 20 0 0
v 20 0 10
usemtl Floor
f 1 4 3 2
usemtl Water_Material
f 2 3 6 5
"""


def test_tag_areas_from_obj_materials(tmp_path):
    path = tmp_path / "two.obj"
    path.write_text(OBJ)
    w = navcore.World()
    g = w.add_graph("o", type="level", level=str(path), tag_areas={"Water_Material": "water"})
    wet = shapely.union_all(polygons(g, water_of(g)))
    dry = shapely.union_all(polygons(g, np.flatnonzero(g.area_ids == 63)))
    # the water material's surface is x >= 10 (cells from 9.9: the one the
    # two triangles share is rasterized by both, the later one's area kept)
    assert wet.area > 0 and dry.area > 0
    assert wet.bounds[0] >= 9.9 - 1e-9 and dry.bounds[2] <= 10.2 + 1e-9
    r = w.find_path("o", (1, 0, 5), (19, 0, 5), exclude_areas=["water"])
    assert r.status is navcore.PathStatus.INVALID_GOAL
    holes = w.add_graph("o2", type="level", level=str(path),
                        tag_areas={"Water_Material": "unwalkable"})
    assert shapely.union_all(polygons(holes)).bounds[2] <= 10.2 + 1e-9
    with pytest.raises(navcore.GraphError, match="no tag 'Lava'.*'Floor', 'Water_Material'"):
        w.add_graph("o3", type="level", level=str(path), tag_areas={"Lava": "lava"})
    assert "o3" not in w.graphs
    w.close()


BAD_SPECS = [
    ({"sphere": [0, 0, 0], "area": "x"}, "exactly one shape key"),
    ({"convex": STRIP, "box": [[0, 0, 0], [1, 1, 1]], "ymin": 0, "ymax": 1, "area": "x"},
     "exactly one shape key"),
    ({"convex": [[0, 0], [1, 1]], "ymin": 0, "ymax": 1, "area": "x"}, "3 or more"),
    ({"convex": STRIP, "ymin": 2, "ymax": 1, "area": "x"}, "ymin 2 is above ymax 1"),
    ({"convex": STRIP, "ymin": float("nan"), "ymax": 1, "area": "x"}, "ymin must be a finite"),
    ({"convex": [[0, 0], [1, float("nan")], [1, 1]], "ymin": 0, "ymax": 1, "area": "x"},
     "convex"),
    ({"convex": STRIP, "ymax": 1, "area": "x"}, "missing ymin"),
    ({"convex": STRIP, "ymin": 0, "ymax": 1}, "no 'area'"),
    ({"convex": STRIP, "ymin": 0, "ymax": 1, "area": 64}, "area id 64"),
    ({"convex": STRIP, "ymin": 0, "ymax": 1, "area": 1.5}, "area must be a name"),
    ({"convex": STRIP, "ymin": 0, "ymax": 1, "area": "x", "colour": 1}, "unknown key"),
    ({"box": [[5, 0, 0], [1, 1, 1]], "area": "x"}, "beyond corner 1 .* along x"),
    ({"box": [[0, 0], [1, 1]], "area": "x"}, "box corner 0 must be a point"),
    ({"cylinder": {"center": [0, 0, 0], "radius": 1}, "area": "x"}, "cylinder must be"),
    ({"cylinder": {"center": [0, 0, 0], "radius": -1, "height": 1}, "area": "x"}, ">= 0"),
    ("water", "must be a mapping"),
]


@pytest.mark.parametrize("spec, fragment", BAD_SPECS)
def test_bad_area_specs_name_their_index_and_add_nothing(spec, fragment):
    w = navcore.World()
    with pytest.raises(navcore.GraphError, match=r"areas\[1\]") as info:
        w.add_graph("bad", type="level", vertices=FLOOR, triangles=QUADS, areas=[WATER, spec])
    assert re.search(fragment, str(info.value)), str(info.value)
    assert "bad" not in w.graphs
    w.close()


def test_areas_must_be_a_list():
    w = navcore.World()
    with pytest.raises(navcore.GraphError, match="areas must be a list"):
        w.add_graph("bad", type="level", vertices=FLOOR, triangles=QUADS, areas=WATER)
    with pytest.raises(navcore.GraphError, match="tag_areas must be a mapping"):
        w.add_graph("bad", type="level", vertices=FLOOR, triangles=QUADS, tag_areas=["x"])
    w.close()


class _PondFactory(navcore.testing.GraphFactory):
    """The pond level (for the kit's option check only)."""

    graph_type = "level"

    def build(self, world, graph_id, rng):
        return world.add_graph(graph_id, type="level", vertices=FLOOR, triangles=QUADS,
                               areas=[WATER])

    def random_update(self, graph, rng):
        return {"nodes": [0], "walkable": bool(rng.random() < 0.5)}

    def block_nodes(self, graph, nodes):
        return {"nodes": list(nodes), "walkable": False}


def test_the_area_options_are_declared_read_and_checked():
    # the conformance kit: each declared option is read by some algorithm,
    # a probe value refused with a QueryError, undeclared names refused
    navcore.testing.check_options_are_read_or_refused(_PondFactory())


def test_readme_areas_example(capsys):
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = text.split("### 3D levels")[1]
    block = next(b.split("```")[0] for b in section.split("```python\n")[1:]
                 if "area_costs" in b.split("```")[0])
    exec(compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    claimed = [ln[2:] for ln in block.splitlines() if ln.startswith("# ")
               and not ln.startswith("# a yard")]
    assert printed == claimed


@pytest.mark.parametrize("background", [False, True])
def test_requests_take_area_options(background):
    w = navcore.World(background=True, workers=1) if background else navcore.World()
    try:
        w.add_graph("pond", type="level", vertices=FLOOR, triangles=QUADS, areas=[WATER])
        round_it = w.request_path("pond", S, G, exclude_areas=["water"])
        across = w.request_path("pond", S, G)
        dear = w.request_path("pond", S, G, algorithm="funnel", area_costs={"water": 9.0},
                              repath=True)
        wet = w.request_path("pond", (10.0, 0.0, 3.0), G, include_areas=["walkable"])
        handles = (round_it, across, dear, wet)
        for _ in range(500):
            w.tick()
            if all(h.done for h in handles):
                break
            if background:
                time.sleep(0.01)
        assert round_it.result().cost == pytest.approx(DETOUR, abs=1e-9)
        assert across.result().cost == pytest.approx(18.0)
        assert dear.result().cost == pytest.approx(DETOUR, abs=1e-9)
        assert wet.result().status is navcore.PathStatus.INVALID_START
        # checked when asked for
        with pytest.raises(navcore.QueryError, match="unknown area 'lava'"):
            w.request_path("pond", S, G, exclude_areas=["lava"])
        with pytest.raises(navcore.QueryError, match="area_costs are not honoured"):
            w.request_path("pond", S, G, area_costs={"water": 2.0})
        with pytest.raises(navcore.QueryError, match="unknown find_path option"):
            w.request_path("pond", S, G, exclude_area=["water"])
    finally:
        w.close()


#: a teleport from above the water's west half to the east side: cheaper
#: than the dry way round, dearer than straight across the water
NORTH = {"start": (11.0, 0.0, 8.0), "end": (18.5, 0.0, 8.5), "cost": 0.5, "kind": "teleport"}
#: two teleports whose ends the water parts: the walk between them crosses
#: it, or (water left out) goes round
HOPS = [{"start": (1.5, 0.0, 1.5), "end": (5.0, 0.0, 2.0), "cost": 0.1},
        {"start": (15.0, 0.0, 2.0), "end": (18.5, 0.0, 1.5), "cost": 0.1}]


@pytest.fixture(scope="module")
def linked():
    w = navcore.World()
    for gid, links in (("north", [NORTH]), ("hops", HOPS)):
        w.add_graph(gid, type="level", vertices=FLOOR, triangles=QUADS, areas=[WATER],
                    links=links)
        w.add_graph(f"{gid}_cut", type="level", vertices=FLOOR, triangles=QUADS,
                    areas=[dict(WATER, area="unwalkable")], links=links)
    yield w
    w.close()


def test_filters_on_a_graph_with_links_walk_round_and_take_the_link(linked):
    w = linked
    assert w.find_path("north", S, G).cost == pytest.approx(18.0)   # straight across
    r = w.find_path("north", S, G, exclude_areas=["water"])
    # the walk to the link's start turns round the water's corner (8.1, 6.9)
    want = (math.hypot(8.1 - 1, 6.9 - 2) + math.hypot(11 - 8.1, 8 - 6.9) + 0.5
            + math.hypot(19 - 18.5, 8.5 - 2))
    assert want < DETOUR
    assert r.cost == pytest.approx(want, abs=1e-9)
    (taken,) = r.links
    assert (taken.link, taken.kind) == (0, "teleport")
    ground = r.points[:, [0, 2]]            # (the surface lies a cell height up)
    np.testing.assert_allclose(ground[taken.point], (11.0, 8.0), atol=1e-6)
    np.testing.assert_allclose(ground[taken.point + 1], (18.5, 8.5), atol=1e-6)
    assert not np.isin(r.nodes, water_of(w.graphs["north"])).any()
    # the same level with the water cut out of the geometry
    cut = w.find_path("north_cut", S, G)
    assert cut.cost == pytest.approx(r.cost, abs=1e-9) and cut.links == r.links


def test_filtered_and_plain_walks_between_links_are_kept_apart(linked):
    w = linked
    a, b = (1.0, 0.0, 1.0), (19.0, 0.0, 1.0)
    fresh = navcore.World()
    try:
        fresh.add_graph("hops", type="level", vertices=FLOOR, triangles=QUADS,
                        areas=[WATER], links=HOPS)
        plain_truth = fresh.find_path("hops", a, b)
    finally:
        fresh.close()
    cut_truth = w.find_path("hops_cut", a, b)
    assert cut_truth.cost > plain_truth.cost + 1
    for _ in range(2):           # each after the other's walks were kept
        got = w.find_path("hops", a, b, exclude_areas=["water"])
        assert got.cost == pytest.approx(cut_truth.cost, abs=1e-9)
        assert got.links == cut_truth.links
        plain = w.find_path("hops", a, b)
        assert plain.cost == plain_truth.cost and plain.links == plain_truth.links


def test_a_link_landing_on_a_left_out_polygon_is_not_taken():
    # platforms joined by a jump only; the jump lands in a puddle on the
    # upper platform: leaving the puddle out leaves no way up (nor down:
    # the jump back leaves from the puddle)
    from tests.levels.test_level_links import HIGH, LOW, PLATFORMS, UP
    puddle = {"convex": [[13, 4], [15, 4], [15, 6], [13, 6]], "ymin": 2, "ymax": 4,
              "area": "water"}
    w = navcore.World()
    try:
        g = w.add_graph("p", type="level", vertices=PLATFORMS[0], triangles=PLATFORMS[1],
                        cell_size=0.5, areas=[puddle], links=[UP])
        assert g.area_ids[g.links.polygon[0, 1]] == g.area_names["water"]
        assert g.area_ids[g.links.polygon[0, 0]] == g.area_names["walkable"]
        plain = w.find_path("p", LOW, HIGH)
        assert plain.found and len(plain.links) == 1
        for option in ({"exclude_areas": ["water"]}, {"include_areas": ["walkable"]}):
            for a, b in ((LOW, HIGH), (HIGH, LOW)):
                r = w.find_path("p", a, b, **option)
                assert r.status is navcore.PathStatus.UNREACHABLE and r.links == ()
                s = w.begin_search("p", a, b, **option)
                s.step()
                assert s.result().status is navcore.PathStatus.UNREACHABLE
        # a filter that leaves nothing out: the plain path, point for point
        same = w.find_path("p", LOW, HIGH, exclude_areas=[])
        assert same.points.tolist() == plain.points.tolist()
        assert same.cost == plain.cost and same.links == plain.links
    finally:
        w.close()


def test_filtered_linked_requests_and_stepped_searches_equal_find_path(linked):
    w = linked
    wet = (10.0, 0.0, 3.0)
    cases = [("north", S, G), ("hops", (1.0, 0.0, 1.0), (19.0, 0.0, 1.0)), ("north", wet, G),
             ("north", S, wet)]
    for gid, a, b in cases:
        whole = w.find_path(gid, a, b, exclude_areas=["water"])
        s = w.begin_search(gid, a, b, exclude_areas=["water"])
        while not s.step(1):
            pass
        for other in (s.result(), w.find_path(gid, a, b, max_nodes=10**6,
                                               exclude_areas=["water"])):
            assert other.status is whole.status and other.links == whole.links
            assert other.points.tolist() == whole.points.tolist() and other.cost == whole.cost
        assert s.result().expanded == whole.expanded
        h = w.request_path(gid, a, b, exclude_areas=["water"])
        for _ in range(50):
            w.tick()
            if h.done:
                break
        assert h.result().status is whole.status and h.result().cost == whole.cost
        assert h.result().links == whole.links
    assert w.find_path("north", wet, G, exclude_areas=["water"]).status \
        is navcore.PathStatus.INVALID_START
    assert w.find_path("north", S, wet, include_areas=["walkable"]).status \
        is navcore.PathStatus.INVALID_GOAL


def test_area_costs_and_non_exact_algorithms_on_linked_graphs_are_refused(linked):
    w = linked
    with pytest.raises(navcore.QueryError, match="area_costs are not honoured"):
        w.find_path("north", S, G, area_costs={"water": 2.0})
    with pytest.raises(navcore.QueryError, match="area_costs are not honoured"):
        w.begin_search("north", S, G, area_costs={"water": 2.0})
    with pytest.raises(navcore.QueryError, match="polyanya"):
        w.find_path("north", S, G, algorithm="funnel", exclude_areas=["water"])
    with pytest.raises(navcore.QueryError, match="unknown area 'lava'"):
        w.find_path("north", S, G, exclude_areas=["lava"])


def test_a_baked_mesh_keeps_area_ids_and_names_and_refuses_new_areas(tmp_path):
    from navcore_levels import load_level_mesh, save_level_mesh
    w = navcore.World()
    g = w.add_graph("pond", type="level", vertices=FLOOR, triangles=QUADS, areas=[WATER])
    path = tmp_path / "pond.npz"
    save_level_mesh(path, g)
    loaded = w.add_graph("baked", type="level", mesh=str(path))
    assert loaded.area_ids.tolist() == g.area_ids.tolist()
    assert loaded.area_names == g.area_names == {"walkable": 63, "unwalkable": 0, "water": 1}
    water = g.area_names["water"]
    for left_out in ([water], ["water"]):                       # an id or its name
        r = w.find_path("baked", S, G, exclude_areas=left_out)
        assert r.cost == pytest.approx(DETOUR, abs=1e-9)
    with pytest.raises(navcore.GraphError, match=r"areas cannot be given with it \(bake "
                                                 r"again: save_level_mesh"):
        w.add_graph("baked2", type="level", mesh=str(path), areas=[WATER])
    # a bake whose names are not {name: id 0..63} is refused naming the array
    arrays = dict(np.load(path))
    arrays["area_names"] = np.array('{"water": 99}')
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    with pytest.raises(navcore.MeshFormatError, match="area_names"):
        load_level_mesh(bad)
    w.close()


def test_filters_with_links_see_area_changes_at_run_time():
    # a tiled pond level whose strip is dry at build: an obstacle with
    # "area" floods it at run time; the filtered linked query follows.
    # Truths: the level built with the flood as a volume (filtered), and
    # with it cut out of the geometry
    corner = {"convex": [[0, 9.5], [0.5, 9.5], [0.5, 10], [0, 10]], "ymin": -1, "ymax": 1,
              "area": "water"}                  # declares the name, far from the paths
    flood = {"box": [[8, -1, -1], [12, 1, 7]], "area": "water"}
    w = navcore.World()
    try:
        for gid, areas in (("t", [corner]), ("built", [corner, flood]),
                           ("cut", [corner, dict(flood, area="unwalkable")])):
            w.add_graph(gid, type="level", vertices=FLOOR, triangles=QUADS, areas=areas,
                        links=[NORTH], tile_size=32)
        assert w.find_path("t", S, G, exclude_areas=["water"]).cost == pytest.approx(18.0)
        w.update("t", add_obstacle=flood, obstacle_id="flood")
        w.tick()
        r = w.find_path("t", S, G, exclude_areas=["water"])
        built = w.find_path("built", S, G, exclude_areas=["water"])
        cut = w.find_path("cut", S, G)
        assert r.cost == pytest.approx(built.cost, abs=1e-9)
        assert r.cost == pytest.approx(cut.cost, abs=1e-9)
        assert [x.link for x in r.links] == [x.link for x in cut.links] == [0]
        assert r.cost > 18.0 + 0.5
        w.update("t", remove_obstacle="flood")
        w.tick()
        assert w.find_path("t", S, G, exclude_areas=["water"]).cost == pytest.approx(18.0)
    finally:
        w.close()
