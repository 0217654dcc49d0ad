"""The ``level`` graph type: a 3D level's Recast navmesh searched as a
layered navmesh through the public World API (``navcore_levels.graph``,
``navcore_navmesh.layered``).

Truths: Detour's paths on RecastDemo's nav_test.obj (recorded by the C++
peer, ``nav_mesh_test.detour_paths.txt``), a visibility-graph shortest
length (``reference.visibility_length``), and the geometry of hand-made
levels (which floor a point must stay on)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import shapely

import navcore
from navcore_levels import length_3d
from navcore_navmesh import LayeredMeshGraph

from levelkit import join, quad
from recastpeer import LEVELS as DATA, parse_paths
from tests.reference import visibility_length

NAV_TEST = DATA / "nav_test.obj"
CELL = 0.3


def read_queries(path):
    rows = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            rows.append([float(t) for t in line.split()[:6]])
    return np.array(rows)


@pytest.fixture(scope="module")
def nav_world():
    if not NAV_TEST.exists():
        pytest.skip("nav_test.obj is not available")
    w = navcore.World()
    w.add_graph("lvl", type="level", level=str(NAV_TEST))      # 305 x 258 cells: tiled
    w.add_graph("solo", type="level", level=str(NAV_TEST), tile_size=0)
    return w


def horizontal(points):
    return float(np.sqrt((np.diff(points[:, [0, 2]], axis=0) ** 2).sum(axis=1)).sum())


def test_nav_test_queries_as_detour_finds_them(nav_world):
    queries = read_queries(DATA / "nav_mesh_test.queries")
    detour = parse_paths((DATA / "nav_mesh_test.detour_paths.txt").read_text())
    assert len(queries) == len(detour) == 21
    checked = 0
    for q, d in zip(queries, detour):
        if d.status != "ok":
            continue
        checked += 1
        for algorithm in ("polyanya", "funnel"):
            r = nav_world.find_path("lvl", tuple(q[:3]), tuple(q[3:]), algorithm=algorithm)
            assert r.found, (d.index, algorithm, r)
            assert r.points.shape[1] == 3
            # cost: the length in the ground plane, of the points given
            assert math.isclose(r.cost, horizontal(r.points), rel_tol=1e-9), (d.index, r.cost)
            # Detour's paths are not shortest, polyanya's are: never longer
            # than Detour's (its start is clamped onto the mesh: a cell)
            if algorithm == "polyanya":
                assert r.cost <= d.len2d + CELL, (d.index, r.cost, d.len2d)
            # the ends: on the ground where Detour's are (its start clamped
            # onto the polygon findNearestPoly chose); their heights on the
            # polygon (Detour keeps the caller's: a voxel, 0.2, apart)
            for i in (0, -1):
                assert np.abs(r.points[i, [0, 2]] - d.points[i, [0, 2]]).max() <= 1e-3, \
                    (d.index, r.points[i], d.points[i])
                assert abs(r.points[i, 1] - d.points[i, 1]) <= 0.15, (d.index, r.points[i])
            assert length_3d(r.points) >= r.cost - 1e-9
        # the funnel pulls taut a corridor chosen between centroids: never
        # shorter than the exact path
        if True:
            a = nav_world.find_path("lvl", tuple(q[:3]), tuple(q[3:]))
            b = nav_world.find_path("lvl", tuple(q[:3]), tuple(q[3:]), algorithm="funnel")
            assert a.cost <= b.cost + 1e-9
    assert checked == 21


def test_nav_test_polygon_search_and_areas(nav_world):
    q = read_queries(DATA / "nav_mesh_test.queries")[0]
    r = nav_world.find_path("lvl", tuple(q[:3]), tuple(q[3:]), algorithm="polygon_astar")
    assert r.found and r.points.shape == (len(r.nodes), 3)
    assert nav_world.reachable("lvl", tuple(q[:3]), tuple(q[3:]))
    s = nav_world.area("lvl", tuple(q[:3]))
    assert s >= 0 and s == nav_world.area("lvl", tuple(q[3:]))
    assert len(nav_world.areas("lvl")) == nav_world.graph("lvl").num_polygons


def test_nav_test_matrix_skips_pairs_in_different_parts(nav_world):
    # nav_test's walkable surface is many parts (roofs, ledges): most pairs
    # of random points are unreachable, and the matrix answers those
    # without a search, each entry still find_path's answer
    from navcore_navmesh import polyanya
    g = nav_world.graph("lvl")
    rng = np.random.default_rng(5)
    ends = [tuple(map(float, nav_world.random_point("lvl", rng).point)) for _ in range(16)]
    # and corners of polygons (y up: ground x, z and the height): ends that
    # start in every polygon around them
    for v in g.poly_verts[rng.choice(len(g.poly_verts), 4, replace=False)].tolist():
        ends.append((float(g.vertices[v, 0]), float(g.heights[v]), float(g.vertices[v, 1])))
    scratch = polyanya.search_space(g).scratch()
    before = int(scratch.skipped[0])
    m = nav_world.distance_matrix("lvl", ends, ends)
    skipped = int(scratch.skipped[0]) - before
    want = np.array([[nav_world.find_path("lvl", a, b).cost for b in ends] for a in ends])
    assert np.array_equal(np.isinf(m), np.isinf(want))
    np.testing.assert_allclose(m[np.isfinite(m)], want[np.isfinite(want)], rtol=1e-13, atol=0)
    assert skipped == np.isinf(m).sum() > len(ends)


def test_requests_served_by_tick(nav_world):
    q = read_queries(DATA / "nav_mesh_test.queries")[3]
    h = nav_world.request_path("lvl", tuple(q[:3]), tuple(q[3:]))
    for _ in range(20):
        nav_world.tick()
        if h.done:
            break
    got = h.result()
    want = nav_world.find_path("lvl", tuple(q[:3]), tuple(q[3:]))
    assert got.found and np.array_equal(got.points, want.points)
    # stepped one node at a time: find_path's path and expansions; on
    # the way a partial path in 3D from the start
    for algorithm in ("polyanya", "funnel", "polygon_astar"):
        whole = nav_world.find_path("lvl", tuple(q[:3]), tuple(q[3:]), algorithm=algorithm)
        s = nav_world.begin_search("lvl", tuple(q[:3]), tuple(q[3:]), algorithm=algorithm)
        assert not s.step(1)
        part = s.result(partial=True)
        assert part.status is navcore.PathStatus.PARTIAL and part.points.shape[1] == 3
        assert np.allclose(part.points[0], whole.points[0])
        while not s.step(1):
            pass
        got = s.result()
        assert np.array_equal(got.points, whole.points), algorithm
        assert got.expanded == whole.expanded and got.cost == whole.cost
    r = nav_world.find_path("lvl", tuple(q[:3]), tuple(q[3:]), max_nodes=1)
    assert r.status is navcore.PathStatus.BUDGET_EXCEEDED


def two_storeys():
    """A ground floor 24 x 10 at y = 0, an upper floor over its left part
    (x < 10) at y = 4, and a ramp from the upper floor's edge (x = 10) down
    to the ground at x = 20, along the back (z 6..10)."""
    return join(quad(0, 24, 0, 10, 0.0), quad(0, 10, 0, 10, 4.0),
                quad(10, 20, 6, 10, 4.0, 0.0, along="x"))


def test_two_storeys_upper_to_lower_goes_down_the_ramp():
    w = navcore.World()
    v, t = two_storeys()
    g = w.add_graph("house", type="level", vertices=v, triangles=t)
    up, down = (3.0, 4.0, 3.0), (3.0, 0.0, 3.0)         # one above the other
    assert g.heights[g.polygon(g.locate(up))].min() > 3.5
    assert g.heights[g.polygon(g.locate(down))].max() < 0.5
    # a point a little above the ground floor (a jump, a rounding) stays
    # there: Detour's nearest counts only the height beyond the climb
    assert g.locate((3.0, 1.5, 3.0)) == g.locate(down)
    assert g.locate((3.0, 3.0, 3.0)) == g.locate(up)
    for algorithm in ("polyanya", "funnel", "polygon_astar"):
        r = w.find_path("house", up, down, algorithm=algorithm)
        assert r.found, algorithm
        p = r.points
        if algorithm != "polygon_astar":
            assert np.allclose(p[0], up, atol=0.3) and np.allclose(p[-1], down, atol=0.3)
        # it walks to the ramp's foot and back: beyond x = 15, in the ramp's lane
        assert p[:, 0].max() > 15, (algorithm, p.tolist())
        on_ramp = (p[:, 0] > 10.5) & (p[:, 0] < 19.5) & (p[:, 2] > 6.5)
        assert on_ramp.any(), (algorithm, p.tolist())
        # points on the ramp's slope are at the ramp's height (0.2 m voxels);
        # polygon_astar's centroids lie inside polygons that fold over the
        # ramp's foot, whose fan of corners (no detail mesh yet) is off by more
        ramp_y = 4.0 * (20 - p[on_ramp, 0]) / 10
        tolerance = 1.0 if algorithm == "polygon_astar" else 0.5
        assert np.abs(p[on_ramp, 1] - ramp_y).max() < tolerance, (algorithm, p.tolist())
        if algorithm != "polygon_astar":
            assert r.cost >= 2 * 12.0                   # there and back along x
            assert length_3d(p) > r.cost                # it climbs down
            # the path follows the surface: every segment's middle lies on
            # a floor or the ramp (the points where it crosses from polygon
            # to polygon are there: no straight line from the upper floor
            # through the air to the ramp's foot)
            for m in (p[1:] + p[:-1]) / 2:
                heights = [0.2, 4.2]
                if 10 <= m[0] <= 20 and m[2] >= 6:
                    heights.append(4.0 * (20 - m[0]) / 10)
                assert min(abs(m[1] - h) for h in heights) < 0.5, (algorithm, m, p.tolist())


def bridge_over_road():
    """A road along x (z 6..14) at y = 0 and a bridge along z (x 12..18)
    crossing over it at y = 4."""
    return join(quad(0, 30, 6, 14, 0.0), quad(12, 18, 0, 20, 4.0))


def test_bridge_and_road_stay_on_their_floors():
    w = navcore.World()
    v, t = bridge_over_road()
    g = w.add_graph("x", type="level", vertices=v, triangles=t)
    road = g.locate((15.0, 0.1, 10.0))
    bridge = g.locate((15.0, 4.1, 10.0))
    assert road >= 0 and bridge >= 0 and road != bridge
    assert g.locate((15.0, 0.5, 10.0)) == road        # under the bridge: never the floor above
    for algorithm in ("polyanya", "funnel", "polygon_astar"):
        r = w.find_path("x", (2.0, 0.0, 10.0), (28.0, 0.0, 10.0), algorithm=algorithm)
        assert r.found and np.abs(r.points[:, 1]).max() < 0.5, (algorithm, r.points.tolist())
        assert np.all(g.heights[g.poly_verts[g.poly_start[r.nodes[0]]]] < 0.5)
        r = w.find_path("x", (15.0, 4.0, 2.0), (15.0, 4.0, 18.0), algorithm=algorithm)
        assert r.found and np.abs(r.points[:, 1] - 4.0).max() < 0.5, (algorithm,
                                                                      r.points.tolist())
    if algorithm:
        r = w.find_path("x", (2.0, 0.0, 10.0), (15.0, 4.0, 2.0))
        assert not r.found                               # no way up onto the bridge
        assert not w.reachable("x", (2.0, 0.0, 10.0), (15.0, 4.0, 2.0))


def test_single_floor_polyanya_equals_visibility_graph():
    # a 20 x 20 floor with a 6 x 4 hole in the middle
    v, t = join(quad(0, 20, 0, 7, 0.0), quad(0, 20, 11, 20, 0.0), quad(0, 7, 7, 11, 0.0),
                quad(13, 20, 7, 11, 0.0))
    w = navcore.World()
    g = w.add_graph("yard", type="level", vertices=v, triangles=t)
    free = shapely.union_all([shapely.Polygon(g.polygon_points(p)) for p in
                              range(g.num_polygons)])
    for s, e in [((10.0, 0.0, 3.0), (10.0, 0.0, 16.0)), ((2.0, 0.0, 2.0), (18.0, 0.0, 18.0)),
                 ((3.0, 0.0, 9.0), (17.0, 0.0, 9.0))]:
        r = w.find_path("yard", s, e)
        want = visibility_length(free, (s[0], s[2]), (e[0], e[2]))
        assert abs(r.cost - want) <= 1e-6, (s, e, r.cost, want)
        assert want > math.dist((s[0], s[2]), (e[0], e[2])) + 0.1   # around the hole


def test_up_z_points_and_paths_in_the_callers_axes():
    v, t = bridge_over_road()
    zup = np.column_stack([v[:, 0], -v[:, 2], v[:, 1]])       # y up -> z up
    w = navcore.World()
    w.add_graph("z", type="level", vertices=zup, triangles=t, up="z")
    r = w.find_path("z", (15.0, -2.0, 4.0), (15.0, -18.0, 4.0))
    assert r.found and np.abs(r.points[:, 2] - 4.0).max() < 0.5
    assert np.abs(r.points[:, 1] - np.clip(r.points[:, 1], -20, 0)).max() == 0


def test_bad_input_is_a_nav_error_and_adds_nothing(tmp_path):
    w = navcore.World()
    with pytest.raises(navcore.MeshFormatError, match="not found"):
        w.add_graph("a", type="level", level=str(tmp_path / "missing.obj"))
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nv 1 0 0\nv 1 0 x\nf 1 2 3\n")
    with pytest.raises(navcore.MeshFormatError) as err:
        w.add_graph("a", type="level", level=str(bad))
    assert err.value.line == 3 and "bad.obj" in str(err.value)
    v, t = quad(0, 10, 0, 10, 0.0)
    nan = v.copy()
    nan[1, 1] = np.nan
    with pytest.raises(navcore.GraphError, match="vertex 1"):
        w.add_graph("a", type="level", vertices=nan, triangles=t)
    with pytest.raises(navcore.GraphError, match="no triangles"):
        w.add_graph("a", type="level", vertices=v, triangles=np.empty((0, 3), int))
    with pytest.raises(navcore.GraphError, match="no walkable polygons"):
        w.add_graph("a", type="level", vertices=quad(0, 1, 0, 1, 0.0)[0], triangles=t)
    with pytest.raises(navcore.GraphError, match="agent_radious"):
        w.add_graph("a", type="level", vertices=v, triangles=t, agent_radious=1)
    with pytest.raises(navcore.GraphError, match="agent_radius"):
        w.add_graph("a", type="level", vertices=v, triangles=t, agent_radius=-1)
    with pytest.raises(navcore.GraphError, match="tile_size"):
        w.add_graph("a", type="level", vertices=v, triangles=t, tile_size=2)
    with pytest.raises(navcore.GraphError, match="not both"):
        w.add_graph("a", type="level", level=str(bad), vertices=v, triangles=t)
    assert "a" not in w.graphs


def test_query_ends_are_3d():
    w = navcore.World()
    v, t = bridge_over_road()
    w.add_graph("x", type="level", vertices=v, triangles=t, agent_radius=0.3)
    with pytest.raises(navcore.QueryError, match="2D point"):
        w.find_path("x", (2.0, 10.0), (28.0, 10.0))
    with pytest.raises(navcore.NodeError, match="not a finite"):
        w.find_path("x", (2.0, np.nan, 10.0), (28.0, 0.0, 10.0))
    with pytest.raises(navcore.QueryError, match="2D point"):
        w.distance_matrix("x", [(2.0, 10.0)], [(28.0, 0.0, 10.0)])
    r = w.find_path("x", (2.0, 9.0, 10.0), (28.0, 0.0, 10.0))     # 9 m above: no polygon
    assert r.status is navcore.PathStatus.INVALID_START


def test_from_layers_checks_its_arrays():
    v = np.array([[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1]], float)
    with pytest.raises(navcore.GraphError, match="not convex"):
        LayeredMeshGraph.from_layers(np.array([[0, 0, 0], [2, 0, 0], [1, 0, 0.2], [1, 0, 2]],
                                              float), [0, 4], [0, 1, 2, 3])
    with pytest.raises(navcore.GraphError, match="no area"):
        LayeredMeshGraph.from_layers(np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0]], float),
                                     [0, 3], [0, 1, 2])
    with pytest.raises(navcore.GraphError, match="up must be"):
        LayeredMeshGraph.from_layers(v, [0, 4], [0, 1, 2, 3], up="x")
    g = LayeredMeshGraph.from_layers(v, [0, 4], [3, 2, 1, 0])       # clockwise: reversed
    assert g.num_polygons == 1 and g.locate((0.5, 0.0, 0.5)) == 0
    with pytest.raises(navcore.GraphError, match="fixed"):
        g.replace_mesh(g.vertices, g.poly_start, g.poly_verts, csr=g.csr,
                       positions=g.positions, walkable=g.walkable, poly_adj=g.poly_adj,
                       poly_opposite=g.poly_opposite)
    with pytest.raises(navcore.GraphError, match="surface"):
        LayeredMeshGraph.from_layers(v, [0, 4], [0, 1, 2, 3], surface=3)


def test_every_level_config_field_is_a_keyword_with_its_default():
    import dataclasses
    import inspect

    from navcore_levels import LevelConfig, build_level_graph
    params = inspect.signature(build_level_graph).parameters
    for f in dataclasses.fields(LevelConfig):
        # a graph's tile_size defaults to None: tiles for a level wider than one
        assert params[f.name].default == (None if f.name == "tile_size" else f.default), f.name


def test_a_level_wider_than_one_tile_is_tiled_by_default():
    from navcore_levels.graph import DEFAULT_TILE_SIZE
    w = navcore.World()
    side = 0.3 * DEFAULT_TILE_SIZE
    quad = np.array([[0, 2, 1], [0, 3, 2]])
    for width, tiled in ((side - 1, False), (side + 1, True)):
        floor = np.array([[0, 0, 0], [width, 0, 0], [width, 0, 10], [0, 0, 10]], float)
        g = w.add_graph(f"w{width}", type="level", vertices=floor, triangles=quad)
        assert (g.level_tiles is not None) == tiled
        # the fewest tiles of at most DEFAULT_TILE_SIZE cells, as even as they fit
        grid = int(width / 0.3 + 0.5)
        assert g.level_config.tile_size == (-(-grid // 2) if tiled else 0)
        assert (g.voxels is None) == tiled if hasattr(g, "voxels") else tiled
    w.update(f"w{side + 1}", add_obstacle={"box": [[5, -1, 2], [6, 1, 3]]}, obstacle_id="c")
    w.tick()
    with pytest.raises(navcore.UpdateError, match="tile_size"):
        w.update(f"w{side - 1}", add_obstacle={"box": [[5, -1, 2], [6, 1, 3]]}, obstacle_id="c")


def test_default_tiles_are_never_narrower_than_the_tile_border():
    # 520 cells: three tiles of 174 by size, but an agent of 172 cells'
    # radius needs a border of 175 cells; the level built whole has floor
    floor = np.array([[0, 0, 0], [156, 0, 0], [156, 0, 156], [0, 0, 156]], float)
    quad = np.array([[0, 2, 1], [0, 3, 2]])
    w = navcore.World()
    whole = w.add_graph("whole", type="level", vertices=floor, triangles=quad,
                        agent_radius=51.6, tile_size=0)
    g = w.add_graph("tiled", type="level", vertices=floor, triangles=quad, agent_radius=51.6)
    border = g.level_config.walkable_radius + 3
    assert g.level_tiles is not None and g.level_config.tile_size == border
    assert whole.num_nodes > 0 and g.num_nodes > 0


def test_readme_levels_example(capsys):
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = text.split("### 3D levels")[1]
    block = section.split("```python\n")[1].split("```")[0]
    exec(compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    claimed = [ln[2:] for ln in block.splitlines() if ln.startswith("# ")
               and not ln.startswith("# a road")]
    assert printed == claimed


def test_reachability_updates_and_warm_up_on_a_level():
    w = navcore.World()
    v, t = bridge_over_road()
    g = w.add_graph("x", type="level", vertices=v, triangles=t)
    assert w.warm_up("x") >= 0
    road, bridge = (2.0, 0.0, 10.0), (15.0, 4.0, 2.0)
    assert w.reachable_many("x", [road, road], [(28.0, 0.0, 10.0), bridge]).tolist() == \
        [True, False]
    # the nearest polygon the road reaches from a point on the bridge: the
    # road's, below it (not the bridge's, which it cannot reach)
    p = w.nearest_reachable("x", bridge, road)
    assert p >= 0 and g.heights[g.polygon(p)].max() < 0.5
    assert w.nearest_reachable("x", (15.0, 0.0, 10.0), road) == g.locate((15.0, 0.0, 10.0))
    before = w.find_path("x", road, (28.0, 0.0, 10.0))
    under = g.locate((15.0, 0.0, 10.0))
    w.update("x", nodes=[under], walkable=False)
    w.tick()
    after = w.find_path("x", road, (28.0, 0.0, 10.0))
    assert under not in after.nodes.tolist()
    assert not after.found or after.cost >= before.cost - 1e-9
    with pytest.raises(navcore.UpdateError, match="layered"):
        w.update("x", rect=(1, 7, 2, 2), walkable=False)


def test_nav_test_adjacency_is_recasts_and_random_paths_follow_the_areas(nav_world):
    from navcore_levels import build_navmesh_arrays, load_level
    level = load_level(NAV_TEST)
    mesh = build_navmesh_arrays(level.vertices, level.triangles).polymesh
    g = nav_world.graph("solo")
    assert g.num_polygons == mesh.poly_count
    for p in range(mesh.poly_count):
        recast = set(mesh.neighbors[p][mesh.neighbors[p] >= 0].tolist())
        ours = set(g.poly_adj[g.poly_start[p]:g.poly_start[p + 1]].tolist()) - {-1}
        assert ours == recast, p
    # each polygon's corner mean, a point standing on it: paths exist
    # exactly between polygons of one area, polyanya never longer than the funnel
    rng = np.random.default_rng(7)
    areas = nav_world.areas("solo")
    for _ in range(60):
        s, t = (int(i) for i in rng.integers(g.num_polygons, size=2))
        a, b = (tuple(np.append(g.positions[p], g.heights[g.polygon(p)].mean())[[0, 2, 1]])
                for p in (s, t))
        assert (g.locate(a), g.locate(b)) == (s, t)
        r = nav_world.find_path("solo", a, b)
        f = nav_world.find_path("solo", a, b, algorithm="funnel")
        assert r.found == f.found == (areas[s] == areas[t])
        if r.found:
            assert r.cost <= f.cost + 1e-9
            assert r.nodes[0] == s and r.nodes[-1] == t


def _height_error(vertices, triangles, point):
    """How far ``point`` (x, y, z) lies above or below the nearest of the
    level's triangles under or over it (NaN: none there)."""
    a, b, c = (vertices[triangles[:, i]] for i in range(3))
    x, z = point[0], point[2]
    den = (b[:, 2] - c[:, 2]) * (a[:, 0] - c[:, 0]) + (c[:, 0] - b[:, 0]) * (a[:, 2] - c[:, 2])
    with np.errstate(all="ignore"):
        u = ((b[:, 2] - c[:, 2]) * (x - c[:, 0]) + (c[:, 0] - b[:, 0]) * (z - c[:, 2])) / den
        v = ((c[:, 2] - a[:, 2]) * (x - c[:, 0]) + (a[:, 0] - c[:, 0]) * (z - c[:, 2])) / den
    w = 1 - u - v
    over = (u >= -1e-9) & (v >= -1e-9) & (w >= -1e-9)
    h = u[over] * a[over, 1] + v[over] * b[over, 1] + w[over] * c[over, 1]
    return float(np.abs(h - point[1]).min()) if h.size else math.nan


