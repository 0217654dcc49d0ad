"""numba kernels of the tiled navmesh: the flat mesh arrays and the CSR
view assembled from per-slot triangles, and the tile-aligned locate index.

Private: ``tiles.py`` validates and calls them."""
from __future__ import annotations

import numpy as np
from numba import njit

from ._locate import inside, nearest_on


@njit(cache=True, nogil=True)
def assemble(tri, adj3, opp3, ecost, alive, num_vertices):
    """The flat arrays of a mesh whose live slots are triangles.

    ``tri[p]`` holds slot ``p``'s counter-clockwise vertex ids, ``adj3[p, k]``
    the slot across its edge ``k`` (from ``tri[p, k]`` to the next corner;
    ``-1`` a wall), ``opp3[p, k]`` that edge's index in the other slot and
    ``ecost[p, k]`` the cost of the move across it. A dead slot
    (``alive[p]`` false) is an empty polygon. Returns ``(poly_start,
    poly_verts, poly_adj, poly_opposite, poly_next, offsets, targets,
    cost, corner)``: the CSR rows list each slot's neighbours by id."""
    n = tri.shape[0]
    poly_start = np.empty(n + 1, dtype=np.int32)
    poly_start[0] = 0
    live = 0
    m = 0
    for p in range(n):
        if alive[p]:
            live += 1
            for k in range(3):
                if adj3[p, k] >= 0:
                    m += 1
        poly_start[p + 1] = 3 * live
    e_total = 3 * live
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
            row = m
            for k in range(3):
                j = e + k
                a = tri[p, k]
                poly_verts[j] = a
                q = adj3[p, k]
                poly_adj[j] = q
                poly_next[j] = j + 1 if k < 2 else e
                if q >= 0:
                    poly_opp[j] = poly_start[q] + opp3[p, k]
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
                    corner[tri[p, (k + 1) % 3]] = True
        offsets[p + 1] = m
    return poly_start, poly_verts, poly_adj, poly_opp, poly_next, offsets, targets, cost, corner


