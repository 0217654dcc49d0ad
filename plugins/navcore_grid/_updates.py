"""The kernel of a grid's ``walkable=`` update: every array the update
touches written in one call (see ``updates._apply_walkable``).

A toggle used to be six kernel calls and a dozen numpy temporaries
between them; after a frame's other work has evicted the caches each of
those costs several microseconds, so the update is one pass here.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._jps import PAD
from ._kernels import BLOCKED, neighbourhood


@njit(cache=True, nogil=True)
def apply_walkable(idx, x0, y0, rw, rh, val, walkable, free, W, H, rowbits, colbits,
                   stamp, mark, flipped, out):
    """Write ``val`` into cells ``idx`` (or, when ``rw > 0``, the rectangle
    ``x0, y0, rw, rh``): the flat and padded walkable masks, the JPS bit
    lines (when ``rowbits`` has rows) and a search scratch's blocked
    sentinels (when ``stamp`` is not empty). The cells that changed go to
    ``flipped``; they and their eight neighbours, sorted and each once, to
    ``out``. Returns ``(changed, dirty)`` counts. ``mark`` is an all-zero
    scratch over the cells, all zero again on return."""
    Wp = W + 2
    n = idx.shape[0] if rw <= 0 else rw * rh
    k = 0
    one = np.uint64(1)
    bits = rowbits.shape[0] > 0
    stamped = stamp.shape[0] > 0
    for i in range(n):
        c = idx[i] if rw <= 0 else (y0 + i // rw) * W + x0 + i % rw
        if walkable[c] == val:
            continue
        walkable[c] = val
        y = c // W
        x = c - y * W
        p = (y + 1) * Wp + x + 1
        free[p] = val
        flipped[k] = c
        k += 1
        if bits:
            rb = x + 1 + PAD
            cb = y + 1 + PAD
            if val:
                rowbits[y + 1, rb >> 6] |= one << np.uint64(rb & 63)
                colbits[x + 1, cb >> 6] |= one << np.uint64(cb & 63)
            else:
                rowbits[y + 1, rb >> 6] &= ~(one << np.uint64(rb & 63))
                colbits[x + 1, cb >> 6] &= ~(one << np.uint64(cb & 63))
        if stamped:
            stamp[p] = 0 if val else BLOCKED
    m = neighbourhood(flipped[:k], W, H, mark, out)
    out[:m].sort()
    return k, m
