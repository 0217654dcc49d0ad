"""numba kernel of the convex merge (Hertel & Mehlhorn): drop the
diagonals between polygons whose union stays convex.

Private: ``merge.py`` validates and calls it.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _find(parent, f):
    while parent[f] != f:
        parent[f] = parent[parent[f]]
        f = parent[f]
    return f


@njit(cache=True, nogil=True)
def _bends(vertices, x, a, y):
    """Whether the path x -> a -> y turns right at a, or straight back."""
    ux = vertices[a, 0] - vertices[x, 0]
    uy = vertices[a, 1] - vertices[x, 1]
    vx = vertices[y, 0] - vertices[a, 0]
    vy = vertices[y, 1] - vertices[a, 1]
    cross = ux * vy - uy * vx
    return cross < 0.0 or (cross == 0.0 and ux * vx + uy * vy < 0.0)


@njit(cache=True, nogil=True)
def merge_convex(vertices, poly_start, poly_verts, opposite, order, max_sides):
    """Merge polygons across the half-edges in ``order`` (each interior
    edge once, best first) while the merged polygon stays convex (no
    reflex corner; straight ones allowed) and has at most ``max_sides``
    corners. Returns ``(start, verts)``, the new polygons, each
    counter-clockwise from the lowest old half-edge of its loop."""
    start, verts, _ = merge_loops(vertices, poly_start, poly_verts, opposite, order,
                                  max_sides)
    return start, verts


@njit(cache=True, nogil=True)
def merge_loops(vertices, poly_start, poly_verts, opposite, order, max_sides):
    """``merge_convex``, also returning ``first``: the lowest old
    half-edge of each new polygon (its first corner's), so the caller can
    tell which old polygons it came from."""
    e = poly_verts.shape[0]
    p = poly_start.shape[0] - 1
    nxt = np.empty(e, dtype=np.int64)
    prv = np.empty(e, dtype=np.int64)
    face = np.empty(e, dtype=np.int64)
    for f in range(p):
        a, b = poly_start[f], poly_start[f + 1]
        for h in range(a, b):
            nxt[h] = h + 1 if h + 1 < b else a
            prv[h] = h - 1 if h > a else b - 1
            face[h] = f
    parent = np.arange(p)
    sides = np.diff(poly_start).astype(np.int64)
    alive = np.ones(e, dtype=np.bool_)
    for k in range(order.shape[0]):
        h = order[k]
        t = opposite[h]
        if t < 0 or not alive[h]:
            continue
        fa = _find(parent, face[h])
        fb = _find(parent, face[t])
        if fa == fb or sides[fa] + sides[fb] - 2 > max_sides:
            continue
        # h runs a -> b in one polygon, t runs b -> a in the other; without
        # them, a is entered by prv[h] and left by nxt[t], b entered by
        # prv[t] and left by nxt[h]: both turns must not be to the right,
        # nor straight back (two polygons sharing two edges in a row, as
        # around a vertex put into an edge at a T-junction: merging across
        # one would leave the other as a spike)
        a = poly_verts[h]
        b = poly_verts[t]
        if _bends(vertices, poly_verts[prv[h]], a, poly_verts[nxt[nxt[t]]]):
            continue
        if _bends(vertices, poly_verts[prv[t]], b, poly_verts[nxt[nxt[h]]]):
            continue
        nxt[prv[h]] = nxt[t]
        prv[nxt[t]] = prv[h]
        nxt[prv[t]] = nxt[h]
        prv[nxt[h]] = prv[t]
        alive[h] = False
        alive[t] = False
        parent[fb] = fa
        sides[fa] += sides[fb] - 2

    # walk each surviving loop once, from its lowest half-edge
    seen = np.zeros(e, dtype=np.bool_)
    count = 0
    total = 0
    for h in range(e):
        if alive[h] and not seen[h]:
            count += 1
            g = h
            while not seen[g]:
                seen[g] = True
                total += 1
                g = nxt[g]
    start = np.empty(count + 1, dtype=np.int32)
    verts = np.empty(total, dtype=np.int32)
    first = np.empty(count, dtype=np.int64)
    seen[:] = False
    start[0] = 0
    c = 0
    j = 0
    for h in range(e):
        if alive[h] and not seen[h]:
            first[c] = h
            g = h
            while not seen[g]:
                seen[g] = True
                verts[j] = poly_verts[g]
                j += 1
                g = nxt[g]
            c += 1
            start[c] = j
    return start, verts, first
