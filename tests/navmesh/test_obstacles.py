"""Navmeshes built in tiles, with obstacles and blocked regions that come
and go (``add_obstacle=``, ``remove_obstacle=``, ``region=``/``rect=`` with
``walkable=``), checked against independent truth:

* the expected free space, computed here with shapely from the obstacles
  the test added (grown by the agent radius with mitre joins): the mesh
  covers exactly it, and its walls (edges without a neighbour) are
  exactly its boundary;
* a visibility-graph shortest length on that free space (``reference.py``):
  funnel paths are never shorter and are found exactly when the free space
  connects the ends; through the mesh's own walls, the shortest length is
  the free space's (tiles change nothing);
* a full recomputation of the areas: a labelling of the CSR view, and a
  fresh graph built from the expected free space.
"""
import math

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Polygon, box

import navcore
from navcore import PathStatus, UpdateError
from navcore.testing import reference_labels
from navcore_navmesh import NavMeshGraph, build, path_lengths, pull, triangulate
from navcore_navmesh.tiles import TileGrid, node_with_grid
from navcore_navmesh.merge import MAX_SIDES
from navcore_navmesh import obstacles as obstacle_updates
from navcore_navmesh import tiles
from reference import visibility_length, same_partition
from reference import random_free_points as random_points

# small meshes: the kernels also run as plain Python (make test-nojit)
pytestmark = pytest.mark.nojit


# -- helpers -----------------------------------------------------------------

def live(graph):
    """Ids of the polygons that exist (retired slots are empty)."""
    return np.flatnonzero(np.diff(graph.poly_start) > 0)


def walls(graph):
    """``(k, 2, 2)``: the wall edges (no polygon across) of the mesh."""
    e = np.flatnonzero(graph.poly_adj < 0)
    v = graph.vertices
    return np.stack([v[graph.poly_verts[e]], v[graph.poly_verts[graph.poly_next[e]]]], axis=1)


def grow(poly, radius):
    return shapely.buffer(poly, radius, join_style="mitre") if radius > 0 else poly


def expected_free(base, obstacles, radius, blocked=None):
    """The free space the updates should leave: the static free space minus
    the union of the obstacles grown by the agent radius (grown after the
    union, as a static build shrinks the space they leave), and minus the
    blocked regions grown."""
    obstacles = list(obstacles)
    cut = [grow(shapely.union_all(obstacles), radius)] if obstacles else []
    if blocked is not None and not blocked.is_empty:
        cut.append(grow(blocked, radius))
    return base.difference(shapely.union_all(cut)) if cut else base


def check_covers(graph, free, tol=1e-7):
    """The mesh's polygons tile ``free`` exactly and its walls are exactly
    ``free``'s boundary (so no border between tiles is left unlinked)."""
    polys = np.array([Polygon(graph.polygon_points(int(p))) for p in live(graph)])
    area = shapely.area(polys).sum()
    assert area == pytest.approx(free.area, rel=1e-9, abs=tol)
    assert shapely.union_all(polys).area == pytest.approx(free.area, rel=1e-9, abs=tol)
    w = walls(graph)
    mids = shapely.points((w[:, 0] + w[:, 1]) / 2)
    gap = shapely.distance(mids, free.boundary)
    assert gap.max(initial=0) < tol, f"a wall edge lies inside the free space: {w[np.argmax(gap)]}"
    length = np.sqrt(((w[:, 1] - w[:, 0]) ** 2).sum(axis=1)).sum()
    assert length == pytest.approx(free.boundary.length, rel=1e-9, abs=tol)


def check_slots(graph):
    """Retired slots are empty, not walkable and have no edges; every
    polygon that exists is walkable (no generic updates in these tests)."""
    alive = np.diff(graph.poly_start) > 0
    assert not graph.walkable[~alive].any()
    assert graph.walkable[alive].all()
    deg = np.diff(graph.csr.offsets)
    assert (deg[~alive] == 0).all()
    assert not np.isin(graph.csr.targets, np.flatnonzero(~alive)).any()


def part_of(free, points):
    """Index of the part of ``free`` holding each point (-1: none)."""
    parts = shapely.get_parts(free)
    out = np.full(len(points), -1)
    for i, p in enumerate(parts):
        out[shapely.covers(p, shapely.points(points))] = i
    return out


def check_areas(world, graph, free):
    """The hierarchy's areas equal a full recomputation: a labelling of the
    CSR view, and the parts of a fresh graph built from ``free``."""
    areas = world.areas(graph.graph_id)
    labels = reference_labels(graph)
    assert same_partition(areas, labels, labels >= 0)
    ids = live(graph)
    fresh_world = navcore.World(autoload=False)
    fresh = fresh_world.add_graph("fresh", type="navmesh", walkable=free)
    at = fresh.locate_many(graph.positions[ids])
    assert (at >= 0).all()
    theirs = fresh_world.areas("fresh")[at]
    assert same_partition(areas[ids], theirs, np.ones(ids.size, bool))


def check_paths(world, graph, free, rng, pairs=3):
    """Paths (``auto``: the exact search) found exactly when the free space
    connects the ends, as long as the visibility graph's shortest length
    (the seeded scenes here leave no pinch points, where the mesh would
    forbid what the reference allows), inside the free space; the funnel
    never shorter."""
    pts = random_points(free, rng, 2 * pairs)
    parts = part_of(free, pts)
    covered = free.buffer(1e-9)
    for i in range(pairs):
        s, g = pts[2 * i], pts[2 * i + 1]
        r = world.find_path(graph.graph_id, s, g)
        if parts[2 * i] != parts[2 * i + 1]:
            assert r.status is PathStatus.UNREACHABLE, (s, g)
            continue
        assert r.found, (s, g)
        ref = visibility_length(free, s, g)
        assert r.algorithm == "polyanya"
        assert r.cost == pytest.approx(ref, rel=1e-9), (s, g, r.cost, ref)
        assert covered.covers(LineString(r.points)), (s, g, r.points.tolist())
        funnel = world.find_path(graph.graph_id, s, g, algorithm="funnel")
        assert funnel.cost >= ref * (1 - 1e-9), (s, g, funnel.cost, ref)


def brute_locate(graph, points):
    """Lowest id of a polygon holding each point (edges included), -1."""
    out = []
    for x, y in points:
        found = -1
        for p in live(graph):
            ring = graph.polygon_points(int(p))
            if all((q[0] - a[0]) * (y - a[1]) - (q[1] - a[1]) * (x - a[0]) >= -1e-12
                   for a, q in zip(ring, np.roll(ring, -1, axis=0))):
                found = int(p)
                break
        out.append(found)
    return np.array(out)


