"""numba kernels over the implicit grid (private; see ``search.py``).

Cells are addressed in a padded layout: a one-cell blocked border around the
map, so ``p = (y + 1) * Wp + (x + 1)`` with ``Wp = width + 2`` and no kernel
ever checks bounds. In each scratch ``stamp`` array a blocked cell holds the
permanent sentinel ``BLOCKED`` (above every ``2*gen + 1``), so one load and
one comparison reject closed and blocked neighbours alike.

Directions are numbered 0..7: E, W, S, N, SE, SW, NE, NW (straight first,
so the diagonal corner test can use the straight results).

A* keeps its open list in a radix heap (see ``grid_astar``), a monotone
queue of its own, not the binary heap of ``navcore._kernels`` that jump
point search (``_jps.py``) uses.
"""
from __future__ import annotations

import numpy as np
from numba import config, njit

from navcore._kernels import BLOCKED  # (the grid's modules import it from here)

if config.DISABLE_JIT:          # the intrinsic needs the compiler
    def leading_zeros(x):
        return 64 - int(x).bit_length()
else:
    from numba.cpython.unsafe.numbers import leading_zeros

INF = np.inf
#: an expansion budget no search reaches (its sum with a count stays in int64)
WHOLE = 1 << 62


@njit(cache=True, nogil=True, inline="always")
def landmark_bound(lm, nk, lscale, v, goal, h):
    """The larger of ``h`` and the landmarks' bound on the distance from
    ``v`` to ``goal``: ``lscale * |lm[v, q] - lm[goal, q]|`` over the ``nk``
    landmarks that reach both (see ``landmarks.py``). Shared by A* and JPS."""
    for q in range(nk):
        a = lm[v, q]
        b = lm[goal, q]
        if a < INF and b < INF:
            d = abs(np.float64(a) - np.float64(b)) * lscale
            if d > h:
                h = d
    return h


#: bits of a parent link that hold a turn (``trace_into``): A*'s links
#: are plain cells, jump point search's ``(cell << 2) | turn`` (``_jps.py``)
ASTAR_LINKS = 0


