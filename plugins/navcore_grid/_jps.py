"""Jump point search kernels (private; see ``search.py``).

JPS for uniform 8-connected grids without corner cutting (Harabor &
Grastien's rules for that move model, ``1 <= diag <= 2``), with the two
improvements of "Improving Jump Point Search" (ICAPS 2014) that need no
preprocessing, so updates stay cheap:

* Block-based scanning. A straight jump looks at 64 cells per step: the
  map is kept as bits, one row of words per grid row (``rowbits``) and
  one per grid column (``colbits``), and one step tests a word of the
  line for a blocked cell and the words of both side lines for a forced
  neighbour (a free side cell whose cell behind is blocked), then finds
  the first stop with a count of trailing (or leading) zeros. Against a
  cell-by-cell scan: 3-4x fewer operations per query on Berlin_0_256 and
  brc202d, and no loss on mazes.
* No intermediate jump points. A diagonal jump does not stop where one of
  its straight sub-scans finds a jump point; it adds that jump point as a
  successor and walks on, so the open list never holds the turn cells.
  The turn cell follows from the jump point, its parent and which way
  the last leg runs, so two bits of ``parent`` hold it (``parent[j] =
  (u << 2) | turn``, turn 1: the last leg runs along a row, 2: along a
  column): no extra array, no extra cache miss per expansion.

Cells are in the padded layout of ``_kernels`` (``p = y * Wp + x`` with a
blocked border). In the bit arrays cell ``x`` of a line is bit ``x + 64``:
64 blocked bits before and after every line let a scan read a whole word
on either side of any cell without bounds checks.
"""
from __future__ import annotations

import numpy as np
from numba import config, njit

# jump_steps' registers (``scratch[2]``, int64) are a resumable search's
# (navcore._kernels); the names stay importable from here for the callers
from navcore._kernels import (R_BEST, R_EXPANDED, R_SIZE, R_TRACK, REGISTERS,  # noqa: F401
                              close_next, finish, heap_place, open_source, pause, resume)

from ._kernels import landmark_bound, leading_zeros, path_between, search_batch

if config.DISABLE_JIT:          # the intrinsic needs the compiler
    def trailing_zeros(x):
        x = int(x)
        return (x & -x).bit_length() - 1
else:
    from numba.cpython.unsafe.numbers import trailing_zeros

INF = np.inf
PAD = 64                        # blocked bits before each line's first cell
#: a parent link is ``(cell << 2) | turn`` (module docs; ``_kernels.trace_into``)
JPS_LINKS = 2


def line_words(length: int) -> int:
    """uint64 words per line of ``length`` cells, with the padding on both
    sides and one word more for reads that straddle the end."""
    return (length + 2 * PAD) // 64 + 2


def pack_lines(free2d: np.ndarray) -> np.ndarray:
    """Bit lines of a ``(lines, length)`` bool array: uint64 ``(lines,
    line_words(length))``, cell ``i`` of line ``r`` at bit ``i + PAD``."""
    lines, length = free2d.shape
    nbits = 64 * line_words(length)
    bits = np.zeros((lines, nbits), dtype=np.bool_)
    bits[:, PAD:PAD + length] = free2d
    packed = np.packbits(bits, axis=1, bitorder="little")
    return np.ascontiguousarray(packed).view("<u8").astype(np.uint64, copy=False)


@njit(cache=True, nogil=True)
def set_bits(rowbits, colbits, Wp, cells, free):
    """Copy ``free`` of the padded ``cells`` into both bit arrays."""
    one = np.uint64(1)
    for i in range(cells.shape[0]):
        p = cells[i]
        y = p // Wp
        x = p - y * Wp
        rb = x + PAD
        cb = y + PAD
        if free[p]:
            rowbits[y, rb >> 6] |= one << np.uint64(rb & 63)
            colbits[x, cb >> 6] |= one << np.uint64(cb & 63)
        else:
            rowbits[y, rb >> 6] &= ~(one << np.uint64(rb & 63))
            colbits[x, cb >> 6] &= ~(one << np.uint64(cb & 63))


