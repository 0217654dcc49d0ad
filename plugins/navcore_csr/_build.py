"""numba kernels that build CSR arrays from edge lists (private)."""
from __future__ import annotations

import numpy as np
from numba import njit

from .buckets import _key_offsets

# Rows longer than this are sorted with a merge sort instead of insertion.
_INSERTION_MAX = 24


@njit(cache=True, nogil=True)
def csr_order(src, dst, cost, n, sort, dedup, want_perm):
    """Return ``(offsets, perm, targets, costs)``: the edge stored at
    position ``k`` has target ``targets[k]``, cost ``costs[k]`` and input
    index ``perm[k]`` (``perm`` is empty unless ``want_perm``).

    A stable counting sort by source (O(E + V)) keeps each row in input
    order; rows are then optionally sorted by target with a stable sort and
    de-duplicated so the first input edge of a ``(src, dst)`` pair wins.
    Targets and costs are scattered in the same pass, so the row sorts and
    the de-duplication touch contiguous memory only.
    """
    m = src.shape[0]
    # its offsets as group_by's, not group_by itself: its item array would
    # be 8 bytes an edge of peak memory more when no perm is wanted
    # (bench/csr.py build)
    offsets = _key_offsets(src, n)
    fill = offsets[:-1].copy()
    perm = np.empty(m if want_perm else 0, dtype=np.int64)
    tgt = np.empty(m, dtype=np.int32)
    cst = np.empty(m, dtype=np.float64)
    for i in range(m):
        s = src[i]
        k = fill[s]
        if want_perm:
            perm[k] = i
        tgt[k] = dst[i]
        cst[k] = cost[i]
        fill[s] = k + 1
    if not (sort or dedup):
        return offsets, perm, tgt, cst
    lengths = sort_dedup_rows(offsets, perm, tgt, cst, n, sort, dedup, want_perm)
    if not dedup:
        return offsets, perm, tgt, cst
    # close the gaps the in-row de-duplication left (sequential, in place)
    new_offsets = np.empty(n + 1, dtype=np.int64)
    w = 0
    for u in range(n):
        new_offsets[u] = w
        lo = offsets[u]
        for j in range(lengths[u]):
            tgt[w] = tgt[lo + j]
            cst[w] = cst[lo + j]
            if want_perm:
                perm[w] = perm[lo + j]
            w += 1
    new_offsets[n] = w
    return new_offsets, perm[:w], tgt[:w], cst[:w]


# One thread: a row is a few edges, so the work is memory-bound and two
# threads never paid (2 cores: 1.4x faster at 100k edges, 1.2x slower at
# 1M, 100-800x slower below 10k edges when another process held a core)
@njit(cache=True, nogil=True)
def sort_dedup_rows(offsets, perm, tgt, cst, n, sort, dedup, want_perm):
    """Sort each row by target (stable) and/or drop repeated targets keeping
    the first. Returns the kept length of every row (kept edges are moved
    to the row's front)."""
    lengths = np.empty(n, dtype=np.int64)
    for u in range(n):
        lo = offsets[u]
        hi = offsets[u + 1]
        if sort:
            if hi - lo <= _INSERTION_MAX:
                for k in range(lo + 1, hi):  # stable insertion sort by target
                    key = tgt[k]
                    ck = cst[k]
                    e = perm[k] if want_perm else 0
                    j = k - 1
                    while j >= lo and tgt[j] > key:
                        tgt[j + 1] = tgt[j]
                        cst[j + 1] = cst[j]
                        if want_perm:
                            perm[j + 1] = perm[j]
                        j -= 1
                    tgt[j + 1] = key
                    cst[j + 1] = ck
                    if want_perm:
                        perm[j + 1] = e
            else:
                order = np.argsort(tgt[lo:hi], kind="mergesort")
                row_t = tgt[lo:hi][order]
                row_c = cst[lo:hi][order]
                tgt[lo:hi] = row_t
                cst[lo:hi] = row_c
                if want_perm:
                    row_p = perm[lo:hi][order]
                    perm[lo:hi] = row_p
        w = lo
        if not dedup:
            w = hi
        elif sort:  # duplicates are adjacent and in input order
            prev = -1
            for k in range(lo, hi):
                if tgt[k] != prev:
                    prev = tgt[k]
                    tgt[w] = prev
                    cst[w] = cst[k]
                    if want_perm:
                        perm[w] = perm[k]
                    w += 1
        elif hi - lo <= _INSERTION_MAX:  # unsorted, short row: linear scan
            for k in range(lo, hi):
                v = tgt[k]
                seen = False
                for j in range(lo, w):
                    if tgt[j] == v:
                        seen = True
                        break
                if not seen:
                    tgt[w] = v
                    cst[w] = cst[k]
                    if want_perm:
                        perm[w] = perm[k]
                    w += 1
        else:  # unsorted, long row: a stable sort finds the first occurrences
            order = np.argsort(tgt[lo:hi], kind="mergesort")
            keep = np.ones(hi - lo, dtype=np.bool_)
            for i in range(1, hi - lo):
                if tgt[lo + order[i]] == tgt[lo + order[i - 1]]:
                    keep[order[i]] = False
            for k in range(lo, hi):
                if keep[k - lo]:
                    tgt[w] = tgt[k]
                    cst[w] = cst[k]
                    if want_perm:
                        perm[w] = perm[k]
                    w += 1
        lengths[u] = w - lo
    return lengths


@njit(cache=True, nogil=True)
def row_ids(offsets):
    """Source node of every stored edge (the inverse of ``offsets``)."""
    n = offsets.shape[0] - 1
    out = np.empty(offsets[n], dtype=np.int64)
    for u in range(n):
        for k in range(offsets[u], offsets[u + 1]):
            out[k] = u
    return out


@njit(cache=True, nogil=True)
def find_edges(offsets, targets, us, vs):
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
