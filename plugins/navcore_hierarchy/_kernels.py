"""numba kernels of the hierarchical graph (private; see ``hierarchy.py``).

State, all arrays owned by ``Hierarchy`` and edited in place:

* ``hnode_of[node]``: the hierarchical node holding a real node, -1 for
  blocked nodes (and, inside an update, for nodes waiting to be regrouped).
* ``children[h * MAX_CHILDREN : ... + hsize[h]]``: the members of ``h``;
  ``hsize[h] == 0`` marks a free id. ``hgen[h]`` is bumped when ``h`` is
  removed, which invalidates every connection that names it.
* connections: ``cnode/cgen[cstart[h] : cstart[h] + ccount[h]]`` are the
  hierarchical nodes next to ``h`` (with their generation) *when h was
  built*. Each adjacency is recorded at least by the later-built side of
  the pair, which is all the union-find flood fill needs, so a rebuild
  never edits its neighbours' lists.
* ``harea[h]`` / ``hprev[h]``: area id now / before the current update.
* ``counters``: see the ``C_*`` indices below.

An edge connects its ends both ways when its cost is finite and both ends
are walkable (the seed's rule; on directed graphs areas are therefore
weakly connected components).
"""
from __future__ import annotations

import numpy as np
from numba import njit

MAX_CHILDREN = 256          # the seed's 16 x 16 tiling
MIN_CHILDREN = MAX_CHILDREN // 2   # smaller neighbours are regrouped too

# counters[...]
C_HWM = 0        # hierarchical ids below this have been used
C_NFREE = 1      # entries on the free-id stack
C_CUSED = 2      # connection entries written
C_CGARBAGE = 3   # of which belong to removed nodes
C_AHWM = 4       # area ids below this have been used
C_ANFREE = 5     # entries on the free-area stack
C_STAMP = 6      # for hmark
C_NLIVE = 7      # live hierarchical nodes
C_NBUILT = 8     # hierarchical nodes built by the current update
N_COUNTERS = 9


@njit(cache=True, nogil=True)
def remove(dirty, walkable, offsets, targets, directed, roff, rsrc,
            hnode_of, children, hsize, hgen, harea, ccount, hmark, counters,
            removed, bnd, seeds, prev_area):
    """Remove every hierarchical node holding a dirty node, plus the small
    nodes next to those (so fragments merge instead of piling up). Their
    members and the newly walkable dirty nodes become ``seeds``; each
    seed's area before the update goes to ``prev_area``; the surviving
    nodes next to removed ones go to ``bnd`` (the boundary). ``dirty``
    holds no duplicates. Returns ``(n_removed, n_boundary, n_seeds)``."""
    counters[C_STAMP] += 2
    st = counters[C_STAMP] - 1        # marks removed nodes
    sb = st + 1                       # marks boundary nodes
    nrem = 0
    ns = 0
    for d in dirty:
        h = hnode_of[d]
        if h < 0:
            if walkable[d]:               # was blocked, is walkable now
                seeds[ns] = d
                prev_area[d] = -1
                ns += 1
        elif hmark[h] != st:
            hmark[h] = st
            removed[nrem] = h
            nrem += 1
    nfirst = nrem
    nb = 0
    i = 0
    while i < nrem:
        # first-level nodes pull in small neighbours; those only see boundary
        h = removed[i]
        pull = i < nfirst
        base = h * MAX_CHILDREN
        for j in range(hsize[h]):
            u = children[base + j]
            for k in range(2 if directed else 1):
                lo = offsets[u] if k == 0 else roff[u]
                hi = offsets[u + 1] if k == 0 else roff[u + 1]
                for e in range(lo, hi):
                    hv = hnode_of[targets[e]] if k == 0 else hnode_of[rsrc[e]]
                    if hv < 0 or hmark[hv] == st or hmark[hv] == sb:
                        continue
                    if pull and hsize[hv] < MIN_CHILDREN:
                        hmark[hv] = st
                        removed[nrem] = hv
                        nrem += 1
                    else:
                        hmark[hv] = sb
                        bnd[nb] = hv
                        nb += 1
        i += 1
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
        hsize[h] = 0
        hgen[h] += 1
        counters[C_CGARBAGE] += ccount[h]
        ccount[h] = 0
        counters[C_NLIVE] -= 1
    return nrem, nb, ns


