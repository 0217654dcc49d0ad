"""The full build of a lattice's hierarchical nodes, band by band on
bit-packed rows (private kernels): one loop for both connectivities, over
the packing, numbering and writes of ``_label.py`` (its module docs give
the steps), with the 4-neighbour joins and links written in and those with
diagonals from ``_label8.py``.

The pieces, ids and links are those the tile floods of
``_lattice.rebuild_tiles`` make (one connected piece of one 16 x 16 tile
per hierarchical node), ids in row order.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ._base import C_ELIVE, C_HWM, C_NLIVE, TILE, find, link, union_min
from ._bits import ctz, popcount
from ._label import _ALL, _HIGH, _LAST, _ONE, _starts, keep_last_row, pack_band, write_band
from ._label8 import column_links8, join8, top_links8
from ._lattice import _link_new, band_links, band_runs


class BandScratch(NamedTuple):
    """The work arrays of :func:`label_bands`: a band's packed bits, run
    starts and counts, run union-find and labels; the last row done; the
    last links made right and up; a band's tile columns (diagonals only)."""
    bits: np.ndarray
    sb: np.ndarray
    cnt: np.ndarray
    ruf: np.ndarray
    tab: np.ndarray
    pbits: np.ndarray
    psb: np.ndarray
    pcnt: np.ndarray
    plab: np.ndarray
    last_right: np.ndarray
    last_up: np.ndarray
    lastc: np.ndarray
    firstc: np.ndarray


def scratch(W):
    """The work arrays of ``label_bands`` for rows of ``W`` cells (the last
    two, a band's tile columns, only with diagonals): a :class:`BandScratch`."""
    nw = (W + 63) // 64
    m = band_runs(W)
    return BandScratch(np.empty(TILE * nw, np.uint64), np.empty(TILE * nw, np.uint64),
            np.empty(TILE * nw + 1, np.int64), np.empty(m, np.int32),
            np.empty(m + 1, np.int32), np.empty(nw, np.uint64), np.empty(nw, np.uint64),
            np.empty(nw, np.int64), np.empty(m + 1, np.int32), np.empty(m, np.int32),
            np.empty(m, np.int32), np.empty(4 * nw, np.uint64), np.empty(4 * nw, np.uint64))


@njit(cache=True, nogil=True)
def label_bands(lat, y0, work, nodes, links, counters):
    """Group the cells of rows ``y0..`` into pieces of tiles (ids from
    ``counters[C_HWM]`` on, in row order) and link pieces that touch across
    a tile border (8-neighbours with ``diag``, else 4). Returns the first
    band it did not do for want of room (``H`` when done): the caller grows
    the arrays and calls again. ``lat``: a ``_lattice.Lattice`` whose
    ``walk`` is the mask as uint8 (0/1); ``nodes``, ``links``:
    ``_base.Nodes``, ``Links``; ``work`` comes from ``scratch(W)``; its
    ``pbits``, ``psb``, ``pcnt`` and ``plab`` keep the last row done (for
    the next band's top border; kept across calls)."""
    walk, W, H, diag = lat
    (bits, sb, cnt, ruf, tab, pbits, psb, pcnt, plab, last_right, last_up, lastc,
     firstc) = work
    hnode_of, hsize = nodes.hnode_of, nodes.hsize
    ehead, enext, eprev, eto = links
    nw = (W + 63) // 64
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
        # 2. join the touching runs of neighbouring rows. The 4-neighbour
        # steps are written in: as calls (or inlined functions) the reference
        # counts of their arrays took a 256 x 256 build 33 us, not 29
        if diag:
            join8(bh, W, bits, sb, cnt, ruf)
        else:
            for i in range(nw, bh * nw):
                j = i - nw
                c = bits[i] & bits[j]
                if c == 0:
                    continue
                cs = _starts(c)
                sa = sb[j]
                sbl = sb[i]
                ca = cnt[j] - 1
                cb = cnt[i] - 1
                while cs:
                    m = _ALL >> np.uint64(63 - ctz(cs))     # bits up to the pair's first cell
                    a = ca + popcount(sa & m)
                    b = cb + popcount(sbl & m)
                    if ruf[b] == b:          # b is still alone: a's root is smaller
                        ruf[b] = find(ruf, a)
                    else:
                        union_min(ruf, b, a)
                    cs &= cs - _ONE
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
            if yb > 0:
                top_links8(W, h0, bits, sb, cnt, tab, pbits, psb, pcnt, plab, last_up, ehead,
                           enext, eprev, eto, counters)
        else:
            # links between runs of a row cut by a tile border: walkable
            # cells on both sides of it (the run ending there and the next)
            for ly in range(bh):
                for wi in range(nw):
                    i = ly * nw + wi
                    w = bits[i]
                    x = w & (w >> _ONE) & _LAST          # inside the word
                    if wi + 1 < nw and bits[i + 1] & _ONE:
                        x |= w & _HIGH                    # into the next word
                    while x:
                        p = ctz(x)
                        a = tab[cnt[i] + popcount(sb[i] & (_ALL >> np.uint64(63 - p)))]
                        b = tab[cnt[i] + popcount(sb[i] & (_ALL >> np.uint64(63 - p))) + 1]
                        la = last_right[a - h0]
                        if la != b:                      # not the same pair as a row above
                            last_right[a - h0] = b
                            if la < 0:                   # a's first link to the right
                                link(a, b, ehead, enext, eprev, eto, counters)
                            else:
                                _link_new(a, b, ehead, enext, eprev, eto, counters)
                        x &= x - _ONE
            if yb > 0:
                for wi in range(nw):
                    c = pbits[wi] & bits[wi]
                    cs = _starts(c)
                    ca = pcnt[wi] - 1
                    cb = cnt[wi]
                    while cs:
                        m = _ALL >> np.uint64(63 - ctz(cs))
                        a = plab[ca + popcount(psb[wi] & m)]
                        b = tab[cb + popcount(sb[wi] & m)]
                        lb = last_up[b - h0]
                        if lb != a:
                            last_up[b - h0] = a
                            if lb < 0:          # b's first link up: no list to check
                                link(a, b, ehead, enext, eprev, eto, counters)
                            else:               # b's list is short: links of this band
                                _link_new(b, a, ehead, enext, eprev, eto, counters)
                        cs &= cs - _ONE
        keep_last_row(bh, W, bits, sb, cnt, tab, pbits, psb, pcnt, plab)
    return H
