"""numba kernels of the nearest-node index (private; see ``locate.py``).

Nodes are bucketed by their unit vectors (x, y, z on the unit sphere) in a
3-d grid of cubes of side ``cell``; the nearest node by chord is the
nearest on the sphere. A query searches rings of cells around its own
(clamped into the grid) until the best chord found is at most ``r * cell``:
every cell not searched yet differs from the query's in some axis by more
than ``r``, so it lies more than ``r * cell`` away along that axis, even
for a query outside the grid's box.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._buckets import group_by


@njit(cache=True, nogil=True)
def bucket(unit, lo, cell, dims):
    """Counting sort of the nodes into cells: ``(start, nodes)``, the nodes
    of cell ``c`` being ``nodes[start[c]:start[c + 1]]``."""
    n = unit.shape[0]
    cells = dims[0] * dims[1] * dims[2]
    which = np.empty(n, dtype=np.int64)
    for v in range(n):
        c = 0
        for a in range(3):
            i = int((unit[v, a] - lo[a]) / cell)
            i = min(max(i, 0), dims[a] - 1)
            c = c * dims[a] + i
        which[v] = c
    return group_by(which, cells)


@njit(cache=True, nogil=True)
def nearest_one(q, unit, lo, cell, dims, start, nodes, usable):
    """(node, chord) nearest to unit vector ``q`` among ``usable`` nodes
    (-1, inf when there is none)."""
    ci = np.empty(3, dtype=np.int64)
    for a in range(3):
        i = int(np.floor((q[a] - lo[a]) / cell))
        ci[a] = min(max(i, 0), dims[a] - 1)
    rmax = max(dims[0], max(dims[1], dims[2]))
    best = -1
    bd2 = np.inf
    for r in range(rmax + 1):
        for ix in range(max(ci[0] - r, 0), min(ci[0] + r, dims[0] - 1) + 1):
            for iy in range(max(ci[1] - r, 0), min(ci[1] + r, dims[1] - 1) + 1):
                for iz in range(max(ci[2] - r, 0), min(ci[2] + r, dims[2] - 1) + 1):
                    if (abs(ix - ci[0]) != r and abs(iy - ci[1]) != r
                            and abs(iz - ci[2]) != r):
                        continue                      # inner cells: searched already
                    c = (ix * dims[1] + iy) * dims[2] + iz
                    for k in range(start[c], start[c + 1]):
                        v = nodes[k]
                        if not usable[v]:
                            continue
                        dx = unit[v, 0] - q[0]
                        dy = unit[v, 1] - q[1]
                        dz = unit[v, 2] - q[2]
                        d2 = dx * dx + dy * dy + dz * dz
                        if d2 < bd2 or (d2 == bd2 and v < best):
                            bd2 = d2
                            best = v
        if best >= 0 and bd2 <= (r * cell) * (r * cell):
            break
    return best, np.sqrt(bd2)


@njit(cache=True, nogil=True, parallel=True)
def nearest(queries, unit, lo, cell, dims, start, nodes, usable, out, chord):
    """``nearest_one`` for every row of ``queries``, over all cores."""
    for i in prange(queries.shape[0]):
        out[i], chord[i] = nearest_one(queries[i], unit, lo, cell, dims, start, nodes,
                                       usable)


@njit(cache=True, nogil=True)
def nearest_serial(queries, unit, lo, cell, dims, start, nodes, usable, out, chord):
    """``nearest`` on the calling thread: for a few points (a route's two
    ends), where starting the thread pool costs more than the search, and
    from worker threads, which must not share numba's pool."""
    for i in range(queries.shape[0]):
        out[i], chord[i] = nearest_one(queries[i], unit, lo, cell, dims, start, nodes,
                                       usable)