@njit(cache=True, nogil=True, inline="always")
def word_bits(words, r, b):
    """64 bits of line ``r`` from bit ``b`` on (bit 0 of the result is ``b``)."""
    w = b >> 6
    o = b & 63
    lo = words[r, w] >> np.uint64(o)
    if o == 0:
        return lo
    return lo | (words[r, w + 1] << np.uint64(64 - o))


@njit(cache=True, nogil=True, inline="always")
def scan(words, r, pos, gp, dirn):
    """Walk line ``r`` of ``words`` from position ``pos`` in direction
    ``dirn`` (+1 or -1), 64 cells a step: -1 if a blocked cell comes
    first, else the goal (``gp``, its position when it lies on this line,
    else -1) or the first cell with a forced neighbour on line ``r - 1`` or
    ``r + 1`` (a free side cell whose cell behind is blocked).

    Reads aligned words of the line and both side lines; the "behind"
    bits of a side word are the word shifted by one, with the missing bit
    taken from the word before (kept from the previous step). Words from
    the first cell on were measured faster than looking at the first few
    cells one by one, even on mazes where most scans stop within a cell or
    two. One generic scan, inlined at two places, keeps the kernel small
    (eight inlined scans measured 10-20% slower, a called one too).
    """
    one = np.uint64(1)
    c = pos + dirn                     # first cell to look at
    b = c + PAD
    w = b >> 6
    o = np.uint64(b & 63)
    line = words[r, w]
    a = words[r - 1, w]
    d = words[r + 1, w]
    if dirn > 0:
        # bits of this word below c are behind the scan: ignore them
        first = ~((one << o) - one)
        a_prev = words[r - 1, w - 1]
        d_prev = words[r + 1, w - 1]
        while True:
            a_behind = (a << one) | (a_prev >> np.uint64(63))
            d_behind = (d << one) | (d_prev >> np.uint64(63))
            stop = ((a & ~a_behind) | (d & ~d_behind) | ~line) & first
            end = (w << 6) + 64 - PAD     # first position of the next word
            if stop != 0:
                k = np.int64(trailing_zeros(stop))
                j = (w << 6) + k - PAD
                if pos < gp <= j:
                    return gp
                if ((line >> np.uint64(k)) & one) == 0:
                    return -1
                return j
            if pos < gp < end:
                return gp
            first = ~np.uint64(0)
            w += 1
            a_prev = a
            d_prev = d
            line = words[r, w]
            a = words[r - 1, w]
            d = words[r + 1, w]
    else:
        # bits of this word above c are behind the scan: ignore them
        first = (one << o) | ((one << o) - one)
        a_next = words[r - 1, w + 1]
        d_next = words[r + 1, w + 1]
        while True:
            a_behind = (a >> one) | (a_next << np.uint64(63))
            d_behind = (d >> one) | (d_next << np.uint64(63))
            stop = ((a & ~a_behind) | (d & ~d_behind) | ~line) & first
            start = (w << 6) - PAD        # position of bit 0 of this word
            if stop != 0:
                k = 63 - np.int64(leading_zeros(stop))
                j = start + k
                if j <= gp < pos:
                    return gp
                if ((line >> np.uint64(k)) & one) == 0:
                    return -1
                return j
            if start <= gp < pos:
                return gp
            first = ~np.uint64(0)
            w -= 1
            a_next = a
            d_next = d
            line = words[r, w]
            a = words[r - 1, w]
            d = words[r + 1, w]


@njit(cache=True, nogil=True, inline="always")
def _octile(v, Wp, gx, gy, hb, lm, nk, lscale, goal):
    """The heuristic of padded cell ``v``: octile distance, raised by the
    landmarks' bound where they know better."""
    vy = v // Wp
    hx = abs(v - vy * Wp - gx)
    hy = abs(vy - gy)
    return landmark_bound(lm, nk, lscale, v, goal, max(hx, hy) + hb * min(hx, hy))


