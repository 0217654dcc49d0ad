"""numba kernel of the off-mesh links' search: the lower bounds that make
its Dijkstra over the link graph goal-directed.

Private: ``links.py`` gathers the arrays and calls it."""
from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def link_bounds(xy, part, depart, cost, h, hd):
    """Lower bounds of the cost to the goal (point 1) over the link graph
    whose points are ``xy`` (``(n, 2)``; point 0 the start, points
    ``2 + 2i`` and ``3 + 2i`` link ``i``'s start and end): a Dijkstra
    backwards from the goal over the graph whose walks cost their straight
    ground length (a walk joins two points of one connected part,
    ``part``, ``-1``: none) and whose links cost ``cost`` (leaving at
    point ``q`` where ``depart[q]``). A walk is never shorter than the
    straight line, so ``h[p]`` (from point ``p``, free to walk) and
    ``hd[q]`` (from point ``q``, about to take its link; ``hd[1] = 0``)
    never exceed the true costs: admissible, and consistent along every
    walk and link. ``inf``: the goal cannot be reached from there."""
    n = len(xy)
    inf = np.inf
    done = np.zeros(n, dtype=np.bool_)
    tx, ty, tp = xy[1, 0], xy[1, 1], part[1]
    for p in range(n):
        hd[p] = inf
        h[p] = inf
        if tp >= 0 and part[p] == tp:
            h[p] = math.hypot(xy[p, 0] - tx, xy[p, 1] - ty)
    hd[1] = 0.0
    while True:
        r = -1
        least = inf
        for p in range(n):
            if not done[p] and h[p] < least:
                least = h[p]
                r = p
        if r < 0:
            break
        done[r] = True
        if r < 2:
            continue
        q = r ^ 1                    # leaving by the link at q arrives at r
        if not depart[q]:
            continue
        v = cost[(q - 2) >> 1] + least
        hd[q] = v
        pq = part[q]
        qx, qy = xy[q, 0], xy[q, 1]
        for p in range(n):
            if not done[p] and part[p] == pq:
                d = math.hypot(xy[p, 0] - qx, xy[p, 1] - qy) + v
                if d < h[p]:
                    h[p] = d
