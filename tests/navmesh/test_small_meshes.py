"""Any-angle paths (polyanya and funnel) on small hand-made meshes against a naive reference: a
visibility graph over the polygon corners (shapely ``covers`` for line of
sight) and Dijkstra. Special ends: same triangle, on a vertex, on an edge,
outside the mesh, another component, a pinch between touching obstacles,
an agent radius."""
import math

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Polygon, box

import navcore
from navcore import PathStatus
from reference import visibility_length as reference_length
from reference import random_free_points as _random_points

# small meshes: the kernels also run as plain Python (make test-nojit)
pytestmark = pytest.mark.nojit


@pytest.fixture(params=["polyanya", "funnel"])
def algorithm(request):
    """Both any-angle searches: each is exact where the corridor is unique."""
    return request.param


def _world(**params):
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", **params)
    return world, graph


SIMPLE = {      # simple polygons (no holes): the corridor is unique, so exact
    "convex room": dict(bounds=(0, 0, 10, 6)),
    "convex hexagon": dict(walkable=[[(2, 0), (6, 0), (8, 3), (6, 6), (2, 6), (0, 3)]]),
    "straight corridor": dict(walkable=[[(0, 0), (20, 0), (20, 1), (0, 1)]]),
    "L corridor": dict(walkable=[[(0, 0), (10, 0), (10, 10), (9, 10), (9, 1), (0, 1)]]),
    "U room": dict(bounds=(0, 0, 10, 10), obstacles=[[(3, 0), (7, 0), (7, 7), (3, 7)]]),
    "zigzag": dict(walkable=[[(0, 0), (4, 0), (4, 3), (8, 3), (8, 0), (12, 0), (12, 6),
                              (8, 6), (8, 4), (4, 4), (4, 6), (0, 6)]]),
}
HOLES = {      # several corridors: at least the optimum
    "pillars": dict(bounds=(0, 0, 12, 8),
                    obstacles=[[(2, 2), (4, 2), (4, 4), (2, 4)], [(6, 1), (7, 1), (7, 7), (6, 7)],
                               [(9, 3), (11, 3), (11, 5), (9, 5)]]),
    "ring": dict(walkable=[Polygon([(0, 0), (10, 0), (10, 10), (0, 10)],
                                   [[(2, 2), (8, 2), (8, 8), (2, 8)]])]),
    "rotated": dict(bounds=(-5, -5, 5, 5),
                    obstacles=[shapely.affinity.rotate(box(-3, -0.5, 3, 0.5), 30),
                               shapely.affinity.rotate(box(-1, -4, 1, -2), -20)]),
}


@pytest.mark.parametrize("name", sorted(SIMPLE))
def test_exact_on_simple_polygons(name, algorithm):
    world, graph = _world(**SIMPLE[name])
    rng = np.random.default_rng(1)
    pts = _random_points(graph.free_space, rng, 16)
    for s, g in zip(pts[::2], pts[1::2]):
        r = world.find_path("m", s, g, algorithm=algorithm)
        assert r.found and r.algorithm == algorithm
        assert r.cost == pytest.approx(reference_length(graph.free_space, s, g), rel=1e-9)


@pytest.mark.parametrize("name", sorted(HOLES))
def test_funnel_is_never_shorter_than_reference_with_holes(name):
    world, graph = _world(**HOLES[name])
    rng = np.random.default_rng(2)
    pts = _random_points(graph.free_space, rng, 20)
    for s, g in zip(pts[::2], pts[1::2]):
        r = world.find_path("m", s, g, algorithm="funnel")
        ref = reference_length(graph.free_space, s, g)
        assert r.found and r.cost >= ref * (1 - 1e-9)
        assert r.cost <= ref * 1.5
        assert graph.free_space.buffer(1e-9).covers(LineString(r.points))