@njit(cache=True, nogil=True, inline="always")
def push(j, turn, ng, parent_j, gx, gy, hb, Wp, stamp, open_mark, closed_mark, g,
          parent, hnode, hkey, hpos, size, lm, nk, lscale, goal):
    """Offer jump point ``j`` at cost ``ng``; returns the heap size. The
    key's heuristic is octile distance or, with ``nk`` landmarks, the
    larger of that and the landmarks' differential bound."""
    sj = stamp[j]
    if sj == closed_mark:
        return size
    if sj == open_mark:
        if ng >= g[j]:
            return size
        i = hpos[j]
    else:
        stamp[j] = open_mark
        i = size
        size += 1
    key = ng + _octile(j, Wp, gx, gy, hb, lm, nk, lscale, goal)
    g[j] = ng
    parent[j] = (parent_j << 2) | turn
    heap_place(hnode, hkey, hpos, i, j, key)
    return size


#: ``jump_steps``' cost when it stopped at its expansion budget (to be resumed)
PAUSED = -2.0
#: an expansion budget no search reaches (its sum with a count stays in int64)
WHOLE = 1 << 62


@njit(cache=True, nogil=True)
def jump_search(grid, scratch, start, goal, gen):
    """``jump_steps`` run to its end: the form ``path_between`` and the
    batches take a search in."""
    return jump_steps(grid, scratch, start, goal, gen, WHOLE)


