"""navcore_levels: navigation meshes built from 3D level geometry.

Recast's pipeline, as numba kernels over numpy arrays: triangles are
rasterized into a span heightfield, what an agent can stand on is kept
(slope, climb, clearance), the walkable surface is compacted, eroded by the
agent's radius, partitioned into regions, traced into simplified contours
and turned into convex polygons. Every stage reads and writes the arrays
described in :mod:`navcore_levels.heightfield`, so a stage can be run,
tested and timed on its own.
"""
from .config import LevelConfig
from .heightfield import CompactHeightfield, PolyMesh, BORDER_REGION, NULL_AREA, WALKABLE_AREA
from .levelfile import Level, level_from_arrays, load_level
from .detail import DetailMesh, build_detail_mesh, surface_height, surface_heights
from .build import LevelMesh, build_agent_meshes, build_navmesh_arrays
from .obstacles import Obstacle, obstacle
from .tiles import TiledLevel, build_tiled, rebuild_obstacles, rebuild_tiles
from .graph import build_level_graph, length_3d
from .bake import BakedLevel, export_obj, load_level_mesh, save_level_mesh

__all__ = ["LevelConfig", "CompactHeightfield", "PolyMesh", "BORDER_REGION", "NULL_AREA",
           "WALKABLE_AREA", "Level", "level_from_arrays", "load_level", "LevelMesh",
           "build_navmesh_arrays", "build_agent_meshes", "DetailMesh", "build_detail_mesh", "surface_height",
           "surface_heights", "TiledLevel", "build_tiled", "rebuild_tiles", "rebuild_obstacles",
           "Obstacle", "obstacle", "build_level_graph",
           "length_3d", "BakedLevel", "save_level_mesh", "load_level_mesh", "export_obj"]
