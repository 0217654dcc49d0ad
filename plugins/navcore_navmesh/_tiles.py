"""numba kernels of the tiled navmesh: triangles merged into convex
polygons within each tile, the flat mesh arrays and the CSR view
assembled from per-slot polygons, new polygons linked to their
neighbours, and the tile-aligned locate index.

Private: ``tiles.py`` validates and calls them."""
from __future__ import annotations

import numpy as np
from numba import njit

from ._locate import cells_around, inside, nearest_in_cell
from ._merge import merge_loops


@njit(cache=True, nogil=True)
def assemble(poly, nside, adj, opp, ecost, alive, num_vertices):
    """The flat arrays of a mesh whose live slots are convex polygons.

    ``poly[p, :nside[p]]`` holds slot ``p``'s counter-clockwise vertex ids
    (the rest of the row is padding), ``adj[p, k]`` the slot across its
    edge ``k`` (from ``poly[p, k]`` to the next corner; ``-1`` a wall),
    ``opp[p, k]`` that edge's index in the other slot and ``ecost[p, k]``
    the cost of the move across it. A dead slot (``alive[p]`` false) is an
    empty polygon. Returns ``(poly_start, poly_verts, poly_adj,
    poly_opposite, poly_next, offsets, targets, cost, corner)``: the CSR
    rows list each slot's neighbours by id."""
    n = poly.shape[0]
    poly_start = np.empty(n + 1, dtype=np.int32)
    poly_start[0] = 0
    e_total = 0
    m = 0
    for p in range(n):
        if alive[p]:
            e_total += nside[p]
            for k in range(nside[p]):
                if adj[p, k] >= 0:
                    m += 1
        poly_start[p + 1] = e_total
    poly_verts = np.empty(e_total, dtype=np.int32)
    poly_adj = np.empty(e_total, dtype=np.int32)
    poly_opp = np.empty(e_total, dtype=np.int32)
    poly_next = np.empty(e_total, dtype=np.int32)
    offsets = np.empty(n + 1, dtype=np.int64)
    targets = np.empty(m, dtype=np.int32)
    cost = np.empty(m, dtype=np.float64)
    corner = np.zeros(num_vertices, dtype=np.bool_)
    offsets[0] = 0
    m = 0
    for p in range(n):
        if alive[p]:
            e = poly_start[p]
            s = nside[p]
            row = m
            for k in range(s):
                j = e + k
                a = poly[p, k]
                poly_verts[j] = a
                q = adj[p, k]
                poly_adj[j] = q
                poly_next[j] = j + 1 if k < s - 1 else e
                if q >= 0:
                    poly_opp[j] = poly_start[q] + opp[p, k]
                    # insertion into the row: neighbours by ascending id
                    i = m
                    while i > row and targets[i - 1] > q:
                        targets[i] = targets[i - 1]
                        cost[i] = cost[i - 1]
                        i -= 1
                    targets[i] = q
                    cost[i] = ecost[p, k]
                    m += 1
                else:
                    poly_opp[j] = -1
                    corner[a] = True
                    corner[poly[p, (k + 1) % s]] = True
        offsets[p + 1] = m
    return poly_start, poly_verts, poly_adj, poly_opp, poly_next, offsets, targets, cost, corner


@njit(cache=True, nogil=True, inline="always")
def edge_key(a, b, nv):
    """The key of the undirected edge between vertices ``a`` and ``b`` (of
    ``nv``): the same both ways round."""
    a = np.int64(a)
    b = np.int64(b)
    return min(a, b) * nv + max(a, b)


