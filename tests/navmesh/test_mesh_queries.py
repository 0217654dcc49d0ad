"""``World.raycast``, ``random_point`` and ``nearest_point`` on 2D navmeshes
(static and tiled), against independent truths computed with shapely on
the union of the mesh's walkable polygons: the first point where the
segment leaves that region (raycast), membership and area shares of
random points, and the nearest point by brute force over every edge."""
from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point, Polygon, box

import navcore
from hooktags import exercises
from reference import random_free_points

# small meshes: the kernels also run as plain Python (make test-nojit)
pytestmark = pytest.mark.nojit


def _walkable_polygons(graph):
    return [Polygon(graph.vertices[graph.poly_verts[graph.poly_start[p]:graph.poly_start[p + 1]]])
            for p in np.flatnonzero(graph.walkable)
            if graph.poly_start[p + 1] - graph.poly_start[p] >= 3]


def _scene(seed, tile_size):
    """A room with random disjoint boxes (no pinches, where a ray could
    slip between two walls that meet at a corner)."""
    rng = np.random.default_rng(seed)
    w, h = float(rng.integers(12, 20)), float(rng.integers(8, 13))
    placed, boxes = [], []
    while len(boxes) < int(rng.integers(2, 6)):
        x, y = rng.uniform(0.5, w - 3), rng.uniform(0.5, h - 3)
        b = box(x, y, x + rng.uniform(0.5, 2.5), y + rng.uniform(0.5, 2.5))
        if b.within(box(0.2, 0.2, w - 0.2, h - 0.2)) and not any(
                b.buffer(0.3).intersects(o) for o in placed):
            placed.append(b)
            boxes.append(b)
    world = navcore.World()
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, w, h), obstacles=boxes,
                            tile_size=tile_size)
    return world, graph, rng


def _first_exit(free, s, e):
    """The reference raycast: the fraction of ``s -> e`` where the segment
    first leaves ``free`` (``inf`` when it never does)."""
    seg = LineString([s, e])
    inside = shapely.line_merge(seg.intersection(free))
    parts = getattr(inside, "geoms", [inside])
    length = seg.length
    for part in parts:
        a, b = part.coords[0], part.coords[-1]
        for near, far in ((a, b), (b, a)):
            if math.dist(near, s) <= 1e-9:
                t = math.dist(s, far) / length
                return math.inf if t >= 1 - 1e-12 else t
    raise AssertionError("the start is not in the free space")


@exercises("navcore_raycast")
@pytest.mark.parametrize("tile_size", [0, 4.0])
@pytest.mark.parametrize("seed", range(3))
def test_raycast_stops_where_the_segment_first_leaves_the_mesh(seed, tile_size):
    world, graph, rng = _scene(seed, tile_size)
    polys = _walkable_polygons(graph)
    free = shapely.union_all(polys)
    x0, y0, x1, y1 = free.bounds
    starts = random_free_points(free, rng, 40)
    hits = misses = 0
    for s in starts:
        e = (float(rng.uniform(x0 - 2, x1 + 2)), float(rng.uniform(y0 - 2, y1 + 2)))
        want = _first_exit(free, s, e)
        got = world.raycast("m", s, e)
        assert got.status is navcore.PathStatus.FOUND
        assert got.hit == (want != math.inf), (s, e, want, got)
        if got.hit:
            hits += 1
            assert got.t == pytest.approx(want, abs=1e-9), (s, e)
            p = np.asarray(s) + got.t * (np.asarray(e) - np.asarray(s))
            np.testing.assert_allclose(got.point, p, atol=1e-12)
            assert free.boundary.distance(Point(got.point)) < 1e-9
            # a unit normal across the wall, facing the way the ray came
            assert np.linalg.norm(got.normal) == pytest.approx(1.0)
            assert np.dot(got.normal, np.subtract(e, s)) < 0
            assert not free.contains(Point(got.point - 1e-6 * got.normal))
        else:
            misses += 1
            assert got.t == math.inf and tuple(got.point) == e
            assert not got.normal.any()
        # the polygons crossed: from the start's, each next to the one before,
        # the last one holding where the ray stops
        nodes = got.nodes
        assert polys and Point(s).distance(_poly(graph, nodes[0])) < 1e-9
        assert Point(got.point).distance(_poly(graph, nodes[-1])) < 1e-9
        for a, b in zip(nodes[:-1], nodes[1:]):
            assert b in graph.poly_adj[graph.poly_start[a]:graph.poly_start[a + 1]]
    assert hits and misses


def _poly(graph, p):
    return Polygon(graph.vertices[graph.poly_verts[graph.poly_start[p]:graph.poly_start[p + 1]]])


