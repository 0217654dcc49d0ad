"""Recast's own contours and polygon mesh for two RecastDemo tiles
(tests/levels/data, see its README): the compact heightfield Recast
partitioned, as a CompactHeightfield, and what Recast built from it."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from navcore_levels.heightfield import DIR_DX, DIR_DZ, OPEN_TOP, CompactHeightfield

DATA = Path(__file__).parent / "data"
TILES = ("recast_nav_test_cs01_tile_3_2", "recast_undulating_tile_2_2")


def load(name):
    """``(chf, expected)``: the heightfield and a dict of Recast's arrays
    plus ``max_error``, ``max_edge_len`` and ``nvp``."""
    z = dict(np.load(DATA / f"{name}.npz"))
    width, height, border, w_height, w_climb, max_region, spans, max_edge, err1000, nvp = \
        (int(v) for v in z["header"])
    count = z["cell_count"].astype(np.int32)
    index = (np.cumsum(count) - count).astype(np.int32)
    cell_of = np.repeat(np.arange(width * height), count)
    con = z["span_con"].astype(np.int64)
    neighbors = np.full((spans, 4), -1, np.int32)
    for d in range(4):
        has = con[:, d] >= 0
        other = cell_of[has] + DIR_DX[d] + DIR_DZ[d] * width
        neighbors[has, d] = index[other] + con[has, d]
    chf = CompactHeightfield(
        width=width, height=height, border_size=border, walkable_height=w_height,
        walkable_climb=w_climb, bmin=np.zeros(3), cs=0.3, ch=0.2, cell_index=index,
        cell_count=count, y=z["span_y"].astype(np.int32), h=np.full(spans, OPEN_TOP, np.int32),
        neighbors=neighbors, area=z["span_area"], dist=np.zeros(spans, np.uint16),
        region=z["span_region"].astype(np.int32), max_region=max_region)
    z.update(max_error=err1000 / 1000, max_edge_len=max_edge, nvp=nvp)
    return chf, z
