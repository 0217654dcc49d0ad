"""numba primitives the plugins' search kernels share (private to navcore
and its plugins; not public API).

**The binary heap.** One indexed min-heap on three preallocated arrays:
``hnode[i]``/``hkey[i]`` the node and key in slot ``i``, ``hpos[v]`` the
slot of node ``v`` while it is in the heap (decrease-key). The caller keeps
the size and knows (from its ``stamp``, below) whether a node is in the
heap. Every function is ``inline="always"``: numba copies it into each
kernel at its IR level, so the kernels read as calls and run as if the
heap were written out: ``bench/heap.py`` measured them at 1.00x (csr
Dijkstra) and 1.03x (grid A*, brc202d) the time of the heap written out by
hand, and a lazy heap (an improved node pushed again instead of
decrease-key) at 1.05x and 1.28x (BENCHMARKS.md, "Binary heap").
With ``ties`` True, equal keys pop in order of their node ids
(lower first): a search whose node ids are created in order then expands
ties first come, first served.

**Generation-stamped scratch.** Per-node search state lives in one int32
``stamp`` array that a query never clears: with generation ``gen``,
``stamp[v] == 2 * gen`` means in the heap, ``2 * gen + 1`` expanded,
anything lower not seen by this query. The next query uses ``gen + 1``;
when ``wraps`` says the int32 range is used up, the owner resets the
stamps once. A permanent sentinel above every mark (``BLOCKED``) marks
nodes no search enters, so one load and one comparison reject closed and
blocked nodes alike.

numba's on-disk cache checks a kernel against its own module's file only:
in a working copy, after editing this module delete the plugins' cached
kernels (``__pycache__/*.nbi``, ``*.nbc``), or they keep the old inlined
code. An installed release replaces every file, so its caches follow.
"""
from __future__ import annotations

import numpy as np
from numba import njit

#: a stamp above every ``closed_mark``: a node no search enters
BLOCKED = np.iinfo(np.int32).max


# -- the binary heap ----------------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def _before(ka, na, kb, nb, ties):
    """Whether entry ``(ka, na)`` pops before ``(kb, nb)``."""
    if ties:
        return ka < kb or (ka == kb and na < nb)
    return ka < kb


@njit(cache=True, nogil=True, inline="always")
def heap_place(hnode, hkey, hpos, i, node, key, ties=False):
    """Put ``node`` with ``key`` at slot ``i`` and sift it up: slot
    ``size`` for a new node (the caller then adds one to its size), or
    ``hpos[node]`` when its key decreased."""
    while i > 0:
        p = (i - 1) >> 1
        if not _before(key, node, hkey[p], hnode[p], ties):
            break
        hnode[i] = hnode[p]
        hkey[i] = hkey[p]
        hpos[hnode[i]] = i
        i = p
    hnode[i] = node
    hkey[i] = key
    hpos[node] = i


@njit(cache=True, nogil=True, inline="always")
def heap_push(hnode, hkey, hpos, size, node, key, ties=False):
    """Add ``node`` (not in the heap) with ``key``; returns the new size."""
    heap_place(hnode, hkey, hpos, size, node, key, ties)
    return size + 1


@njit(cache=True, nogil=True, inline="always")
def heap_decrease(hnode, hkey, hpos, node, key, ties=False):
    """Lower the key of ``node`` (in the heap) to ``key``."""
    heap_place(hnode, hkey, hpos, hpos[node], node, key, ties)


