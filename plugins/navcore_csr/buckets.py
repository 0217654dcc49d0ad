"""The bucket many-to-many of hierarchies, for numba kernels: the one
piece every contracted graph's ``distance_matrix`` shares (the csr
plugin's :class:`~navcore_csr.hierarchy.HierarchyQuery` for csr, grid,
navmesh polygon and road graphs, and the road plugin's customizable
hierarchy), public so that other plugins' kernels call it.

A matrix from ``S`` sources to ``T`` targets is an upward search from
every target (backward) and from every source (forward): the target
searches leave ``(target, distance)`` in a *bucket* at every node they
settle (:func:`fill_buckets`), and each source search scans the buckets of
the nodes it settles (:func:`scan_buckets`): ``d(s, x) + d(x, t)`` over the
nodes ``x`` both reach is the distance, as in a bidirectional query. How
the searches climb (Dijkstra with stall-on-demand, or the elimination
tree's chain) is the caller's; they hand over the nodes they reached and
the distances there.

>>> import numpy as np
>>> nodes = np.array([[2, 0], [1, 2]], dtype=np.int32)  # target 0 reached 2, target 1 1 and 2
>>> dists = np.array([[0.0, 0.0], [0.0, 3.0]])
>>> first, tgt, dist = fill_buckets(nodes, dists, np.array([1, 2]), 3)
>>> first.tolist(), tgt.tolist(), dist.tolist()       # node 1: t1 at 0; node 2: t0 at 0, t1 at 3
([0, 0, 1, 3], [1, 0, 1], [0.0, 0.0, 3.0])
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def _key_offsets(keys, count):
    """Where each key's group begins once items are grouped by key (keys
    in ``0..count-1``): ``first``, ``count + 1`` offsets, the last
    ``len(keys)`` (a counting sort's first pass)."""
    first = np.zeros(count + 1, dtype=np.int64)
    for x in range(keys.shape[0]):
        first[keys[x] + 1] += 1
    for k in range(count):
        first[k + 1] += first[k]
    return first


@njit(cache=True, nogil=True)
def group_by(keys, count):
    """Items ``0..len(keys)-1`` grouped by key (keys in ``0..count-1``), in
    item order within a group: ``(first, items)``, the items of key ``k``
    being ``items[first[k]:first[k + 1]]``. One counting pass, one fill."""
    n = keys.shape[0]
    first = _key_offsets(keys, count)
    fill = first[:count].copy()
    items = np.empty(n, dtype=np.int64)
    for x in range(n):
        items[fill[keys[x]]] = x
        fill[keys[x]] += 1
    return first, items


@njit(cache=True, nogil=True)
def fill_buckets(nodes, dists, counts, n):
    """The buckets of ``n`` nodes from the target searches: search ``j``
    reached ``nodes[j, :counts[j]]`` at ``dists[j, :counts[j]]``.
    ``(first, target, dist)``: the bucket of node ``x`` is
    ``first[x]..first[x + 1]``, each entry a target and its distance from
    ``x``, targets ascending."""
    # counted and filled straight from the rows, not through group_by: its
    # flattened copies made Monaco's 30 x 300 CCH matrix 5-7% slower
    first = np.zeros(n + 1, dtype=np.int64)
    for j in range(counts.shape[0]):
        for k in range(counts[j]):
            first[nodes[j, k] + 1] += 1
    for x in range(n):
        first[x + 1] += first[x]
    fill = first[:n].copy()
    target = np.empty(first[n], dtype=np.int32)
    dist = np.empty(first[n], dtype=np.float64)
    for j in range(counts.shape[0]):
        for k in range(counts[j]):
            x = nodes[j, k]
            p = fill[x]
            target[p] = j
            dist[p] = dists[j, k]
            fill[x] = p + 1
    return first, target, dist


@njit(cache=True, nogil=True, inline="always")
def scan_buckets(out, nodes, dists, count, first, target, dist):
    """One source's row: ``out[t]`` lowered to ``dists[k] + d(x, t)`` for
    every node ``x = nodes[k]`` (``k < count``) its search reached and
    every entry of ``x``'s bucket."""
    for k in range(count):
        x = nodes[k]
        d = dists[k]
        for p in range(first[x], first[x + 1]):
            v = d + dist[p]
            t = target[p]
            if v < out[t]:
                out[t] = v
