"""numba kernel of the locate index: which convex polygon holds each point.

Private: ``mesh.py`` validates and calls it."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def edge_ends(e, first, last, poly_verts, vertices):
    """``(ax, ay, bx, by)``: the corners edge ``e`` of a polygon whose
    corners are ``poly_verts[first:last + 1]`` runs between (the last edge
    closes the polygon back to its first corner)."""
    a = poly_verts[e]
    b = poly_verts[e + 1] if e < last else poly_verts[first]
    return vertices[a, 0], vertices[a, 1], vertices[b, 0], vertices[b, 1]


@njit(cache=True, nogil=True, inline="always")
def crossing(e, first, last, adj, walkable, poly_verts, vertices):
    """``(q, ax, ay, bx, by)``: the walkable polygon ``q`` across edge
    ``e`` (``-1`` for a wall or a blocked polygon) and the edge's ends, as
    :func:`edge_ends`."""
    q = adj[e]
    if q >= 0 and not walkable[q]:
        q = -1
    ax, ay, bx, by = edge_ends(e, first, last, poly_verts, vertices)
    return q, ax, ay, bx, by


@njit(cache=True, nogil=True)
def inside(x, y, vertices, poly_start, poly_verts, p, tol):
    """Whether convex polygon ``p`` holds ``(x, y)`` (edges and corners
    included, within ``tol`` of twice the signed area); a retired slot
    (an empty polygon) holds nothing. A point within ``tol`` of an edge's
    line must also lie in the polygon's bounding box (grown by
    ``sqrt(tol)``): the edge tests alone would let a sliver (corners on one
    line, as GEOS makes from rotated collinear walls) hold its whole line.
    Points clear of every edge skip that test."""
    first = poly_start[p]
    last = poly_start[p + 1] - 1
    if last < first:
        return False
    near = False
    for e in range(first, last + 1):
        ax, ay, bx, by = edge_ends(e, first, last, poly_verts, vertices)
        c = (bx - ax) * (y - ay) - (by - ay) * (x - ax)
        if c < -tol:
            return False
        if c <= tol:
            near = True
    if not near:
        return True
    d = np.sqrt(tol)
    lox, loy, hix, hiy = np.inf, np.inf, -np.inf, -np.inf
    for e in range(first, last + 1):
        v = poly_verts[e]
        lox = min(lox, vertices[v, 0])
        hix = max(hix, vertices[v, 0])
        loy = min(loy, vertices[v, 1])
        hiy = max(hiy, vertices[v, 1])
    return lox - d <= x <= hix + d and loy - d <= y <= hiy + d


@njit(cache=True, nogil=True)
def nearest_on(x, y, vertices, poly_start, poly_verts, p):
    """``(d2, qx, qy)``: the point of polygon ``p``'s boundary nearest to
    ``(x, y)`` (a point outside it: the nearest of the polygon) and its
    squared distance; ``inf`` for a retired slot."""
    first = poly_start[p]
    last = poly_start[p + 1] - 1
    best, bx, by = np.inf, x, y
    for e in range(first, last + 1):
        ax, ay, ex, ey = edge_ends(e, first, last, poly_verts, vertices)
        dx, dy = ex - ax, ey - ay
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
def cell_of(x, y, x0, y0, inv, nx, ny, tol):
    """The grid cell of ``(x, y)``, ``-1`` when it lies off the grid's box
    by more than ``sqrt(tol)``. A point a hair outside the box (a point of
    the mesh's border, rounded) belongs to the nearest border cell, as a
    point on the far border belongs to the last one: the edge tests decide.
    NaN and far-off points are turned away before they become integers."""
    fx = (x - x0) * inv
    fy = (y - y0) * inv
    d = np.sqrt(tol) * inv
    if not (-d <= fx <= nx + d and -d <= fy <= ny + d):
        return -1
    cx = min(max(int(np.floor(fx)), 0), nx - 1)
    cy = min(max(int(np.floor(fy)), 0), ny - 1)
    return cy * nx + cx


@njit(cache=True, nogil=True)
def locate_point(x, y, vertices, poly_start, poly_verts, walkable, cell_start, cell_polys,
                 x0, y0, inv, nx, ny, tol):
    """The lowest walkable polygon holding ``(x, y)``, else the lowest
    blocked one (a point on the edge a walkable polygon shares with a
    blocked one is on the walkable mesh), ``-1`` when none holds it. The
    point tests only the polygons of its bucket (lists sorted by id)."""
    c = cell_of(x, y, x0, y0, inv, nx, ny, tol)
    if c < 0:
        return -1
    found = -1
    for j in range(cell_start[c], cell_start[c + 1]):
        p = cell_polys[j]
        if inside(x, y, vertices, poly_start, poly_verts, p, tol):
            if walkable[p]:
                return p
            if found < 0:
                found = p
    return found


@njit(cache=True, nogil=True)
def locate_points(px, py, vertices, poly_start, poly_verts, walkable, cell_start,
                  cell_polys, x0, y0, inv, nx, ny, tol, out):
    """``locate_point`` for every point: ``out[i]`` for ``(px[i], py[i])``."""
    for i in range(px.shape[0]):
        out[i] = locate_point(px[i], py[i], vertices, poly_start, poly_verts, walkable,
                              cell_start, cell_polys, x0, y0, inv, nx, ny, tol)


@njit(cache=True, nogil=True, inline="always")
def nearest_in_cell(x, y, c, cell_start, cell_polys, walkable, vertices, poly_start,
                    poly_verts, best, best_d, bx, by):
    """The walkable polygons of bucket ``c`` against the nearest so far
    (``best`` at squared distance ``best_d``, its point ``(bx, by)``):
    the nearer one, ties to the lower id. Both locate grids scan with it."""
    for j in range(cell_start[c], cell_start[c + 1]):
        p = cell_polys[j]
        if not walkable[p]:
            continue
        d, qx, qy = nearest_on(x, y, vertices, poly_start, poly_verts, p)
        if d < best_d or (d == best_d and best >= 0 and p < best):
            best, best_d, bx, by = p, d, qx, qy
    return best, best_d, bx, by


@njit(cache=True, nogil=True)
def nearest_point(x, y, radius, vertices, poly_start, poly_verts, walkable, cell_start,
                  cell_polys, x0, y0, inv, nx, ny):
    """The walkable polygon nearest to ``(x, y)`` within ``radius`` and
    the nearest point of it: ``(polygon, px, py)``, ``(-1, x, y)`` when
    none is that close. Scans the buckets the radius overlaps; ties go to
    the lower polygon id."""
    best, best_d, bx, by = -1, radius * radius, x, y
    c0x, c1x, c0y, c1y = cells_around(x, y, radius, x0, y0, inv, nx, ny)
    for cy in range(c0y, c1y + 1):
        for cx in range(c0x, c1x + 1):
            best, best_d, bx, by = nearest_in_cell(
                x, y, cy * nx + cx, cell_start, cell_polys, walkable, vertices, poly_start,
                poly_verts, best, best_d, bx, by)
    return best, bx, by


@njit(cache=True, nogil=True)
def locate_pair(ax, ay, bx, by, snap, vertices, poly_start, poly_verts, walkable, cell_start,
                cell_polys, x0, y0, inv, nx, ny, tol):
    """``(s, t)``: the polygons of a query's two ends ``(ax, ay)`` and
    ``(bx, by)`` in one call (``locate_point``), an end no polygon holds
    taken to the nearest walkable one within ``snap`` when ``snap > 0``
    (``nearest_point``), ``-1`` when none is that close."""
    s = locate_point(ax, ay, vertices, poly_start, poly_verts, walkable, cell_start,
                     cell_polys, x0, y0, inv, nx, ny, tol)
    if s < 0 and snap > 0:
        s = nearest_point(ax, ay, snap, vertices, poly_start, poly_verts, walkable,
                          cell_start, cell_polys, x0, y0, inv, nx, ny)[0]
    t = locate_point(bx, by, vertices, poly_start, poly_verts, walkable, cell_start,
                     cell_polys, x0, y0, inv, nx, ny, tol)
    if t < 0 and snap > 0:
        t = nearest_point(bx, by, snap, vertices, poly_start, poly_verts, walkable,
                          cell_start, cell_polys, x0, y0, inv, nx, ny)[0]
    return s, t


@njit(cache=True, nogil=True, inline="always")
def cells_around(x, y, radius, x0, y0, inv, nx, ny):
    """``(c0x, c1x, c0y, c1y)``: the columns and rows (inclusive) of the
    ``nx`` x ``ny`` buckets (side ``1 / inv`` from ``(x0, y0)``) that the
    square of half-side ``radius`` around ``(x, y)`` overlaps."""
    return (max(int(np.floor((x - radius - x0) * inv)), 0),
            min(int(np.floor((x + radius - x0) * inv)), nx - 1),
            max(int(np.floor((y - radius - y0) * inv)), 0),
            min(int(np.floor((y + radius - y0) * inv)), ny - 1))


@njit(cache=True, nogil=True)
def corner_at(x, y, p, vertices, poly_start, poly_verts):
    """The vertex of polygon ``p`` at exactly ``(x, y)``, ``-1`` when
    none is (a query end on a corner may start in every polygon around
    it, across a pinch)."""
    for e in range(poly_start[p], poly_start[p + 1]):
        v = poly_verts[e]
        if vertices[v, 0] == x and vertices[v, 1] == y:
            return v
    return -1
