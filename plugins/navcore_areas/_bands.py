"""The full build of a lattice's hierarchical nodes, band by band on
bit-packed rows (private kernels): one loop for both connectivities, with
the steps of ``_label.py`` (4-neighbours, and the packing, numbering and
writes both share) or ``_label8.py`` (diagonals) where they differ.

The pieces, ids and links are those the tile floods of
``_lattice.rebuild_tiles`` make (one connected piece of one 16 x 16 tile
per hierarchical node), ids in row order.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._base import C_ELIVE, C_HWM, C_NLIVE, TILE, find, union_min
from ._bits import ctz, popcount
from ._label import (_FIRST, _LAST, _ONE, _starts, keep_last_row, pack_band, row_links4,
                     top_links4, write_band)
from ._label8 import _LOW, _ends, _upto, column_links8, top_links8
from ._lattice import band_links, band_runs


def scratch(W):
    """The work arrays of ``label_bands`` for rows of ``W`` cells (the last
    two, a band's tile columns, only with diagonals)."""
    nw = (W + 63) // 64
    m = band_runs(W)
    return (np.empty(TILE * nw, np.uint64), np.empty(TILE * nw, np.uint64),
            np.empty(TILE * nw + 1, np.int64), np.empty(m, np.int32),
            np.empty(m + 1, np.int32), np.empty(nw, np.uint64), np.empty(nw, np.uint64),
            np.empty(nw, np.int64), np.empty(m + 1, np.int32), np.empty(m, np.int32),
            np.empty(m, np.int32), np.empty(4 * nw, np.uint64), np.empty(4 * nw, np.uint64))


@njit(cache=True, nogil=True)
def join(bh, W, bits, sb, cnt, ruf, diag):
    """Step 2: join the runs of neighbouring rows of a band that touch
    (inside a tile). Each run of the touching cells ``c`` below a row
    ``a`` lies in one run of the lower row. Without diagonals ``c`` is
    ``a & b`` and lies in one run of ``a`` too; with them ``c`` is ``b`` and
    ``a`` widened a cell each way, and it touches the runs of ``a`` from
    the first cell of ``a`` at or after its start - 1 to the last one at
    or before its end + 1 (mostly one). Runs are found by counting run
    starts (popcount)."""
    nw = (W + 63) // 64
    for i in range(nw, bh * nw):
        j = i - nw
        a = bits[j]
        c = a & bits[i]
        if diag:
            c = (a | ((a << _ONE) & ~_FIRST) | ((a >> _ONE) & ~_LAST)) & bits[i]
        if c == 0:
            continue
        cs = _starts(c)
        ce = _ends(c)
        sa = sb[j]
        sbl = sb[i]
        ca = cnt[j] - 1
        cb = cnt[i] - 1
        while cs:
            s = ctz(cs)
            e = ctz(ce)
            cs &= cs - _ONE
            ce &= ce - _ONE
            b = cb + popcount(sbl & _upto(s))
            if diag:
                lo = s - 1 if s & (TILE - 1) else s          # not across the tile's border
                hi = e + 1 if (e + 1) & (TILE - 1) else e
                # the run at lo, or (lo walled) the next: no branch
                a0 = ca + popcount(sa & _upto(lo)) + 1 - np.int64((a >> np.uint64(lo)) & _LOW)
                a1 = ca + popcount(sa & _upto(hi))
            else:                          # the one run of a holding s
                a0 = ca + popcount(sa & _upto(s))
                a1 = a0
            if ruf[b] == b:                # b is still alone: a's root is smaller
                ruf[b] = find(ruf, a0)
            else:
                union_min(ruf, b, a0)
            if diag:
                # the last run touched (often a0 again) with no branch on that
                x = find(ruf, b)
                y = find(ruf, a1)
                ruf[max(x, y)] = min(x, y)
                for r in range(a0 + 1, a1):
                    union_min(ruf, b, r)


@njit(cache=True, nogil=True)
def label_bands(walk, H, W, y0, diag, bits, sb, cnt, ruf, tab, pbits, psb, pcnt, plab,
                last_right, last_up, lastc, firstc, hnode_of, hsize, ehead, enext, eprev, eto,
                counters):
    """Group the cells of rows ``y0..`` into pieces of tiles (ids from
    ``counters[C_HWM]`` on, in row order) and link pieces that touch across
    a tile border (8-neighbours with ``diag``, else 4). Returns the first
    band it did not do for want of room (``H`` when done): the caller grows
    the arrays and calls again. ``walk`` is the mask as uint8 (0/1); the
    work arrays come from ``scratch(W)``; ``pbits``, ``psb``, ``pcnt`` and
    ``plab`` keep the last row done (for the next band's top border; kept
    across calls)."""
    hcap = hsize.shape[0]
    pcap = eto.shape[0] // 2
    need_h = band_runs(W)
    need_p = band_links(W, diag)
    n = H * W
    for yb in range(y0, H, TILE):
        if counters[C_HWM] + need_h > hcap or counters[C_ELIVE] + need_p > pcap:
            return yb
        bh = min(TILE, H - yb)
        # 1. pack the rows; run starts and the index of each word's first run
        nr = pack_band(walk, yb, bh, W, bits, sb, cnt)
        for r in range(nr):
            ruf[r] = r
        # 2. join the touching runs of neighbouring rows
        join(bh, W, bits, sb, cnt, ruf, diag)
        # 3. number the runs (tab[r + 1]: the piece of run r), add them to
        # the sizes and write the cells
        h0 = counters[C_HWM]
        h = write_band(yb, bh, W, n, bits, sb, cnt, ruf, tab, h0, hnode_of, hsize, ehead,
                       last_right, last_up)
        counters[C_NLIVE] += h - h0
        counters[C_HWM] = h
        # 4. links across tile column borders; 5. across the band's top border
        if diag:
            column_links8(bh, W, h0, bits, sb, cnt, tab, lastc, firstc, last_right, ehead,
                          enext, eprev, eto, counters)
        else:
            row_links4(bh, W, h0, bits, sb, cnt, tab, last_right, ehead, enext, eprev, eto,
                       counters)
        if yb > 0:
            if diag:
                top_links8(W, h0, bits, sb, cnt, tab, pbits, psb, pcnt, plab, last_up, ehead,
                           enext, eprev, eto, counters)
            else:
                top_links4(W, h0, bits, sb, cnt, tab, pbits, psb, pcnt, plab, last_up, ehead,
                           enext, eprev, eto, counters)
        keep_last_row(bh, W, bits, sb, cnt, tab, pbits, psb, pcnt, plab)
    return H
