"""numba kernels of Polyanya: exact any-angle search over a convex-polygon
mesh (Cui, Harabor & Grastien, IJCAI 2017).

Private: ``polyanya.py`` validates and calls them.

A search node is a root (the start or a mesh vertex where the path last
turned), an interval ``[L, R]`` on an edge of the mesh every point of which
the root sees, and the polygon beyond that edge. Expanding a node projects
the interval through the polygon: the far edges the root sees directly are
*observable* successors (same root); the rest can only be reached by
turning at ``L`` or ``R``, which is allowed only when that end is a mesh
vertex touching a wall (a *corner*), and gives *non-observable* successors
rooted there. ``f = g + h`` where ``h`` is the exact distance from the root
through the interval to the goal (the goal reflected across the interval's
line when it lies on the root's side), so the first node popped in a
polygon holding the goal ends the optimal path.

Pruning, as in the paper: a root vertex reached before at a lower ``g``
dominates later nodes rooted there (``root_g``, stamped per query); beyond
the paper, a new turn at a vertex another node already turned at as cheaply
is dropped too (ties: ``root_g[V + r]`` keeps the node that turned there;
kept, ties multiply at every corner of a pillar lattice); dead-end
polygons (one neighbour) without the goal are never entered; a node with a
single successor is expanded on the spot instead of being pushed.

Node frame: the node's polygon ``P`` is entered through its edge ``e``
(a position in ``poly_verts``, from vertex ``poly_verts[e]`` to the next).
Seen from the root, ``poly_verts[e]`` is the left end of that edge and the
next vertex the right end, since polygons are counter-clockwise. Walking
``P`` counter-clockwise from the right end reaches the left end through
the far edges ("the chain", ``c_0`` right end to ``c_{N-1}`` left end).

Scratch layout (one set per thread, ``polyanya.py``): node pool
``nf[i] = (Lx, Ly, Rx, Ry, g, f)`` and ``ni[i] = (root, parent, polygon,
entry edge, heap slot)``; the binary heap of ``navcore._kernels`` over node
ids in ``hid`` keyed by ``f`` in ``hkey`` (ties: lower id, so answers are
deterministic); per-vertex ``root_g`` (then, at ``V + r``,
the node that turned at ``r``)/``root_stamp``;
per-polygon ``goal_stamp``; ``state[0]`` the stamp generation (the last
three packed into two arrays, see ``unpack``).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from navcore._kernels import find, heap_pop, heap_push, union_min

from ._locate import edge_ends, inside

FOUND = 0
NO_PATH = 1
START_OFF_MESH = 2
GOAL_OFF_MESH = 3
OUT_OF_NODES = 4
#: the search stopped at its budget (``_search``); the next call goes on
PAUSED = 5

#: a search's registers, the last ``NUM_REGS`` of its ``work`` (int32, see
#: ``unpack``): nodes made, heap size, nodes closed (-1: begin anew), the
#: closed node of least heuristic, whether to keep that one (0: no, as
#: ``find_path``), the most nodes to close in the next call (all counts
#: stay below the node pool's size, an int32)
R_N, R_SIZE, R_EXPANDED, R_BEST, R_TRACK, R_BUDGET = 0, 1, 2, 3, 4, 5
NUM_REGS = 6
#: ``R_BUDGET`` of a search run whole (``find_path``)
WHOLE = 2147483647

OBSERVABLE = 0
TURN_RIGHT = 1
TURN_LEFT = 2

@njit(cache=True, nogil=True)
def _holding(px, py, seed, vertices, poly_start, poly_verts, poly_adj, walkable,
             incidence, tol, out):
    """Every walkable polygon holding ``(px, py)`` into ``out``, found from
    ``seed`` (one of them, from the locate index) across the edges the
    point lies on: a point on an edge is in both polygons, on a vertex in
    all those around it (those joined by edges: across a pinch point, where
    polygons share only the vertex, is the other side). Returns how many
    (at most ``out.size``); 0 when ``seed`` does not hold the point."""
    if seed < 0 or not walkable[seed] or \
            not inside(px, py, vertices, poly_start, poly_verts, seed, tol):
        return 0
    out[0] = seed
    k = 1
    # on a vertex: every walkable polygon around it, also those across a
    # pinch (sharing only that vertex), which no edge leads to
    first = poly_start[seed]
    last = poly_start[seed + 1] - 1
    for e in range(first, last + 1):
        v = poly_verts[e]
        if vertices[v, 0] == px and vertices[v, 1] == py:
            for j in range(incidence[v], incidence[v + 1]):
                q = incidence[j]
                if q != seed and walkable[q] and k < out.shape[0]:
                    out[k] = q
                    k += 1
            return k
    i = 0
    while i < k:
        p = out[i]
        first = poly_start[p]
        last = poly_start[p + 1] - 1
        for e in range(first, last + 1):
            q = poly_adj[e]
            if q < 0 or not walkable[q]:
                continue
            ax, ay, bx, by = edge_ends(e, first, last, poly_verts, vertices)
            if not on_edge(px, py, ax, ay, bx, by, tol, tol):
                continue                    # the point is not on this edge
            seen = False
            for j in range(k):
                if out[j] == q:
                    seen = True
                    break
            if not seen and k < out.shape[0]:
                out[k] = q
                k += 1
        i += 1
    return k


@njit(cache=True, nogil=True)
def h_value(rx, ry, lx, ly, qx, qy, gx, gy, eps):
    """Exact length from root ``r`` through the interval ``[l, q]`` to
    goal ``g`` when nothing else is in the way: a lower bound otherwise."""
    if (rx == lx and ry == ly) or (rx == qx and ry == qy):
        return np.sqrt((gx - rx) ** 2 + (gy - ry) ** 2)
    dx, dy = qx - lx, qy - ly
    side_root = dx * (ry - ly) - dy * (rx - lx)
    side_goal = dx * (gy - ly) - dy * (gx - lx)
    if (side_root > 0.0) == (side_goal > 0.0):
        # the goal is on the root's side: reflect it across the line
        vx, vy = gx - lx, gy - ly
        dd = dx * dx + dy * dy
        s = (vx * dx + vy * dy) / dd
        gx = lx + 2.0 * s * dx - vx
        gy = ly + 2.0 * s * dy - vy
    denom = (gx - rx) * dy - (gy - ry) * dx
    if abs(denom) <= eps:
        # root, goal and interval on one line: through the nearer end
        dl = (lx - rx) ** 2 + (ly - ry) ** 2
        dq = (qx - rx) ** 2 + (qy - ry) ** 2
        if dl < dq:
            return np.sqrt(dl) + np.sqrt((gx - lx) ** 2 + (gy - ly) ** 2)
        return np.sqrt(dq) + np.sqrt((gx - qx) ** 2 + (gy - qy) ** 2)
    t = ((gx - lx) * (ry - ly) - (gy - ly) * (rx - lx)) / denom
    if t < 0.0:
        return (np.sqrt((lx - rx) ** 2 + (ly - ry) ** 2)
                + np.sqrt((gx - lx) ** 2 + (gy - ly) ** 2))
    if t > 1.0:
        return (np.sqrt((qx - rx) ** 2 + (qy - ry) ** 2)
                + np.sqrt((gx - qx) ** 2 + (gy - qy) ** 2))
    return np.sqrt((gx - rx) ** 2 + (gy - ry) ** 2)


@njit(cache=True, nogil=True)
def _meet(ax, ay, bx, by, rx, ry, px, py):
    """Where line ``a -> b`` meets the line from ``r`` through ``p``,
    clamped to the segment ``[a, b]``."""
    ex, ey = bx - ax, by - ay
    wx, wy = px - rx, py - ry
    den = ex * wy - ey * wx
    if den == 0.0:
        return ax, ay
    t = ((rx - ax) * wy - (ry - ay) * wx) / den
    if t <= 0.0:
        return ax, ay
    if t >= 1.0:
        return bx, by
    return ax + t * ex, ay + t * ey


@njit(cache=True, nogil=True, inline="always")
def _whole_edges(kind, k0, k1, first, le, n, poly_verts, vertices, s_type, s_pts, s_edge,
                 out):
    """Successors of ``kind`` on the whole far edges ``(c_k, c_{k+1})``
    for ``k`` in ``k0..k1-1`` of the chain (see ``successors``), written
    from ``out`` on; returns the new count. Inlined at numba's IR level: as
    a call it took many arrays per expansion and cost 10-14% of a query."""
    for k in range(k0, k1):
        i0 = le + 1 + k
        i0 = i0 - n if i0 >= n else i0
        i1 = i0 + 1 if i0 + 1 < n else 0
        a = poly_verts[first + i0]
        b = poly_verts[first + i1]
        s_type[out] = kind
        s_pts[out, 0], s_pts[out, 1] = vertices[b, 0], vertices[b, 1]
        s_pts[out, 2], s_pts[out, 3] = vertices[a, 0], vertices[a, 1]
        s_edge[out] = first + i0
        out += 1
    return out


@njit(cache=True, nogil=True, inline="always")
def entry_corners(poly, entry, poly_start, poly_verts):
    """``(right, left)``: the corners of edge ``entry`` of ``poly`` as a
    search entering the polygon across it sees them (the edge runs from
    ``left`` to ``right``, counter-clockwise)."""
    first = poly_start[poly]
    nv = poly_start[poly + 1] - first
    return poly_verts[first + (entry - first + 1) % nv], poly_verts[entry]


@njit(cache=True, nogil=True)
def successors(vertices, poly_start, poly_verts, corner, poly, entry,
               rx, ry, lx, ly, qx, qy, eps, s_type, s_pts, s_edge):
    """Successors of the node rooted at ``r`` with interval ``[l, q]``
    (``l`` left, ``q`` right) on edge ``entry`` of ``poly``: each one's
    kind (OBSERVABLE, TURN_RIGHT, TURN_LEFT), its interval on a far edge
    (``s_pts[k] = (Lx, Ly, Rx, Ry)`` in the frame of the polygon beyond)
    and that edge (a position in ``poly_verts``). Returns the count."""
    first = poly_start[poly]
    n = poly_start[poly + 1] - first
    le = entry - first
    right_v = poly_verts[first + (le + 1) % n]       # c_0
    left_v = poly_verts[entry]                        # c_{n-1}
    out = 0

    # root on the interval's line: the polygon is entered sliding along
    # the edge, so turn at the end nearer the root (if it is a corner)
    root_eq_l = rx == lx and ry == ly
    root_eq_r = rx == qx and ry == qy
    orient = (lx - rx) * (qy - ry) - (ly - ry) * (qx - rx)
    if root_eq_l or root_eq_r or abs(orient) <= eps:
        dl = (lx - rx) ** 2 + (ly - ry) ** 2
        dq = (qx - rx) ** 2 + (qy - ry) ** 2
        ax, ay = vertices[left_v, 0], vertices[left_v, 1]
        bx, by = vertices[right_v, 0], vertices[right_v, 1]
        if (ax - rx) * (bx - rx) + (ay - ry) * (by - ry) <= 0.0:
            # the root lies on the entry edge itself (a vertex of a sliver,
            # or an end of the edge): on the border of the convex polygon,
            # it sees all of it, so every far edge, without a turn
            kind = OBSERVABLE
        elif root_eq_l or (not root_eq_r and dl < dq):
            if not corner[left_v]:
                return 0
            kind = TURN_LEFT
        else:
            if not corner[right_v]:
                return 0
            kind = TURN_RIGHT
        out = _whole_edges(kind, 0, n - 1, first, le, n, poly_verts, vertices,
                           s_type, s_pts, s_edge, out)
        return out

    right_is_vertex = qx == vertices[right_v, 0] and qy == vertices[right_v, 1]
    left_is_vertex = lx == vertices[left_v, 0] and ly == vertices[left_v, 1]
    wrx, wry = qx - rx, qy - ry                      # the right ray
    wlx, wly = lx - rx, ly - ry                      # the left ray

    # A: the first chain vertex strictly left of the right ray (inside the
    # cone's right side); the ray leaves the polygon on edge (c_{A-1}, c_A)
    A = n - 1
    c1 = poly_verts[first + (le + 2) % n]
    if right_is_vertex and wrx * (vertices[c1, 1] - qy) - wry * (vertices[c1, 0] - qx) > -eps:
        A = 1
    else:
        for k in range(1, n):
            i = le + 1 + k
            i = i - n if i >= n else i
            v = poly_verts[first + i]
            if wrx * (vertices[v, 1] - qy) - wry * (vertices[v, 0] - qx) > eps:
                A = k
                break
    # B: the last chain vertex strictly right of the left ray; that ray
    # leaves the polygon on edge (c_B, c_{B+1})
    B = A - 1
    c2 = poly_verts[first + (le + n - 1) % n]      # c_{n-2}
    if left_is_vertex and wlx * (vertices[c2, 1] - ly) - wly * (vertices[c2, 0] - lx) < eps:
        B = n - 2
    else:
        for k in range(n - 2, A - 2, -1):
            i = le + 1 + k
            i = i - n if i >= n else i
            v = poly_verts[first + i]
            if wlx * (vertices[v, 1] - ly) - wly * (vertices[v, 0] - lx) < -eps:
                B = k
                break

    # chain positions of c_{A-1}, c_A, c_B, c_{B+1}
    iam1 = le + A
    iam1 = iam1 - n if iam1 >= n else iam1
    ia = iam1 + 1 if iam1 + 1 < n else 0
    ib = le + 1 + B
    ib = ib - n if ib >= n else ib
    ibp1 = ib + 1 if ib + 1 < n else 0
    vam1 = poly_verts[first + iam1]
    va = poly_verts[first + ia]
    vb = poly_verts[first + ib]
    vbp1 = poly_verts[first + ibp1]
    # where the rays leave the polygon; a ray through a vertex (within
    # eps) leaves exactly at that vertex, so the next node can turn there
    if right_is_vertex and A == 1:
        rix, riy = qx, qy
    elif wrx * (vertices[vam1, 1] - qy) - wry * (vertices[vam1, 0] - qx) >= -eps:
        rix, riy = vertices[vam1, 0], vertices[vam1, 1]
    else:
        rix, riy = _meet(vertices[vam1, 0], vertices[vam1, 1], vertices[va, 0],
                         vertices[va, 1], rx, ry, qx, qy)
    if left_is_vertex and B == n - 2:
        lix, liy = lx, ly
    elif wlx * (vertices[vbp1, 1] - ly) - wly * (vertices[vbp1, 0] - lx) <= eps:
        lix, liy = vertices[vbp1, 0], vertices[vbp1, 1]
    else:
        lix, liy = _meet(vertices[vb, 0], vertices[vb, 1], vertices[vbp1, 0],
                         vertices[vbp1, 1], rx, ry, lx, ly)

    if right_is_vertex and corner[right_v]:
        # the chain right of the cone, turning at the right end
        out = _whole_edges(TURN_RIGHT, 0, A - 1, first, le, n, poly_verts, vertices,
                           s_type, s_pts, s_edge, out)
        if rix != vertices[vam1, 0] or riy != vertices[vam1, 1]:
            s_type[out] = TURN_RIGHT
            s_pts[out, 0], s_pts[out, 1] = rix, riy
            s_pts[out, 2], s_pts[out, 3] = vertices[vam1, 0], vertices[vam1, 1]
            s_edge[out] = first + iam1
            out += 1

    if A == B + 1:
        # one observable interval, on edge (c_{A-1}, c_A)
        s_type[out] = OBSERVABLE
        s_pts[out, 0], s_pts[out, 1] = lix, liy
        s_pts[out, 2], s_pts[out, 3] = rix, riy
        s_edge[out] = first + iam1
        out += 1
    elif A <= B:
        s_type[out] = OBSERVABLE
        s_pts[out, 0], s_pts[out, 1] = vertices[va, 0], vertices[va, 1]
        s_pts[out, 2], s_pts[out, 3] = rix, riy
        s_edge[out] = first + iam1
        out += 1
        out = _whole_edges(OBSERVABLE, A, B, first, le, n, poly_verts, vertices,
                           s_type, s_pts, s_edge, out)
        s_type[out] = OBSERVABLE
        s_pts[out, 0], s_pts[out, 1] = lix, liy
        s_pts[out, 2], s_pts[out, 3] = vertices[vb, 0], vertices[vb, 1]
        s_edge[out] = first + ib
        out += 1
    # (A == B + 2: the cone sees no far edge, nothing observable)

    if left_is_vertex and corner[left_v]:
        # the chain left of the cone, turning at the left end
        if lix != vertices[vbp1, 0] or liy != vertices[vbp1, 1]:
            s_type[out] = TURN_LEFT
            s_pts[out, 0], s_pts[out, 1] = vertices[vbp1, 0], vertices[vbp1, 1]
            s_pts[out, 2], s_pts[out, 3] = lix, liy
            s_edge[out] = first + ib
            out += 1
        out = _whole_edges(TURN_LEFT, B + 1, n - 1, first, le, n, poly_verts, vertices,
                           s_type, s_pts, s_edge, out)
    return out


@njit(cache=True, nogil=True)
def search(vertices, poly_start, poly_verts, poly_adj, poly_opposite, corner, walkable,
           one_way, incidence, params, sx, sy, s_seed, gx, gy, g_seed, nf, ni, hkey, hid,
           root_g, stamps, work, s_pts):
    """One query from ``s`` to ``g``, closing at most ``R_BUDGET`` search
    nodes in this call. Returns ``(status, points, polygons, length,
    expanded)``; the arrays are empty unless the status is FOUND (see
    ``trace``). PAUSED: the budget ran out first; the next call with the
    same ends carries on from its registers (``_search``). The arguments
    are :class:`Mesh`'s arrays, the ends and :class:`ScratchArrays`'s
    arrays one by one, not as those two tuples: numba unboxes a tuple of
    arrays slower than as many arrays (0.5 us more a call, measured, 6% of
    a short query). Small arrays are packed instead (``unpack``; the
    registers and the budget too): every array handed to a numba call
    costs about 0.1 us of dispatch, a third of a short query's search."""
    mesh = (vertices, poly_start, poly_verts, poly_adj, poly_opposite, corner, walkable,
            one_way, incidence, params)
    scratch = (nf, ni, hkey, hid, root_g, stamps, work, s_pts)
    status, node, turn, expanded = _search(mesh, scratch, unpack(mesh, scratch), sx, sy,
                                           s_seed, gx, gy, g_seed)
    if status == FOUND:
        points, polygons, length = trace(vertices, nf, ni, node, turn, sx, sy, gx, gy)
        return status, points, polygons, length, expanded
    return status, np.empty((0, 2)), np.empty(0, dtype=np.int32), 0.0, expanded


