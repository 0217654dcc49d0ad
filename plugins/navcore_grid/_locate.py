"""Kernel behind ``GridGraph.locate_many`` (validated in graph.py)."""
from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def locate_cells(points, width, height, out) -> int:
    """Write the cell of each point of ``points`` (float64 ``(k, 2)``) into
    ``out`` (``-1`` outside the grid), as ``GridGraph.locate`` does for
    one; return the index of the first point that is not finite (``-1``:
    none, ``out`` is complete)."""
    for i in range(points.shape[0]):
        px, py = points[i, 0], points[i, 1]
        if not (math.isfinite(px) and math.isfinite(py)):
            return i
        fx, fy = math.floor(px), math.floor(py)
        if 0.0 <= fx < width and 0.0 <= fy < height:
            out[i] = np.int32(np.int64(fy) * width + np.int64(fx))
        else:
            out[i] = -1
    return -1