@njit(cache=True, nogil=True)
def group(seeds, first, ns, walkable, offsets, targets, cost, directed, roff, rsrc,
           reid, hnode_of, children, hsize, hgen, harea, hprev, hmixed, cstart, ccount,
           cnode, cgen, hfree, hmark, counters, prev_area, built):
    """Group the unassigned walkable ``seeds[first:ns]`` into new
    hierarchical nodes of at most ``MAX_CHILDREN`` by BFS (the member block
    doubles as the queue) and record each new node's connections.

    Returns ``(i, need)``: ``i == ns`` when done; otherwise it stopped at
    seed ``i`` for want of a free id (``need == 0``) or of ``need``
    connection entries, changed nothing for that seed, and the caller grows
    the arrays and calls again from ``i``."""
    hcap = hsize.shape[0]
    ccap = cnode.shape[0]
    for i in range(first, ns):
        s = seeds[i]
        if hnode_of[s] >= 0 or not walkable[s]:
            continue
        if counters[C_NFREE] > 0:
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
        bound = 0                      # connection entries this node may need
        for j in range(cnt):
            u = children[base + j]
            bound += offsets[u + 1] - offsets[u]
            if directed:
                bound += roff[u + 1] - roff[u]
        c0 = counters[C_CUSED]
        if c0 + bound > ccap:
            for j in range(cnt):       # undo: the caller grows and retries
                hnode_of[children[base + j]] = -1
            return i, bound
        if counters[C_NFREE] > 0 and hfree[counters[C_NFREE] - 1] == h:
            counters[C_NFREE] -= 1
        else:
            counters[C_HWM] += 1
        counters[C_NLIVE] += 1
        built[counters[C_NBUILT]] = h
        counters[C_NBUILT] += 1
        hsize[h] = cnt
        harea[h] = -1                  # set by the flood
        # connections, and the smallest area the members had before
        counters[C_STAMP] += 1
        st = counters[C_STAMP]
        hmark[h] = st
        c = c0
        prev = -1
        prev_max = -1
        for j in range(cnt):
            u = children[base + j]
            pa = prev_area[u]
            if pa >= 0 and (prev < 0 or pa < prev):
                prev = pa
            if pa > prev_max:
                prev_max = pa
            for e in range(offsets[u], offsets[u + 1]):
                hv = hnode_of[targets[e]]
                if hv >= 0 and hmark[hv] != st and cost[e] < np.inf:
                    hmark[hv] = st
                    cnode[c] = hv
                    cgen[c] = hgen[hv]
                    c += 1
            if directed:
                for r in range(roff[u], roff[u + 1]):
                    hv = hnode_of[rsrc[r]]
                    if hv >= 0 and hmark[hv] != st and cost[reid[r]] < np.inf:
                        hmark[hv] = st
                        cnode[c] = hv
                        cgen[c] = hgen[hv]
                        c += 1
        cstart[h] = c0
        ccount[h] = c - c0
        counters[C_CUSED] = c
        hprev[h] = prev
        hmixed[h] = prev != prev_max      # members came from several areas
    return ns, 0


@njit(cache=True, nogil=True)
def find(uf, x):
    while uf[x] != x:
        uf[x] = uf[uf[x]]            # path halving
        x = uf[x]
    return x


@njit(cache=True, nogil=True, inline="always")
def new_area(counters, afree, acount, anew):
    """An unused area id: a freed one, else the next never used."""
    if counters[C_ANFREE] > 0:
        counters[C_ANFREE] -= 1
        x = afree[counters[C_ANFREE]]
    else:
        x = counters[C_AHWM]
        counters[C_AHWM] += 1
    acount[x] = 0
    anew[x] = 0
    return x


@njit(cache=True, nogil=True, inline="always")
def note(x, changed, n, anote, st):
    """Append area ``x`` to ``changed`` once per update (stamp ``st``)."""
    if anote[x] != st:
        anote[x] = st
        changed[n] = x
        n += 1
    return n


