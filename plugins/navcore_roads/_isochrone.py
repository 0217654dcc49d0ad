"""numba kernel of road isochrones' outlines (private; see ``isochrone.py``)."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def clip_chains(edges, start, stop, chain_start, chain, seg_cost, seg_src, seg_dst, lon,
                lat):
    """float64 ``(k, 2, 2)``: the part of each segment of edge
    ``edges[i]`` that lies between ``start[i]`` and ``stop[i]`` (costs
    from the edge's tail, the segments' costs summed in chain order), as
    2-point (lon, lat) lines, cut in proportion to the segment's cost (as
    a point snapped at fraction ``t`` of a segment is ``t`` of its cost
    along). A segment of infinite cost (closed) and all after it are
    left out."""
    total = 0
    for i in range(edges.shape[0]):
        e = edges[i]
        total += chain_start[e + 1] - chain_start[e]
    out = np.empty((total, 2, 2), dtype=np.float64)
    w = 0
    for i in range(edges.shape[0]):
        e = edges[i]
        a = start[i]
        b = stop[i]
        c0 = 0.0
        for j in range(chain_start[e], chain_start[e + 1]):
            s = chain[j]
            c = seg_cost[s]
            if not c < np.inf:
                break
            c1 = c0 + c
            lo = max(a, c0)
            hi = min(b, c1)
            if hi >= lo and (hi > lo or c == 0.0):
                f0 = (lo - c0) / c if c > 0 else 0.0
                f1 = (hi - c0) / c if c > 0 else 1.0
                u = seg_src[s]
                v = seg_dst[s]
                dx = lon[v] - lon[u]
                dy = lat[v] - lat[u]
                out[w, 0, 0] = lon[u] + f0 * dx
                out[w, 0, 1] = lat[u] + f0 * dy
                out[w, 1, 0] = lon[u] + f1 * dx
                out[w, 1, 1] = lat[u] + f1 * dy
                w += 1
            if c1 >= b:
                break
            c0 = c1
    return out[:w]
