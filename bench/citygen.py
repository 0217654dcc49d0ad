"""A seeded, city-like street graph with hop weights (every edge costs 1),
the shape of PACE16's New York graph (264,346 nodes, 730,100 arcs, hop
weights), which is not shipped.

    from citygen import make_city
    net = make_city(seed=1, nodes=250_000)      # dict of numpy arrays

Shape (all seeded, no data files):

* Junctions on a jittered square lattice (``nodes`` of them), grouped into
  districts (a coarse grid of 20-40 lattice cells) whose street grids are
  turned by their own angle, so blocks meet at odd angles along district
  borders.
* Streets: the lattice's horizontal and vertical neighbour pairs, each
  dropped with probability ``drop`` (irregular, merged blocks), except a
  spanning tree of randomly weighted pairs that keeps the city connected;
  a few long diagonal avenues (Broadway-like) cut across on their own
  lattice neighbours (diagonal pairs).
* One-way streets: in ``oneway_districts`` of the districts every other
  street row and column is one-way, alternating direction (Manhattan's
  pattern); elsewhere a ``oneway`` share of streets is one-way in a random
  direction.
* Every arc weighs 1 (hop weights): there is no speed hierarchy for a
  contraction order to exploit, unlike ``roadgen`` (motorways, arterials).
  ``weight="distance"`` gives each arc its Euclidean length instead (the
  kind of weights of DIMACS distance graphs such as California's): few
  ties, so witness searches run longer than on hop weights.

How it differs from New York's DIMACS graph: no rivers or bridges (NY's
boroughs meet at few crossings, which makes good separators), uniform
density, no degree-2 shape nodes, planar.
"""
from __future__ import annotations

import numpy as np


