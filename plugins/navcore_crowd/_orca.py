"""Optimal reciprocal collision avoidance (ORCA: van den Berg, Guy, Lin and
Manocha 2011) over arrays, as RVO2 computes it: each agent's new velocity
is the one closest to its preferred velocity that is allowed by one
half-plane per neighbour (and per nearby wall) and is no faster than its
maximum speed; when no velocity is allowed, the one that violates the
half-planes least (the 3D linear program), walls first.

A half-plane ("line") is a point and a unit direction; the allowed side is
the left of the direction. Kernels take per-call scratch (``Scratch``) so a
step allocates nothing per agent; agents ``lo:hi`` per call, so the
world's worker threads split a crowd into chunks."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

#: RVO2's tolerance for parallel lines and covered obstacles
EPSILON = 1e-5


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _det(ax, ay, bx, by):
    return ax * by - ay * bx


@njit(cache=True, nogil=True, error_model="numpy")
def _lp1(lp, ld, n_line, radius, ox, oy, direction_opt):
    """``(found, x, y)``: the best point on line ``n_line`` within the
    disc of ``radius`` and the lines before it; ``found`` False when there
    is none. (Points go back as numbers, not through an array, so the
    compiler keeps them in registers: no store of theirs can alias a
    line.)"""
    px, py = lp[n_line, 0], lp[n_line, 1]
    dx, dy = ld[n_line, 0], ld[n_line, 1]
    dot = px * dx + py * dy
    disc = dot * dot + radius * radius - (px * px + py * py)
    if disc < 0.0:
        return False, 0.0, 0.0       # the disc misses the line
    root = math.sqrt(disc)
    t_left, t_right = -dot - root, -dot + root
    for i in range(n_line):
        qx, qy = ld[i, 0], ld[i, 1]
        den = _det(dx, dy, qx, qy)
        num = _det(qx, qy, px - lp[i, 0], py - lp[i, 1])
        if abs(den) <= EPSILON:
            if num < 0.0:
                return False, 0.0, 0.0   # parallel and on the forbidden side
            continue
        t = num / den
        if den >= 0.0:
            t_right = min(t_right, t)
        else:
            t_left = max(t_left, t)
        if t_left > t_right:
            return False, 0.0, 0.0
    if direction_opt:
        t = t_right if ox * dx + oy * dy > 0.0 else t_left
    else:
        t = dx * (ox - px) + dy * (oy - py)
        t = min(max(t, t_left), t_right)
    return True, px + t * dx, py + t * dy


@njit(cache=True, nogil=True, error_model="numpy")
def _lp2(lp, ld, n, radius, ox, oy, direction_opt):
    """``(k, x, y)``: the velocity closest to ``(ox, oy)`` (or furthest
    along it when ``direction_opt``) within the disc and lines ``0:n``,
    and ``k = n``; or ``k`` the first line that left no velocity, and
    the best velocity before it."""
    if direction_opt:
        rx, ry = ox * radius, oy * radius
    elif ox * ox + oy * oy > radius * radius:
        scale = radius / math.sqrt(ox * ox + oy * oy)
        rx, ry = ox * scale, oy * scale
    else:
        rx, ry = ox, oy
    for i in range(n):
        if _det(ld[i, 0], ld[i, 1], lp[i, 0] - rx, lp[i, 1] - ry) > 0.0:
            found, x, y = _lp1(lp, ld, i, radius, ox, oy, direction_opt)
            if not found:
                return i, rx, ry
            rx, ry = x, y
    return n, rx, ry


@njit(cache=True, nogil=True, error_model="numpy")
def _lp3(lp, ld, n, n_fixed, begin, radius, rx, ry, pp, pd):
    """Where lines ``begin:n`` leave no velocity (``(rx, ry)`` the best
    before line ``begin``): ``(x, y)``, the one that violates the agent
    lines least (the first ``n_fixed``, the walls, kept hard);
    ``pp``/``pd`` hold the projected lines. ``begin = n`` (every line
    met): ``(rx, ry)`` as it is."""
    distance = 0.0
    for i in range(begin, n):
        lix, liy, dix, diy = lp[i, 0], lp[i, 1], ld[i, 0], ld[i, 1]
        if _det(dix, diy, lix - rx, liy - ry) <= distance:
            continue
        m = n_fixed
        for j in range(n_fixed):
            pp[j, 0], pp[j, 1] = lp[j, 0], lp[j, 1]
            pd[j, 0], pd[j, 1] = ld[j, 0], ld[j, 1]
        for j in range(n_fixed, i):
            djx, djy = ld[j, 0], ld[j, 1]
            det = _det(dix, diy, djx, djy)
            if abs(det) <= EPSILON:
                if dix * djx + diy * djy > 0.0:
                    continue         # same direction: line j adds nothing
                qx = 0.5 * (lix + lp[j, 0])
                qy = 0.5 * (liy + lp[j, 1])
            else:
                t = _det(djx, djy, lix - lp[j, 0], liy - lp[j, 1]) / det
                qx = lix + t * dix
                qy = liy + t * diy
            ex, ey = djx - dix, djy - diy
            norm = math.sqrt(ex * ex + ey * ey)
            pp[m, 0], pp[m, 1] = qx, qy
            pd[m, 0], pd[m, 1] = ex / norm, ey / norm
            m += 1
        k, x, y = _lp2(pp, pd, m, radius, -diy, dix, True)
        if k >= m:
            rx, ry = x, y            # (else rounding only: keep the last)
        distance = _det(dix, diy, lix - rx, liy - ry)
    return rx, ry


@njit(cache=True, nogil=True, error_model="numpy")
def _insert(keys, ids, count, cap, key, j):
    """Insert ``(key, j)`` into the ascending ``keys``/``ids`` of length
    ``count`` (at most ``cap``: the largest falls off); the new count.
    Ties go by id, so the order never depends on the scan's order."""
    if count == cap and (key > keys[count - 1] or (key == keys[count - 1] and j > ids[count - 1])):
        return count
    k = count if count < cap else cap - 1
    while k > 0 and (keys[k - 1] > key or (keys[k - 1] == key and ids[k - 1] > j)):
        keys[k] = keys[k - 1]
        ids[k] = ids[k - 1]
        k -= 1
    keys[k] = key
    ids[k] = j
    return count + 1 if count < cap else cap


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def apart(elev, tall, i, j):
    """Whether agents ``i`` and ``j`` stand on different floors and so
    ignore each other: their heights ``elev`` differ by the mean of their
    heights ``tall`` or more (DetourCrowd's neighbour rule), or either is
    NaN (an agent off the ground, on an off-mesh link). Empty ``elev``:
    one floor (a 2D map), never."""
    return elev.shape[0] > 0 and not abs(elev[i] - elev[j]) < 0.5 * (tall[i] + tall[j])