def test_path_points_lie_on_the_levels_surface():
    # undulating terrain: the polygons' corners alone are metres off the
    # ground between them; the detail mesh's heights are within a few
    # voxels (0.2 high) of the level's own triangles
    path = DATA / "undulating.obj"
    if not path.exists():
        pytest.skip("undulating.obj is not available")
    from navcore_levels import load_level
    level = load_level(path)
    w = navcore.World()
    g = w.add_graph("u", type="level", level=str(path))
    rng = np.random.default_rng(1)
    errors = []
    for _ in range(20):
        s, t = (int(i) for i in rng.integers(g.num_polygons, size=2))
        a, b = (tuple(np.append(g.positions[p], g.heights[g.polygon(p)].mean())[[0, 2, 1]])
                for p in (s, t))
        r = w.find_path("u", a, b)
        if r.found:
            errors += [_height_error(level.vertices, level.triangles, p) for p in r.points]
    assert len(errors) > 100 and not np.isnan(errors).any()
    assert max(errors) < 0.8, max(errors)


def test_locate_many_is_locate_of_each(nav_world):
    g = nav_world.graph("lvl")
    q = read_queries(DATA / "nav_mesh_test.queries")
    points = np.vstack([q[:, :3], q[:, 3:], q[:, :3] + [0, 50, 0]])
    assert g.locate_many(points).tolist() == [g.locate(tuple(p)) for p in points]
    assert (g.locate_many(points)[-len(q):] == -1).all()         # far above everything
    with pytest.raises(navcore.QueryError, match="ambiguous"):
        g.locate_many(q[:, :2])


def test_tiled_level_graph_finds_the_nav_test_queries(nav_world):
    # tiles of 32 cells stitched into one mesh: every query found, within
    # a few percent of the solo mesh's exact length (the tiles' walls
    # are simplified from other anchors)
    w = navcore.World()
    g = w.add_graph("tiled", type="level", level=str(NAV_TEST), tile_size=32)
    assert g.num_polygons > nav_world.graph("lvl").num_polygons
    for q in read_queries(DATA / "nav_mesh_test.queries"):
        r = w.find_path("tiled", tuple(q[:3]), tuple(q[3:]))
        solo = nav_world.find_path("lvl", tuple(q[:3]), tuple(q[3:]))
        assert r.found and abs(r.cost - solo.cost) <= 0.05 * solo.cost + CELL, (q, r, solo)


def test_warm_up_builds_the_sample_level():
    took = navcore.warm_up("level")
    assert list(took) == ["level"] and took["level"] >= 0
    w = navcore.World()
    g = w.plugins.hook.navcore_sample_graph(world=w, graph_type="level", graph_id="s")
    assert isinstance(g, LayeredMeshGraph)
    assert w.find_path("s", (3.0, 4.0, 3.0), (3.0, 0.0, 3.0)).found    # down the ramp