@njit(cache=True, nogil=True)
def flood_local(removed, nrem, bnd, nb, built, hsize, hgen, harea, hprev, hmixed,
                 cstart, ccount, cnode, cgen, hmark, counters, uf, rid, acount,
                 anew, aclaim, anote, afree, changed):
    """Settle an update by looking only at the new nodes and the boundary
    (surviving nodes next to removed or new ones), when no area split.

    Why that suffices: connections between surviving nodes did not change,
    and a surviving node reaches the boundary of its area along surviving
    nodes. So the pieces the new and boundary nodes form tell everything
    except a split (one old area in two local pieces may still be joined
    far away): then this returns -1, having changed only scratch, and the
    caller floods the whole hierarchical graph (``flood``). Otherwise each
    piece takes the smallest old area id in it (areas in one piece merge:
    their nodes are relabelled in one pass over the ids), a piece without
    one gets a new id, an old area with no node left in any piece vanished.
    Returns the number of changed area ids written to ``changed``."""
    nbuilt = counters[C_NBUILT]
    counters[C_STAMP] += 1
    st = counters[C_STAMP]
    for i in range(nb):
        hmark[bnd[i]] = st
        uf[bnd[i]] = bnd[i]
        rid[bnd[i]] = -1
    for i in range(nbuilt):
        hmark[built[i]] = st
        uf[built[i]] = built[i]
        rid[built[i]] = -1
    # surviving nodes next to new ones belong to the boundary too (a new
    # node may join areas that lost nothing)
    for i in range(nbuilt):
        h = built[i]
        for c in range(cstart[h], cstart[h] + ccount[h]):
            o = cnode[c]
            if hmark[o] != st and hsize[o] > 0 and hgen[o] == cgen[c]:
                hmark[o] = st
                uf[o] = o
                rid[o] = -1
                bnd[nb] = o
                nb += 1
    for k in range(2):
        for i in range(nb if k == 0 else nbuilt):
            h = bnd[i] if k == 0 else built[i]
            for c in range(cstart[h], cstart[h] + ccount[h]):
                o = cnode[c]
                if hmark[o] == st and hsize[o] > 0 and hgen[o] == cgen[c]:
                    a = find(uf, h)
                    b = find(uf, o)
                    if a != b:
                        uf[b] = a
    # old areas per piece: each must lie in one piece (else: maybe a split)
    for k in range(2):
        for i in range(nb if k == 0 else nbuilt):
            h = bnd[i] if k == 0 else built[i]
            x = harea[h] if k == 0 else hprev[h]
            if x < 0:
                continue
            r = find(uf, h)
            if aclaim[x] != st:
                aclaim[x] = st
                anew[x] = r
            elif anew[x] != r:
                return -1
            if rid[r] < 0 or x < rid[r]:
                rid[r] = x
    # from here on nothing fails
    counters[C_STAMP] += 1
    sc = counters[C_STAMP]            # anote: "already in changed"
    nch = 0
    for i in range(nrem):
        acount[harea[removed[i]]] -= 1
    merged = False
    for k in range(2):
        for i in range(nb if k == 0 else nbuilt):
            h = bnd[i] if k == 0 else built[i]
            x = harea[h] if k == 0 else hprev[h]
            if x >= 0 and rid[anew[x]] != x:
                merged = True
    if merged:                        # relabel merged areas everywhere
        for h in range(counters[C_HWM]):
            x = harea[h]              # -1 on new nodes: labelled below
            if hsize[h] == 0 or x < 0:
                continue
            if aclaim[x] == st and rid[anew[x]] != x:
                y = rid[anew[x]]
                nch = note(x, changed, nch, anote, sc)
                nch = note(y, changed, nch, anote, sc)
                harea[h] = y
                hprev[h] = y
                acount[x] -= 1
                acount[y] += 1
    for i in range(nbuilt):
        h = built[i]
        r = find(uf, h)
        x = rid[r]
        if x < 0:                     # a new area
            x = new_area(counters, afree, acount, anew)
            rid[r] = x
            nch = note(x, changed, nch, anote, sc)
        elif hmixed[h] or (hprev[h] >= 0 and hprev[h] != x):
            nch = note(x, changed, nch, anote, sc)
            if hprev[h] >= 0:
                nch = note(hprev[h], changed, nch, anote, sc)
        harea[h] = x
        hprev[h] = x
        hmixed[h] = False
        acount[x] += 1
    # old areas left without nodes vanished (merged-away ones included)
    for i in range(nrem):
        x = harea[removed[i]]
        if acount[x] == 0:
            nch = note(x, changed, nch, anote, sc)
    for i in range(nch):
        x = changed[i]
        if acount[x] == 0:
            afree[counters[C_ANFREE]] = x
            counters[C_ANFREE] += 1
    return nch


