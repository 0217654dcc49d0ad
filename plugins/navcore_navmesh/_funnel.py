"""numba kernel of the funnel (string pulling) over a polygon corridor.

Private: ``funnel.py`` validates and calls it."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _cross(ax, ay, bx, by, cx, cy):
    """Twice the signed area of (a, b, c): > 0 when c is left of a -> b."""
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@njit(cache=True, nogil=True)
def _beyond(ax, ay, bx, by, cx, cy, side):
    """Whether ``c`` lies strictly on the ``side`` (+1 left, -1 right) of
    ``a -> b``, or on the line through them but behind ``a``. The second
    case is a funnel of exactly 180 degrees (the start on a portal edge):
    there the far side is still open, not crossed."""
    c = _cross(ax, ay, bx, by, cx, cy) * side
    if c > 0.0:
        return True
    return c == 0.0 and (bx - ax) * (cx - ax) + (by - ay) * (cy - ay) < 0.0


#: what a new portal point does to a side of the funnel (``_side_step``)
OUTSIDE, NARROWS, CROSSES = 0, 1, 2


@njit(cache=True, nogil=True, inline="always")
def _side_step(ax, ay, nx, ny, fx, fy, px, py, side):
    """What the new point ``p`` of one side does to the funnel from apex
    ``a`` with that side's point ``n`` and the other side's ``f``
    (``side``: +1 the right side, -1 the left): ``OUTSIDE`` when it lies
    outside the side (no change), ``NARROWS`` when it lies on or inside
    it and not beyond the other side, ``CROSSES`` when it lies beyond the
    other side (whose point is then a corner of the path)."""
    if not side * _cross(ax, ay, nx, ny, px, py) >= 0.0:
        return OUTSIDE
    if (ax == nx and ay == ny) or _beyond(ax, ay, fx, fy, px, py, -side):
        return NARROWS
    return CROSSES


@njit(cache=True, nogil=True)
def string_pull(vertices, poly_start, poly_verts, poly_adj, corridor, sx, sy, gx, gy):
    """The shortest polyline from ``(sx, sy)`` to ``(gx, gy)`` inside the
    corridor of convex polygons ``corridor`` (each sharing an edge with the
    next): the "simple stupid funnel" (Lee & Preparata's funnel with
    restarts). Returns ``(points, k)``: the first ``k`` rows of ``points``
    are the start, the corners turned and the goal; ``k == -1`` when a
    corridor polygon is a retired slot (an empty polygon)."""
    n = corridor.shape[0]
    for i in range(n):
        if poly_start[corridor[i] + 1] <= poly_start[corridor[i]]:
            return np.empty((0, 2)), -1
    # portals: the start, each shared edge (left and right as seen while
    # walking from polygon i into polygon i + 1), the goal
    lx = np.empty(n + 1)
    ly = np.empty(n + 1)
    rx = np.empty(n + 1)
    ry = np.empty(n + 1)
    lx[0], ly[0], rx[0], ry[0] = sx, sy, sx, sy
    for i in range(n - 1):
        p = corridor[i]
        e = poly_start[p]
        while e < poly_start[p + 1] - 1 and poly_adj[e] != corridor[i + 1]:
            e += 1
        # polygons are counter-clockwise, so walking out through edge e
        # its first corner is on the right and its second on the left
        r = poly_verts[e]
        l = poly_verts[e + 1] if e + 1 < poly_start[p + 1] else poly_verts[poly_start[p]]
        lx[i + 1], ly[i + 1] = vertices[l, 0], vertices[l, 1]
        rx[i + 1], ry[i + 1] = vertices[r, 0], vertices[r, 1]
    lx[n], ly[n], rx[n], ry[n] = gx, gy, gx, gy

    out = np.empty((n + 2, 2))
    out[0, 0], out[0, 1] = sx, sy
    k = 1
    ax, ay = sx, sy                      # apex
    fl_x, fl_y, fr_x, fr_y = sx, sy, sx, sy
    apex_i = 0
    left_i = 0
    right_i = 0
    i = 1
    while i <= n:
        # the right side, then the left side: each with its new point, the
        # right side first (the left's test sees the narrowed right side)
        step = _side_step(ax, ay, fr_x, fr_y, fl_x, fl_y, rx[i], ry[i], 1.0)
        if step == NARROWS:
            fr_x, fr_y, right_i = rx[i], ry[i], i
        if step == CROSSES:             # the left point is a corner
            ax, ay, apex_i = fl_x, fl_y, left_i
        else:
            step = _side_step(ax, ay, fl_x, fl_y, fr_x, fr_y, lx[i], ly[i], -1.0)
            if step == NARROWS:
                fl_x, fl_y, left_i = lx[i], ly[i], i
            elif step == CROSSES:       # the right point is a corner
                ax, ay, apex_i = fr_x, fr_y, right_i
        if step == CROSSES:             # the funnel restarts at the corner
            if out[k - 1, 0] != ax or out[k - 1, 1] != ay:
                out[k, 0], out[k, 1] = ax, ay
                k += 1
            fl_x, fl_y, fr_x, fr_y = ax, ay, ax, ay
            left_i = right_i = apex_i
            i = apex_i + 1
        else:
            i += 1
    if out[k - 1, 0] != gx or out[k - 1, 1] != gy or k == 1:
        out[k, 0], out[k, 1] = gx, gy
        k += 1
    return out, k


@njit(cache=True, nogil=True)
def polyline_length(points, k):
    total = 0.0
    for i in range(1, k):
        total += np.sqrt((points[i, 0] - points[i - 1, 0]) ** 2
                         + (points[i, 1] - points[i - 1, 1]) ** 2)
    return total
