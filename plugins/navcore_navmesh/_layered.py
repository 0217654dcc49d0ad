"""numba kernels of layered (3D) navmeshes: the polygon nearest a 3D point
as Detour's ``findNearestPoly`` chooses it, a point's height on a polygon,
and a projected path lifted back onto the polygons it crosses.

Private: ``layered.py`` validates and calls them."""
from __future__ import annotations

import numpy as np
from numba import njit

from ._locate import inside, nearest_on


@njit(cache=True, nogil=True)
def height_on(x, y, vertices, heights, poly_start, poly_verts, p):
    """The height of polygon ``p`` above ``(x, y)``: the polygon taken as
    the fan of triangles from its first corner (what Detour reads when a
    tile has no detail mesh), the point on the fan triangle that holds it,
    or (a point a hair outside every one) on the one it is least outside
    of, with its weights clamped to it."""
    first = poly_start[p]
    last = poly_start[p + 1] - 1
    a = poly_verts[first]
    ax, ay = vertices[a, 0], vertices[a, 1]
    best = -np.inf
    out = heights[a]
    for e in range(first + 1, last):
        b = poly_verts[e]
        c = poly_verts[e + 1]
        bx, by = vertices[b, 0] - ax, vertices[b, 1] - ay
        cx, cy = vertices[c, 0] - ax, vertices[c, 1] - ay
        px, py = x - ax, y - ay
        den = bx * cy - by * cx
        if den == 0.0:
            continue
        u = (px * cy - py * cx) / den          # weight of b
        v = (bx * py - by * px) / den          # weight of c
        w = 1.0 - u - v
        worst = min(u, v, w)
        if worst > best:
            best = worst
            u, v = max(u, 0.0), max(v, 0.0)
            w = max(w, 0.0)
            s = u + v + w
            out = (w * heights[a] + u * heights[b] + v * heights[c]) / s
        if worst >= 0.0:
            break
    return out


@njit(cache=True, nogil=True)
def heights_on(ground, polys, vertices, heights, poly_start, poly_verts, out):
    """``height_on`` of every ground point ``ground[i]`` on its polygon
    ``polys[i]``, into ``out``."""
    for i in range(polys.shape[0]):
        out[i] = height_on(ground[i, 0], ground[i, 1], vertices, heights, poly_start,
                           poly_verts, polys[i])


@njit(cache=True, nogil=True, inline="always")
def distance_to(x, y, z, climb, vertices, heights, poly_start, poly_verts, p, tol):
    """``(d, qx, qy, h)``: polygon ``p``'s point nearest the 3D point
    ``(x, y)`` at height ``z`` and its squared distance, Detour's way: a
    point over the polygon counts only the height beyond ``climb``."""
    if inside(x, y, vertices, poly_start, poly_verts, p, tol):
        h = height_on(x, y, vertices, heights, poly_start, poly_verts, p)
        d = abs(h - z) - climb
        return (d * d if d > 0.0 else 0.0), x, y, h
    d2, qx, qy = nearest_on(x, y, vertices, poly_start, poly_verts, p)
    h = height_on(qx, qy, vertices, heights, poly_start, poly_verts, p)
    return d2 + (h - z) ** 2, qx, qy, h


