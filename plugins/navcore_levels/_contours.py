"""Kernels of the contour stage: trace every region's outline over the
compact heightfield, simplify it, and join each region's holes to its
outline (Recast's ``rcBuildContours``). See :mod:`navcore_levels.contours`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._xz import in_cone, segments_touch

BORDER_REGION = 0x8000
REGION_MASK = 0xFFFF
BORDER_VERTEX = 0x10000
AREA_BORDER = 0x20000
TESS_WALL_EDGES = 1
TESS_AREA_EDGES = 2

@njit(cache=True, nogil=True, inline="always")
def _dx(d):
    return -1 if d == 0 else (1 if d == 2 else 0)


@njit(cache=True, nogil=True, inline="always")
def _dz(d):
    return 1 if d == 1 else (-1 if d == 3 else 0)


@njit(cache=True, nogil=True)
def _boundary_edges(region, neighbors):
    """Per span, bit ``d`` set where the edge in direction ``d`` leaves the
    span's region (a wall, or another region); 0 for spans in no region or
    in a tile's border."""
    n = region.shape[0]
    edges = np.zeros(n, np.uint8)
    for s in range(n):
        reg = region[s]
        if reg == 0 or (reg & BORDER_REGION) != 0:
            continue
        bits = 0
        for d in range(4):
            t = neighbors[s, d]
            if t < 0 or region[t] != reg:
                bits |= 1 << d
        edges[s] = bits
    return edges


@njit(cache=True, nogil=True)
def _region_key(region, area, s):
    return np.int64(region[s]) | (np.int64(area[s]) << 16)


@njit(cache=True, nogil=True, inline="always")
def _border_pattern(ka, kb, kc, kd):
    """Region keys round a corner, in order: two cells of the same tile
    border region, then two inner cells of one area."""
    two_same_outside = (ka & kb & BORDER_REGION) != 0 and ka == kb
    two_inside = ((kc | kd) & BORDER_REGION) == 0
    inside_same_area = (kc >> 16) == (kd >> 16)
    none_empty = ka != 0 and kb != 0 and kc != 0 and kd != 0
    return two_same_outside and two_inside and inside_same_area and none_empty


@njit(cache=True, nogil=True)
def _corner(s, d, span_y, neighbors, region, area):
    """Height of the corner clockwise after edge ``d`` of span ``s`` (the
    highest floor among the up to four spans around it), and whether the
    corner lies where a tile border meets two cells of one area (such
    vertices are removed from the polygon mesh later)."""
    d_next = (d + 1) & 3
    height = span_y[s]
    key1 = np.int64(0)
    key2 = np.int64(0)
    key3 = np.int64(0)
    for side in range(2):          # round the corner both ways: d then d_next, and back
        first = d if side == 0 else d_next
        a = neighbors[s, first]
        if a < 0:
            continue
        height = max(height, span_y[a])
        if side == 0:
            key1 = _region_key(region, area, a)
        else:
            key3 = _region_key(region, area, a)
        t = neighbors[a, d_next if side == 0 else d]
        if t >= 0:
            height = max(height, span_y[t])
            key2 = _region_key(region, area, t)
    key0 = _region_key(region, area, s)
    border_vertex = _border_pattern(key0, key1, key2, key3) or \
        _border_pattern(key1, key2, key3, key0) or \
        _border_pattern(key2, key3, key0, key1) or \
        _border_pattern(key3, key0, key1, key2)
    return height, border_vertex


@njit(cache=True, nogil=True)
def _walk(x, z, s, edges, span_y, neighbors, region, area, raw, start, max_steps):
    """Follow the region boundary from span ``s`` (cell ``x, z``) keeping
    the region on the right, clearing the edge bits it passes, and write
    one raw vertex ``[x, y, z, neighbour region | flags]`` per boundary
    edge into ``raw`` from ``start``. Returns the number written."""
    d = 0
    while (edges[s] & (1 << d)) == 0:
        d += 1
    first_span = s
    first_dir = d
    own_area = area[s]
    count = 0
    for _ in range(max_steps):
        if edges[s] & (1 << d):
            cy, border_vertex = _corner(s, d, span_y, neighbors, region, area)
            cx = x
            cz = z
            if d == 0:
                cz += 1
            elif d == 1:
                cx += 1
                cz += 1
            elif d == 2:
                cx += 1
            other = 0
            t = neighbors[s, d]
            if t >= 0:
                other = region[t]
                if area[t] != own_area:
                    other |= AREA_BORDER
            if border_vertex:
                other |= BORDER_VERTEX
            k = start + count
            raw[k, 0] = cx
            raw[k, 1] = cy
            raw[k, 2] = cz
            raw[k, 3] = other
            count += 1
            edges[s] &= 0xF ^ (1 << d)
            d = (d + 1) & 3
        else:
            t = neighbors[s, d]
            if t < 0:
                return count      # a same-region edge is always connected
            x += _dx(d)
            z += _dz(d)
            s = t
            d = (d + 3) & 3
        if s == first_span and d == first_dir:
            break
    return count