@njit(cache=True, nogil=True)
def twin_pairs(keys):
    """``(twins, bad)``: the pairs ``(x, y)`` of half-edges whose keys
    (``edge_key``) are equal to each other and to no third one's, ordered
    by key (stably), and ``bad``, a half-edge whose key three or more
    share (the first such key), or -1."""
    order = np.argsort(keys, kind="mergesort")
    e = keys.shape[0]
    twins = np.empty((e // 2, 2), dtype=np.int64)
    m = 0
    bad = -1
    i = 0
    while i < e:
        j = i + 1
        while j < e and keys[order[j]] == keys[order[i]]:
            j += 1
        if j - i == 2:
            twins[m, 0], twins[m, 1] = order[i], order[i + 1]
            m += 1
        elif j - i > 2 and bad < 0:
            bad = order[i]
        i = j
    return twins[:m], bad


@njit(cache=True, nogil=True)
def merge_tiles(vertices, tri, owner, max_sides):
    """Merge the counter-clockwise triangles ``tri`` (``(T, 3)`` vertex ids,
    ordered by ``owner``, their tile) into convex polygons of at most
    ``max_sides`` corners (``_merge.merge_loops``, diagonals longest first,
    as ``merge.merge_polygons``), dropping only diagonals between two
    triangles of the same tile: an edge between tiles stays an edge, so
    the vertices and edges tiles match on are kept as they are. Returns
    ``(poly, nside, powner, cent)``: the polygons padded with ``-1`` to
    ``(P, max_sides)``, their corner counts, their tiles (ascending, like
    ``owner``) and area centroids."""
    t = tri.shape[0]
    e = 3 * t
    nv = vertices.shape[0]
    poly_start = np.empty(t + 1, dtype=np.int32)
    poly_verts = np.empty(e, dtype=np.int32)
    keys = np.empty(e, dtype=np.int64)
    for i in range(t):
        poly_start[i] = 3 * i
        for k in range(3):
            poly_verts[3 * i + k] = tri[i, k]
    poly_start[t] = e
    for h in range(e):
        keys[h] = edge_key(poly_verts[h], poly_verts[h - h % 3 + (h % 3 + 1) % 3], nv)
    twins, _ = twin_pairs(keys)
    opposite = np.full(e, -1, dtype=np.int32)
    nd = 0
    for r in range(twins.shape[0]):
        x, y = twins[r, 0], twins[r, 1]
        if owner[x // 3] == owner[y // 3]:
            opposite[x] = y
            opposite[y] = x
            nd += 1
    # each diagonal once (from its lower half-edge), longest first
    diag = np.empty(nd, dtype=np.int64)
    length = np.empty(nd, dtype=np.float64)
    d = 0
    for h in range(e):
        if opposite[h] > h:
            a = poly_verts[h]
            b = poly_verts[opposite[h]]
            diag[d] = h
            length[d] = -np.sqrt((vertices[a, 0] - vertices[b, 0]) ** 2
                                 + (vertices[a, 1] - vertices[b, 1]) ** 2)
            d += 1
    diag = diag[np.argsort(length, kind="mergesort")]
    start, verts, first = merge_loops(vertices, poly_start, poly_verts, opposite, diag,
                                      max_sides)
    p = start.shape[0] - 1
    poly = np.full((p, max_sides), -1, dtype=np.int32)
    nside = np.empty(p, dtype=np.int32)
    powner = np.empty(p, dtype=np.int64)
    cent = np.empty((p, 2), dtype=np.float64)
    for i in range(p):
        a, b = start[i], start[i + 1]
        nside[i] = b - a
        powner[i] = owner[first[i] // 3]
        # area centroid from shoelace terms relative to the first corner
        # (as ``mesh.centroids``)
        ox = vertices[verts[a], 0]
        oy = vertices[verts[a], 1]
        area = 0.0
        cx = 0.0
        cy = 0.0
        for k in range(a, b):
            poly[i, k - a] = verts[k]
            q = verts[k + 1] if k + 1 < b else verts[a]
            px = vertices[verts[k], 0] - ox
            py = vertices[verts[k], 1] - oy
            qx = vertices[q, 0] - ox
            qy = vertices[q, 1] - oy
            cr = px * qy - qx * py
            area += cr
            cx += (px + qx) * cr
            cy += (py + qy) * cr
        cent[i, 0] = cx / (3.0 * area) + ox
        cent[i, 1] = cy / (3.0 * area) + oy
    return poly, nside, powner, cent


@njit(cache=True, nogil=True)
def locate_one(x, y, vertices, poly_start, poly_verts, walkable, cell_start, cell_polys,
               x0, y0, inv, k, ntx, nty, tol, eps):
    """The lowest walkable polygon holding ``(x, y)`` (edges and corners
    included, within ``tol``), else the lowest blocked one, ``-1`` when
    none does (as ``_locate.locate_point``).

    Cells are ``1 / inv`` wide, ``k`` by ``k`` per tile, numbered tile by
    tile (cell ``(gx, gy)`` is number ``(ty * ntx + tx) * k * k + (gy % k)
    * k + gx % k`` of tile ``(tx, ty) = (gx // k, gy // k)``), and list only
    their own tile's polygons. A point within ``eps`` (in cells) of a tile
    border is looked up on both sides of it, so a point on the border
    finds polygons of either tile; one a hair outside the grid's box (a
    border point, rounded) goes to the nearest border cell."""
    nxc = ntx * k
    nyc = nty * k
    kk = k * k
    fx = (x - x0) * inv
    fy = (y - y0) * inv
    d = np.sqrt(tol) * inv
    if not (-d <= fx <= nxc + d and -d <= fy <= nyc + d):
        return -1                 # off the grid (NaN too): before int()
    gx = min(max(int(np.floor(fx)), 0), nxc - 1)
    gy = min(max(int(np.floor(fy)), 0), nyc - 1)
    xlo = gx - 1 if (gx % k == 0 and gx > 0 and fx - gx <= eps) else gx
    xhi = gx + 1 if (gx % k == k - 1 and gx + 1 < nxc and gx + 1 - fx <= eps) else gx
    ylo = gy - 1 if (gy % k == 0 and gy > 0 and fy - gy <= eps) else gy
    yhi = gy + 1 if (gy % k == k - 1 and gy + 1 < nyc and gy + 1 - fy <= eps) else gy
    best = -1                     # the lowest walkable one
    blocked = -1                  # the lowest blocked one
    for cy in range(ylo, yhi + 1):
        for cx in range(xlo, xhi + 1):
            c = ((cy // k) * ntx + cx // k) * kk + (cy % k) * k + cx % k
            for j in range(cell_start[c], cell_start[c + 1]):
                p = cell_polys[j]
                if best >= 0 and p >= best:
                    break             # lists ascend: nothing lower here
                if inside(x, y, vertices, poly_start, poly_verts, p, tol):
                    if walkable[p]:
                        best = p
                        break
                    if blocked < 0 or p < blocked:
                        blocked = p
    return best if best >= 0 else blocked


@njit(cache=True, nogil=True)
def locate_points(px, py, vertices, poly_start, poly_verts, walkable, cell_start,
                  cell_polys, x0, y0, inv, k, ntx, nty, tol, eps, out):
    """``locate_one`` for every point: ``out[i]`` for ``(px[i], py[i])``."""
    for i in range(px.shape[0]):
        out[i] = locate_one(px[i], py[i], vertices, poly_start, poly_verts, walkable,
                            cell_start, cell_polys, x0, y0, inv, k, ntx, nty, tol, eps)


@njit(cache=True, nogil=True)
def nearest_point(x, y, radius, vertices, poly_start, poly_verts, walkable, cell_start,
                  cell_polys, x0, y0, inv, k, ntx, nty):
    """``_locate.nearest_point`` over the tiled cells (numbered as in
    ``locate_one``): ``(polygon, px, py)`` of the walkable polygon nearest
    to ``(x, y)`` within ``radius``, ``(-1, x, y)`` when none is."""
    kk = k * k
    best, best_d, bx, by = -1, radius * radius, x, y
    c0x, c1x, c0y, c1y = cells_around(x, y, radius, x0, y0, inv, ntx * k, nty * k)
    for cy in range(c0y, c1y + 1):
        for cx in range(c0x, c1x + 1):
            c = ((cy // k) * ntx + cx // k) * kk + (cy % k) * k + cx % k
            best, best_d, bx, by = nearest_in_cell(
                x, y, c, cell_start, cell_polys, walkable, vertices, poly_start, poly_verts,
                best, best_d, bx, by)
    return best, bx, by


@njit(cache=True, nogil=True)
def locate_pair(ax, ay, bx, by, snap, vertices, poly_start, poly_verts, walkable, cell_start,
                cell_polys, x0, y0, inv, k, ntx, nty, tol, eps):
    """``(s, t)``: the polygons of a query's two ends ``(ax, ay)`` and
    ``(bx, by)`` in one call (``locate_one``), an end no polygon holds
    taken to the nearest walkable one within ``snap`` when ``snap > 0``
    (``nearest_point``), ``-1`` when none is that close."""
    s = locate_one(ax, ay, vertices, poly_start, poly_verts, walkable, cell_start, cell_polys,
                   x0, y0, inv, k, ntx, nty, tol, eps)
    if s < 0 and snap > 0:
        s = nearest_point(ax, ay, snap, vertices, poly_start, poly_verts, walkable,
                          cell_start, cell_polys, x0, y0, inv, k, ntx, nty)[0]
    t = locate_one(bx, by, vertices, poly_start, poly_verts, walkable, cell_start, cell_polys,
                   x0, y0, inv, k, ntx, nty, tol, eps)
    if t < 0 and snap > 0:
        t = nearest_point(bx, by, snap, vertices, poly_start, poly_verts, walkable,
                          cell_start, cell_polys, x0, y0, inv, k, ntx, nty)[0]
    return s, t


@njit(cache=True, nogil=True)
def link(poly, nside, adj, opp, ecost, cent, slots, ring_slots, dead, num_vertices):
    """Link the edges of the new polygons ``slots`` to each other and to
    the polygons ``ring_slots`` of the untouched tiles around them (in
    place; slots as in ``assemble``). Edges of ring polygons into ``dead``
    (retired) slots become walls first; then every new edge and every ring
    wall is matched by its two vertex ids, and a matched pair costs the
    distance between the centroids ``cent``. Returns ``(changed, bad_s,
    bad_k)``: per ring slot whether its links changed, and an edge ``(slot,
    k)`` whose vertex pair more than two edges share (a broken mesh),
    ``(-1, -1)`` if none."""
    k = slots.shape[0]
    m = ring_slots.shape[0]
    changed = np.zeros(m, dtype=np.bool_)
    total = 0
    for i in range(k):
        total += nside[slots[i]]
    for i in range(m):
        total += nside[ring_slots[i]]
    es = np.empty(total, dtype=np.int64)
    ek = np.empty(total, dtype=np.int64)
    er = np.empty(total, dtype=np.int64)       # ring index, -1: a new edge
    ne = 0
    for i in range(k):
        s = slots[i]
        for c in range(nside[s]):
            adj[s, c] = -1
            opp[s, c] = -1
            es[ne] = s
            ek[ne] = c
            er[ne] = -1
            ne += 1
    for i in range(m):
        s = ring_slots[i]
        for c in range(nside[s]):
            q = adj[s, c]
            if q >= 0 and dead[q]:
                adj[s, c] = -1
                opp[s, c] = -1
                changed[i] = True
            if adj[s, c] < 0:
                es[ne] = s
                ek[ne] = c
                er[ne] = i
                ne += 1
    keys = np.empty(ne, dtype=np.int64)
    for i in range(ne):
        s = es[i]
        keys[i] = edge_key(poly[s, ek[i]], poly[s, (ek[i] + 1) % nside[s]], num_vertices)
    twins, bad = twin_pairs(keys)
    for r in range(twins.shape[0]):
        x, y = twins[r, 0], twins[r, 1]
        sx, kx, sy, ky = es[x], ek[x], es[y], ek[y]
        adj[sx, kx] = sy
        adj[sy, ky] = sx
        opp[sx, kx] = ky
        opp[sy, ky] = kx
        d = np.sqrt((cent[sx, 0] - cent[sy, 0]) ** 2 + (cent[sx, 1] - cent[sy, 1]) ** 2)
        ecost[sx, kx] = d
        ecost[sy, ky] = d
        if er[x] >= 0:
            changed[er[x]] = True
        if er[y] >= 0:
            changed[er[y]] = True
    if bad < 0:
        return changed, -1, -1
    return changed, es[bad], ek[bad]
