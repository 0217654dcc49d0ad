"""The binary min-heap of the contraction hierarchy kernels (private): keys ``hk`` and
nodes ``hn`` in two arrays, written inline into each search (numba's
``inline='always'``; a call per push costs the searches 4-25%, see
measured). The caller keeps the size and checks the room."""
from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True, inline="always")
def push(hk, hn, size, key, node):
    """Add ``(key, node)`` to a heap of ``size`` entries (it has ``size + 1`` after)."""
    i = size
    while i > 0:
        p = (i - 1) >> 1
        if hk[p] <= key:
            break
        hk[i] = hk[p]
        hn[i] = hn[p]
        i = p
    hk[i] = key
    hn[i] = node


@njit(cache=True, nogil=True, inline="always")
def pop(hk, hn, size):
    """Drop the root of a heap of ``size >= 1`` entries (the caller read
    it first; the heap has ``size - 1`` after)."""
    size -= 1
    key = hk[size]
    node = hn[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and hk[c + 1] < hk[c]:
            c += 1
        if hk[c] >= key:
            break
        hk[i] = hk[c]
        hn[i] = hn[c]
        i = c
    if size > 0:
        hk[i] = key
        hn[i] = node
