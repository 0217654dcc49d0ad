"""A level's navmesh from its triangles: Recast's stages one after another.

>>> import numpy as np
>>> floor = np.array([[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10]], dtype=float)
>>> level = build_navmesh_arrays(floor, np.array([[0, 2, 1], [0, 3, 2]]))
>>> level.polymesh.poly_count, round(level.walkable_area(), 2)
(1, 65.61)

The floor is 10 x 10 (33 cells of 0.3 a side); the mesh stays three cells
(0.9) inside its open edges: the edge cell, whose neighbour beyond is
missing, and ``agent_radius`` (0.6, two cells). C++ Recast's mesh of the
same floor runs from 0.9 to 9.0 on both axes too.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from navcore import validate
from navcore.errors import GraphError

from .config import LevelConfig
from .contours import contours_checked
from .detail import DetailMesh, detail_checked
from .heightfield import CompactHeightfield, PolyMesh
from .polymesh import polymesh_checked
from .regions import partition_checked
from .voxels import (checked_volumes, compact_checked, erode, filter_walkable, mark_volume,
                     mark_walkable, rasterize)

#: the stages, in order, as ``timings`` names them
STAGES = ("rasterize", "filter", "compact", "erode", "areas", "distance_field", "regions",
          "contours", "polymesh", "detail")


@dataclass
class LevelMesh:
    """What a build made: the convex polygons (``polymesh``), the height
    mesh over them that follows the surface within
    ``detail_sample_max_error`` (``detail``), and the compact heightfield
    they were traced from (``heightfield``: its regions filled in), with
    the settings used."""
    polymesh: PolyMesh
    detail: DetailMesh
    heightfield: CompactHeightfield
    config: LevelConfig

    def walkable_area(self) -> float:
        """The polygons' area projected on the ground (x-z) plane."""
        mesh = self.polymesh
        v = mesh.world_vertices()
        idx = np.where(mesh.polys >= 0, mesh.polys, 0)
        x, z = v[idx, 0], v[idx, 2]
        nxt = np.roll(np.arange(mesh.nvp), -1)
        count = (mesh.polys >= 0).sum(axis=1)
        # the edge after a polygon's last vertex goes back to its first
        after = np.where(np.arange(mesh.nvp)[None, :] == count[:, None] - 1, 0, nxt[None, :])
        rows = np.arange(mesh.poly_count)[:, None]
        cross = x * z[rows, after] - x[rows, after] * z
        return float(0.5 * np.abs(np.where(mesh.polys >= 0, cross, 0.0).sum(axis=1)).sum())


def stage_clock(spent: dict):
    """A function ``lap(name)`` that stores in ``spent[name]`` the seconds
    since the clock was made or since the last lap."""
    clock = time.perf_counter
    last = [clock()]

    def lap(name):
        now = clock()
        spent[name] = now - last[0]
        last[0] = now
    return lap


def voxelize(vertices, triangles, areas, cfg: LevelConfig, lap, *, bmin=None,
             bmax=None) -> CompactHeightfield:
    """The stages every agent of the same voxel settings shares
    (``voxel_key``): rasterize (``areas``: ``mark_walkable``'s) over
    ``bmin``..``bmax`` (the vertices' bounds by default), filter what an
    agent of ``cfg``'s height and climb stands on, and compact; ``lap``
    is called after each. The compact heightfield, before erosion."""
    hf = rasterize(vertices, triangles, areas, cfg, bmin=bmin, bmax=bmax)
    lap("rasterize")
    hf = filter_walkable(hf, cfg)
    lap("filter")
    chf = compact_checked(hf, cfg)
    lap("compact")
    return chf


def voxel_key(cfg: LevelConfig) -> tuple:
    """The settings ``voxelize`` reads: configs with equal keys (agents
    that differ only in radius or in the later stages' settings) share
    one voxelization."""
    return (cfg.cell_size, cfg.cell_height, cfg.max_slope, cfg.walkable_climb,
            cfg.walkable_height)


def region_stages(voxels: CompactHeightfield, cfg: LevelConfig, volumes, lap
                  ) -> tuple[PolyMesh, CompactHeightfield]:
    """From ``voxelize``'s compact heightfield (left as it is: several
    agents may share it) to the polygon mesh of a solo build: erode by the
    agent's radius, mark ``volumes``, partition into regions, trace
    contours and make polygons, calling ``lap`` after each. The polygon
    mesh and this agent's compact heightfield, its regions filled in.
    (A tile runs the same stages in ``_tile_pipeline``'s kernels.)"""
    # the region stages write dist and region in place: this agent's own
    chf = dataclasses.replace(voxels, dist=voxels.dist.copy(), region=voxels.region.copy())
    chf = erode(chf, cfg.walkable_radius)
    lap("erode")
    for volume in volumes:
        chf = mark_volume(chf, volume)
    lap("areas")
    # the stages below take the heightfield this pipeline made (and the
    # checked config) through their unchecked entry points
    partition_checked(chf, cfg, 0, lap)
    contours = contours_checked(chf, cfg.edge_max_error, cfg.max_edge_len_cells)
    lap("contours")
    mesh = polymesh_checked(contours, cfg.verts_per_poly)
    lap("polymesh")
    return mesh, chf


