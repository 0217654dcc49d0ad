"""numba kernels of the navmesh's point queries: a ray walked across the
polygons (Detour's ``raycast``) and a point drawn uniformly in a polygon
chosen by area (Detour's ``findRandomPoint``).

Private: ``meshqueries.py`` validates and calls them."""
from __future__ import annotations

import numpy as np
from numba import njit

from ._locate import edge_ends


@njit(cache=True, nogil=True)
def raycast(sx, sy, ex, ey, start, vertices, poly_start, poly_verts, poly_adj,
            poly_opposite, walkable, visited):
    """Walk the segment ``(sx, sy) -> (ex, ey)`` from polygon ``start``
    (which holds the start) across shared edges, as ``dtNavMeshQuery::raycast``:
    in each polygon the edge the segment leaves by (Cyrus-Beck on the
    convex polygon, the edge entered by left out) either leads to a
    walkable polygon, entered next, or is a wall. Returns ``(hit, t, nx,
    ny, count)``: ``t`` the fraction of the segment where the wall is met
    (``inf`` when the segment ends inside the mesh), ``(nx, ny)`` the
    wall's unit normal pointing into the polygon left, ``count`` the
    polygons written to ``visited`` (crossed, in order; the last one holds
    the ray's end point). A ray leaving through a corner prefers an edge
    with a walkable polygon across (the wall is further on, if any)."""
    dx, dy = ex - sx, ey - sy
    cur = start
    entered = -1                       # the edge of ``cur`` the ray came in by
    count = 0
    n_max = visited.shape[0]
    scale = abs(dx) + abs(dy)
    while True:
        visited[count] = cur
        count += 1
        first = poly_start[cur]
        last = poly_start[cur + 1] - 1
        tmax = np.inf
        seg = -1
        swx, swy = 0.0, 0.0                # the side of edge ``seg``
        for e in range(first, last + 1):
            if e == entered:
                continue
            ax, ay, bx, by = edge_ends(e, first, last, poly_verts, vertices)
            wx, wy = bx - ax, by - ay
            # leaving across the (counter-clockwise) edge: the direction
            # points to its right
            d = dx * wy - dy * wx
            if d <= 1e-12 * scale * (abs(wx) + abs(wy)):
                continue                      # entering, or parallel to it
            t = ((ax - sx) * wy - (ay - sy) * wx) / d
            if seg < 0 or t < tmax - 1e-12:
                tmax, seg = t, e
            elif t <= tmax + 1e-12:
                # a tie: edges on one line (a polygon with a corner of 180
                # degrees: the ray meets their line at one t, but leaves
                # across one edge only), or the ray leaves through a
                # corner, where the edge that leads on wins
                here = _spans(sx + t * dx, sy + t * dy, ax, ay, wx, wy)
                there = _spans(sx + tmax * dx, sy + tmax * dy, vertices[poly_verts[seg], 0],
                               vertices[poly_verts[seg], 1], swx, swy)
                nb = poly_adj[seg]
                if (here and not there) or (here == there and (nb < 0 or not walkable[nb])):
                    tmax, seg = min(t, tmax), e
            if seg == e:
                swx, swy = wx, wy
        if seg < 0 or tmax >= 1.0:
            return False, np.inf, 0.0, 0.0, count
        nb = poly_adj[seg]
        if nb < 0 or not walkable[nb] or count >= n_max:
            a = poly_verts[seg]
            b = poly_verts[seg + 1] if seg < last else poly_verts[first]
            wx, wy = vertices[b, 0] - vertices[a, 0], vertices[b, 1] - vertices[a, 1]
            length = np.sqrt(wx * wx + wy * wy)
            return True, max(tmax, 0.0), -wy / length, wx / length, count
        entered = poly_opposite[seg]
        cur = nb


@njit(cache=True, nogil=True, inline="always")
def _spans(px, py, ax, ay, wx, wy):
    """Whether ``(px, py)``, a point on the line of the edge from ``(ax,
    ay)`` along ``(wx, wy)``, lies on the edge (within rounding)."""
    u = ((px - ax) * wx + (py - ay) * wy) / (wx * wx + wy * wy)
    return -1e-9 <= u <= 1.0 + 1e-9


