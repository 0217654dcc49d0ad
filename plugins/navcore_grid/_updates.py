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
    scratch over the cells, all zero again on return (a rectangle does not
    use it: its cells are walked row by row, so its dirty cells come out
    sorted from a small map of the rectangle, without a sort or a division
    per cell)."""
    if rw > 0:
        return _apply_rect(x0, y0, rw, rh, val, walkable, free, W, H, rowbits, colbits,
                           stamp, flipped, out)
    k = 0
    for i in range(idx.shape[0]):
        c = idx[i]
        if walkable[c] == val:
            continue
        y = c // W
        _write(c, c - y * W, y, val, walkable, free, W, rowbits, colbits, stamp)
        flipped[k] = c
        k += 1
    m = neighbourhood(flipped[:k], W, H, mark, out)
    out[:m].sort()
    return k, m


@njit(cache=True, nogil=True, inline="always")
def _write(c, x, y, val, walkable, free, W, rowbits, colbits, stamp):
    """Cell ``c`` at ``(x, y)`` becomes ``val`` in every array."""
    walkable[c] = val
    p = (y + 1) * (W + 2) + x + 1
    free[p] = val
    if rowbits.shape[0] > 0:
        one = np.uint64(1)
        rb = x + 1 + PAD
        cb = y + 1 + PAD
        if val:
            rowbits[y + 1, rb >> 6] |= one << np.uint64(rb & 63)
            colbits[x + 1, cb >> 6] |= one << np.uint64(cb & 63)
        else:
            rowbits[y + 1, rb >> 6] &= ~(one << np.uint64(rb & 63))
            colbits[x + 1, cb >> 6] &= ~(one << np.uint64(cb & 63))
    if stamp.shape[0] > 0:
        stamp[p] = 0 if val else BLOCKED


@njit(cache=True, nogil=True)
def _apply_rect(x0, y0, rw, rh, val, walkable, free, W, H, rowbits, colbits, stamp,
                flipped, out):
    """``apply_walkable`` of a rectangle: the changed cells are noted in a
    map of the rectangle with a frame of two cells, and the dirty cells
    (within one cell of a changed one, inside the grid) are read off it
    row by row, in increasing order."""
    bw = rw + 4
    changed = np.zeros((rh + 4) * bw, dtype=np.uint8)
    k = 0
    for yy in range(rh):
        y = y0 + yy
        row = y * W
        for xx in range(rw):
            x = x0 + xx
            c = row + x
            if walkable[c] == val:
                continue
            _write(c, x, y, val, walkable, free, W, rowbits, colbits, stamp)
            changed[(yy + 2) * bw + xx + 2] = 1
            flipped[k] = c
            k += 1
    m = 0
    if k == 0:
        return k, m
    for by in range(1, rh + 3):
        y = y0 + by - 2
        if y < 0 or y >= H:
            continue
        for bx in range(1, rw + 3):
            x = x0 + bx - 2
            if x < 0 or x >= W:
                continue
            b = by * bw + bx
            if changed[b - bw - 1] | changed[b - bw] | changed[b - bw + 1] | \
                    changed[b - 1] | changed[b] | changed[b + 1] | \
                    changed[b + bw - 1] | changed[b + bw] | changed[b + bw + 1]:
                out[m] = y * W + x
                m += 1
    return k, m
