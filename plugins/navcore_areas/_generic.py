"""Hierarchical nodes of any graph, by BFS over its CSR view (private
kernels; the seed's grouping).

``children[h * MAX_CHILDREN : ... + hsize[h]]`` are the members of ``h``.
An edge joins its ends both ways when its cost is finite and both ends
are walkable (the seed's rule; on directed graphs areas are therefore
weakly connected components).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ._base import (C_ELIVE, C_HWM, C_NBUILT, C_NCLAIM, C_NFREE, C_STAMP, MAX_CHILDREN,
                    MIN_CHILDREN, boundary, drop_removed, link, new_node)


class Csr(NamedTuple):
    """A graph's CSR and, for a directed one, its reverse (sources and the
    forward edge of each; empty otherwise)."""
    offsets: np.ndarray
    targets: np.ndarray
    cost: np.ndarray
    roff: np.ndarray
    rsrc: np.ndarray
    reid: np.ndarray


@njit(cache=True, nogil=True)
def remove(dirty, walkable, nodes, children, links, hmark, counters, acount, rem, seeds,
           prev_area):
    """Remove every hierarchical node holding a dirty node, plus the small
    nodes next to those (so fragments merge instead of piling up). Their
    members and the newly walkable dirty nodes become ``seeds``, each with
    its old area in ``prev_area``; surviving nodes next to removed ones go
    to ``bnd``. ``dirty`` holds no duplicates. ``nodes``, ``links``,
    ``rem``: ``_base.Nodes``, ``Links``, ``Removal``. Returns ``(n_removed,
    n_boundary, n_seeds)``."""
    hnode_of, hsize, harea = nodes.hnode_of, nodes.hsize, nodes.harea
    ehead, enext, eprev, eto = links
    removed, rarea, bnd = rem
    counters[C_STAMP] += 2
    st = counters[C_STAMP] - 1        # removed
    sb = st + 1                       # boundary
    nrem = 0
    ns = 0
    for d in dirty:
        h = hnode_of[d]
        if h < 0:
            if walkable[d]:               # was blocked, is walkable now
                seeds[ns] = d
                prev_area[d] = -1
                ns += 1
        elif hmark[h] != st:          # written out, as in _lattice.remove_tiles
            hmark[h] = st
            removed[nrem] = h
            nrem += 1
    for i in range(nrem):             # first-level nodes pull in small neighbours
        e = ehead[removed[i]]
        while e >= 0:
            o = eto[e]
            if hmark[o] != st and hsize[o] < MIN_CHILDREN:
                hmark[o] = st
                removed[nrem] = o
                nrem += 1
            e = enext[e]
    nb = boundary(removed, nrem, ehead, enext, eto, hmark, st, sb, bnd)
    for i in range(nrem):
        h = removed[i]
        base = h * MAX_CHILDREN
        a = harea[h]
        for j in range(hsize[h]):
            u = children[base + j]
            hnode_of[u] = -1
            prev_area[u] = a
            seeds[ns] = u
            ns += 1
    drop_removed(removed, nrem, hsize, harea, ehead, enext, eprev, eto, acount, rarea, counters)
    return nrem, nb, ns


@njit(cache=True, nogil=True)
def group(seeds, first, ns, walkable, csr, directed, nodes, children, links, hmark, counters,
          claims):
    """Group the unassigned walkable ``seeds[first:ns]`` into new
    hierarchical nodes of at most ``MAX_CHILDREN`` by BFS (the member block
    doubles as the queue), link each to its assigned neighbours and claim
    its members' distinct old areas.

    Returns ``(i, need)``: ``i == ns`` when done; otherwise it stopped at
    seed ``i`` for want of a free id (``need == 0``) or of ``need`` free
    link pairs, changed nothing for that seed, and the caller grows the
    arrays and calls again from ``i``. ``csr``: a :class:`Csr`; ``nodes``,
    ``links``, ``claims``: ``_base.Nodes``, ``Links``, ``Claims``."""
    offsets, targets, cost, roff, rsrc, reid = csr
    hnode_of, hsize, harea, hfree = nodes
    ehead, enext, eprev, eto = links
    prev_area, built, cl_node, cl_area, aseen = claims
    hcap = hsize.shape[0]
    pcap = eto.shape[0] // 2
    for i in range(first, ns):
        s = seeds[i]
        if hnode_of[s] >= 0 or not walkable[s]:
            continue
        if counters[C_NFREE] > 0:     # the id it will get (taken below)
            h = hfree[counters[C_NFREE] - 1]
        elif counters[C_HWM] < hcap:
            h = counters[C_HWM]
        else:
            return i, 0
        base = h * MAX_CHILDREN
        children[base] = s
        hnode_of[s] = h
        cnt = 1
        head = 0
        while head < cnt and cnt < MAX_CHILDREN:
            u = children[base + head]
            head += 1
            for e in range(offsets[u], offsets[u + 1]):
                v = targets[e]
                if hnode_of[v] < 0 and walkable[v] and cost[e] < np.inf \
                        and cnt < MAX_CHILDREN:
                    hnode_of[v] = h
                    children[base + cnt] = v
                    cnt += 1
            if directed:
                for r in range(roff[u], roff[u + 1]):
                    v = rsrc[r]
                    if hnode_of[v] < 0 and walkable[v] and cost[reid[r]] < np.inf \
                            and cnt < MAX_CHILDREN:
                        hnode_of[v] = h
                        children[base + cnt] = v
                        cnt += 1
        bound = 0                      # links this node may make
        for j in range(cnt):
            u = children[base + j]
            bound += offsets[u + 1] - offsets[u]
            if directed:
                bound += roff[u + 1] - roff[u]
        if counters[C_ELIVE] + bound > pcap:
            for j in range(cnt):       # undo: the caller grows and retries
                hnode_of[children[base + j]] = -1
            return i, bound
        new_node(counters, hfree)      # takes h
        built[counters[C_NBUILT]] = h
        counters[C_NBUILT] += 1
        hsize[h] = cnt
        harea[h] = -1                  # set by settle
        ehead[h] = -1
        counters[C_STAMP] += 1
        st = counters[C_STAMP]         # hmark: linked already; aseen: claimed
        hmark[h] = st
        ncl = counters[C_NCLAIM]
        for j in range(cnt):
            u = children[base + j]
            pa = prev_area[u]
            if pa >= 0 and aseen[pa] != st:     # written out: see _lattice.rebuild_tiles
                aseen[pa] = st
                cl_node[ncl] = h
                cl_area[ncl] = pa
                ncl += 1
            for e in range(offsets[u], offsets[u + 1]):
                hv = hnode_of[targets[e]]
                if hv >= 0 and hmark[hv] != st and cost[e] < np.inf:
                    hmark[hv] = st
                    link(h, hv, ehead, enext, eprev, eto, counters)
            if directed:
                for r in range(roff[u], roff[u + 1]):
                    hv = hnode_of[rsrc[r]]
                    if hv >= 0 and hmark[hv] != st and cost[reid[r]] < np.inf:
                        hmark[hv] = st
                        link(h, hv, ehead, enext, eprev, eto, counters)
        counters[C_NCLAIM] = ncl
    return ns, 0