def on_edges(graph, rng, k):
    """``k`` mesh corners and edge midpoints (many on tile borders)."""
    e = graph.poly_verts
    v = graph.vertices
    mids = (v[e] + v[e[graph.poly_next]]) / 2
    pts = np.vstack([v[e], mids])
    return pts[rng.choice(len(pts), size=k)]


def convex(rng, center, spread, k=None):
    k = int(rng.integers(3, 8)) if k is None else k
    pts = np.asarray(center) + rng.uniform(-spread, spread, (k, 2))
    return shapely.MultiPoint(pts).convex_hull


# -- scenes ------------------------------------------------------------------

SCENES = {
    "room, integer tiles": dict(bounds=(0, 0, 16, 12), tile_size=3.0,
                                obstacles=[box(3, 3, 5, 9), box(9, 0, 10, 6)]),
    "rotated, radius": dict(bounds=(-6, -6, 6, 6), tile_size=2.7, agent_radius=0.25,
                            obstacles=[shapely.affinity.rotate(box(-3, -0.5, 3, 0.5), 30)]),
    "corridors": dict(walkable=[[(0, 0), (12, 0), (12, 9), (9, 9), (9, 3), (3, 3), (3, 9),
                                 (0, 9)]], tile_size=2.0),
    # an island in a hole: outer rings of two parts overlap
    "island": dict(walkable=[Polygon([(0, 0), (12, 0), (12, 10), (0, 10)],
                                     [[(3, 3), (9, 3), (9, 7), (3, 7)]]),
                             box(4.5, 4, 7.5, 6)], tile_size=2.5),
}


def _static(params):
    p = {k: v for k, v in params.items() if k != "tile_size"}
    return build.free_space(**p)


# -- tiled build == whole build -------------------------------------------------

