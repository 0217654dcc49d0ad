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
        px, py = lx[i], ly[i]
        qx, qy = rx[i], ry[i]
        # the right side: narrow the funnel when the new right point is
        # on or inside it
        if _cross(ax, ay, fr_x, fr_y, qx, qy) >= 0.0:
            if (ax == fr_x and ay == fr_y) or _beyond(ax, ay, fl_x, fl_y, qx, qy, -1.0):
                fr_x, fr_y, right_i = qx, qy, i
            else:
                # it crosses the left side: the left point is a corner
                ax, ay, apex_i = fl_x, fl_y, left_i
                if out[k - 1, 0] != ax or out[k - 1, 1] != ay:
                    out[k, 0], out[k, 1] = ax, ay
                    k += 1
                fl_x, fl_y, fr_x, fr_y = ax, ay, ax, ay
                left_i = right_i = apex_i
                i = apex_i + 1
                continue
        # the left side, mirrored
        if _cross(ax, ay, fl_x, fl_y, px, py) <= 0.0:
            if (ax == fl_x and ay == fl_y) or _beyond(ax, ay, fr_x, fr_y, px, py, 1.0):
                fl_x, fl_y, left_i = px, py, i
            else:
                ax, ay, apex_i = fr_x, fr_y, right_i
                if out[k - 1, 0] != ax or out[k - 1, 1] != ay:
                    out[k, 0], out[k, 1] = ax, ay
                    k += 1
                fl_x, fl_y, fr_x, fr_y = ax, ay, ax, ay
                left_i = right_i = apex_i
                i = apex_i + 1
                continue
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
