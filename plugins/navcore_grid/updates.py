"""Grid updates: rectangles, cell lists and masks; walkability or cost.

    world.update("g", rect=(x, y, w, h), walkable=False)
    world.update("g", cells=[(3, 4), (5, 6)], walkable=True)
    world.update("g", nodes=[7, 12], walkable=False)     # node ids, y * width + x
    world.update("g", mask=bool_array_h_by_w, cost=2.5)
    world.update("g", rect=(0, 0, 4, 2), cost=array_2_by_4)   # (h, w): rows, columns

``walkable=`` toggles cells and keeps their cost. ``cost=`` (a scalar or
one value per selected cell) follows ``array=``'s rule (``costs.py``): a
number > 0 is written as the cell's cost and makes the cell walkable; 0
and ``inf`` make it a wall and keep its cost (so a later ``walkable=True``
opens it at its old cost); negative and NaN are refused. A batch is applied with
"last write wins" per cell, as vectorised array work proportional to the
cells it touches, and reports as dirty the changed cells plus their eight
neighbours (whose moves into or past them changed).
"""
from __future__ import annotations

import numpy as np

from navcore import validate
from navcore.errors import UpdateError
from navcore.types import Update

from . import _kernels as K
from . import _updates as U
from .costs import as_costs, walls
from .search import dirty_mark, sync_blocked

_REGION_KEYS = ("rect", "cells", "mask", "nodes")
_VALUE_KEYS = ("walkable", "cost")
#: what the update kernel is handed for "no cells list" / "no bit lines" /
#: "no search scratch"
_NO_CELLS = np.empty(0, dtype=np.int64)
_NO_BITS = np.empty((0, 1), dtype=np.uint64)
_NO_STAMP = np.empty(0, dtype=np.int32)
#: the kernel's dirty mark for a rectangle, which does not use one
_NO_MARK = np.empty(0, dtype=np.uint8)


def make_update(graph, params) -> Update:
    gid = graph.graph_id
    if len(params) == 2 and "rect" in params and "walkable" in params:
        # the common case (a door, a block): the rectangle itself is kept,
        # and the update kernel walks it (no index array per update)
        rect = _rect(params["rect"], graph.width, graph.height)
        w = validate.boolean(params["walkable"], "walkable", UpdateError)
        return Update(gid, "walkable", {"rect": rect, "walkable": w})
    region, value = validate.one_of_each(
        params, _REGION_KEYS, _VALUE_KEYS,
        lambda unknown: f"unknown grid update parameter(s) {unknown} for graph {gid!r}; use "
                        f"one of rect=/cells=/mask=/nodes= with walkable= or cost=",
        lambda: f"a grid update takes exactly one of rect=, cells=, mask=, nodes= and exactly "
                f"one of walkable=, cost=; got {sorted(params)}")
    idx, shape = _region(graph, region, params[region])
    if value == "walkable":
        w = validate.boolean(params["walkable"], "walkable", UpdateError)
        return Update(gid, "walkable", {"idx": idx, "walkable": w})
    cost = params["cost"]
    if region == "mask" and not isinstance(cost, (int, float)) and \
            validate.array(cost, "cost", UpdateError).shape == (graph.height, graph.width):
        cost = np.asarray(cost).ravel()[idx]          # a full-grid cost array
    cost = _cost_values(cost, idx, shape, graph.width, exact=region == "rect")
    return Update(gid, "cost", {"idx": idx, "cost": cost})


def _rect(value, W, H):
    """``validate.rect``, with a plain tuple of ints inside the grid (what
    a game passes every frame) checked inline."""
    if type(value) is tuple and len(value) == 4:
        x, y, w, h = value
        if type(x) is int and type(y) is int and type(w) is int and type(h) is int \
                and x >= 0 and y >= 0 and w > 0 and h > 0 and x + w <= W and y + h <= H:
            return value
    return validate.rect(value, W, H)


