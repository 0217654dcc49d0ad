"""Seeded road-like directed graphs for tests and timings.

Jittered grid points joined to their nearest neighbours (a sparse, nearly
planar mesh like a street network), road classes along grid lines
(residential, an arterial every 8th line, a through road every 32nd), some
streets one-way, and a sparse net of long fast links between far-apart
points. Weights are travel times in seconds.
"""
from __future__ import annotations

import numpy as np


def roadlike(n: int, seed: int = 0, *, oneway: float = 0.15, links: float = 0.01):
    """``(offsets, targets, weights, lon, lat)`` of a road-like graph with
    about ``n`` nodes (CSR sorted by source; int64, int32, float64)."""
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(seed)
    side = int(np.ceil(np.sqrt(n)))
    gx, gy = np.meshgrid(np.arange(side), np.arange(side))
    pts = np.column_stack([gx.ravel(), gy.ravel()])[:n].astype(np.float64)
    pts += rng.uniform(-0.35, 0.35, pts.shape)
    pts *= 100.0                                     # metres
    tree = cKDTree(pts)
    _, nn = tree.query(pts, k=4)                     # self + 3 nearest
    a = np.repeat(np.arange(n), 3)
    b = nn[:, 1:].ravel()
    keep = rng.random(a.shape[0]) < 0.8              # not every neighbour is a street
    a, b = a[keep], b[keep]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    pair = np.unique(lo.astype(np.int64) * n + hi)
    a, b = (pair // n).astype(np.int64), (pair % n).astype(np.int64)
    # long fast links: a point to one ~10-40 blocks away
    k = int(links * n)
    la = rng.integers(0, n, k)
    target = pts[la] + rng.uniform(-4000, 4000, (k, 2))
    _, lb = tree.query(target)
    a = np.concatenate([a, la])
    b = np.concatenate([b, lb])
    ok = a != b
    a, b = a[ok], b[ok]
    length = np.hypot(*(pts[a] - pts[b]).T)
    # road classes along lines, as in a city: every 8th row and column an
    # arterial, every 32nd a through road; the rest residential or collector
    row, col = a // side, a % side
    brow, bcol = b // side, b % side
    line = np.where(row == brow, row, np.where(col == bcol, col, -1))
    speed = rng.choice([30.0, 50.0], a.shape[0], p=[0.8, 0.2])
    speed = np.where((line >= 0) & (line % 8 == 0), 60.0, speed)
    speed = np.where((line >= 0) & (line % 32 == 0), 90.0, speed)
    if k:
        speed[-int(ok[-k:].sum()):] = 110.0             # the long links
    time_s = length / (speed / 3.6)
    # both directions unless one-way (then a random one of the two)
    one = rng.random(a.shape[0]) < oneway
    flip = rng.random(a.shape[0]) < 0.5
    fa = np.where(one & flip, b, a)
    fb = np.where(one & flip, a, b)
    src = np.concatenate([fa, fb[~one]])
    dst = np.concatenate([fb, fa[~one]])
    w = np.concatenate([time_s, time_s[~one]])
    order = np.argsort(src, kind="stable")
    src, dst, w = src[order], dst[order], w[order]
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.add.at(offsets, src + 1, 1)
    offsets = np.cumsum(offsets)
    return offsets, dst.astype(np.int32), w, pts[:, 0].copy(), pts[:, 1].copy()