@njit(cache=True, nogil=True, error_model="numpy")
def agent_neighbours(i, pos, elev, tall, cell, x0, y0, nx, ny, cell_start, cell_items,
                     cell_pos, range_sq, cap, keys, ids):
    """The nearest agents to agent ``i`` closer than ``sqrt(range_sq)``
    in the ground plane and on its floor (``apart``: heights ``elev``
    nearer than the mean of their ``tall``) (at most ``cap``), ascending,
    from the uniform grid
    (``cell_start``/``cell_items``: agents by cell of side ``cell`` from
    ``(x0, y0)``, ``nx`` by ``ny``); the count. Cells are scanned in
    rings around the agent's own, and once ``cap`` are found a cell or
    ring wholly farther than the farthest kept is skipped (RVO2's k-d
    tree prunes so): the same answer as scanning them all."""
    if cap <= 0:
        return 0
    px, py = pos[i, 0], pos[i, 1]
    reach = math.sqrt(range_sq)
    hc = min(max(int((px - x0) / cell), 0), nx - 1)
    hr = min(max(int((py - y0) / cell), 0), ny - 1)
    rings = int(reach / cell) + 1
    count = 0
    for ring in range(rings + 1):
        near = max(ring - 1, 0) * cell          # no cell of this ring is nearer
        if near * near >= range_sq or (count == cap and near * near > keys[cap - 1]):
            break
        for r in range(max(hr - ring, 0), min(hr + ring, ny - 1) + 1):
            edge_row = r == hr - ring or r == hr + ring
            c = max(hc - ring, 0)
            last = min(hc + ring, nx - 1)
            while c <= last:
                # the ring's own cells: whole rows at its top and bottom,
                # only its two ends in the rows between
                if not edge_row and c != hc - ring and c != hc + ring:
                    c = hc + ring
                    continue
                gx = max(x0 + c * cell - px, px - (x0 + (c + 1) * cell), 0.0)
                gy = max(y0 + r * cell - py, py - (y0 + (r + 1) * cell), 0.0)
                gap = gx * gx + gy * gy
                b = r * nx + c
                c += 1
                if gap >= range_sq or (count == cap and gap > keys[cap - 1]):
                    continue
                for k in range(cell_start[b], cell_start[b + 1]):
                    dx, dy = cell_pos[k, 0] - px, cell_pos[k, 1] - py
                    d = dx * dx + dy * dy
                    if d < range_sq:
                        j = cell_items[k]
                        if j != i and not apart(elev, tall, i, j):
                            count = _insert(keys, ids, count, cap, d, j)
    return count


@njit(cache=True, nogil=True, error_model="numpy")
def neighbours_from_hint(i, pos, elev, tall, cell, x0, y0, nx, ny, cell_start, cell_items,
                         cell_pos, range_sq, cap, hint, hint_n, seen, keys, ids):
    """``agent_neighbours``'s answer found from a guess: ``hint[i,
    :hint_n[i]]``, distinct agents (agent ``i``'s list of the step
    before). When ``cap`` of them count (on its floor, in range) the
    farthest kept bounds the answer's: only the cells within that
    distance are read, each row of them as one run of points, and an
    agent of the guess is not taken twice (``seen``: one mark per agent,
    and the last generation). Every agent nearer than the bound is read,
    so the answer is exact whatever the guess; the count, or -1 when
    fewer than ``cap`` of the guess count (no bound: search the whole
    range)."""
    n = pos.shape[0]
    m = hint_n[i]
    px, py = pos[i, 0], pos[i, 1]
    gen = seen[-1] + 1
    seen[-1] = gen
    count = 0
    whole = cap > 0 and m >= cap
    for t in range(m if whole else 0):
        j = hint[i, t]
        if j < 0 or j >= n:
            whole = False
            continue
        seen[j] = gen
        dx, dy = pos[j, 0] - px, pos[j, 1] - py
        d = dx * dx + dy * dy
        if d < range_sq and j != i and not apart(elev, tall, i, j):
            count = _insert(keys, ids, count, cap, d, j)
    if not whole or count < cap:
        return -1
    bound = keys[cap - 1]
    # a margin far above the rounding of the cells' edges and the distances
    slack = 1e-9 * (abs(px) + abs(py) + cell)
    reach = math.sqrt(bound) + slack
    r0 = min(max(int((py - reach - y0) / cell), 0), ny - 1)
    r1 = min(max(int((py + reach - y0) / cell), 0), ny - 1)
    for r in range(r0, r1 + 1):
        gy = max(y0 + r * cell - py, py - (y0 + (r + 1) * cell), 0.0)
        if gy > reach:
            continue
        half = math.sqrt(max(reach * reach - gy * gy, 0.0)) + slack
        c0 = min(max(int((px - half - x0) / cell), 0), nx - 1)
        c1 = min(max(int((px + half - x0) / cell), 0), nx - 1)
        for k in range(cell_start[r * nx + c0], cell_start[r * nx + c1 + 1]):
            dx, dy = cell_pos[k, 0] - px, cell_pos[k, 1] - py
            d = dx * dx + dy * dy
            if d <= bound:
                j = cell_items[k]
                if seen[j] != gen and j != i and not apart(elev, tall, i, j):
                    count = _insert(keys, ids, count, cap, d, j)
                    bound = keys[cap - 1]
    return count