@njit(cache=True, nogil=True)
def jump_steps(grid, scratch, start, goal, gen, budget):
    """Jump point search from padded ``start`` to ``goal``. ``grid``: the
    grid's inputs as ``search_inputs`` gathers them (``Wp, W, free,
    rowbits, colbits, diag, lm, nk, lscale``); ``scratch``: ``(i32,
    f64, regs)``, rows stamp, parent, heap node, heap position; g, heap
    key; the registers. Returns ``(cost, expanded, parent)``; ``parent``
    links the jump points of the path (``(cell << 2) | turn``, see the
    module docs; -1 at the start); cost ``PAUSED`` when ``budget`` jump
    points were closed in this call first (the next call with the same
    arguments carries on; a finished search leaves the registers ready
    for the next)."""
    Wp, _, free, rowbits, colbits, diag, lm, nk, lscale = grid
    i32, f64, regs = scratch
    stamp, parent, hnode, hpos = i32[0], i32[1], i32[2], i32[3]
    g, hkey = f64[0], f64[1]
    open_mark = 2 * gen
    closed_mark = open_mark + 1
    hb = diag - 1.0
    gy = goal // Wp
    gx = goal - gy * Wp
    # direction k -> (dx, dy): E, W, S, N, SE, SW, NE, NW
    kdx = (1, -1, 0, 0, 1, -1, 1, -1)
    kdy = (0, 0, 1, -1, 1, 1, -1, -1)
    expanded, size, best, track = resume(regs)
    if expanded < 0:
        size = open_source(stamp, g, parent, hnode, hkey, hpos, start, open_mark)
        expanded = 0
    best_h = INF if best < 0 else _octile(best, Wp, gx, gy, hb, lm, nk, lscale, goal)
    stop = expanded + budget
    while size > 0:
        if expanded >= stop:
            pause(regs, size, expanded, best)
            return PAUSED, expanded, parent
        u, size = close_next(stamp, hnode, hkey, hpos, size, closed_mark)
        expanded += 1
        if u == goal:
            finish(regs, best)
            return g[u], expanded, parent
        if track:
            h = _octile(u, Wp, gx, gy, hb, lm, nk, lscale, goal)
            if h < best_h:
                best, best_h = u, h
        uy = u // Wp
        ux = u - uy * Wp
        gu = g[u]
        code = parent[u]
        if code < 0:
            dirs = 0xFF
        else:
            # the direction u was entered in: from its parent, or along the
            # straight last leg after a turn
            pu = code >> 2
            py = pu // Wp
            dx = np.sign(ux - (pu - py * Wp))
            dy = np.sign(uy - py)
            if code & 3 == 1:
                dy = 0
            elif code & 3 == 2:
                dx = 0
            if dx != 0 and dy != 0:     # diagonal: both straights and on
                dirs = (1 << (0 if dx > 0 else 1)) | (1 << (2 if dy > 0 else 3)) \
                    | (1 << (4 + (dx < 0) + 2 * (dy < 0)))
            elif dx != 0:   # horizontal: on, plus each side whose behind is blocked
                dirs = 1 << (0 if dx > 0 else 1)
                if free[u + Wp] and not free[u - dx + Wp]:       # forced south
                    dirs |= (1 << 2) | (1 << (4 + (dx < 0)))
                if free[u - Wp] and not free[u - dx - Wp]:       # forced north
                    dirs |= (1 << 3) | (1 << (6 + (dx < 0)))
            else:           # vertical, the same with east and west
                dirs = 1 << (2 if dy > 0 else 3)
                back = u - dy * Wp
                if free[u + 1] and not free[back + 1]:           # forced east
                    dirs |= 1 | (1 << (4 + 2 * (dy < 0)))
                if free[u - 1] and not free[back - 1]:           # forced west
                    dirs |= 2 | (1 << (5 + 2 * (dy < 0)))
        for k in range(8):
            if not (dirs >> k) & 1:
                continue
            sx = kdx[k]
            sy = kdy[k]
            if k < 4:
                if sy == 0:              # along row uy
                    words, r, pos, gp, dirn = rowbits, uy, ux, gx if uy == gy else -1, sx
                else:                    # along column ux
                    words, r, pos, gp, dirn = colbits, ux, uy, gy if ux == gx else -1, sy
                j = scan(words, r, pos, gp, dirn)
                if j >= 0:
                    jp = r * Wp + j if sy == 0 else j * Wp + r
                    size = push(jp, 0, gu + abs(j - pos), u, gx, gy, hb, Wp, stamp,
                                 open_mark, closed_mark, g, parent, hnode, hkey, hpos,
                                 size, lm, nk, lscale, goal)
                continue
            # diagonal ray: every straight jump point seen from it is a
            # successor of u, turning at the ray cell that saw it
            x = ux
            y = uy
            gd = gu
            while True:
                p = y * Wp + x
                if not (free[p + sx] and free[p + sy * Wp]):
                    break
                x += sx
                y += sy
                p += sx + sy * Wp
                if not free[p]:
                    break
                gd += diag
                if p == goal:
                    size = push(p, 0, gd, u, gx, gy, hb, Wp, stamp, open_mark,
                                 closed_mark, g, parent, hnode, hkey, hpos, size, lm, nk,
                                 lscale, goal)
                    break
                for axis in range(2):    # the ray's two straights, one scan site
                    if axis == 0:
                        words, r, pos, gp, dirn = rowbits, y, x, gx if y == gy else -1, sx
                    else:
                        words, r, pos, gp, dirn = colbits, x, y, gy if x == gx else -1, sy
                    j = scan(words, r, pos, gp, dirn)
                    if j >= 0:
                        jp = r * Wp + j if axis == 0 else j * Wp + r
                        size = push(jp, 1 + axis, gd + abs(j - pos), u, gx, gy, hb, Wp,
                                     stamp, open_mark, closed_mark, g, parent, hnode, hkey,
                                     hpos, size, lm, nk, lscale, goal)
    finish(regs, best)
    return INF, expanded, parent


@njit(cache=True, nogil=True)
def jps_path(grid, scratch, start, goal, gen):
    """``jump_search`` and the trace of its path in one call
    (``_kernels.path_between``): ``(cost, expanded, nodes, points)``,
    empty arrays when unreachable. The scratch comes as rows (``(i32,
    f64, regs)``, see ``jump_steps``), three array arguments instead of seven."""
    return path_between(jump_search, grid, scratch, JPS_LINKS, start, goal, gen)


@njit(cache=True, nogil=True)
def jps_batch(grid, scratch, starts, goals, gen, cost, expanded, offsets, buf):
    """``_kernels.search_batch`` with jump point search: ``(buf, cells
    used)``."""
    buf, used, _ = search_batch(jump_search, grid, scratch, JPS_LINKS, starts, goals, gen,
                                cost, expanded, offsets, buf, 0, 0)
    return buf, used