@njit(cache=True, nogil=True)
def partial(vertices, nf, ni, work, sx, sy, gx, gy):
    """The path to the search node closed so far whose heuristic is the
    least (``scratch.regs[R_BEST]``, -1: none yet), as ``trace`` gives it:
    the start, the turns, its root, then the point of its interval nearest
    the goal (the root sees all of the interval). ``polygons`` end with
    the polygon beyond that interval; the caller ends the path at that
    polygon's centroid. Empty arrays when there is no such node."""
    best = work[work.shape[0] - NUM_REGS + R_BEST]
    if best < 0:
        return np.empty((0, 2)), np.empty(0, dtype=np.int32), 0.0
    lx, ly, qx, qy = nf[best, 0], nf[best, 1], nf[best, 2], nf[best, 3]
    dx, dy = qx - lx, qy - ly
    dd = dx * dx + dy * dy
    t = 0.0 if dd == 0.0 else ((gx - lx) * dx + (gy - ly) * dy) / dd
    t = min(max(t, 0.0), 1.0)
    return trace(vertices, nf, ni, best, 0, sx, sy, lx + t * dx, ly + t * dy)


@njit(cache=True, nogil=True)
def unpack(mesh, scratch):
    """The packed arrays of :class:`Mesh` ``mesh`` and :class:`ScratchArrays`
    ``scratch`` apart. ``params``: float64 ``(tol, eps,
    geps)``, the tolerances (``polyanya.SearchSpace``); ``stamps``:
    int32, the vertices' root stamps then the polygons' goal stamps;
    ``work``: int32, the stamp generation, room for the start's and the
    goal's polygons (each may be in all of them: a vertex of a fan), then
    ``k`` successor kinds, ``k`` successor edges and the registers."""
    vertices, poly_start, params = mesh[0], mesh[1], mesh[9]
    stamps, work, k = scratch[5], scratch[6], scratch[7].shape[0]
    num_vertices = vertices.shape[0]
    m = 1 + 2 * (poly_start.shape[0] - 1)
    return (params[0], params[1], params[2], stamps[:num_vertices], stamps[num_vertices:],
            work[:1], work[1:m], work[m:m + k], work[m + k:m + 2 * k],
            work[m + 2 * k:m + 2 * k + NUM_REGS])


