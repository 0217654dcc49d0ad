"""Kernels of the detail height mesh (Recast's ``rcBuildPolyMeshDetail``).

Per polygon of the polygon mesh:

1. *Height patch*: the floor height of every cell of the polygon's
   bounding box (one cell of margin), taken from the spans of the
   polygon's region and, around them, by a breadth-first walk over span
   connections from that region's border. Walking connections (not
   reading a column's spans) is what keeps a polygon on an upper floor
   from reading the floor below it. A polygon whose region has no span in
   the box (or region 0, merged from several) is seeded instead at the
   span nearest in height to one of its corners and walked to its centre.
2. *Outline*: each edge is sampled every ``sample_distance`` and the
   samples are kept, farthest first, while one is more than
   ``sample_max_error`` (3D) from the simplified edge. An edge is always
   walked from its lexicographically smaller end, so the two polygons
   sharing it get the same points (no seams).
3. *Interior*: grid points at multiples of ``sample_distance``, at least
   half a spacing inside the polygon, are added one at a time, the one
   farthest (vertically) from the current triangulation first, each
   addition followed by a new Delaunay triangulation, until every sample
   is within ``sample_max_error``.

Work is in the polygon mesh's frame (world units from its ``bmin``), as
Recast's is, so the sample grid lines up with Recast's; vertices are moved
to world coordinates on output.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._detail_triangulate import delaunay_hull, mark_hull_edges, triangulate_hull
from ._geometry import from_to

#: A cell of the height patch with no height.
UNSET = -1
#: Most vertices of one polygon's detail mesh (Detour stores their local
#: indices in a byte).
MAX_VERTS = 127
#: Most triangles of one polygon's detail mesh.
MAX_TRIS = 255
#: Most points (both ends included, less one) an edge is sampled at.
MAX_VERTS_PER_EDGE = 32

_DX = (-1, 0, 1, 0)
_DZ = (0, 1, 0, -1)


@njit(cache=True, nogil=True)
def _seed_at_centre(poly_verts, npoly, bs, chf_width, cell_index, cell_count, span_y, neighbors,
                    patch, xmin, zmin, pw, ph, qx, qz, qs):
    """Finds the span nearest in height to a polygon corner (in the 3 x 3
    cells around each corner) and walks span connections, depth first,
    to the cell at the polygon's centre; leaves the patch unset but for
    that cell and returns 1 with it as ``q*[0]``, or 0 when no corner has
    a span."""
    best_dz = 0xFFFF
    start_x = 0
    start_z = 0
    start_span = -1
    for j in range(npoly):
        vx = poly_verts[j, 0]
        vy = poly_verts[j, 1]
        vz = poly_verts[j, 2]
        for k in range(9):
            # the corner's cell first, then its 8 neighbours
            ax = vx + (0, -1, 0, 1, 1, 1, 0, -1, -1)[k]
            az = vz + (0, -1, -1, -1, 0, 1, 1, 1, 0)[k]
            if ax < xmin or ax >= xmin + pw or az < zmin or az >= zmin + ph:
                continue
            c = (ax + bs) + (az + bs) * chf_width
            for s in range(cell_index[c], cell_index[c] + cell_count[c]):
                d = abs(vy - span_y[s])
                if d < best_dz:
                    start_x, start_z, start_span, best_dz = ax, az, s, d
            if best_dz == 0:
                break
        if best_dz == 0:
            break
    if start_span < 0:
        return 0
    centre_x = 0
    centre_z = 0
    for j in range(npoly):
        centre_x += poly_verts[j, 0]
        centre_z += poly_verts[j, 2]
    centre_x //= npoly
    centre_z //= npoly

    # Depth-first walk (a straight walk can get stuck on a simplified
    # outline); the patch marks visited cells. The direction towards the
    # centre is pushed last, so it is tried first.
    patch[:pw * ph] = 0
    top = 0
    qx[0] = start_x
    qz[0] = start_z
    qs[0] = start_span
    top = 1
    cx = start_x
    cz = start_z
    cs = start_span
    while top > 0:
        top -= 1
        cx = qx[top]
        cz = qz[top]
        cs = qs[top]
        if cx == centre_x and cz == centre_z:
            break
        if cx == centre_x:
            towards = 1 if centre_z > cz else 3
        else:
            towards = 2 if centre_x > cx else 0
        for i in range(4):
            d = 3 if i == towards else (towards if i == 3 else i)
            nb = neighbors[cs, d]
            if nb < 0:
                continue
            nx = cx + _DX[d]
            nz = cz + _DZ[d]
            hx = nx - xmin
            hz = nz - zmin
            if hx < 0 or hx >= pw or hz < 0 or hz >= ph:
                continue
            if patch[hx + hz * pw] != 0:
                continue
            patch[hx + hz * pw] = 1
            qx[top] = nx
            qz[top] = nz
            qs[top] = nb
            top += 1
    patch[:pw * ph] = UNSET
    patch[(cx - xmin) + (cz - zmin) * pw] = span_y[cs]
    qx[0] = cx + bs
    qz[0] = cz + bs
    qs[0] = cs
    return 1


@njit(cache=True, nogil=True)
def gather_heights(poly_verts, npoly, region, bs, chf_width, cell_index, cell_count, span_y,
                   neighbors, span_region, patch, xmin, zmin, pw, ph, qx, qz, qs):
    """Fills ``patch`` (``pw`` x ``ph`` cells from ``(xmin, zmin)`` in
    polygon-mesh cells, ``UNSET`` where no height is found) for one
    polygon; ``q*`` are queue scratch of ``pw * ph + 1`` entries."""
    patch[:pw * ph] = UNSET
    nq = 0
    found = False
    if region != 0:
        for hz in range(ph):
            z = zmin + hz + bs
            for hx in range(pw):
                x = xmin + hx + bs
                c = x + z * chf_width
                for s in range(cell_index[c], cell_index[c] + cell_count[c]):
                    if span_region[s] != region:
                        continue
                    patch[hx + hz * pw] = span_y[s]
                    found = True
                    # A span next to another region seeds the fill.
                    for d in range(4):
                        nb = neighbors[s, d]
                        if nb >= 0 and span_region[nb] != region:
                            qx[nq] = x
                            qz[nq] = z
                            qs[nq] = s
                            nq += 1
                            break
                    break
    if not found:
        nq = _seed_at_centre(poly_verts, npoly, bs, chf_width, cell_index, cell_count, span_y,
                             neighbors, patch, xmin, zmin, pw, ph, qx, qz, qs)
    # Breadth first from the seeds, over span connections only.
    head = 0
    while head < nq:
        cx = qx[head]
        cz = qz[head]
        cs = qs[head]
        head += 1
        for d in range(4):
            nb = neighbors[cs, d]
            if nb < 0:
                continue
            ax = cx + _DX[d]
            az = cz + _DZ[d]
            hx = ax - xmin - bs
            hz = az - zmin - bs
            if hx < 0 or hx >= pw or hz < 0 or hz >= ph:
                continue
            if patch[hx + hz * pw] != UNSET:
                continue
            patch[hx + hz * pw] = span_y[nb]
            qx[nq] = ax
            qz[nq] = az
            qs[nq] = nb
            nq += 1


@njit(cache=True, nogil=True)
def patch_height(fx, fy, fz, cs, ch, radius, patch, xmin, zmin, pw, ph):
    """Floor height (cell heights) of the patch cell under ``(fx, fz)``;
    for a cell without one, the height nearest ``fy`` among the nearest
    ring of cells (up to ``radius`` rings out) that has any. ``UNSET``
    when none has."""
    ix = int(math.floor(fx / cs + 0.01)) - xmin
    iz = int(math.floor(fz / cs + 0.01)) - zmin
    ix = min(max(ix, 0), pw - 1)
    iz = min(max(iz, 0), ph - 1)
    h = patch[ix + iz * pw]
    if h != UNSET:
        return h
    # Spiral out from the cell, ring by ring: (1, 0), (1, 1), (0, 1), ...
    x = 1
    z = 0
    dx = 1
    dz = 0
    iterations = (2 * radius + 1) * (2 * radius + 1) - 1
    ring_end = 8
    ring_len = 16
    nearest = np.inf
    for i in range(iterations):
        nx = ix + x
        nz = iz + z
        if 0 <= nx < pw and 0 <= nz < ph:
            nh = patch[nx + nz * pw]
            if nh != UNSET:
                d = abs(nh * ch - fy)
                if d < nearest:
                    h = nh
                    nearest = d
        if i + 1 == ring_end:
            if h != UNSET:
                break
            ring_end += ring_len
            ring_len += 8
        if x == z or (x < 0 and x == -z) or (x > 0 and x == 1 - z):
            dx, dz = -dz, dx
        x += dx
        z += dz
    return h


@njit(cache=True, nogil=True, inline="always")
def _dist_sq_point_segment_f32(points, p, a, b):
    """Squared 3D distance from ``points[p]`` to segment ``a-b``, in
    float32 (``points`` float32) step for step as Recast computes it:
    whether an edge sample counts as off the edge is decided as Recast
    decides it, also where heights a whole number of cell heights apart put
    the deviation right at the limit."""
    zero = np.float32(0.0)
    one = np.float32(1.0)
    qx, qy, qz = from_to(points, a, b)
    dx, dy, dz = from_to(points, a, p)
    d = qx * qx + qy * qy + qz * qz
    t = qx * dx + qy * dy + qz * dz
    if d > zero:
        t = t / d
    if t < zero:
        t = zero
    elif t > one:
        t = one
    dx = points[a, 0] + t * qx - points[p, 0]
    dy = points[a, 1] + t * qy - points[p, 1]
    dz = points[a, 2] + t * qz - points[p, 2]
    return dx * dx + dy * dy + dz * dz


@njit(cache=True, nogil=True, inline="always")
def _dist_sq_xz_segment(px, pz, ax, az, bx, bz):
    """Squared x-z distance from a point to a segment, all float32."""
    qx = bx - ax
    qz = bz - az
    dx = px - ax
    dz = pz - az
    d = qx * qx + qz * qz
    t = qx * dx + qz * dz
    if d > 0:
        t = t / d
    t = min(max(t, np.float32(0.0)), np.float32(1.0))
    dx = ax + t * qx - px
    dz = az + t * qz - pz
    return dx * dx + dz * dz


@njit(cache=True, nogil=True)
def _signed_dist_sq_to_polygon(corners, n, px, pz):
    """Squared x-z distance from ``(px, pz)`` to the polygon's outline,
    negated inside (float32 corners and point)."""
    nearest = np.inf
    inside = False
    j = n - 1
    for i in range(n):
        xi = corners[i, 0]
        zi = corners[i, 2]
        xj = corners[j, 0]
        zj = corners[j, 2]
        if ((zi > pz) != (zj > pz)) and px < (xj - xi) * (pz - zi) / (zj - zi) + xi:
            inside = not inside
        nearest = min(nearest, _dist_sq_xz_segment(px, pz, xj, zj, xi, zi))
        j = i
    return -nearest if inside else nearest


@njit(cache=True, nogil=True)
def _min_extent(corners, n):
    """The polygon's smallest width: over its edges, the farthest other
    corner from the edge's line, least over edges."""
    least = np.inf
    for i in range(n):
        k = i + 1 if i + 1 < n else 0
        farthest = 0.0
        for j in range(n):
            if j == i or j == k:
                continue
            d = _dist_sq_xz_segment(corners[j, 0], corners[j, 2], corners[i, 0], corners[i, 2],
                                    corners[k, 0], corners[k, 2])
            farthest = max(farthest, d)
        least = min(least, farthest)
    return math.sqrt(least)