def test_straight_line_in_a_convex_room_and_in_one_polygon(algorithm):
    world, graph = _world(bounds=(0, 0, 10, 6), tile_size=0)
    assert graph.num_polygons == 1                 # the merged static room is one rectangle
    r = world.find_path("m", (1, 1), (9, 5), algorithm=algorithm)
    assert r.points.tolist() == [[1, 1], [9, 5]] and r.cost == pytest.approx(math.hypot(8, 4))
    world, graph = _world(bounds=(0, 0, 10, 6), merge=False)  # tiled triangles
    t = graph.locate((1, 1))
    a, b, c = graph.polygon_points(t)              # unmerged: triangles
    s, g = (a + b + c) / 3, (0.5 * a + 0.3 * b + 0.2 * c)     # both inside triangle t
    r = world.find_path("m", tuple(s), tuple(g), algorithm=algorithm)
    assert r.nodes.tolist() == [t] and r.points.tolist() == [s.tolist(), g.tolist()]
    assert r.cost == pytest.approx(np.linalg.norm(g - s))


def test_same_point_is_a_zero_length_path(algorithm):
    world, _ = _world(bounds=(0, 0, 4, 4))
    r = world.find_path("m", (1.5, 2), (1.5, 2), algorithm=algorithm)
    assert r.found and r.cost == 0.0 and len(r.points) == 2


def test_ends_on_vertices_and_edges(algorithm):
    world, graph = _world(**SIMPLE["U room"])
    free = graph.free_space
    for s, g in [((3, 7), (7, 7)),          # obstacle corners (mesh vertices)
                 ((0, 0), (10, 0)),         # corners of the room
                 ((5, 7), (10, 5)),         # on the obstacle's top edge, the outer wall
                 ((3, 3.5), (7, 2))]:       # on the obstacle's sides
        r = world.find_path("m", s, g, algorithm=algorithm)
        assert r.found, (s, g)
        assert r.points[0].tolist() == list(s) and r.points[-1].tolist() == list(g)
        assert r.cost == pytest.approx(reference_length(free, s, g), rel=1e-9)
    # an interior edge of the triangulation: its midpoint
    e = int(np.flatnonzero(graph.poly_adj >= 0)[0])
    a, b = graph.vertices[graph.poly_verts[[e, graph.poly_next[e]]]]
    mid = tuple((a + b) / 2)
    t = int(np.searchsorted(graph.poly_start, e, side="right") - 1)
    assert graph.locate(mid) in (t, graph.poly_adj[e])
    assert world.find_path("m", mid, (1, 9), algorithm=algorithm).found


def test_outside_the_mesh_is_invalid_start_or_goal(algorithm):
    world, _ = _world(**SIMPLE["U room"])
    assert world.find_path("m", (5, 3), (1, 1), algorithm=algorithm).status is PathStatus.INVALID_START  # in the obstacle
    assert world.find_path("m", (1, 1), (-1, 5), algorithm=algorithm).status is PathStatus.INVALID_GOAL  # off the map
    assert world.find_path("m", (11, 1), (1, 1), algorithm=algorithm).status is PathStatus.INVALID_START


def test_separate_components_are_unreachable(algorithm):
    world, _ = _world(walkable=[[(0, 0), (3, 0), (3, 3), (0, 3)],
                                [(5, 0), (8, 0), (8, 3), (5, 3)]])
    assert world.find_path("m", (1, 1), (6, 1), algorithm=algorithm).status is PathStatus.UNREACHABLE
    assert world.find_path("m", (1, 1), (2, 2), algorithm=algorithm).found