def _grid_map(tmp_path, seed, w=14, h=11):
    rng = np.random.default_rng(seed)
    rows = ["".join("@" if rng.random() < 0.22 else "." for _ in range(w)) for _ in range(h)]
    path = tmp_path / f"g{seed}.map"
    path.write_text(f"type octile\nheight {h}\nwidth {w}\nmap\n" + "\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("tile_size", [1.0, 2.0, 3.0, 4.5])
def test_tiles_on_a_grid_map_match_the_whole_mesh(tmp_path, tile_size):
    # walls on integer lines: many vertices and wall edges lie exactly on
    # tile borders, the hard case for matching borders
    path = _grid_map(tmp_path, int(tile_size * 10))
    free = build.free_space(map=path)
    world = navcore.World(autoload=False)
    tiled = world.add_graph("t", type="navmesh", map=str(path), tile_size=tile_size)
    assert tiled.tiles.grid.count > 1
    v, t = triangulate(free)
    whole = NavMeshGraph.from_triangles(v, t, free)
    for graph in (tiled, whole):
        check_covers(graph, free)
    _same_connectivity_and_lengths(world, tiled, whole, free, np.random.default_rng(5))


# a corner of a random map: the tile (8, 8)-(16, 16) of its free space has
# holes (blocked cells) that touch at corners, where GEOS's constrained
# Delaunay fails ("Unable to find a convex corner")
TOUCHING_HOLES = """\
......@@.@..........@.@.
.@@@@.....@.....@.......
..@..@@......@..........
@@...@......@.@.....@...
..........@........@....
..@...@........@@....@..
.@@@..........@..@......
......@@@...@........@..
........@...@...@.....@.
.@....................@.
@.@....@.@@..........@..
.@.@.......@@@....@...@.
@....@.@..@..@...@.@..@.
@.............@.@@..@@..
...........@...@.....@..
....@....@.......@......
@.....@@.@.....@.@...@.@
.............@@..@.@....
@........@.....@..@@....
.....@@.........@.......
...@....@@...@....@@....
@.....@@..@.....@.......
@.......@.@@...........@
.@....@..@@.............
"""


#: that map's tile x 8..16, y 8..16 as the tiles cut it
TOUCHING_PIECE = ("POLYGON ((8 10, 8 11, 8 12, 8 13, 8 16, 9 16, 9 15, 10 15, 10 16, 15 16, "
                  "16 16, 16 15, 15 15, 15 14, 16 14, 16 13, 16 9, 16 8, 13 8, 13 9, 12 9, "
                  "12 8, 9 8, 9 9, 8 9, 8 10), (14 14, 14 13, 15 13, 15 14, 14 14), (13 13, "
                  "13 12, 11 12, 11 11, 14 11, 14 12, 14 13, 13 13), (11 13, 10 13, 10 12, "
                  "11 12, 11 13), (9 11, 9 10, 11 10, 11 11, 9 11), (12 14, 12 15, 11 15, "
                  "11 14, 12 14))")


def test_triangles_of_a_polygon_geos_fails_on_meet_edge_to_edge():
    piece = shapely.from_wkt(TOUCHING_PIECE)
    with pytest.raises(shapely.errors.GEOSException, match="convex corner"):
        shapely.constrained_delaunay_triangles(piece)
    tris = shapely.get_parts(build.geos_triangles(piece, "hint"))
    assert shapely.area(tris).sum() == piece.area
    assert shapely.union_all(tris).symmetric_difference(piece).area == 0
    # every corner of the piece is a corner of the triangles it touches: no
    # triangle edge runs past one (a T, where neighbours would not link)
    corners = shapely.points(shapely.get_coordinates(piece))
    for t in tris:
        touching = corners[shapely.intersects(t.exterior, corners)]
        mine = set(map(tuple, shapely.get_coordinates(t)))
        assert all(tuple(c) in mine for c in shapely.get_coordinates(touching))


@pytest.mark.parametrize("tile_size", [8, 16])
def test_a_tile_geos_cannot_triangulate_is_ear_clipped(tmp_path, tile_size):
    # GEOS's constrained Delaunay fails on the tile x 8..16, y 8..16 of this
    # map ("Unable to find a convex corner": holes touching at corners);
    # that piece is ear-clipped, and the mesh is as exact as any
    path = tmp_path / "touching.map"
    rows = TOUCHING_HOLES.splitlines()
    path.write_text(f"type octile\nheight {len(rows)}\nwidth {len(rows[0])}\nmap\n"
                    + TOUCHING_HOLES)
    world = navcore.World(autoload=False)
    free = build.free_space(map=path)
    tiled = world.add_graph("t", type="navmesh", map=str(path), tile_size=tile_size)
    check_covers(tiled, free)
    wt = walls(tiled)
    # GEOS triangulates these whole: the mesh in one piece, and in tiles of 4
    world.add_graph("whole", type="navmesh", map=str(path), tile_size=0)
    world.add_graph("small", type="navmesh", map=str(path), tile_size=4)
    rng = np.random.default_rng(tile_size)
    pts = random_points(free, rng, 40)
    for s, g in zip(pts[:3], pts[3:6]):
        ref = visibility_length(free, s, g)
        assert visibility_length(free, s, g, barriers=wt) == pytest.approx(ref, rel=1e-12)
    for s, g in zip(pts[:20], pts[20:]):
        # no path squeezes between blocked cells that meet at a corner, so
        # the lengths are compared with the meshes GEOS made
        s, g = tuple(s), tuple(g)
        cost = world.find_path("t", s, g).cost
        assert cost == pytest.approx(world.find_path("whole", s, g).cost, rel=1e-12)
        assert cost == pytest.approx(world.find_path("small", s, g).cost, rel=1e-12)


@pytest.mark.parametrize("name", sorted(SCENES))
def test_tiles_match_the_whole_mesh(name):
    params = SCENES[name]
    free = _static(params)
    world = navcore.World(autoload=False)
    tiled = world.add_graph("t", type="navmesh", **params)
    assert tiled.tiles.grid.count > 1
    v, t = triangulate(free)
    whole = NavMeshGraph.from_triangles(v, t, free)
    for graph in (tiled, whole):
        check_covers(graph, free)
    _same_connectivity_and_lengths(world, tiled, whole, free, np.random.default_rng(6))


def _same_connectivity_and_lengths(world, tiled, whole, free, rng):
    pts = random_points(free, rng, 24)
    parts = part_of(free, pts)
    for g in (tiled, whole):
        areas = world.areas("t") if g is tiled else reference_labels(g)
        at = areas[g.locate_many(pts)]
        assert same_partition(at, parts, np.ones(len(pts), bool))
    # the shortest length through each mesh (its walls may not be crossed)
    # is the free space's
    wt, ww = walls(tiled), walls(whole)
    for s, g in zip(pts[:4], pts[4:8]):
        ref = visibility_length(free, s, g)
        assert visibility_length(free, s, g, barriers=wt) == pytest.approx(ref, rel=1e-12)
        assert visibility_length(free, s, g, barriers=ww) == pytest.approx(ref, rel=1e-12)


def test_the_wall_reference_sees_a_missing_link():
    # the check above can fail: leave part of a tile border unlinked (a
    # wall inside the free space) and the length through the walls grows
    world = navcore.World(autoload=False)
    graph = world.add_graph("t", type="navmesh", bounds=(0, 0, 6, 2), tile_size=2.0)
    free = graph.free_space
    s, g = (0.5, 1.0), (5.5, 1.0)
    border = walls(graph).tolist()
    cut = [[[2.0, 0.5], [2.0, 1.5]]]
    assert visibility_length(free, s, g, barriers=np.array(border)) == pytest.approx(5.0)
    around = math.dist(s, (2, 0.5)) + math.dist((2, 0.5), g)
    assert visibility_length(free, s, g, barriers=np.array(border + cut)) == \
        pytest.approx(around)


def test_noding_puts_a_vertex_on_every_tile_line_an_edge_crosses():
    rng = np.random.default_rng(4)
    grid = TileGrid((0, 0, 10, 10), 1.3)
    for _ in range(20):
        poly = convex(rng, rng.uniform(2, 8, 2), 3.0, 9).difference(
            convex(rng, rng.uniform(3, 7, 2), 1.0, 5))
        noded = node_with_grid(poly, grid)
        assert noded.is_valid and noded.symmetric_difference(poly).area < 1e-12
        assert shapely.hausdorff_distance(noded, poly) < 1e-12
        rings = shapely.get_rings(shapely.get_parts(noded))
        for ring in rings:
            c = shapely.get_coordinates(ring)
            a, b = c[:-1], c[1:]
            for axis, lines in ((0, grid.xs), (1, grid.ys)):
                lo = np.minimum(a[:, axis], b[:, axis])
                hi = np.maximum(a[:, axis], b[:, axis])
                # no edge strictly crosses a line: it ends on it instead
                inside = (lines[None, :] > lo[:, None]) & (lines[None, :] < hi[:, None])
                assert not inside.any()
        # the vertices on the lines are exactly on them
        c = shapely.get_coordinates(noded)
        assert np.isin(c[:, 0], grid.xs).sum() + np.isin(c[:, 1], grid.ys).sum() > 0


def test_a_vertex_one_rounding_error_off_a_tile_line_makes_no_sliver():
    # 3 * 4.7 == 14.100000000000001: a wall corner at x = 14.1 is one unit
    # in the last place beside the tile line; it is put on the line
    # (triangles: a merged polygon could hide a sliver in it)
    world = navcore.World(autoload=False)
    wall = box(14.1, 2, 17, 5)
    for merge in (False, True):
        g = world.add_graph(f"m{merge}", type="navmesh", bounds=(0, 0, 20, 10),
                            obstacles=[wall], tile_size=4.7, merge=merge)
        assert 14.1 not in g.tiles.grid.xs and 3 * 4.7 in g.tiles.grid.xs
        area = shapely.area([Polygon(g.polygon_points(int(p))) for p in live(g)])
        assert area.min() > 1e-6
        check_covers(g, build.free_space(bounds=(0, 0, 20, 10), obstacles=[wall]), tol=1e-9)


def test_a_point_on_a_tile_border_finds_the_polygon_across_it():
    # x = 4 is a tile line and, below y = 2, the free space's wall: the
    # bucket of a point there is the right tile's, which has no polygon
    # at that point; it must look across the border
    world = navcore.World(autoload=False)
    g = world.add_graph("m", type="navmesh", bounds=(0, 0, 8, 4), tile_size=4.0,
                        obstacles=[box(4, 0, 8, 2)])
    pts = np.array([(4.0, 1.0), (4.0, 0.0), (4.0, 2.0), (4.0, 3.0), (8.0, 3.0), (0.0, 0.0)])
    got = g.locate_many(pts)
    assert (got >= 0).all()
    assert got.tolist() == brute_locate(g, pts).tolist()
    # the other way round: 3 * 0.7 rounds so that a point on that line
    # falls in the bucket left of it, where the wall is
    x = 3 * 0.7
    g = world.add_graph("n", type="navmesh", bounds=(0, 0, 2.8, 1.4), tile_size=0.7,
                        obstacles=[box(0, 0, x, 0.7)])
    assert np.floor(x * g.locate_index().inv) < 3 * g.locate_index().k
    pts = np.array([(x, 0.3), (x, 0.0), (x, 1.0)])
    got = g.locate_many(pts)
    assert (got >= 0).all()
    assert got.tolist() == brute_locate(g, pts).tolist()


def test_kernels_skip_retired_slots():
    # an empty polygon (a retired slot) never holds a point, even when a
    # bucket lists it, and a corridor through one is refused
    from navcore_navmesh import _locate, _tiles
    v = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
    start = np.array([0, 0, 3], dtype=np.int32)          # polygon 0 empty, 1 a triangle
    verts = np.array([0, 1, 2], dtype=np.int32)
    cells = np.array([0, 2], dtype=np.int64)
    lists = np.array([0, 1], dtype=np.int32)
    px, py = np.array([0.5, 5.0]), np.array([0.5, 5.0])
    out = np.empty(2, dtype=np.int32)
    walkable = np.ones(2, dtype=np.bool_)
    _locate.locate_points(px, py, v, start, verts, walkable, cells, lists, 0.0, 0.0, 0.1,
                          1, 1, 1e-12, out)
    assert out.tolist() == [1, -1]
    _tiles.locate_points(px, py, v, start, verts, walkable, cells, lists, 0.0, 0.0, 0.1,
                         1, 1, 1, 1e-12, 1e-6, out)
    assert out.tolist() == [1, -1]
    world = navcore.World(autoload=False)
    g = world.add_graph("m", type="navmesh", bounds=(0, 0, 6, 6), tile_size=2.0)
    dead = int(g.locate((1, 1)))
    world.update("m", add_obstacle=box(0.2, 0.2, 0.4, 0.4), obstacle_id=0)
    world.tick()
    assert g.poly_start[dead] == g.poly_start[dead + 1]
    with pytest.raises(navcore.NodeError, match="retired"):
        pull(g, np.array([dead]), (1, 1), (1, 1))


def test_default_tile_size_is_a_power_of_two_and_user_sizes_are_kept():
    world = navcore.World(autoload=False)
    small = world.add_graph("s", type="navmesh", bounds=(1, 1, 11, 7))
    assert small.tiles.grid.count == 1                    # few vertices: one tile
    assert world.add_graph("w", type="navmesh", bounds=(1, 1, 11, 7),
                           tile_size=10).tiles.grid.count == 1
    rng = np.random.default_rng(0)
    obs = [convex(rng, rng.uniform(0, 60, 2), 1.0, 6) for _ in range(60)]
    big = world.add_graph("b", type="navmesh", bounds=(0, 0, 60, 60), obstacles=obs)
    size = big.tiles.grid.size
    assert size == 2.0 ** round(math.log2(size)) and big.tiles.grid.count > 1
    assert (big.tiles.grid.xs % size == 0).all()          # lines on multiples
    mine = world.add_graph("m", type="navmesh", bounds=(0, 0, 60, 60), obstacles=obs,
                           tile_size=7.5)
    assert mine.tiles.grid.size == 7.5
    for bad in (-1, math.nan, math.inf, "big"):
        with pytest.raises(navcore.GraphError):
            world.add_graph("x", type="navmesh", bounds=(0, 0, 4, 4), tile_size=bad)
    static = world.add_graph("one", type="navmesh", bounds=(0, 0, 4, 4), tile_size=0)
    assert static.tiles is None and static.num_polygons == 1       # one merged square
    with pytest.raises(navcore.UpdateError):
        world.update("one", add_obstacle=[(1, 1), (2, 1), (2, 2)], obstacle_id="crate")


# -- obstacles coming and going ------------------------------------------------------

@pytest.mark.parametrize("name", sorted(SCENES))
@pytest.mark.parametrize("seed", [0, 1])
def test_random_obstacle_sequences_match_full_recomputation(name, seed):
    params = SCENES[name]
    radius = params.get("agent_radius", 0.0)
    base = _static(params)
    rng = np.random.default_rng(seed)
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", **params)
    x0, y0, x1, y1 = base.bounds
    size = graph.tiles.grid.size
    present, n_before, next_id = {}, graph.num_nodes, 0
    for tick in range(10):
        for _ in range(int(rng.integers(1, 4))):
            if present and rng.random() < 0.35:
                oid = sorted(present)[int(rng.integers(len(present)))]
                del present[oid]
                world.update("m", remove_obstacle=oid)
                continue
            kind = rng.random()
            c = rng.uniform([x0 - 1, y0 - 1], [x1 + 1, y1 + 1])
            if kind < 0.25:               # a box on tile lines
                i, j = np.floor(c / size)
                poly = box(i * size, j * size, (i + 1) * size, (j + rng.integers(1, 3)) * size)
            elif kind < 0.4:              # a long thin wall across tiles
                a = rng.uniform(0, np.pi)
                poly = shapely.affinity.rotate(box(c[0] - 3, c[1] - 0.1, c[0] + 3, c[1] + 0.1),
                                               a, use_radians=True)
            else:
                poly = convex(rng, c, rng.uniform(0.3, 1.5))
            if not poly.area > 0:
                continue
            oid = f"o{next_id}"
            next_id += 1
            present[oid] = poly
            world.update("m", add_obstacle=poly, obstacle_id=oid)
        world.tick()
        assert graph.num_nodes >= n_before                # ids never shrink away
        n_before = graph.num_nodes
        free = expected_free(base, present.values(), radius)
        check_slots(graph)
        check_covers(graph, free)
        check_areas(world, graph, free)
        check_paths(world, graph, free, rng)
        pts = np.vstack([random_points(free, rng, 20), rng.uniform([x0, y0], [x1, y1], (20, 2)),
                         on_edges(graph, rng, 40)])
        # the exact index (locate itself snaps points near the shrunk mesh)
        assert graph.locate_index().locate_many(pts).tolist() == \
            brute_locate(graph, pts).tolist()
    assert set(graph.tiles.obstacles) == set(present)


def test_runtime_obstacle_grows_like_a_static_one():
    # an obstacle added at run time leaves the free space a static build
    # with it would have (the radius shrinks both the same way: mitre joins)
    ob = Polygon([(3, 3), (6, 2.5), (7, 5), (4, 6)])
    for radius in (0.0, 0.3, 0.7):
        world = navcore.World(autoload=False)
        g = world.add_graph("m", type="navmesh", bounds=(0, 0, 10, 9), agent_radius=radius,
                            tile_size=2.5)
        world.update("m", add_obstacle=ob, obstacle_id=1)
        world.tick()
        static = build.free_space(bounds=(0, 0, 10, 9), obstacles=[ob], agent_radius=radius)
        assert g.free_space.symmetric_difference(static).area < 1e-9
        check_covers(g, static)
        if radius:
            r = world.find_path("m", (1, 4), (9, 4))
            assert LineString(r.points).distance(ob) >= radius - 1e-9


def _overlapping(rng, k, x1, y1):
    """``k`` convex obstacles in pairs that overlap, some with a sharp
    corner of one inside the other near its far side (where a mitre spike
    of that corner grown on its own would poke out of the other)."""
    out = []
    for _ in range(k // 2):
        c = rng.uniform([2, 2], [x1 - 2, y1 - 2])
        a = box(*(c - rng.uniform(0.6, 1.4, 2)), *(c + rng.uniform(0.6, 1.4, 2)))
        tip = np.array(a.bounds[2:]) - rng.uniform(0.05, 0.3, 2)
        angle = rng.uniform(0, 2 * np.pi)
        back = tip - 3 * np.array([np.cos(angle), np.sin(angle)])
        side = 0.35 * np.array([-np.sin(angle), np.cos(angle)])
        out += [a, Polygon([tip, back + side, back - side])]
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_overlapping_runtime_obstacles_leave_the_static_build(seed):
    # static obstacles are subtracted as one union and the space left is
    # shrunk; the same obstacles added at run time must leave the same
    # mesh space, whatever the order they come in and however they overlap
    rng = np.random.default_rng(seed)
    radius = 0.3
    obs = _overlapping(rng, 8, 14, 11)
    order = rng.permutation(len(obs))
    world = navcore.World(autoload=False)
    static = world.add_graph("s", type="navmesh", bounds=(0, 0, 14, 11), obstacles=obs,
                             agent_radius=radius, tile_size=2.5)
    runtime = world.add_graph("d", type="navmesh", bounds=(0, 0, 14, 11),
                              agent_radius=radius, tile_size=2.5)
    for tick, i in enumerate(order.tolist()):
        world.update("d", add_obstacle=obs[i], obstacle_id=i)
        if tick % 3 == 2:
            world.tick()
    world.tick()
    _same_free_space_and_lengths(world, static, runtime, rng, 80)
    # taking obstacles away (one of each overlapping pair, then the rest)
    # leaves what a static build of those still there leaves
    for gone in (order[:4], order[4:7]):
        for i in gone.tolist():
            world.update("d", remove_obstacle=i)
        world.tick()
        left = sorted(set(runtime.tiles.obstacles))
        want = build.free_space(bounds=(0, 0, 14, 11), obstacles=[obs[i] for i in left],
                                agent_radius=radius)
        assert runtime.free_space.symmetric_difference(want).area < 1e-9
        check_covers(runtime, want)


def _same_free_space_and_lengths(world, want, got, rng, points):
    """``got`` covers ``want``'s free space exactly, and paths between
    random points of it are as long through either."""
    assert want.free_space.symmetric_difference(got.free_space).area < 1e-9
    check_covers(got, want.free_space)
    pts = random_points(want.free_space, rng, points)
    for s, g in zip(pts[::2], pts[1::2]):
        a, b = world.find_path(want.graph_id, s, g), world.find_path(got.graph_id, s, g)
        assert a.found == b.found
        if a.found:
            assert b.cost == pytest.approx(a.cost, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_runtime_obstacles_over_static_ones_leave_the_static_build(seed):
    # half the overlapping obstacles built in, the other half added later:
    # those that meet are grown as one, as in a build with all of them
    rng = np.random.default_rng(seed)
    obs = _overlapping(rng, 8, 14, 11)
    world = navcore.World(autoload=False)
    every = world.add_graph("s", type="navmesh", bounds=(0, 0, 14, 11), obstacles=obs,
                            agent_radius=0.3, tile_size=2.5)
    half = world.add_graph("h", type="navmesh", bounds=(0, 0, 14, 11), obstacles=obs[::2],
                           agent_radius=0.3, tile_size=2.5)
    for i in range(1, len(obs), 2):
        world.update("h", add_obstacle=obs[i], obstacle_id=i)
    world.tick()
    _same_free_space_and_lengths(world, every, half, rng, 40)
    # removing the added ones leaves the build with the first half
    for i in range(1, len(obs), 2):
        world.update("h", remove_obstacle=i)
    world.tick()
    want = build.free_space(bounds=(0, 0, 14, 11), obstacles=obs[::2], agent_radius=0.3)
    assert half.free_space.symmetric_difference(want).area < 1e-9
    # the built-in ones are part of the build: not listed, not removable
    with pytest.raises(UpdateError, match="has no obstacle 1; it has none"):
        world.update("h", remove_obstacle=1)
    static_id = next(iter(half.tiles.static))
    with pytest.raises(UpdateError, match="part of the build"):
        world.update("h", remove_obstacle=static_id)


def test_untouched_tiles_keep_their_polygons_and_ids():
    world = navcore.World(autoload=False)
    seen = []

    class Observer:
        @navcore.hookimpl
        def navcore_graph_updated(self, graph, dirty):
            seen.append(dirty.copy())
    world.plugins.register(Observer())
    g = world.add_graph("m", type="navmesh", bounds=(0, 0, 12, 12), tile_size=3.0,
                        obstacles=[box(5, 5, 7, 7)])
    before = {int(p): g.polygon_points(int(p)).tolist() for p in live(g)}
    tile_of = g.tiles.tile_of.copy()
    world.update("m", add_obstacle=box(0.5, 0.5, 2, 2), obstacle_id="crate")   # tile 0 only
    world.tick()
    dirty = set(seen[-1].tolist())
    retired = set(np.flatnonzero(tile_of == 0).tolist())
    assert retired and retired <= dirty
    assert not any(g.walkable[p] for p in retired)
    for p, pts in before.items():
        if tile_of[p] != 0:
            assert g.polygon_points(p).tolist() == pts           # same id, same triangle
    new = set(live(g).tolist()) - set(before)
    assert new and new <= dirty
    assert not new & retired                 # ids retired by a batch are not reused by it
    # dirty: retired, new, and the neighbours whose links changed; nothing else
    relinked = {p for p in before if tile_of[p] != 0
                and set(g.csr.neighbors(p).tolist()) & (new | retired)}
    assert dirty == retired | new | relinked
    # the next batch reuses the retired ids first
    world.update("m", remove_obstacle="crate")
    world.tick()
    assert set(live(g).tolist()) & retired


def test_ids_grow_only_when_no_retired_slot_is_free():
    world = navcore.World(autoload=False)
    g = world.add_graph("m", type="navmesh", bounds=(0, 0, 8, 8), tile_size=4.0)
    sizes = [g.num_nodes]
    for k in range(6):
        world.update("m", add_obstacle=box(1 + k % 2, 1, 2 + k % 2, 3), obstacle_id=k)
        world.tick()
        world.update("m", remove_obstacle=k)
        world.tick()
        sizes.append(g.num_nodes)
        assert g.num_nodes - int(live(g).size) <= 2 * max(len(p) for p in g.tiles.tile_polys) + 8
    assert sizes == sorted(sizes)
    assert sizes[-1] == sizes[2]             # after a few rounds, retired slots suffice


def test_regions_block_and_lift_like_grid_rectangles():
    world = navcore.World(autoload=False)
    g = world.add_graph("m", type="navmesh", bounds=(0, 0, 12, 6), tile_size=2.5,
                        agent_radius=0.2)
    base = build.free_space(bounds=(0, 0, 12, 6), agent_radius=0.2)
    world.update("m", rect=(5, 0, 1, 6), walkable=False)        # a wall across the room
    world.tick()
    blocked = box(5, 0, 6, 6)
    check_covers(g, expected_free(base, [], 0.2, blocked))
    assert world.find_path("m", (1, 3), (11, 3)).status is PathStatus.UNREACHABLE
    door = Polygon([(4.5, 2), (6.5, 2), (6.5, 4), (4.5, 4)])
    world.update("m", region=door, walkable=True)               # lift a door in it
    world.tick()
    blocked = blocked.difference(door)
    free = expected_free(base, [], 0.2, blocked)
    check_covers(g, free)
    check_areas(world, g, free)
    r = world.find_path("m", (1, 3), (11, 3))
    assert r.found and LineString(r.points).distance(blocked) >= 0.2 - 1e-9
    # last write wins: block and lift in one batch leaves it open
    world.update("m", rect=(5, 2, 1, 2), walkable=False)
    world.update("m", rect=(5, 2, 1, 2), walkable=True)
    world.tick()
    check_covers(g, free)
    # lifting never opens what obstacles hold
    world.update("m", add_obstacle=box(8, 0, 9, 6), obstacle_id="w")
    world.update("m", rect=(7, 0, 3, 6), walkable=True)
    world.tick()
    assert world.find_path("m", (1, 3), (11, 3)).status is PathStatus.UNREACHABLE
    check_covers(g, expected_free(base, [box(8, 0, 9, 6)], 0.2, blocked))


@pytest.mark.parametrize("merge", [True, False])
def test_generic_updates_still_apply_and_follow_retiling(merge):
    world = navcore.World(autoload=False)
    g = world.add_graph("m", type="navmesh", bounds=(0, 0, 12, 3), tile_size=3.0,
                        merge=merge)
    far = g.locate((10.5, 1.5))                                # in the last tile
    near = g.locate((1.5, 1.5))
    world.update("m", nodes=[far], walkable=False)
    nb = int(g.csr.neighbors(near)[0])              # in the first two tiles
    world.update("m", edges=[(near, nb)], cost=7.0)
    world.tick()
    assert not g.walkable[far]
    assert g.csr.cost[g.csr.edge_positions([near], [nb])[0]] == 7.0
    # an obstacle in the third tile leaves both alone ...
    world.update("m", add_obstacle=box(7, 1, 8, 2), obstacle_id=0)
    world.tick()
    assert not g.walkable[far]
    assert g.csr.cost[g.csr.edge_positions([near], [nb])[0]] == 7.0
    # ... one in the last tile re-triangulates it: the flag goes with the polygon
    world.update("m", add_obstacle=box(10, 0.5, 11, 1), obstacle_id=1)
    world.tick()
    assert g.poly_start[far] == g.poly_start[far + 1]           # retired
    assert g.walkable[g.locate((10.5, 2.5))]


def test_scheduler_replans_a_path_cut_by_a_new_obstacle():
    world = navcore.World(autoload=False, frame_budget_ms=1e6)
    g = world.add_graph("m", type="navmesh", bounds=(0, 0, 20, 10), tile_size=4.0)
    h = world.request_path("m", (1, 5), (19, 5), repath=True)
    world.tick()
    assert h.done and h.result().cost == pytest.approx(18.0)
    wall = box(9, 2, 11, 10)
    world.update("m", add_obstacle=wall, obstacle_id="wall")
    world.tick()
    world.tick()
    assert h.repaths >= 1
    r = h.result()
    free = expected_free(build.free_space(bounds=(0, 0, 20, 10)), [wall], 0.0)
    assert r.found and LineString(r.points).distance(wall) >= -1e-12
    assert not LineString(r.points).crosses(wall)
    assert r.cost >= visibility_length(free, (1, 5), (19, 5)) * (1 - 1e-9)
    assert all(g.walkable[n] for n in r.nodes)
    # a wall that closes the room: the request finds no path, then one when it opens
    world.update("m", add_obstacle=box(9, 0, 11, 2), obstacle_id="gap")
    world.tick()
    world.tick()
    assert h.result().status is PathStatus.UNREACHABLE
    world.update("m", remove_obstacle="gap")
    world.tick()
    world.tick()
    assert h.result().found


# -- bad updates ---------------------------------------------------------------

def _state(graph):
    return (graph.version, graph.num_nodes, graph.poly_verts.copy(), graph.walkable.copy(),
            graph.csr.targets.copy(), dict(graph.tiles.obstacles))


def _same(a, b):
    return a[0] == b[0] and a[1] == b[1] and all(np.array_equal(x, y) for x, y in
                                               zip(a[2:5], b[2:5])) and a[5] == b[5]


BAD = [
    ({"remove_obstacle": "nope"}, "no obstacle"),
    ({"add_obstacle": [(0, 0), (1, 0), (1, 1)], "obstacle_id": "a"}, "already has"),
    ({"add_obstacle": [(0, 0), (2, 2), (2, 0), (0, 2)], "obstacle_id": "bow"}, "not a valid"),
    ({"add_obstacle": [(0, 0), (1, math.nan), (1, 1)], "obstacle_id": "n"}, "NaN"),
    ({"add_obstacle": [(0, 0), (1, 1), (2, 2)], "obstacle_id": "flat"}, "valid|area"),
    ({"add_obstacle": "square", "obstacle_id": "s"}, "polygon"),
    ({"add_obstacle": [(0, 0), (1, 0), (1, 1)]}, "obstacle_id"),
    ({"add_obstacle": [(0, 0), (1, 0), (1, 1)], "obstacle_id": ["unhashable"]}, "hashable"),
    ({"add_obstacle": [(0, 0), (1, 0), (1, 1)], "obstacle_id": "x", "walkable": False},
     "exactly obstacle_id"),
    ({"remove_obstacle": "a", "walkable": True}, "nothing else"),
    ({"rect": (1, 1, 0, 2), "walkable": False}, "w > 0"),
    ({"rect": (1, 1, 2), "walkable": False}, "rect"),
    ({"rect": (1, 1, 2, 2), "walkable": "no"}, "walkable"),
    ({"rect": (1, 1, 2, 2)}, "walkable"),
    ({"rect": (1, 1, 2, 2), "region": box(0, 0, 1, 1), "walkable": False}, "exactly one"),
    ({"region": box(0, 0, 1, 1), "cost": 3.0}, "region update"),
    ({"cells": [(1, 1)], "walkable": False}, "unknown"),
    ({}, "unknown"),
]


@pytest.mark.parametrize("params, words", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_updates_raise_at_once_and_change_nothing(params, words):
    world = navcore.World(autoload=False)
    g = world.add_graph("m", type="navmesh", bounds=(0, 0, 6, 6), tile_size=2.0)
    world.update("m", add_obstacle=[(0, 0), (1, 0), (1, 1)], obstacle_id="a")
    world.tick()
    before = _state(g)
    with pytest.raises(UpdateError, match=words):
        world.update("m", **params)
    assert world.pending_updates("m") == 0
    world.tick()
    assert _same(before, _state(g))


def test_obstacle_ids_count_what_is_queued():
    world = navcore.World(autoload=False)
    g = world.add_graph("m", type="navmesh", bounds=(0, 0, 6, 6), tile_size=2.0)
    tri = [(1, 1), (2, 1), (2, 2)]
    world.update("m", add_obstacle=tri, obstacle_id=7)
    with pytest.raises(UpdateError, match="queued"):
        world.update("m", add_obstacle=tri, obstacle_id=7)          # queued already
    world.update("m", remove_obstacle=7)                             # queued: fine
    with pytest.raises(UpdateError, match="no obstacle"):
        world.update("m", remove_obstacle=7)                         # removed in the queue
    world.update("m", add_obstacle=tri, obstacle_id=7)               # and back
    assert world.pending_updates("m") == 3
    world.tick()
    assert set(g.tiles.obstacles) == {7}
    check_covers(g, expected_free(build.free_space(bounds=(0, 0, 6, 6)), [Polygon(tri)], 0))


def test_meshes_from_arrays_take_only_generic_updates():
    free = build.free_space(bounds=(0, 0, 4, 4))
    v, t = triangulate(free)
    g = NavMeshGraph.from_triangles(v, t, free)
    g.graph_id = "arrays"
    with pytest.raises(UpdateError, match="not built in tiles"):
        obstacle_updates.make_update(None, g, {"remove_obstacle": 1})
    assert obstacle_updates.make_update(None, g, {"nodes": [0], "walkable": False}) is None
    assert obstacle_updates.apply_updates(None, g, []) is None


def test_a_failed_batch_changes_nothing(monkeypatch):
    world = navcore.World(autoload=False)
    g = world.add_graph("m", type="navmesh", bounds=(0, 0, 6, 6), tile_size=2.0)
    before = _state(g)
    world.update("m", add_obstacle=box(1, 1, 2, 2), obstacle_id=1)

    def boom(*args, **kwargs):
        raise RuntimeError("GEOS failed")
    monkeypatch.setattr("navcore_navmesh.tiles.triangulate_pieces", boom)
    with pytest.raises(navcore.UpdateError, match="RuntimeError: GEOS failed"):
        world.tick()
    assert _same(before, _state(g))
    monkeypatch.undo()
    world.update("m", add_obstacle=box(1, 1, 2, 2), obstacle_id=1)   # never applied
    world.tick()
    assert set(g.tiles.obstacles) == {1}


def test_warm_up_changes_nothing():
    world = navcore.World(autoload=False)
    g = world.add_graph("m", type="navmesh", bounds=(0, 0, 6, 6), tile_size=2.0)
    world.update("m", add_obstacle=box(1, 1, 2, 2), obstacle_id=1)
    world.tick()
    before = _state(g)
    poly, adj = g.tiles.poly.copy(), g.tiles.adj.copy()
    world.warm_up()
    assert _same(before, _state(g))
    assert np.array_equal(poly, g.tiles.poly) and np.array_equal(adj, g.tiles.adj)


# -- tiles merged into convex polygons ---------------------------------------------

def check_tile_polygons(graph):
    """Every live slot is a convex, counter-clockwise, simple polygon of 3
    to ``MAX_SIDES`` corners inside its own tile's square (merging never
    crosses a tile border), and the tiles' slot lists hold exactly the
    live slots."""
    tm = graph.tiles
    grid = tm.grid
    ids = live(graph)
    assert np.array_equal(ids, np.flatnonzero(tm.tile_of >= 0))
    lists = np.concatenate([tm.tile_polys[t] for t in range(grid.count)])
    assert np.array_equal(np.sort(lists), ids)
    for t in range(grid.count):
        assert (tm.tile_of[tm.tile_polys[t]] == t).all()
    for p in ids.tolist():
        pts = graph.polygon_points(p)
        assert 3 <= len(pts) <= MAX_SIDES
        d1 = np.roll(pts, -1, axis=0) - pts
        d2 = np.roll(d1, -1, axis=0)
        turns = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
        scale = np.hypot(*d1.T) * np.hypot(*d2.T)
        assert (turns >= -1e-12 * scale).all(), f"polygon {p} has a reflex corner"
        poly = Polygon(pts)
        assert poly.is_valid and poly.exterior.is_ccw and poly.area > 0
        t = int(tm.tile_of[p])
        i, j = t % grid.nx, t // grid.nx
        assert (pts[:, 0] >= grid.xs[i]).all() and (pts[:, 0] <= grid.xs[i + 1]).all()
        assert (pts[:, 1] >= grid.ys[j]).all() and (pts[:, 1] <= grid.ys[j + 1]).all()


def exact_lengths(graph, free, rng, k=24):
    """Exact lengths between ``k`` random pairs of points of ``free``."""
    pts = np.array(random_points(free, rng, 2 * k))
    return pts, path_lengths(graph, pts[:k], pts[k:])


@pytest.mark.parametrize("name", sorted(SCENES))
def test_tiles_are_merged_into_fewer_convex_polygons_within_each_tile(name):
    params = SCENES[name]
    world = navcore.World(autoload=False)
    merged = world.add_graph("m", type="navmesh", **params)
    same = world.add_graph("s", type="navmesh", merge=True, **params)
    tris = world.add_graph("t", type="navmesh", merge=False, **params)
    assert merged.tiles.merge and same.tiles.merge and not tris.tiles.merge
    assert np.array_equal(merged.poly_verts, same.poly_verts)
    assert (np.diff(tris.poly_start) == 3).all()
    assert live(merged).size < live(tris).size
    assert np.diff(merged.poly_start).max() > 3
    free = _static(params)
    for g in (merged, tris):
        check_tile_polygons(g)
        check_covers(g, free)
    # the walls and vertices on tile borders are the triangles' own
    assert np.array_equal(merged.vertices, tris.vertices)
    assert sorted(map(tuple, walls(merged).reshape(-1, 4).tolist())) == \
        sorted(map(tuple, walls(tris).reshape(-1, 4).tolist()))


@pytest.mark.parametrize("name", sorted(SCENES))
@pytest.mark.parametrize("seed", [0, 1])
def test_exact_search_on_merged_tiles_equals_the_static_mesh(name, seed):
    # random obstacles come and go; after every batch the merged tiles are
    # convex polygons inside their tiles, and the exact lengths equal the
    # static merged mesh of the same free space and the tiled triangles
    params = SCENES[name]
    base = _static(params)
    rng = np.random.default_rng(100 + seed)
    world = navcore.World(autoload=False)
    merged = world.add_graph("m", type="navmesh", **params)
    tris = world.add_graph("t", type="navmesh", merge=False, **params)
    x0, y0, x1, y1 = base.bounds
    present = {}
    for tick in range(8):
        for _ in range(int(rng.integers(1, 4))):
            if present and rng.random() < 0.35:
                oid = sorted(present)[int(rng.integers(len(present)))]
                del present[oid]
                for gid in ("m", "t"):
                    world.update(gid, remove_obstacle=oid)
                continue
            c = rng.uniform([x0 - 1, y0 - 1], [x1 + 1, y1 + 1])
            poly = convex(rng, c, rng.uniform(0.3, 1.5))
            if not poly.area > 0:
                continue
            oid = f"o{tick}.{len(present)}.{rng.integers(1 << 30)}"
            present[oid] = poly
            for gid in ("m", "t"):
                world.update(gid, add_obstacle=poly, obstacle_id=oid)
        if rng.random() < 0.3:
            c = rng.uniform([x0, y0], [x1 - 1.5, y1 - 0.7])      # inside the map
            for gid in ("m", "t"):
                world.update(gid, rect=(float(c[0]), float(c[1]), 1.5, 0.7), walkable=False)
        world.tick()
        check_tile_polygons(merged)
        free = merged.free_space
        assert free.symmetric_difference(tris.free_space).area < 1e-9
        check_covers(merged, free)
        assert live(merged).size < live(tris).size
        static_world = navcore.World(autoload=False)
        static = static_world.add_graph("s", type="navmesh", walkable=free, tile_size=0)
        pts, got = exact_lengths(merged, free, rng)
        want = path_lengths(static, pts[:24], pts[24:])
        also = path_lengths(tris, pts[:24], pts[24:])
        assert np.array_equal(np.isfinite(got), np.isfinite(want))
        ok = np.isfinite(want)
        assert got[ok] == pytest.approx(want[ok], rel=1e-9, abs=1e-9)
        assert got[ok] == pytest.approx(also[ok], rel=1e-9, abs=1e-9)
        check_slots(merged)
        check_areas(world, merged, free)


def test_merged_tiles_keep_ids_and_dirty_sets_like_triangles():
    # a batch re-merges only the tiles it re-triangulates; the dirty set
    # is the retired, the new and the re-linked neighbours, merged or not
    for merge in (True, False):
        world = navcore.World(autoload=False)
        seen = []

        class Observer:
            @navcore.hookimpl
            def navcore_graph_updated(self, graph, dirty):
                seen.append(dirty.copy())
        world.plugins.register(Observer())
        g = world.add_graph("m", type="navmesh", bounds=(0, 0, 12, 12), tile_size=3.0,
                            obstacles=[box(5, 5, 7, 7), box(1, 7, 2, 8)], merge=merge)
        for k, ob in enumerate([box(6.5, 0.5, 7.5, 4), convex(np.random.default_rng(3),
                                                              (4, 9), 1.0)]):
            before = {int(p): g.polygon_points(int(p)).tolist() for p in live(g)}
            tile_of = g.tiles.tile_of.copy()
            touched = set(g.tiles.grid.tiles(shapely.bounds(ob)).tolist())
            world.update("m", add_obstacle=ob, obstacle_id=k)
            world.tick()
            dirty = set(seen[-1].tolist())
            retired = {p for p in before if tile_of[p] in touched}
            new = set(live(g).tolist()) - set(before)
            for p, pts in before.items():
                if p not in retired:
                    assert g.polygon_points(p).tolist() == pts
            relinked = {p for p in before if p not in retired
                        and set(g.csr.neighbors(p).tolist()) & (new | retired)}
            assert new and dirty == retired | new | relinked
            check_tile_polygons(g)


@pytest.mark.nojit
def test_a_rect_past_the_map_is_refused_not_clipped():
    # (x0, y0, x1, y1) corners given as (x, y, w, h) run past the map: the
    # mesh would be blocked in the wrong place without a word
    world = navcore.World(autoload=False)
    g = world.add_graph("m", type="navmesh", bounds=(0, 0, 12, 6), agent_radius=0.2)
    before = g.free_space
    for rect, says in [((4, 2, 8, 5), r"runs past the bounds of navmesh 'm' \(x 0..12, y 0..6\)"),
                       ((11.5, 0, 1, 6), "runs past"), ((-1, 1, 2, 2), "runs past"),
                       ((20, 20, 1, 1), "lies outside"), ((0, -3, 12, 2), "lies outside")]:
        with pytest.raises(navcore.UpdateError, match=says) as info:
            world.update("m", rect=rect, walkable=False)
        assert "not two corners" in str(info.value)
    assert world.pending_updates("m") == 0
    world.update("m", rect=(0, 0, 12, 6), walkable=False)      # the whole map fits
    world.tick()
    assert g.free_space.area < before.area


def test_a_long_shell_is_cut_into_tiles_by_halving(monkeypatch):
    # cut tile by tile, a strip of n tiles cost n clips of its n-vertex
    # outline; halved, each level of halving passes over it once
    rng = np.random.default_rng(3)
    free = build.free_space(walkable=[[0, 0], [4096, 0], [4096, 1], [0, 1]],
                            obstacles=[box(x, 0.2, x + 0.5, 0.6)
                                       for x in rng.choice(4000, 300, replace=False) + 0.25])
    grid = tiles.TileGrid(free.bounds, 1.0)
    noded = tiles.node_with_grid(free, grid)
    seen = []
    halve = tiles._halve
    monkeypatch.setattr(tiles, "_halve", lambda g, *a: seen.append(
        shapely.get_num_coordinates(g)) or halve(g, *a))
    halved = tiles.clip_to_tiles(noded, grid)
    assert sum(seen) <= 2 * shapely.get_num_coordinates(noded) * np.log2(grid.count)
    monkeypatch.setattr(tiles, "HALVING_FROM", float("inf"))
    direct = tiles.clip_to_tiles(noded, grid)
    assert [p is None for p in halved] == [p is None for p in direct]
    for a, b in zip(halved, direct):
        if a is not None:
            assert a.symmetric_difference(b).area == 0
            assert set(map(tuple, shapely.get_coordinates(a))) == \
                set(map(tuple, shapely.get_coordinates(b)))