@njit(cache=True, nogil=True)
def _search(mesh, scratch, parts, sx, sy, s_seed, gx, gy, g_seed):
    """The search of ``search`` on :class:`Mesh` ``mesh`` with
    :class:`ScratchArrays` ``scratch`` (``parts``: ``unpack`` of the two,
    made once by a caller that searches many times): ``(status, node,
    turn, expanded)``. On
    FOUND, ``node`` is the last search node (its parents lead back to a
    start polygon) and ``turn`` says whether the path turns once more at
    its interval's left (2) or right (1) end before the goal (0: straight
    from its root).

    Resumable: it closes at most ``regs[R_BUDGET]`` nodes, then returns PAUSED
    with its registers in ``regs`` (node count, heap size, nodes closed,
    the closed node of least heuristic); the next call with the same ends
    carries on. A search begins when ``regs[R_EXPANDED] == -1``, and every
    answer but PAUSED sets it back to -1, so ``find_path`` (``budget``
    ``WHOLE``) always begins anew. ``regs[R_TRACK]`` != 0 keeps
    ``regs[R_BEST]`` (for ``partial``)."""
    (vertices, poly_start, poly_verts, poly_adj, poly_opposite, corner, walkable, one_way,
     incidence, _) = mesh
    nf, ni, hkey, hid, root_g, _, _, s_pts = scratch
    tol, eps, geps, root_stamp, goal_stamp, state, ends, s_type, s_edge, regs = parts
    cap = ni.shape[0]
    hpos = ni[:, 4]
    nv0 = vertices.shape[0]         # root_g[nv0 + r]: the node that turned at r
    if regs[R_EXPANDED] < 0:               # begin anew
        regs[R_BEST] = -1
        gen = state[0] + 1
        if gen >= 2147483000:                  # int32 wrap: forget every stamp once
            root_stamp[:] = 0
            goal_stamp[:] = 0
            gen = 1
        state[0] = gen
        m = ends.shape[0] // 2
        starts_found = _holding(sx, sy, s_seed, vertices, poly_start, poly_verts, poly_adj,
                                walkable, incidence, tol, ends[:m])
        if starts_found == 0:
            return START_OFF_MESH, -1, 0, 0
        goals_found = _holding(gx, gy, g_seed, vertices, poly_start, poly_verts, poly_adj,
                               walkable, incidence, tol, ends[m:])
        if goals_found == 0:
            return GOAL_OFF_MESH, -1, 0, 0
        for k in range(goals_found):
            goal_stamp[ends[m + k]] = gen

        n = 0
        size = 0
        for k in range(starts_found):
            p = ends[k]
            # a stand-in node for the start polygon: the parent of its intervals
            ni[n, 0], ni[n, 1], ni[n, 2], ni[n, 3] = -1, -1, p, -1
            nf[n, 0], nf[n, 1], nf[n, 2], nf[n, 3], nf[n, 4], nf[n, 5] = sx, sy, sx, sy, 0.0, 0.0
            start_node = n
            n += 1
            if goal_stamp[p] == gen:
                return FOUND, start_node, 0, 0   # one polygon holds both
            first = poly_start[p]
            last = poly_start[p + 1] - 1
            for e in range(first, last + 1):
                q = poly_adj[e]
                if q < 0 or not walkable[q] or (one_way[q] and goal_stamp[q] != gen):
                    continue
                ax, ay, bx, by = edge_ends(e, first, last, poly_verts, vertices)
                # the start on this edge: the polygon across holds it too and
                # searches from there
                if on_edge(sx, sy, ax, ay, bx, by, eps, tol):
                    continue
                if n >= cap:
                    return OUT_OF_NODES, -1, 0, 0
                ni[n, 0], ni[n, 1], ni[n, 2], ni[n, 3] = -1, start_node, q, poly_opposite[e]
                nf[n, 0], nf[n, 1], nf[n, 2], nf[n, 3] = bx, by, ax, ay
                nf[n, 4] = 0.0
                f = h_value(sx, sy, bx, by, ax, ay, gx, gy, eps)
                nf[n, 5] = f
                size = heap_push(hid, hkey, hpos, size, n, f, True)
                n += 1

        expanded = 0
        best = -1
    else:                                  # carry on
        gen = state[0]
        n = regs[R_N]
        size = regs[R_SIZE]
        expanded = regs[R_EXPANDED]
        best = regs[R_BEST]
    track = regs[R_TRACK] != 0
    stop = expanded + np.int64(regs[R_BUDGET])       # int64: no int32 sum to wrap
    while size > 0:
        if expanded >= stop:
            regs[R_N] = n
            regs[R_SIZE] = size
            regs[R_EXPANDED] = expanded
            regs[R_BEST] = best
            return PAUSED, -1, 0, expanded
        u, size = heap_pop(hid, hkey, hpos, size, True)
        expanded += 1
        if track and (best < 0 or nf[u, 5] - nf[u, 4] < nf[best, 5] - nf[best, 4]):
            best = u
        root = ni[u, 0]
        if root >= 0:
            rx, ry = vertices[root, 0], vertices[root, 1]
        else:
            rx, ry = sx, sy
        if goal_stamp[ni[u, 2]] == gen:
            lx, ly, qx, qy = nf[u, 0], nf[u, 1], nf[u, 2], nf[u, 3]
            turn = 0
            if (gx - rx) * (ly - ry) - (gy - ry) * (lx - rx) < -eps:
                turn = 2
            elif (qx - rx) * (gy - ry) - (qy - ry) * (gx - rx) < -eps:
                turn = 1
            # the pool's and the heap's sizes kept (two stores a query): what
            # ``popped`` reads to tell the nodes this search closed
            regs[R_N], regs[R_SIZE] = n, size
            regs[R_EXPANDED], regs[R_BEST] = -1, best
            return FOUND, u, turn, expanded
        if root >= 0 and root_stamp[root] == gen and root_g[root] + geps < nf[u, 4]:
            continue                                # a better way to this root exists
        cur = u
        while True:
            poly = ni[cur, 2]
            entry = ni[cur, 3]
            croot = ni[cur, 0]
            g = nf[cur, 4]
            lx, ly, qx, qy = nf[cur, 0], nf[cur, 1], nf[cur, 2], nf[cur, 3]
            if croot >= 0:
                rx, ry = vertices[croot, 0], vertices[croot, 1]
            else:
                rx, ry = sx, sy
            count = successors(vertices, poly_start, poly_verts, corner, poly, entry,
                               rx, ry, lx, ly, qx, qy, eps, s_type, s_pts, s_edge)
            made = n
            first = poly_start[poly]
            nv = poly_start[poly + 1] - first
            right_v = poly_verts[first + (entry - first + 1) % nv]
            left_v = poly_verts[entry]
            for k in range(count):
                e = s_edge[k]
                q = poly_adj[e]
                if q < 0 or not walkable[q] or (one_way[q] and goal_stamp[q] != gen):
                    continue
                kind = s_type[k]
                if kind == OBSERVABLE:
                    r, ng = croot, g
                elif kind == TURN_RIGHT:
                    r = right_v
                    ng = g + np.sqrt((vertices[r, 0] - rx) ** 2 + (vertices[r, 1] - ry) ** 2)
                else:
                    r = left_v
                    ng = g + np.sqrt((vertices[r, 0] - rx) ** 2 + (vertices[r, 1] - ry) ** 2)
                if r >= 0:
                    if root_stamp[r] == gen:
                        if root_g[r] + geps < ng:
                            continue                # dominated at birth
                        if r != croot and root_g[nv0 + r] != cur and ng + geps >= root_g[r]:
                            # a tie: another node turned at r as cheaply. Its
                            # nodes reach everything this turn would (a taut
                            # path never needs the same corner at the same
                            # cost from two sides), and keeping both doubles
                            # the search at every tie (pillar lattices)
                            continue
                    else:
                        root_stamp[r] = gen
                    if r != croot:
                        root_g[nv0 + r] = cur       # the node turning there
                    root_g[r] = ng
                if n >= cap:
                    regs[R_EXPANDED], regs[R_BEST] = -1, best
                    return OUT_OF_NODES, -1, 0, expanded
                ni[n, 0], ni[n, 1], ni[n, 2], ni[n, 3] = r, cur, q, poly_opposite[e]
                nf[n, 0], nf[n, 1] = s_pts[k, 0], s_pts[k, 1]
                nf[n, 2], nf[n, 3] = s_pts[k, 2], s_pts[k, 3]
                nf[n, 4] = ng
                n += 1
            if n - made == 1 and goal_stamp[ni[made, 2]] != gen:
                cur = made                          # one way on: no need to queue it
                continue
            for i in range(made, n):
                rx2, ry2 = root_point(vertices, ni[i, 0], sx, sy)
                f = nf[i, 4] + h_value(rx2, ry2, nf[i, 0], nf[i, 1], nf[i, 2], nf[i, 3],
                                       gx, gy, eps)
                nf[i, 5] = f
                size = heap_push(hid, hkey, hpos, size, i, f, True)
            break
    regs[R_N], regs[R_SIZE] = n, size
    regs[R_EXPANDED], regs[R_BEST] = -1, best
    return NO_PATH, -1, 0, expanded