@njit(cache=True, nogil=True)
def _dist2_point_segment(x, z, px, pz, qx, qz):
    """Squared distance (float32, as Recast computes it) from ``(x, z)``
    to segment ``pq``."""
    pqx = np.float32(qx - px)
    pqz = np.float32(qz - pz)
    dx = np.float32(x - px)
    dz = np.float32(z - pz)
    d = pqx * pqx + pqz * pqz
    t = pqx * dx + pqz * dz
    if d > 0:
        t /= d
    if t < 0:
        t = np.float32(0)
    elif t > 1:
        t = np.float32(1)
    dx = np.float32(px) + t * pqx - np.float32(x)
    dz = np.float32(pz) + t * pqz - np.float32(z)
    return dx * dx + dz * dz


@njit(cache=True, nogil=True)
def _insert_after(out, n, i, raw, r):
    """Insert raw vertex ``r`` after position ``i`` of the ``n`` simplified
    vertices in ``out`` (column 3 holds the raw index)."""
    for j in range(n, i + 1, -1):
        out[j, 0] = out[j - 1, 0]
        out[j, 1] = out[j - 1, 1]
        out[j, 2] = out[j - 1, 2]
        out[j, 3] = out[j - 1, 3]
    out[i + 1, 0] = raw[r, 0]
    out[i + 1, 1] = raw[r, 1]
    out[i + 1, 2] = raw[r, 2]
    out[i + 1, 3] = r
    return n + 1


@njit(cache=True, nogil=True, inline="always")
def _simplified_edge(out, i, n):
    """Edge ``i`` of the simplified ring ``out[:n]``: ``x, z`` and raw
    index of its start, then of its end."""
    j = i + 1 if i + 1 < n else 0
    return out[i, 0], out[i, 2], out[i, 3], out[j, 0], out[j, 2], out[j, 3]


