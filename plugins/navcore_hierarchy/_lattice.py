"""Hierarchical nodes of a lattice graph (private kernels).

A graph that describes itself as a lattice (``NavGraph.lattice()``: a grid
of cells whose components follow from ``walkable`` alone) is grouped by
tiles instead of by BFS: a hierarchical node is one connected piece of one
16 x 16 tile (so at most 256 cells, the seed's tiling). That grouping is a
function of the mask alone, which makes it cheap both ways:

* from scratch, the pieces are found by a run-based union-find (the way
  ``scipy.ndimage.label`` works): rows are cut into runs of walkable cells,
  also at tile borders, and runs of two rows of one tile that touch are
  joined. No CSR view is read (a grid does not even build one).
* an update relabels just the tiles that hold a dirty cell; the pieces
  there never fragment or drift, whatever the history.

Connectivity: 4-neighbours, or 8 with ``diag`` (a diagonal joins two
walkable cells whatever the cells beside it). A grid that forbids corner
cutting has the components of 4-connectivity and says ``diag=False``.
"""
from __future__ import annotations

from numba import njit

from ._base import (C_NBUILT, C_NCLAIM, C_NLIVE, C_STAMP, TILE, find, has_link, link,
                    new_node, unlink_all)

_DX = (1, -1, 0, 0, 1, -1, 1, -1)
_DY = (0, 0, 1, -1, 1, 1, -1, -1)


