"""The voxel stages feeding the partition, contours and polygon mesh: on
RecastDemo's nav_test.obj with its defaults the whole pipeline gives
Recast's regions, polygons and walkable area."""
from pathlib import Path

import numpy as np
import pytest

from navcore_levels import LevelConfig
from navcore_levels.contours import build_contours
from navcore_levels.levelfile import load_level
from navcore_levels.polymesh import build_polymesh
from navcore_levels.regions import build_regions
from navcore_levels.voxels import compact, erode, filter_walkable, mark_walkable, rasterize

LEVELS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "levels"


@pytest.mark.skipif(not (LEVELS / "nav_test.obj").exists(), reason="shared levels absent")
def test_nav_test_pipeline_gives_recasts_mesh():
    level = load_level(LEVELS / "nav_test.obj")
    cfg = LevelConfig()
    areas = mark_walkable(level.vertices, level.triangles, cfg)
    hf = filter_walkable(rasterize(level.vertices, level.triangles, areas, cfg), cfg)
    chf = erode(compact(hf, cfg), cfg.walkable_radius)
    regions = build_regions(chf, cfg)
    mesh = build_polymesh(build_contours(chf, cfg.edge_max_error, cfg.max_edge_len_cells),
                          cfg.verts_per_poly)
    # the peer's README (recast_bench, RecastDemo's defaults): 48 regions,
    # 155 polygons, 349 vertices
    assert (regions, mesh.poly_count, mesh.verts.shape[0]) == (48, 155, 349)
    world = mesh.world_vertices()
    area = 0.0
    for poly in mesh.polys:
        ring = world[poly[poly >= 0]]
        x, z = ring[:, 0], ring[:, 2]
        area += abs(np.dot(x, np.roll(z, -1)) - np.dot(np.roll(x, -1), z)) / 2
    # Recast's polygons (recast_bench --out-mesh) cover 4002.0304 square
    # units; its float32 cell size (0.300000012) accounts for the last digits
    assert area == pytest.approx(4002.0304, rel=1e-6)