@njit(cache=True, nogil=True)
def _simplify(raw, out, max_error, max_edge_len, tess_flags):
    """Simplify the raw ring ``raw`` (pn, 4) into ``out``; returns the
    vertex count. Vertices where the neighbouring region or the area
    changes are kept; more are added until every raw vertex of a wall or
    area edge lies within ``max_error`` of the outline, then wall (area)
    edges longer than ``max_edge_len`` are split at their middle raw
    vertex. Column 3 of the result: the neighbour region and area-border
    flag of the edge that starts there, and the border-vertex flag."""
    pn = raw.shape[0]
    n = 0
    has_portals = False
    for i in range(pn):
        if (raw[i, 3] & REGION_MASK) != 0:
            has_portals = True
            break
    if has_portals:
        for i in range(pn):
            ii = (i + 1) % pn
            region_changes = (raw[i, 3] & REGION_MASK) != (raw[ii, 3] & REGION_MASK)
            area_changes = (raw[i, 3] & AREA_BORDER) != (raw[ii, 3] & AREA_BORDER)
            if region_changes or area_changes:
                out[n, 0] = raw[i, 0]
                out[n, 1] = raw[i, 1]
                out[n, 2] = raw[i, 2]
                out[n, 3] = i
                n += 1
    if n == 0:
        # No portal: start from the lowest-left and highest-right corners.
        lo = 0
        hi = 0
        for i in range(1, pn):
            x = raw[i, 0]
            z = raw[i, 2]
            if x < raw[lo, 0] or (x == raw[lo, 0] and z < raw[lo, 2]):
                lo = i
            if x > raw[hi, 0] or (x == raw[hi, 0] and z > raw[hi, 2]):
                hi = i
        for k in range(2):
            r = lo if k == 0 else hi
            out[k, 0] = raw[r, 0]
            out[k, 1] = raw[r, 1]
            out[k, 2] = raw[r, 2]
            out[k, 3] = r
        n = 2

    limit = np.float32(max_error) * np.float32(max_error)
    i = 0
    while i < n:
        ax, az, ai, bx, bz, bi = _simplified_edge(out, i, n)
        # Walk the raw run in the same (lexicographic) direction whichever
        # way round the segment is met, so that the two regions sharing it
        # pick the same vertex.
        if bx > ax or (bx == ax and bz > az):
            step = 1
            ci = (ai + 1) % pn
            end = bi
        else:
            step = pn - 1
            ci = (bi + step) % pn
            end = ai
            ax, bx = bx, ax
            az, bz = bz, az
        worst = np.float32(0)
        worst_i = -1
        if (raw[ci, 3] & REGION_MASK) == 0 or (raw[ci, 3] & AREA_BORDER) != 0:
            while ci != end:
                dist = _dist2_point_segment(raw[ci, 0], raw[ci, 2], ax, az, bx, bz)
                if dist > worst:
                    worst = dist
                    worst_i = ci
                ci = (ci + step) % pn
        if worst_i != -1 and worst > limit:
            n = _insert_after(out, n, i, raw, worst_i)
        else:
            i += 1

    if max_edge_len > 0 and (tess_flags & (TESS_WALL_EDGES | TESS_AREA_EDGES)) != 0:
        max_len2 = np.int64(max_edge_len) * max_edge_len
        i = 0
        while i < n:
            ax, az, ai, bx, bz, bi = _simplified_edge(out, i, n)
            split = -1
            ci = (ai + 1) % pn
            tess = ((tess_flags & TESS_WALL_EDGES) != 0 and (raw[ci, 3] & REGION_MASK) == 0) or \
                ((tess_flags & TESS_AREA_EDGES) != 0 and (raw[ci, 3] & AREA_BORDER) != 0)
            if tess:
                dx = np.int64(bx - ax)
                dz = np.int64(bz - az)
                if dx * dx + dz * dz > max_len2:
                    run = bi + pn - ai if bi < ai else bi - ai
                    if run > 1:
                        # Round the middle the same way from either side.
                        if bx > ax or (bx == ax and bz > az):
                            split = (ai + run // 2) % pn
                        else:
                            split = (ai + (run + 1) // 2) % pn
            if split != -1:
                n = _insert_after(out, n, i, raw, split)
            else:
                i += 1

    for i in range(n):
        r = out[i, 3]
        nxt = (r + 1) % pn
        out[i, 3] = (raw[nxt, 3] & (REGION_MASK | AREA_BORDER)) | (raw[r, 3] & BORDER_VERTEX)
    return n


@njit(cache=True, nogil=True)
def _drop_repeated_points(out, n):
    """Remove vertices equal in x and z to the next one (the triangulator
    needs distinct neighbours); returns the new count."""
    i = 0
    while i < n:
        ni = i + 1 if i + 1 < n else 0
        if out[i, 0] == out[ni, 0] and out[i, 2] == out[ni, 2]:
            for j in range(i, n - 1):
                out[j, 0] = out[j + 1, 0]
                out[j, 1] = out[j + 1, 1]
                out[j, 2] = out[j + 1, 2]
                out[j, 3] = out[j + 1, 3]
            n -= 1
        i += 1
    return n


@njit(cache=True, nogil=True)
def _ring_area2(verts, start, n):
    """Recast's winding measure of a ring: positive for an outline,
    negative for a hole (twice the area, with Recast's sign)."""
    total = np.int64(0)
    j = n - 1
    for i in range(n):
        a = start + i
        b = start + j
        total += np.int64(verts[a, 0]) * verts[b, 2] - np.int64(verts[b, 0]) * verts[a, 2]
        j = i
    return total


@njit(cache=True, nogil=True)
def _segment_hits_ring(x0, z0, x1, z1, ring, start, n, skip):
    """Whether segment ``(x0,z0)-(x1,z1)`` touches an edge of the ring
    ``ring[start:start+n]`` other than the edges at vertex ``skip`` and
    those sharing an end point with it."""
    for k in range(n):
        k1 = k + 1 if k + 1 < n else 0
        if k == skip or k1 == skip:
            continue
        px = ring[start + k, 0]
        pz = ring[start + k, 2]
        qx = ring[start + k1, 0]
        qz = ring[start + k1, 2]
        if (x0 == px and z0 == pz) or (x1 == px and z1 == pz) or \
                (x0 == qx and z0 == qz) or (x1 == qx and z1 == qz):
            continue
        if segments_touch(x0, z0, x1, z1, px, pz, qx, qz):
            return True
    return False


@njit(cache=True, nogil=True)
def _leftmost(verts, start, n):
    best = 0
    for i in range(1, n):
        x = verts[start + i, 0]
        z = verts[start + i, 2]
        if x < verts[start + best, 0] or (x == verts[start + best, 0] and
                                          z < verts[start + best, 2]):
            best = i
    return best


@njit(cache=True, nogil=True)
def _merge_holes(outline, n_out, holes, verts, vstart, vcount, work):
    """Join each hole of ``holes`` (contour ids, sorted left to right) to
    the ring ``outline[:n_out]`` by the shortest diagonal from one of the
    hole's vertices (starting with its leftmost) to an outline vertex that
    crosses neither the outline nor a hole not yet joined. Returns the
    ring's new length and, per hole, whether it was joined."""
    joined = np.zeros(holes.shape[0], np.bool_)
    diag_vert = np.empty(outline.shape[0], np.int64)
    diag_dist = np.empty(outline.shape[0], np.int64)
    for h in range(holes.shape[0]):
        c = holes[h]
        hs = vstart[c]
        hn = vcount[c]
        corner = _leftmost(verts, hs, hn)
        target = -1
        for _ in range(hn):
            px = verts[hs + corner, 0]
            pz = verts[hs + corner, 2]
            nd = 0
            for j in range(n_out):
                jp = j - 1 if j > 0 else n_out - 1
                jn = j + 1 if j + 1 < n_out else 0
                if in_cone(outline[j, 0], outline[j, 2], outline[jp, 0], outline[jp, 2],
                           outline[jn, 0], outline[jn, 2], px, pz, False):
                    dx = np.int64(outline[j, 0] - px)
                    dz = np.int64(outline[j, 2] - pz)
                    diag_vert[nd] = j
                    diag_dist[nd] = dx * dx + dz * dz
                    nd += 1
            order = np.argsort(diag_dist[:nd], kind="mergesort")
            for k in range(nd):
                j = diag_vert[order[k]]
                ox = outline[j, 0]
                oz = outline[j, 2]
                hit = _segment_hits_ring(ox, oz, px, pz, outline, 0, n_out, j)
                for other in range(h, holes.shape[0]):
                    if hit:
                        break
                    oc = holes[other]
                    hit = _segment_hits_ring(ox, oz, px, pz, verts, vstart[oc], vcount[oc], -1)
                if not hit:
                    target = j
                    break
            if target != -1:
                break
            corner = (corner + 1) % hn
        if target == -1:
            continue
        # outline from the target round to it again, then the hole from the
        # corner round to it again.
        m = 0
        for i in range(n_out + 1):
            src = (target + i) % n_out
            for q in range(4):
                work[m, q] = outline[src, q]
            m += 1
        for i in range(hn + 1):
            src = hs + (corner + i) % hn
            for q in range(4):
                work[m, q] = verts[src, q]
            m += 1
        for i in range(m):
            for q in range(4):
                outline[i, q] = work[i, q]
        n_out = m
        joined[h] = True
    return n_out, joined


@njit(cache=True, nogil=True)
def build_contours_kernel(width, height, border, cell_index, cell_count, span_y, neighbors,
                          area, region, max_region, max_error, max_edge_len, tess_flags):
    """The contour stage over a compact heightfield's arrays. Returns
    ``(verts, vert_start, vert_count, raw, raw_start, raw_count, regions,
    areas, loose_holes)``; see :class:`navcore_levels.contours.ContourSet`.
    ``loose_holes`` counts holes that could not be joined to an outline
    (their region's outline was lost to simplification, or no diagonal
    was clear); they stay separate rings."""
    edges = _boundary_edges(region, neighbors)
    # Every raw vertex clears one edge bit, so the bits bound the raw count
    # (lone cells included: with one-way neighbour links a walk can enter one).
    total_edges = 0
    for s in range(edges.shape[0]):
        # as int64: numpy (the kernels' Python, NUMBA_DISABLE_JIT) would add
        # the uint8 bits in uint8 and wrap at 256
        e = np.int64(edges[s])
        total_edges += (e & 1) + ((e >> 1) & 1) + ((e >> 2) & 1) + ((e >> 3) & 1)
    raw = np.empty((total_edges, 4), np.int32)
    simple = np.empty((total_edges, 4), np.int32)
    work = np.empty((total_edges + 2, 4), np.int32)
    cap = total_edges // 4 + 1
    vstart = np.zeros(cap, np.int64)
    vcount = np.zeros(cap, np.int64)
    rstart = np.zeros(cap, np.int64)
    rcount = np.zeros(cap, np.int64)
    cregion = np.zeros(cap, np.int32)
    carea = np.zeros(cap, np.uint8)
    max_steps = 4 * edges.shape[0] + 4
    n_raw = 0
    n_simple = 0
    n_cont = 0
    for z in range(height):
        for x in range(width):
            c = x + z * width
            for s in range(cell_index[c], cell_index[c] + cell_count[c]):
                if edges[s] == 0 or edges[s] == 0xF:
                    edges[s] = 0       # no edge, or a lone cell: no contour
                    continue
                reg = region[s]
                if reg == 0 or (reg & BORDER_REGION) != 0:
                    continue
                got = _walk(x, z, s, edges, span_y, neighbors, region, area, raw, n_raw,
                            max_steps)
                if got == 0:
                    continue
                ring = raw[n_raw:n_raw + got]
                ns = _simplify(ring, work, max_error, max_edge_len, tess_flags)
                ns = _drop_repeated_points(work, ns)
                if ns < 3:
                    continue
                if n_cont == cap:
                    cap *= 2
                    vstart = _grow(vstart, cap)
                    vcount = _grow(vcount, cap)
                    rstart = _grow(rstart, cap)
                    rcount = _grow(rcount, cap)
                    cregion = _grow(cregion, cap)
                    carea = _grow(carea, cap)
                for i in range(ns):
                    simple[n_simple + i, 0] = work[i, 0] - border
                    simple[n_simple + i, 1] = work[i, 1]
                    simple[n_simple + i, 2] = work[i, 2] - border
                    simple[n_simple + i, 3] = work[i, 3]
                for i in range(got):
                    raw[n_raw + i, 0] -= border
                    raw[n_raw + i, 2] -= border
                vstart[n_cont] = n_simple
                vcount[n_cont] = ns
                rstart[n_cont] = n_raw
                rcount[n_cont] = got
                cregion[n_cont] = reg
                carea[n_cont] = area[s]
                n_simple += ns
                n_raw += got
                n_cont += 1

    # Holes: rings wound backwards. Join each to its region's outline.
    hole = np.zeros(n_cont, np.bool_)
    n_holes = 0
    for c in range(n_cont):
        # Recast's test, (a + 1) / 2 < 0 in C: a hole of one cell (a = -2)
        # counts as an outline; the polygon stage then cannot cut it and
        # covers the cell, as Recast does.
        if _ring_area2(simple, vstart[c], vcount[c]) + 1 <= -2:
            hole[c] = True
            n_holes += 1
    out_verts = simple[:n_simple]
    joined_away = np.zeros(n_cont, np.bool_)
    if n_holes > 0:
        outline_of = np.full(max_region + 1, -1, np.int64)
        holes_in = np.zeros(max_region + 1, np.int64)
        for c in range(n_cont):
            r = cregion[c]
            if hole[c]:
                holes_in[r] += 1
            else:
                outline_of[r] = c
        merged_start = np.full(n_cont, -1, np.int64)
        merged_count = np.zeros(n_cont, np.int64)
        merged = np.empty((n_simple + 2 * n_holes, 4), np.int32)
        n_merged = 0
        ring = np.empty((n_simple + 2 * n_holes, 4), np.int32)
        scratch = np.empty((n_simple + 2 * n_holes, 4), np.int32)
        for r in range(max_region + 1):
            if holes_in[r] == 0 or outline_of[r] < 0:
                continue
            oc = outline_of[r]
            ids = np.empty(holes_in[r], np.int64)
            keys = np.empty(holes_in[r], np.int64)
            k = 0
            for c in range(n_cont):
                if hole[c] and cregion[c] == r:
                    lm = vstart[c] + _leftmost(simple, vstart[c], vcount[c])
                    ids[k] = c
                    keys[k] = np.int64(simple[lm, 0]) * (1 << 32) + simple[lm, 2]
                    k += 1
            ids = ids[np.argsort(keys, kind="mergesort")]
            n_ring = vcount[oc]
            for i in range(n_ring):
                for q in range(4):
                    ring[i, q] = simple[vstart[oc] + i, q]
            n_ring, joined = _merge_holes(ring, n_ring, ids, simple, vstart, vcount, scratch)
            for i in range(ids.shape[0]):
                if joined[i]:
                    joined_away[ids[i]] = True
            merged_start[oc] = n_merged
            merged_count[oc] = n_ring
            for i in range(n_ring):
                for q in range(4):
                    merged[n_merged + i, q] = ring[i, q]
            n_merged += n_ring
        total = 0
        for c in range(n_cont):
            if merged_start[c] >= 0:
                total += merged_count[c]
            elif not joined_away[c]:
                total += vcount[c]
        out_verts = np.empty((total, 4), np.int32)
        at = 0
        for c in range(n_cont):
            if merged_start[c] >= 0:
                src = merged
                s0 = merged_start[c]
                cnt = merged_count[c]
            elif joined_away[c]:
                vstart[c] = at
                vcount[c] = 0
                continue
            else:
                src = simple
                s0 = vstart[c]
                cnt = vcount[c]
            for i in range(cnt):
                for q in range(4):
                    out_verts[at + i, q] = src[s0 + i, q]
            vstart[c] = at
            vcount[c] = cnt
            at += cnt
    loose_holes = 0                  # holes left apart (no outline, or no clear diagonal)
    if n_holes > 0:
        for c in range(n_cont):
            if hole[c] and not joined_away[c]:
                loose_holes += 1
    return (out_verts.copy(), vstart[:n_cont].astype(np.int32), vcount[:n_cont].astype(np.int32),
            raw[:n_raw].copy(), rstart[:n_cont].astype(np.int32),
            rcount[:n_cont].astype(np.int32), cregion[:n_cont].copy(), carea[:n_cont].copy(),
            loose_holes)


@njit(cache=True, nogil=True)
def _grow(a, cap):
    out = np.zeros(cap, a.dtype)
    out[:a.shape[0]] = a
    return out


@njit(cache=True, nogil=True)
def check_span_links(width, height, cell_index, cell_count, neighbors):
    """The first inconsistency of a compact heightfield's span layout, as
    ``(code, a, b)``: 0 none; 1 cell ``a`` lists span ``b`` that does not
    exist; 2 span ``b`` is listed by two cells (``a`` the second); 3 span
    ``b`` belongs to no cell; 4 ``neighbors[a, b]`` is not a span index or
    -1; 5 ``neighbors[a, b]`` is a span of a cell other than the one in
    direction ``b`` of span ``a``'s cell."""
    spans = neighbors.shape[0]
    owner = np.full(spans, -1, np.int32)          # each span's cell
    column = np.empty(spans, np.int32)            # and that cell's x
    c = 0
    for z in range(height):
        for x in range(width):
            for s in range(cell_index[c], cell_index[c] + cell_count[c]):
                if s < 0 or s >= spans:
                    return 1, c, s
                if owner[s] != -1:
                    return 2, c, s
                owner[s] = c
                column[s] = x
            c += 1
    for s in range(spans):
        if owner[s] == -1:
            return 3, 0, s
    for s in range(spans):
        for d in range(4):
            t = neighbors[s, d]
            if t == -1:
                continue
            if t < -1 or t >= spans:
                return 4, s, d
            # the cell next door: one column over in the same row, or the
            # same column one row over
            dx = _dx(d)
            if owner[t] != owner[s] + dx + _dz(d) * width or column[t] != column[s] + dx:
                return 5, s, d
    return 0, 0, 0
