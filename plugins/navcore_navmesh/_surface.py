"""numba kernels of the navmesh's crowd queries: its walls as RVO2
obstacle rings (``mesh_walls``), Detour's ``moveAlongSurface`` for many
points (``move_many``; ``move_many_on`` on a layered mesh, from the
polygons given) and Detour's ``findLocalNeighbourhood`` for many points
(``local_neighbourhoods``).

Private: ``surface.py`` validates and calls them."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from navcore.limits import MAX_COORDINATE

from ._locate import edge_ends, inside, nearest_on
from ._meshqueries import raycast
from ._tiles import locate_one, nearest_point

#: walls a move slides along at most (Detour bounds its walk too): each
#: slide ends at the next wall it meets, and brings the point no farther
#: from the end
MAX_SLIDES = 8
#: two wall edges in a row are one straight wall (merged) when the sine of
#: the angle between them is at most this (rounding, not a real bend)
COLLINEAR = 1e-12


@njit(cache=True, nogil=True)
def mesh_walls(vertices, poly_start, poly_verts, poly_adj, poly_next, walkable, merge):
    """``(vertices, ring_start, owner)``: the sides of walkable polygons
    with no walkable polygon across, reversed (the polygons run
    counter-clockwise, so the walkable one is then on the right of each)
    and chained at their shared vertices into closed rings
    (``navcore_walls``); with ``merge``, runs of edges along one straight
    line merged. ``owner[k]``: the polygon whose side the ring's edge
    from vertex ``k`` is (of a merged run, its first polygon's).

    At a vertex where several walls meet (two walkable regions, or two
    solid ones, touching at a point) an edge arriving there goes on with
    the first wall leaving it clockwise from the way back: the one that
    closes the solid sector on its left, so each ring goes round one
    solid corner at a time and rings touch there but never cross."""
    n = poly_start.shape[0] - 1
    nv = vertices.shape[0]
    eu = np.empty(poly_verts.shape[0], dtype=np.int64)    # from (the polygon edge's end) ...
    ev = np.empty(poly_verts.shape[0], dtype=np.int64)    # ... to (its start)
    ep = np.empty(poly_verts.shape[0], dtype=np.int32)    # the polygon whose side it is
    out_start = np.zeros(nv + 1, dtype=np.int64)
    m = 0
    for p in range(n):
        if walkable[p]:
            for e in range(poly_start[p], poly_start[p + 1]):
                q = poly_adj[e]
                if q < 0 or not walkable[q]:
                    eu[m] = poly_verts[poly_next[e]]
                    ev[m] = poly_verts[e]
                    ep[m] = p
                    out_start[eu[m] + 1] += 1
                    m += 1
    for v in range(nv):
        out_start[v + 1] += out_start[v]
    fill = out_start[:-1].copy()
    out_list = np.empty(m, dtype=np.int64)
    for f in range(m):
        out_list[fill[eu[f]]] = f
        fill[eu[f]] += 1
    succ = np.full(m, -1, dtype=np.int64)
    for f in range(m):
        v = ev[f]
        a, b = out_start[v], out_start[v + 1]
        if b - a == 1:
            succ[f] = out_list[a]
        elif b - a > 1:
            rx = vertices[eu[f], 0] - vertices[v, 0]
            ry = vertices[eu[f], 1] - vertices[v, 1]
            best = np.inf
            for k in range(a, b):
                g = out_list[k]
                ox = vertices[ev[g], 0] - vertices[v, 0]
                oy = vertices[ev[g], 1] - vertices[v, 1]
                cw = -math.atan2(rx * oy - ry * ox, rx * ox + ry * oy)
                if cw <= 0.0:
                    cw += 2.0 * math.pi           # the way back itself comes last
                if cw < best:
                    best = cw
                    succ[f] = g
    used = np.zeros(m, dtype=np.bool_)
    ring = np.empty(m, dtype=np.int64)
    ring_edge = np.empty(m, dtype=np.int64)
    verts = np.empty((m, 2), dtype=np.float64)
    owner = np.empty(m, dtype=np.int32)
    ring_start = np.empty(m + 1, dtype=np.int64)
    k = 0
    r = 0
    for f0 in range(m):
        if used[f0]:
            continue
        size = 0
        f = f0
        while f >= 0 and not used[f]:
            used[f] = True
            ring[size] = eu[f]
            ring_edge[size] = f
            size += 1
            f = succ[f]
        begin = k
        for i in range(size):
            v = ring[i]
            a = ring[i - 1] if i > 0 else ring[size - 1]
            b = ring[i + 1] if i + 1 < size else ring[0]
            ax, ay = vertices[v, 0] - vertices[a, 0], vertices[v, 1] - vertices[a, 1]
            bx, by = vertices[b, 0] - vertices[v, 0], vertices[b, 1] - vertices[v, 1]
            cross = ax * by - ay * bx
            if merge and size > 2 and ax * bx + ay * by > 0.0 and \
                    abs(cross) <= COLLINEAR * math.sqrt((ax * ax + ay * ay) * (bx * bx + by * by)):
                continue                              # mid-way along a straight wall
            verts[k, 0], verts[k, 1] = vertices[v, 0], vertices[v, 1]
            owner[k] = ep[ring_edge[i]]
            k += 1
        if k - begin < 2:                              # nothing but a point: no wall
            k = begin
            continue
        ring_start[r] = begin
        r += 1
    ring_start[r] = k
    return verts[:k].copy(), ring_start[:r + 1].copy(), owner[:k].copy()


@njit(cache=True, nogil=True, inline="always")
def _clear_inside(x, y, vertices, poly_start, poly_verts, p, tol):
    """Whether ``(x, y)`` lies in convex polygon ``p`` more than ``tol``
    (in twice the signed area, as ``inside``) from the line of every side;
    a retired slot (an empty polygon) holds nothing."""
    first = poly_start[p]
    last = poly_start[p + 1] - 1
    if last < first:
        return False
    for e in range(first, last + 1):
        ax, ay, bx, by = edge_ends(e, first, last, poly_verts, vertices)
        if (bx - ax) * (y - ay) - (by - ay) * (x - ax) <= tol:
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _slide(px, py, p, ex, ey, vertices, poly_start, poly_verts, poly_adj, poly_opposite,
           walkable, tol, nudge, visited):
    """``(polygon, x, y)``: the walk from ``(px, py)`` in walkable polygon
    ``p`` toward ``(ex, ey)`` across shared sides of walkable polygons
    (``raycast``); at a wall it stops there and slides: the rest of the
    move is the end projected onto the wall's line (``nudge`` off the
    wall, into the polygon), walked the same way, up to ``MAX_SLIDES``
    walls. The answer is the point nearest the end of those reached, in
    (or on the border of) its polygon, never farther from it than the
    start."""
    tx, ty = ex, ey
    best, bx, by = p, px, py
    bd = math.hypot(ex - px, ey - py)
    for _ in range(MAX_SLIDES + 1):
        if tx == px and ty == py:
            break
        hit, t, nx, ny, count = raycast(px, py, tx, ty, p, vertices, poly_start,
                                        poly_verts, poly_adj, poly_opposite, walkable,
                                        visited)
        p = visited[count - 1]
        if not hit:
            px, py = tx, ty
        else:
            # a hair off the wall, into the polygon: the slide then runs
            # beside the wall, not exactly along its line (where the
            # walk's edge tests would be all ties)
            px = px + t * (tx - px) + nudge * nx
            py = py + t * (ty - py) + nudge * ny
        if not inside(px, py, vertices, poly_start, poly_verts, p, tol):
            _, px, py = nearest_on(px, py, vertices, poly_start, poly_verts, p)
        d = math.hypot(ex - px, ey - py)
        if d <= bd:
            best, bx, by, bd = p, px, py, d
        if not hit:
            break
        # along the wall (the normal (nx, ny) points into the polygon):
        # the end's projection on its line
        s = (ex - px) * ny - (ey - py) * nx
        tx, ty = px + s * ny, py - s * nx
    return best, bx, by


@njit(cache=True, nogil=True)
def move_many(start, nodes_in, end, vertices, poly_start, poly_verts, poly_adj, poly_opposite,
              walkable, cell_start, cell_polys, x0, y0, inv, k, ntx, nty, tol, eps, box,
              nudge, points, nodes, visited):
    """``navcore_move_along_surface`` on a 2D navmesh: point ``i`` from
    ``start[i]`` toward ``end[i]`` into ``points[i]``, its polygon into
    ``nodes[i]``.

    The start's polygon is ``nodes_in[i]`` when that is a walkable polygon
    holding the start, else located (the locate index's cells:
    ``_tiles.locate_one``, which a plain index answers as tiles of one
    cell); a start on no walkable polygon moves to the nearest walkable
    point (``box``: the vertices' ``(xmin, ymin, xmax, ymax)``, so that
    the search reaches all of the mesh), or stays with
    node ``-1`` when there is none. The move then walks the segment and
    slides along the walls it meets (``_slide``)."""
    n = poly_start.shape[0] - 1
    for i in range(start.shape[0]):
        px, py = start[i, 0], start[i, 1]
        p = nodes_in[i]
        ex, ey = end[i, 0], end[i, 1]
        held = 0 <= p < n and walkable[p] and \
            inside(px, py, vertices, poly_start, poly_verts, p, tol)
        if held and _clear_inside(ex, ey, vertices, poly_start, poly_verts, p, tol):
            # the end is in the start's convex polygon, clear of every side
            # by more than the locate tolerance: where _slide's walk would
            # end too. Most of a crowd's moves and pushes are such short
            # steps; tested first, outside the walk, 1,000 of them take
            # 52 us instead of 142
            points[i, 0], points[i, 1] = ex, ey
            nodes[i] = p
            continue
        if not held:
            p = locate_one(px, py, vertices, poly_start, poly_verts, walkable, cell_start,
                           cell_polys, x0, y0, inv, k, ntx, nty, tol, eps)
            if p < 0 or not walkable[p]:
                # (a start past MAX_COORDINATE searches from there: its
                # squared distances would overflow to inf)
                px = min(max(px, -MAX_COORDINATE), MAX_COORDINATE)
                py = min(max(py, -MAX_COORDINATE), MAX_COORDINATE)
                away = math.hypot(max(box[0] - px, px - box[2], 0.0),
                                  max(box[1] - py, py - box[3], 0.0))
                reach = away + math.hypot(box[2] - box[0], box[3] - box[1]) + 1.0
                p, px, py = nearest_point(px, py, reach, vertices, poly_start, poly_verts,
                                          walkable, cell_start, cell_polys, x0, y0, inv, k,
                                          ntx, nty)
                if p < 0:
                    points[i, 0], points[i, 1] = start[i, 0], start[i, 1]
                    nodes[i] = -1
                    continue
        p, px, py = _slide(px, py, p, ex, ey, vertices, poly_start, poly_verts, poly_adj,
                           poly_opposite, walkable, tol, nudge, visited)
        points[i, 0], points[i, 1] = px, py
        nodes[i] = p


@njit(cache=True, nogil=True)
def move_many_on(start, nodes_in, end, vertices, poly_start, poly_verts, poly_adj,
                 poly_opposite, walkable, tol, nudge, points, nodes, visited):
    """``navcore_move_along_surface`` on a layered mesh, whose storeys
    overlap in the ground plane (so a ground point alone does not say
    which polygon it is on): point ``i`` walks and slides (``_slide``)
    from ``start[i]`` on polygon ``nodes_in[i]`` (a start a hair off it,
    rounded, is taken at its nearest point) toward ``end[i]``, over the
    polygons' shared sides only, so it stays on its own storey or goes
    where a ramp or stairs lead. A start on no walkable polygon (``-1``,
    a blocked one) stays, its node ``-1``."""
    n = poly_start.shape[0] - 1
    for i in range(start.shape[0]):
        px, py = start[i, 0], start[i, 1]
        p = nodes_in[i]
        if p < 0 or p >= n or not walkable[p]:
            points[i, 0], points[i, 1] = px, py
            nodes[i] = -1
            continue
        ex, ey = end[i, 0], end[i, 1]
        if inside(px, py, vertices, poly_start, poly_verts, p, tol):
            if _clear_inside(ex, ey, vertices, poly_start, poly_verts, p, tol):
                points[i, 0], points[i, 1] = ex, ey     # within the polygon (as move_many)
                nodes[i] = p
                continue
        else:
            _, px, py = nearest_on(px, py, vertices, poly_start, poly_verts, p)
        p, px, py = _slide(px, py, p, ex, ey, vertices, poly_start, poly_verts, poly_adj,
                           poly_opposite, walkable, tol, nudge, visited)
        points[i, 0], points[i, 1] = px, py
        nodes[i] = p


@njit(cache=True, nogil=True)
def _overlap(vertices, poly_start, poly_verts, p, q):
    """Whether convex polygons ``p`` and ``q`` overlap in the ground plane
    by more than a touch (no side of either separates them: the
    separating axis test, Detour's ``dtOverlapPolyPoly2D``)."""
    for a, b in ((p, q), (q, p)):
        first, last = poly_start[a], poly_start[a + 1] - 1
        for e in range(first, last + 1):
            u = poly_verts[e]
            v = poly_verts[e + 1] if e < last else poly_verts[first]
            nx = vertices[v, 1] - vertices[u, 1]
            ny = vertices[u, 0] - vertices[v, 0]
            scale = 1e-9 * (abs(nx) + abs(ny)) * (abs(vertices[u, 0]) + abs(vertices[u, 1]) + 1.0)
            lo_a, hi_a = np.inf, -np.inf
            for k in range(first, last + 1):
                w = poly_verts[k]
                d = nx * vertices[w, 0] + ny * vertices[w, 1]
                lo_a, hi_a = min(lo_a, d), max(hi_a, d)
            lo_b, hi_b = np.inf, -np.inf
            for k in range(poly_start[b], poly_start[b + 1]):
                w = poly_verts[k]
                d = nx * vertices[w, 0] + ny * vertices[w, 1]
                lo_b, hi_b = min(lo_b, d), max(hi_b, d)
            if hi_a <= lo_b + scale or hi_b <= lo_a + scale:
                return False
    return True


@njit(cache=True, nogil=True)
def local_neighbourhoods(points, nodes, radius, vertices, poly_start, poly_verts, poly_adj,
                         walkable, tol, cap, out_start, out_nodes, stamp):
    """Detour's ``findLocalNeighbourhood`` for every point: ``nodes[i]``
    (walkable, else the point has none) and then, breadth first, the
    walkable polygons across its sides that come within ``radius[i]`` of
    ``points[i]`` in the ground plane, skipping one that overlaps a
    polygon already taken (not its neighbour across a side: a storey above
    or below, reached round a spiral), at most ``cap`` a point. Point
    ``i``'s are ``out_nodes[out_start[i]:out_start[i + 1]]``; ``stamp``
    (one per polygon and the last generation in its last slot) marks
    those taken. Returns the total."""
    n = poly_start.shape[0] - 1
    gen = stamp[-1]
    k = 0
    for i in range(points.shape[0]):
        out_start[i] = k
        p = nodes[i]
        if p < 0 or p >= n or not walkable[p]:
            continue
        gen += 1
        px, py = points[i, 0], points[i, 1]
        r_sq = radius[i] * radius[i]
        first = k
        out_nodes[k] = p
        stamp[p] = gen
        k += 1
        head = first
        while head < k and k - first < cap:
            cur = out_nodes[head]
            head += 1
            for e in range(poly_start[cur], poly_start[cur + 1]):
                q = poly_adj[e]
                if q < 0 or stamp[q] == gen or not walkable[q]:
                    continue
                stamp[q] = gen
                if not inside(px, py, vertices, poly_start, poly_verts, q, tol) and \
                        nearest_on(px, py, vertices, poly_start, poly_verts, q)[0] > r_sq:
                    continue
                clear = True
                for t in range(first, k):
                    a = out_nodes[t]
                    joined = False
                    for f in range(poly_start[q], poly_start[q + 1]):
                        if poly_adj[f] == a:
                            joined = True
                            break
                    if not joined and _overlap(vertices, poly_start, poly_verts, q, a):
                        clear = False
                        break
                if not clear:
                    continue
                out_nodes[k] = q
                k += 1
                if k - first == cap:
                    break
    out_start[points.shape[0]] = k
    stamp[-1] = gen
    return k
