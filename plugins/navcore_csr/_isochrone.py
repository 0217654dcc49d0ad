"""numba kernel of the isochrones (private; see ``isochrone.py``)."""
from __future__ import annotations

from numba import njit

from navcore._kernels import close_next, heap_decrease, heap_push


@njit(cache=True, nogil=True)
def bounded_dijkstra(offsets, targets, cost, walkable, seeds, seed_cost, limit, stamp, g,
                     hnode, hkey, hpos, open_mark, order):
    """Dijkstra from every seed at once (``seed_cost[i]`` spent at
    ``seeds[i]``) that never settles a node above ``limit``: writes the
    settled nodes in ``order`` (least cost first) and returns how many;
    their costs are in ``g``. A blocked node (``walkable`` False) is
    never entered, a seed on one neither; a NaN or inf cost never fits."""
    closed_mark = open_mark + 1
    size = 0
    for i in range(seeds.size):
        s = seeds[i]
        c = seed_cost[i]
        if not walkable[s] or not c <= limit:
            continue
        if stamp[s] == open_mark:
            if c < g[s]:
                g[s] = c
                heap_decrease(hnode, hkey, hpos, s, c)
        else:
            g[s] = c
            stamp[s] = open_mark
            size = heap_push(hnode, hkey, hpos, size, s, c)
    count = 0
    while size > 0:
        u, size = close_next(stamp, hnode, hkey, hpos, size, closed_mark)
        order[count] = u
        count += 1
        du = g[u]
        for e in range(offsets[u], offsets[u + 1]):
            v = targets[e]
            st = stamp[v]
            if st == closed_mark or not walkable[v]:
                continue
            d = du + cost[e]
            if not d <= limit:
                continue
            if st == open_mark:
                if d < g[v]:
                    g[v] = d
                    heap_decrease(hnode, hkey, hpos, v, d)
            else:
                g[v] = d
                stamp[v] = open_mark
                size = heap_push(hnode, hkey, hpos, size, v, d)
    return count