@njit(cache=True, nogil=True)
def _vertical_dist_to_mesh(points, tris, ntris, px, py, pz):
    """|height difference| between ``(px, py, pz)`` and the triangle (of
    the smallest difference) that covers ``(px, pz)``; -1 if none does.
    In the points' precision (float32)."""
    best = np.float32(np.inf)
    for i in range(ntris):
        a = tris[i, 0]
        b = tris[i, 1]
        c = tris[i, 2]
        v0x = points[c, 0] - points[a, 0]
        v0z = points[c, 2] - points[a, 2]
        v1x = points[b, 0] - points[a, 0]
        v1z = points[b, 2] - points[a, 2]
        v2x = px - points[a, 0]
        v2z = pz - points[a, 2]
        dot00 = v0x * v0x + v0z * v0z
        dot01 = v0x * v1x + v0z * v1z
        dot02 = v0x * v2x + v0z * v2z
        dot11 = v1x * v1x + v1z * v1z
        dot12 = v1x * v2x + v1z * v2z
        denom = dot00 * dot11 - dot01 * dot01
        if denom == 0.0:
            continue
        inverse = np.float32(1.0) / denom
        u = (dot11 * dot02 - dot01 * dot12) * inverse
        v = (dot00 * dot12 - dot01 * dot02) * inverse
        eps = np.float32(1e-4)
        if u >= -eps and v >= -eps and u + v <= np.float32(1.0) + eps:
            y = points[a, 1] + (points[c, 1] - points[a, 1]) * u + (points[b, 1] - points[a, 1]) * v
            best = min(best, abs(y - py))
    return np.float32(-1.0) if best == np.inf else best