@njit(cache=True, nogil=True)
def nearest_poly(x, y, z, ex, ey, ez, climb, vertices, heights, poly_start, poly_verts,
                 walkable, lo, hi, cell_start, cell_polys, x0, y0, inv, nx, ny, tol):
    """``(p, px, py, ph)``: Detour's ``findNearestPoly`` of the 3D point
    ``(x, y)`` at height ``z`` with half extents ``(ex, ey, ez)`` (``ez``
    up): among the polygons whose box (``lo``/``hi``, ``(P, 3)``:
    x, y, height) meets the query box, the one whose nearest point is
    nearest, a point over a polygon counting only the height beyond
    ``climb``; ``(-1, x, y, z)`` when none. Ties: the lowest id. The
    candidates come from the locate index's cells under the query box,
    those that ``walkable`` (the candidate mask) lets through."""
    cx0 = max(int(np.floor((x - ex - x0) * inv)), 0)
    cy0 = max(int(np.floor((y - ey - y0) * inv)), 0)
    cx1 = min(int(np.floor((x + ex - x0) * inv)), nx - 1)
    cy1 = min(int(np.floor((y + ey - y0) * inv)), ny - 1)
    best, bp, bx, by, bh = np.inf, -1, x, y, z
    for cy in range(cy0, cy1 + 1):
        for cx in range(cx0, cx1 + 1):
            cell = cy * nx + cx
            for k in range(cell_start[cell], cell_start[cell + 1]):
                p = cell_polys[k]
                if lo[p, 0] > x + ex or hi[p, 0] < x - ex or lo[p, 1] > y + ey \
                        or hi[p, 1] < y - ey or lo[p, 2] > z + ez or hi[p, 2] < z - ez \
                        or not walkable[p]:
                    continue
                d, qx, qy, h = distance_to(x, y, z, climb, vertices, heights, poly_start,
                                           poly_verts, p, tol)
                if d < best or (d == best and p < bp):
                    best, bp, bx, by, bh = d, p, qx, qy, h
    return bp, bx, by, bh


@njit(cache=True, nogil=True)
def lift_path(vertices, heights, poly_start, poly_verts, poly_adj, corridor, points, out,
              out_poly):
    """Write the 3D polyline of the projected path ``points`` (``(k, 2)``)
    through the polygons ``corridor`` (each sharing an edge with the next)
    into ``out`` (``(k + len(corridor), 3)``: x, y, height) and return how
    many rows it wrote: each point at its polygon's height, and between
    them the points where the path crosses from one polygon into the next,
    at the height of the edge crossed there. Crossings at a point already
    written (a corner turned on the edge) are not repeated. ``out_poly``
    receives the polygon each row lies on (a crossing: the one entered)."""
    k = points.shape[0]
    n = 0
    seg = 0                                   # the path's segment being walked
    c = corridor[0]
    out[0, 0], out[0, 1] = points[0, 0], points[0, 1]
    out[0, 2] = height_on(points[0, 0], points[0, 1], vertices, heights, poly_start,
                          poly_verts, c)
    out_poly[0] = c
    n = 1
    for i in range(corridor.shape[0] - 1):
        c = corridor[i]
        nxt = corridor[i + 1]
        first = poly_start[c]
        last = poly_start[c + 1] - 1
        a = -1
        b = -1
        for e in range(first, last + 1):
            if poly_adj[e] == nxt:
                a = poly_verts[e]
                b = poly_verts[e + 1] if e < last else poly_verts[first]
                break
        if a < 0:
            continue
        ax, ay = vertices[a, 0], vertices[a, 1]
        dx, dy = vertices[b, 0] - ax, vertices[b, 1] - ay
        ee = dx * dx + dy * dy
        found = -1
        t_edge = 0.0
        t_seg = 0.0
        for s in range(seg, k - 1):
            px, py = points[s, 0], points[s, 1]
            qx, qy = points[s + 1, 0] - px, points[s + 1, 1] - py
            den = qx * dy - qy * dx
            scale = 1e-9 * (abs(qx) + abs(qy) + 1e-300) * (abs(dx) + abs(dy) + 1e-300)
            if abs(den) <= scale:
                continue                      # parallel: no single crossing
            ts = ((ax - px) * dy - (ay - py) * dx) / den
            te = ((ax - px) * qy - (ay - py) * qx) / den
            if -1e-9 <= ts <= 1.0 + 1e-9 and -1e-9 <= te <= 1.0 + 1e-9:
                found, t_seg, t_edge = s, min(max(ts, 0.0), 1.0), min(max(te, 0.0), 1.0)
                break
        if found < 0 or ee == 0.0:
            continue
        # the corners turned before the crossing, at this polygon's height
        for s in range(seg + 1, found + 1):
            n = _push(out, out_poly, n, points[s, 0], points[s, 1],
                      height_on(points[s, 0], points[s, 1], vertices, heights, poly_start,
                                poly_verts, c), c)
        seg = found
        x = points[found, 0] + t_seg * (points[found + 1, 0] - points[found, 0])
        y = points[found, 1] + t_seg * (points[found + 1, 1] - points[found, 1])
        n = _push(out, out_poly, n, x, y, heights[a] + t_edge * (heights[b] - heights[a]),
                  nxt)
    c = corridor[corridor.shape[0] - 1]
    for s in range(seg + 1, k):
        n = _push(out, out_poly, n, points[s, 0], points[s, 1],
                  height_on(points[s, 0], points[s, 1], vertices, heights, poly_start,
                            poly_verts, c), c)
    return n


