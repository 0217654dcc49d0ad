"""Triangulations of one polygon's detail points, in the x-z plane (numba).

Points are rows ``(x, y, z)`` of a float32 array (Recast's precision: its
choices between near-equal distances on a grid of samples are the ones
made here); only ``x`` and ``z`` matter. The hull is the polygon's outline (its corners and the points
sampled on its edges) as point indices in order. Two triangulations, as
Recast makes them:

* :func:`triangulate_hull` fans the outline alone, stepping along it from
  the ear of shortest perimeter and always taking the shorter of the two
  next diagonals (good triangles for long, finely split edges);
* :func:`delaunay_hull` triangulates all points inside the outline by
  growing triangles off open edges, each edge's third point being the one
  whose circumcircle holds no other point (Recast's ``delaunayHull``).

Triangles come out as rows ``(a, b, c, 0)`` of an int32 array (the last
column is for the edge flags :func:`mark_hull_edges` sets).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

#: An edge side with no triangle found yet.
SIDE_OPEN = -1
#: An edge side outside the outline.
SIDE_OUTSIDE = -2
#: Flag of a triangle edge on the polygon's outline, per edge ``k`` shifted
#: by ``2 * k`` (Detour's ``DT_DETAIL_EDGE_BOUNDARY``).
EDGE_ON_OUTLINE = 1


@njit(cache=True, nogil=True, inline="always")
def cross_xz(points, a, b, c):
    """Twice the signed area of triangle ``a, b, c`` in the x-z plane."""
    u1 = points[b, 0] - points[a, 0]
    v1 = points[b, 2] - points[a, 2]
    u2 = points[c, 0] - points[a, 0]
    v2 = points[c, 2] - points[a, 2]
    return u1 * v2 - v1 * u2


@njit(cache=True, nogil=True, inline="always")
def dist_xz(points, a, b):
    dx = points[b, 0] - points[a, 0]
    dz = points[b, 2] - points[a, 2]
    return np.float32(math.sqrt(dx * dx + dz * dz))


@njit(cache=True, nogil=True)
def circumcircle(points, a, b, c):
    """``(center_x, center_z, radius)`` of the circle through three points;
    radius 0 and the first point as centre when they are (nearly) on a line."""
    ax = points[a, 0]
    az = points[a, 2]
    # Relative to the first point, for precision.
    bx = points[b, 0] - ax
    bz = points[b, 2] - az
    cx = points[c, 0] - ax
    cz = points[c, 2] - az
    twice_area = bx * cz - bz * cx
    if abs(twice_area) <= np.float32(1e-6):
        return ax, az, np.float32(0.0)
    b_sq = bx * bx + bz * bz
    c_sq = cx * cx + cz * cz
    two = np.float32(2.0)
    ox = (b_sq * cz - c_sq * bz) / (two * twice_area)
    oz = (c_sq * bx - b_sq * cx) / (two * twice_area)
    return ax + ox, az + oz, np.float32(math.sqrt(ox * ox + oz * oz))


@njit(cache=True, nogil=True)
def triangulate_hull(points, hull, nhull, ncorners, tris):
    """Fan the outline ``hull[:nhull]`` into ``nhull - 2`` triangles
    written to ``tris``; returns their count. Ears are only tried at the
    polygon's corners (indices below ``ncorners``): a point sampled on an
    edge lies on a straight line with its outline neighbours."""
    if nhull < 3:
        return 0
    start = 0
    left = 1
    right = nhull - 1
    best = np.inf
    for i in range(nhull):
        if hull[i] >= ncorners:
            continue
        before = i - 1 if i > 0 else nhull - 1
        after = i + 1 if i + 1 < nhull else 0
        perimeter = (dist_xz(points, hull[before], hull[i]) + dist_xz(points, hull[i], hull[after])
                     + dist_xz(points, hull[after], hull[before]))
        if perimeter < best:
            start, left, right, best = i, after, before, perimeter
    ntris = 0
    tris[ntris, 0] = hull[start]
    tris[ntris, 1] = hull[left]
    tris[ntris, 2] = hull[right]
    tris[ntris, 3] = 0
    ntris += 1
    while True:
        next_left = left + 1 if left + 1 < nhull else 0
        if next_left == right:
            break
        next_right = right - 1 if right > 0 else nhull - 1
        via_left = (dist_xz(points, hull[left], hull[next_left])
                    + dist_xz(points, hull[next_left], hull[right]))
        via_right = (dist_xz(points, hull[right], hull[next_right])
                     + dist_xz(points, hull[left], hull[next_right]))
        tris[ntris, 0] = hull[left]
        tris[ntris, 3] = 0
        if via_left < via_right:
            tris[ntris, 1] = hull[next_left]
            tris[ntris, 2] = hull[right]
            left = next_left
        else:
            tris[ntris, 1] = hull[next_right]
            tris[ntris, 2] = hull[right]
            right = next_right
        ntris += 1
    return ntris


# Delaunay: ``edges`` rows are (start, end, left side, right side); a side
# is a triangle number, SIDE_OPEN or SIDE_OUTSIDE.

@njit(cache=True, nogil=True)
def _find_edge(edges, nedges, s, t):
    for i in range(nedges):
        if (edges[i, 0] == s and edges[i, 1] == t) or (edges[i, 0] == t and edges[i, 1] == s):
            return i
    return -1


@njit(cache=True, nogil=True)
def _add_edge(edges, nedges, s, t, left, right):
    """Appends edge ``s -> t`` unless it is there or ``edges`` is full;
    returns the new edge count."""
    if nedges >= edges.shape[0] or _find_edge(edges, nedges, s, t) >= 0:
        return nedges
    edges[nedges, 0] = s
    edges[nedges, 1] = t
    edges[nedges, 2] = left
    edges[nedges, 3] = right
    return nedges + 1


@njit(cache=True, nogil=True)
def _set_left_face(edges, e, s, t, face):
    """Records ``face`` on the left of ``s -> t`` if that side is open."""
    if edges[e, 0] == s and edges[e, 1] == t and edges[e, 2] == SIDE_OPEN:
        edges[e, 2] = face
    elif edges[e, 1] == s and edges[e, 0] == t and edges[e, 3] == SIDE_OPEN:
        edges[e, 3] = face


@njit(cache=True, nogil=True)
def _segments_cross(points, a, b, c, d):
    """Whether segments ``a-b`` and ``c-d`` cross properly."""
    a1 = cross_xz(points, a, b, d)
    a2 = cross_xz(points, a, b, c)
    if a1 * a2 < 0:
        a3 = cross_xz(points, c, d, a)
        a4 = a3 + a2 - a1
        if a3 * a4 < 0:
            return True
    return False


@njit(cache=True, nogil=True)
def _crosses_any_edge(points, edges, nedges, s, t):
    for i in range(nedges):
        s0 = edges[i, 0]
        t0 = edges[i, 1]
        if s0 == s or s0 == t or t0 == s or t0 == t:
            continue          # edges sharing an end do not cross
        if _segments_cross(points, s0, t0, s, t):
            return True
    return False


@njit(cache=True, nogil=True)
def _complete_facet(points, npts, edges, nedges, nfaces, e):
    """Closes the open side of edge ``e`` with a triangle (or marks it
    outside when no point lies on that side); returns
    ``(nedges, nfaces)``."""
    if edges[e, 2] == SIDE_OPEN:
        s = edges[e, 0]
        t = edges[e, 1]
    elif edges[e, 3] == SIDE_OPEN:
        s = edges[e, 1]
        t = edges[e, 0]
    else:
        return nedges, nfaces
    best = npts
    cx = np.float32(0.0)
    cz = np.float32(0.0)
    radius = np.float32(-1.0)
    tolerance = np.float32(0.001)
    one = np.float32(1.0)
    for u in range(npts):
        if u == s or u == t:
            continue
        if cross_xz(points, s, t, u) <= np.float32(1e-5):
            continue          # not on the left of s -> t
        if radius < 0.0:
            best = u
            cx, cz, radius = circumcircle(points, s, t, u)
            continue
        dx = points[u, 0] - cx
        dz = points[u, 2] - cz
        d = np.float32(math.sqrt(dx * dx + dz * dz))
        if d > radius * (one + tolerance):
            continue          # outside the current circle
        if d >= radius * (one - tolerance):
            # On the circle within tolerance: take u only if its edges to
            # s and t cross no edge made so far.
            if _crosses_any_edge(points, edges, nedges, s, u):
                continue
            if _crosses_any_edge(points, edges, nedges, t, u):
                continue
        best = u
        cx, cz, radius = circumcircle(points, s, t, u)
    if best < npts:
        _set_left_face(edges, e, s, t, nfaces)
        f = _find_edge(edges, nedges, best, s)
        if f < 0:
            nedges = _add_edge(edges, nedges, best, s, nfaces, SIDE_OPEN)
        else:
            _set_left_face(edges, f, best, s, nfaces)
        f = _find_edge(edges, nedges, t, best)
        if f < 0:
            nedges = _add_edge(edges, nedges, t, best, nfaces, SIDE_OPEN)
        else:
            _set_left_face(edges, f, t, best, nfaces)
        nfaces += 1
    else:
        _set_left_face(edges, e, s, t, SIDE_OUTSIDE)
    return nedges, nfaces


@njit(cache=True, nogil=True, inline="always")
def _attach_edge(tris, nfaces, face, first, second):
    """Puts edge ``first -> second`` into triangle ``face`` (which runs
    in that direction along it): its first two corners, or its third."""
    if not 0 <= face < nfaces:
        return
    if tris[face, 0] == -1:
        tris[face, 0] = first
        tris[face, 1] = second
    elif tris[face, 0] == second:
        tris[face, 2] = first
    elif tris[face, 1] == first:
        tris[face, 2] = second


@njit(cache=True, nogil=True)
def delaunay_hull(points, npts, hull, nhull, edges, tris):
    """Delaunay triangulation of ``points[:npts]`` inside the outline
    ``hull[:nhull]`` (whose inside is on the right of each outline edge,
    the polygon mesh's winding); ``edges`` is scratch of ``10 * npts``
    rows or more. Returns the triangle count written to ``tris``."""
    nedges = 0
    for i in range(nhull):
        j = i - 1 if i > 0 else nhull - 1
        nedges = _add_edge(edges, nedges, hull[j], hull[i], SIDE_OUTSIDE, SIDE_OPEN)
    nfaces = 0
    e = 0
    while e < nedges:
        if edges[e, 2] == SIDE_OPEN:
            nedges, nfaces = _complete_facet(points, npts, edges, nedges, nfaces, e)
        if edges[e, 3] == SIDE_OPEN:
            nedges, nfaces = _complete_facet(points, npts, edges, nedges, nfaces, e)
        e += 1
    nfaces = min(nfaces, tris.shape[0])
    tris[:nfaces, :] = -1
    for i in range(nedges):
        s = edges[i, 0]
        t = edges[i, 1]
        # The face on the right of s -> t runs s, t, ...; on its left t, s, ...
        _attach_edge(tris, nfaces, edges[i, 3], s, t)
        _attach_edge(tris, nfaces, edges[i, 2], t, s)
    # Drop faces left incomplete (the edge table filled up, or degenerate
    # input), moving the last face into their place.
    i = 0
    while i < nfaces:
        if tris[i, 0] == -1 or tris[i, 1] == -1 or tris[i, 2] == -1:
            nfaces -= 1
            tris[i, 0] = tris[nfaces, 0]
            tris[i, 1] = tris[nfaces, 1]
            tris[i, 2] = tris[nfaces, 2]
        else:
            tris[i, 3] = 0
            i += 1
    return nfaces


@njit(cache=True, nogil=True, inline="always")
def _on_outline(a, b, hull, nhull):
    # Outline points are numbered before the interior samples.
    if a >= nhull or b >= nhull:
        return False
    j = nhull - 1
    for i in range(nhull):
        if (a == hull[j] and b == hull[i]) or (a == hull[i] and b == hull[j]):
            return True
        j = i
    return False


@njit(cache=True, nogil=True)
def mark_hull_edges(tris, ntris, hull, nhull):
    """Sets column 3 of each triangle: bit ``2 * k`` when its edge ``k``
    (vertex ``k`` to ``k + 1``) lies on the outline."""
    for i in range(ntris):
        flags = 0
        for k in range(3):
            a = tris[i, k]
            b = tris[i, (k + 1) % 3]
            if _on_outline(a, b, hull, nhull):
                flags |= EDGE_ON_OUTLINE << (2 * k)
        tris[i, 3] = flags