def max_runs(height, width):
    """Room for the runs of ``build_runs``: a run needs a walkable cell and
    a wall or tile border after it."""
    return height * ((width + 1) // 2 + (width + TILE - 1) // TILE + 1)


@njit(cache=True, nogil=True)
def build_runs(walk, H, W, diag, rs, re, rowstart, ruf):
    """Cut rows into runs (``[rs, re)`` in x, split at tile borders) and
    join the runs of one tile that touch. Returns ``(runs, pieces)``."""
    d = 1 if diag else 0
    nr = 0
    for y in range(H):
        rowstart[y] = nr
        base = y * W
        x = 0
        while x < W:
            if walk[base + x]:
                x0 = x
                lim = min(W, (x // TILE + 1) * TILE)
                x += 1
                while x < lim and walk[base + x]:
                    x += 1
                rs[nr] = x0
                re[nr] = x
                ruf[nr] = nr
                nr += 1
            else:
                x += 1
        if y % TILE != 0 and y > 0:
            # runs of rows y-1 and y that touch, same tile column
            p = rowstart[y - 1]
            pend = rowstart[y]
            for j in range(rowstart[y], nr):
                while p < pend and re[p] + d <= rs[j]:
                    p += 1
                i = p
                while i < pend and rs[i] < re[j] + d:
                    if rs[i] // TILE == rs[j] // TILE:
                        a = find(ruf, i)
                        b = find(ruf, j)
                        if a < b:
                            ruf[b] = a
                        elif b < a:
                            ruf[a] = b
                    i += 1
    rowstart[H] = nr
    pieces = 0
    for r in range(nr):
        if find(ruf, r) == r:
            pieces += 1
    return nr, pieces


@njit(cache=True, nogil=True)
def assign_runs(H, W, diag, rs, re, rowstart, ruf, rid, hnode_of, hsize, ehead, enext,
                eprev, eto, counters):
    """Number the pieces in run order (ids 0, 1, ...), write every cell's
    node, and link pieces whose runs touch across a tile border."""
    d = 1 if diag else 0
    h = 0
    for y in range(H):
        base = y * W
        x = 0
        for r in range(rowstart[y], rowstart[y + 1]):
            root = find(ruf, r)
            if root == r:
                hr = h
                h += 1
                hsize[hr] = 0
                ehead[hr] = -1
            else:
                hr = rid[root]        # root < r: numbered already
            rid[r] = hr
            while x < rs[r]:
                hnode_of[base + x] = -1
                x += 1
            while x < re[r]:
                hnode_of[base + x] = hr
                x += 1
            hsize[hr] += re[r] - rs[r]
        while x < W:
            hnode_of[base + x] = -1
            x += 1
    counters[C_NLIVE] = h
    for y in range(H):
        end = rowstart[y + 1]
        for r in range(rowstart[y], end - 1):       # across a tile column border
            if re[r] == rs[r + 1] and not has_link(rid[r], rid[r + 1], ehead, enext, eto):
                link(rid[r], rid[r + 1], ehead, enext, eprev, eto, counters)
        if y == 0:
            continue
        top = y % TILE == 0
        p = rowstart[y - 1]
        pend = rowstart[y]
        for j in range(rowstart[y], end):
            while p < pend and re[p] + d <= rs[j]:
                p += 1
            i = p
            while i < pend and rs[i] < re[j] + d:
                if top or rs[i] // TILE != rs[j] // TILE:
                    a = rid[i]
                    b = rid[j]
                    if not has_link(a, b, ehead, enext, eto):
                        link(a, b, ehead, enext, eprev, eto, counters)
                i += 1
    return h


@njit(cache=True, nogil=True)
def remove_tiles(dirty, W, H, hnode_of, hsize, harea, ehead, enext, eprev, eto, hmark,
                 tmark, counters, acount, tiles, prev_area, removed, rarea, bnd):
    """Remove every hierarchical node of the tiles that hold a dirty cell;
    each cell of those tiles keeps its old area in ``prev_area`` and is
    ungrouped. Surviving nodes next to removed ones go to ``bnd``.
    Returns ``(n_tiles, n_removed, n_boundary)``."""
    ntx = (W + TILE - 1) // TILE
    counters[C_STAMP] += 2
    st = counters[C_STAMP] - 1        # removed (and: tile listed)
    sb = st + 1                       # boundary
    nt = 0
    for d in dirty:
        t = (d // W) // TILE * ntx + (d % W) // TILE
        if tmark[t] != st:
            tmark[t] = st
            tiles[nt] = t
            nt += 1
    nrem = 0
    for k in range(nt):
        t = tiles[k]
        x0 = (t % ntx) * TILE
        y0 = (t // ntx) * TILE
        for y in range(y0, min(H, y0 + TILE)):
            for x in range(x0, min(W, x0 + TILE)):
                c = y * W + x
                h = hnode_of[c]
                if h < 0:
                    prev_area[c] = -1
                    continue
                prev_area[c] = harea[h]
                hnode_of[c] = -1
                if hmark[h] != st:
                    hmark[h] = st
                    removed[nrem] = h
                    nrem += 1
    nb = 0
    for i in range(nrem):
        e = ehead[removed[i]]
        while e >= 0:
            o = eto[e]
            if hmark[o] != st and hmark[o] != sb:
                hmark[o] = sb
                bnd[nb] = o
                nb += 1
            e = enext[e]
    for i in range(nrem):
        h = removed[i]
        unlink_all(h, ehead, enext, eprev, eto, counters)
        rarea[i] = harea[h]
        acount[harea[h]] -= 1
        hsize[h] = 0
        counters[C_NLIVE] -= 1
    return nt, nrem, nb


@njit(cache=True, nogil=True)
def rebuild_tiles(tiles, nt, walk, W, H, diag, hnode_of, hsize, harea, ehead, enext,
                  eprev, eto, hfree, counters, built, prev_area, cl_node, cl_area, aseen,
                  stack):
    """Group the walkable cells of the removed tiles into pieces (a flood
    inside each tile), note each piece's distinct old areas as claims, and
    link the pieces to the nodes around their tiles."""
    ntx = (W + TILE - 1) // TILE
    ndir = 8 if diag else 4
    nbuilt = 0
    ncl = 0
    for k in range(nt):
        t = tiles[k]
        x0 = (t % ntx) * TILE
        y0 = (t // ntx) * TILE
        x1 = min(W, x0 + TILE)
        y1 = min(H, y0 + TILE)
        for y in range(y0, y1):
            for x in range(x0, x1):
                c = y * W + x
                if not walk[c] or hnode_of[c] >= 0:
                    continue
                h = new_node(counters, hfree)
                ehead[h] = -1
                harea[h] = -1
                built[nbuilt] = h
                nbuilt += 1
                counters[C_STAMP] += 1
                sa = counters[C_STAMP]    # aseen: old area already claimed
                hnode_of[c] = h
                stack[0] = c
                top = 1
                size = 0
                while top:
                    top -= 1
                    u = stack[top]
                    size += 1
                    pa = prev_area[u]
                    if pa >= 0 and aseen[pa] != sa:
                        aseen[pa] = sa
                        cl_node[ncl] = h
                        cl_area[ncl] = pa
                        ncl += 1
                    ux = u % W
                    uy = u // W
                    for j in range(ndir):
                        vx = ux + _DX[j]
                        vy = uy + _DY[j]
                        if x0 <= vx < x1 and y0 <= vy < y1:
                            v = vy * W + vx
                            if walk[v] and hnode_of[v] < 0:
                                hnode_of[v] = h
                                stack[top] = v
                                top += 1
                hsize[h] = size
    for k in range(nt):
        t = tiles[k]
        x0 = (t % ntx) * TILE
        y0 = (t // ntx) * TILE
        x1 = min(W, x0 + TILE)
        y1 = min(H, y0 + TILE)
        for y in range(y0, y1):
            edge_row = y == y0 or y == y1 - 1
            for x in range(x0, x1):
                if not edge_row and x != x0 and x != x1 - 1:
                    continue
                h = hnode_of[y * W + x]
                if h < 0:
                    continue
                for j in range(ndir):
                    vx = x + _DX[j]
                    vy = y + _DY[j]
                    if 0 <= vx < W and 0 <= vy < H and not (x0 <= vx < x1 and y0 <= vy < y1):
                        hv = hnode_of[vy * W + vx]
                        if hv >= 0 and not has_link(h, hv, ehead, enext, eto):
                            link(h, hv, ehead, enext, eprev, eto, counters)
    counters[C_NBUILT] = nbuilt
    counters[C_NCLAIM] = ncl
    return nbuilt