@njit(cache=True, nogil=True)
def locate_one(x, y, vertices, poly_start, poly_verts, cell_start, cell_polys,
               x0, y0, inv, k, ntx, nty, tol, eps):
    """The lowest polygon id holding ``(x, y)`` (edges and corners
    included, within ``tol``), ``-1`` when none does.

    Cells are ``1 / inv`` wide, ``k`` by ``k`` per tile, numbered tile by
    tile (cell ``(gx, gy)`` is number ``(ty * ntx + tx) * k * k + (gy % k)
    * k + gx % k`` of tile ``(tx, ty) = (gx // k, gy // k)``), and list only
    their own tile's polygons. A point within ``eps`` (in cells) of a tile
    border is looked up on both sides of it, so a point on the border
    finds polygons of either tile."""
    nxc = ntx * k
    nyc = nty * k
    kk = k * k
    fx = (x - x0) * inv
    fy = (y - y0) * inv
    gx = int(np.floor(fx))
    gy = int(np.floor(fy))
    if gx == nxc:             # on the far border of the grid: the last cell
        gx = nxc - 1
    if gy == nyc:
        gy = nyc - 1
    if gx < 0 or gy < 0 or gx >= nxc or gy >= nyc:
        return -1
    xlo = gx - 1 if (gx % k == 0 and gx > 0 and fx - gx <= eps) else gx
    xhi = gx + 1 if (gx % k == k - 1 and gx + 1 < nxc and gx + 1 - fx <= eps) else gx
    ylo = gy - 1 if (gy % k == 0 and gy > 0 and fy - gy <= eps) else gy
    yhi = gy + 1 if (gy % k == k - 1 and gy + 1 < nyc and gy + 1 - fy <= eps) else gy
    best = -1
    for cy in range(ylo, yhi + 1):
        for cx in range(xlo, xhi + 1):
            c = ((cy // k) * ntx + cx // k) * kk + (cy % k) * k + cx % k
            for j in range(cell_start[c], cell_start[c + 1]):
                p = cell_polys[j]
                if best >= 0 and p >= best:
                    break             # lists ascend: nothing lower here
                if inside(x, y, vertices, poly_start, poly_verts, p, tol):
                    best = p
                    break
    return best


@njit(cache=True, nogil=True)
def locate_points(px, py, vertices, poly_start, poly_verts, cell_start, cell_polys,
                  x0, y0, inv, k, ntx, nty, tol, eps, out):
    """``locate_one`` for every point: ``out[i]`` for ``(px[i], py[i])``."""
    for i in range(px.shape[0]):
        out[i] = locate_one(px[i], py[i], vertices, poly_start, poly_verts, cell_start,
                            cell_polys, x0, y0, inv, k, ntx, nty, tol, eps)


@njit(cache=True, nogil=True)
def nearest_point(x, y, radius, vertices, poly_start, poly_verts, walkable, cell_start,
                  cell_polys, x0, y0, inv, k, ntx, nty):
    """``_locate.nearest_point`` over the tiled cells (numbered as in
    ``locate_one``): ``(polygon, px, py)`` of the walkable polygon nearest
    to ``(x, y)`` within ``radius``, ``(-1, x, y)`` when none is."""
    nxc = ntx * k
    nyc = nty * k
    kk = k * k
    best = -1
    best_d = radius * radius
    bx, by = x, y
    c0x = max(int(np.floor((x - radius - x0) * inv)), 0)
    c1x = min(int(np.floor((x + radius - x0) * inv)), nxc - 1)
    c0y = max(int(np.floor((y - radius - y0) * inv)), 0)
    c1y = min(int(np.floor((y + radius - y0) * inv)), nyc - 1)
    for cy in range(c0y, c1y + 1):
        for cx in range(c0x, c1x + 1):
            c = ((cy // k) * ntx + cx // k) * kk + (cy % k) * k + cx % k
            for j in range(cell_start[c], cell_start[c + 1]):
                p = cell_polys[j]
                if not walkable[p]:
                    continue
                d, qx, qy = nearest_on(x, y, vertices, poly_start, poly_verts, p)
                if d < best_d or (d == best_d and best >= 0 and p < best):
                    best, best_d, bx, by = p, d, qx, qy
    return best, bx, by


@njit(cache=True, nogil=True)
def link(tri, adj3, opp3, ecost, cent, slots, ring_slots, dead, num_vertices):
    """Link the edges of the new triangles ``slots`` to each other and to
    the triangles ``ring_slots`` of the untouched tiles around them (in
    place). Edges of ring triangles into ``dead`` (retired) slots become
    walls first; then every new edge and every ring wall is matched by its
    two vertex ids, and a matched pair costs the distance between the
    centroids ``cent``. Returns ``(changed, bad)``: per ring slot whether
    its links changed, and an edge ``(slot, k)`` whose vertex pair more
    than two edges share (a broken mesh), ``(-1, -1)`` if none."""
    k = slots.shape[0]
    m = ring_slots.shape[0]
    changed = np.zeros(m, dtype=np.bool_)
    es = np.empty(3 * (k + m), dtype=np.int64)
    ek = np.empty(3 * (k + m), dtype=np.int64)
    er = np.empty(3 * (k + m), dtype=np.int64)       # ring index, -1: a new edge
    ne = 0
    for i in range(k):
        s = slots[i]
        for c in range(3):
            adj3[s, c] = -1
            opp3[s, c] = -1
            es[ne] = s
            ek[ne] = c
            er[ne] = -1
            ne += 1
    for i in range(m):
        s = ring_slots[i]
        for c in range(3):
            q = adj3[s, c]
            if q >= 0 and dead[q]:
                adj3[s, c] = -1
                opp3[s, c] = -1
                changed[i] = True
            if adj3[s, c] < 0:
                es[ne] = s
                ek[ne] = c
                er[ne] = i
                ne += 1
    keys = np.empty(ne, dtype=np.int64)
    for i in range(ne):
        a = np.int64(tri[es[i], ek[i]])
        b = np.int64(tri[es[i], (ek[i] + 1) % 3])
        keys[i] = min(a, b) * num_vertices + max(a, b)
    order = np.argsort(keys, kind="mergesort")
    bad_s, bad_k = -1, -1
    i = 0
    while i < ne:
        j = i + 1
        while j < ne and keys[order[j]] == keys[order[i]]:
            j += 1
        if j - i == 2:
            x, y = order[i], order[i + 1]
            sx, kx, sy, ky = es[x], ek[x], es[y], ek[y]
            adj3[sx, kx] = sy
            adj3[sy, ky] = sx
            opp3[sx, kx] = ky
            opp3[sy, ky] = kx
            d = np.sqrt((cent[sx, 0] - cent[sy, 0]) ** 2 + (cent[sx, 1] - cent[sy, 1]) ** 2)
            ecost[sx, kx] = d
            ecost[sy, ky] = d
            if er[x] >= 0:
                changed[er[x]] = True
            if er[y] >= 0:
                changed[er[y]] = True
        elif j - i > 2 and bad_s < 0:
            bad_s, bad_k = es[order[i]], ek[order[i]]
        i = j
    return changed, bad_s, bad_k
