"""``distance_matrix`` and ``distance_pairs`` on a navmesh answer exact
path lengths between the points given (a polygon id: its centroid), the
costs ``find_path`` reports, checked against an exact visibility-graph
length (``reference.visibility_length``) too; ``inf`` where unreachable
(a walled-off room, a blocked polygon). The polygon graph's centroid
distances never come back as a length."""
import math

import numpy as np
import pytest
import shapely
from shapely.geometry import box

import navcore
from reference import random_free_points, visibility_length

# small meshes: the kernels also run as plain Python (make test-nojit)
pytestmark = pytest.mark.nojit


def _scene(seed):
    """A room with random disjoint boxes (no pinches: the reference does not
    know the no-squeezing rule) and a walled-off room inside a ring wall."""
    rng = np.random.default_rng(seed)
    w, h = float(rng.integers(14, 22)), float(rng.integers(9, 14))
    cell = box(w - 6, h - 5, w - 1, h - 1)                  # the ring wall's outside
    ring = cell.difference(box(w - 5, h - 4, w - 2, h - 2))  # 3 x 2 room inside, closed
    placed = [cell.buffer(0.3)]
    boxes = []
    while len(boxes) < int(rng.integers(2, 6)):
        x, y = rng.uniform(0.5, w - 3), rng.uniform(0.5, h - 3)
        b = box(x, y, x + rng.uniform(0.5, 2.5), y + rng.uniform(0.5, 2.5))
        if b.within(box(0.2, 0.2, w - 0.2, h - 0.2)) and not any(
                b.buffer(0.2).intersects(o) for o in placed):
            placed.append(b)
            boxes.append(b)
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, w, h),
                            obstacles=[*boxes, ring], tile_size=4.0)
    inside = random_free_points(box(w - 5, h - 4, w - 2, h - 2), rng, 2)
    return world, graph, rng, inside


def _in_one_polygon(graph, rng, k):
    """``k`` pairs of distinct points inside one polygon each."""
    out = []
    live = np.flatnonzero(graph.walkable)
    for p in rng.choice(live, k, replace=False):
        ring = graph.vertices[graph.poly_verts[graph.poly_start[p]:graph.poly_start[p + 1]]]
        wts = rng.dirichlet(np.ones(len(ring)), 2)        # convex combinations: inside
        out.append(tuple(map(tuple, (wts @ ring).tolist())))
    return out


def _find_path_cost(world, s, t):
    r = world.find_path("m", s, t)
    assert r.status.value in ("found", "unreachable"), (s, t, r.status)
    return r.cost


@pytest.mark.parametrize("seed", range(4))
def test_matrix_and_pairs_equal_find_path_on_random_scenes(seed):
    world, graph, rng, inside = _scene(seed)
    pts = random_free_points(graph.free_space, rng, 7) + inside
    same = _in_one_polygon(graph, rng, 3)
    sources = pts + [a for a, _ in same]
    targets = pts[::-1] + [b for _, b in same]
    m = world.distance_matrix("m", sources, targets)
    want = np.array([[_find_path_cost(world, s, t) for t in targets] for s in sources])
    assert m.shape == (len(sources), len(targets))
    assert np.array_equal(np.isinf(m), np.isinf(want))
    assert np.isinf(m).any() and np.isfinite(m).any()        # the closed room is a wall away
    np.testing.assert_allclose(m[np.isfinite(m)], want[np.isfinite(want)], rtol=1e-9, atol=1e-9)
    # pairs: the same numbers, row by row, as one numba call
    pairs = world.distance_pairs("m", sources, targets)
    np.testing.assert_allclose(pairs, np.diag(want), rtol=1e-9, atol=1e-9)
    # two points in one polygon: the straight line between them, not 0.0
    for (a, b), got in zip(same, pairs[-len(same):]):
        assert got == pytest.approx(math.dist(a, b), rel=1e-9, abs=1e-12) and got > 0
    # an independent truth: the visibility graph of the free space
    for i in range(0, len(sources), 3):
        for j in range(0, len(targets), 4):
            assert m[i, j] == pytest.approx(
                visibility_length(graph.free_space, sources[i], targets[j]), rel=1e-9, abs=1e-9)


