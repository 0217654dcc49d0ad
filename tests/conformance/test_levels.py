"""The level graph type (a 3D level's Recast navmesh, searched as a
layered navmesh) passes navcore's conformance kit: its paths are
geometric (their ``cost`` is the length on the ground plane, their points
3D), its updates the generic ones on polygons (the mesh is fixed)."""
import numpy as np

import navcore.testing
from navcore.testing import GraphFactory

from generic_updates import GenericUpdates

QUAD = np.array([[0, 2, 1], [0, 3, 2]])


def _box(x0, z0, x1, z1, y):
    return np.array([[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]], dtype=float)


class LevelFactory(GenericUpdates, GraphFactory):
    """A ground floor of 8-14 x 6-10 units with 1-3 blocks standing on it
    (walls: Recast keeps the agent radius from them) and, half the time, a
    storey over its west end reached by a ramp or by nothing (cut off);
    coarse cells keep the meshes at 10 to 60 polygons."""

    graph_type = "level"
    geometric_algorithms = frozenset({"auto", "polyanya", "funnel", "astar", "dijkstra"})

    def build(self, world, graph_id, rng):
        w, d = int(rng.integers(8, 15)), int(rng.integers(6, 11))
        parts = [_box(0, 0, w, d, 0.0)]
        for _ in range(int(rng.integers(1, 4))):           # blocks 3 high: walls
            x, z = rng.uniform(1, w - 3), rng.uniform(1, d - 3)
            sx, sz = rng.uniform(0.5, 2.5, 2)
            top = _box(x, z, x + sx, z + sz, 3.0)
            parts.append(top)
            for a, b in ((0, 1), (1, 2), (2, 3), (3, 0)):   # its sides
                lo = top[[a, b]].copy()
                lo[:, 1] = 0.0
                parts.append(np.vstack([lo, top[[b, a]]]))
        if rng.random() < 0.5:                              # a storey, maybe a ramp up
            parts.append(_box(0, 0, 4, d, 4.0))
            if rng.random() < 0.6:
                parts.append(np.array([[4, 4, 0], [9, 0, 0], [9, 0, 2], [4, 4, 2]], float))
        verts = np.vstack(parts)
        tris = np.vstack([QUAD + 4 * k for k in range(len(parts))])
        return world.add_graph(graph_id, type="level", vertices=verts, triangles=tris,
                               cell_size=0.25, agent_radius=0.25, region_min_size=2,
                               region_merge_size=4)


@navcore.testing.parametrize([LevelFactory()], seeds=(0, 1))
def test_level_conforms(factory, check):
    check(factory)