@njit(cache=True, nogil=True)
def random_point(cumulative, vertices, poly_start, poly_verts, u):
    """``(p, x, y)``: polygon ``p`` chosen with probability proportional to
    its share of ``cumulative`` (running sum of the polygons' areas, 0 for
    those not to choose) with ``u[0]``, then a uniform point in it
    (``dtRandomPointInConvexPoly``: a triangle of its fan by area with
    ``u[1]``, uniform in the triangle with ``u[2]``, ``u[3]``)."""
    total = cumulative[cumulative.shape[0] - 1]
    p = np.searchsorted(cumulative, u[0] * total, side="right")
    p = min(p, cumulative.shape[0] - 1)
    first = poly_start[p]
    last = poly_start[p + 1] - 1
    a = poly_verts[first]
    ax, ay = vertices[a, 0], vertices[a, 1]
    area = 0.0
    for e in range(first + 1, last):
        area += _fan_area(vertices, ax, ay, poly_verts[e], poly_verts[e + 1])
    goal = u[1] * area
    acc = 0.0
    tri = last - 1
    for e in range(first + 1, last):
        acc += _fan_area(vertices, ax, ay, poly_verts[e], poly_verts[e + 1])
        if goal < acc:
            tri = e
            break
    b, c = poly_verts[tri], poly_verts[tri + 1]
    r = np.sqrt(u[2])
    wa = 1.0 - r
    wb = r * (1.0 - u[3])
    wc = r * u[3]
    x = wa * ax + wb * vertices[b, 0] + wc * vertices[c, 0]
    y = wa * ay + wb * vertices[b, 1] + wc * vertices[c, 1]
    return p, x, y


@njit(cache=True, nogil=True, inline="always")
def _fan_area(vertices, ax, ay, b, c):
    """Twice the area of the triangle ``(ax, ay)``, vertex ``b``, vertex ``c``."""
    return abs((vertices[b, 0] - ax) * (vertices[c, 1] - ay)
               - (vertices[c, 0] - ax) * (vertices[b, 1] - ay))


@njit(cache=True, nogil=True)
def _distance_to_polygon(cx, cy, vertices, poly_start, poly_verts, p):
    """Ground distance from ``(cx, cy)`` to polygon ``p`` (0 inside it; the
    polygon's corners run counter-clockwise)."""
    first = poly_start[p]
    last = poly_start[p + 1] - 1
    inside = True
    best = np.inf
    for e in range(first, last + 1):
        ax, ay, bx, by = edge_ends(e, first, last, poly_verts, vertices)
        wx, wy = bx - ax, by - ay
        px, py = cx - ax, cy - ay
        if wx * py - wy * px < 0.0:
            inside = False
        length2 = wx * wx + wy * wy
        t = 0.0 if length2 <= 0.0 else min(max((px * wx + py * wy) / length2, 0.0), 1.0)
        qx, qy = px - t * wx, py - t * wy
        best = min(best, np.sqrt(qx * qx + qy * qy))
    return 0.0 if inside else best


@njit(cache=True, nogil=True)
def polygons_in_circle(cx, cy, radius, start, vertices, poly_start, poly_verts, poly_adj,
                       walkable, out):
    """The walkable polygons connected to ``start`` through shared edges
    without leaving the circle of ``radius`` round ``(cx, cy)`` (each
    comes within ``radius`` of the centre: Detour's
    ``findRandomPointAroundCircle`` walk), breadth first into ``out``
    (one slot per polygon, with ``start``); returns how many."""
    n = poly_start.shape[0] - 1
    seen = np.zeros(n, dtype=np.bool_)
    out[0] = start
    seen[start] = True
    count = 1
    head = 0
    while head < count:
        p = out[head]
        head += 1
        for e in range(poly_start[p], poly_start[p + 1]):
            q = poly_adj[e]
            if q < 0 or seen[q] or not walkable[q]:
                continue
            seen[q] = True
            if _distance_to_polygon(cx, cy, vertices, poly_start, poly_verts, q) <= radius:
                out[count] = q
                count += 1
    return count