@njit(cache=True, nogil=True, inline="always")
def on_edge(px, py, ax, ay, bx, by, eps, tol):
    """Whether point ``(px, py)`` lies on the edge from ``a`` to ``b``: on
    its line (cross product within ``eps``) and within its box grown by
    ``tol``."""
    return (abs((bx - ax) * (py - ay) - (by - ay) * (px - ax)) <= eps and
            min(ax, bx) - tol <= px <= max(ax, bx) + tol and
            min(ay, by) - tol <= py <= max(ay, by) + tol)


@njit(cache=True, nogil=True, inline="always")
def root_point(vertices, r, sx, sy):
    """Where root ``r`` of a search node is: mesh vertex ``r``, or the
    start ``(sx, sy)`` for ``r = -1``."""
    if r >= 0:
        return vertices[r, 0], vertices[r, 1]
    return sx, sy


@njit(cache=True, nogil=True, inline="always")
def turn_point(nf, node, turn):
    """The end of search node ``node``'s interval where the path to the
    goal turns: ``turn`` 2 its left end (``nf[node, 0:2]``), 1 its right
    end (``nf[node, 2:4]``)."""
    c = 4 - 2 * turn
    return nf[node, c], nf[node, c + 1]


@njit(cache=True, nogil=True)
def trace(vertices, nf, ni, node, turn, sx, sy, gx, gy):
    """The path that search node ``node`` ends: ``(points, polygons,
    length)``: the start, each turn and the goal; the polygons crossed
    from the start's to the goal's."""
    steps = 0
    u = node
    while u >= 0:
        steps += 1
        u = ni[u, 1]
    polygons = np.empty(steps, dtype=np.int32)
    buf = np.empty((steps + 3, 2))
    k = 0
    buf[0, 0], buf[0, 1] = gx, gy
    k = 1
    if turn == 1 or turn == 2:
        buf[1, 0], buf[1, 1] = turn_point(nf, node, turn)
        k = 2
    last_root = -2
    u = node
    i = steps - 1
    while u >= 0:
        polygons[i] = ni[u, 2]
        i -= 1
        r = ni[u, 0]
        if r != last_root:
            px, py = root_point(vertices, r, sx, sy)
            if px != buf[k - 1, 0] or py != buf[k - 1, 1]:
                buf[k, 0], buf[k, 1] = px, py
                k += 1
            last_root = r
        u = ni[u, 1]
    if k == 1:                         # start == goal: still two points
        buf[1, 0], buf[1, 1] = sx, sy
        k = 2
    points = np.empty((k, 2))
    length = 0.0
    for j in range(k):
        points[j, 0] = buf[k - 1 - j, 0]
        points[j, 1] = buf[k - 1 - j, 1]
        if j > 0:
            length += np.sqrt((points[j, 0] - points[j - 1, 0]) ** 2
                              + (points[j, 1] - points[j - 1, 1]) ** 2)
    return points, polygons, length


