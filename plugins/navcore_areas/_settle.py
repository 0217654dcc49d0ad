"""Area ids after an update, and from scratch (private kernels).

``settle`` is what keeps an update bounded: the A* Pathfinding Project
floods the whole hierarchical graph after every update, which on a
1000x1000 grid (18 k hierarchical nodes) is most of the update's time. Here only the nodes
whose area can have changed are looked at:

1. The local set L: the new nodes, and the surviving nodes next to a
   removed or a new one. Connections between surviving nodes did not
   change, so every surviving node still reaches L (if its area was
   touched at all) through surviving nodes of its old area.
2. A union-find over the edges inside L gives local pieces. A piece with
   several old area ids merges them (they are now connected).
3. An old id found in two pieces may have split, or the pieces may still
   be joined far away. Pieces that share old ids (a "family") are searched
   together: one BFS per piece over the surviving nodes outside L, taking
   turns node by node. Searches that meet join; a search that runs out of
   nodes has found its whole component. A family is settled when at most
   one search is still going: that one is the rest of the old area, and
   it is never walked (the classic trick: the cost is bounded by the
   smaller sides, not by the area).
4. Ids: each component takes the id of its largest old area (most
   hierarchical nodes; ties: the smaller id) unless another component of
   the update took it first (an unfinished search goes first, so the large
   remainder of a split keeps its id; among whole components, surviving
   nodes before new ones), else a free id. Nodes of L and of finished
   searches are relabelled directly; the unwalked rest of a smaller area
   that merged into a larger one is walked from L and relabelled (so a
   merge costs the smaller side, never a pass over all ids).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._base import (C_AHWM, C_ANFREE, C_HWM, C_NBUILT, C_NCLAIM, C_SEARCHED, C_STAMP,
                    add_once, find, new_area, union_min)

_BIG = np.iinfo(np.int32).max


@njit(cache=True, nogil=True, inline="always")
def _enqueue(r, h, qhead, qtail, qnext):
    qnext[h] = -1
    if qtail[r] >= 0:
        qnext[qtail[r]] = h
    else:
        qhead[r] = h
    qtail[r] = h


@njit(cache=True, nogil=True, inline="always")
def _join(a, b, uf, qhead, qtail, qnext, fcount, f):
    """Searches ``a`` and ``b`` (roots, same family ``f``) met: one
    search with both queues from now on."""
    if b < a:
        a, b = b, a
    uf[b] = a
    if qhead[b] >= 0:
        if qtail[a] >= 0:
            qnext[qtail[a]] = qhead[b]
        else:
            qhead[a] = qhead[b]
        qtail[a] = qtail[b]
    fcount[f] -= 1
    return a


@njit(cache=True, nogil=True, inline="always")
def _held(i, nb, bnd, harea, cl_node, cl_area):
    """The ``i``-th old id held by L, with the node holding it: first the
    survivors ``bnd[:nb]`` with their areas, then the claims."""
    if i < nb:
        h = bnd[i]
        return h, harea[h]
    return cl_node[i - nb], cl_area[i - nb]


@njit(cache=True, nogil=True)
def settle(nrem, nb, nodes, areas, areas64, edges, claims, counters):
    """Give area ids after an update (module docs). The arrays are the rows
    of the blocks ``nodes``, ``areas``, ``areas64``, ``edges`` and
    ``claims`` (in the order of ``_base.NODE_ROWS``, ``AREA_ROWS``, ...).
    ``rarea[:nrem]``: the areas of the removed nodes (already uncounted in
    ``acount``); ``bnd[:nb]``: surviving nodes next to removed ones;
    ``built[:nbuilt]`` the new nodes, and ``(cl_node, cl_area)[:ncl]`` the
    distinct old areas of each new node's members. Returns the number of
    changed area ids written to ``changed`` (split, merged, appeared or
    vanished), sorted."""
    harea, ehead, uf, fuf, fcount = nodes[1], nodes[2], nodes[3], nodes[4], nodes[5]
    qhead, qtail, qnext, gid, act, vis = nodes[6], nodes[7], nodes[8], nodes[9], \
        nodes[10], nodes[11]
    rarea, bnd, built, gflag = nodes[13], nodes[14], nodes[15], nodes[17]
    acount, afree, changed, aown, amap = areas[0], areas[1], areas[2], areas[3], areas[4]
    aclaim, anote, hmark = areas64[0], areas64[1], areas64[3]
    eto, enext = edges[0], edges[1]
    cl_node, cl_area = claims[0], claims[1]
    nbuilt = counters[C_NBUILT]
    ncl = counters[C_NCLAIM]
    counters[C_STAMP] += 5
    st = counters[C_STAMP] - 4        # hmark: in L
    sv = st + 1                       # hmark: visited by a search
    sa = st + 2                       # aclaim: old id held by L
    stk = st + 3                      # aclaim: old id taken by a component
    sc = st + 4                       # anote: already in changed
    for i in range(nbuilt):
        h = built[i]
        hmark[h] = st
    for i in range(nb):
        hmark[bnd[i]] = st
    # survivors next to new nodes join L (a new node may join areas that
    # lost nothing)
    for i in range(nbuilt):
        e = ehead[built[i]]
        while e >= 0:
            nb = add_once(eto[e], bnd, nb, hmark, st)
            e = enext[e]
    nl = nb + nbuilt
    for i in range(nl):
        h = bnd[i] if i < nb else built[i - nb]
        uf[h] = h
        fuf[h] = h
        fcount[h] = 0
        gid[h] = -1
        gflag[h] = 0
    # 2. local pieces
    for i in range(nl):
        h = bnd[i] if i < nb else built[i - nb]
        e = ehead[h]
        while e >= 0:
            o = eto[e]
            if hmark[o] == st:
                union_min(uf, h, o)
            e = enext[e]
    # 3. families: pieces that hold the same old id
    for i in range(nb + ncl):
        h, x = _held(i, nb, bnd, harea, cl_node, cl_area)
        r = find(uf, h)
        if aclaim[x] != sa:
            aclaim[x] = sa
            aown[x] = r
            amap[x] = x
        else:
            union_min(fuf, aown[x], r)
    for i in range(nl):
        h = bnd[i] if i < nb else built[i - nb]
        if uf[h] == h:
            fcount[find(fuf, h)] += 1
    nact = 0
    for i in range(nl):
        h = bnd[i] if i < nb else built[i - nb]
        if uf[h] == h and fcount[find(fuf, h)] >= 2:
            gflag[h] = 1              # searching
            qhead[h] = -1
            qtail[h] = -1
            act[nact] = h
            nact += 1
    nvis = 0
    if nact:
        for i in range(nb):           # only survivors have neighbours outside L
            h = bnd[i]
            r = find(uf, h)
            if gflag[r] == 1:
                _enqueue(r, h, qhead, qtail, qnext)
        going = True
        while going:
            going = False
            for i in range(nact):
                r = act[i]
                if uf[r] != r or gflag[r] != 1:
                    continue          # joined another search, or finished
                f = find(fuf, r)
                if fcount[f] <= 1:
                    continue          # the family is settled: r is the rest
                going = True
                h = qhead[r]
                if h < 0:
                    gflag[r] = 2      # ran out: a whole component
                    fcount[f] -= 1
                    continue
                qhead[r] = qnext[h]
                if qhead[r] < 0:
                    qtail[r] = -1
                e = ehead[h]
                while e >= 0:
                    o = eto[e]
                    m = hmark[o]
                    if m == st or m == sv:
                        a = find(uf, h)
                        b = find(uf, o)
                        if a != b:
                            _join(a, b, uf, qhead, qtail, qnext, fcount, f)
                    else:
                        hmark[o] = sv
                        a = find(uf, h)
                        uf[o] = a
                        vis[nvis] = o
                        nvis += 1
                        _enqueue(a, o, qhead, qtail, qnext)
                    e = enext[e]
        for i in range(nact):         # stopped with nothing left to walk: whole too
            r = act[i]
            if uf[r] == r and gflag[r] == 1 and qhead[r] < 0:
                gflag[r] = 2
    counters[C_SEARCHED] = nvis
    # 4. ids: each component's largest old area (most hierarchical nodes,
    # ties: the smaller id); gid holds it until the next loop makes it final
    for i in range(nb + ncl):
        h, x = _held(i, nb, bnd, harea, cl_node, cl_area)
        r = find(uf, h)
        y = gid[r]
        if y < 0 or acount[x] > acount[y] or (acount[x] == acount[y] and x < y):
            gid[r] = x
    nch = 0
    # unfinished searches (and pieces alone) first, then whole components
    # in the order of L (the surviving side before new nodes)
    for k in range(2):
        for i in range(nl):
            h = bnd[i] if i < nb else built[i - nb]
            if uf[h] != h or (gflag[h] == 2) != (k == 1):
                continue
            x = gid[h]
            if x >= 0 and aclaim[x] == sa:
                aclaim[x] = stk
            else:
                x = new_area(counters, afree, acount)
                nch = add_once(x, changed, nch, anote, sc)
            gid[h] = x                # final (each root is seen once)
    # where the unwalked rest of each old id goes (only ids held by an
    # unfinished search or a piece alone have an unwalked rest)
    for i in range(nb + ncl):
        h, x = _held(i, nb, bnd, harea, cl_node, cl_area)
        r = find(uf, h)
        if gflag[r] != 2:
            amap[x] = gid[r]
    # a merge renamed the smaller parts: walk each from its nodes in L and
    # in the searches over the nodes that still carry its old id
    # (relabelled nodes no longer match, so no stamp is needed); bounded by
    # the renamed parts' size
    for i in range(nb + nvis):
        h = bnd[i] if i < nb else vis[i - nb]
        x = harea[h]
        y = amap[x]
        if y == x:
            continue
        act[0] = h
        top = 1
        while top:
            top -= 1
            e = ehead[act[top]]
            while e >= 0:
                o = eto[e]
                if harea[o] == x and hmark[o] != st and hmark[o] != sv:
                    harea[o] = y
                    acount[x] -= 1
                    acount[y] += 1
                    nch = add_once(x, changed, nch, anote, sc)
                    nch = add_once(y, changed, nch, anote, sc)
                    act[top] = o
                    top += 1
                e = enext[e]
    # relabel L and the searched nodes
    for i in range(nl + nvis):
        if i < nb:
            h = bnd[i]
        elif i < nl:
            h = built[i - nb]
        else:
            h = vis[i - nl]
        y = gid[find(uf, h)]
        x = harea[h] if i < nb or i >= nl else -1
        if x != y:
            if x >= 0:
                acount[x] -= 1
                nch = add_once(x, changed, nch, anote, sc)
                nch = add_once(y, changed, nch, anote, sc)
            harea[h] = y
            acount[y] += 1
    for i in range(ncl):              # members that came from another area
        x = cl_area[i]
        y = harea[cl_node[i]]
        if x != y:
            nch = add_once(x, changed, nch, anote, sc)
            nch = add_once(y, changed, nch, anote, sc)
    # old ids left without nodes vanished
    for i in range(nrem):
        x = rarea[i]
        if acount[x] == 0:
            nch = add_once(x, changed, nch, anote, sc)
    for i in range(nch):
        x = changed[i]
        if acount[x] == 0:
            afree[counters[C_ANFREE]] = x
            counters[C_ANFREE] += 1
    # sorted here: the caller only copies them out (a numpy sort after the
    # kernel cost ~20-30 us on a cache-cold tick, a copy ~13)
    if nch > 1:
        changed[:nch].sort()
    return nch


@njit(cache=True, nogil=True)
def flood_all(hsize, harea, ehead, enext, eto, uf, acount, counters):
    """Area ids from scratch (a full recalculation): union-find over every
    pair, components numbered 0, 1, ... in order of their lowest
    hierarchical id. Returns the number of areas."""
    hwm = counters[C_HWM]
    for h in range(hwm):
        uf[h] = h
    for h in range(hwm):
        e = ehead[h]
        while e >= 0:
            union_min(uf, h, eto[e])
            e = enext[e]
    k = 0
    for h in range(hwm):
        if hsize[h] == 0:
            continue
        r = find(uf, h)
        if r == h:
            harea[h] = k
            acount[k] = 0
            k += 1
        else:
            harea[h] = harea[r]       # r < h: labelled already
        acount[harea[h]] += 1
    counters[C_AHWM] = k
    counters[C_ANFREE] = 0
    return k