def make_city(seed=20261129, nodes=250_000, drop=0.35, oneway=0.1, oneway_districts=0.3,
              avenues=None, district=30, weight="hop"):
    """The graph as a dict: ``src``, ``dst`` (int32 arcs, both directions of
    a two-way street), ``w`` (float64: all 1 for ``weight="hop"``; for
    ``"distance"`` the Euclidean segment length in thousandths of a lattice
    step, rounded to a whole number, at least 1, as DIMACS distance graphs
    carry integer lengths), ``x``, ``y`` (lattice coordinates of the nodes,
    for drawings and inertial flow)."""
    if weight not in ("hop", "distance"):
        raise ValueError(f"weight must be 'hop' or 'distance', got {weight!r}")
    rng = np.random.default_rng(seed)
    side = int(np.ceil(np.sqrt(nodes)))
    rows = -(-nodes // side)
    n = nodes
    ids = np.arange(n)
    r, c = ids // side, ids % side
    # districts: their own grid angle and one-way pattern
    dr, dc = r // district, c // district
    ndc = -(-side // district)
    did = dr * ndc + dc
    nd = int(did.max()) + 1
    angle = rng.uniform(-0.35, 0.35, nd)
    manhattan = rng.random(nd) < oneway_districts
    cx = (dc + 0.5) * district
    cy = (dr + 0.5) * district
    ca, sa = np.cos(angle[did]), np.sin(angle[did])
    ux, uy = c - cx, r - cy
    x = cx + ca * ux - sa * uy + rng.uniform(-0.3, 0.3, n)
    y = cy + sa * ux + ca * uy + rng.uniform(-0.3, 0.3, n)

    # lattice pairs: right and down neighbours (the last row may be short)
    right = ids[(c + 1 < side) & (ids + 1 < n)]
    down = ids[ids + side < n]
    a = np.concatenate((right, down))
    b = np.concatenate((right + 1, down + side))
    horiz = np.concatenate((np.ones(right.size, bool), np.zeros(down.size, bool)))
    # long diagonal avenues on diagonal neighbour pairs
    k = max(2, rows // 150) if avenues is None else avenues
    da, db = [], []
    for _ in range(k):
        r0 = int(rng.integers(0, rows))
        step = 1 if rng.random() < 0.5 else -1
        rr = r0 + step * np.arange(side)
        cc = np.arange(side)
        ok = (rr >= 0) & (rr < rows)
        nid = rr[ok] * side + cc[ok]
        nid = nid[nid < n]
        if nid.size > 1:
            da.append(nid[:-1])
            db.append(nid[1:])
    if da:
        da, db = np.concatenate(da), np.concatenate(db)
        keep = np.abs(da // side - db // side) == 1       # consecutive rows only
        da, db = da[keep], db[keep]
        a = np.concatenate((a, da))
        b = np.concatenate((b, db))
        horiz = np.concatenate((horiz, np.zeros(da.size, bool)))
        diag = np.concatenate((np.zeros(a.size - da.size, bool), np.ones(da.size, bool)))
    else:
        diag = np.zeros(a.size, bool)

    # a random spanning tree stays; other pairs drop with probability `drop`
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import minimum_spanning_tree
    key = rng.random(a.size) + 0.01
    tree = minimum_spanning_tree(coo_matrix((key, (a, b)), shape=(n, n)).tocsr()).tocoo()
    in_tree = np.zeros(a.size, bool)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    code = lo.astype(np.int64) * n + hi
    order = np.argsort(code)
    tcode = np.minimum(tree.row, tree.col).astype(np.int64) * n + np.maximum(tree.row,
                                                                              tree.col)
    hit = np.searchsorted(code[order], tcode)
    in_tree[order[hit]] = True
    keep = in_tree | diag | (rng.random(a.size) >= drop)
    a, b, horiz, diag = a[keep], b[keep], horiz[keep], diag[keep]

    # one-way: Manhattan districts alternate by street row/column; elsewhere random
    man = manhattan[did[a]] & ~diag
    line = np.where(horiz, r[a], c[a])
    fwd_man = (line % 4) == 0                 # one-way eastbound/southbound
    bwd_man = (line % 4) == 2                 # one-way the other way
    rnd = ~man & (rng.random(a.size) < oneway)
    rnd_dir = rng.random(a.size) < 0.5
    one_fwd = (man & fwd_man) | (rnd & rnd_dir)
    one_bwd = (man & bwd_man) | (rnd & ~rnd_dir)
    two = ~(one_fwd | one_bwd)
    src = np.concatenate((a[two | one_fwd], b[two | one_bwd]))
    dst = np.concatenate((b[two | one_fwd], a[two | one_bwd]))
    o = np.lexsort((dst, src))
    src, dst = src[o].astype(np.int32), dst[o].astype(np.int32)
    if weight == "hop":
        w = np.ones(src.size)
    else:
        w = np.maximum(np.rint(1000.0 * np.hypot(x[src] - x[dst], y[src] - y[dst])), 1.0)
    return {"src": src, "dst": dst, "w": w, "x": x, "y": y}


def make_chains(seed=20261129, nodes=21_000, junctions=None, keep=0.3):
    """A sparse two-way network of long chains with distance weights, the
    shape of the hold-out California graph (21,048 nodes, 21,693 roads:
    highways drawn with their shape points, 1.03 roads a node), which is
    not shipped: ``junctions`` random points (default ``nodes // 11``)
    joined by a minimum spanning tree of their Delaunay triangulation and a
    ``keep`` share of its other edges, every road cut into pieces about as
    long as one another so that ``nodes`` nodes result (shape nodes of
    degree 2, jittered off the straight line). Weights: Euclidean lengths
    in thousandths of the mean piece, rounded, at least 1. Same dict as
    :func:`make_city`."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import minimum_spanning_tree
    from scipy.spatial import Delaunay
    rng = np.random.default_rng(seed)
    j = junctions or max(nodes // 11, 4)
    pts = rng.random((j, 2)) * np.sqrt(j)
    tri = Delaunay(pts).simplices
    e = np.concatenate((tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [0, 2]]))
    e = np.unique(np.sort(e, axis=1), axis=0)
    length = np.hypot(*(pts[e[:, 0]] - pts[e[:, 1]]).T)
    tree = minimum_spanning_tree(coo_matrix((length, (e[:, 0], e[:, 1])), shape=(j, j)))
    tree = tree.tocoo()
    in_tree = np.zeros(j * j, bool)
    in_tree[np.minimum(tree.row, tree.col) * j + np.maximum(tree.row, tree.col)] = True
    sel = in_tree[e[:, 0] * j + e[:, 1]] | (rng.random(e.shape[0]) < keep)
    e, length = e[sel], length[sel]
    # pieces per road in proportion to its length, so the nodes add up
    extra = nodes - j
    share = length / length.sum() * extra
    cuts = np.floor(share).astype(np.int64)
    rest = extra - cuts.sum()
    cuts[np.argsort(share - cuts)[::-1][:rest]] += 1
    xs, ys = [pts[:, 0]], [pts[:, 1]]
    a, b = [], []
    nxt = j
    for (u, v), k in zip(e, cuts):
        t = (np.arange(1, k + 1) / (k + 1))[:, None]
        p = pts[u] + t * (pts[v] - pts[u]) + rng.normal(0, 0.02, (k, 2))
        xs.append(p[:, 0])
        ys.append(p[:, 1])
        chain = np.concatenate(([u], np.arange(nxt, nxt + k), [v]))
        a.append(chain[:-1])
        b.append(chain[1:])
        nxt += k
    x, y = np.concatenate(xs), np.concatenate(ys)
    a, b = np.concatenate(a), np.concatenate(b)
    src = np.concatenate((a, b)).astype(np.int32)
    dst = np.concatenate((b, a)).astype(np.int32)
    o = np.lexsort((dst, src))
    src, dst = src[o], dst[o]
    seg = np.hypot(x[src] - x[dst], y[src] - y[dst])
    w = np.maximum(np.rint(1000.0 * seg / seg.mean()), 1.0)
    return {"src": src, "dst": dst, "w": w, "x": x, "y": y}

if __name__ == "__main__":
    import sys
    import time
    nn = int(sys.argv[1]) if len(sys.argv) > 1 else 250_000
    t = time.perf_counter()
    g = make_city(nodes=nn)
    print(f"{nn} nodes, {g['src'].size} arcs ({g['src'].size / nn:.2f} per node) in "
          f"{time.perf_counter() - t:.2f} s")
