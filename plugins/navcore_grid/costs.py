"""The grid's cell-cost rule, shared by ``array=`` and ``cost=`` updates.

It follows python-tcod (``tcod.path.SimpleGraph``) and ``pathfinding``,
the libraries game developers come from: a cell's value is its cost, and
``0`` (or ``False``) is a wall.

* ``True`` / a positive finite number: walkable at that cost (``True`` is 1);
* ``0``, ``False`` or ``inf``: a wall;
* a negative number, NaN, a finite number above ``limits.MAX_COST`` (a
  path's sum could overflow to inf) or anything that is not a real number:
  refused, naming the first such cell ``(x, y)``.

A* stays exact for every accepted map: its octile heuristic is scaled by
the cheapest cell cost (``GridGraph.cost_stats``), which is positive.
"""
from __future__ import annotations

import numbers

import numpy as np

from navcore import limits, validate

#: the rule in one line, for error messages
RULE = "a cell's cost is a number > 0; 0, False and inf are walls"


def _first_not_real(arr):
    """Flat index and value of the first cell of an object (or text)
    array that is not a real number, or ``None``."""
    for i, v in enumerate(arr.reshape(-1).tolist()):
        if not isinstance(v, numbers.Real) or isinstance(v, complex):
            return i, v
    return None


def as_costs(values, cell_of, error, what="array"):
    """``values`` (an array) as float64 costs under the rule above, walls
    as 0 or inf kept as they are; ``error`` names the first bad cell,
    ``cell_of(flat index) -> (x, y)``."""
    arr = np.asarray(values)
    if arr.dtype == np.bool_:
        return arr.astype(np.float64)
    if not validate.real_dtype(arr.dtype):
        whole = arr.dtype.kind != "O"          # text, complex, times: every cell
        bad = (0, arr.reshape(-1)[0]) if whole else _first_not_real(arr)
        if bad is not None:
            x, y = cell_of(bad[0])
            raise error(f"{what} must be bool (walkable) or numeric (cost): cell ({x}, {y}) "
                        f"is {bad[1]!r}" + (f", got dtype {arr.dtype}" if whole else "")
                        + f" ({RULE})")
    try:
        arr = arr.astype(np.float64)
    except (TypeError, ValueError, OverflowError):
        raise error(f"{what} must be bool (walkable) or numeric (cost), got dtype "
                    f"{arr.dtype} ({RULE})") from None
    bad = np.isnan(arr) | (arr < 0)
    if bad.any():
        i = int(np.flatnonzero(bad.reshape(-1))[0])
        x, y = cell_of(i)
        raise error(f"{what}: cell ({x}, {y}) has cost {arr.reshape(-1)[i]}; {RULE} "
                    f"(negative and NaN costs are refused)")
    big = np.isfinite(arr) & (arr > limits.MAX_COST)
    if big.any():
        i = int(np.flatnonzero(big.reshape(-1))[0])
        x, y = cell_of(i)
        raise error(f"{what}: cell ({x}, {y}) has cost {arr.reshape(-1)[i]:g}; finite costs "
                    f"must be at most {limits.MAX_COST:g}, so a path's sum stays finite "
                    f"(inf is a wall)")
    return arr


def walls(costs) -> np.ndarray:
    """Where ``costs`` (from ``as_costs``) are walls: 0 or inf."""
    return ~((costs > 0) & np.isfinite(costs))
