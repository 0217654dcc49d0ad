"""Shared state layout and inlined helpers of the hierarchy kernels (private).

The hierarchical graph: ``hsize[h] > 0`` for a live hierarchical node ``h``
(0 marks a free id), ``harea[h]`` its area id. Its neighbours are a doubly
linked list of half-edges in one pool: ``ehead[h]`` is the first, and
``enext``/``eprev``/``eto`` link them. Half-edges come in pairs ``2p`` and
``2p + 1`` (one in each end's list), so a pair's other half is ``e ^ 1``
and removing a node unlinks its pairs from its neighbours in O(degree).
The lists are symmetric because the bounded searches of an update walk
from any node to all its neighbours (the A* Pathfinding Project's
connection lists are one-sided, which only a global flood can use). Free pairs are a list
through ``enext[2p]`` headed by ``counters[C_EFREE]``; the wrapper keeps
enough of them free before each update, so kernels never run out.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

# the union-find the labelling kernels share with other plugins' (re-exported)
from navcore._kernels import find, union_min  # noqa: F401

MAX_CHILDREN = 256          # the A* Pathfinding Project's 16 x 16 tiling
MIN_CHILDREN = MAX_CHILDREN // 2   # smaller neighbours are regrouped too
TILE = 16                   # lattice graphs: a hierarchical node lies in one tile

# counters[...]
C_HWM = 0        # hierarchical ids below this have been used
C_NFREE = 1      # entries on the free-id stack
C_AHWM = 2       # area ids below this have been used
C_ANFREE = 3     # entries on the free-area stack
C_STAMP = 4      # for hmark, aclaim, anote, aseen (only ever grows)
C_NLIVE = 5      # live hierarchical nodes
C_NBUILT = 6     # hierarchical nodes built by the current update
C_EFREE = 7      # first free half-edge pair, -1: none below C_EUSED
C_EUSED = 8      # half-edge pairs below this have been used
C_ELIVE = 9      # live half-edge pairs
C_NCLAIM = 10    # (node, old area) claims written by the current update
C_SEARCHED = 11  # nodes the last update's split search visited
N_COUNTERS = 12

# The update's arrays are rows of a few 2-D blocks (``Hierarchy`` keeps each
# row under its own name too): a kernel call unboxes every array argument
# again, which after a frame's other work evicted the caches costs about a
# microsecond each, so the fused lattice update takes five blocks, not 40
# arrays. Per hierarchical id (int32):
NODE_ROWS = ("hsize", "harea", "ehead", "uf", "fuf", "fcount", "qhead", "qtail", "qnext",
             "gid", "act", "vis", "removed", "rarea", "bnd", "built", "hfree", "gflag")
#: per area id (int32), per area id (int64; ``hmark`` is per hierarchical
#: id, in a row as long as the others), per half-edge, per claim
AREA_ROWS = ("acount", "afree", "changed", "aown", "amap")
AREA64_ROWS = ("aclaim", "anote", "aseen", "hmark")
EDGE_ROWS = ("eto", "enext", "eprev")
CLAIM_ROWS = ("cl_node", "cl_area")


# The arrays of the build and regrouping kernels, in groups that travel
# together (rows of the blocks above, made once per block by ``Hierarchy``)
class Nodes(NamedTuple):
    """The hierarchical node of every node, every hierarchical node's size
    and area, the stack of free ids."""
    hnode_of: np.ndarray
    hsize: np.ndarray
    harea: np.ndarray
    hfree: np.ndarray


class Links(NamedTuple):
    """The hierarchical nodes' neighbour lists: each node's first
    half-edge, the half-edges' next, previous and far end."""
    ehead: np.ndarray
    enext: np.ndarray
    eprev: np.ndarray
    eto: np.ndarray


class Claims(NamedTuple):
    """What a regrouping leaves the settle: every node's old area, the ids
    built, the (node, old area) claims and the stamps of areas claimed."""
    prev_area: np.ndarray
    built: np.ndarray
    cl_node: np.ndarray
    cl_area: np.ndarray
    aseen: np.ndarray


class Removal(NamedTuple):
    """The ids an update removed, their areas, the surviving nodes next to them."""
    removed: np.ndarray
    rarea: np.ndarray
    bnd: np.ndarray


