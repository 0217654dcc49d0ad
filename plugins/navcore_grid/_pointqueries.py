"""numba kernels of the grid's point queries: a ray walked cell by cell
(Amanatides and Woo's traversal, corners as a supercover takes them) and
the walkable cell nearest a point (rings of cells around it).

Private: ``pointqueries.py`` validates and calls them."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def _open(x, y, width, height, walkable):
    return 0 <= x < width and 0 <= y < height and walkable[y * width + x]


@njit(cache=True, nogil=True)
def raycast(sx, sy, ex, ey, width, height, walkable, visited):
    """Walk ``(sx, sy) -> (ex, ey)`` from the (walkable) cell holding the
    start through the cells the segment enters, in order, until a blocked
    cell or the grid's border: ``(hit, t, nx, ny, count)`` as the
    navmesh's ``raycast`` (``t`` where the segment meets the blocked cell,
    ``inf`` when it ends first; ``(nx, ny)`` the unit normal of the side
    hit, back toward the start; ``visited[:count]`` the cells crossed).
    Through a corner the segment touches both cells beside it: either
    one blocked stops it there (no squeezing between two diagonal walls)."""
    cx = int(np.floor(sx))
    cy = int(np.floor(sy))
    dx, dy = ex - sx, ey - sy
    stx = 1 if dx > 0 else (-1 if dx < 0 else 0)
    sty = 1 if dy > 0 else (-1 if dy < 0 else 0)
    tdx = abs(1.0 / dx) if dx != 0 else np.inf
    tdy = abs(1.0 / dy) if dy != 0 else np.inf
    tmx = ((cx + 1 - sx) / dx if dx > 0 else (cx - sx) / dx) if dx != 0 else np.inf
    tmy = ((cy + 1 - sy) / dy if dy > 0 else (cy - sy) / dy) if dy != 0 else np.inf
    visited[0] = cy * width + cx
    count = 1
    while True:
        t = min(tmx, tmy)
        if t >= 1.0:
            return False, np.inf, 0.0, 0.0, count
        if tmx < tmy:
            if not _open(cx + stx, cy, width, height, walkable):
                return True, t, -float(stx), 0.0, count
            cx += stx
            tmx += tdx
        elif tmy < tmx:
            if not _open(cx, cy + sty, width, height, walkable):
                return True, t, 0.0, -float(sty), count
            cy += sty
            tmy += tdy
        else:                                        # through a corner
            if not _open(cx + stx, cy, width, height, walkable):
                return True, t, -float(stx), 0.0, count
            if not _open(cx, cy + sty, width, height, walkable):
                return True, t, 0.0, -float(sty), count
            if not _open(cx + stx, cy + sty, width, height, walkable):
                r = np.sqrt(0.5)
                return True, t, -stx * r, -sty * r, count
            cx += stx
            cy += sty
            tmx += tdx
            tmy += tdy
        visited[count] = cy * width + cx
        count += 1


@njit(cache=True, nogil=True)
def nearest_cell(x, y, width, height, walkable):
    """``(cell, px, py)``: the walkable cell nearest ``(x, y)`` and its
    point nearest it (``(x, y)`` itself inside it; on its far sides the
    last float before the border, which belongs to the next cell); ``(-1, x, y)`` when no
    cell is walkable. Rings of cells around the (clamped) cell of the
    point, stopping once no farther ring can hold a nearer cell: a cell
    ``k`` rings out is at least ``k - 1`` away. Ties: the lower id."""
    bx = min(max(int(np.floor(x)), 0), width - 1)
    by = min(max(int(np.floor(y)), 0), height - 1)
    best, bd, qx, qy = -1, np.inf, x, y
    for r in range(max(width, height) + 1):
        for cy in range(by - r, by + r + 1):
            if cy < 0 or cy >= height:
                continue
            step = 1 if cy == by - r or cy == by + r else 2 * r
            for cx in range(bx - r, bx + r + 1, max(step, 1)):
                if cx < 0 or cx >= width or not walkable[cy * width + cx]:
                    continue
                # within the cell's half-open square: the point locates to it
                px = min(max(x, float(cx)), np.nextafter(cx + 1.0, 0.0))
                py = min(max(y, float(cy)), np.nextafter(cy + 1.0, 0.0))
                d = (px - x) ** 2 + (py - y) ** 2
                c = cy * width + cx
                if d < bd or (d == bd and c < best):
                    best, bd, qx, qy = c, d, px, py
        if best >= 0 and np.sqrt(bd) <= r:
            break
    return best, qx, qy


@njit(cache=True, nogil=True)
def cells_in_circle(cx, cy, radius, start, width, height, walkable, out):
    """The walkable cells connected to ``start`` through cells sharing a
    side (a move every grid allows) without leaving the circle of
    ``radius`` round ``(cx, cy)`` (each cell's square comes within
    ``radius`` of the centre), breadth first into ``out`` (one slot per
    cell, with ``start``); returns how many."""
    seen = np.zeros(walkable.shape[0], dtype=np.bool_)
    out[0] = start
    seen[start] = True
    count = 1
    head = 0
    r2 = radius * radius
    while head < count:
        c = out[head]
        head += 1
        x0, y0 = c % width, c // width
        for k in range(4):
            x = x0 + (1 if k == 0 else -1 if k == 1 else 0)
            y = y0 + (1 if k == 2 else -1 if k == 3 else 0)
            if x < 0 or y < 0 or x >= width or y >= height:
                continue
            q = x + y * width
            if seen[q] or not walkable[q]:
                continue
            seen[q] = True
            dx = max(x - cx, 0.0, cx - (x + 1))
            dy = max(y - cy, 0.0, cy - (y + 1))
            if dx * dx + dy * dy <= r2:
                out[count] = q
                count += 1
    return count
