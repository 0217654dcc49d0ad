"""numba kernels of the grid's crowd queries: its walls as RVO2 obstacle
rings (``grid_walls``) and Detour's ``moveAlongSurface`` for many points
(``move_many``).

Private: ``surface.py`` validates and calls them."""
from __future__ import annotations

import numpy as np
from numba import njit

from navcore.limits import MAX_COORDINATE

# _open: whether a cell is on the grid and walkable (the ray's own test)
from ._pointqueries import _open as _free
from ._pointqueries import nearest_cell, raycast

# directions of the lattice edges: 0 +x, 1 -x, 2 +y, 3 -y
_DX = (1, -1, 0, 0)
_DY = (0, 0, 1, -1)
#: the direction after a left turn ((dx, dy) -> (-dy, dx)) of each
_LEFT = (2, 3, 1, 0)
#: slides a move makes at most: after a side is hit the move keeps one
#: axis; a corner hit keeps one too; a second side stops it
MAX_SLIDES = 4


@njit(cache=True, nogil=True, inline="always")
def _out_bits(x, y, width, height, walkable):
    """The wall edges leaving lattice vertex ``(x, y)`` (a cell corner) as
    bits ``1 << direction``, each with the walkable cell on its right
    (right of ``(dx, dy)`` is ``(dy, -dx)``): from the four cells around
    the vertex (outside the grid is solid)."""
    nw = _free(x - 1, y - 1, width, height, walkable)
    ne = _free(x, y - 1, width, height, walkable)
    sw = _free(x - 1, y, width, height, walkable)
    se = _free(x, y, width, height, walkable)
    bits = 0
    if ne and not se:
        bits |= 1           # +x along y: walkable at -y
    if sw and not nw:
        bits |= 2           # -x: walkable at +y
    if se and not sw:
        bits |= 4           # +y along x: walkable at +x
    if nw and not ne:
        bits |= 8           # -y: walkable at -x
    return bits