@njit(cache=True, nogil=True, inline="always")
def _jitter(i, multiplier):
    """A fixed pseudo-random offset in [-1, 1] for sample ``i``: grid
    samples are compared at slightly shifted points, so symmetric data
    does not tie into poor triangulations."""
    return (np.float32((i * multiplier) & 0xFFFF) / np.float32(65535.0) * np.float32(2.0)
            - np.float32(1.0))


@njit(cache=True, nogil=True)
def poly_detail(corners, corners32, ncorners, sample_distance, sample_max_error, cs, ch, radius,
                patch, xmin, zmin, pw, ph, points, points32, hull, edge_points, edge_points32,
                keep, tris, edges, samples):
    """One polygon's detail mesh: fills ``points`` (its ``corners`` first)
    and ``tris`` (rows ``a, b, c, outline flags``); returns
    ``(npoints, ntris, samples)`` (``samples`` scratch, grown if needed).
    ``corners32``: the corners as Recast holds them (float32 cells times
    float32 cell size). Every decision (which samples, which triangles) is
    made in float32 on ``points32``, as Recast makes it: heights are whole
    cell heights and samples sit on a grid, so distances fall right at a
    limit often, and float64 would decide those differently;
    ``points`` holds the same points in float64 for the output."""
    # Recast's spacing and error are float32 products of the cell size and
    # a count of cells (0.3f * 6 is 1.80000007, float32(1.8) 1.79999995):
    # the grid of samples and which deviations count depend on the last bit.
    distance32 = np.float32(cs) * np.float32(sample_distance / cs)
    max_error32 = np.float32(ch) * np.float32(sample_max_error / ch)
    max_error_sq32 = max_error32 * max_error32
    ch32 = np.float32(ch)
    for i in range(ncorners):
        points[i, :] = corners[i, :]
        points32[i, :] = corners32[i, :]
    npoints = ncorners
    nhull = 0
    min_extent = np.float32(_min_extent(corners32, ncorners))

    if sample_distance > 0:
        for i in range(ncorners):
            j = i - 1 if i > 0 else ncorners - 1
            # Walk the edge from its lexicographically smaller end (x,
            # then z), so both polygons on an edge sample it alike.
            a = j
            b = i
            if abs(corners[a, 0] - corners[b, 0]) < 1e-6:
                swapped = corners[a, 2] > corners[b, 2]
            else:
                swapped = corners[a, 0] > corners[b, 0]
            if swapped:
                a, b = b, a
            dx32 = corners32[b, 0] - corners32[a, 0]
            dz32 = corners32[b, 2] - corners32[a, 2]
            # float32 as Recast: an edge a whole number of spacings long
            # gets Recast's number of segments.
            length32 = np.float32(math.sqrt(dx32 * dx32 + dz32 * dz32))
            nsegs = 1 + int(math.floor(length32 / distance32))
            nsegs = min(nsegs, MAX_VERTS_PER_EDGE - 1)
            nsegs = min(nsegs, MAX_VERTS - 1 - npoints)
            hull[nhull] = j
            nhull += 1
            if nsegs < 2:
                continue
            for k in range(nsegs + 1):
                u = k / nsegs
                u32 = np.float32(k) / np.float32(nsegs)
                for c in range(3):
                    edge_points[k, c] = corners[a, c] + (corners[b, c] - corners[a, c]) * u
                    edge_points32[k, c] = (corners32[a, c]
                                           + (corners32[b, c] - corners32[a, c]) * u32)
                # Without height data the point stays on the edge's line.
                h = patch_height(edge_points[k, 0], edge_points[k, 1], edge_points[k, 2], cs,
                                 ch, radius, patch, xmin, zmin, pw, ph)
                if h != UNSET:
                    edge_points[k, 1] = h * ch
                    edge_points32[k, 1] = np.float32(h) * ch32
            # Keep samples farthest from the simplified edge first.
            keep[0] = 0
            keep[1] = nsegs
            nkeep = 2
            k = 0
            while k < nkeep - 1:
                ka = keep[k]
                kb = keep[k + 1]
                worst = np.float32(0.0)
                worst_at = -1
                for m in range(ka + 1, kb):
                    dev = _dist_sq_point_segment_f32(edge_points32, m, ka, kb)
                    if dev > worst:
                        worst = dev
                        worst_at = m
                if worst_at != -1 and worst > max_error_sq32:
                    for m in range(nkeep, k + 1, -1):
                        keep[m] = keep[m - 1]
                    keep[k + 1] = worst_at
                    nkeep += 1
                else:
                    k += 1
            # New points in the polygon's order, from corner j towards i.
            for m in range(1, nkeep - 1):
                e = keep[nkeep - 1 - m] if swapped else keep[m]
                points[npoints, 0] = edge_points[e, 0]
                points[npoints, 1] = edge_points[e, 1]
                points[npoints, 2] = edge_points[e, 2]
                points32[npoints, :] = edge_points32[e, :]
                hull[nhull] = npoints
                nhull += 1
                npoints += 1
    else:
        for i in range(ncorners):
            hull[i] = i
        nhull = ncorners

    ntris = triangulate_hull(points32, hull, nhull, ncorners, tris)
    # A sliver or a small polygon gets no interior points.
    if min_extent < distance32 * np.float32(2.0) or ntris == 0 or sample_distance <= 0:
        mark_hull_edges(tris, ntris, hull, nhull)
        return npoints, ntris, samples

    lo_x = corners32[0, 0]
    hi_x = corners32[0, 0]
    lo_y = corners[0, 1]
    hi_y = corners[0, 1]
    lo_z = corners32[0, 2]
    hi_z = corners32[0, 2]
    for i in range(1, ncorners):
        lo_x = min(lo_x, corners32[i, 0])
        hi_x = max(hi_x, corners32[i, 0])
        lo_y = min(lo_y, corners[i, 1])
        hi_y = max(hi_y, corners[i, 1])
        lo_z = min(lo_z, corners32[i, 2])
        hi_z = max(hi_z, corners32[i, 2])
    x0 = int(math.floor(lo_x / distance32))
    x1 = int(math.ceil(hi_x / distance32))
    z0 = int(math.floor(lo_z / distance32))
    z1 = int(math.ceil(hi_z / distance32))
    mid_y = (lo_y + hi_y) * 0.5
    capacity = max(0, x1 - x0) * max(0, z1 - z0)
    if capacity > samples.shape[0]:
        samples = np.empty((capacity, 4), np.int64)
    nsamples = 0
    half32 = distance32 / np.float32(2.0)
    for z in range(z0, z1):
        for x in range(x0, x1):
            px = np.float32(x) * distance32
            pz = np.float32(z) * distance32
            # Not too close to the edges. Recast's rule compares the squared
            # distance (world units squared) with half the spacing; kept, as
            # it decides which samples exist.
            if _signed_dist_sq_to_polygon(corners32, ncorners, px, pz) > -half32:
                continue
            h = patch_height(float(px), mid_y, float(pz), cs, ch, radius, patch, xmin, zmin,
                             pw, ph)
            if h == UNSET:
                continue      # no height data: nothing to fit
            samples[nsamples, 0] = x
            samples[nsamples, 1] = h
            samples[nsamples, 2] = z
            samples[nsamples, 3] = 0
            nsamples += 1

    cs32 = np.float32(cs)
    tenth32 = np.float32(0.1)
    for _ in range(nsamples):
        if npoints >= MAX_VERTS:
            break
        worst = np.float32(0.0)
        worst_at = -1
        for i in range(nsamples):
            if samples[i, 3]:
                continue
            px = (np.float32(samples[i, 0]) * distance32
                  + _jitter(i, 0x8DA6B343) * cs32 * tenth32)
            py = np.float32(samples[i, 1]) * ch32
            pz = (np.float32(samples[i, 2]) * distance32
                  + _jitter(i, 0xD8163841) * cs32 * tenth32)
            d = _vertical_dist_to_mesh(points32, tris, ntris, px, py, pz)
            if d > worst:
                worst = d
                worst_at = i
        if worst <= max_error32 or worst_at == -1:
            break
        samples[worst_at, 3] = 1
        points32[npoints, 0] = (np.float32(samples[worst_at, 0]) * distance32
                                + _jitter(worst_at, 0x8DA6B343) * cs32 * tenth32)
        points32[npoints, 1] = np.float32(samples[worst_at, 1]) * ch32
        points32[npoints, 2] = (np.float32(samples[worst_at, 2]) * distance32
                                + _jitter(worst_at, 0xD8163841) * cs32 * tenth32)
        # The output point in float64: heights exactly whole cell heights.
        points[npoints, 0] = (samples[worst_at, 0] * sample_distance
                              + _jitter(worst_at, 0x8DA6B343) * cs * 0.1)
        points[npoints, 1] = samples[worst_at, 1] * ch
        points[npoints, 2] = (samples[worst_at, 2] * sample_distance
                              + _jitter(worst_at, 0xD8163841) * cs * 0.1)
        npoints += 1
        ntris = delaunay_hull(points32, npoints, hull, nhull, edges, tris)

    ntris = min(ntris, MAX_TRIS)
    mark_hull_edges(tris, ntris, hull, nhull)
    return npoints, ntris, samples