@njit(cache=True, nogil=True)
def _push(out, out_poly, n, x, y, h, p):
    """Append ``(x, y, h)`` on polygon ``p`` unless it is where the last
    row already is, rounding aside (a corner on a crossed edge and the
    crossing point differ in the last bits: a segment of 1e-15 would give
    an agent no direction)."""
    if n > 0 and abs(out[n - 1, 0] - x) <= 1e-12 * (abs(x) + 1.0) \
            and abs(out[n - 1, 1] - y) <= 1e-12 * (abs(y) + 1.0):
        return n
    out[n, 0], out[n, 1], out[n, 2] = x, y, h
    out_poly[n] = p
    return n + 1


@njit(cache=True, nogil=True)
def nearest_reachable(x, y, z, start, offsets, targets, cost, walkable, vertices, heights,
                      poly_start, poly_verts, tol):
    """The walkable polygon that ``start`` reaches (over edges of finite
    cost between walkable polygons) whose nearest point is nearest the 3D
    point ``(x, y)`` at height ``z``; ``-1`` when ``start`` is blocked.
    Ties: the lowest id."""
    n = walkable.shape[0]
    if not walkable[start]:
        return -1
    seen = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int64)
    queue[0] = start
    seen[start] = True
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        for k in range(offsets[u], offsets[u + 1]):
            v = targets[k]
            if not seen[v] and walkable[v] and cost[k] < np.inf:
                seen[v] = True
                queue[tail] = v
                tail += 1
    best, bp = np.inf, -1
    for i in range(tail):
        p = queue[i]
        d = distance_to(x, y, z, 0.0, vertices, heights, poly_start, poly_verts, p, tol)[0]
        if d < best or (d == best and p < bp):
            best, bp = d, p
    return bp


@njit(cache=True, nogil=True)
def nearest_polys(ground, up, ex, ey, ez, climb, vertices, heights, poly_start, poly_verts,
                  walkable, lo, hi, cell_start, cell_polys, x0, y0, inv, nx, ny, tol, out,
                  out_xy):
    """``nearest_poly`` of every point ``(ground[i], up[i])``: the polygon
    into ``out``, its nearest ground point into ``out_xy``."""
    for i in range(up.shape[0]):
        out[i], out_xy[i, 0], out_xy[i, 1], _ = nearest_poly(
            ground[i, 0], ground[i, 1], up[i], ex, ey, ez, climb, vertices, heights,
            poly_start, poly_verts, walkable, lo, hi, cell_start, cell_polys, x0, y0, inv,
            nx, ny, tol)


@njit(cache=True, nogil=True)
def user_points(ground_h, surface_h, a, b, u):
    """``(k, 3)`` points in the caller's axes from rows ``(gx, gy, h)`` of
    ``ground_h``: column ``a`` gets gx, ``b`` gy and ``u`` the height,
    which is ``surface_h[i]`` where that is finite (the walkable surface's
    own height) and ``h`` elsewhere or when ``surface_h`` is empty."""
    k = ground_h.shape[0]
    out = np.empty((k, 3))
    given = surface_h.shape[0] == k
    for i in range(k):
        h = ground_h[i, 2]
        if given and np.isfinite(surface_h[i]):
            h = surface_h[i]
        out[i, a] = ground_h[i, 0]
        out[i, b] = ground_h[i, 1]
        out[i, u] = h
    return out