@njit(cache=True, nogil=True)
def grid_walls(width, height, walkable):
    """``(vertices, ring_start)``: the sides between walkable cells and
    blocked cells or the outside, chained into closed rings with the
    walkable cells on the right of every edge (``navcore_walls``), a run
    of sides along one line merged into one edge (a ring's vertices are
    its corners only).

    Rings are traced from their lowest vertex in ``(y, x)`` order (always
    a corner). Where two blocked cells meet diagonally between two
    walkable ones (two walls cross at a cell corner), a ring turns left,
    around the blocked cell's corner: every blocked corner stays a convex
    corner of its ring, and rings touch there but never cross."""
    vw = width + 1
    nv = vw * (height + 1)
    total = 0
    for y in range(height + 1):
        for x in range(vw):
            b = _out_bits(x, y, width, height, walkable)
            while b:
                total += b & 1
                b >>= 1
    verts = np.empty((total, 2), dtype=np.float64)
    ring_start = np.empty(total // 4 + 2, dtype=np.int64)
    used = np.zeros(nv, dtype=np.uint8)
    k = 0
    r = 0
    for y in range(height + 1):
        for x in range(vw):
            v = y * vw + x
            bits = _out_bits(x, y, width, height, walkable) & ~used[v]
            while bits:
                d = 0
                while not (bits >> d) & 1:
                    d += 1
                ring_start[r] = k
                r += 1
                cx, cy, cd = x, y, d
                while True:
                    used[cy * vw + cx] |= 1 << cd
                    cx += _DX[cd]
                    cy += _DY[cd]
                    out = _out_bits(cx, cy, width, height, walkable)
                    if out == 1 or out == 2 or out == 4 or out == 8:
                        nd = 0
                        while not (out >> nd) & 1:
                            nd += 1
                    else:                       # two walls cross here: turn left
                        nd = _LEFT[cd]
                    if nd != cd:
                        verts[k, 0] = cx
                        verts[k, 1] = cy
                        k += 1
                    cd = nd
                    if cx == x and cy == y and cd == d:
                        break
                bits = _out_bits(x, y, width, height, walkable) & ~used[v]
    ring_start[r] = k
    return verts[:k].copy(), ring_start[:r + 1].copy()


@njit(cache=True, nogil=True, inline="always")
def _into(v, c):
    """``v`` clamped into ``[c, c + 1)``: the cell ``c`` that floor() gives."""
    return min(max(v, float(c)), np.nextafter(c + 1.0, 0.0))


@njit(cache=True, nogil=True, inline="always")
def _settle(px, py, cell, width, height, walkable):
    """The cell that holds ``(px, py)``, a point the walk reached in (or
    on the border of) ``cell``: a point on a cell's far side belongs to
    the next cell (floor), kept when that cell is walkable and is not
    across a corner two blocked cells meet at, else ``cell`` (the caller clamps
    the point into it)."""
    cx, cy = cell % width, cell // width
    dx, dy = int(np.floor(px)) - cx, int(np.floor(py)) - cy
    if dx == 0 and dy == 0:
        return cell
    if abs(dx) > 1 or abs(dy) > 1 or not _free(cx + dx, cy + dy, width, height, walkable):
        return cell
    if dx != 0 and dy != 0 and not (_free(cx + dx, cy, width, height, walkable)
                                    or _free(cx, cy + dy, width, height, walkable)):
        return cell
    return (cy + dy) * width + cx + dx


@njit(cache=True, nogil=True)
def move_many(start, end, width, height, walkable, points, nodes):
    """``navcore_move_along_surface`` on a grid: point ``i`` from
    ``start[i]`` toward ``end[i]`` into ``points[i]``, its cell into
    ``nodes[i]``.

    The move walks the segment cell by cell (``raycast``: through a cell
    corner both cells beside it must be walkable, so it never squeezes
    between two blocked cells meeting there). At a blocked side it stops
    in the cell before it (clamped into that cell: a point on the far side
    of a cell belongs to the next one) and slides: the move keeps its
    component along the side (axis-aligned) and walks on. A corner hit (a
    blocked cell touched only at its corner) keeps the larger component.
    Each step brings the point no farther from the end. A start on no
    walkable cell begins at the nearest walkable point (``nearest_cell``);
    with none it stays, node ``-1``."""
    visited = np.empty(width + height + 4, dtype=np.int32)
    for i in range(start.shape[0]):
        px, py = start[i, 0], start[i, 1]
        cx, cy = int(np.floor(px)), int(np.floor(py))
        if not _free(cx, cy, width, height, walkable):
            # (a start past MAX_COORDINATE searches from there: its squared
            # distances would overflow to inf, and every cell ties at none)
            c, px, py = nearest_cell(min(max(px, -MAX_COORDINATE), MAX_COORDINATE),
                                     min(max(py, -MAX_COORDINATE), MAX_COORDINATE),
                                     width, height, walkable)
            if c < 0:
                points[i, 0], points[i, 1] = start[i, 0], start[i, 1]
                nodes[i] = -1
                continue
        tx, ty = end[i, 0], end[i, 1]
        cell = int(np.floor(py)) * width + int(np.floor(px))
        for _ in range(MAX_SLIDES):
            if tx == px and ty == py:
                break
            hit, t, nx, ny, count = raycast(px, py, tx, ty, width, height, walkable, visited)
            cell = visited[count - 1]
            if not hit:
                px, py = tx, ty
                break
            qx, qy = px + t * (tx - px), py + t * (ty - py)
            px, py = _into(qx, cell % width), _into(qy, cell // width)
            if nx != 0.0 and ny != 0.0:              # a corner: keep the larger part
                if abs(tx - px) >= abs(ty - py):
                    nx = 0.0                         # (as if a side across y was hit)
                else:
                    ny = 0.0
            if nx != 0.0:
                tx = px                              # a side across x: slide along y
            else:
                ty = py
        cell = _settle(px, py, cell, width, height, walkable)
        px, py = _into(px, cell % width), _into(py, cell // width)
        points[i, 0], points[i, 1] = px, py
        nodes[i] = cell