@njit(cache=True, nogil=True, inline="always")
def heap_pop(hnode, hkey, hpos, size, ties=False):
    """Remove the least entry of a heap of ``size >= 1``; returns ``(node,
    new size)``. Its key was ``hkey[0]`` (read it before)."""
    # the last leaf moves to the root and sifts down. No branch around this
    # for the heap that becomes empty (the leaf is then the root and stays):
    # with one, numba kept three reference counts per call in the kernels
    # (1.1-1.2x slower pops, bench/heap.py)
    u = hnode[0]
    size -= 1
    last = hnode[size]
    lk = hkey[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and _before(hkey[c + 1], hnode[c + 1], hkey[c], hnode[c], ties):
            c += 1
        if not _before(hkey[c], hnode[c], lk, last, ties):
            break
        hnode[i] = hnode[c]
        hkey[i] = hkey[c]
        hpos[hnode[i]] = i
        i = c
    hnode[i] = last
    hkey[i] = lk
    hpos[last] = i
    return u, size


# -- the 4-ary heap --------------------------------------------------------------
# The same indexed heap (hnode, hkey, hpos) with four children a slot: half
# the levels, so half the hpos writes (random ones, into an array of the
# graph's size) per sift, and the four keys a pop compares share a cache
# line. The isochrones' bounded Dijkstra on 250k-node graphs (55k-106k
# nodes settled) ran in 0.57x the binary heap's time with it.
@njit(cache=True, nogil=True, inline="always")
def heap4_place(hnode, hkey, hpos, i, node, key):
    """:func:`heap_place` on a 4-ary heap (slot ``size`` for a new node,
    ``hpos[node]`` for a lowered key); ties by insertion, not by node."""
    while i > 0:
        p = (i - 1) >> 2
        if not key < hkey[p]:
            break
        hnode[i] = hnode[p]
        hkey[i] = hkey[p]
        hpos[hnode[i]] = i
        i = p
    hnode[i] = node
    hkey[i] = key
    hpos[node] = i


@njit(cache=True, nogil=True, inline="always")
def heap4_pop(hnode, hkey, hpos, size):
    """:func:`heap_pop` on a 4-ary heap: ``(node, new size)``."""
    u = hnode[0]
    size -= 1
    last = hnode[size]
    lk = hkey[size]
    i = 0
    while True:
        c = 4 * i + 1
        if c >= size:
            break
        m = c
        mk = hkey[c]
        end = c + 4 if c + 4 <= size else size
        for j in range(c + 1, end):
            if hkey[j] < mk:
                m = j
                mk = hkey[j]
        if not mk < lk:
            break
        hnode[i] = hnode[m]
        hkey[i] = mk
        hpos[hnode[i]] = i
        i = m
    hnode[i] = last
    hkey[i] = lk
    hpos[last] = i
    return u, size


@njit(cache=True, nogil=True, inline="always")
def open_source(stamp, g, parent, hnode, hkey, hpos, source, open_mark):
    """Begin a label-setting search at ``source``: distance 0, no parent,
    open (``stamp``), alone in the indexed heap; returns the heap size."""
    g[source] = 0.0
    parent[source] = -1
    stamp[source] = open_mark
    return heap_push(hnode, hkey, hpos, 0, source, 0.0)


@njit(cache=True, nogil=True, inline="always")
def close_next(stamp, hnode, hkey, hpos, size, closed_mark):
    """Pop the open node of least key and mark it closed: ``(node, new
    size)``."""
    u, size = heap_pop(hnode, hkey, hpos, size)
    stamp[u] = closed_mark
    return u, size


# -- the lazy heap -------------------------------------------------------------
# The contraction hierarchy's searches (build, queries, road A*) push a node
# again when its distance improves and skip stale entries when popped: two
# arrays ``hk`` (keys) and ``hn`` (nodes), no position array to keep.
@njit(cache=True, nogil=True, inline="always")
def lazy_push(hk, hn, size, key, node):
    """Add ``(key, node)`` to a lazy heap of ``size`` entries (``size + 1``
    after; the caller checks the room)."""
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
def lazy_pop(hk, hn, size):
    """Drop the root of a lazy heap of ``size >= 1`` entries (the caller
    read it first; ``size - 1`` after). Branch-free at the end, as
    ``heap_pop``: the heap that becomes empty rewrites its root in place."""
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
    hk[i] = key
    hn[i] = node


@njit(cache=True, nogil=True, inline="always")
def lazy_take(hk, hn, size):
    """Remove the least entry of a lazy heap of ``size >= 1`` entries:
    ``(key, node, size - 1)``."""
    key = hk[0]
    node = hn[0]
    lazy_pop(hk, hn, size)
    return key, node, size - 1


# -- union-find ----------------------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def find(uf, x):
    """The root of ``x``'s set in the forest ``uf`` (``uf[r] == r`` at a
    root), halving the path on the way."""
    while uf[x] != x:
        uf[x] = uf[uf[x]]            # path halving
        x = uf[x]
    return x


@njit(cache=True, nogil=True, inline="always")
def union_min(uf, a, b):
    """Join the sets of ``a`` and ``b``; the smaller root stays root (so
    a root is the lowest id of its set)."""
    a = find(uf, a)
    b = find(uf, b)
    if a < b:
        uf[b] = a
    elif b < a:
        uf[a] = b


# -- the registers of a resumable search ----------------------------------------
# A search that closes at most a budget of nodes a call keeps what it needs
# to carry on in a few int64 registers: its heap size, the nodes it closed
# (-1: the next call begins a search; a finished search sets it back, so
# the registers are ready for the next without a write from Python), and
# with ``R_TRACK`` nonzero the closed node of least heuristic so far
# (``R_BEST``, -1 for none) for a partial path. A kernel with more state
# keeps its registers after these (``REGISTERS`` on).
R_SIZE, R_EXPANDED, R_BEST, R_TRACK = 0, 1, 2, 3
REGISTERS = 4


@njit(cache=True, nogil=True, inline="always")
def resume(regs):
    """``(expanded, size, best, track)`` from a search's registers;
    ``expanded < 0`` when this call begins the search: ``size`` is then 0,
    ``best`` -1, and the caller opens its source and counts from 0."""
    expanded = regs[R_EXPANDED]
    if expanded < 0:
        regs[R_BEST] = -1
        return expanded, np.int64(0), np.int64(-1), regs[R_TRACK] != 0
    return expanded, regs[R_SIZE], regs[R_BEST], regs[R_TRACK] != 0


@njit(cache=True, nogil=True, inline="always")
def pause(regs, size, expanded, best):
    """Keep a search's state in its registers for the next call."""
    regs[R_SIZE] = size
    regs[R_EXPANDED] = expanded
    regs[R_BEST] = best


@njit(cache=True, nogil=True, inline="always")
def finish(regs, best):
    """Close a search's registers: the next call begins a new search;
    ``best`` stays readable for a partial path."""
    regs[R_EXPANDED] = -1
    regs[R_BEST] = best


# -- generation-stamped scratch ----------------------------------------------
def wraps(gen, k=1) -> bool:
    """Whether ``k`` more generations after ``gen`` would bring a
    ``closed_mark`` (``2 * gen + 1``) to ``BLOCKED``: the owner then resets
    its stamps (to 0, ``BLOCKED`` where nodes are blocked for good) and
    counts again from 1."""
    return 2 * (gen + k) + 1 >= BLOCKED