@njit(cache=True, nogil=True, error_model="numpy")
def _seg_dist_sq(ax, ay, bx, by, px, py):
    ex, ey = bx - ax, by - ay
    t = ((px - ax) * ex + (py - ay) * ey) / (ex * ex + ey * ey)
    t = min(max(t, 0.0), 1.0)
    dx, dy = px - (ax + t * ex), py - (ay + t * ey)
    return dx * dx + dy * dy


@njit(cache=True, nogil=True, error_model="numpy")
def wall_neighbours(px, py, range_sq, ov, o_next, owner, mark, mgen, cell, x0, y0, nx, ny,
                    cell_start, cell_items, filled, stamp, gen, cap, keys, ids):
    """The walls (edges ``v -> o_next[v]`` of the vertices ``ov``) that a
    point at ``(px, py)`` sees from their outer side (the right of the
    edge) closer than ``sqrt(range_sq)``, nearest first, at most
    ``cap``; the count. ``stamp``/``gen`` skip an edge listed in
    several cells. With ``owner`` (not empty) an edge counts only when
    its owner node is marked ``mgen`` in ``mark`` (the point's
    neighbourhood: its own floor). ``filled``: the cells' edge counts
    summed from the grid's corner (``Walls.filled``), so that blocks of
    empty cells are passed over unread."""
    owned = owner.shape[0] > 0
    c0, c1, r0, r1 = _wall_block(px, py, range_sq, cell, x0, y0, nx, ny)
    count = 0
    if c0 > c1 or r0 > r1 or _block(filled, c0, c1, r0, r1) == 0:
        return 0
    for r in range(r0, r1 + 1):
        if _block(filled, c0, c1, r, r) == 0:
            continue
        for c in range(c0, c1 + 1):
            b = r * nx + c
            for k in range(cell_start[b], cell_start[b + 1]):
                v = cell_items[k]
                if stamp[v] == gen:
                    continue
                stamp[v] = gen
                if owned and mark[owner[v]] != mgen:
                    continue             # another floor's wall
                w = o_next[v]
                ax, ay, bx, by = ov[v, 0], ov[v, 1], ov[w, 0], ov[w, 1]
                if _det(bx - ax, by - ay, px - ax, py - ay) >= 0.0:
                    continue             # on the inner side (or on the line)
                d = _seg_dist_sq(ax, ay, bx, by, px, py)
                if d < range_sq:
                    count = _insert(keys, ids, count, cap, d, v)
    return count


@njit(cache=True, nogil=True, error_model="numpy")
def _cells_hold_walls(px, py, range_sq, cell, x0, y0, nx, ny, filled):
    """Whether any cell of the wall grid within ``sqrt(range_sq)`` of
    ``(px, py)`` (the block ``wall_neighbours`` reads) holds an edge."""
    c0, c1, r0, r1 = _wall_block(px, py, range_sq, cell, x0, y0, nx, ny)
    return c0 <= c1 and r0 <= r1 and _block(filled, c0, c1, r0, r1) > 0


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _wall_block(px, py, range_sq, cell, x0, y0, nx, ny):
    """``(c0, c1, r0, r1)``: the wall grid's cells within
    ``sqrt(range_sq)`` of ``(px, py)``, clipped to the grid (empty when
    ``c0 > c1`` or ``r0 > r1``)."""
    reach = math.sqrt(range_sq)
    return (max(int((px - reach - x0) / cell), 0), min(int((px + reach - x0) / cell), nx - 1),
            max(int((py - reach - y0) / cell), 0), min(int((py + reach - y0) / cell), ny - 1))


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _block(filled, c0, c1, r0, r1):
    """How many edges cells ``c0..c1`` of rows ``r0..r1`` hold, from
    their sums from the grid's corner ``filled``."""
    return filled[r1 + 1, c1 + 1] - filled[r0, c1 + 1] - filled[r1 + 1, c0] + filled[r0, c0]


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _legs(qx, qy, d_sq, r):
    """The unit directions of the two tangents from the agent to a disc of
    radius ``r`` around a wall vertex at ``(qx, qy)`` from it (``d_sq``
    its squared distance): ``(left x, left y, right x, right y)``."""
    leg = math.sqrt(d_sq - r * r)
    return ((qx * leg - qy * r) / d_sq, (qx * r + qy * leg) / d_sq,
            (qx * leg + qy * r) / d_sq, (-qx * r + qy * leg) / d_sq)


@njit(cache=True, nogil=True, error_model="numpy")
def _push(lp, ld, n, px, py, dx, dy):
    lp[n, 0], lp[n, 1], ld[n, 0], ld[n, 1] = px, py, dx, dy
    return n + 1


