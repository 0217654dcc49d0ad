"""Perfect mazes: the minimum spanning tree of a grid graph
whose edges got random weights (Kruskal's algorithm).

Sorting edges by independent random weights is the same as visiting them
in a random permutation, so the kernel walks a seeded permutation and
keeps every edge that joins two trees (union-find with path halving).
Same ``seed``, same maze, on every machine: numpy's ``default_rng``.

>>> from navcore_grid.maze import maze_edges, maze_cells
>>> src, dst = maze_edges(4, 3, seed=7)
>>> len(src)              # a spanning tree of 12 cells has 11 edges
11
>>> grid = maze_cells(4, 3, seed=7)
>>> grid.shape, int(grid.sum())    # 12 rooms + 11 openings
((7, 9), 23)
"""
from __future__ import annotations

import numpy as np
from numba import njit

from navcore import limits, validate
from navcore.errors import GraphError

#: a maze larger than this many rooms per side is almost certainly a typo
MAX_SIDE = limits.MAX_MAZE_SIDE
#: ...and so is one of more rooms than this (4096 x 4096 rooms: a grid of
#: 67 M cells, several GB with its search memory, areas and CSR view)
MAX_ROOMS = limits.MAX_MAZE_ROOMS


@njit(cache=True, nogil=True)
def _kruskal(width, height, order, keep):
    """Mark in ``keep`` the edges (in ``order``) that join two trees.

    Edge ``e < (width-1)*height`` joins cell ``e' = (e // (width-1)) *
    width + e % (width-1)`` with its right neighbour; the rest join a cell
    with the one below.
    """
    n = width * height
    parent = np.arange(n)
    nh = (width - 1) * height
    kept = 0
    for k in range(order.shape[0]):
        e = order[k]
        if e < nh:
            a = (e // (width - 1)) * width + e % (width - 1)
            b = a + 1
        else:
            a = e - nh
            b = a + width
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            parent[a] = b
            keep[e] = True
            kept += 1
            if kept == n - 1:
                break


def _check(width, height, seed):
    for name, v in (("width", width), ("height", height)):
        if not validate.is_int(v) or not 1 <= v <= MAX_SIDE:
            raise GraphError(f"maze {name} must be an integer in 1..{MAX_SIDE}, got {v!r}")
    if width * height > MAX_ROOMS:
        raise GraphError(f"a maze of {width} x {height} rooms is too large: at most "
                         f"{MAX_ROOMS} rooms (4096 x 4096)")
    if seed is not None and (not validate.is_int(seed) or seed < 0):
        raise GraphError(f"maze seed must be a non-negative integer, got {seed!r}")


def maze_edges(width: int, height: int, seed: int | None = None):
    """The maze as a graph: ``(src, dst)`` int64 arrays of the spanning
    tree's edges over cells ``y * width + x``."""
    _check(width, height, seed)
    w, h = int(width), int(height)
    nh = (w - 1) * h
    ne = nh + w * (h - 1)
    order = np.random.default_rng(seed).permutation(ne)
    keep = np.zeros(ne, dtype=np.bool_)
    _kruskal(w, h, order, keep)
    e = np.flatnonzero(keep)
    horizontal = e < nh
    src = np.where(horizontal, (e // max(w - 1, 1)) * w + e % max(w - 1, 1), e - nh)
    dst = np.where(horizontal, src + 1, src + w)
    return src.astype(np.int64), dst.astype(np.int64)


def maze_cells(width: int, height: int, seed: int | None = None) -> np.ndarray:
    """The maze drawn as a walkable grid of shape ``(2*height+1, 2*width+1)``:
    room ``(x, y)`` is cell ``(2x+1, 2y+1)``, walls fill the rest and every
    tree edge opens the wall cell between its two rooms."""
    src, dst = maze_edges(width, height, seed)
    w = int(width)
    grid = np.zeros((2 * int(height) + 1, 2 * w + 1), dtype=np.bool_)
    grid[1::2, 1::2] = True
    sx, sy = src % w, src // w
    dx, dy = dst % w, dst // w
    grid[sy + dy + 1, sx + dx + 1] = True   # the wall cell between the rooms
    return grid
