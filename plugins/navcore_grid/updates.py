"""Grid updates: rectangles, cell lists and masks; walkability or cost.

    world.update("g", rect=(x, y, w, h), walkable=False)
    world.update("g", cells=[(3, 4), (5, 6)], walkable=True)
    world.update("g", mask=bool_array_h_by_w, cost=2.5)
    world.update("g", rect=(0, 0, 4, 4), cost=array_4_by_4)

``walkable=`` toggles cells and keeps their cost. ``cost=`` writes the
cost (a scalar or one value per selected cell) and makes the cell walkable
where it is finite, blocked where it is ``inf``. A batch is applied with
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
from .search import dirty_mark, sync_blocked

_REGION_KEYS = ("rect", "cells", "mask")
_VALUE_KEYS = ("walkable", "cost")


def make_update(graph, params) -> Update:
    gid = graph.graph_id
    unknown = set(params) - set(_REGION_KEYS) - set(_VALUE_KEYS)
    if unknown:
        raise UpdateError(f"unknown grid update parameter(s) {sorted(unknown)} for graph "
                          f"{gid!r}; use one of rect=/cells=/mask= with walkable= or cost=")
    regions = [k for k in _REGION_KEYS if k in params]
    values = [k for k in _VALUE_KEYS if k in params]
    if len(regions) != 1 or len(values) != 1:
        raise UpdateError(f"a grid update takes exactly one of rect=, cells=, mask= and "
                          f"exactly one of walkable=, cost=; got {sorted(params)}")
    idx, shape = _region(graph, regions[0], params[regions[0]])
    if values[0] == "walkable":
        w = validate.boolean(params["walkable"], "walkable", UpdateError)
        return Update(gid, "walkable", {"idx": idx, "walkable": w})
    cost = params["cost"]
    if regions[0] == "mask" and not isinstance(cost, (int, float)) and \
            validate.array(cost, "cost", UpdateError).shape == (graph.height, graph.width):
        cost = np.asarray(cost).ravel()[idx]          # a full-grid cost array
    cost = _cost_values(cost, idx, shape)
    return Update(gid, "cost", {"idx": idx, "cost": cost})


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
    mask = validate.array(value, "mask", UpdateError)
    if mask.dtype != np.bool_ or mask.shape != (H, W):
        raise UpdateError(f"mask must be a bool array of shape ({H}, {W}), got "
                          f"{mask.dtype} {mask.shape}")
    idx = np.flatnonzero(mask.ravel())
    return idx, (idx.size,)


def _cost_values(cost, idx, shape):
    try:
        if np.iscomplexobj(cost):           # casting would drop the imaginary part
            raise TypeError
        arr = np.asarray(cost, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise UpdateError(f"cost must be a number or an array of numbers, got {cost!r}") \
            from None
    if arr.ndim == 0:
        arr = np.full(idx.size, float(arr))
    elif arr.shape == shape or arr.size == idx.size:
        arr = arr.reshape(-1).copy()
    else:
        raise UpdateError(f"cost has shape {arr.shape}, expected a scalar or shape {shape}")
    if np.isnan(arr).any() or (arr < 0).any():
        raise UpdateError("cell costs must be >= 0 (inf blocks the cell), got "
                          f"{arr[np.isnan(arr) | (arr < 0)][0]}")
    return arr


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
            w_idx.append(p["idx"])
            w_val.append(np.full(p["idx"].size, p["walkable"]))
        elif upd.kind == "cost":
            finite = np.isfinite(p["cost"])
            w_idx.append(p["idx"])
            w_val.append(finite)
            c_idx.append(p["idx"][finite])
            c_val.append(p["cost"][finite])
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
            graph.sync_bits(pad)
            sync_blocked(graph, pad)
            changed.append(flip)
    if c_idx:
        idx, val = _last_wins(np.concatenate(c_idx), np.concatenate(c_val))
        pad = (idx // W + 1) * Wp + idx % W + 1
        diff = graph.padded_cost[pad] != val
        if diff.any():
            graph.padded_cost[pad[diff]] = val[diff]
            graph.costs_changed()
            changed.append(idx[diff])
    graph.epoch += 1
    if not changed:
        graph.version += 1
        return np.empty(0, dtype=np.int32)
    return _finish(graph, _with_neighbours(graph, np.concatenate(changed)))


def _apply_walkable(graph, p):
    """One ``walkable=`` update, the common case (a door, a block): one
    kernel pass instead of the batch's unique/last-wins machinery (a
    second write of a cell within one update writes the same value)."""
    idx = p["idx"]
    flipped = np.empty(idx.size, dtype=np.int64)
    k = K.set_walkable(idx, p["walkable"], graph.walkable, graph.padded_free, graph.width,
                       flipped)
    graph.epoch += 1
    if k == 0:
        graph.version += 1
        return np.empty(0, dtype=np.int32)
    flip = flipped[:k]
    W, Wp = graph.width, graph.padded_width
    pad = (flip // W + 1) * Wp + flip % W + 1
    graph.sync_bits(pad)
    sync_blocked(graph, pad)
    return _finish(graph, _with_neighbours(graph, flip))


def _finish(graph, dirty):
    if graph.csr_built:
        csr = graph.csr
        K.refresh_csr_costs(csr.offsets, csr.targets, csr.cost, graph.padded_free,
                             graph.padded_cost, graph.width, graph.diagonal_cost,
                             graph.connectivity, graph.corner_cutting, dirty.astype(np.int64))
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