def test_raycast_walls_of_blocked_polygons_and_starts_off_the_mesh():
    world = navcore.World()
    # two squares side by side: the ray crosses the shared edge, unless the
    # right one is blocked, which makes that edge a wall
    world.add_graph("m", type="navmesh", vertices=[(0, 0), (1, 0), (2, 0), (2, 1), (1, 1),
                                                   (0, 1)],
                    polygons=[[0, 1, 4, 5], [1, 2, 3, 4]])
    r = world.raycast("m", (0.25, 0.5), (1.75, 0.5))
    assert not r.hit and r.nodes.tolist() == [0, 1] and r.t == math.inf
    world.update("m", nodes=[1], walkable=False)
    world.tick()
    r = world.raycast("m", (0.25, 0.5), (1.75, 0.5))
    assert r.hit and r.t == pytest.approx(0.5) and r.normal.tolist() == [-1.0, 0.0]
    assert r.nodes.tolist() == [0]
    # zero length: nothing to hit
    r = world.raycast("m", (0.25, 0.5), (0.25, 0.5))
    assert not r.hit and r.nodes.tolist() == [0]
    # a start on no walkable polygon (Detour: an invalid start)
    for start in ((5.0, 5.0), (1.5, 0.5)):
        r = world.raycast("m", start, (0.5, 0.5))
        assert r.status is navcore.PathStatus.INVALID_START and not r.hit
        assert math.isnan(r.t) and r.point is None and r.nodes.size == 0


def test_raycast_leaves_a_polygon_with_a_straight_corner_across_the_right_edge():
    # A's side x = 2 is two edges on one line: a wall below y = 1, the way
    # into B above it. The ray meets that line at one t for both; it
    # leaves across the wall (before, the tie went to the edge that leads
    # on, and the ray walked on through B, as if the wall were open)
    world = navcore.World()
    world.add_graph("m", type="navmesh",
                    vertices=[(0, 0), (2, 0), (2, 1), (2, 2), (0, 2), (3, 1), (3, 2)],
                    polygons=[[0, 1, 2, 3, 4], [2, 5, 6, 3]])
    r = world.raycast("m", (1.0, 0.5), (2.5, 0.5))
    assert r.hit and r.t == pytest.approx(2 / 3) and r.normal.tolist() == [-1.0, 0.0]
    assert r.nodes.tolist() == [0]
    r = world.raycast("m", (1.0, 1.5), (2.5, 1.5))
    assert not r.hit and r.nodes.tolist() == [0, 1]


@exercises("navcore_random_point")
def test_random_points_lie_on_the_mesh_and_are_uniform_by_area():
    world = navcore.World()
    # a square of area 1 beside a rectangle of area 3 (a quad: two fan
    # triangles), a blocked triangle that must never be drawn
    world.add_graph("m", type="navmesh",
                    vertices=[(0, 0), (1, 0), (4, 0), (4, 1), (1, 1), (0, 1), (5, 1)],
                    polygons=[[0, 1, 4, 5], [1, 2, 3, 4], [2, 6, 3]])
    world.update("m", nodes=[2], walkable=False)
    world.tick()
    rng = np.random.default_rng(7)
    draws = [world.random_point("m", rng) for _ in range(4000)]
    nodes = np.array([d.node for d in draws])
    pts = np.array([d.point for d in draws])
    assert set(nodes.tolist()) == {0, 1}
    assert ((pts >= 0) & (pts <= [4, 1])).all()
    assert np.array_equal(nodes == 0, pts[:, 0] < 1)           # each in its polygon
    # by area: 1 : 3 (equal weights per polygon would give 1 : 1)
    assert abs((nodes == 0).mean() - 0.25) < 0.03
    # uniform within the rectangle: its left third holds a third of its
    # points, and its lower half half (a bias to the fan's first corner fails)
    right = pts[nodes == 1]
    assert abs((right[:, 0] < 2).mean() - 1 / 3) < 0.04
    assert abs((right[:, 1] < 0.5).mean() - 0.5) < 0.04
    # a seed gives the same point; a generator goes on
    assert world.random_point("m", 11).point.tolist() == \
        world.random_point("m", 11).point.tolist()
    g = np.random.default_rng(3)
    assert world.random_point("m", g).point.tolist() != world.random_point("m", g).point.tolist()
    assert world.random_point("m").node in (0, 1)


@pytest.mark.parametrize("tile_size", [0, 4.0])
def test_random_points_of_a_built_mesh_lie_in_its_free_space(tile_size):
    world, graph, rng = _scene(5, tile_size)
    free = shapely.union_all(_walkable_polygons(graph))
    for _ in range(300):
        node, p = world.random_point("m", rng)
        assert free.distance(Point(p)) < 1e-9
        assert _poly(graph, node).distance(Point(p)) < 1e-9