@njit(cache=True, nogil=True, error_model="numpy")
def _wall_lines(i, pos, vel, radius, th_obst, walls, n_walls, ov, o_next, o_prev, o_dir,
                o_convex, lp, ld):
    """Agent ``i``'s half-planes of the walls ``walls[:n_walls]`` (nearest
    first) into ``lp``/``ld``; their count. A wall's velocity obstacle is
    truncated at ``th_obst`` seconds; walls whose obstacle the lines so
    far already cover add nothing."""
    px, py = pos[i, 0], pos[i, 1]
    vx, vy = vel[i, 0], vel[i, 1]
    r = radius[i]
    inv_t = 1.0 / th_obst[i]
    r_sq = r * r
    n = 0
    for k in range(n_walls):
        a = walls[k]
        b = o_next[a]
        r1x, r1y = ov[a, 0] - px, ov[a, 1] - py
        r2x, r2y = ov[b, 0] - px, ov[b, 1] - py
        covered = False
        for j in range(n):
            if _det(inv_t * r1x - lp[j, 0], inv_t * r1y - lp[j, 1], ld[j, 0], ld[j, 1]) \
                    - inv_t * r >= -EPSILON and \
                    _det(inv_t * r2x - lp[j, 0], inv_t * r2y - lp[j, 1], ld[j, 0], ld[j, 1]) \
                    - inv_t * r >= -EPSILON:
                covered = True
                break
        if covered:
            continue
        d1 = r1x * r1x + r1y * r1y
        d2 = r2x * r2x + r2y * r2y
        ex, ey = ov[b, 0] - ov[a, 0], ov[b, 1] - ov[a, 1]
        s = (-r1x * ex - r1y * ey) / (ex * ex + ey * ey)
        qx, qy = -r1x - s * ex, -r1y - s * ey
        d_line = qx * qx + qy * qy
        if s < 0.0 and d1 <= r_sq:                # touching the left vertex
            if o_convex[a] and d1 > 0.0:
                norm = math.sqrt(d1)
                n = _push(lp, ld, n, 0.0, 0.0, -r1y / norm, r1x / norm)
            continue
        if s > 1.0 and d2 <= r_sq:                # touching the right vertex
            if o_convex[b] and d2 > 0.0 and _det(r2x, r2y, o_dir[b, 0], o_dir[b, 1]) >= 0.0:
                norm = math.sqrt(d2)
                n = _push(lp, ld, n, 0.0, 0.0, -r2y / norm, r2x / norm)
            continue
        if 0.0 <= s < 1.0 and d_line <= r_sq:     # touching the edge
            n = _push(lp, ld, n, 0.0, 0.0, -o_dir[a, 0], -o_dir[a, 1])
            continue
        # the legs of the truncated velocity obstacle
        if s < 0.0 and d_line <= r_sq:            # seen end-on: both from the left
            if not o_convex[a]:
                continue
            b = a
            lx, ly, rx, ry = _legs(r1x, r1y, d1, r)
        elif s > 1.0 and d_line <= r_sq:          # both from the right
            if not o_convex[b]:
                continue
            a = b
            lx, ly, rx, ry = _legs(r2x, r2y, d2, r)
        else:
            if o_convex[a]:
                lx, ly, _, _ = _legs(r1x, r1y, d1, r)
            else:
                lx, ly = -o_dir[a, 0], -o_dir[a, 1]
            if o_convex[b]:
                _, _, rx, ry = _legs(r2x, r2y, d2, r)
            else:
                rx, ry = o_dir[a, 0], o_dir[a, 1]
        # a leg never points into the neighbouring edge of a convex corner:
        # that edge's line takes its place
        left_prev = o_prev[a]
        left_foreign = right_foreign = False
        if o_convex[a] and _det(lx, ly, -o_dir[left_prev, 0], -o_dir[left_prev, 1]) >= 0.0:
            lx, ly = -o_dir[left_prev, 0], -o_dir[left_prev, 1]
            left_foreign = True
        if o_convex[b] and _det(rx, ry, o_dir[b, 0], o_dir[b, 1]) <= 0.0:
            rx, ry = o_dir[b, 0], o_dir[b, 1]
            right_foreign = True
        lcx, lcy = inv_t * (ov[a, 0] - px), inv_t * (ov[a, 1] - py)
        rcx, rcy = inv_t * (ov[b, 0] - px), inv_t * (ov[b, 1] - py)
        cvx, cvy = rcx - lcx, rcy - lcy
        same = a == b
        t = 0.5 if same else ((vx - lcx) * cvx + (vy - lcy) * cvy) / (cvx * cvx + cvy * cvy)
        t_left = (vx - lcx) * lx + (vy - lcy) * ly
        t_right = (vx - rcx) * rx + (vy - rcy) * ry
        if (t < 0.0 and t_left < 0.0) or (same and t_left < 0.0 and t_right < 0.0):
            wx, wy = vx - lcx, vy - lcy           # the left cut-off circle
            norm = math.sqrt(wx * wx + wy * wy)
            wx, wy = wx / norm, wy / norm
            n = _push(lp, ld, n, lcx + r * inv_t * wx, lcy + r * inv_t * wy, wy, -wx)
            continue
        if t > 1.0 and t_right < 0.0:
            wx, wy = vx - rcx, vy - rcy           # the right cut-off circle
            norm = math.sqrt(wx * wx + wy * wy)
            wx, wy = wx / norm, wy / norm
            n = _push(lp, ld, n, rcx + r * inv_t * wx, rcy + r * inv_t * wy, wy, -wx)
            continue
        # the nearest of the cut-off line and the two legs
        d_cut = np.inf
        if not (t < 0.0 or t > 1.0 or same):
            qx, qy = vx - (lcx + t * cvx), vy - (lcy + t * cvy)
            d_cut = qx * qx + qy * qy
        d_left = np.inf
        if t_left >= 0.0:
            qx, qy = vx - (lcx + t_left * lx), vy - (lcy + t_left * ly)
            d_left = qx * qx + qy * qy
        d_right = np.inf
        if t_right >= 0.0:
            qx, qy = vx - (rcx + t_right * rx), vy - (rcy + t_right * ry)
            d_right = qx * qx + qy * qy
        if d_cut <= d_left and d_cut <= d_right:
            dx, dy = -o_dir[a, 0], -o_dir[a, 1]
            n = _push(lp, ld, n, lcx + r * inv_t * -dy, lcy + r * inv_t * dx, dx, dy)
        elif d_left <= d_right:
            if not left_foreign:
                n = _push(lp, ld, n, lcx + r * inv_t * -ly, lcy + r * inv_t * lx, lx, ly)
        elif not right_foreign:
            n = _push(lp, ld, n, rcx + r * inv_t * ry, rcy + r * inv_t * -rx, -rx, -ry)
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def _agent_lines(i, pos, vel, radius, weight, th, dt, nbrs, n_nbrs, lp, ld, n):
    """Agent ``i``'s half-planes of its neighbours ``nbrs[:n_nbrs]``,
    after the ``n`` wall lines; the new count. Of each pair's avoiding,
    agent ``i`` takes ``weight[j] / (weight[i] + weight[j])`` (RVO2: all
    weights equal, half each; a lower weight yields more; two of weight 0
    halve it). Agents already overlapping part within one step."""
    # agent i's own values read once (the stores into lp/ld might alias
    # them, so the compiler would read them again for every neighbour)
    px, py = pos[i, 0], pos[i, 1]
    vx, vy = vel[i, 0], vel[i, 1]
    r_i, w_i = radius[i], weight[i]
    inv_t = 1.0 / th[i]
    inv_dt = 1.0 / dt
    for k in range(n_nbrs):
        j = nbrs[k]
        w_j = weight[j]
        both = w_i + w_j
        share = w_j / both if both > 0.0 else 0.5
        rpx, rpy = pos[j, 0] - px, pos[j, 1] - py
        rvx, rvy = vx - vel[j, 0], vy - vel[j, 1]
        dist_sq = rpx * rpx + rpy * rpy
        cr = r_i + radius[j]
        cr_sq = cr * cr
        if share == 0.0 and dist_sq > cr_sq:
            continue        # j does all the avoiding: i walks on and pushes it
        if dist_sq > cr_sq:
            wx, wy = rvx - inv_t * rpx, rvy - inv_t * rpy
            w_sq = wx * wx + wy * wy
            dot1 = wx * rpx + wy * rpy
            if dot1 < 0.0 and dot1 * dot1 > cr_sq * w_sq:
                w_len = math.sqrt(w_sq)             # the cut-off circle
                ux, uy = wx / w_len, wy / w_len
                dx, dy = uy, -ux
                ox, oy = (cr * inv_t - w_len) * ux, (cr * inv_t - w_len) * uy
            else:
                leg = math.sqrt(dist_sq - cr_sq)    # a leg
                if _det(rpx, rpy, wx, wy) > 0.0:
                    dx = (rpx * leg - rpy * cr) / dist_sq
                    dy = (rpx * cr + rpy * leg) / dist_sq
                else:
                    dx = -(rpx * leg + rpy * cr) / dist_sq
                    dy = -(-rpx * cr + rpy * leg) / dist_sq
                dot2 = rvx * dx + rvy * dy
                ox, oy = dot2 * dx - rvx, dot2 * dy - rvy
        else:
            wx, wy = rvx - inv_dt * rpx, rvy - inv_dt * rpy
            w_len = math.sqrt(wx * wx + wy * wy)
            if w_len == 0.0:
                # on one spot at one velocity: they part along x, the
                # lower index to the left, so the two choices agree
                wx, w_len = (1.0, 1.0) if i < j else (-1.0, 1.0)
                wy = 0.0
            ux, uy = wx / w_len, wy / w_len
            dx, dy = uy, -ux
            ox, oy = (cr * inv_dt - w_len) * ux, (cr * inv_dt - w_len) * uy
        n = _push(lp, ld, n, vx + share * ox, vy + share * oy, dx, dy)
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def bucket(pos, lo_x, lo_y, cell, nx, ny, cell_start, cell_items):
    """Counting sort of the points ``pos`` into the ``nx`` by ``ny`` grid
    of side ``cell`` from ``(lo_x, lo_y)`` (points outside are clamped to
    the border cells): ``cell_start`` (``nx * ny + 1``) and
    ``cell_items`` (ascending within a cell)."""
    cell_start[:] = 0
    m = pos.shape[0]
    for k in range(m):
        c = min(max(int((pos[k, 0] - lo_x) / cell), 0), nx - 1)
        r = min(max(int((pos[k, 1] - lo_y) / cell), 0), ny - 1)
        cell_start[r * nx + c + 1] += 1
    for b in range(nx * ny):
        cell_start[b + 1] += cell_start[b]
    for k in range(m):
        c = min(max(int((pos[k, 0] - lo_x) / cell), 0), nx - 1)
        r = min(max(int((pos[k, 1] - lo_y) / cell), 0), ny - 1)
        b = r * nx + c
        cell_items[cell_start[b]] = k
        cell_start[b] += 1
    for b in range(nx * ny, 0, -1):
        cell_start[b] = cell_start[b - 1]
    cell_start[0] = 0


