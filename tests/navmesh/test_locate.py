"""``locate`` / ``locate_many`` against a brute-force point-in-polygon
loop, and the locate index as a derived view that follows updates."""
import numpy as np
import pytest
import shapely

import navcore
from navcore_navmesh.mesh import LOCATE_KEY

# small meshes: the kernels also run as plain Python (make test-nojit)
pytestmark = pytest.mark.nojit


def brute_force(graph, points):
    """Lowest id of a polygon holding each point (edges included), -1."""
    polys = [graph.polygon_points(t) for t in range(graph.num_polygons)]
    out = []
    for x, y in points:
        found = -1
        for t, ring in enumerate(polys):
            if all((q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0]) >= 0
                   for p, q in zip(ring, np.roll(ring, -1, axis=0))):
                found = t
                break
        out.append(found)
    return np.array(out)


@pytest.mark.parametrize("params", [
    dict(bounds=(0, 0, 12, 8), obstacles=[[(2, 2), (4, 2), (4, 4), (2, 4)],
                                          [(6, 1), (7, 1), (7, 7), (6, 7)]]),
    dict(walkable=[[(0, 0), (10, 0), (10, 10), (9, 10), (9, 1), (0, 1)]]),
    dict(bounds=(-3, -2, 3, 2), obstacles=[[(-1, -1), (1, -0.5), (0, 1.5)]], agent_radius=0.1,
         snap=0),
])
def test_locate_many_agrees_with_brute_force(params):
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", **params)
    rng = np.random.default_rng(3)
    x0, y0 = graph.vertices.min(axis=0) - 1
    x1, y1 = graph.vertices.max(axis=0) + 1
    pts = np.column_stack([rng.uniform(x0, x1, 2000), rng.uniform(y0, y1, 2000)])
    pts = np.vstack([pts, graph.positions, graph.vertices])   # centroids and corners too
    got = graph.locate_many(pts)
    assert got.dtype == np.int32
    assert got.tolist() == brute_force(graph, pts).tolist()
    assert [graph.locate(tuple(p)) for p in pts[:50]] == got[:50].tolist()
    assert (got[2000:2000 + graph.num_nodes] == np.arange(graph.num_nodes)).all()


def test_locate_rejects_bad_points_and_index_follows_updates():
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, 4, 4))
    with pytest.raises(navcore.NodeError):
        graph.locate((np.nan, 1))
    with pytest.raises(navcore.NodeError):
        graph.locate_many([[1, 2, 3]])
    index = graph.view(LOCATE_KEY)
    assert index is not None                       # built with the graph
    world.update("m", nodes=[0], walkable=False)
    world.tick()
    assert graph.view(LOCATE_KEY) is index         # geometry unchanged: still current
    assert world.find_path("m", graph.positions[0].tolist(), (2, 2)).status \
        is navcore.PathStatus.INVALID_START


def test_warm_up_and_empty_obstacles():
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, 3, 2), obstacles=[])
    assert world.warm_up("m") >= 0
    assert graph.free_space.area == 6


def test_points_just_off_the_mesh_snap_to_its_nearest_point():
    world = navcore.World(autoload=False)
    ob = [(4, 0), (6, 0), (6, 7), (4, 7)]
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, 10, 10), obstacles=[ob],
                            agent_radius=0.5)
    assert graph.snap_distance == pytest.approx(0.5, abs=1e-4)      # the radius (+ rounding)
    free = graph.free_space
    rng = np.random.default_rng(4)
    pts = np.column_stack([rng.uniform(-1, 11, 3000), rng.uniform(-1, 11, 3000)])
    got = graph.locate_many(pts)
    for p, poly in zip(pts, got):
        d = free.distance(shapely.Point(p))
        if d == 0:
            assert poly >= 0
        elif d < graph.snap_distance - 1e-9:
            # the nearest polygon: it is at the point's distance from the mesh
            ring = shapely.Polygon(graph.polygon_points(poly))
            assert ring.distance(shapely.Point(p)) == pytest.approx(d, abs=1e-9), p
        elif d > graph.snap_distance + 1e-9:
            assert poly == -1, p
    # a unit against the wall (inside the map, 0.2 from it) plans from the
    # mesh's nearest point; one deep inside the obstacle is off the mesh
    r = world.find_path("m", (0.2, 5), (9, 5))
    assert r.found and r.points[0].tolist() == [0.5, 5.0]
    assert world.find_path("m", (5, 3), (9, 5)).status is navcore.PathStatus.INVALID_START
    assert world.find_path("m", (9, 5), (10.8, 5)).status is navcore.PathStatus.INVALID_GOAL
    with pytest.raises(navcore.GraphError, match="snap"):
        world.add_graph("bad", type="navmesh", bounds=(0, 0, 1, 1), snap=-1)