@njit(cache=True, nogil=True)
def path_length(vertices, nf, ni, node, turn, sx, sy, gx, gy):
    """The length of the path ``trace`` would return, without making it."""
    px, py = gx, gy
    total = 0.0
    if turn == 1 or turn == 2:
        qx, qy = turn_point(nf, node, turn)
        total += np.sqrt((qx - px) ** 2 + (qy - py) ** 2)
        px, py = qx, qy
    last_root = -2
    u = node
    while u >= 0:
        r = ni[u, 0]
        if r != last_root:
            qx, qy = root_point(vertices, r, sx, sy)
            total += np.sqrt((qx - px) ** 2 + (qy - py) ** 2)
            px, py = qx, qy
            last_root = r
        u = ni[u, 1]
    return total


class Mesh(NamedTuple):
    """The mesh arguments of a search, in :func:`search`'s order (``links``
    as ``poly_adj``, the walkable polygons, the tolerances ``params``)."""
    vertices: np.ndarray
    poly_start: np.ndarray
    poly_verts: np.ndarray
    poly_adj: np.ndarray
    poly_opposite: np.ndarray
    corner: np.ndarray
    walkable: np.ndarray
    one_way: np.ndarray
    incidence: np.ndarray
    params: np.ndarray


class ScratchArrays(NamedTuple):
    """One search's memory (``polyanya.Scratch``): node pool, heap, roots,
    stamps, work (with the registers) and successor points."""
    nf: np.ndarray
    ni: np.ndarray
    hkey: np.ndarray
    hid: np.ndarray
    root_g: np.ndarray
    stamps: np.ndarray
    work: np.ndarray
    s_pts: np.ndarray