@njit(cache=True, nogil=True, error_model="numpy")
def in_cell_order(pos, cell_items, out):
    """``out[k] = pos[cell_items[k]]``: the points in ``bucket``'s order
    (numpy's gather of ``(n, 2)`` rows is many times slower)."""
    for k in range(cell_items.shape[0]):
        j = cell_items[k]
        out[k, 0], out[k, 1] = pos[j, 0], pos[j, 1]


@njit(cache=True, nogil=True, error_model="numpy")
def _edge_cells(ov, o_next, v, lo_x, lo_y, cell, nx, ny):
    ax, ay, bx, by = ov[v, 0], ov[v, 1], ov[o_next[v], 0], ov[o_next[v], 1]
    c0 = min(max(int((min(ax, bx) - lo_x) / cell), 0), nx - 1)
    c1 = min(max(int((max(ax, bx) - lo_x) / cell), 0), nx - 1)
    r0 = min(max(int((min(ay, by) - lo_y) / cell), 0), ny - 1)
    r1 = min(max(int((max(ay, by) - lo_y) / cell), 0), ny - 1)
    return c0, c1, r0, r1


@njit(cache=True, nogil=True, error_model="numpy")
def bucket_edges(ov, o_next, lo_x, lo_y, cell, nx, ny):
    """``(cell_start, cell_items)``: the wall edges ``v -> o_next[v]`` by
    every grid cell their bounding box overlaps."""
    cell_start = np.zeros(nx * ny + 1, np.int64)
    m = ov.shape[0]
    for v in range(m):
        c0, c1, r0, r1 = _edge_cells(ov, o_next, v, lo_x, lo_y, cell, nx, ny)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                cell_start[r * nx + c + 1] += 1
    for b in range(nx * ny):
        cell_start[b + 1] += cell_start[b]
    items = np.empty(cell_start[-1], np.int32)
    fill = cell_start[:-1].copy()
    for v in range(m):
        c0, c1, r0, r1 = _edge_cells(ov, o_next, v, lo_x, lo_y, cell, nx, ny)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                items[fill[r * nx + c]] = v
                fill[r * nx + c] += 1
    return cell_start, items


