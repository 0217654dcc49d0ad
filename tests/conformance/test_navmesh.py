"""The navmesh graph type passes navcore's conformance kit; its ``auto``
, ``polyanya`` and ``funnel`` paths are geometric (a polyline, not a walk on the CSR
view), so the kit checks them with ``check_geometric``."""
import numpy as np

import navcore.testing
from navcore.testing import GraphFactory

from generic_updates import GenericUpdates


class NavMeshFactory(GenericUpdates, GraphFactory):
    """Random rooms of 6-14 x 5-10 units with a few box obstacles (which
    may touch at corners: pinches) and sometimes a wall cutting the room
    in two, so some triangles cannot reach others."""

    graph_type = "navmesh"
    geometric_algorithms = frozenset({"auto", "polyanya", "funnel"})

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
                               obstacles=obstacles)


@navcore.testing.parametrize([NavMeshFactory()], seeds=(0, 1))
def test_navmesh_conforms(factory, check):
    check(factory)
