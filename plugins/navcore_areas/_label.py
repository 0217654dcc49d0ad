"""A full build of a lattice's hierarchical nodes on bit-packed rows
(private kernels): the packing, numbering and writes every lattice shares;
``_bands.label_bands`` runs the steps below (4-neighbours, ``diag=False``;
``_label8.py`` has the joins and links with diagonals).

The pieces, ids and links the lattice's update kernels expect (one
connected piece of one 16 x 16 tile per hierarchical node, ids in row
order), found with
few passes over the cells. Per band of ``TILE`` rows:

1. pack: each row becomes uint64 words, bit ``k`` of word ``i`` the cell
   ``64 i + k``. A word holds four whole tile rows (64 is a multiple of
   16), so runs never cross a word and need no carry: run starts are
   ``w & ~(w << 1)``, plus walkable cells on a tile's first column.
2. join: two runs of neighbouring rows touch exactly where both rows are
   walkable, and each run of ``above & below`` (cut at tile borders too)
   is one touching pair. The pair's runs are found by counting run starts
   (popcount) up to the pair's first cell, so cells are never visited one
   by one and no run index is written per cell.
3. number the runs (a run's union-find parent has a smaller index, so one
   forward pass gives every run its piece), add run lengths to piece
   sizes, and write the cells run by run, 16 at a time: a run lies in one
   tile row, so one fixed-length (vector) write covers it, with no loop
   whose exit mispredicts on short runs; what it writes past the run is
   written again by the next run or gap.
4. link runs of a row that meet at a tile border (walkable on both sides:
   ``w & w >> 1`` on a tile's last column), found by bits as in 2.
5. link pieces across the band's top border: the same pairs as 2, between
   the band's first row and the last row of the band above (kept).

Links are checked against the piece's list only when the piece already
has a link on that side (its first cannot repeat one).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._base import TILE
from ._bits import ctz, fill16, pack8, popcount

_ONE = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_FIRST = np.uint64(0x0001000100010001)   # the first column of each tile in a word
_LAST = np.uint64(0x8000800080008000)    # the last column of each tile
_HIGH = np.uint64(0x8000000000000000)    # the last cell of a word


@njit(cache=True, nogil=True)
def _starts(w):
    """Bits where a run of ``w`` starts (runs are cut at tile borders)."""
    return (w & ~(w << _ONE)) | (w & _FIRST)


@njit(cache=True, nogil=True, inline="always")
def _fill16(out, o, v, n):
    """``out[o:o + 16] = v``, cut at ``n``."""
    if o + TILE <= n:
        fill16(out, o, v)
    else:
        for k in range(o, n):
            out[k] = v


@njit(cache=True, nogil=True)
def pack_band(walk, yb, bh, W, bits, sb, cnt):
    """Step 1: pack rows ``yb .. yb + bh - 1`` into ``bits`` (row ``ly``,
    word ``wi`` at ``ly * nw + wi``), their run starts into ``sb`` and the
    index of each word's first run into ``cnt`` (``cnt[bh * nw]``: the
    number of runs, returned)."""
    nw = (W + 63) // 64
    nr = 0
    for ly in range(bh):
        base = (yb + ly) * W
        for wi in range(nw):
            x0 = base + wi * 64
            w = np.uint64(0)
            if W - wi * 64 >= 64:
                for k in range(8):
                    w |= pack8(walk, x0 + 8 * k) << np.uint64(8 * k)
            else:
                for k in range(W - wi * 64):
                    w |= np.uint64(walk[x0 + k]) << np.uint64(k)
            i = ly * nw + wi
            bits[i] = w
            s = _starts(w)
            sb[i] = s
            cnt[i] = nr
            nr += popcount(s)
    cnt[bh * nw] = nr
    return nr


@njit(cache=True, nogil=True)
def write_band(yb, bh, W, n, bits, sb, cnt, ruf, tab, h0, hnode_of, hsize, ehead,
               last_right, last_up):
    """Step 3: number the runs of a joined band (``tab[r + 1]``: the piece
    of run ``r``, ids from ``h0``), add them to the sizes and write the
    cells: 16 at a time, since a run lies in one tile row (each write
    reaches past its run; the next run or gap rewrites that, and a row's
    spill into the next row is rewritten with it; nothing is written from
    cell ``n`` on). Returns the next id."""
    nw = (W + 63) // 64
    h = h0
    for ly in range(bh):
        base = (yb + ly) * W
        r = cnt[ly * nw]
        gap = 0                  # cells of the row before this are written
        for wi in range(nw):
            w = bits[ly * nw + wi]
            s = sb[ly * nw + wi]
            e = (w & ~(w >> _ONE)) | (w & _LAST)
            while s:
                xs = wi * 64 + ctz(s)
                xe = wi * 64 + ctz(e)
                s &= s - _ONE
                e &= e - _ONE
                p = ruf[r]
                if p == r:
                    b = h
                    hsize[h] = 0
                    ehead[h] = -1
                    last_right[h - h0] = -1
                    last_up[h - h0] = -1
                    h += 1
                else:
                    b = tab[p + 1]
                tab[r + 1] = b
                hsize[b] += xe - xs + 1
                # the gap before the run: one write whatever its length
                # (no branch to mispredict), more for long walls only
                _fill16(hnode_of, base + gap, -1, n)
                gap += TILE
                while gap < xs:
                    _fill16(hnode_of, base + gap, -1, n)
                    gap += TILE
                _fill16(hnode_of, base + xs, b, n)
                gap = xe + 1
                r += 1
        while gap < W:
            _fill16(hnode_of, base + gap, -1, n)
            gap += TILE
    return h


@njit(cache=True, nogil=True)
def keep_last_row(bh, W, bits, sb, cnt, tab, pbits, psb, pcnt, plab):
    """Keep the last row of a band (its words, run starts, first run per
    word and the piece of each run) for the next band's top border."""
    nw = (W + 63) // 64
    i0 = (bh - 1) * nw
    r0 = cnt[i0]
    for wi in range(nw):
        pbits[wi] = bits[i0 + wi]
        psb[wi] = sb[i0 + wi]
        pcnt[wi] = cnt[i0 + wi] - r0
    for r in range(r0, cnt[bh * nw]):
        plab[r - r0] = tab[r + 1]