@njit(cache=True, nogil=True, error_model="numpy")
def velocities(lo, hi, pos, elev, tall, vel, pref, radius, wall_radius, weight, max_speed,
               nbr_dist, max_nbrs, th, th_obst, dt, grid, cell_start, cell_items, cell_pos, ov,
               o_next, o_prev, o_dir, o_convex, owner, local_start, local_nodes, wall_grid,
               wall_start, wall_items, wall_filled, max_walls, keys, ids, stamp, mark, lp, ld, pp,
               pd, hint, hint_n, seen, out):
    """New velocities of agents ``cell_items[lo:hi]`` (cell by cell) into
    ``out``: ORCA against their nearest neighbours on their floor (agent
    grid ``grid`` = (side, x0, y0, nx, ny) with ``cell_start``/
    ``cell_items``, ``cell_pos``: ``in_cell_order``; ``apart``) and the
    nearest ``max_walls`` walls they see (``wall_grid``,
    ``wall_start``/``wall_items``, ``wall_filled``: ``Walls.filled``;
    with ``owner``,
    only those of agent ``i``'s neighbourhood, the nodes
    ``local_nodes[local_start[i]:local_start[i + 1]]``), each agent a
    disc of ``radius`` among agents and of ``wall_radius`` off the walls
    (less than its radius on a surface already kept off them: a navmesh
    or level built for an agent radius). Scratch:
    ``keys``/``ids`` (neighbour lists), ``stamp`` (one per wall vertex,
    and the last generation), ``mark`` (one per node up to the last that
    owns a wall, and the last generation), ``lp``/``ld``/``pp``/``pd``
    (lines, as many as walls and neighbours an agent may keep). Each
    agent's neighbour list is kept in ``hint[i, :hint_n[i]]`` (as many
    columns as the most neighbours an agent keeps): the next step's
    search starts from it (``neighbours_from_hint``; ``seen``: one mark
    per agent and the last generation)."""
    side, x0, y0 = grid[0], grid[1], grid[2]
    nx, ny = int(grid[3]), int(grid[4])
    w_side, wx0, wy0 = wall_grid[0], wall_grid[1], wall_grid[2]
    wnx, wny = int(wall_grid[3]), int(wall_grid[4])
    gen = stamp[-1]
    mgen = mark[-1]
    for t in range(lo, hi):
        i = cell_items[t]              # cell by cell: neighbours near in memory
        n = 0
        reach = th_obst[i] * max_speed[i] + wall_radius[i]
        # most agents have no wall cell in reach: told apart here, before
        # the calls with twenty arguments that would find none
        if ov.shape[0] and _cells_hold_walls(pos[i, 0], pos[i, 1], reach * reach, w_side, wx0,
                                             wy0, wnx, wny, wall_filled):
            gen += 1
            if owner.shape[0]:
                mgen += 1
                for k in range(local_start[i], local_start[i + 1]):
                    q = local_nodes[k]
                    if q < mark.shape[0] - 1:      # (a node past every owner has no walls)
                        mark[q] = mgen
            n_walls = wall_neighbours(pos[i, 0], pos[i, 1], reach * reach, ov, o_next, owner,
                                      mark, mgen, w_side, wx0, wy0, wnx, wny, wall_start,
                                      wall_items, wall_filled, stamp, gen, max_walls, keys,
                                      ids)
            if n_walls:
                n = _wall_lines(i, pos, vel, wall_radius, th_obst, ids, n_walls, ov, o_next,
                                o_prev, o_dir, o_convex, lp, ld)
        n_fixed = n
        range_sq = nbr_dist[i] * nbr_dist[i]
        k = neighbours_from_hint(i, pos, elev, tall, side, x0, y0, nx, ny, cell_start,
                                 cell_items, cell_pos, range_sq, max_nbrs[i], hint, hint_n, seen,
                                 keys, ids)
        if k < 0:
            k = agent_neighbours(i, pos, elev, tall, side, x0, y0, nx, ny, cell_start,
                                 cell_items, cell_pos, range_sq, max_nbrs[i], keys, ids)
        for q in range(k):
            hint[i, q] = ids[q]
        hint_n[i] = k
        n = _agent_lines(i, pos, vel, radius, weight, th, dt, ids, k, lp, ld, n)
        # the velocity from the lines, the first ``n_fixed`` (walls) hard, the
        # speed limit and the preferred velocity (when no velocity meets every
        # line, ``_lp3`` finds the one that violates the agent lines least;
        # else it keeps ``_lp2``'s)
        fail, x, y = _lp2(lp, ld, n, max_speed[i], pref[i, 0], pref[i, 1], False)
        out[i, 0], out[i, 1] = _lp3(lp, ld, n, n_fixed, fail, max_speed[i], x, y, pp, pd)
    stamp[-1] = gen
    mark[-1] = mgen


@njit(cache=True, nogil=True, error_model="numpy")
def bounds(pos):
    """``(x0, y0, x1, y1)``: the box of the points ``pos`` (at least one;
    numpy's ``min(axis=0)`` over ``(n, 2)`` is many times slower)."""
    x0, y0 = pos[0, 0], pos[0, 1]
    x1, y1 = x0, y0
    for i in range(1, pos.shape[0]):
        x0 = min(x0, pos[i, 0])
        x1 = max(x1, pos[i, 0])
        y0 = min(y0, pos[i, 1])
        y1 = max(y1, pos[i, 1])
    return x0, y0, x1, y1


