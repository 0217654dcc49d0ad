"""``algorithm="polyanya"``: exact any-angle shortest paths on random
small scenes against the naive visibility graph in ``tests/reference.py``
(the shared benchmark's maps: test_anyangle_benchmarks.py). Every path is
also checked as a path (``reference.check_any_angle_path``)."""
import math

import numpy as np
import pytest
import shapely
from shapely.geometry import box

import navcore
from navcore import PathStatus
from navcore_navmesh import polyanya
from reference import check_any_angle_path, visibility_length
from reference import random_free_points as _free_points


def check_path(graph, r, s, g, free):
    check_any_angle_path(graph, r, s, g, free)
    assert graph.locate_many(np.array([s]))[0] != -1


def random_scene(seed, n=6, size=20.0):
    """A square room with ``n`` random obstacles: rotated boxes and
    triangles at arbitrary angles, overlapping or touching at will."""
    rng = np.random.default_rng(seed)
    obstacles = []
    for _ in range(n):
        cx, cy = rng.uniform(2, size - 2, 2)
        if rng.random() < 0.5:
            w, h = rng.uniform(0.5, 4, 2)
            ob = shapely.affinity.rotate(box(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2),
                                         float(rng.uniform(0, 180)))
        else:
            ang = np.sort(rng.uniform(0, 2 * np.pi, 3))
            rad = rng.uniform(0.8, 3)
            ob = shapely.Polygon(np.column_stack([cx + rad * np.cos(ang), cy + rad * np.sin(ang)]))
        obstacles.append(ob)
    return dict(bounds=(0, 0, size, size), obstacles=obstacles)


@pytest.mark.nojit
@pytest.mark.parametrize("seed", range(3))
def test_random_scenes_match_the_visibility_graph(seed):
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", **random_scene(seed))
    free = graph.free_space
    grown = free.buffer(1e-9)
    rng = np.random.default_rng(100 + seed)
    pts = _free_points(free, rng, 12)
    # the corners of the free space too: ends on mesh vertices
    corners = [tuple(c) for c in shapely.get_coordinates(free)[:-1:3].tolist()][:4]
    pts += corners
    for s, g in zip(pts[::2], pts[1::2]):
        want = visibility_length(free, s, g)
        r = world.find_path("m", s, g, algorithm="polyanya")
        if math.isinf(want):
            assert r.status is PathStatus.UNREACHABLE, (s, g)
            continue
        check_path(graph, r, s, g, grown)
        assert r.cost == pytest.approx(want, rel=1e-9, abs=1e-12), (s, g, r.points.tolist())


@pytest.mark.parametrize("seed", range(3, 9))
def test_more_random_scenes(seed):
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", **random_scene(seed, n=10, size=30.0))
    free = graph.free_space
    grown = free.buffer(1e-9)
    rng = np.random.default_rng(seed)
    pts = _free_points(free, rng, 20)
    for s, g in zip(pts[::2], pts[1::2]):
        want = visibility_length(free, s, g)
        r = world.find_path("m", s, g, algorithm="polyanya")
        if math.isinf(want):
            assert r.status is PathStatus.UNREACHABLE, (s, g)
            continue
        check_path(graph, r, s, g, grown)
        assert r.cost == pytest.approx(want, rel=1e-9), (s, g, r.points.tolist())
        funnel = world.find_path("m", s, g, algorithm="funnel")
        assert funnel.cost >= r.cost * (1 - 1e-12)


@pytest.mark.nojit
def test_collinear_vertices_and_touching_holes():
    # a room whose walls carry extra collinear vertices, with two holes that
    # touch each other along an edge and one touching the outer wall
    outer = [(0, 0), (4, 0), (8, 0), (12, 0), (12, 4), (12, 8), (6, 8), (0, 8), (0, 4)]
    holes = [[(3, 2), (5, 2), (5, 6), (3, 6)], [(5, 3), (7, 3), (7, 5), (5, 5)],
             [(9, 0), (10, 0), (10, 5), (9, 5)]]
    walk = shapely.Polygon(outer).difference(shapely.union_all([shapely.Polygon(h) for h in holes]))
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", walkable=[walk])
    for s, g in [((1, 1), (11, 1)), ((1, 7), (8, 1)), ((4, 0), (12, 4)), ((6, 8), (6, 0)),
                 ((0, 4), (11.5, 0.5)), ((5, 2), (7, 5))]:
        r = world.find_path("m", s, g, algorithm="polyanya")
        check_path(graph, r, s, g, graph.free_space.buffer(1e-9))
        assert r.cost == pytest.approx(visibility_length(graph.free_space, s, g), rel=1e-9)