def test_no_squeezing_through_a_pinch_between_touching_obstacles(algorithm):
    # two blocks touch at (2, 2) only: the free space is pinched there
    world, graph = _world(bounds=(0, 0, 4, 4),
                          obstacles=[[(1, 0), (2, 0), (2, 2), (1, 2)],
                                     [(2, 2), (3, 2), (3, 4), (2, 4)]])
    assert world.find_path("m", (1.5, 3), (2.5, 1), algorithm=algorithm).status is PathStatus.UNREACHABLE
    # around the free end of a block instead: along its corners, never across (2, 2)
    world, graph = _world(bounds=(0, 0, 5, 4),
                          obstacles=[[(1, 0), (2, 0), (2, 2), (1, 2)],
                                     [(2, 2), (3, 2), (3, 3), (2, 3)]])
    r = world.find_path("m", (1.5, 2.5), (2.5, 1), algorithm=algorithm)
    assert r.found
    assert r.points.tolist() == [[1.5, 2.5], [2, 3], [3, 3], [3, 2], [2.5, 1]]
    assert r.cost == pytest.approx(math.sqrt(0.5) + 2 + math.sqrt(1.25))


def test_agent_radius_keeps_paths_clear_of_walls(algorithm):
    obstacle = box(4, 0, 6, 7)
    world, graph = _world(bounds=(0, 0, 10, 10), obstacles=[obstacle], agent_radius=0.5)
    # 0.2 from the wall: snapped onto the shrunk mesh; inside the obstacle: not
    assert world.find_path("m", (0.2, 5), (9, 5), algorithm=algorithm).points[0].tolist() == [0.5, 5]
    assert world.find_path("m", (5, 3), (9, 5), algorithm=algorithm).status is PathStatus.INVALID_START
    r = world.find_path("m", (1, 1), (9, 1), algorithm=algorithm)
    assert r.found
    path = LineString(r.points)
    assert path.distance(obstacle) >= 0.5 - 1e-9
    assert path.distance(box(0, 0, 10, 10).exterior) >= 0.5 - 1e-9
    assert r.cost > 2 * (7 + 0.5 - 1)        # over the top of the obstacle


def test_polygon_searches_walk_the_polygon_graph_under_their_own_names():
    world, graph = _world(**HOLES["pillars"])
    s, g = (1, 1), (11, 7)
    for name in ("polygon_astar", "polygon_dijkstra"):
        walk = world.find_path("m", s, g, algorithm=name)
        assert walk.found and walk.algorithm == name
        assert np.allclose(walk.points, graph.points_of(walk.nodes))     # centroids
        assert walk.cost == pytest.approx(world.path_costs("m", [walk.nodes])[0])
        assert world.find_path("m", s, g, algorithm="funnel").cost <= walk.cost + 1e-9 + \
            math.dist(s, walk.points[0]) + math.dist(g, walk.points[-1])
    # the generic names are the exact search on a navmesh, or refused
    exact = world.find_path("m", s, g)
    for name in ("astar", "dijkstra"):
        r = world.find_path("m", s, g, algorithm=name)
        assert r.algorithm == "polyanya" and r.cost == exact.cost
        assert np.array_equal(r.points, exact.points)
    assert set(world.algorithms("m")) == {"polyanya", "funnel", "astar", "dijkstra",
                                          "polygon_astar", "polygon_dijkstra"}
    for name in ("bfs", "simplified", "ch"):
        with pytest.raises(navcore.QueryError, match="polygon_astar"):
            world.find_path("m", s, g, algorithm=name)


@pytest.mark.parametrize("name", ["U room", "zigzag"])
def test_every_mesh_vertex_and_edge_midpoint_as_an_end_is_exact(name, algorithm):
    # ends on polygon edges make funnels of exactly 180 degrees
    world, graph = _world(**SIMPLE[name])
    v = graph.vertices
    mids = (v[graph.poly_verts] + v[graph.poly_verts[graph.poly_next]]) / 2
    ends = [tuple(p) for p in np.unique(np.vstack([v, mids]), axis=0).tolist()]
    goals = [ends[0], ends[len(ends) // 2], ends[-1]]
    for s in ends:
        for g in goals:
            r = world.find_path("m", s, g, algorithm=algorithm)
            assert r.found, (s, g)
            assert r.cost == pytest.approx(reference_length(graph.free_space, s, g),
                                           rel=1e-9, abs=1e-12), (s, g, r.points.tolist())