@njit(cache=True, nogil=True)
def label_parts(poly_start, links, walkable, part):
    """``part[p]``: the connected part of polygon ``p`` as the search
    crosses the mesh: walkable polygons joined by the open links between
    them (``links``, the search's ``poly_adj``), either way round; ``-1``
    for a polygon not walkable. A search leaves its start polygons through
    those links only (never across a pinch: a vertex alone is no edge), so
    it reaches nothing outside their parts. Union-find, one pass over the
    edges."""
    n = poly_start.shape[0] - 1
    for p in range(n):
        part[p] = p
    for p in range(n):
        if not walkable[p]:
            continue
        for j in range(poly_start[p], poly_start[p + 1]):
            q = links[j]
            if q < 0 or not walkable[q]:
                continue
            union_min(part, p, q)
    for p in range(n):
        part[p] = find(part, p) if walkable[p] else -1


@njit(cache=True, nogil=True)
def _apart(mesh, tol, sx, sy, s_seed, gx, gy, g_seed, part, a, b):
    """Whether the search from ``s`` to ``g`` cannot find a path because
    its ends lie in different parts (``label_parts``): every polygon it
    would start in (``_holding``: across the edges the start lies on, all
    around a vertex it lies on, pinches included) is in another part than
    every polygon holding the goal. For seeds (``>= 0``) the caller found
    in different parts; False when an end is off the mesh (the search says
    so). ``a``, ``b``: room for the polygons holding each end (as
    ``_search`` takes, so none is left out)."""
    vertices, poly_start, poly_verts, links, walkable, incidence = \
        mesh[0], mesh[1], mesh[2], mesh[3], mesh[6], mesh[8]
    ka = _holding(sx, sy, s_seed, vertices, poly_start, poly_verts, links, walkable,
                  incidence, tol, a)
    if ka == 0:
        return False
    kb = _holding(gx, gy, g_seed, vertices, poly_start, poly_verts, links, walkable,
                  incidence, tol, b)
    if kb == 0:
        return False
    for i in range(ka):
        pa = part[a[i]]
        for j in range(kb):
            if part[b[j]] == pa:
                return False
    return True