@njit(cache=True, nogil=True, inline="always")
def _take_id(counters, free, c_nfree, c_hwm):
    """An unused id: the top of the stack ``free`` (``counters[c_nfree]``
    entries), else the next never used (``counters[c_hwm]``)."""
    if counters[c_nfree] > 0:
        counters[c_nfree] -= 1
        return free[counters[c_nfree]]
    x = counters[c_hwm]
    counters[c_hwm] += 1
    return x


@njit(cache=True, nogil=True, inline="always")
def new_area(counters, afree, acount):
    """An unused area id: a freed one, else the next never used."""
    x = _take_id(counters, afree, C_ANFREE, C_AHWM)
    acount[x] = 0
    return x


@njit(cache=True, nogil=True, inline="always")
def new_node(counters, hfree):
    """An unused hierarchical id: a freed one, else the next never used
    (the wrapper made sure one exists)."""
    h = _take_id(counters, hfree, C_NFREE, C_HWM)
    counters[C_NLIVE] += 1
    return h


@njit(cache=True, nogil=True, inline="always")
def add_once(x, out, n, mark, st):
    """Append ``x`` to ``out[:n]`` unless ``mark[x]`` is already ``st`` (so
    once per stamp); returns the new count. Not for a loop over cells or
    members: inlined there, numba's reference counts around its branch
    cost a lattice update ~30% (written out instead)."""
    if mark[x] != st:
        mark[x] = st
        out[n] = x
        n += 1
    return n


@njit(cache=True, nogil=True, inline="always")
def boundary(removed, nrem, ehead, enext, eto, hmark, st, sb, bnd):
    """The surviving neighbours of the removed nodes (``hmark == st``)
    into ``bnd``, once each (``hmark`` becomes ``sb``); returns how many."""
    nb = 0
    for i in range(nrem):
        e = ehead[removed[i]]
        while e >= 0:
            o = eto[e]
            if hmark[o] != st and hmark[o] != sb:    # written out, as in remove_tiles
                hmark[o] = sb
                bnd[nb] = o
                nb += 1
            e = enext[e]
    return nb


@njit(cache=True, nogil=True, inline="always")
def drop_removed(removed, nrem, hsize, harea, ehead, enext, eprev, eto, acount, rarea,
                 counters):
    """Unlink the removed nodes, free their slots and uncount them from
    their areas (``rarea[i]``: the area of ``removed[i]``)."""
    for i in range(nrem):
        h = removed[i]
        unlink_all(h, ehead, enext, eprev, eto, counters)
        rarea[i] = harea[h]
        acount[harea[h]] -= 1
        hsize[h] = 0
        counters[C_NLIVE] -= 1


@njit(cache=True, nogil=True, inline="always")
def link(h, o, ehead, enext, eprev, eto, counters):
    """Record that ``h`` and ``o`` are adjacent (one pair of half-edges)."""
    p = counters[C_EFREE]
    if p >= 0:
        counters[C_EFREE] = enext[2 * p]
    else:
        p = counters[C_EUSED]
        counters[C_EUSED] += 1
    counters[C_ELIVE] += 1
    a = 2 * p
    _push(a, h, o, ehead, enext, eprev, eto)
    _push(a + 1, o, h, ehead, enext, eprev, eto)


@njit(cache=True, nogil=True, inline="always")
def _push(e, u, v, ehead, enext, eprev, eto):
    """Half-edge ``e`` (u -> v) becomes the head of ``u``'s list."""
    eto[e] = v
    eprev[e] = -1
    first = ehead[u]
    enext[e] = first
    if first >= 0:
        eprev[first] = e
    ehead[u] = e


@njit(cache=True, nogil=True, inline="always")
def has_link(h, o, ehead, enext, eto):
    e = ehead[h]
    while e >= 0:
        if eto[e] == o:
            return True
        e = enext[e]
    return False


@njit(cache=True, nogil=True, inline="always")
def unlink_all(h, ehead, enext, eprev, eto, counters):
    """Remove every pair of ``h``: its half in each neighbour's list is
    unlinked, and the pair goes back to the free list."""
    e = ehead[h]
    while e >= 0:
        nxt = enext[e]
        t = e ^ 1
        o = eto[e]
        pt = eprev[t]
        nt = enext[t]
        if pt >= 0:
            enext[pt] = nt
        else:
            ehead[o] = nt
        if nt >= 0:
            eprev[nt] = pt
        p = e >> 1
        enext[2 * p] = counters[C_EFREE]
        counters[C_EFREE] = p
        counters[C_ELIVE] -= 1
        e = nxt
    ehead[h] = -1