def test_random_point_on_a_mesh_with_nothing_walkable():
    world = navcore.World()
    world.add_graph("m", type="navmesh", vertices=[(0, 0), (1, 0), (0, 1)], polygons=[[0, 1, 2]])
    world.update("m", nodes=[0], walkable=False)
    world.tick()
    assert world.random_point("m", 1) == (-1, None)
    assert world.nearest_point("m", (0.2, 0.2)) == (-1, None)


@exercises("navcore_nearest_point")
@pytest.mark.parametrize("tile_size", [0, 4.0])
def test_nearest_point_is_the_brute_force_nearest(tile_size):
    world, graph, rng = _scene(9, tile_size)
    polys = _walkable_polygons(graph)
    free = shapely.union_all(polys)
    x0, y0, x1, y1 = free.bounds
    for _ in range(60):
        q = (float(rng.uniform(x0 - 5, x1 + 5)), float(rng.uniform(y0 - 5, y1 + 5)))
        node, p = world.nearest_point("m", q)
        # brute force: 0 inside a polygon, else the nearest edge's point
        best = min(_edge_distance(graph, q, k) for k in np.flatnonzero(graph.walkable)
                   if graph.poly_start[k + 1] > graph.poly_start[k])
        if free.contains(Point(q)):
            best = 0.0
        assert math.dist(q, p) == pytest.approx(best, abs=1e-9), q
        assert _poly(graph, node).distance(Point(p)) < 1e-9 and graph.walkable[node]


def _edge_distance(graph, q, p):
    ring = graph.vertices[graph.poly_verts[graph.poly_start[p]:graph.poly_start[p + 1]]]
    best = math.inf
    for a, b in zip(ring, np.roll(ring, -1, axis=0)):
        d = b - a
        t = min(max(np.dot(np.subtract(q, a), d) / np.dot(d, d), 0.0), 1.0)
        best = min(best, math.dist(q, a + t * d))
    return best


@pytest.mark.parametrize("call", [
    lambda w: w.raycast("m", (1.0, float("nan")), (2.0, 2.0)),
    lambda w: w.raycast("m", (1.0, 1.0), (2.0, 2.0, 3.0)),
    lambda w: w.raycast("m", (1.0, 1.0), "far"),
    lambda w: w.raycast("m", (1.0, 1.0), None),
    lambda w: w.nearest_point("m", (1.0,)),
    lambda w: w.nearest_point("m", (np.inf, 1.0)),
    lambda w: w.nearest_point("m", [[1.0, 2.0]]),
])
def test_malformed_points_are_nav_errors(call):
    world = navcore.World()
    world.add_graph("m", type="navmesh", bounds=(0, 0, 4, 4))
    with pytest.raises(navcore.NavError):
        call(world)


@pytest.mark.parametrize("rng", [True, -1, 1.5, "seed", np.random.RandomState(1), [1]])
def test_random_point_checks_its_rng(rng):
    world = navcore.World()
    world.add_graph("m", type="navmesh", bounds=(0, 0, 4, 4))
    with pytest.raises(navcore.QueryError, match="rng must be"):
        world.random_point("m", rng)


def test_graph_types_without_the_queries_say_so():
    world = navcore.World()
    world.add_graph("g", type="csr", src=[0], dst=[1], cost=[1.0])
    with pytest.raises(navcore.QueryError, match="no plugin answered raycast on csr graph 'g'"):
        world.raycast("g", 0, 1)
    with pytest.raises(navcore.QueryError, match="random_point on csr graph 'g'"):
        world.random_point("g", 1)
    with pytest.raises(navcore.QueryError, match="nearest_point on csr graph 'g'"):
        world.nearest_point("g", (0.0, 0.0))


def test_a_plugin_answers_the_point_queries_for_its_own_graphs():
    class Nearest:
        @navcore.hookimpl
        def navcore_nearest_point(self, graph, point):
            return navcore.MeshPoint(0, np.asarray(graph.positions[0]))

    world = navcore.World()
    world.add_graph("g", type="csr", src=[0], dst=[1], cost=[1.0],
                    positions=[(0.0, 0.0), (1.0, 0.0)])
    world.plugins.register(Nearest())
    node, p = world.nearest_point("g", (5.0, 5.0))
    assert node == 0 and p.tolist() == [0.0, 0.0]


# ------------------------------------------------- random points around a point

def _split_room(gap):
    """A 20 x 10 room and a wall x 9..11 across it, open at y 8..10 when
    ``gap``: the free space (shapely) and the world."""
    wall = [(9, 0), (11, 0), (11, 8 if gap else 10), (9, 8 if gap else 10)]
    world = navcore.World()
    world.add_graph("m", type="navmesh", bounds=(0, 0, 20, 10), obstacles=[wall])
    free = box(0, 0, 20, 10).difference(Polygon(wall))
    return world, free


