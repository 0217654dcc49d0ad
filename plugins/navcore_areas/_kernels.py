"""numba kernels of the hierarchy's queries (private; see ``hierarchy.py``).

Queries read two arrays: ``hnode_of[node]``, the hierarchical node holding
a real node (-1 for blocked nodes), and ``harea[h]``, its area id. How the
hierarchical graph is kept is in ``_base.py`` (storage), ``_generic.py``
and ``_lattice.py`` (grouping) and ``_settle.py`` (area ids).
"""
from __future__ import annotations

import numpy as np
from numba import njit

# the layout constants, for the wrapper and tests
from ._base import (C_AHWM, C_EFREE, C_ELIVE, C_HWM, C_NBUILT, C_NCLAIM,  # noqa: F401
                    C_NFREE, C_NLIVE, C_SEARCHED, MAX_CHILDREN, MIN_CHILDREN,
                    N_COUNTERS, TILE)


@njit(cache=True, nogil=True)
def node_areas(nodes, hnode_of, harea, out):
    for i in range(nodes.shape[0]):
        h = hnode_of[nodes[i]]
        out[i] = harea[h] if h >= 0 else -1


@njit(cache=True, nogil=True)
def all_areas(hnode_of, harea, out):
    for i in range(hnode_of.shape[0]):
        h = hnode_of[i]
        out[i] = harea[h] if h >= 0 else -1


@njit(cache=True, nogil=True)
def same_area(a, b, hnode_of, harea, out):
    for i in range(a.shape[0]):
        ha = hnode_of[a[i]]
        hb = hnode_of[b[i]]
        out[i] = ha >= 0 and hb >= 0 and harea[ha] == harea[hb]


@njit(cache=True, nogil=True)
def nearest_in_area(pos, hnode_of, harea, area, point):
    """The node of ``area`` closest to ``point`` (ties: lowest id), -1."""
    best = -1
    bd = np.inf
    dim = pos.shape[1]
    for i in range(hnode_of.shape[0]):
        h = hnode_of[i]
        if h < 0 or harea[h] != area:
            continue
        d = 0.0
        for k in range(dim):
            t = pos[i, k] - point[k]
            d += t * t
        if d < bd:
            bd = d
            best = i
    return best


@njit(cache=True, nogil=True)
def forward_reach(start, walkable, offsets, targets, cost, queue, out):
    """Mark (``out = 1``) every node reachable from ``start`` along usable
    out-edges; for directed graphs, where areas only bound reachability."""
    # kept: navcore_csr.dijkstra_all (public) took 93 ms to its 22 (300 k nodes, 1.2 M edges)
    out[:] = 0
    out[start] = 1
    queue[0] = start
    head = 0
    tail = 1
    while head < tail:
        u = queue[head]
        head += 1
        for e in range(offsets[u], offsets[u + 1]):
            v = targets[e]
            if out[v] == 0 and walkable[v] and cost[e] < np.inf:
                out[v] = 1
                queue[tail] = v
                tail += 1
    return tail
