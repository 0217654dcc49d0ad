"""Hierarchical nodes of a lattice graph (private kernels).

A graph that describes itself as a lattice (``NavGraph.lattice()``: a grid
of cells whose components follow from ``walkable`` alone) is grouped by
tiles instead of by BFS: a hierarchical node is one connected piece of one
16 x 16 tile (so at most 256 cells, the A* Pathfinding Project's tiling). That grouping is a
function of the mask alone, which makes it cheap both ways:

* from scratch, the pieces are found by the bit-packed run-based
  union-find of ``_bands.py`` over ``_label.py`` (4-neighbours) and
  ``_label8.py`` (with diagonals), one band of 16 rows at a time; this
  module keeps the helpers they share (``band_runs``, ``band_links``,
  ``_link_new``).
  No CSR view is read (a grid does not even build one).
* an update relabels just the tiles that hold a cell whose walkability
  changed; the pieces there never fragment or drift, whatever the history.

Connectivity: 4-neighbours, or 8 with ``diag`` (a diagonal joins two
walkable cells whatever the cells beside it). A grid that forbids corner
cutting has the components of 4-connectivity and says ``diag=False``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ._base import (C_ELIVE, C_HWM, C_NBUILT, C_NCLAIM, C_NFREE, C_STAMP, TILE, Claims, Links,
                    Nodes, Removal, boundary, drop_removed, has_link, link, new_node)
from ._settle import settle

_DX = (1, -1, 0, 0, 1, -1, 1, -1)
_DY = (0, 0, 1, -1, 1, 1, -1, -1)


@njit(cache=True, nogil=True)
def band_runs(width):
    """Room for the runs of one band of ``TILE`` rows: a run needs a
    walkable cell and a wall or tile border after it (plus one slot the
    scan writes past the last run)."""
    return TILE * ((width + 1) // 2 + (width + TILE - 1) // TILE + 1) + 1


@njit(cache=True, nogil=True)
def band_links(width, diag):
    """At most this many links are made per band: one per tile column
    border and row (three with diagonals), and per cell of the band's top
    row (three with diagonals)."""
    k = 3 if diag else 1
    return k * TILE * ((width + TILE - 1) // TILE) + k * width + 16


@njit(cache=True, nogil=True)
def _link_new(a, b, ehead, enext, eprev, eto, counters):
    """Link pieces ``a`` and ``b`` unless they are linked already (or the
    same piece). Not inlined: it runs for few of the cells checked."""
    if a != b and not has_link(a, b, ehead, enext, eto):
        link(a, b, ehead, enext, eprev, eto, counters)


@njit(cache=True, nogil=True, inline="always")
def _tile_box(t, ntx, W, H):
    """The cells of tile ``t`` (``ntx`` tiles a row): ``x0 <= x < x1``,
    ``y0 <= y < y1``."""
    x0 = (t % ntx) * TILE
    y0 = (t // ntx) * TILE
    return x0, y0, min(W, x0 + TILE), min(H, y0 + TILE)


class Lattice(NamedTuple):
    """A lattice graph: its walkable cells (row-major), width, height and
    whether its moves go diagonally."""
    walk: np.ndarray
    W: int
    H: int
    diag: bool


@njit(cache=True, nogil=True)
def remove_tiles(dirty, lat, nodes, links, hmark, tmark, counters, acount, tiles, prev_area,
                 rem):
    """Remove every hierarchical node of the tiles that hold a dirty cell
    whose walkability changed (grouped, ``hnode_of >= 0``, exactly when it
    was walkable): a tile's pieces depend on its own cells alone, and the
    links of a tile left alone to a rebuilt one are made again from the
    rebuilt side. So the neighbours an update reports as dirty, and cost
    changes, cost nothing here. Each cell of those tiles keeps its old area
    in ``prev_area`` and is ungrouped. Surviving nodes next to removed ones
    go to ``bnd``. Returns ``(n_tiles, n_removed, n_boundary)``, or,
    changing nothing, ``n_tiles`` -1 when ``dirty`` is not strictly
    increasing and -2 when it leaves ``[0, W * H)`` (checked here: in
    numpy it costs a few temporaries on every update). ``lat``: a
    :class:`Lattice`; ``nodes``, ``links``, ``rem``: ``_base.Nodes``,
    ``Links``, ``Removal``."""
    walk, W, H = lat.walk, lat.W, lat.H
    hnode_of, hsize, harea = nodes.hnode_of, nodes.hsize, nodes.harea
    ehead, enext, eprev, eto = links
    removed, rarea, bnd = rem
    nd = dirty.shape[0]
    for i in range(1, nd):
        if dirty[i] <= dirty[i - 1]:
            return -1, 0, 0
    if nd and (dirty[0] < 0 or dirty[nd - 1] >= W * H):
        return -2, 0, 0
    ntx = (W + TILE - 1) // TILE
    counters[C_STAMP] += 2
    st = counters[C_STAMP] - 1        # removed (and: tile listed)
    sb = st + 1                       # boundary
    nt = 0
    row = 0                           # the row of d: one division per row, not per cell
    rs = 0
    re = 0
    for d in dirty:
        if (hnode_of[d] >= 0) == (walk[d] != 0):
            continue
        if d >= re:
            row = d // W
            rs = row * W
            re = rs + W
        t = row // TILE * ntx + (d - rs) // TILE
        # the appends here written out: with _base.add_once (inlined) a
        # lattice update took 0.055 ms, not 0.044 (median, 1000x1000)
        if tmark[t] != st:
            tmark[t] = st
            tiles[nt] = t
            nt += 1
    nrem = 0
    for k in range(nt):
        x0, y0, x1, y1 = _tile_box(tiles[k], ntx, W, H)
        for y in range(y0, y1):
            for x in range(x0, x1):
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
    nb = boundary(removed, nrem, ehead, enext, eto, hmark, st, sb, bnd)
    drop_removed(removed, nrem, hsize, harea, ehead, enext, eprev, eto, acount, rarea, counters)
    return nt, nrem, nb


@njit(cache=True, nogil=True)
def rebuild_tiles(tiles, nt, lat, nodes, links, counters, claims, stack):
    """Group the walkable cells of the removed tiles into pieces (a flood
    inside each tile), note each piece's distinct old areas as claims, and
    link the pieces to the nodes around their tiles. ``lat``: a
    :class:`Lattice`; ``nodes``, ``links``, ``claims``: ``_base.Nodes``,
    ``Links``, ``Claims``."""
    walk, W, H, diag = lat
    hnode_of, hsize, harea, hfree = nodes
    ehead, enext, eprev, eto = links
    _, built, cl_node, cl_area, aseen = claims
    prev_area = claims.prev_area
    ntx = (W + TILE - 1) // TILE
    ndir = 8 if diag else 4
    nbuilt = 0
    ncl = 0
    for k in range(nt):
        x0, y0, x1, y1 = _tile_box(tiles[k], ntx, W, H)
        tw = x1 - x0
        th = y1 - y0
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
                # the stack holds cells by their place in the tile (no
                # division by the grid's width per cell)
                stack[0] = (y - y0) * TILE + x - x0
                top = 1
                size = 0
                while top:
                    top -= 1
                    lu = stack[top]
                    uy = lu // TILE
                    ux = lu - uy * TILE
                    u = (y0 + uy) * W + x0 + ux
                    size += 1
                    pa = prev_area[u]
                    # written out: as an inlined helper shared with _generic.group
                    # this claim took a lattice update 0.044 ms, not 0.033 (median,
                    # 1000x1000): numba keeps reference counts around its branch
                    if pa >= 0 and aseen[pa] != sa:
                        aseen[pa] = sa
                        cl_node[ncl] = h
                        cl_area[ncl] = pa
                        ncl += 1
                    for j in range(ndir):
                        # the four sides written out (no look-up in the
                        # direction tables); diagonals from the tables
                        if j == 0:
                            ok = ux + 1 < tw
                            dv = 1
                            dl = 1
                        elif j == 1:
                            ok = ux > 0
                            dv = -1
                            dl = -1
                        elif j == 2:
                            ok = uy + 1 < th
                            dv = W
                            dl = TILE
                        elif j == 3:
                            ok = uy > 0
                            dv = -W
                            dl = -TILE
                        else:
                            vx = ux + _DX[j]
                            vy = uy + _DY[j]
                            ok = 0 <= vx < tw and 0 <= vy < th
                            dv = _DY[j] * W + _DX[j]
                            dl = _DY[j] * TILE + _DX[j]
                        if ok:
                            v = u + dv
                            if walk[v] and hnode_of[v] < 0:
                                hnode_of[v] = h
                                stack[top] = lu + dl
                                top += 1
                hsize[h] = size
    for k in range(nt):
        x0, y0, x1, y1 = _tile_box(tiles[k], ntx, W, H)
        for y in range(y0, y1):
            edge_row = y == y0 or y == y1 - 1
            la = -1
            lb = -1
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
                        # cells along a border mostly repeat the pair just
                        # seen: checked before walking the link list
                        if hv >= 0 and (h != la or hv != lb):
                            la = h
                            lb = hv
                            if not has_link(h, hv, ehead, enext, eto):
                                link(h, hv, ehead, enext, eprev, eto, counters)
    counters[C_NBUILT] = nbuilt
    counters[C_NCLAIM] = ncl
    return nbuilt


@njit(cache=True, nogil=True)
def update_tiles(dirty, walk, W, H, diag, hnode_of, prev_area, nodes, areas, areas64, edges,
                 claims, tmark, tiles, stack, counters, tile_ids, tile_links):
    """A whole lattice update in one call: ``remove_tiles``, then, when the
    arrays have room for ``tile_ids`` ids and ``tile_links`` links per
    tile (and the claims for every cell of them), ``rebuild_tiles`` and
    ``_settle.settle``, and the removed ids go on the free stack. One call
    instead of three, over five blocks of rows (``_base.NODE_ROWS``, ...)
    instead of 40 arrays: each argument of a call is unboxed again, which
    after a frame's other work evicted the caches is most of a small update.

    Returns ``(n_tiles, n_removed, n_boundary, n_changed)``, the changed
    area ids sorted in ``changed[:n_changed]``. ``n_tiles`` is
    -1 / -2 as ``remove_tiles`` says (nothing changed); ``n_changed`` is -1
    when the tiles were removed but there was no room to rebuild them: the
    caller grows the arrays and finishes with the two other kernels (also
    when ``tile_ids`` is negative: ``Hierarchy.warm_up`` loads them)."""
    # the rows, in the order of _base.NODE_ROWS, AREA_ROWS, AREA64_ROWS, ...
    hsize, harea, ehead = nodes[0], nodes[1], nodes[2]
    removed, rarea, bnd, built, hfree = nodes[12], nodes[13], nodes[14], nodes[15], nodes[16]
    acount, aseen, hmark = areas[0], areas64[2], areas64[3]
    eto, enext, eprev = edges[0], edges[1], edges[2]
    cl_node, cl_area = claims[0], claims[1]
    lat = Lattice(walk, W, H, diag)
    ids = Nodes(hnode_of, hsize, harea, hfree)
    links = Links(ehead, enext, eprev, eto)
    nt, nrem, nb = remove_tiles(dirty, lat, ids, links, hmark, tmark, counters, acount,
                                tiles, prev_area, Removal(removed, rarea, bnd))
    if nt < 0:
        return nt, nrem, nb, 0
    room_ids = hsize.shape[0] - counters[C_HWM] + counters[C_NFREE]
    room_links = eto.shape[0] // 2 - counters[C_ELIVE]
    if tile_ids < 0 or room_ids < tile_ids * nt or room_links < tile_links * nt or \
            cl_node.shape[0] < TILE * TILE * nt:
        return nt, nrem, nb, -1
    rebuild_tiles(tiles, nt, lat, ids, links, counters,
                  Claims(prev_area, built, cl_node, cl_area, aseen), stack)
    nch = settle(nrem, nb, nodes, areas, areas64, edges, claims, counters)
    free_removed(removed, nrem, hfree, counters)
    return nt, nrem, nb, nch


@njit(cache=True, nogil=True)
def free_removed(removed, nrem, hfree, counters):
    """Put the removed ids on the free stack (after the update that
    removed them: ids are reused only from the next update on)."""
    f = counters[C_NFREE]
    for i in range(nrem):
        hfree[f + i] = removed[i]
    counters[C_NFREE] = f + nrem