@exercises("navcore_random_point_around")
def test_points_around_lie_in_the_circle_uniformly_over_its_part_of_the_mesh():
    world, free = _split_room(gap=False)
    rng = np.random.default_rng(7)
    centre, r = (5.0, 5.0), 4.5
    pts = np.array([world.random_point("m", rng, around=centre, radius=r).point
                    for _ in range(4000)])
    assert np.hypot(*(pts - centre).T).max() <= r + 1e-12
    assert all(free.buffer(1e-9).contains(Point(p)) for p in pts[:300])
    # uniform over the disk cut to the room: the share left of x = 3 is that
    # part's share of the area
    disk = Point(centre).buffer(r, 256).intersection(free)
    left = disk.intersection(box(0, 0, 3, 10)).area / disk.area
    assert abs((pts[:, 0] < 3).mean() - left) < 0.03


def test_points_around_stay_on_the_centres_side_of_a_wall_and_pass_a_gap():
    world, _ = _split_room(gap=False)
    rng = np.random.default_rng(3)
    pts = np.array([world.random_point("m", rng, around=(8.0, 5.0), radius=4.0).point
                    for _ in range(500)])
    assert (pts[:, 0] <= 9 + 1e-9).all()          # the far side of the wall is cut off
    world, _ = _split_room(gap=True)
    pts = np.array([world.random_point("m", rng, around=(8.0, 7.0), radius=4.0).point
                    for _ in range(2000)])
    assert (pts[:, 0] > 11).any()                 # through the gap, still in the circle
    assert np.hypot(pts[:, 0] - 8, pts[:, 1] - 7).max() <= 4.0 + 1e-12
    assert world.random_point("m", 1, around=(10.0, 5.0), radius=2.0) == (-1, None)


def test_points_around_on_a_level_stay_on_their_floor_and_on_grids_in_the_circle():
    world = navcore.World()
    floor = [[0, 0, 0], [24, 0, 0], [24, 0, 10], [0, 0, 10]]
    storey = [[0, 4, 0], [10, 4, 0], [10, 4, 10], [0, 4, 10]]
    world.add_graph("l", type="level", vertices=floor + storey,
                    triangles=[[0, 2, 1], [0, 3, 2], [4, 6, 5], [4, 7, 6]])
    rng = np.random.default_rng(5)
    for y, height in ((4.0, 4.2), (0.0, 0.2)):
        pts = np.array([world.random_point("l", rng, around=(5.0, y, 5.0), radius=3.0).point
                        for _ in range(300)])
        np.testing.assert_allclose(pts[:, 1], height, atol=1e-9)
        assert np.hypot(pts[:, 0] - 5, pts[:, 2] - 5).max() <= 3.0 + 1e-12
    world.add_graph("g", type="grid", rows=["....#....", "....#....", "....#...."])
    cells = [world.random_point("g", rng, around=(2.5, 1.5), radius=3.0) for _ in range(300)]
    pts = np.array([c.point for c in cells])
    assert (pts[:, 0] < 4).all() and np.hypot(pts[:, 0] - 2.5, pts[:, 1] - 1.5).max() <= 3
    assert all(world.graph("g").locate(tuple(p)) == c.node for p, c in zip(pts, cells))
    assert not world.graph("g").csr_built            # cells walked on the grid itself


@pytest.mark.parametrize("kwargs, fragment", [
    ({"around": (1.0, 1.0)}, "around= and radius= together"),
    ({"radius": 1.0}, "around= and radius= together"),
    ({"around": (1.0, 1.0), "radius": 0.0}, "radius must be > 0"),
    ({"around": (1.0, 1.0), "radius": -1.0}, "radius must be a finite number"),
    ({"around": (1.0, 1.0), "radius": float("nan")}, "radius must be a finite number"),
    ({"around": (1.0, 1.0), "radius": True}, "radius must be a finite number"),
])
def test_bad_around_arguments_are_query_errors(kwargs, fragment):
    world = navcore.World()
    world.add_graph("m", type="navmesh", bounds=(0, 0, 4, 4))
    with pytest.raises(navcore.QueryError, match=fragment):
        world.random_point("m", 1, **kwargs)
    with pytest.raises(navcore.NavError):
        world.random_point("m", 1, around="here", radius=1.0)
    world.add_graph("g", type="csr", src=[0], dst=[1], cost=[1.0])
    with pytest.raises(navcore.QueryError, match="random_point_around on csr graph 'g'"):
        world.random_point("g", 1, around=(0.0, 0.0), radius=1.0)
