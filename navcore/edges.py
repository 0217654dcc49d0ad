"""Validation of user edge arrays, shared by every edge-list entry point."""
from __future__ import annotations

import numpy as np

from . import limits, validate
from .errors import CapacityError, GraphError
from .limits import MAX_NODES


def validate_edges(src, dst, cost=None, num_nodes=None):
    """Return ``(src int64, dst int64, cost float64, num_nodes)`` or raise.

    Raises ``GraphError`` naming the first offending edge for mismatched
    lengths, non-integer or negative ids, ids beyond ``num_nodes``, NaN or
    negative costs; ``CapacityError`` beyond the int32 node-id or edge
    limits, or when the graph would not fit in memory (``navcore.limits``).
    """
    src = _int_array("src", src)
    dst = _int_array("dst", dst)
    if src.shape != dst.shape:
        raise GraphError(f"src has {src.size} entries but dst has {dst.size}")
    m = src.size
    if cost is None:
        cost = np.ones(m, dtype=np.float64)
    else:
        cost = costs(cost, "cost")
        if cost.size != m:
            raise GraphError(f"cost has {cost.size} entries but there are {m} edges")
        bad = np.flatnonzero(np.isnan(cost) | (cost < 0))
        if bad.size:
            e = int(bad[0])
            raise GraphError(f"edge {e} ({src[e]} -> {dst[e]}) has cost {cost[e]}; "
                             f"costs must be >= 0 (inf closes an edge)")
        big = np.flatnonzero(np.isfinite(cost) & (cost > limits.MAX_COST))
        if big.size:
            e = int(big[0])
            raise GraphError(f"edge {e} ({src[e]} -> {dst[e]}) has cost {cost[e]:g}; "
                             f"finite costs must be at most {limits.MAX_COST:g} (a path's "
                             f"sum must stay finite; inf closes an edge)")
    for name, a in (("src", src), ("dst", dst)):
        if m and a.min() < 0:
            e = int(np.argmin(a))
            raise GraphError(f"edge {e} has negative {name} node id {a[e]}")
    top = int(max(src.max(), dst.max())) + 1 if m else 0
    if num_nodes is None:
        num_nodes = top
    else:
        if not validate.is_int(num_nodes):          # bools and timedelta64 too
            raise GraphError(f"num_nodes must be an integer, got {num_nodes!r}")
        num_nodes = int(num_nodes)
        if num_nodes < 0:
            raise GraphError(f"num_nodes must be >= 0, got {num_nodes}")
        if top > num_nodes:
            a = src if src.max() >= num_nodes else dst
            e = int(np.argmax(a >= num_nodes))
            raise GraphError(f"edge {e} ({src[e]} -> {dst[e]}) names a node beyond "
                             f"num_nodes={num_nodes}")
    limits.check_graph(num_nodes, m)
    return src, dst, cost, num_nodes


def _int_array(name, a):
    try:
        arr = np.asarray(a)
    except (TypeError, ValueError):          # ragged: [[0], [1, 2]], or ids mixed with lists
        raise GraphError(f"{name} must be a flat sequence of integer node ids, "
                         f"got {_show(a)}") from None
    if arr.size == 0:
        arr = np.empty(arr.shape, dtype=np.int64)      # [] is a float array to numpy
    elif arr.dtype == np.bool_ or not validate.int_dtype(arr.dtype):
        # whole floats are ids (1.0), checked against the id range before
        # the cast, which would wrap 1e30 around
        if np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and \
                np.all(arr == np.round(arr)):
            if arr.min() < 0:
                raise GraphError(f"{name} holds negative node id {arr.min():g}")
            if arr.max() > MAX_NODES:
                raise CapacityError(f"{name} holds node id {arr.max():g}, beyond the int32 "
                                    f"node-id limit of {MAX_NODES}")
            arr = arr.astype(np.int64)
        else:
            raise GraphError(f"{name} must be an array of integer node ids, "
                             f"got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise GraphError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size and (arr.max() > MAX_NODES):
        raise CapacityError(f"{name} holds node id {int(arr.max())}, beyond the int32 "
                            f"node-id limit of {MAX_NODES}")
    return arr.astype(np.int64, copy=False)


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def costs(values, what: str, error=GraphError) -> np.ndarray:
    """``values`` as a flat float64 array of numbers: integers or floats,
    not bools, strings or objects (numpy would turn ``True`` into 1.0 and
    ``"2"`` into 2.0), else ``error`` naming ``what``."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise error(f"{what} must be numbers: {exc}") from None
    if arr.dtype.kind not in "iuf" and not (arr.size == 0 and arr.dtype.kind in "O"):
        raise error(f"{what} must be numbers (int or float), got "
                    f"{'bools' if arr.dtype.kind == 'b' else arr.dtype}")
    try:
        return np.ascontiguousarray(arr, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError, OverflowError) as exc:
        raise error(f"{what} must be numbers: {exc}") from None
