"""Kernels of the polygon stage: cut each contour into triangles, merge
them into convex polygons, weld vertices shared by contours, remove the
vertices a tile border left on straight edges, and link neighbours
(Recast's ``rcBuildPolyMesh``). See :mod:`navcore_levels.polymesh`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._contours import BORDER_VERTEX
from ._xz import crosses_properly, in_cone, left, segments_touch

#: Region of a polygon made of pieces of several regions when a vertex is
#: removed (Recast's ``RC_MULTIPLE_REGS``).
MULTIPLE_REGIONS = 0


# ---------------------------------------------------------------- triangulation
#
# A ring is ``idx[:n]``: indices into ``xz`` (m, 2) int64 coordinates.
# ``ear[k]`` says whether the vertex idx[k] can be cut off (the diagonal
# from its predecessor to its successor lies inside the ring).

@njit(cache=True, nogil=True, inline="always")
def _nxt(i, n):
    return i + 1 if i + 1 < n else 0


@njit(cache=True, nogil=True, inline="always")
def _prv(i, n):
    return i - 1 if i >= 1 else n - 1


@njit(cache=True, nogil=True)
def _diagonal_clear(i, j, n, xz, idx, loose):
    """No ring edge away from ring positions ``i`` and ``j`` meets the
    segment between them (``loose``: only proper crossings count)."""
    ax = xz[idx[i], 0]
    az = xz[idx[i], 1]
    bx = xz[idx[j], 0]
    bz = xz[idx[j], 1]
    for k in range(n):
        k1 = _nxt(k, n)
        if k == i or k1 == i or k == j or k1 == j:
            continue
        px = xz[idx[k], 0]
        pz = xz[idx[k], 1]
        qx = xz[idx[k1], 0]
        qz = xz[idx[k1], 1]
        if (ax == px and az == pz) or (bx == px and bz == pz) or \
                (ax == qx and az == qz) or (bx == qx and bz == qz):
            continue
        if loose:
            if crosses_properly(ax, az, bx, bz, px, pz, qx, qz):
                return False
        elif segments_touch(ax, az, bx, bz, px, pz, qx, qz):
            return False
    return True


@njit(cache=True, nogil=True)
def _is_diagonal(i, j, n, xz, idx, loose):
    """The segment between ring positions ``i`` and ``j`` is an inner
    diagonal of the ring."""
    p = idx[i]
    a = idx[_prv(i, n)]
    b = idx[_nxt(i, n)]
    q = idx[j]
    if not in_cone(xz[p, 0], xz[p, 1], xz[a, 0], xz[a, 1], xz[b, 0], xz[b, 1],
                   xz[q, 0], xz[q, 1], loose):
        return False
    return _diagonal_clear(i, j, n, xz, idx, loose)


@njit(cache=True, nogil=True, inline="always")
def _dist2(xz, p, q):
    dx = xz[q, 0] - xz[p, 0]
    dz = xz[q, 1] - xz[p, 1]
    return dx * dx + dz * dz


@njit(cache=True, nogil=True)
def triangulate(n, xz, idx, ear, tris):
    """Ear clipping as Recast does it: always cut the ear whose new
    diagonal is shortest; if no ear is left (overlapping segments after
    simplification), retry with looser cone and crossing tests. Writes
    triangles of ``xz`` indices into ``tris`` (n-2, 3) and returns their
    count, negated when the ring could not be cut completely (the
    triangles found so far are kept)."""
    count = 0
    for i in range(n):
        i1 = _nxt(i, n)
        ear[i1] = _is_diagonal(i, _nxt(i1, n), n, xz, idx, False)
    while n > 3:
        best_len = -1
        best = -1
        for i in range(n):
            i1 = _nxt(i, n)
            if ear[i1]:
                length = _dist2(xz, idx[i], idx[_nxt(i1, n)])
                if best_len < 0 or length < best_len:
                    best_len = length
                    best = i
        if best == -1:
            for i in range(n):
                i1 = _nxt(i, n)
                i2 = _nxt(i1, n)
                if _is_diagonal(i, i2, n, xz, idx, True):
                    # (Recast measures this one to the vertex after i2.)
                    length = _dist2(xz, idx[i], idx[_nxt(i2, n)])
                    if best_len < 0 or length < best_len:
                        best_len = length
                        best = i
            if best == -1:
                return -count
        i = best
        i1 = _nxt(i, n)
        i2 = _nxt(i1, n)
        tris[count, 0] = idx[i]
        tris[count, 1] = idx[i1]
        tris[count, 2] = idx[i2]
        count += 1
        n -= 1
        for k in range(i1, n):
            idx[k] = idx[k + 1]
            ear[k] = ear[k + 1]
        if i1 >= n:
            i1 = 0
        i = _prv(i1, n)
        ear[i] = _is_diagonal(_prv(i, n), i1, n, xz, idx, False)
        ear[i1] = _is_diagonal(i, _nxt(i1, n), n, xz, idx, False)
    tris[count, 0] = idx[0]
    tris[count, 1] = idx[1]
    tris[count, 2] = idx[2]
    return count + 1


# ---------------------------------------------------------------- polygons
#
# A polygon is a row of ``nvp`` vertex ids, -1 after the last.

@njit(cache=True, nogil=True, inline="always")
def _poly_len(p, nvp):
    for i in range(nvp):
        if p[i] < 0:
            return i
    return nvp


@njit(cache=True, nogil=True, inline="always")
def _turns_inward(verts, u, v, w):
    """``w`` lies strictly on the inner side of ``u -> v``."""
    return left(np.int64(verts[u, 0]), np.int64(verts[u, 2]), np.int64(verts[v, 0]),
                np.int64(verts[v, 2]), np.int64(verts[w, 0]), np.int64(verts[w, 2]))


@njit(cache=True, nogil=True)
def _merge_value(polys, pa, pb, verts, nvp):
    """``(value, ea, eb)``: the squared length of the edge polygons
    ``polys[pa]`` and ``polys[pb]`` share (``pa``'s edge ``ea``, ``pb``'s
    ``eb``) if merging them gives a convex polygon of at most ``nvp``
    vertices, else -1."""
    na = _poly_len(polys[pa], nvp)
    nb = _poly_len(polys[pb], nvp)
    if na + nb - 2 > nvp:
        return -1, -1, -1
    ea = -1
    eb = -1
    for i in range(na):
        a0 = polys[pa, i]
        a1 = polys[pa, _nxt(i, na)]
        if a0 > a1:
            a0, a1 = a1, a0
        for j in range(nb):
            b0 = polys[pb, j]
            b1 = polys[pb, _nxt(j, nb)]
            if b0 > b1:
                b0, b1 = b1, b0
            if a0 == b0 and a1 == b1:
                ea = i
                eb = j
                break
    if ea == -1:
        return -1, -1, -1
    # The two corners the merge creates must stay convex.
    if not _turns_inward(verts, polys[pa, _prv(ea, na)], polys[pa, ea],
                         polys[pb, (eb + 2) % nb]):
        return -1, -1, -1
    if not _turns_inward(verts, polys[pb, _prv(eb, nb)], polys[pb, eb],
                         polys[pa, (ea + 2) % na]):
        return -1, -1, -1
    va = polys[pa, ea]
    vb = polys[pa, _nxt(ea, na)]
    dx = np.int64(verts[va, 0]) - verts[vb, 0]
    dz = np.int64(verts[va, 2]) - verts[vb, 2]
    return dx * dx + dz * dz, ea, eb


@njit(cache=True, nogil=True)
def _merge_into(pa, pb, ea, eb, nvp, tmp):
    """Polygon ``pa`` becomes ``pa`` and ``pb`` joined along their shared
    edge (``pa``'s ``ea``, ``pb``'s ``eb``)."""
    na = _poly_len(pa, nvp)
    nb = _poly_len(pb, nvp)
    tmp[:] = -1
    n = 0
    for i in range(na - 1):
        tmp[n] = pa[(ea + 1 + i) % na]
        n += 1
    for i in range(nb - 1):
        tmp[n] = pb[(eb + 1 + i) % nb]
        n += 1
    pa[:] = tmp


@njit(cache=True, nogil=True)
def _best_partner(j, polys, n, verts, nvp, best_value, best_k, best_ea, best_eb):
    """Row ``j`` of the merge table: the polygon ``k > j`` whose merge with
    ``j`` scores highest (the first such ``k``), or value 0 for none."""
    best_value[j] = 0
    best_k[j] = -1
    for k in range(j + 1, n):
        value, ea, eb = _merge_value(polys, j, k, verts, nvp)
        if value > best_value[j]:
            best_value[j] = value
            best_k[j] = k
            best_ea[j] = ea
            best_eb[j] = eb


@njit(cache=True, nogil=True)
def _merge_polygons(polys, n, verts, nvp, regs, areas, tmp):
    """Merge polygons ``polys[:n]`` pairwise, always the pair with the
    longest shared edge (the first such pair ``j < k`` in row order, as
    Recast picks it), while the result stays convex and within ``nvp``
    vertices. ``regs``/``areas`` (or empty arrays) follow the rows: a
    merged pair of two regions gets ``MULTIPLE_REGIONS``. Returns the new
    count.

    Each row ``j`` keeps its best partner ``k > j``; a merge changes rows
    ``a`` and ``b`` (``b`` takes the last polygon), so only those rows, and
    rows whose best partner was one of them, are scored again; the others
    just weigh the two changed polygons against their best."""
    track = regs.shape[0] > 0
    best_value = np.zeros(n, np.int64)
    best_k = np.full(n, -1, np.int64)
    best_ea = np.zeros(n, np.int64)
    best_eb = np.zeros(n, np.int64)
    for j in range(n - 1):
        _best_partner(j, polys, n, verts, nvp, best_value, best_k, best_ea, best_eb)
    while True:
        best = 0
        a = -1
        for j in range(n - 1):
            if best_value[j] > best:
                best = best_value[j]
                a = j
        if a == -1:
            return n
        b = best_k[a]
        _merge_into(polys[a], polys[b], best_ea[a], best_eb[a], nvp, tmp)
        if track and regs[a] != regs[b]:
            regs[a] = MULTIPLE_REGIONS
        last = n - 1
        if b != last:
            polys[b, :] = polys[last, :]
        if track:
            regs[b] = regs[last]
            areas[b] = areas[last]
        n -= 1
        for j in range(n - 1):
            if j == a or j == b or best_k[j] == a or best_k[j] == b or best_k[j] == last:
                _best_partner(j, polys, n, verts, nvp, best_value, best_k, best_ea, best_eb)
                continue
            for col in (a, b):
                if col <= j or col >= n:
                    continue
                value, ea, eb = _merge_value(polys, j, col, verts, nvp)
                if value > best_value[j] or (value == best_value[j] and value > 0
                                             and col < best_k[j]):
                    best_value[j] = value
                    best_k[j] = col
                    best_ea[j] = ea
                    best_eb[j] = eb
        if n - 1 >= 0:
            best_value[n - 1] = 0          # the last row has no partner after it
            best_k[n - 1] = -1


# ---------------------------------------------------------------- vertex welding

@njit(cache=True, nogil=True)
def _add_vertex(x, y, z, verts, n_verts, first, chain):
    """Index of a vertex at ``(x, z)`` within 2 cell heights of ``y``
    (the most recent such), adding one if there is none; returns
    ``(index, new count)``."""
    mask = first.shape[0] - 1
    # (x, z < 2**24: the products fit an int64 and only their low bits are kept)
    bucket = (np.int64(x) * 0x8DA6B343 + np.int64(z) * 0xCB1AB31F) & mask
    i = first[bucket]
    while i != -1:
        if verts[i, 0] == x and abs(verts[i, 1] - y) <= 2 and verts[i, 2] == z:
            return i, n_verts
        i = chain[i]
    i = n_verts
    verts[i, 0] = x
    verts[i, 1] = y
    verts[i, 2] = z
    chain[i] = first[bucket]
    first[bucket] = i
    return i, n_verts + 1


# ---------------------------------------------------------------- vertex removal

@njit(cache=True, nogil=True)
def _can_remove(polys, n_polys, nvp, rem):
    """Whether removing vertex ``rem`` leaves a hole that can be
    re-triangulated: the polygons around it keep at least three edges and
    form one fan (at most two open edges at ``rem``)."""
    touched = 0
    remaining = 0
    for i in range(n_polys):
        nv = _poly_len(polys[i], nvp)
        removed = 0
        for j in range(nv):
            if polys[i, j] == rem:
                touched += 1
                removed += 1
        if removed:
            remaining += nv - (removed + 1)
    if remaining <= 2:
        return False
    other = np.empty(touched * 2, np.int64)
    shared = np.empty(touched * 2, np.int64)
    n_edges = 0
    for i in range(n_polys):
        nv = _poly_len(polys[i], nvp)
        k = nv - 1
        for j in range(nv):
            a = polys[i, j]
            b = polys[i, k]
            if a == rem or b == rem:
                if b == rem:
                    a, b = b, a
                exists = False
                for m in range(n_edges):
                    if other[m] == b:
                        shared[m] += 1
                        exists = True
                if not exists:
                    other[n_edges] = b
                    shared[n_edges] = 1
                    n_edges += 1
            k = j
    open_edges = 0
    for m in range(n_edges):
        if shared[m] < 2:
            open_edges += 1
    return open_edges <= 2


@njit(cache=True, nogil=True)
def _remove_vertex(verts, n_verts, polys, n_polys, regs, areas, nvp, rem, max_polys):
    """Delete vertex ``rem`` and the polygons around it, then fill the hole
    they leave with new convex polygons. Returns ``(n_verts, n_polys)``."""
    count = 0
    for i in range(n_polys):
        nv = _poly_len(polys[i], nvp)
        for j in range(nv):
            if polys[i, j] == rem:
                count += 1
    cap = count * nvp
    edges = np.empty((cap, 4), np.int64)       # from, to, region, area
    n_edges = 0
    i = 0
    while i < n_polys:
        nv = _poly_len(polys[i], nvp)
        has = False
        for j in range(nv):
            if polys[i, j] == rem:
                has = True
        if has:
            k = nv - 1
            for j in range(nv):
                if polys[i, j] != rem and polys[i, k] != rem:
                    edges[n_edges, 0] = polys[i, k]
                    edges[n_edges, 1] = polys[i, j]
                    edges[n_edges, 2] = regs[i]
                    edges[n_edges, 3] = areas[i]
                    n_edges += 1
                k = j
            last = n_polys - 1
            polys[i, :] = polys[last, :]
            regs[i] = regs[last]
            areas[i] = areas[last]
            polys[last, :] = -1
            n_polys -= 1
        else:
            i += 1
    for v in range(rem, n_verts - 1):
        verts[v, 0] = verts[v + 1, 0]
        verts[v, 1] = verts[v + 1, 1]
        verts[v, 2] = verts[v + 1, 2]
    n_verts -= 1
    for p in range(n_polys):
        for j in range(nvp):
            if polys[p, j] > rem:
                polys[p, j] -= 1
    for e in range(n_edges):
        if edges[e, 0] > rem:
            edges[e, 0] -= 1
        if edges[e, 1] > rem:
            edges[e, 1] -= 1
    if n_edges == 0:
        return n_verts, n_polys

    # Chain the edges into the hole's boundary, growing it at both ends.
    size = cap + 1
    hole = np.empty(2 * size, np.int64)
    hreg = np.empty(2 * size, np.int64)
    harea = np.empty(2 * size, np.int64)
    head = size
    tail = size + 1
    hole[head] = edges[0, 0]
    hreg[head] = edges[0, 2]
    harea[head] = edges[0, 3]
    while n_edges:
        matched = False
        e = 0
        while e < n_edges:
            a = edges[e, 0]
            b = edges[e, 1]
            add = False
            if hole[head] == b:
                head -= 1
                hole[head] = a
                hreg[head] = edges[e, 2]
                harea[head] = edges[e, 3]
                add = True
            elif hole[tail - 1] == a:
                hole[tail] = b
                hreg[tail] = edges[e, 2]
                harea[tail] = edges[e, 3]
                tail += 1
                add = True
            if add:
                for q in range(4):
                    edges[e, q] = edges[n_edges - 1, q]
                n_edges -= 1
                matched = True
            else:
                e += 1
        if not matched:
            break
    n_hole = tail - head
    if n_hole < 3:
        return n_verts, n_polys
    xz = np.empty((n_hole, 2), np.int64)
    idx = np.empty(n_hole, np.int64)
    for k in range(n_hole):
        v = hole[head + k]
        xz[k, 0] = verts[v, 0]
        xz[k, 1] = verts[v, 2]
        idx[k] = k
    ear = np.zeros(n_hole, np.bool_)
    tris = np.empty((n_hole - 2, 3), np.int64)
    n_tris = triangulate(n_hole, xz, idx, ear, tris)
    if n_tris < 0:
        n_tris = -n_tris
    new = np.full((n_tris + 1, nvp), -1, np.int32)
    new_reg = np.empty(n_tris + 1, np.int32)
    new_area = np.empty(n_tris + 1, np.uint8)
    n_new = 0
    for t in range(n_tris):
        a = tris[t, 0]
        b = tris[t, 1]
        c = tris[t, 2]
        if a != b and a != c and b != c:
            new[n_new, 0] = hole[head + a]
            new[n_new, 1] = hole[head + b]
            new[n_new, 2] = hole[head + c]
            if hreg[head + a] != hreg[head + b] or hreg[head + b] != hreg[head + c]:
                new_reg[n_new] = MULTIPLE_REGIONS
            else:
                new_reg[n_new] = hreg[head + a]
            new_area[n_new] = harea[head + a]
            n_new += 1
    if n_new == 0:
        return n_verts, n_polys
    tmp = np.empty(nvp, np.int32)
    if nvp > 3:
        n_new = _merge_polygons(new, n_new, verts, nvp, new_reg, new_area, tmp)
    for p in range(n_new):
        if n_polys >= max_polys:
            break
        polys[n_polys, :] = new[p, :]
        regs[n_polys] = new_reg[p]
        areas[n_polys] = new_area[p]
        n_polys += 1
    return n_verts, n_polys


# ---------------------------------------------------------------- adjacency

@njit(cache=True, nogil=True)
def _link_neighbours(polys, n_polys, n_verts, nvp, neighbors):
    """``neighbors[p, j]``: the polygon sharing edge ``j`` of ``p`` (the
    same two vertices, met the other way round), -1 if none."""
    max_edges = n_polys * nvp
    first = np.full(n_verts, -1, np.int64)
    chain = np.empty(max_edges, np.int64)
    edge_v1 = np.empty(max_edges, np.int64)
    edge_poly = np.empty((max_edges, 2), np.int64)
    edge_slot = np.empty((max_edges, 2), np.int64)
    n_edges = 0
    for i in range(n_polys):
        nv = _poly_len(polys[i], nvp)
        for j in range(nv):
            v0 = polys[i, j]
            v1 = polys[i, _nxt(j, nv)]
            if v0 < v1:
                edge_v1[n_edges] = v1
                edge_poly[n_edges, 0] = i
                edge_poly[n_edges, 1] = i
                edge_slot[n_edges, 0] = j
                edge_slot[n_edges, 1] = 0
                chain[n_edges] = first[v0]
                first[v0] = n_edges
                n_edges += 1
    for i in range(n_polys):
        nv = _poly_len(polys[i], nvp)
        for j in range(nv):
            v0 = polys[i, j]
            v1 = polys[i, _nxt(j, nv)]
            if v0 > v1:
                e = first[v1]
                while e != -1:
                    if edge_v1[e] == v0 and edge_poly[e, 0] == edge_poly[e, 1]:
                        edge_poly[e, 1] = i
                        edge_slot[e, 1] = j
                        break
                    e = chain[e]
    for e in range(n_edges):
        a = edge_poly[e, 0]
        b = edge_poly[e, 1]
        if a != b:
            neighbors[a, edge_slot[e, 0]] = b
            neighbors[b, edge_slot[e, 1]] = a


@njit(cache=True, nogil=True)
def _mark_portals(polys, neighbors, n_polys, nvp, verts, width, height):
    """Unlinked edges along the tile's outer side: ``-2 - d`` with ``d``
    the direction of the tile beyond (0: x = 0, 1: z = height, 2: x =
    width, 3: z = 0)."""
    for i in range(n_polys):
        nv = _poly_len(polys[i], nvp)
        for j in range(nv):
            if neighbors[i, j] != -1:
                continue
            a = polys[i, j]
            b = polys[i, _nxt(j, nv)]
            if verts[a, 0] == 0 and verts[b, 0] == 0:
                neighbors[i, j] = -2
            elif verts[a, 2] == height and verts[b, 2] == height:
                neighbors[i, j] = -3
            elif verts[a, 0] == width and verts[b, 0] == width:
                neighbors[i, j] = -4
            elif verts[a, 2] == 0 and verts[b, 2] == 0:
                neighbors[i, j] = -5


# ---------------------------------------------------------------- the stage

@njit(cache=True, nogil=True)
def build_polymesh_kernel(cverts, vstart, vcount, cregion, carea, nvp, border, width, height):
    """The polygon stage over a contour set's arrays. Returns ``(verts,
    polys, neighbors, regions, areas, bad_contours)``; ``bad_contours``
    counts contours the triangulator could not cut completely."""
    n_cont = vcount.shape[0]
    rings = vcount[vcount >= 3]          # (shorter contours are skipped)
    max_verts = rings.sum()
    max_polys = max_verts - 2 * rings.shape[0]
    max_ring = rings.max() if rings.shape[0] else 0
    verts = np.zeros((max_verts, 3), np.int32)
    removable = np.zeros(max_verts, np.bool_)
    polys = np.full((max_polys, nvp), -1, np.int32)
    regs = np.zeros(max_polys, np.int32)
    areas = np.zeros(max_polys, np.uint8)
    buckets = 1
    while buckets < max(max_verts, 16):
        buckets *= 2
    first = np.full(buckets, -1, np.int64)
    chain = np.zeros(max(max_verts, 1), np.int64)
    xz = np.empty((max(max_ring, 1), 2), np.int64)
    idx = np.empty(max(max_ring, 1), np.int64)
    ear = np.zeros(max(max_ring, 1), np.bool_)
    tris = np.empty((max(max_ring, 1), 3), np.int64)
    local = np.empty(max(max_ring, 1), np.int64)
    cpolys = np.full((max(max_ring, 1) + 1, nvp), -1, np.int32)
    tmp = np.empty(nvp, np.int32)
    no_regs = np.empty(0, np.int32)
    no_areas = np.empty(0, np.uint8)
    n_verts = 0
    n_polys = 0
    bad = 0
    for c in range(n_cont):
        n = vcount[c]
        if n < 3:
            continue
        s0 = vstart[c]
        for j in range(n):
            xz[j, 0] = cverts[s0 + j, 0]
            xz[j, 1] = cverts[s0 + j, 2]
            idx[j] = j
        n_tris = triangulate(n, xz, idx, ear, tris)
        if n_tris <= 0:
            bad += 1
            n_tris = -n_tris
        for j in range(n):
            v, n_verts = _add_vertex(cverts[s0 + j, 0], cverts[s0 + j, 1], cverts[s0 + j, 2],
                                     verts, n_verts, first, chain)
            local[j] = v
            if cverts[s0 + j, 3] & BORDER_VERTEX:
                removable[v] = True
        m = 0
        for t in range(n_tris):
            a = local[tris[t, 0]]
            b = local[tris[t, 1]]
            d = local[tris[t, 2]]
            if a != b and a != d and b != d:
                cpolys[m, :] = -1
                cpolys[m, 0] = a
                cpolys[m, 1] = b
                cpolys[m, 2] = d
                m += 1
        if m == 0:
            continue
        if nvp > 3:
            m = _merge_polygons(cpolys, m, verts, nvp, no_regs, no_areas, tmp)
        for p in range(m):
            polys[n_polys, :] = cpolys[p, :]
            regs[n_polys] = cregion[c]
            areas[n_polys] = carea[c]
            n_polys += 1

    v = 0
    while v < n_verts:
        if removable[v] and _can_remove(polys, n_polys, nvp, v):
            n_verts, n_polys = _remove_vertex(verts, n_verts, polys, n_polys, regs, areas, nvp,
                                              v, max_polys)
            for k in range(v, n_verts):
                removable[k] = removable[k + 1]
        else:
            v += 1

    neighbors = np.full((n_polys, nvp), -1, np.int32)
    _link_neighbours(polys, n_polys, n_verts, nvp, neighbors)
    if border > 0:
        _mark_portals(polys, neighbors, n_polys, nvp, verts, width, height)
    return (verts[:n_verts].copy(), polys[:n_polys].copy(), neighbors, regs[:n_polys].copy(),
            areas[:n_polys].copy(), bad)
