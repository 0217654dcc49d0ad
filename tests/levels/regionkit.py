"""Regions for the contour and polygon tests, assigned here (independent
of the pipeline's own partition): connected components of equal area id
over the heightfield's neighbour links, or by hand per cell."""
from __future__ import annotations

from collections import deque

import numpy as np

from navcore_levels.heightfield import BORDER_REGION, NULL_AREA


def label_components(chf, border_size=0):
    """Fill ``chf.region`` with one region per connected set of spans of
    equal area (``NULL_AREA`` spans get 0); spans within ``border_size``
    cells of the grid's edge get ``BORDER_REGION`` instead. Returns chf."""
    spans = chf.span_count
    region = np.zeros(spans, np.int32)
    cell_of = np.repeat(np.arange(chf.width * chf.height), chf.cell_count)
    x = cell_of % chf.width
    z = cell_of // chf.width
    b = border_size
    inside = (x >= b) & (x < chf.width - b) & (z >= b) & (z < chf.height - b)
    next_id = 1
    for s in range(spans):
        if region[s] or chf.area[s] == NULL_AREA or not inside[s]:
            continue
        region[s] = next_id
        todo = deque([s])
        while todo:
            t = todo.popleft()
            for u in chf.neighbors[t]:
                if u >= 0 and not region[u] and inside[u] and chf.area[u] == chf.area[t]:
                    region[u] = next_id
                    todo.append(u)
        next_id += 1
    if b:
        paint_border(region, x, z, chf.width, chf.height, b, chf.area != NULL_AREA)
    chf.region = region
    chf.max_region = next_id - 1
    return chf


def label_cells(chf, cell_regions):
    """Region per cell from ``cell_regions`` (height, width) ints (0: none),
    for single-floor heightfields. Returns chf."""
    cell_regions = np.asarray(cell_regions).reshape(-1)
    chf.region = np.repeat(cell_regions, chf.cell_count).astype(np.int32)
    chf.max_region = int((chf.region & (BORDER_REGION - 1)).max()) if chf.span_count else 0
    return chf


def span_cells(chf):
    """(x, z) of every span."""
    cell_of = np.repeat(np.arange(chf.width * chf.height), chf.cell_count)
    return cell_of % chf.width, cell_of // chf.width


def paint_border(region, x, z, width, height, b, walkable):
    """Recast's padding regions: the left, right, bottom and top strips
    ``b`` cells wide get ``BORDER_REGION | 1..4`` (painted in that order,
    so the bottom and top strips take the corners), walkable spans only."""
    strips = [x < b, x >= width - b, z < b, z >= height - b]
    for k, strip in enumerate(strips):
        region[strip & walkable] = BORDER_REGION | (k + 1)


def two_regions_in_a_tile(b=3):
    """A 16 x 14 cell tile with a ``b``-cell border: regions 1 (x < 8) and
    2 (x >= 8) on one floor, the border painted as Recast paints it."""
    from levelkit import chf_from_floors
    cells = np.zeros((14, 16), int)
    cells[:, :8] = 1
    cells[:, 8:] = 2
    chf = label_cells(chf_from_floors(np.zeros((14, 16), int), border_size=b), cells)
    x, z = span_cells(chf)
    paint_border(chf.region, x, z, 16, 14, b, np.ones(chf.span_count, bool))
    return chf