def _region(graph, key, value):
    W, H = graph.width, graph.height
    if key == "rect":
        x, y, w, h = validate.rect(value, W, H)
        idx = np.arange(y * W, (y + h) * W, W, dtype=np.int64)[:, None] \
            + np.arange(x, x + w, dtype=np.int64)
        return idx.ravel(), (h, w)
    if key == "cells":
        arr = validate.array(value, "cells", UpdateError)
        if arr.size == 0:
            return np.empty(0, np.int64), (0,)
        if arr.ndim != 2 or arr.shape[1] != 2 or not validate.int_dtype(arr.dtype):
            raise UpdateError(f"cells must be a list of (x, y) integer pairs, got {value!r}")
        xs, ys = arr[:, 0].astype(np.int64), arr[:, 1].astype(np.int64)
        out = (xs < 0) | (xs >= W) | (ys < 0) | (ys >= H)
        if out.any():
            i = int(np.argmax(out))
            raise UpdateError(f"cell ({xs[i]}, {ys[i]}) is outside the {W} x {H} grid")
        return ys * W + xs, (len(xs),)
    if key == "nodes":
        ids = validate.node_ids(validate.array(value, "nodes", UpdateError).reshape(-1),
                                W * H, f"nodes of grid {graph.graph_id!r}", UpdateError,
                                np.int64)
        return ids, (ids.size,)
    mask = validate.array(value, "mask", UpdateError)
    if mask.dtype != np.bool_ or mask.shape != (H, W):
        raise UpdateError(f"mask must be a bool array of shape ({H}, {W}), got "
                          f"{mask.dtype} {mask.shape}")
    idx = np.flatnonzero(mask.ravel())
    return idx, (idx.size,)