@njit(cache=True, nogil=True, error_model="numpy")
def grid_for(pos, side, n_cells_max):
    """``(cell, x0, y0, nx, ny)``: a grid over the points ``pos`` with
    cells of ``side`` (doubled until there are at most ``n_cells_max``)."""
    x0, y0, x1, y1 = bounds(pos)
    cell = side
    while True:
        nx = max(int(math.ceil((x1 - x0) / cell)), 1)
        ny = max(int(math.ceil((y1 - y0) / cell)), 1)
        if nx * ny <= n_cells_max:
            return cell, x0, y0, nx, ny
        cell *= 2.0


@njit(cache=True, nogil=True, error_model="numpy")
def close_pairs(pos, elev, tall, radius, margin, cell, x0, y0, nx, ny, cell_start, cell_items,
                pairs):
    """The pairs ``(i, j)``, ``i < j``, on one floor (``apart``) closer
    than their radii plus ``margin``, into ``pairs`` (by ``i``, then as
    the grid ``bucket`` filled holds the ``j``); their count, or -1 when
    ``pairs`` is full."""
    n = pos.shape[0]
    reach = 2.0 * radius.max() + margin
    floors = elev.shape[0] > 0
    k = 0
    for i in range(n):
        px, py, ri = pos[i, 0], pos[i, 1], radius[i]
        c0 = max(int((px - reach - x0) / cell), 0)
        c1 = min(int((px + reach - x0) / cell), nx - 1)
        r0 = max(int((py - reach - y0) / cell), 0)
        r1 = min(int((py + reach - y0) / cell), ny - 1)
        for r in range(r0, r1 + 1):
            # the row's cells c0..c1 hold one run of agents
            for t in range(cell_start[r * nx + c0], cell_start[r * nx + c1 + 1]):
                j = cell_items[t]
                if j <= i:
                    continue
                dx, dy = px - pos[j, 0], py - pos[j, 1]
                lim = ri + radius[j] + margin
                if dx * dx + dy * dy < lim * lim and not (floors and apart(elev, tall, i, j)):
                    if k == pairs.shape[0]:
                        return -1
                    pairs[k, 0] = i
                    pairs[k, 1] = j
                    k += 1
    return k


#: the least share of a push along the line between a pair that their
#: moves give when walls turn both aside (so a pair in a gap narrower than
#: both slides at most this many times its overlap)
MIN_PART = 0.1


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _slide(ux, uy, hx, hy, pinned):
    """An agent pushed along ``(ux, uy)`` that a wall holds back along
    ``(hx, hy)`` (a unit vector off the wall, or zero): the way it moves
    (the push less its part into the wall; none toward the walls when
    walls on several sides pin it, ``pinned`` not 0, nor when they wedge
    it, ``(hx, hy)`` zero) and how much of the push that way gives along
    ``u``."""
    into = ux * hx + uy * hy
    if pinned != 0.0:
        if into > 0.0:
            return ux, uy, 1.0
        return 0.0, 0.0, 0.0         # toward the walls, or wedged between two
    if into >= 0.0:
        return ux, uy, 1.0
    return ux - into * hx, uy - into * hy, 1.0 - into * into


@njit(cache=True, nogil=True, error_model="numpy")
def relax(pos, elev, tall, radius, weight, held, passes, weighted, tol, over, work, cell_start,
          cell_items, pairs, drift, moved):
    """Push overlapping agents of one floor (``apart``) apart (DetourCrowd's
    collision handling),
    pair by pair in index order so a pass settles chains of overlaps:
    each pair closer than its radii parts by the overlap, agent ``i``
    moving ``weight[j] / (weight[i] + weight[j])`` of it (halves once
    even, or when both weigh 0) along the line between them (to the left
    for the lower index when they stand on one spot); an agent a wall
    holds (``held[:, :2]``: the unit way the wall pushes it, zero when
    none) slides along that wall instead of into it, and the pair moves
    on until parted (the other taking what the wall holds back); one
    walls pin (``held[:, 2]`` not 0: in a corner) is not pushed toward
    them at all, the other taking the whole push; each push
    is ``over`` times the overlap (over-relaxation: above 1 a pass
    carries a push on through a packed crowd instead of leaving part of
    it for the next, so a jam parts in a fraction of the passes). Up to
    ``passes``
    passes (the first ``weighted`` by weight, then evenly), stopping once
    no pair overlaps by more than ``tol``, or before a pass that would
    take the pairs tested past ``work`` (a listing counts as four tests
    of its pairs; the first pass always runs). Passes
    run over a list of the pairs within ``margin`` (half the largest
    radius) of touching, made again once an agent has been pushed half
    ``margin`` since: a pair not listed cannot come to overlap before one
    of its two has, so a pass that ends with no pair over ``tol`` counts
    only when no agent went that far in it (else the list is made again
    and another pass looks). ``moved`` adds up each agent's
    moves; ``drift`` is scratch. Returns the largest overlap of the last
    pass (-1.0 when ``pairs`` is too small: nothing moved) and the pairs
    tested."""
    n = pos.shape[0]
    worst = 0.0
    r_max = radius.max()
    margin = 0.5 * r_max
    count = -2
    tested = 0
    for p in range(passes):
        if count == -2:
            cell, x0, y0, nx, ny = grid_for(pos, 2.0 * r_max + margin, cell_start.size - 1)
            bucket(pos, x0, y0, cell, nx, ny, cell_start, cell_items)
            count = close_pairs(pos, elev, tall, radius, margin, cell, x0, y0, nx, ny,
                                cell_start, cell_items, pairs)
            if count < 0:
                return -1.0, tested
            for i in range(n):
                drift[i] = 0.0
            # a listing costs about what testing its pairs four times does
            tested += 4 * count
        if p > 0 and tested + count > work:
            break
        tested += count
        even = p >= weighted
        worst = 0.0
        far = False
        for t in range(count):
            i, j = pairs[t, 0], pairs[t, 1]
            dx, dy = pos[i, 0] - pos[j, 0], pos[i, 1] - pos[j, 1]
            d_sq = dx * dx + dy * dy
            cr = radius[i] + radius[j]
            if d_sq >= cr * cr:
                continue
            d = math.sqrt(d_sq)
            overlap = cr - d
            worst = max(worst, overlap)
            both = weight[i] + weight[j]
            share = 0.5 if even or both <= 0.0 else weight[j] / both
            if d > 0.0:
                ux, uy = dx / d, dy / d
            else:
                ux, uy = -1.0, 0.0          # i (the lower index) to the left
            # i moves along +u, j along -u; one a wall holds (``held``: the
            # unit way it pushes) slides along it instead, and both move on
            # until they part by the overlap along u
            vix, viy, gi = _slide(ux, uy, held[i, 0], held[i, 1], held[i, 2])
            vjx, vjy, gj = _slide(-ux, -uy, held[j, 0], held[j, 1], held[j, 2])
            if gi == 0.0 and gj == 0.0:
                continue                    # walls hold both: neither moves
            if gi == 0.0:
                share = 0.0                 # i cannot move this way: j takes the push
            elif gj == 0.0:
                share = 1.0
            scale = over * overlap
            if gi < 1.0 or gj < 1.0:
                scale /= max(share * gi + (1.0 - share) * gj, MIN_PART)
            mi, mj = scale * share, scale * (1.0 - share)
            pos[i, 0] += vix * mi
            pos[i, 1] += viy * mi
            pos[j, 0] += vjx * mj
            pos[j, 1] += vjy * mj
            moved[i, 0] += vix * mi
            moved[i, 1] += viy * mi
            moved[j, 0] += vjx * mj
            moved[j, 1] += vjy * mj
            drift[i] += mi
            drift[j] += mj
            far = far or drift[i] > 0.5 * margin or drift[j] > 0.5 * margin
        if worst <= tol and not far:
            break
        if far:
            count = -2                      # list the pairs again
    return worst, tested