@njit(cache=True, nogil=True)
def flood(hsize, hgen, harea, hprev, hmixed, cstart, ccount, cnode, cgen, counters,
           uf, rid, acount, anew, aclaim, afree, changed):
    """Flood fill the hierarchical graph (union-find over the connections)
    and give every component an area id. A component keeps the smallest old
    area id among its nodes unless an earlier component (by lowest node id)
    took it; otherwise it gets a free id. Area ids whose node set split,
    merged, appeared or vanished go to ``changed``; returns their count."""
    hwm = counters[C_HWM]
    for h in range(hwm):
        uf[h] = h
    for h in range(hwm):
        if hsize[h] == 0:
            continue
        for c in range(cstart[h], cstart[h] + ccount[h]):
            o = cnode[c]
            if hsize[o] > 0 and hgen[o] == cgen[c]:
                a = find(uf, h)
                b = find(uf, o)
                if a != b:
                    if a < b:
                        uf[b] = a
                    else:
                        uf[a] = b
    # the smallest previous area per component (roots are the smallest ids)
    for h in range(hwm):
        rid[h] = -1
    big = np.iinfo(np.int32).max
    for h in range(hwm):
        if hsize[h] > 0:
            r = find(uf, h)
            if rid[r] == -1:
                rid[r] = big
            p = hprev[h]
            if p >= 0 and p < rid[r]:
                rid[r] = p
    counters[C_STAMP] += 1
    st = counters[C_STAMP]
    nchanged = 0
    ahwm = counters[C_AHWM]
    for x in range(ahwm):
        anew[x] = 0
    for h in range(hwm):
        if hsize[h] == 0 or uf[h] != h:
            continue
        x = rid[h]                    # h is a root: ids are final in this pass
        if x != big and aclaim[x] != st:
            aclaim[x] = st
        else:
            x = new_area(counters, afree, acount, anew)
            aclaim[x] = st
            changed[nchanged] = x      # a new area (split off or appeared)
            nchanged += 1
        rid[h] = x
    counters[C_STAMP] += 1
    st2 = counters[C_STAMP]            # aclaim now marks "already in changed"
    for i in range(nchanged):
        aclaim[changed[i]] = st2
    for h in range(hwm):
        if hsize[h] == 0:
            continue
        x = rid[find(uf, h)]
        harea[h] = x
        anew[x] += 1
        p = hprev[h]
        if (p >= 0 and p != x) or hmixed[h]:   # moved between areas, or merged some
            if p >= 0 and aclaim[p] != st2:
                aclaim[p] = st2
                changed[nchanged] = p
                nchanged += 1
            if aclaim[x] != st2:
                aclaim[x] = st2
                changed[nchanged] = x
                nchanged += 1
        hprev[h] = x
        hmixed[h] = False
    for x in range(counters[C_AHWM]):
        if acount[x] > 0 and anew[x] == 0:      # vanished
            if aclaim[x] != st2:
                aclaim[x] = st2
                changed[nchanged] = x
                nchanged += 1
            afree[counters[C_ANFREE]] = x
            counters[C_ANFREE] += 1
        acount[x] = anew[x]
    return nchanged


@njit(cache=True, nogil=True)
def release(removed, nrem, hsize, hfree, counters):
    """Put removed ids that were not reused back on the free stack (after
    the flood fill, so no id served two nodes within one update)."""
    for i in range(nrem):
        h = removed[i]
        if hsize[h] == 0:
            hfree[counters[C_NFREE]] = h
            counters[C_NFREE] += 1


@njit(cache=True, nogil=True)
def compact(hsize, cstart, ccount, cnode, cgen, out_node, out_gen, counters):
    """Copy the live connection lists into ``out_*`` back to back."""
    c = 0
    for h in range(counters[C_HWM]):
        if hsize[h] == 0:
            continue
        s = cstart[h]
        cstart[h] = c
        for j in range(ccount[h]):
            out_node[c] = cnode[s + j]
            out_gen[c] = cgen[s + j]
            c += 1
    counters[C_CUSED] = c
    counters[C_CGARBAGE] = 0


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