@njit(cache=True, nogil=True)
def many_lengths(mesh, ends_xy, seeds, scratch, out, part, skipped):
    """``out[i]``: the shortest length from ``ends_xy[i, :2]`` to
    ``ends_xy[i, 2:]`` (``inf`` unreachable, ``nan`` an end off the mesh),
    located in polygons ``seeds[i]``, on :class:`Mesh` ``mesh`` with
    :class:`ScratchArrays` ``scratch``. A pair whose ends lie in different
    parts (``part``: ``label_parts`` of the mesh's links; ``_apart``) is
    ``inf`` without a search, counted in ``skipped[0]``: a search there
    would close every node it reaches before saying so.
    Stops early and returns ``i`` when the node pool runs out at query
    ``i`` (the caller grows it and goes on from there); ``-1`` when done."""
    vertices = mesh[0]
    nf, ni = scratch[0], scratch[1]
    parts = unpack(mesh, scratch)
    tol, ends = parts[0], parts[6]
    m = ends.shape[0] // 2
    for i in range(ends_xy.shape[0]):
        sx, sy, gx, gy = ends_xy[i, 0], ends_xy[i, 1], ends_xy[i, 2], ends_xy[i, 3]
        s_seed, g_seed = seeds[i, 0], seeds[i, 1]
        # the seeds' parts compared here, not in _apart: called for every
        # pair, it made the searches of pairs in one part 8% slower
        # (measured), the compare alone costs nothing
        if s_seed >= 0 and g_seed >= 0 and part[s_seed] != part[g_seed] and \
                _apart(mesh, tol, sx, sy, s_seed, gx, gy, g_seed, part, ends[:m], ends[m:]):
            out[i] = np.inf
            skipped[0] += 1
            continue
        status, node, turn, _ = _search(mesh, scratch, parts, sx, sy, s_seed, gx, gy, g_seed)
        if status == FOUND:
            out[i] = path_length(vertices, nf, ni, node, turn, sx, sy, gx, gy)
        elif status == NO_PATH:
            out[i] = np.inf
        elif status == OUT_OF_NODES:
            return i
        else:
            out[i] = np.nan
    return -1


@njit(cache=True, nogil=True)
def open_links(poly_start, poly_verts, poly_next, poly_adj, walkable, offsets, targets,
               cost, links, corner):
    """``links[j]``: the polygon across edge ``j`` as the search may cross
    it, ``-1`` where the mesh has a wall, where the polygon across is
    blocked, or where the graph has no finite edge between the two (a
    closed portal); the ends of such closed edges become ``corner``s.
    One pass over the edges, each looking up its own CSR row (a few
    entries): ``SearchSpace.follow_walkable`` runs it after every batch."""
    for p in range(poly_start.shape[0] - 1):
        for j in range(poly_start[p], poly_start[p + 1]):
            q = poly_adj[j]
            links[j] = q
            if q < 0:
                continue
            shut = not walkable[q]
            if not shut:
                shut = True
                for e in range(offsets[p], offsets[p + 1]):
                    if targets[e] == q and np.isfinite(cost[e]):
                        shut = False
                        break
            if shut:
                links[j] = -1
                corner[poly_verts[j]] = True
                corner[poly_verts[poly_next[j]]] = True