@njit(cache=True, nogil=True, error_model="numpy")
def moved_rows(moved):
    """The rows of ``moved`` (``(n, 2)``) that are not ``(0, 0)``, in order
    (int64): the agents separation pushed. The same as numpy's
    ``flatnonzero`` of the two columns' masks, which makes three arrays
    on the way (a step of 1,000 agents: 21 us, this call 8)."""
    out = np.empty(moved.shape[0], dtype=np.int64)
    k = 0
    for i in range(moved.shape[0]):
        if moved[i, 0] != 0.0 or moved[i, 1] != 0.0:
            out[k] = i
            k += 1
    return out[:k]


@njit(cache=True, nogil=True, error_model="numpy")
def unwall(rows, pos, wall_radius, ov, o_next, wall_grid, wall_start, wall_items, wall_filled,
           stamp, out):
    """Where agents ``rows`` stand with their discs of ``wall_radius``
    pushed out of the walls (edges ``v -> o_next[v]``, walkable on their
    right; bucketed as ``velocities`` takes them) into ``out`` (one row
    each): edge by edge, each push moving the centre straight away from
    the edge's nearest point until the disc touches it (off the edge's
    walkable side when the centre is on its line), so a corner's two
    edges are settled in turn. Edges the centre is behind are left to
    their neighbours (that side is solid). ``stamp``: one per wall
    vertex and the last generation (``Scratch.stamp``). The number of
    agents moved."""
    w_side, wx0, wy0 = wall_grid[0], wall_grid[1], wall_grid[2]
    wnx, wny = int(wall_grid[3]), int(wall_grid[4])
    gen = stamp[-1]
    count = 0
    for k in range(rows.shape[0]):
        i = rows[k]
        px, py = pos[i, 0], pos[i, 1]
        out[k, 0], out[k, 1] = px, py
        if ov.shape[0] == 0:
            continue
        r = wall_radius[i]
        c0 = max(int((px - r - wx0) / w_side), 0)
        c1 = min(int((px + r - wx0) / w_side), wnx - 1)
        r0 = max(int((py - r - wy0) / w_side), 0)
        r1 = min(int((py + r - wy0) / w_side), wny - 1)
        if c0 > c1 or r0 > r1 or _block(wall_filled, c0, c1, r0, r1) == 0:
            continue
        gen += 1
        for rr in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                b = rr * wnx + c
                for e in range(wall_start[b], wall_start[b + 1]):
                    v = wall_items[e]
                    if stamp[v] == gen:
                        continue
                    stamp[v] = gen
                    w = o_next[v]
                    ax, ay = ov[v, 0], ov[v, 1]
                    ex, ey = ov[w, 0] - ax, ov[w, 1] - ay
                    if _det(ex, ey, px - ax, py - ay) > 0.0:
                        continue         # behind the edge: its neighbours hold it
                    length_sq = ex * ex + ey * ey
                    if length_sq <= 0.0:
                        continue
                    t = min(max(((px - ax) * ex + (py - ay) * ey) / length_sq, 0.0), 1.0)
                    dx, dy = px - (ax + t * ex), py - (ay + t * ey)
                    d = math.sqrt(dx * dx + dy * dy)
                    if d >= r:
                        continue
                    if d > 0.0:
                        px += dx / d * (r - d)
                        py += dy / d * (r - d)
                    else:                # on the line: out to its walkable side
                        length = math.sqrt(length_sq)
                        px += ey / length * r
                        py -= ex / length * r
        if px != out[k, 0] or py != out[k, 1]:
            out[k, 0], out[k, 1] = px, py
            count += 1
    stamp[-1] = gen
    return count