@njit(cache=True, nogil=True)
def _grow_rows(array, needed):
    """``array`` (2D) with room for ``needed`` rows, its rows kept."""
    if needed <= array.shape[0]:
        return array
    bigger = np.empty((max(needed, 2 * array.shape[0]), array.shape[1]), array.dtype)
    bigger[:array.shape[0]] = array
    return bigger


@njit(cache=True, nogil=True)
def build_detail(mesh_verts, mesh_polys, mesh_regions, bmin, cs, ch, bs, chf_width, chf_height,
                 cell_index, cell_count, span_y, neighbors, span_region, sample_distance,
                 sample_max_error, radius):
    """The detail mesh of every polygon: ``(verts, tris, tri_flags,
    vert_offsets, tri_offsets)``, see ``detail.DetailMesh``. Triangles
    have the winding of their polygon."""
    npolys = mesh_polys.shape[0]
    nvp = mesh_polys.shape[1]
    # Each polygon's patch: its cell bounds, one cell of margin.
    bounds = np.empty((npolys, 4), np.int64)
    max_cells = 1
    for p in range(npolys):
        xmin = chf_width
        xmax = 0
        zmin = chf_height
        zmax = 0
        for j in range(nvp):
            v = mesh_polys[p, j]
            if v < 0:
                break
            xmin = min(xmin, mesh_verts[v, 0])
            xmax = max(xmax, mesh_verts[v, 0])
            zmin = min(zmin, mesh_verts[v, 2])
            zmax = max(zmax, mesh_verts[v, 2])
        # Recast's clamp, and the grid's far side (a corner may lie in a
        # tile's border, up to bs cells out).
        xmin = max(0, xmin - 1)
        xmax = min(chf_width - bs, xmax + 1)
        zmin = max(0, zmin - 1)
        zmax = min(chf_height - bs, zmax + 1)
        bounds[p, 0] = xmin
        bounds[p, 1] = zmin
        bounds[p, 2] = max(0, xmax - xmin)
        bounds[p, 3] = max(0, zmax - zmin)
        max_cells = max(max_cells, bounds[p, 2] * bounds[p, 3])

    patch = np.empty(max_cells, np.int32)
    qx = np.empty(max_cells + 1, np.int32)
    qz = np.empty(max_cells + 1, np.int32)
    qs = np.empty(max_cells + 1, np.int32)
    poly_verts = np.empty((nvp, 3), np.int64)
    corners = np.empty((nvp, 3), np.float64)
    corners32 = np.empty((nvp, 3), np.float32)
    cs32 = np.float32(cs)
    ch32 = np.float32(ch)
    points = np.empty((MAX_VERTS + 1, 3), np.float64)
    points32 = np.empty((MAX_VERTS + 1, 3), np.float32)
    hull = np.empty(MAX_VERTS + 1, np.int64)
    edge_points = np.empty((MAX_VERTS_PER_EDGE + 1, 3), np.float64)
    edge_points32 = np.empty((MAX_VERTS_PER_EDGE + 1, 3), np.float32)
    keep = np.empty(MAX_VERTS_PER_EDGE + 1, np.int64)
    tris = np.empty((2 * MAX_VERTS + 2, 4), np.int32)
    edges = np.empty((10 * MAX_VERTS, 4), np.int32)
    samples = np.empty((64, 4), np.int64)

    out_verts = np.empty((max(16, 2 * mesh_verts.shape[0]), 3), np.float64)
    out_tris = np.empty((max(16, 2 * npolys * nvp), 4), np.int32)   # a, b, c, flags
    vert_offsets = np.zeros(npolys + 1, np.int64)
    tri_offsets = np.zeros(npolys + 1, np.int64)
    nverts = 0
    ntris_total = 0
    for p in range(npolys):
        ncorners = 0
        for j in range(nvp):
            v = mesh_polys[p, j]
            if v < 0:
                break
            poly_verts[j, 0] = mesh_verts[v, 0]
            poly_verts[j, 1] = mesh_verts[v, 1]
            poly_verts[j, 2] = mesh_verts[v, 2]
            corners[j, 0] = mesh_verts[v, 0] * cs
            corners[j, 1] = mesh_verts[v, 1] * ch
            corners[j, 2] = mesh_verts[v, 2] * cs
            corners32[j, 0] = np.float32(mesh_verts[v, 0]) * cs32
            corners32[j, 1] = np.float32(mesh_verts[v, 1]) * ch32
            corners32[j, 2] = np.float32(mesh_verts[v, 2]) * cs32
            ncorners += 1
        xmin = bounds[p, 0]
        zmin = bounds[p, 1]
        pw = bounds[p, 2]
        ph = bounds[p, 3]
        if pw > 0 and ph > 0:
            gather_heights(poly_verts, ncorners, mesh_regions[p], bs, chf_width, cell_index,
                           cell_count, span_y, neighbors, span_region, patch, xmin, zmin, pw, ph,
                           qx, qz, qs)
        else:
            pw = 1
            ph = 1
            patch[0] = UNSET
        npoints, ntris, samples = poly_detail(
            corners, corners32, ncorners, sample_distance, sample_max_error, cs, ch, radius,
            patch, xmin, zmin, pw, ph, points, points32, hull, edge_points, edge_points32, keep,
            tris, edges, samples)

        # The polygon's winding sign (its signed area in x-z).
        area = 0.0
        for i in range(ncorners):
            k = i + 1 if i + 1 < ncorners else 0
            area += corners[i, 0] * corners[k, 2] - corners[k, 0] * corners[i, 2]

        out_verts = _grow_rows(out_verts, nverts + npoints)
        for i in range(npoints):
            out_verts[nverts + i, 0] = points[i, 0] + bmin[0]
            out_verts[nverts + i, 1] = points[i, 1] + bmin[1]
            out_verts[nverts + i, 2] = points[i, 2] + bmin[2]
        out_tris = _grow_rows(out_tris, ntris_total + ntris)
        for t in range(ntris):
            a = tris[t, 0]
            b = tris[t, 1]
            c = tris[t, 2]
            flags = tris[t, 3]
            twice = ((points[b, 0] - points[a, 0]) * (points[c, 2] - points[a, 2])
                     - (points[b, 2] - points[a, 2]) * (points[c, 0] - points[a, 0]))
            if twice * area < 0:
                # (a, c, b): edges a-c, c-b, b-a are the old 2, 1, 0.
                b, c = c, b
                flags = ((flags >> 4) & 3) | (flags & 12) | ((flags & 3) << 4)
            out_tris[ntris_total + t, 0] = nverts + a
            out_tris[ntris_total + t, 1] = nverts + b
            out_tris[ntris_total + t, 2] = nverts + c
            out_tris[ntris_total + t, 3] = flags
        nverts += npoints
        ntris_total += ntris
        vert_offsets[p + 1] = nverts
        tri_offsets[p + 1] = ntris_total
    return (out_verts[:nverts].copy(), out_tris[:ntris_total, :3].copy(),
            out_tris[:ntris_total, 3].astype(np.uint8), vert_offsets, tri_offsets)


