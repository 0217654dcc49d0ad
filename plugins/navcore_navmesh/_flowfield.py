"""numba kernels of the navmesh flow field: Polyanya run from the goal to
every polygon (``expand_all``), its search nodes kept per polygon
(``collect``), and the field read at many points (``read_many``), with
the corners ahead fitted to each agent (``steer_many``).

Private: ``flowfield.py`` validates and calls them.

A search node (root ``r``, interval ``[L, R]`` on an edge, polygon ``P``
beyond) is a family of paths: from the goal to ``r`` at the node's ``g``
(exact: Polyanya's root pruning keeps the least), then straight through
the interval into ``P``. Every point ``p`` of the convex ``P`` is reached
from ``r`` through the interval: straight when ``p`` lies in the cone
``r`` sees through it, else turning once at the nearer end ``L`` or ``R``
(inside ``P``, so in free space). Each such length is a real path's, and
the shortest path to ``p`` is one of them (the search is complete: the
last node of a shortest path enters ``P`` through the interval its last
segment crosses), so the least over the nodes entering ``P`` is the exact
distance. Search-node arrays as in ``_polyanya``: ``nf[i] = (Lx, Ly, Rx,
Ry, g, f)``, ``ni[i] = (root, parent, polygon, entry edge, heap slot,
expanded)``; roots are vertex ids, ``-1`` the goal.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from navcore._kernels import heap_pop, heap_push

from ._locate import crossing, inside
from ._polyanya import OBSERVABLE, TURN_RIGHT, _holding, entry_corners, on_edge, successors

DONE = 0
GOAL_OFF_MESH = 1
OUT_OF_NODES = 2

#: how a node's root reaches the points of its polygon (``collect``)
WHOLE = 0        # the root sees all of it (the goal inside, or the root on its entry edge)
CONE = 1         # straight inside the cone through the interval, else round its nearer end
VIA_LEFT = 2     # the root on the interval's line, beyond it: round its left end
VIA_RIGHT = 3    # ... round its right end


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _to_segment(px, py, ax, ay, bx, by):
    """The distance from ``p`` to the segment ``[a, b]``."""
    dx, dy = bx - ax, by - ay
    dd = dx * dx + dy * dy
    t = 0.0 if dd == 0.0 else ((px - ax) * dx + (py - ay) * dy) / dd
    t = min(max(t, 0.0), 1.0)
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _mode(rx, ry, lx, ly, qx, qy, p, entry, vertices, poly_start, poly_verts, eps):
    """How root ``r`` reaches the points of polygon ``p`` through the
    interval ``[l, q]`` on its edge ``entry`` (``-1``: ``r`` inside it):
    WHOLE, CONE, VIA_LEFT or VIA_RIGHT. A root on the interval's line
    (``successors``' rule) sees the whole convex polygon when it lies on
    the entry edge; beyond it, a path slides along the edge to its nearer
    end and turns there."""
    if entry < 0:
        return WHOLE
    on_l = rx == lx and ry == ly
    on_r = rx == qx and ry == qy
    if not (on_l or on_r or abs((lx - rx) * (qy - ry) - (ly - ry) * (qx - rx)) <= eps):
        return CONE
    b, a = entry_corners(p, entry, poly_start, poly_verts)
    if (vertices[a, 0] - rx) * (vertices[b, 0] - rx) + \
            (vertices[a, 1] - ry) * (vertices[b, 1] - ry) <= 0.0:
        return WHOLE
    if on_l or (not on_r and (lx - rx) ** 2 + (ly - ry) ** 2 < (qx - rx) ** 2 + (qy - ry) ** 2):
        return VIA_LEFT
    return VIA_RIGHT


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _through(how, rx, ry, lx, ly, qx, qy, px, py):
    """``(length, turn)``: the shortest way from root ``r`` through the
    interval ``[l, q]`` to ``p`` in the polygon beyond, reached as
    ``how`` says (``_mode``): straight (``turn`` 0), or round the
    interval's left (2) or right (1) end. It is the least over the
    interval's points ``x`` of ``|r - x| + |x - p|``, so convex in ``p``.
    In a CONE, the lengths of the three ways meet on its rays (the ends
    lie on them): a point rounding puts on the wrong side of one is off
    by rounding only."""
    turn = 0
    if how == VIA_LEFT:
        turn = 2
    elif how == VIA_RIGHT:
        turn = 1
    elif how == CONE:
        if (px - rx) * (ly - ry) - (py - ry) * (lx - rx) < 0.0:
            turn = 2
        elif (qx - rx) * (py - ry) - (qy - ry) * (px - rx) < 0.0:
            turn = 1
    if turn == 0:
        return math.hypot(px - rx, py - ry), 0
    if turn == 2:
        return math.hypot(lx - rx, ly - ry) + math.hypot(px - lx, py - ly), 2
    return math.hypot(qx - rx, qy - ry) + math.hypot(px - qx, py - qy), 1


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _tighten(bound, p, g, rx, ry, lx, ly, qx, qy, entry, vertices, poly_start, poly_verts,
             eps):
    """``bound[p]`` lowered to the longest way through a node kept in
    ``p`` (root ``r`` at ``g``, interval ``[l, q]`` on edge ``entry``) to a
    vertex of ``p``: the longest to any point of it (``_through`` is
    convex in the point)."""
    how = _mode(rx, ry, lx, ly, qx, qy, p, entry, vertices, poly_start, poly_verts, eps)
    worst = 0.0
    for e in range(poly_start[p], poly_start[p + 1]):
        v = poly_verts[e]
        length, _ = _through(how, rx, ry, lx, ly, qx, qy, vertices[v, 0], vertices[v, 1])
        worst = max(worst, length)
    bound[p] = min(bound[p], g + worst)


@njit(cache=True, nogil=True, error_model="numpy")
def expand_all(vertices, poly_start, poly_verts, links, poly_opposite, corner, walkable,
               incidence, params, gx, gy, g_seed, nf, ni, hkey, hid, root_g, turned, bound,
               ends, s_type, s_pts, s_edge):
    """Polyanya from the goal ``(gx, gy)`` (in polygon ``g_seed``, from
    the locate index) with no target: every node it can reach, closed in
    the order of ``f`` = ``g`` + the distance from its root to its
    interval (monotone along the search, so a root's ``g`` is final
    before any node rooted there is closed: Dijkstra's argument). The
    pruning is ``_polyanya._search``'s (a node whose root was reached
    cheaper is dropped, at birth or when popped; a second turn at a
    corner as cheap as the first is dropped), less what needs a target
    (dead-end polygons are entered: agents stand in them), plus one of
    its own: ``bound[p]`` (inf on entry) is the least, over the nodes kept
    in polygon ``p``, of the longest way through one of them to a point of
    ``p`` (``_through`` is convex, so the longest is to a vertex): no
    point of ``p`` is farther from the goal. A node whose ``f`` (a lower
    bound of every way through it) exceeds that is no point's shortest
    way in ``p``, nor beyond (a way on leaves ``p`` at a point it reaches
    no better), and is dropped with all it would make. ``root_g``
    (inf on entry) gets each vertex's distance as a root, ``turned`` the
    node that turned there (-1 on entry). Returns ``(status, n)``: DONE
    with ``n`` nodes made (``ni[i, 5]`` = 1 for those closed and kept),
    GOAL_OFF_MESH, or OUT_OF_NODES (the caller grows the pool and runs it
    again)."""
    tol, eps, geps = params[0], params[1], params[2]
    cap = ni.shape[0]
    hpos = ni[:, 4]
    found = _holding(gx, gy, g_seed, vertices, poly_start, poly_verts, links, walkable,
                     incidence, tol, ends)
    if found == 0:
        return GOAL_OFF_MESH, 0
    n = 0
    size = 0
    for k in range(found):
        p = ends[k]
        if n >= cap:
            return OUT_OF_NODES, n
        # the goal's own polygon: it sees all of it (a node rooted at the
        # goal, kept without a search)
        ni[n, 0], ni[n, 1], ni[n, 2], ni[n, 3], ni[n, 4], ni[n, 5] = -1, -1, p, -1, -1, 1
        nf[n, 0], nf[n, 1], nf[n, 2], nf[n, 3], nf[n, 4], nf[n, 5] = gx, gy, gx, gy, 0.0, 0.0
        own = n
        n += 1
        _tighten(bound, p, 0.0, gx, gy, gx, gy, gx, gy, -1, vertices, poly_start, poly_verts,
                 eps)
        first, last = poly_start[p], poly_start[p + 1] - 1
        for e in range(first, last + 1):
            q, ax, ay, bx, by = crossing(e, first, last, links, walkable, poly_verts, vertices)
            # the goal on this edge: the polygon across holds it too, and
            # is one of the goal's polygons itself
            if q < 0 or on_edge(gx, gy, ax, ay, bx, by, eps, tol):
                continue
            if n >= cap:
                return OUT_OF_NODES, n
            ni[n, 0], ni[n, 1], ni[n, 2], ni[n, 3], ni[n, 5] = -1, own, q, poly_opposite[e], 0
            nf[n, 0], nf[n, 1], nf[n, 2], nf[n, 3] = bx, by, ax, ay
            nf[n, 4] = 0.0
            f = _to_segment(gx, gy, ax, ay, bx, by)
            nf[n, 5] = f
            size = heap_push(hid, hkey, hpos, size, n, f, True)
            n += 1
    while size > 0:
        u, size = heap_pop(hid, hkey, hpos, size, True)
        root = ni[u, 0]
        g = nf[u, 4]
        if root >= 0 and root_g[root] + geps < g:
            continue                              # a better way to this root exists
        poly = ni[u, 2]
        if nf[u, 5] > bound[poly] + geps:
            continue                              # every point of poly has a shorter way
        ni[u, 5] = 1
        if root >= 0:
            rx, ry = vertices[root, 0], vertices[root, 1]
        else:
            rx, ry = gx, gy
        entry = ni[u, 3]
        _tighten(bound, poly, g, rx, ry, nf[u, 0], nf[u, 1], nf[u, 2], nf[u, 3], entry,
                 vertices, poly_start, poly_verts, eps)
        count = successors(vertices, poly_start, poly_verts, corner, poly, entry, rx, ry,
                           nf[u, 0], nf[u, 1], nf[u, 2], nf[u, 3], eps, s_type, s_pts, s_edge)
        right_v, left_v = entry_corners(poly, entry, poly_start, poly_verts)
        for k in range(count):
            e = s_edge[k]
            q = links[e]
            if q < 0 or not walkable[q]:
                continue
            kind = s_type[k]
            if kind == OBSERVABLE:
                r, ng = root, g
            else:
                r = right_v if kind == TURN_RIGHT else left_v
                ng = g + math.hypot(vertices[r, 0] - rx, vertices[r, 1] - ry)
            if r >= 0:
                if root_g[r] + geps < ng:
                    continue                      # dominated at birth
                if r != root and turned[r] >= 0 and turned[r] != u and ng + geps >= root_g[r]:
                    continue                      # a tie: another node turned at r as cheaply
                if r != root:
                    turned[r] = u
                root_g[r] = ng
            if n >= cap:
                return OUT_OF_NODES, n
            ni[n, 0], ni[n, 1], ni[n, 2], ni[n, 3], ni[n, 5] = r, u, q, poly_opposite[e], 0
            lx, ly, qx, qy = s_pts[k, 0], s_pts[k, 1], s_pts[k, 2], s_pts[k, 3]
            nf[n, 0], nf[n, 1], nf[n, 2], nf[n, 3] = lx, ly, qx, qy
            nf[n, 4] = ng
            if r >= 0:
                f = ng + _to_segment(vertices[r, 0], vertices[r, 1], lx, ly, qx, qy)
            else:
                f = ng + _to_segment(gx, gy, lx, ly, qx, qy)
            if f > bound[q] + geps:
                continue                          # no point of q's shortest way
            nf[n, 5] = f
            size = heap_push(hid, hkey, hpos, size, n, f, True)
            n += 1
    return DONE, n


@njit(cache=True, nogil=True, error_model="numpy")
def collect(n, nf, ni, root_g, turned, bound, vertices, poly_start, poly_verts, eps, gx, gy,
            geps):
    """The closed nodes of ``expand_all`` that can be a point's shortest
    way (their root's ``g`` is its distance, their ``f`` within the
    polygon's final ``bound``), grouped by polygon: ``(start, root, pts,
    g, low, mode, via)``: polygon ``p``'s are ``start[p]:start[p + 1]``,
    by ``f`` (ties in the order they were made), each with its root
    (vertex, ``-1`` the goal), interval ``pts = (Lx, Ly, Rx, Ry)``, the
    root's distance ``g``, ``low`` its ``f`` (no way through it is
    shorter) and how it reaches the polygon (``WHOLE``, ``CONE``,
    ``VIA_LEFT``, ``VIA_RIGHT``); and ``via``: per vertex, the root after
    it toward the goal (``-1`` the goal, ``-2`` none: never a root)."""
    num = poly_start.shape[0] - 1
    start = np.zeros(num + 1, dtype=np.int64)
    kept = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(n):
        r = ni[i, 0]
        if ni[i, 5] == 1 and (r < 0 or nf[i, 4] <= root_g[r] + geps) and \
                nf[i, 5] <= bound[ni[i, 2]] + geps:
            kept[k] = i
            k += 1
            start[ni[i, 2] + 1] += 1
    kept = kept[:k]
    kept = kept[np.argsort(nf[kept, 5], kind="mergesort")]
    for p in range(num):
        start[p + 1] += start[p]
    m = start[num]
    root = np.empty(m, dtype=np.int32)
    pts = np.empty((m, 4))
    g = np.empty(m)
    low = np.empty(m)
    mode = np.empty(m, dtype=np.int8)
    fill = start[:-1].copy()
    for i in kept:
        p = ni[i, 2]
        j = fill[p]
        fill[p] += 1
        r = ni[i, 0]
        root[j] = r
        lx, ly, qx, qy = nf[i, 0], nf[i, 1], nf[i, 2], nf[i, 3]
        pts[j, 0], pts[j, 1], pts[j, 2], pts[j, 3] = lx, ly, qx, qy
        g[j] = nf[i, 4]
        low[j] = nf[i, 5]
        if r >= 0:
            rx, ry = vertices[r, 0], vertices[r, 1]
        else:
            rx, ry = gx, gy
        mode[j] = _mode(rx, ry, lx, ly, qx, qy, p, ni[i, 3], vertices, poly_start,
                        poly_verts, eps)
    via = np.full(vertices.shape[0], -2, dtype=np.int32)
    for v in range(vertices.shape[0]):
        if turned[v] >= 0 and root_g[v] < np.inf:
            via[v] = ni[turned[v], 0]
    return start, root, pts, g, low, mode, via


@njit(cache=True, nogil=True, error_model="numpy")
def _read(px, py, p, start, root, pts, g, low, mode, vertices, gx, gy):
    """The field at ``(px, py)`` in polygon ``p``: ``(distance, node,
    turn)``, the least over ``p``'s nodes of the length through each
    (``turn`` 0 straight to its root, 2 round its left end, 1 its right
    end; ties to the first node), read in the order of their lower bounds
    ``low`` until one is no better than the best so far; ``(inf, -1, 0)``
    where none enters."""
    best = np.inf
    best_j = -1
    best_turn = 0
    j = start[p]
    end = start[p + 1]
    while j < end and low[j] < best:
        r = root[j]
        if r >= 0:
            rx, ry = vertices[r, 0], vertices[r, 1]
        else:
            rx, ry = gx, gy
        length, turn = _through(mode[j], rx, ry, pts[j, 0], pts[j, 1], pts[j, 2], pts[j, 3],
                                px, py)
        d = g[j] + length
        if d < best:
            best, best_j, best_turn = d, j, turn
        j += 1
    return best, best_j, best_turn


@njit(cache=True, nogil=True, error_model="numpy")
def read_many(points, polys, start, root, pts, g, low, mode, via, vertices, gx, gy, dist,
              ahead, count):
    """The field at every point ``points[i]`` (in polygon ``polys[i]``,
    ``-1``: off the mesh, ``dist`` NaN): ``dist[i]``, its distance to the
    goal (inf: unreachable), and the corners a shortest path from it turns
    at next, up to ``ahead.shape[1]`` of them, into ``ahead[i]`` (the
    turn round an interval's end, then the roots toward the goal; the goal
    itself is not listed), ``count[i]`` of them."""
    k = ahead.shape[1]
    for i in range(points.shape[0]):
        count[i] = 0
        p = polys[i]
        if p < 0:
            dist[i] = np.nan
            continue
        px, py = points[i, 0], points[i, 1]
        d, j, turn = _read(px, py, p, start, root, pts, g, low, mode, vertices, gx, gy)
        dist[i] = d
        if j < 0:
            continue
        c = 0
        if turn != 0 and k > 0:
            col = 4 - 2 * turn                 # 2 -> L (0, 1), 1 -> R (2, 3)
            ahead[i, 0, 0], ahead[i, 0, 1] = pts[j, col], pts[j, col + 1]
            c = 1
        r = root[j]
        while r >= 0 and c < k:
            ahead[i, c, 0], ahead[i, c, 1] = vertices[r, 0], vertices[r, 1]
            c += 1
            r = via[r]
        count[i] = c


@njit(cache=True, nogil=True, error_model="numpy")
def steer_many(points, polys, start, root, pts, g, low, mode, via, vertices, gx, gy,
               goal_polys, goals, radii, dist, ahead, count):
    """``read_many``, then for each agent ``i``: where its own goal
    ``goals[i]`` is not the field's and it stands outside the field goal's
    polygons ``goal_polys``, the field's goal becomes one more corner
    (after the corners it heads straight to its own goal, in the same
    convex polygon); each corner read is then moved ``radii[i]`` off the
    wall the way turns round there (``_round_corner``). ``goals`` may be
    empty (each agent's goal is the field's) and ``radii`` zero."""
    read_many(points, polys, start, root, pts, g, low, mode, via, vertices, gx, gy, dist, ahead,
              count)
    k = ahead.shape[1]
    own = goals.shape[0] > 0
    for i in range(points.shape[0]):
        c = count[i]
        ex, ey = gx, gy
        add = False
        if own and c < k and (goals[i, 0] != gx or goals[i, 1] != gy):
            add = True
            for t in range(goal_polys.shape[0]):
                if polys[i] == goal_polys[t]:
                    add = False
            if not add:
                ex, ey = goals[i, 0], goals[i, 1]
        if radii[i] > 0.0 and c > 0:
            # from the last corner back, so each reads its neighbours unmoved
            nx, ny = ex, ey
            for j in range(c - 1, -1, -1):
                if j > 0:
                    px, py = ahead[i, j - 1, 0], ahead[i, j - 1, 1]
                else:
                    px, py = points[i, 0], points[i, 1]
                cx, cy = ahead[i, j, 0], ahead[i, j, 1]
                ahead[i, j, 0], ahead[i, j, 1] = _round_corner(px, py, cx, cy, nx, ny, radii[i])
                nx, ny = cx, cy
        if add:
            ahead[i, c, 0], ahead[i, c, 1] = gx, gy
            count[i] = c + 1


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _round_corner(px, py, cx, cy, nx, ny, r):
    """Corner ``c`` of a way from ``p`` to ``n``, moved ``r`` off the wall
    it turns round: against the bisector of the directions to ``p`` and
    ``n``, which points into the wall's side of a taut turn (there a disc
    of radius ``r`` touches the corner). A corner the agent stands on, or
    where the way runs straight on, stays."""
    bx, by = px - cx, py - cy
    ox, oy = nx - cx, ny - cy
    lb, lo = math.hypot(bx, by), math.hypot(ox, oy)
    if lb == 0.0 or lo == 0.0:
        return cx, cy
    ux, uy = bx / lb + ox / lo, by / lb + oy / lo
    lu = math.hypot(ux, uy)
    if lu <= 1e-9:
        return cx, cy
    return cx - r * ux / lu, cy - r * uy / lu


@njit(cache=True, nogil=True, error_model="numpy")
def inputs_valid(points, polys, goals, radii, num_nodes):
    """Whether every point, goal (``goals`` may be empty) and radius is
    finite, every radius ``>= 0`` and every ``polys[i]`` ``-1`` or a
    polygon id below ``num_nodes``: ``MeshFlowField.steer``'s checks in one
    pass (its numpy checks then say which is wrong)."""
    for i in range(points.shape[0]):
        if not (math.isfinite(points[i, 0]) and math.isfinite(points[i, 1])
                and -1 <= polys[i] < num_nodes and math.isfinite(radii[i]) and radii[i] >= 0.0):
            return False
    for i in range(goals.shape[0]):
        if not (math.isfinite(goals[i, 0]) and math.isfinite(goals[i, 1])):
            return False
    return True


@njit(cache=True, nogil=True, error_model="numpy")
def misplaced(points, polys, vertices, poly_start, poly_verts, walkable, tol):
    """The rows ``i`` whose polygon ``polys[i]`` (``-1``: not known) is no
    walkable polygon holding ``points[i]`` (``inside``, within ``tol``):
    a node kept from before an update that blocked or re-triangulated
    it."""
    out = np.empty(points.shape[0], dtype=np.int64)
    k = 0
    for i in range(points.shape[0]):
        p = polys[i]
        if p < 0 or not walkable[p] or \
                not inside(points[i, 0], points[i, 1], vertices, poly_start, poly_verts, p, tol):
            out[k] = i
            k += 1
    return out[:k]