@njit(cache=True, nogil=True, inline="always")
def padded(cell, W, Wp):
    """The padded index of cell id ``cell`` (``y * W + x``)."""
    return (cell // W + 1) * Wp + cell % W + 1


#: ``grid_astar``'s cost when it stopped at its expansion budget (to be resumed)
PAUSED = -2.0
#: ``grid_astar``'s registers (``pool[6]``, int64), kept between the calls
#: of one search: nodes closed (-1: begin a search), the radix heap's last
#: key, its pool's fresh and free entries and live count, the closed node
#: of least heuristic (with ``R_TRACK`` set) and that heuristic's bits
R_EXPANDED, R_LAST, R_FRESH, R_FREE, R_LIVE, R_BEST, R_BEST_H, R_TRACK = range(8)
REGISTERS = 8


@njit(cache=True, nogil=True)
def grid_astar(grid, state, pool, start, goal, gen, budget):
    """A* on the implicit grid. ``grid``: the grid's inputs as
    ``search_inputs`` gathers them (``Wp, W, pcost, uniform, ndirs, off,
    dxs, dys, need, lens, corner_cut, ha, hb, hscale, lm, nk, lscale``);
    ``state``: ``(stamp, g, parent)``; ``pool``: ``(enode, ekey, enext,
    head, fbits, ibits, regs)``. A move costs ``lens[k]`` times the mean of
    the two cells' costs (just ``lens[k]`` when ``uniform``). The heuristic
    is the larger of ``hscale * (ha * max(dx, dy) + hb * min(dx, dy))``,
    consistent for the move set the wrapper describes, and, with ``nk``
    landmarks, ``lscale * |lm[v, q] - lm[goal, q]|`` over them (a
    differential heuristic, see ``landmarks.py``). Returns ``(cost,
    expanded)``, cost -1 when the entry pool (``enode``/``ekey``/``enext``)
    ran out, ``PAUSED`` when ``budget`` nodes were closed in this call
    first (the next call with the same arguments carries on from the
    registers ``regs``; a finished search leaves them ready for the next).
    ``goal`` -1 runs Dijkstra over everything reachable.

    The open list is a radix heap (Ahuja et al. 1990) over the bit patterns
    of the f values: with a consistent heuristic the popped keys never
    decrease, and non-negative float64 bits order like the floats, so a
    push is O(1) and a pop moves each entry down at most 64 buckets. It was
    1.2-1.6x faster per expansion than the indexed binary heap on the
    MovingAI maps (2026-11-23). Entries are linked lists through a pool
    with a free list; a node improved while open gets a second entry and
    the stale one is skipped when popped (its node is already closed).
    Equal keys pop last-in first-out, which favours the deeper node.
    ``fbits``/``ibits`` are one float64 seen as int64 (a bit cast).
    """
    (Wp, _, pcost, uniform, ndirs, off, dxs, dys, need, lens, corner_cut, ha, hb, hscale,
     lm, nk, lscale) = grid
    stamp, g, parent = state
    enode, ekey, enext, head, fbits, ibits, regs = pool
    open_mark = 2 * gen
    closed_mark = open_mark + 1
    cap = enode.shape[0]
    # u // Wp through a multiply: an integer division per expansion cost ~5%
    inv = 1.0 / Wp
    gx = goal % Wp
    gy = goal // Wp
    expanded = regs[R_EXPANDED]
    if expanded < 0:
        for b in range(65):
            head[b] = -1
        g[start] = 0.0
        parent[start] = -1
        stamp[start] = open_mark
        last = np.int64(0)            # key of the last pop, as float bits
        enode[0] = start
        ekey[0] = 0
        enext[0] = -1
        head[0] = 0
        fresh = 1                     # pool entries never used yet start here
        free = -1                     # recycled entries
        live = 1
        expanded = 0
        regs[R_BEST] = -1
    else:
        last, fresh, free, live = regs[R_LAST], regs[R_FRESH], regs[R_FREE], regs[R_LIVE]
    track = regs[R_TRACK] != 0
    best = regs[R_BEST]
    ibits[0] = regs[R_BEST_H]
    best_h = INF if best < 0 else fbits[0]
    stop = expanded + budget
    while live > 0:
        if expanded >= stop:
            regs[R_EXPANDED], regs[R_LAST], regs[R_FRESH] = expanded, last, fresh
            regs[R_FREE], regs[R_LIVE], regs[R_BEST] = free, live, best
            fbits[0] = best_h
            regs[R_BEST_H] = ibits[0]
            return PAUSED, expanded
        if head[0] < 0:
            # refill bucket 0: the least key of the first non-empty bucket
            # becomes ``last``; that bucket's entries all move lower
            i = 1
            while head[i] < 0:
                i += 1
            e = head[i]
            m = ekey[e]
            e = enext[e]
            while e >= 0:
                if ekey[e] < m:
                    m = ekey[e]
                e = enext[e]
            last = m
            e = head[i]
            head[i] = -1
            while e >= 0:
                nxt = enext[e]
                x = ekey[e] ^ last
                b = 0 if x == 0 else 64 - leading_zeros(x)
                enext[e] = head[b]
                head[b] = e
                e = nxt
        e = head[0]
        head[0] = enext[e]
        enext[e] = free
        free = e
        live -= 1
        u = enode[e]
        if stamp[u] == closed_mark:
            continue                  # a stale entry of an improved node
        stamp[u] = closed_mark
        expanded += 1
        if u == goal:
            regs[R_EXPANDED], regs[R_BEST] = -1, best
            fbits[0] = best_h
            regs[R_BEST_H] = ibits[0]
            return g[u], expanded
        uy = int(u * inv)
        ux = u - uy * Wp
        if ux < 0:                    # the float product may round either way
            uy -= 1
            ux += Wp
        elif ux >= Wp:
            uy += 1
            ux -= Wp
        if track:
            hx = abs(ux - gx)
            hy = abs(uy - gy)
            h = landmark_bound(lm, nk, lscale, u, goal,
                               hscale * (ha * max(hx, hy) + hb * min(hx, hy)))
            if h < best_h:
                best, best_h = u, h
        gu = g[u]
        cu = pcost[u]
        free_bits = 0
        for k in range(ndirs):
            if k >= 4 and not corner_cut and (free_bits & need[k]) != need[k]:
                continue
            v = u + off[k]
            sv = stamp[v]
            if sv == BLOCKED:
                continue
            if k < 4:
                free_bits |= 1 << k
            if sv == closed_mark:
                continue
            if uniform:
                ng = gu + lens[k]
            else:
                ng = gu + lens[k] * 0.5 * (cu + pcost[v])
            if sv == open_mark:
                if ng >= g[v]:
                    continue
            else:
                stamp[v] = open_mark
            if free >= 0:
                e = free
                free = enext[e]
            elif fresh < cap:
                e = fresh
                fresh += 1
            else:
                regs[R_EXPANDED] = -1
                return -1.0, expanded
            hx = abs(ux + dxs[k] - gx)
            hy = abs(uy + dys[k] - gy)
            h = landmark_bound(lm, nk, lscale, v, goal,
                               hscale * (ha * max(hx, hy) + hb * min(hx, hy)))
            fbits[0] = ng + h
            key = ibits[0]
            if key < last:            # rounding: f may sit an ulp below
                key = last
            g[v] = ng
            parent[v] = u
            x = key ^ last
            b = 0 if x == 0 else 64 - leading_zeros(x)
            enode[e] = v
            ekey[e] = key
            enext[e] = head[b]
            head[b] = e
            live += 1
    regs[R_EXPANDED], regs[R_BEST] = -1, best
    fbits[0] = best_h
    regs[R_BEST_H] = ibits[0]
    return INF, expanded


@njit(cache=True, nogil=True)
def centres(nodes, W):
    """Centres ``(x + 0.5, y + 0.5)`` of cell ids ``nodes`` as float64
    ``(k, 2)``: one call instead of four numpy passes (5.8 us -> under 1 for
    a short path, paid by every generic view's result on a grid)."""
    out = np.empty((nodes.shape[0], 2), dtype=np.float64)
    for i in range(nodes.shape[0]):
        y = nodes[i] // W
        out[i, 0] = nodes[i] - y * W + 0.5
        out[i, 1] = y + 0.5
    return out


@njit(cache=True, nogil=True, inline="always")
def run(a, b, Wp):
    """Moves from padded cell ``a`` to ``b`` along a straight or diagonal run."""
    ay = a // Wp
    by = b // Wp
    return max(abs((a - ay * Wp) - (b - by * Wp)), abs(ay - by))


@njit(cache=True, nogil=True, inline="always")
def turn_cell(code, v, Wp, links):
    """The cell where the link ``code`` into ``v`` turned from its diagonal
    into its last straight leg, or the parent itself when the link is one
    straight or diagonal run. ``links``: the bits of ``code`` below the
    parent that hold the turn (``ASTAR_LINKS``, ``_jps.JPS_LINKS``)."""
    p = code >> links
    turn = code & ((1 << links) - 1)
    if turn == 0:
        return p
    py = p // Wp
    px = p - py * Wp
    vy = v // Wp
    vx = v - vy * Wp
    if turn == 1:          # ... then along row vy: the diagonal covered |vy - py|
        return vy * Wp + px + np.sign(vx - px) * abs(vy - py)
    return (py + np.sign(vy - py) * abs(vx - px)) * Wp + vx


@njit(cache=True, nogil=True, inline="always")
def path_length(parent, goal, Wp, links):
    """Cells of the path ending at padded ``goal``."""
    n = 1
    v = goal
    while parent[v] != -1:
        p = parent[v] >> links
        w = turn_cell(parent[v], v, Wp, links)
        n += run(v, w, Wp) + run(w, p, Wp)
        v = p
    return n


@njit(cache=True, nogil=True, inline="always")
def write_path(parent, goal, Wp, W, links, out, end):
    """The cell ids (``y * W + x``) of the path ending at padded ``goal``
    into ``out[end - path_length:end]``: the runs between linked cells
    (through their turn cells) filled in."""
    i = end - 1
    c = goal
    cy = c // Wp
    out[i] = (cy - 1) * W + c - cy * Wp - 1
    v = goal
    while parent[v] != -1:
        p = parent[v] >> links
        turn_at = turn_cell(parent[v], v, Wp, links)
        for leg in range(2):
            to = turn_at if leg == 0 else p
            ty = to // Wp
            sx = np.sign((to - ty * Wp) - (c - (c // Wp) * Wp))
            sy = np.sign(ty - c // Wp)
            while c != to:
                c += sx + sy * Wp
                cy = c // Wp
                i -= 1
                out[i] = (cy - 1) * W + c - cy * Wp - 1
        v = p


@njit(cache=True, nogil=True)
def trace_into(parent, goal, Wp, W, links, out, at):
    """The cell ids of the path ending at padded ``goal`` written to
    ``out[at:at + n]``; returns ``n``, or ``-n`` when ``out`` has no room
    for it (nothing written then)."""
    n = path_length(parent, goal, Wp, links)
    if at + n > out.shape[0]:
        return -n
    write_path(parent, goal, Wp, W, links, out, at + n)
    return n


@njit(cache=True, nogil=True, inline="always")
def traced(parent, goal, Wp, W, links, buf, used):
    """``(buf, n)``: the ``n`` cells of the path ending at padded ``goal``
    appended to ``buf`` after its ``used`` cells; ``buf`` is replaced by
    one at least twice as large when it has no room."""
    n = trace_into(parent, goal, Wp, W, links, buf, used)
    if n < 0:
        bigger = np.empty(max(2 * buf.shape[0], used - 2 * n), dtype=np.int32)
        bigger[:used] = buf[:used]
        buf = bigger
        n = trace_into(parent, goal, Wp, W, links, buf, used)
    return buf, n


@njit(cache=True, nogil=True)
def astar_search(grid, scratch, start, goal, gen):
    """``grid_astar`` with ``scratch = (state, pool)``: ``(cost, expanded,
    parent)``, the form ``path_between`` and the batches take a search in."""
    state, pool = scratch
    cost, expanded = grid_astar(grid, state, pool, start, goal, gen, WHOLE)
    return cost, expanded, state[2]


@njit(cache=True, nogil=True, inline="always")
def path_between(search, grid, scratch, links, start, goal, gen):
    """``search`` and the trace of its path in one call (a query pays one
    dispatch): ``(cost, expanded, nodes, points)`` for cell ids ``start``,
    ``goal``; empty arrays when unreachable, cost -1 when A*'s entry pool
    ran out (the wrapper grows it and asks again)."""
    Wp, W = grid[0], grid[1]
    t = padded(goal, W, Wp)
    cost, expanded, parent = search(grid, scratch, padded(start, W, Wp), t, gen)
    if not (0.0 <= cost < INF):
        return cost, expanded, np.empty(0, dtype=np.int32), np.empty((0, 2), np.float64)
    nodes = np.empty(path_length(parent, t, Wp, links), dtype=np.int32)
    write_path(parent, t, Wp, W, links, nodes, nodes.shape[0])
    return cost, expanded, nodes, centres(nodes, W)


@njit(cache=True, nogil=True)
def path_to(parent, cell, Wp, W, links):
    """``(nodes, points)`` of the path from a search's start to padded
    ``cell`` (closed by the search that left ``parent``; its links
    ``links``: ``ASTAR_LINKS``, ``_jps.JPS_LINKS``)."""
    nodes = np.empty(path_length(parent, cell, Wp, links), dtype=np.int32)
    write_path(parent, cell, Wp, W, links, nodes, nodes.shape[0])
    return nodes, centres(nodes, W)


@njit(cache=True, nogil=True)
def astar_path(grid, state, pool, start, goal, gen):
    """``grid_astar`` and the trace of its path in one call
    (``path_between``)."""
    return path_between(astar_search, grid, (state, pool), ASTAR_LINKS, start, goal, gen)


@njit(cache=True, nogil=True, inline="always")
def search_batch(search, grid, scratch, links, starts, goals, gen, cost, expanded, offsets,
                 buf, first, used):
    """``path_between`` for pairs ``first..`` of ``starts``/``goals`` in
    one call (one nogil call per worker's batch): ``cost[q]``,
    ``expanded[q]`` and the cells of path ``q`` in
    ``buf[offsets[q]:offsets[q + 1]]`` (empty when unreachable), ``used``
    cells of ``buf`` taken before; pair ``q`` searches with generation
    ``gen + q - first``. ``buf`` grows when a path does not fit. Returns
    ``(buf, used, q)``: ``q`` is the number of pairs done, less than all
    when A*'s entry pool ran out at pair ``q`` (the wrapper grows it and
    calls again from there)."""
    Wp, W = grid[0], grid[1]
    if first == 0:
        offsets[0] = 0
    for q in range(first, starts.shape[0]):
        t = padded(goals[q], W, Wp)
        c, e, parent = search(grid, scratch, padded(starts[q], W, Wp), t, gen + q - first)
        if c == -1.0:
            return buf, used, q
        cost[q] = c
        expanded[q] = e
        if c < INF:
            buf, n = traced(parent, t, Wp, W, links, buf, used)
            used += n
        offsets[q + 1] = used
    return buf, used, starts.shape[0]


@njit(cache=True, nogil=True, inline="always")
def move_cost(free, pcost, pu, k, Wp, diag, connectivity, corner_cut):
    """Cost of the move from padded cell ``pu`` in direction ``k`` (inf if
    the move is not allowed). Shared by the CSR view and its refresh."""
    kdx = (1, -1, 0, 0, 1, -1, 1, -1)
    kdy = (0, 0, 1, -1, 1, 1, -1, -1)
    pv = pu + kdx[k] + kdy[k] * Wp
    if not (free[pu] and free[pv]):
        return INF
    if k < 4:
        return 0.5 * (pcost[pu] + pcost[pv])
    if connectivity == 4:
        return INF
    if not corner_cut and not (free[pu + kdx[k]] and free[pu + kdy[k] * Wp]):
        return INF
    return diag * 0.5 * (pcost[pu] + pcost[pv])


@njit(cache=True, nogil=True)
def path_costs(free, pcost, W, diag, connectivity, corner_cut, nodes, starts, out):
    """``out[i]``: cost of walking path ``i`` (cell ids
    ``nodes[starts[i]:starts[i+1]]``) under the grid's move rule now; inf
    when a cell is blocked or two consecutive cells are no longer one
    allowed move apart. One division per cell: the move's direction
    comes from the difference of padded indices (no wrap-around is
    possible across the blocked border columns)."""
    Wp = W + 2
    for i in range(starts.shape[0] - 1):
        total = 0.0
        prev = -1
        for j in range(starts[i], starts[i + 1]):
            u = nodes[j]
            y = u // W
            pu = (y + 1) * Wp + (u - y * W) + 1
            if not free[pu]:
                total = INF
                break
            if prev >= 0:
                d = pu - prev
                if d == 1:
                    k = 0
                elif d == -1:
                    k = 1
                elif d == Wp:
                    k = 2
                elif d == -Wp:
                    k = 3
                elif d == Wp + 1:
                    k = 4
                elif d == Wp - 1:
                    k = 5
                elif d == 1 - Wp:
                    k = 6
                elif d == -1 - Wp:
                    k = 7
                else:
                    total = INF
                    break
                total += move_cost(free, pcost, prev, k, Wp, diag, connectivity,
                                    corner_cut)
                if not total < INF:
                    break
            prev = pu
        out[i] = total


@njit(cache=True, nogil=True)
def grid_csr(free, pcost, W, H, diag, connectivity, corner_cut):
    """CSR arrays of the grid: every in-bounds neighbour pair is an edge
    (sorted by target id), its cost inf when the move is not allowed, so
    updates only rewrite costs and never the topology."""
    Wp = W + 2
    # neighbour order by target id: NW, N, NE, W, E, SW, S, SE
    order = (7, 3, 6, 1, 0, 5, 2, 4)
    kdx = (1, -1, 0, 0, 1, -1, 1, -1)
    kdy = (0, 0, 1, -1, 1, 1, -1, -1)
    n = W * H
    offsets = np.empty(n + 1, dtype=np.int64)
    targets = np.empty(0, dtype=np.int32)
    cost = np.empty(0, dtype=np.float64)
    for fill in range(2):              # count the edges, then write them
        e = 0
        for y in range(H):
            for x in range(W):
                offsets[y * W + x] = e
                for j in range(8):
                    k = order[j]
                    nx = x + kdx[k]
                    ny = y + kdy[k]
                    if (k < 4 or connectivity == 8) and 0 <= nx < W and 0 <= ny < H:
                        if fill:
                            targets[e] = ny * W + nx
                            cost[e] = move_cost(free, pcost, (y + 1) * Wp + x + 1, k, Wp,
                                                diag, connectivity, corner_cut)
                        e += 1
        offsets[n] = e
        if not fill:
            targets = np.empty(e, dtype=np.int32)
            cost = np.empty(e, dtype=np.float64)
    return offsets, targets, cost


@njit(cache=True, nogil=True)
def refresh_csr_costs(offsets, targets, cost, free, pcost, W, diag, connectivity,
                       corner_cut, nodes):
    """Recompute the out-edge costs of ``nodes`` after an update."""
    Wp = W + 2
    for i in range(nodes.shape[0]):
        u = nodes[i]
        ux = u % W
        uy = u // W
        pu = (uy + 1) * Wp + ux + 1
        for e in range(offsets[u], offsets[u + 1]):
            v = targets[e]
            dx = v % W - ux
            dy = v // W - uy
            if dy == 0:
                k = 0 if dx > 0 else 1
            elif dx == 0:
                k = 2 if dy > 0 else 3
            elif dy > 0:
                k = 4 if dx > 0 else 5
            else:
                k = 6 if dx > 0 else 7
            cost[e] = move_cost(free, pcost, pu, k, Wp, diag, connectivity, corner_cut)


@njit(cache=True, nogil=True)
def set_walkable(idx, val, walkable, free, W, flipped):
    """Write ``val`` into the walkable mask (flat and padded) of cells
    ``idx``; the cells that changed go to ``flipped`` (a cell listed twice
    changes once). Returns their count. One pass, no temporaries: a 16x16
    toggle costs microseconds, not the ~50 us of the numpy fancy-indexing
    version."""
    n = 0
    for i in range(idx.shape[0]):
        c = idx[i]
        if walkable[c] != val:
            walkable[c] = val
            free[padded(c, W, W + 2)] = val
            flipped[n] = c
            n += 1
    return n


@njit(cache=True, nogil=True)
def astar_batch(grid, state, pool, starts, goals, gen, cost, expanded, offsets, buf, first,
                used):
    """``search_batch`` with A*."""
    return search_batch(astar_search, grid, (state, pool), ASTAR_LINKS, starts, goals, gen,
                        cost, expanded, offsets, buf, first, used)


@njit(cache=True, nogil=True)
def neighbourhood(cells, W, H, mark, out):
    """``cells`` and their eight neighbours, each once, into ``out`` (in
    no order); returns the count. ``mark`` is all zero on entry and on
    return (a scratch the size of the grid, so no unique/sort of 9x the
    cells is needed)."""
    n = 0
    for i in range(cells.shape[0]):
        c = cells[i]
        y = c // W
        x = c % W
        for ny in range(max(0, y - 1), min(H, y + 2)):
            for nx in range(max(0, x - 1), min(W, x + 2)):
                v = ny * W + nx
                if mark[v] == 0:
                    mark[v] = 1
                    out[n] = v
                    n += 1
    for i in range(n):
        mark[out[i]] = 0
    return n