def checked_config(config) -> LevelConfig:
    """``config``, or RecastDemo's defaults for None; ``GraphError`` for
    anything but a ``LevelConfig``."""
    if config is None:
        return LevelConfig()
    if not isinstance(config, LevelConfig):
        raise GraphError(f"config must be a navcore_levels.LevelConfig or None, got "
                         f"{validate.describe(config)}")
    return config


def checked_timings(timings) -> dict:
    """The dict a build writes its stage times to (a new one for None)."""
    if timings is None:
        return {}
    if not isinstance(timings, dict):
        raise GraphError(f"timings must be a dict (stage name -> seconds) or None, got "
                         f"{validate.describe(timings)}")
    return timings


def build_navmesh_arrays(vertices, triangles, config: LevelConfig | None = None, *,
                         triangle_areas=None, volumes=(), timings: dict | None = None
                         ) -> LevelMesh:
    """Build the navmesh of a level given as ``vertices`` (N, 3), y up, and
    ``triangles`` (M, 3) vertex indices, with ``config`` (RecastDemo's
    defaults when None), as RecastDemo's solo mesh does. ``triangle_areas``:
    an area id per triangle (0..63, 0: solid, never walked on; walkable
    ground when None), cleared where a triangle is steeper than
    ``max_slope``. ``volumes``: convex volumes ``(polygon_xz, ymin, ymax,
    area)`` (or ``AreaBox``/``AreaCylinder`` records) whose area id is
    given to the surface inside them, in order. ``timings``: a dict that receives each
    stage's seconds (``STAGES``)."""
    cfg = checked_config(config)
    spent = checked_timings(timings)
    volumes = checked_volumes(volumes)
    lap = stage_clock(spent)
    areas = mark_walkable(vertices, triangles, cfg, triangle_areas)
    voxels = voxelize(vertices, triangles, areas, cfg, lap)
    return mesh_from_voxels(voxels, cfg, volumes, lap)


def mesh_from_voxels(voxels: CompactHeightfield, cfg: LevelConfig, volumes, lap) -> LevelMesh:
    """A solo build's stages after ``voxelize``: ``region_stages`` and the
    detail mesh (``voxels`` is left as it is)."""
    mesh, chf = region_stages(voxels, cfg, volumes, lap)
    detail = detail_checked(mesh, chf, cfg.detail_sample_distance, cfg.detail_sample_error,
                            cfg.edge_max_error)
    lap("detail")
    return LevelMesh(mesh, detail, chf, cfg)


def build_agent_meshes(vertices, triangles, configs, *, triangle_areas=None, volumes=(),
                       timings: dict | None = None) -> dict:
    """One navmesh per agent type of a level: ``configs`` maps a name to
    its ``LevelConfig``. Agents whose configs have the same ``voxel_key``
    (the same cell sizes, slope, climb and height: typically agents that
    differ only in radius) share one rasterization, filtering and
    compaction, the stages that do not depend on the rest; each mesh
    equals ``build_navmesh_arrays`` with that agent's config. Tiles
    (``tile_size``) are ignored: these are solo builds. ``timings``:
    a dict that receives ``{name: {stage: seconds}}``, the shared stages
    under the first agent of those sharing them only.

    >>> import numpy as np
    >>> floor = np.array([[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10]], dtype=float)
    >>> meshes = build_agent_meshes(floor, [[0, 2, 1], [0, 3, 2]], {
    ...     "small": LevelConfig(agent_radius=0.3), "large": LevelConfig(agent_radius=1.2)})
    >>> {name: round(m.walkable_area(), 2) for name, m in meshes.items()}
    {'small': 75.69, 'large': 47.61}
    """
    if not isinstance(configs, dict) or not configs:
        raise GraphError(f"configs must be a non-empty dict (agent name -> LevelConfig), got "
                         f"{validate.describe(configs)}")
    cfgs = {}
    for name, config in configs.items():
        if not isinstance(config, LevelConfig):
            raise GraphError(f"configs[{name!r}] must be a navcore_levels.LevelConfig, got "
                             f"{validate.describe(config)}")
        cfgs[name] = config
    spent = checked_timings(timings)
    volumes = checked_volumes(volumes)
    shared, out = {}, {}
    for name, cfg in cfgs.items():
        spent[name] = {}
        lap = stage_clock(spent[name])
        key = voxel_key(cfg)
        if key not in shared:
            areas = mark_walkable(vertices, triangles, cfg, triangle_areas)
            shared[key] = voxelize(vertices, triangles, areas, cfg, lap)
        out[name] = mesh_from_voxels(shared[key], cfg, volumes, lap)
    return out
