"""numba kernel of the locate index: which convex polygon holds each point.

Private: ``mesh.py`` validates and calls it."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def inside(x, y, vertices, poly_start, poly_verts, p, tol):
    """Whether convex polygon ``p`` holds ``(x, y)`` (edges and corners
    included, within ``tol`` of twice the signed area); a retired slot
    (an empty polygon) holds nothing."""
    first = poly_start[p]
    last = poly_start[p + 1] - 1
    if last < first:
        return False
    for e in range(first, last + 1):
        a = poly_verts[e]
        b = poly_verts[e + 1] if e < last else poly_verts[first]
        ax, ay = vertices[a, 0], vertices[a, 1]
        if (vertices[b, 0] - ax) * (y - ay) - (vertices[b, 1] - ay) * (x - ax) < -tol:
            return False
    return True


@njit(cache=True, nogil=True)
def nearest_on(x, y, vertices, poly_start, poly_verts, p):
    """``(d2, qx, qy)``: the point of polygon ``p``'s boundary nearest to
    ``(x, y)`` (a point outside it: the nearest of the polygon) and its
    squared distance; ``inf`` for a retired slot."""
    first = poly_start[p]
    last = poly_start[p + 1] - 1
    best, bx, by = np.inf, x, y
    for e in range(first, last + 1):
        a = poly_verts[e]
        b = poly_verts[e + 1] if e < last else poly_verts[first]
        ax, ay = vertices[a, 0], vertices[a, 1]
        dx, dy = vertices[b, 0] - ax, vertices[b, 1] - ay
        dd = dx * dx + dy * dy
        t = 0.0
        if dd > 0.0:
            t = min(max(((x - ax) * dx + (y - ay) * dy) / dd, 0.0), 1.0)
        qx, qy = ax + t * dx, ay + t * dy
        d = (qx - x) ** 2 + (qy - y) ** 2
        if d < best:
            best, bx, by = d, qx, qy
    return best, bx, by


@njit(cache=True, nogil=True)
def locate_point(x, y, vertices, poly_start, poly_verts, cell_start, cell_polys,
                 x0, y0, inv, nx, ny, tol):
    """The lowest polygon id holding ``(x, y)``, ``-1`` when none does.
    The point tests only the polygons of its bucket."""
    cx = int(np.floor((x - x0) * inv))
    cy = int(np.floor((y - y0) * inv))
    # a point on the far border of the grid belongs to the last cell
    if cx == nx:
        cx = nx - 1
    if cy == ny:
        cy = ny - 1
    if cx < 0 or cy < 0 or cx >= nx or cy >= ny:
        return -1
    c = cy * nx + cx
    for j in range(cell_start[c], cell_start[c + 1]):
        p = cell_polys[j]
        if inside(x, y, vertices, poly_start, poly_verts, p, tol):
            return p            # cell lists are sorted by id: the first wins
    return -1


@njit(cache=True, nogil=True)
def locate_points(px, py, vertices, poly_start, poly_verts, cell_start, cell_polys,
                  x0, y0, inv, nx, ny, tol, out):
    """``locate_point`` for every point: ``out[i]`` for ``(px[i], py[i])``."""
    for i in range(px.shape[0]):
        out[i] = locate_point(px[i], py[i], vertices, poly_start, poly_verts, cell_start,
                              cell_polys, x0, y0, inv, nx, ny, tol)


@njit(cache=True, nogil=True)
def nearest_point(x, y, radius, vertices, poly_start, poly_verts, walkable, cell_start,
                  cell_polys, x0, y0, inv, nx, ny):
    """The walkable polygon nearest to ``(x, y)`` within ``radius`` and
    the nearest point of it: ``(polygon, px, py)``, ``(-1, x, y)`` when
    none is that close. Scans the buckets the radius overlaps; ties go to
    the lower polygon id."""
    best = -1
    best_d = radius * radius
    bx, by = x, y
    c0x = max(int(np.floor((x - radius - x0) * inv)), 0)
    c1x = min(int(np.floor((x + radius - x0) * inv)), nx - 1)
    c0y = max(int(np.floor((y - radius - y0) * inv)), 0)
    c1y = min(int(np.floor((y + radius - y0) * inv)), ny - 1)
    for cy in range(c0y, c1y + 1):
        for cx in range(c0x, c1x + 1):
            c = cy * nx + cx
            for j in range(cell_start[c], cell_start[c + 1]):
                p = cell_polys[j]
                if not walkable[p]:
                    continue
                d, qx, qy = nearest_on(x, y, vertices, poly_start, poly_verts, p)
                if d < best_d or (d == best_d and best >= 0 and p < best):
                    best, best_d, bx, by = p, d, qx, qy
    return best, bx, by
