"""The navmesh graph type passes navcore's conformance kit; its ``auto``,
``polyanya``, ``astar``, ``dijkstra`` and ``funnel`` paths are geometric (a polyline, not a walk on the CSR
view), so the kit checks them with ``check_geometric``. Its random
updates mix the generic ones with obstacles added and removed and regions
blocked and lifted, on meshes built in small tiles, so batches retire
polygons and add new ones (``num_nodes`` grows)."""
import weakref

import numpy as np
import shapely
from shapely.geometry import box

import navcore.testing
from navcore.testing import GraphFactory

from generic_updates import GenericUpdates


class NavMeshFactory(GenericUpdates, GraphFactory):
    """Random rooms of 6-14 x 5-10 units with a few box obstacles (which
    may touch at corners: pinches) and sometimes a wall cutting the room
    in two, so some triangles cannot reach others; tiles of 3 units."""

    graph_type = "navmesh"
    # "astar" and "dijkstra" are the exact search on a navmesh (the walks
    # over the polygon graph are "polygon_astar" and friends)
    geometric_algorithms = frozenset({"auto", "polyanya", "funnel", "astar", "dijkstra"})

    def __init__(self):
        # the obstacle ids each graph has or has queued, as this factory
        # made them (the kit applies every update it asks for)
        self._ids = weakref.WeakKeyDictionary()

    def build(self, world, graph_id, rng):
        w, h = int(rng.integers(6, 15)), int(rng.integers(5, 11))
        obstacles = []
        for _ in range(int(rng.integers(1, 5))):
            x, y = int(rng.integers(0, w - 1)), int(rng.integers(0, h - 1))
            dx, dy = int(rng.integers(1, 3)), int(rng.integers(1, 3))
            obstacles.append([(x, y), (min(x + dx, w), y), (min(x + dx, w), min(y + dy, h)),
                              (x, min(y + dy, h))])
        if rng.random() < 0.4:                      # a wall: two components
            x = int(rng.integers(2, w - 2))
            obstacles.append([(x, 0), (x + 1, 0), (x + 1, h), (x, h)])
        return world.add_graph(graph_id, type="navmesh", bounds=(0, 0, w, h),
                               obstacles=obstacles, tile_size=3.0)

    def random_update(self, graph, rng):
        r = rng.random()
        if r < 0.4:
            return super().random_update(graph, rng)      # nodes= / edges=
        ids = self._ids.setdefault(graph, set())
        x0, y0, x1, y1 = graph.tiles.grid.bounds
        if ids and r < 0.6:
            oid = sorted(ids)[int(rng.integers(len(ids)))]
            ids.discard(oid)
            return {"remove_obstacle": oid}
        c = rng.uniform([x0, y0], [x1, y1])
        if r < 0.7:           # block or lift a rectangle (inside the map: past it is refused)
            cx, cy = min(max(c[0], x0 + 1), x1 - 1), min(max(c[1], y0 + 0.5), y1 - 0.5)
            return {"rect": (float(cx) - 1, float(cy) - 0.5, 2.0, 1.0),
                    "walkable": bool(rng.random() < 0.4)}
        if rng.random() < 0.5:                            # a box, often on tile lines
            shape = box(*np.floor(c), *(np.floor(c) + rng.integers(1, 3, 2)))
        else:
            pts = c + rng.uniform(-1.2, 1.2, (5, 2))
            shape = shapely.MultiPoint(pts).convex_hull
            if not shape.area > 0:
                shape = box(c[0], c[1], c[0] + 0.5, c[1] + 0.5)
        oid = int(rng.integers(1 << 62))
        ids.add(oid)
        return {"add_obstacle": shape, "obstacle_id": oid}


@navcore.testing.parametrize([NavMeshFactory()], seeds=(0, 1))
def test_navmesh_conforms(factory, check):
    check(factory)
