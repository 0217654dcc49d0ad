"""Build settings for a level's navmesh, with Recast's meaning and
RecastDemo's defaults, in world units, and their conversion to voxels.

>>> cfg = LevelConfig()
>>> cfg.walkable_height, cfg.walkable_climb, cfg.walkable_radius
(10, 4, 2)
>>> LevelConfig(cell_size=0)
Traceback (most recent call last):
navcore.errors.GraphError: cell_size must be a finite number > 0, got 0
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

from navcore.errors import GraphError

#: most cells (or cell heights, or cells squared for region sizes) a
#: setting may come to: the stages count them in 32-bit integers
MAX_CELLS = 2**31 - 1


@dataclass(frozen=True)
class LevelConfig:
    """How a level is voxelized and what an agent can walk.

    World-unit settings (Recast's ``rcConfig`` before conversion):
        cell_size: voxel size in x and z.
        cell_height: voxel size in y (up).
        agent_height: clearance an agent needs above the floor.
        agent_radius: distance the mesh keeps from walls.
        agent_climb: highest step an agent walks up.
        max_slope: steepest walkable triangle, degrees.
        region_min_size: regions of fewer than ``region_min_size**2`` cells
            that touch no other region are dropped.
        region_merge_size: regions of fewer than ``region_merge_size**2``
            cells are merged into a neighbour when possible.
        edge_max_len: longest contour edge along a wall (0: no limit).
        edge_max_error: how far, in cells, a simplified contour may stray
            from the traced one.
        verts_per_poly: most vertices per convex polygon (3..12).
        detail_sample_dist: detail mesh sample spacing, in cell sizes
            (below 0.9: no sampling).
        detail_sample_max_error: detail mesh height error, in cell heights.
        partition: ``"watershed"`` (Recast's default, best regions) or
            ``"monotone"`` (fastest; long thin polygons).
        tile_size: tile width in cells (0: one tile); tiles are built by
            ``navcore_levels.tiles.build_tiled``, ``build_navmesh_arrays``
            always builds one.
    """
    cell_size: float = 0.3
    cell_height: float = 0.2
    agent_height: float = 2.0
    agent_radius: float = 0.6
    agent_climb: float = 0.9
    max_slope: float = 45.0
    region_min_size: float = 8
    region_merge_size: float = 20
    edge_max_len: float = 12.0
    edge_max_error: float = 1.3
    verts_per_poly: int = 6
    detail_sample_dist: float = 6.0
    detail_sample_max_error: float = 1.0
    partition: str = "watershed"
    tile_size: int = 0

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "partition":
                if value not in ("watershed", "monotone"):
                    raise GraphError(f"partition must be 'watershed' or 'monotone', got {value!r}")
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value):
                raise GraphError(f"{f.name} must be a finite number, got {value!r}")
            positive = f.name in ("cell_size", "cell_height", "agent_height")
            if positive and value <= 0:
                raise GraphError(f"{f.name} must be a finite number > 0, got {value!r}")
            if value < 0:
                raise GraphError(f"{f.name} must be a finite number >= 0, got {value!r}")
        if not 0 <= self.max_slope < 90:
            raise GraphError(f"max_slope must be in [0, 90) degrees, got {self.max_slope!r}")
        if int(self.verts_per_poly) != self.verts_per_poly or not 3 <= self.verts_per_poly <= 12:
            raise GraphError(f"verts_per_poly must be an integer in 3..12, got "
                             f"{self.verts_per_poly!r}")
        if int(self.tile_size) != self.tile_size:
            raise GraphError(f"tile_size must be a whole number of cells, got {self.tile_size!r}")
        # the stages count in cells and cell heights, as 32-bit integers
        for name, cells in (("agent_height", self.agent_height / self.cell_height),
                            ("agent_climb", self.agent_climb / self.cell_height),
                            ("agent_radius", self.agent_radius / self.cell_size),
                            ("edge_max_len", self.edge_max_len / self.cell_size),
                            ("region_min_size", float(self.region_min_size) ** 2),
                            ("region_merge_size", float(self.region_merge_size) ** 2),
                            ("tile_size", float(self.tile_size))):
            if not cells <= MAX_CELLS:
                raise GraphError(f"{name}={getattr(self, name)!r} makes {cells:g} cells; "
                                 f"at most {MAX_CELLS} (with cell_size={self.cell_size!r}, "
                                 f"cell_height={self.cell_height!r})")

    # Voxel units, converted as RecastDemo converts them.
    @property
    def walkable_height(self) -> int:
        """Clearance in cell heights (rounded up)."""
        return int(math.ceil(self.agent_height / self.cell_height))

    @property
    def walkable_climb(self) -> int:
        """Step height in cell heights (rounded down)."""
        return int(math.floor(self.agent_climb / self.cell_height))

    @property
    def walkable_radius(self) -> int:
        """Erosion radius in cells (rounded up)."""
        return int(math.ceil(self.agent_radius / self.cell_size))

    @property
    def max_edge_len_cells(self) -> int:
        """``edge_max_len`` in cells (truncated)."""
        return int(self.edge_max_len / self.cell_size)

    @property
    def min_region_area(self) -> int:
        return int(self.region_min_size * self.region_min_size)

    @property
    def merge_region_area(self) -> int:
        return int(self.region_merge_size * self.region_merge_size)

    @property
    def detail_sample_distance(self) -> float:
        """Detail sample spacing in world units (0 when sampling is off)."""
        return 0.0 if self.detail_sample_dist < 0.9 else self.cell_size * self.detail_sample_dist

    @property
    def detail_sample_error(self) -> float:
        """Detail height error in world units."""
        return self.cell_height * self.detail_sample_max_error
