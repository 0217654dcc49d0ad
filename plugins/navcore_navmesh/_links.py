"""numba kernel of the off-mesh links' search: the lower bounds that make
its Dijkstra over the link graph goal-directed.

Private: ``links.py`` gathers the arrays and calls it."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._locate import corner_at


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


@njit(cache=True, nogil=True)
def arrivals(wsd, wll, depart, cost, ga):
    """For each source ``i``: ``ga[i, a]``, the cheapest cost of arriving
    at link point ``a`` (``0 .. k-1``: link ``a // 2``'s start when even,
    its end when odd) by walks and links, ``inf`` if never: a Dijkstra
    over the link graph from the walks ``wsd[i, d]`` (source to link point
    ``d``, ``inf``: none) and ``wll[a, d]`` (between link points). Its sums
    run in a path's order (``(walk + link) + walk ...``), as ``find_path``
    adds its route's cost."""
    m, k = wsd.shape
    inf = np.inf
    gd = np.empty(k)                # at point d, about to take its link
    done_d = np.empty(k, dtype=np.bool_)
    done_a = np.empty(k, dtype=np.bool_)
    for i in range(m):
        for d in range(k):
            gd[d] = wsd[i, d] if depart[d] else inf
            ga[i, d] = inf
            done_d[d] = False
            done_a[d] = False
        while True:
            r = -1
            least = inf
            arrive = False
            for d in range(k):
                if not done_d[d] and gd[d] < least:
                    least, r, arrive = gd[d], d, False
                if not done_a[d] and ga[i, d] < least:
                    least, r, arrive = ga[i, d], d, True
            if r < 0:
                break
            if not arrive:          # take the link at r to its other end
                done_d[r] = True
                a = r ^ 1
                g = least + cost[r >> 1]
                if not done_a[a] and g < ga[i, a]:
                    ga[i, a] = g
            else:                   # walk from r to every point one may leave by
                done_a[r] = True
                for d in range(k):
                    if d != r and depart[d] and not done_d[d]:
                        g = least + wll[r, d]
                        if g < gd[d]:
                            gd[d] = g


@njit(cache=True, nogil=True)
def combine(rows, cols, direct, ga, wat, out):
    """``out[p]``: the cheapest of the direct walk ``direct[p]`` and, for
    every link point ``a``, arriving there (``ga[rows[p], a]``) and walking
    on to the target (``wat[a, cols[p]]``)."""
    k = ga.shape[1]
    for p in range(len(rows)):
        i, j = rows[p], cols[p]
        best = direct[p]
        for a in range(k):
            g = ga[i, a] + wat[a, j]
            if g < best:
                best = g
        out[p] = best


@njit(cache=True, nogil=True)
def on_corner(xy, poly, vertices, poly_start, poly_verts, out):
    """``out[i]``: whether point ``xy[i]`` lies exactly on a corner of its
    polygon ``poly[i]`` (``-1``: none), where a search may start in
    several connected parts (across a pinch). Returns whether any does."""
    any_ = False
    for i in range(poly.shape[0]):
        out[i] = poly[i] >= 0 and corner_at(xy[i, 0], xy[i, 1], poly[i], vertices,
                                            poly_start, poly_verts) >= 0
        any_ = any_ or out[i]
    return any_
