"""numba kernels that build CSR arrays from edge lists (private)."""
from __future__ import annotations

import numpy as np
from numba import njit

# Rows longer than this are sorted with a merge sort instead of insertion.
_INSERTION_MAX = 24


@njit(cache=True, nogil=True)
def _csr_order(src, dst, n, sort, dedup):
    """Return ``(offsets, perm)``: ``perm[k]`` is the input index of the
    edge stored at position ``k``.

    A stable counting sort by source (O(E + V)) keeps each row in input
    order; rows are then optionally sorted by target with a stable sort and
    de-duplicated so the first input edge of a ``(src, dst)`` pair wins.
    """
    m = src.shape[0]
    offsets = np.zeros(n + 1, dtype=np.int64)
    for i in range(m):
        offsets[src[i] + 1] += 1
    for u in range(n):
        offsets[u + 1] += offsets[u]
    fill = offsets[:-1].copy()
    perm = np.empty(m, dtype=np.int64)
    for i in range(m):
        s = src[i]
        perm[fill[s]] = i
        fill[s] += 1
    if sort:
        for u in range(n):
            lo = offsets[u]
            hi = offsets[u + 1]
            if hi - lo <= _INSERTION_MAX:
                for k in range(lo + 1, hi):  # stable insertion sort by target
                    e = perm[k]
                    key = dst[e]
                    j = k - 1
                    while j >= lo and dst[perm[j]] > key:
                        perm[j + 1] = perm[j]
                        j -= 1
                    perm[j + 1] = e
            else:
                row = perm[lo:hi].copy()
                order = np.argsort(dst[row], kind="mergesort")
                for k in range(hi - lo):
                    perm[lo + k] = row[order[k]]
    if not dedup:
        return offsets, perm
    new_offsets = np.empty(n + 1, dtype=np.int64)
    w = 0
    if sort:  # duplicates are adjacent and in input order
        for u in range(n):
            new_offsets[u] = w
            prev = -1
            for k in range(offsets[u], offsets[u + 1]):
                e = perm[k]
                if dst[e] != prev:
                    prev = dst[e]
                    perm[w] = e
                    w += 1
    else:  # a row stamp per target node: no clearing between rows
        last_row = np.full(n, -1, dtype=np.int64)
        for u in range(n):
            new_offsets[u] = w
            for k in range(offsets[u], offsets[u + 1]):
                e = perm[k]
                v = dst[e]
                if last_row[v] != u:
                    last_row[v] = u
                    perm[w] = e
                    w += 1
    new_offsets[n] = w
    return new_offsets, perm[:w]


@njit(cache=True, nogil=True)
def _gather_targets(dst, perm):
    out = np.empty(perm.shape[0], dtype=np.int32)
    for k in range(perm.shape[0]):
        out[k] = dst[perm[k]]
    return out


@njit(cache=True, nogil=True)
def _row_ids(offsets):
    """Source node of every stored edge (the inverse of ``offsets``)."""
    n = offsets.shape[0] - 1
    out = np.empty(offsets[n], dtype=np.int64)
    for u in range(n):
        for k in range(offsets[u], offsets[u + 1]):
            out[k] = u
    return out


@njit(cache=True, nogil=True)
def _find_edges(offsets, targets, us, vs):
    """Position of edge ``us[i] -> vs[i]`` in the CSR arrays, or -1."""
    out = np.full(us.shape[0], -1, dtype=np.int64)
    for i in range(us.shape[0]):
        u = us[i]
        v = vs[i]
        for k in range(offsets[u], offsets[u + 1]):
            if targets[k] == v:
                out[i] = k
                break
    return out