@pytest.mark.nojit
def test_blocked_polygons_are_walls():
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, 10, 4),
                            obstacles=[[(4, 0), (6, 0), (6, 3), (4, 3)]])
    s, g = (1, 1), (9, 1)
    assert world.find_path("m", s, g, algorithm="polyanya").found
    # block every polygon over the gap above the obstacle: no way round
    gap = np.flatnonzero((graph.positions[:, 0] > 4) & (graph.positions[:, 0] < 6))
    world.update("m", nodes=gap.tolist(), walkable=False)
    world.tick()
    r = world.find_path("m", s, g, algorithm="polyanya")
    assert r.status is PathStatus.UNREACHABLE


@pytest.mark.nojit
def test_scratch_grows_when_the_node_pool_is_full():
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", **random_scene(4, n=10, size=30.0))
    s, g = (0.5, 0.5), (29.5, 29.5)
    want = world.find_path("m", s, g, algorithm="polyanya")
    scratch = polyanya.search_space(graph).scratch()
    scratch.grow(2)                               # far too small: the query retries
    again = world.find_path("m", s, g, algorithm="polyanya")
    assert len(scratch.hid) > 2
    assert again.cost == want.cost and again.points.tolist() == want.points.tolist()
    assert again.nodes.tolist() == want.nodes.tolist()


@pytest.mark.nojit
def test_answers_are_deterministic_and_symmetric():
    world = navcore.World(autoload=False)
    world.add_graph("m", type="navmesh", **random_scene(7, n=8))
    rng = np.random.default_rng(5)
    free = world.graph("m").free_space
    pts = _free_points(free, rng, 8)
    for s, g in zip(pts[::2], pts[1::2]):
        a = world.find_path("m", s, g, algorithm="polyanya")
        b = world.find_path("m", s, g, algorithm="polyanya")
        back = world.find_path("m", g, s, algorithm="polyanya")
        assert a.points.tolist() == b.points.tolist() and a.nodes.tolist() == b.nodes.tolist()
        assert back.cost == pytest.approx(a.cost, rel=1e-12)


@pytest.mark.nojit
def test_path_lengths_in_one_call_equal_find_path():
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", **random_scene(2, n=8))
    free = graph.free_space
    rng = np.random.default_rng(9)
    pts = np.array(_free_points(free, rng, 20))
    starts, goals = pts[::2].copy(), pts[1::2].copy()
    goals[3] = (-5.0, -5.0)                                 # off the mesh: nan
    got = polyanya.path_lengths(graph, starts, goals)
    for i, (s, g) in enumerate(zip(starts, goals)):
        r = world.find_path("m", tuple(s), tuple(g), algorithm="polyanya")
        if r.found:
            assert got[i] == pytest.approx(r.cost, rel=1e-12)
        elif r.status is PathStatus.UNREACHABLE:
            assert got[i] == math.inf
        else:
            assert math.isnan(got[i])
    assert math.isnan(got[3])
    polyanya.search_space(graph).scratch().grow(2)          # runs out mid-batch: goes on
    again = polyanya.path_lengths(graph, starts, goals)
    assert np.array_equal(np.isnan(again), np.isnan(got))
    assert np.allclose(again[~np.isnan(got)], got[~np.isnan(got)], rtol=1e-12)
    with pytest.raises(navcore.QueryError, match="differ in length"):
        polyanya.path_lengths(graph, starts, goals[:-1])
    with pytest.raises(navcore.QueryError, match=r"starts\[1\]"):
        polyanya.path_lengths(graph, [(1, 1), (math.nan, 2)], [(1, 1), (2, 2)])
    with pytest.raises(navcore.QueryError, match="shape"):
        polyanya.path_lengths(graph, [1, 2, 3], [(1, 1)])
