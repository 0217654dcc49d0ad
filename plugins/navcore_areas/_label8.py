"""The full build of a lattice with diagonals (``diag=True``: a grid that
cuts corners, 8-neighbours) on bit-packed rows (private kernels).

The pieces and links the tile floods of ``_lattice.rebuild_tiles`` make
with ``diag`` (as did the cell-by-cell full build this replaces), ids in
row order (a piece: cells of one tile joined by
the 8 moves inside the tile; a link: pieces of different tiles with two
cells 8-adjacent, across a border or a tile corner), built by
``_bands.label_bands`` as a 4-neighbour lattice is (same packing, run
numbering and cell writes), with these joins and links instead:

2. join: a run touches a run of the next row when they overlap after
   widening one of them by a cell each side. Below a row ``a`` the cells
   that touch it are ``b & wide(a)`` (``wide``: ``a`` shifted a cell each
   way, inside its tile), and each run of those lies in one run of ``b``:
   it touches the runs of ``a`` from the first cell of ``a`` at or after
   its start - 1 to the last one at or before its end + 1, all found by
   counting run starts (popcount), mostly one.
4. links across a tile's column border in a band: the border's two
   columns are packed into words (bit ``ly``: row ``ly``) and joined as
   in 2; a run down a column is one piece, so few pairs are looked up.
5. links across the band's top border: as 2 between the band's first row
   and the last row of the band above, widening across tile and word
   borders too (every pair there links two tiles).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._base import TILE, find, link, union_min
from ._bits import ctz, popcount
from ._label import _ALL, _FIRST, _LAST, _ONE, _starts
from ._lattice import _link_new

_LOW = np.uint64(1)


@njit(cache=True, nogil=True, inline="always")
def _ends(w):
    """Bits where a run of ``w`` ends (runs are cut at tile borders)."""
    return (w & ~(w >> _ONE)) | (w & _LAST)


@njit(cache=True, nogil=True, inline="always")
def _upto(p):
    """The bits ``0..p`` of a word."""
    return _ALL >> np.uint64(63 - p)


@njit(cache=True, nogil=True, inline="always")
def _link_once(a, b, slot, last, ehead, enext, eprev, eto, counters):
    """Link ``a`` and ``b`` unless ``b`` is the piece ``last[slot]`` (the
    last one linked from that side: the same pair, a row on); with no
    piece there yet, there is no list to check."""
    lb = last[slot]
    if lb != b:
        last[slot] = b
        if lb < 0:
            link(a, b, ehead, enext, eprev, eto, counters)
        else:
            _link_new(a, b, ehead, enext, eprev, eto, counters)


@njit(cache=True, nogil=True)
def join8(bh, W, bits, sb, cnt, ruf):
    """Step 2: join the runs of neighbouring rows of a band that touch
    with diagonals (inside a tile)."""
    nw = (W + 63) // 64
    for i in range(nw, bh * nw):
        j = i - nw
        a = bits[j]
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
            lo = s - 1 if s & (TILE - 1) else s          # not across the tile's border
            hi = e + 1 if (e + 1) & (TILE - 1) else e
            # the run at lo, or (lo walled) the next: no branch
            a0 = ca + popcount(sa & _upto(lo)) + 1 - np.int64((a >> np.uint64(lo)) & _LOW)
            a1 = ca + popcount(sa & _upto(hi))
            if ruf[b] == b:          # b is still alone: a's root is smaller
                ruf[b] = find(ruf, a0)
            else:
                union_min(ruf, b, a0)
            # the last run touched (often a0 again) with no branch on that
            x = find(ruf, b)
            y = find(ruf, a1)
            ruf[max(x, y)] = min(x, y)
            for r in range(a0 + 1, a1):
                union_min(ruf, b, r)


@njit(cache=True, nogil=True)
def _columns(bh, W, bits, lastc, firstc):
    """The band's tile columns as words (bit ``ly``: row ``ly``): the last
    column of tile column ``t`` in ``lastc[t]``, its first in ``firstc[t]``."""
    nw = (W + 63) // 64
    for t in range(4 * nw):
        lastc[t] = 0
        firstc[t] = 0
    for ly in range(bh):
        row = np.uint64(ly)
        for wi in range(nw):
            w = bits[ly * nw + wi]
            for t in range(4):
                lastc[4 * wi + t] |= ((w >> np.uint64(16 * t + 15)) & _LOW) << row
                firstc[4 * wi + t] |= ((w >> np.uint64(16 * t)) & _LOW) << row


@njit(cache=True, nogil=True)
def column_links8(bh, W, h0, bits, sb, cnt, tab, lastc, firstc, last_right, ehead, enext,
                   eprev, eto, counters):
    """Step 4: link the pieces of a band that meet across a tile's column
    border (in a row or diagonally). A border column's cells in a run down
    the column are one piece (they are joined inside the tile), so this is
    step 2 again, down the two columns of the border (a run of one side
    touches a run of the other when they overlap after widening one by a
    row each way): few pairs, where a check per touching cell found each
    pair ~5 times over."""
    nw = (W + 63) // 64
    _columns(bh, W, bits, lastc, firstc)
    for t in range((W + TILE - 1) // TILE - 1):
        left = lastc[t]
        c = (left | (left << _ONE) | (left >> _ONE)) & firstc[t + 1]
        if c == 0:
            continue
        cs = c & ~(c << _ONE)
        ce = c & ~(c >> _ONE)
        starts = left & ~(left << _ONE)
        x = TILE * t + TILE - 1            # the left column; x + 1 starts a run
        wl = x >> 6
        ml = _upto(x & 63)
        wr = (x + 1) >> 6
        mr = _upto((x + 1) & 63)
        while cs:
            s = ctz(cs)
            e = ctz(ce)
            cs &= cs - _ONE
            ce &= ce - _ONE
            k = s * nw + wr
            b = tab[cnt[k] + popcount(sb[k] & mr)]
            # the left runs from the first cell at or after row s - 1 to
            # the last at or before row e + 1: each one's piece by its
            # first cell there
            rows = left & (_ALL << np.uint64(s - 1 if s else 0))
            rows = (rows & (~rows + _ONE)) | (starts & rows & _upto(min(e + 1, 63)))
            while rows:
                k = ctz(rows) * nw + wl
                a = tab[cnt[k] + popcount(sb[k] & ml)]
                _link_once(a, b, a - h0, last_right, ehead, enext, eprev, eto, counters)
                rows &= rows - _ONE


@njit(cache=True, nogil=True, inline="always")
def _prev_run(x, pbits, psb, pcnt):
    """The last run of the kept row that starts at or before cell ``x``."""
    wi = x >> 6
    return pcnt[wi] - 1 + popcount(psb[wi] & _upto(x & 63))


@njit(cache=True, nogil=True, inline="always")
def _cell(row, x):
    return (row[x >> 6] >> np.uint64(x & 63)) & _LOW


@njit(cache=True, nogil=True)
def top_links8(W, h0, bits, sb, cnt, tab, pbits, psb, pcnt, plab, last_up, ehead, enext,
                eprev, eto, counters):
    """Step 5: link the pieces of the band's first row to those of the
    kept row above that touch them, diagonals included (across tile and
    word borders: every such pair links two tiles)."""
    nw = (W + 63) // 64
    for wi in range(nw):
        p = pbits[wi]
        wide = p | (p << _ONE) | (p >> _ONE)
        if wi > 0:
            wide |= pbits[wi - 1] >> np.uint64(63)
        if wi + 1 < nw:
            wide |= pbits[wi + 1] << np.uint64(63)
        c = wide & bits[wi]
        cs = _starts(c)
        ce = _ends(c)
        while cs:
            s = ctz(cs)
            e = ctz(ce)
            cs &= cs - _ONE
            ce &= ce - _ONE
            b = tab[cnt[wi] + popcount(sb[wi] & _upto(s))]
            x = wi * 64 + s
            r0 = 0                   # the run at x - 1, or (x - 1 walled) the next
            if x > 0:
                r0 = _prev_run(x - 1, pbits, psb, pcnt) + 1 - np.int64(_cell(pbits, x - 1))
            r1 = _prev_run(min(wi * 64 + e + 1, W - 1), pbits, psb, pcnt)
            for r in range(r0, r1 + 1):
                _link_once(b, plab[r], b - h0, last_up, ehead, enext, eprev, eto, counters)