def test_polygon_ids_stand_for_their_centroids():
    world, graph, rng, _ = _scene(7)
    live = np.flatnonzero(graph.walkable)
    ids = [int(i) for i in rng.choice(live, 5, replace=False)]
    cents = [tuple(graph.positions[i, :2].tolist()) for i in ids]
    by_id = world.distance_matrix("m", ids, ids[::-1])
    by_point = world.distance_matrix("m", cents, cents[::-1])
    assert np.array_equal(by_id, by_point)
    np.testing.assert_allclose(by_id[0], [_find_path_cost(world, ids[0], t) for t in ids[::-1]],
                               rtol=1e-9, atol=1e-9)
    # ids mixed with points, as a list
    mixed = [ids[0], cents[1], ids[2]]
    np.testing.assert_allclose(world.distance_pairs("m", mixed, cents[:3]),
                               world.distance_pairs("m", cents[:3], cents[:3]), rtol=0, atol=0)
    # a blocked polygon reaches nothing, not even itself
    world.update("m", nodes=[ids[0]], walkable=False)
    world.tick()
    got = world.distance_matrix("m", [ids[0], ids[1]], [ids[0], ids[1]])
    assert np.isinf(got[0]).all() and np.isinf(got[:, 0]).all() and got[1, 1] == 0.0


def test_readme_yard_numbers():
    world = navcore.World(autoload=False)
    world.add_graph("yard", type="navmesh", bounds=(0, 0, 20, 10),
                    obstacles=[[(5, 2), (8, 2), (8, 6), (5, 6)]])
    m = world.distance_matrix("yard", [(1, 1)], [(18, 8), (1, 4)])
    # around the box's corner (8, 2): sqrt(7**2 + 1) + sqrt(10**2 + 6**2), not
    # the centroid walk's 14.83 (shorter than the straight line, 18.38)
    exact = math.hypot(7, 1) + math.hypot(10, 6)
    assert m[0, 0] == pytest.approx(exact, rel=1e-12)
    assert m[0, 0] == pytest.approx(world.find_path("yard", (1, 1), (18, 8)).cost, rel=1e-12)
    assert round(m[0, 0], 3) == 18.733 and m[0, 1] == pytest.approx(3.0)
    assert world.distance_pairs("yard", [(1, 1), (1, 1)], [(18, 8), (1, 4)]).tolist() == \
        m[0].tolist()
    # the walk over polygon centroids answers under its own name only
    walk = world.find_path("yard", (1, 1), (18, 8), algorithm="polygon_astar")
    assert walk.algorithm == "polygon_astar" and walk.cost != pytest.approx(exact)
    assert world.find_path("yard", (1, 1), (18, 8), algorithm="astar").cost == \
        pytest.approx(exact, rel=1e-12)


def test_matrix_searches_in_one_batch():
    # a matrix is one path_lengths call: what every pair expands is counted
    # once per pair, not per row (no Python loop per pair)
    world, graph, rng, _ = _scene(2)
    pts = random_free_points(graph.free_space, rng, 6)
    import navcore_navmesh.polyanya as P
    calls = []
    real = P.path_lengths

    def counted(g, a, b):
        calls.append(len(a))
        return real(g, a, b)

    P.path_lengths = counted
    try:
        world.distance_matrix("m", pts, pts)
    finally:
        P.path_lengths = real
    assert calls == [36]


def test_bad_ends_are_errors_and_off_mesh_points_snap():
    world, graph, rng, _ = _scene(3)
    with pytest.raises(navcore.NodeError, match="outside"):
        world.distance_matrix("m", [(-50.0, 3.0)], [(1.0, 1.0)])
    with pytest.raises(navcore.NodeError):
        world.distance_pairs("m", [graph.num_nodes], [0])
    with pytest.raises(navcore.QueryError, match="as many"):
        world.distance_pairs("m", [(1.0, 1.0)], [(1.0, 1.0), (2.0, 2.0)])
    # a point a rounding error off the mesh is measured from its nearest point
    off = (-graph.snap_distance / 2, 1.0)
    assert world.distance_pairs("m", [off], [(3.0, 1.0)])[0] == \
        pytest.approx(_find_path_cost(world, off, (3.0, 1.0)), rel=1e-9)
    assert world.distance_matrix("m", [], [(1.0, 1.0)]).shape == (0, 1)
