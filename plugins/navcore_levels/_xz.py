"""Exact integer predicates on the xz plane for the contour and polygon
stages: orientation, segment intersection, diagonals of a ring.

Points are cell-corner coordinates ``(x, z)``. Orientation follows
Recast: ``left(a, b, c)`` holds when ``c`` lies on the side of ``a -> b``
that makes the cross product ``(b - a) x (c - a)`` negative, which is the
inside of a polygon wound as the pipeline winds them (see
:class:`navcore_levels.heightfield.PolyMesh`).
"""
from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True, inline="always")
def area2(ax, az, bx, bz, cx, cz):
    """Twice the signed area of triangle ``abc`` (int64)."""
    return (bx - ax) * (cz - az) - (cx - ax) * (bz - az)


@njit(cache=True, nogil=True, inline="always")
def left(ax, az, bx, bz, cx, cz):
    return area2(ax, az, bx, bz, cx, cz) < 0


@njit(cache=True, nogil=True, inline="always")
def left_on(ax, az, bx, bz, cx, cz):
    return area2(ax, az, bx, bz, cx, cz) <= 0


@njit(cache=True, nogil=True, inline="always")
def collinear(ax, az, bx, bz, cx, cz):
    return area2(ax, az, bx, bz, cx, cz) == 0


@njit(cache=True, nogil=True)
def crosses_properly(ax, az, bx, bz, cx, cz, dx, dz):
    """Segments ``ab`` and ``cd`` share a point interior to both (no three
    of the points collinear)."""
    if collinear(ax, az, bx, bz, cx, cz) or collinear(ax, az, bx, bz, dx, dz) or \
            collinear(cx, cz, dx, dz, ax, az) or collinear(cx, cz, dx, dz, bx, bz):
        return False
    return (left(ax, az, bx, bz, cx, cz) != left(ax, az, bx, bz, dx, dz)) and \
        (left(cx, cz, dx, dz, ax, az) != left(cx, cz, dx, dz, bx, bz))


@njit(cache=True, nogil=True)
def on_segment(ax, az, bx, bz, cx, cz):
    """``c`` is collinear with ``ab`` and lies on the closed segment."""
    if not collinear(ax, az, bx, bz, cx, cz):
        return False
    if ax != bx:
        return (ax <= cx <= bx) or (ax >= cx >= bx)
    return (az <= cz <= bz) or (az >= cz >= bz)


@njit(cache=True, nogil=True)
def segments_touch(ax, az, bx, bz, cx, cz, dx, dz):
    """Segments ``ab`` and ``cd`` share any point (crossing, or one end on
    the other segment)."""
    if crosses_properly(ax, az, bx, bz, cx, cz, dx, dz):
        return True
    return on_segment(ax, az, bx, bz, cx, cz) or on_segment(ax, az, bx, bz, dx, dz) or \
        on_segment(cx, cz, dx, dz, ax, az) or on_segment(cx, cz, dx, dz, bx, bz)


@njit(cache=True, nogil=True)
def in_cone(px, pz, prev_x, prev_z, next_x, next_z, qx, qz, loose):
    """Whether the segment from ring vertex ``p`` (between ``prev`` and
    ``next``) towards ``q`` starts inside the ring's interior angle at
    ``p``. ``loose`` admits a segment along either edge of a convex
    corner (the triangulator's fallback for overlapping segments)."""
    if left_on(prev_x, prev_z, px, pz, next_x, next_z):     # convex corner
        if loose:
            return left_on(px, pz, qx, qz, prev_x, prev_z) and \
                left_on(qx, qz, px, pz, next_x, next_z)
        return left(px, pz, qx, qz, prev_x, prev_z) and left(qx, qz, px, pz, next_x, next_z)
    return not (left_on(px, pz, qx, qz, next_x, next_z) and
                left_on(qx, qz, px, pz, prev_x, prev_z))