@njit(cache=True, nogil=True)
def poly_surface_height(verts, tris, first, last, x, z):
    """Height of the triangles ``tris[first:last]`` at ``(x, z)``: the
    triangle covering it, else (a point off the polygon, or in a crack
    of rounding) the nearest point of their edges. NaN without triangles."""
    nearest = np.inf
    height = np.nan
    for t in range(first, last):
        a = tris[t, 0]
        b = tris[t, 1]
        c = tris[t, 2]
        ax = verts[a, 0]
        ay = verts[a, 1]
        az = verts[a, 2]
        v0x, v0y, v0z = from_to(verts, a, c)
        v1x, v1y, v1z = from_to(verts, a, b)
        v2x = x - ax
        v2z = z - az
        denom = v0x * v1z - v0z * v1x
        if denom != 0.0:
            u = v1z * v2x - v1x * v2z
            v = v0x * v2z - v0z * v2x
            if denom < 0:
                denom = -denom
                u = -u
                v = -v
            if u >= 0.0 and v >= 0.0 and u + v <= denom:
                return ay + (v0y * u + v1y * v) / denom
        for k in range(3):
            p = tris[t, k]
            q = tris[t, (k + 1) % 3]
            qx = verts[q, 0] - verts[p, 0]
            qz = verts[q, 2] - verts[p, 2]
            length_sq = qx * qx + qz * qz
            s = 0.0
            if length_sq > 0.0:
                s = min(max((qx * (x - verts[p, 0]) + qz * (z - verts[p, 2])) / length_sq, 0.0),
                        1.0)
            ex = verts[p, 0] + s * qx - x
            ez = verts[p, 2] + s * qz - z
            d = ex * ex + ez * ez
            if d < nearest:
                nearest = d
                height = verts[p, 1] + s * (verts[q, 1] - verts[p, 1])
    return height


@njit(cache=True, nogil=True)
def surface_heights_kernel(verts, tris, tri_offsets, polys, xs, zs):
    out = np.empty(polys.shape[0], np.float64)
    for i in range(polys.shape[0]):
        p = polys[i]
        out[i] = poly_surface_height(verts, tris, tri_offsets[p], tri_offsets[p + 1], xs[i], zs[i])
    return out