def _cost_values(cost, idx, shape, W, exact=False):
    """The costs of the cells ``idx`` (float64, one per cell): a scalar
    for all, or an array of the region's ``shape``; with ``exact`` (a
    rectangle, ``(h, w)``) only that shape, since an array of another
    shape with as many values (the transposed ``(w, h)``) would be laid
    over the rectangle row by row, silently scrambled."""
    try:
        if np.iscomplexobj(cost):           # casting would drop the imaginary part
            raise TypeError
        arr = np.asarray(cost, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise UpdateError(f"cost must be a number or an array of numbers, got {cost!r}") \
            from None
    if arr.ndim == 0:
        arr = np.full(idx.size, float(arr))
    elif arr.shape == shape or (arr.size == idx.size and not exact):
        arr = arr.reshape(-1).copy()
    elif exact:
        h, w = shape
        raise UpdateError(f"cost has shape {arr.shape}, expected a scalar or shape {shape}: "
                          f"the rectangle's {h} row{'s' * (h != 1)} (height) by {w} "
                          f"column{'s' * (w != 1)} (width)")
    else:
        raise UpdateError(f"cost has shape {arr.shape}, expected a scalar or shape {shape}")
    return as_costs(arr, lambda i: (int(idx[i]) % W, int(idx[i]) // W), UpdateError, "cost")


def _cells(graph, p) -> np.ndarray:
    """The cells of a ``walkable=`` update (a rectangle kept as such)."""
    rect = p.get("rect")
    if rect is None:
        return p["idx"]
    x, y, w, h = rect
    W = graph.width
    return (np.arange(y * W, (y + h) * W, W, dtype=np.int64)[:, None]
            + np.arange(x, x + w, dtype=np.int64)).ravel()


def _last_wins(idx, val):
    """Per index, the value of its last occurrence."""
    rev_idx = idx[::-1]
    uniq, first = np.unique(rev_idx, return_index=True)
    return uniq, val[::-1][first]


def apply_updates(graph, batch) -> np.ndarray:
    """Apply a batch (later updates win per cell); return the dirty nodes
    (sorted, distinct)."""
    if len(batch) == 1 and batch[0].kind == "walkable":
        return _apply_walkable(graph, batch[0].params)
    w_idx, w_val, c_idx, c_val = [], [], [], []
    for upd in batch:
        p = upd.params
        if upd.kind == "walkable":
            cells = _cells(graph, p)
            w_idx.append(cells)
            w_val.append(np.full(cells.size, p["walkable"]))
        elif upd.kind == "cost":
            open_ = ~walls(p["cost"])
            w_idx.append(p["idx"])
            w_val.append(open_)
            c_idx.append(p["idx"][open_])
            c_val.append(p["cost"][open_])
        else:
            raise UpdateError(f"update kind {upd.kind!r} does not apply to grids")
    W, Wp = graph.width, graph.padded_width
    changed = []
    if w_idx:
        idx, val = _last_wins(np.concatenate(w_idx), np.concatenate(w_val))
        flip = idx[graph.walkable[idx] != val]
        if flip.size:
            newv = ~graph.walkable[flip]
            graph.walkable[flip] = newv
            pad = (flip // W + 1) * Wp + flip % W + 1
            graph.padded_free[pad] = newv
            graph._sync_bits(pad)
            sync_blocked(graph, pad)
            changed.append(flip)
    if c_idx:
        idx, val = _last_wins(np.concatenate(c_idx), np.concatenate(c_val))
        pad = (idx // W + 1) * Wp + idx % W + 1
        diff = graph.padded_cost[pad] != val
        if diff.any():
            graph.padded_cost[pad[diff]] = val[diff]
            graph._costs_changed()
            changed.append(idx[diff])
    if not changed:
        graph.version += 1
        return np.empty(0, dtype=np.int32)
    return _finish(graph, _with_neighbours(graph, np.concatenate(changed)))


def _apply_walkable(graph, p):
    """One ``walkable=`` update, the common case (a door, a block): one
    kernel call writes every array it touches and lists the dirty cells,
    instead of the batch's unique/last-wins machinery (a second write of a
    cell within one update writes the same value)."""
    rect = p.get("rect")
    if rect is None:
        idx, (x, y, w, h) = p["idx"], (0, 0, 0, 0)
        n = idx.size
        mark = dirty_mark(graph)
    else:
        idx, (x, y, w, h) = _NO_CELLS, rect
        n = w * h
        mark = _NO_MARK
    # one buffer: the dirty cells (at most 9 per changed cell) and, after
    # them, the changed cells (read while the dirty ones are written)
    buf = np.empty(10 * n, dtype=np.int32)
    bits = graph._bits
    rowbits, colbits = (_NO_BITS, _NO_BITS) if bits is None else bits
    with graph.scratch_lock:
        sets = graph.scratch_sets
        k, m = U.apply_walkable(idx, x, y, w, h, p["walkable"], graph.walkable,
                                graph.padded_free, graph.width, graph.height, rowbits,
                                colbits, sets[0].stamp if sets else _NO_STAMP, mark,
                                buf[9 * n:], buf)
        more_sets = len(sets) > 1
    if k and more_sets:              # other threads' scratch sets (workers): rare
        flip = buf[9 * n:9 * n + k].astype(np.int64)
        W, Wp = graph.width, graph.padded_width
        sync_blocked(graph, (flip // W + 1) * Wp + flip % W + 1)
    if k == 0:
        graph.version += 1
        return np.empty(0, dtype=np.int32)
    return _finish(graph, buf[:m])


def _finish(graph, dirty):
    csr = graph._built_csr()     # one read: a builder on another thread may
    if csr is not None:         # take it back (it re-reads after this batch)
        graph._refresh_csr(csr, dirty.astype(np.int64))
        csr.cost_version += 1
    graph.version += 1
    return dirty


def _with_neighbours(graph, cells):
    """``cells`` and their eight neighbours, sorted, each once (int32)."""
    mark = dirty_mark(graph)
    out = np.empty(9 * cells.size, dtype=np.int32)
    n = K.neighbourhood(np.ascontiguousarray(cells, dtype=np.int64), graph.width,
                        graph.height, mark, out)
    out = out[:n]
    out.sort()
    return out
