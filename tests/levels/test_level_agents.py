"""Several agent types on one level: each mesh equals its own solo build,
and agents that differ only in radius share one voxelization."""
import numpy as np
import pytest

import navcore
from navcore.errors import GraphError
from navcore_levels import LevelConfig, build_agent_meshes, build_navmesh_arrays, load_level

import recastpeer as rp

AGENTS = {"small": LevelConfig(agent_radius=0.3), "medium": LevelConfig(),
          "tall": LevelConfig(agent_height=3.0, agent_radius=0.9)}


def _same_mesh(a, b):
    for field in ("verts", "polys", "neighbors", "regions", "areas"):
        np.testing.assert_array_equal(getattr(a.polymesh, field), getattr(b.polymesh, field),
                                      err_msg=field)
    for field in ("verts", "tris", "tri_flags", "vert_offsets", "tri_offsets"):
        np.testing.assert_array_equal(getattr(a.detail, field), getattr(b.detail, field),
                                      err_msg=field)


def test_each_agent_mesh_equals_its_solo_build():
    level = load_level(rp.LEVELS / "nav_test.obj")
    timings = {}
    meshes = build_agent_meshes(level.vertices, level.triangles, AGENTS, timings=timings)
    assert list(meshes) == list(AGENTS)
    for name, cfg in AGENTS.items():
        _same_mesh(meshes[name], build_navmesh_arrays(level.vertices, level.triangles, cfg))
    # small and medium share a voxelization (same height and climb): the
    # second runs none of the shared stages; tall (another height) runs its own
    assert {"rasterize", "filter", "compact"} <= set(timings["small"])
    assert {"rasterize", "filter", "compact"} & set(timings["medium"]) == set()
    assert {"rasterize", "filter", "compact"} <= set(timings["tall"])
    assert meshes["small"].walkable_area() > meshes["medium"].walkable_area() \
        > meshes["tall"].walkable_area()


def test_bad_agent_configs_are_graph_errors():
    floor = np.array([[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10]], dtype=float)
    tris = [[0, 2, 1], [0, 3, 2]]
    with pytest.raises(GraphError, match="non-empty dict"):
        build_agent_meshes(floor, tris, {})
    with pytest.raises(GraphError, match=r"configs\['big'\] must be a navcore_levels"):
        build_agent_meshes(floor, tris, {"big": {"agent_radius": 1.0}})


def test_level_graphs_of_one_world_share_voxels_and_equal_separate_builds():
    path = rp.LEVELS / "dungeon.obj"
    w = navcore.World()
    # built whole (tile_size=0): a tiled level's tile borders follow the radius
    small = w.add_graph("small", type="level", level=path, agent_radius=0.3, tile_size=0)
    large = w.add_graph("large", type="level", level=path, agent_radius=0.9, tile_size=0)
    other = w.add_graph("tall", type="level", level=path, agent_height=3.0, tile_size=0)
    assert large.voxels is small.voxels             # rasterized once
    assert other.voxels is not small.voxels         # another height: its own
    alone = navcore.World().add_graph("large", type="level", level=path, agent_radius=0.9,
                                      tile_size=0)
    np.testing.assert_array_equal(large.poly_verts, alone.poly_verts)
    np.testing.assert_array_equal(large.vertices, alone.vertices)
    np.testing.assert_array_equal(large.heights, alone.heights)
    assert _area(large) < _area(small)      # the large agent keeps further from walls


def _area(graph):
    v, start, verts = graph.vertices, graph.poly_start, graph.poly_verts
    total = 0.0
    for p in range(len(start) - 1):
        ring = v[verts[start[p]:start[p + 1]]]
        x, y = ring[:, 0], ring[:, 1]
        total += 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    return total
