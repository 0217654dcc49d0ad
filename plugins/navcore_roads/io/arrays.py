"""Road networks given as numpy arrays (``type: roads`` with ``src=``,
``dst=``, ...): a user's own data, a game's generated map, a benchmark.

>>> seg = segments_from_arrays(src=[0, 1], dst=[1, 2], length=[100.0, 50.0],
...                            speed=[36.0, 18.0], oneway=[True, False])
>>> seg.src.tolist(), seg.dst.tolist(), (seg.length / (seg.speed / 3.6)).tolist()
([0, 1, 2], [1, 2, 1], [10.0, 10.0, 10.0])
"""
from __future__ import annotations

import numpy as np

from navcore import limits, validate
from navcore.edges import validate_edges
from navcore.errors import GraphError

from ..segments import Segments, haversine_m


def segments_from_arrays(*, src, dst, length=None, speed=None, cost=None, positions=None,
                         oneway=True, way=None, num_nodes=None, turns=None) -> Segments:
    """``Segments`` of edge arrays. ``length`` is metres (great-circle
    from ``positions``, (lon, lat) degrees, when not given); an edge's cost
    is ``cost`` when given, else its time at ``speed`` km/h (or its length
    with ``weight="distance"``). ``oneway`` (one bool, or one per edge):
    False adds the edge back the other way at the same cost. ``way``:
    int64 ids that ``World.update(..., osm_way=)`` can select by.
    ``turns``: a table of turn rules between the edges
    (``restrictions.table_turns``)."""
    src, dst, cost_arr, n = validate_edges(src, dst, cost, num_nodes)
    m = src.size
    lon = lat = None
    if positions is not None:
        pos = validate.array(positions, "positions (lon, lat)", GraphError, np.float64)
        if pos.ndim != 2 or pos.shape[1] != 2:
            raise GraphError(f"positions must have shape (N, 2) of (lon, lat), got {pos.shape}")
        if pos.shape[0] < n:
            raise GraphError(f"positions has {pos.shape[0]} rows, the edges name {n} nodes")
        n = pos.shape[0]
        bad = ~(np.isfinite(pos).all(axis=1) & (np.abs(pos[:, 0]) <= 180)
                & (np.abs(pos[:, 1]) <= 90))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise GraphError(f"positions[{i}] = {pos[i].tolist()} is not a (lon, lat) "
                             f"in degrees")
        lon, lat = pos[:, 0].copy(), pos[:, 1].copy()
    if length is None:
        if lon is None:
            raise GraphError("roads from arrays need length= (metres) or positions= "
                             "(lon, lat) to measure them")
        length = haversine_m(lon[src], lat[src], lon[dst], lat[dst])
    else:
        length = _per_edge(length, m, "length", positive=False)
    if cost is None:
        if speed is None:
            raise GraphError("roads from arrays need speed= (km/h) or cost= per edge")
        speed = _per_edge(speed, m, "speed", positive=True)
        cost_arr = None
    else:
        speed = np.full(m, np.nan) if speed is None else _per_edge(speed, m, "speed", True)
        if np.isinf(cost_arr).any():
            e = int(np.flatnonzero(np.isinf(cost_arr))[0])
            raise GraphError(f"cost[{e}] is inf; close roads with World.update(..., "
                             f"cost=inf) instead")
    ways = np.full(m, -1, np.int64) if way is None else _ways(way, m)
    back = ~_oneway(oneway, m)
    if lon is None:
        lon = np.full(n, np.nan)
        lat = np.full(n, np.nan)

    def both(a, b):
        return np.concatenate((a, b[back]))
    segments = Segments(node_id=np.arange(n, dtype=np.int64), lon=lon, lat=lat,
                    src=both(src, dst).astype(np.int32), dst=both(dst, src).astype(np.int32),
                    length=both(length, length), speed=both(speed, speed),
                    way=both(ways, ways), highway=np.zeros(m + int(back.sum()), np.uint8),
                    cost=None if cost_arr is None else both(cost_arr, cost_arr))
    if turns is None:
        return segments
    from .restrictions import table_turns
    return table_turns(segments, turns, m, back)


def _per_edge(values, m, name, positive):
    kind = "b" if isinstance(values, (bool, np.bool_)) else validate.array(values, name).dtype.kind
    if kind not in "iuf":            # numpy would read True as 1.0 and "10" as 10.0
        raise GraphError(f"{name} must be numbers, got "
                         f"{'booleans' if kind == 'b' else 'strings' if kind in 'SU' else 'other values'}")
    arr = validate.array(values, name, GraphError, np.float64)
    if arr.ndim == 0:
        arr = np.full(m, float(arr))
    if arr.shape != (m,):
        raise GraphError(f"{name} has shape {arr.shape}, expected one value per edge ({m})")
    bad = ~np.isfinite(arr) | ((arr <= 0) if positive else (arr < 0)) | \
        (arr > limits.MAX_COST)
    if bad.any():
        e = int(np.flatnonzero(bad)[0])
        want = "> 0" if positive else ">= 0"
        raise GraphError(f"{name}[{e}] = {arr[e]} must be finite, {want} and at most "
                         f"{limits.MAX_COST:g}")
    return arr


def _oneway(oneway, m):
    arr = validate.array(oneway, "oneway")
    if arr.dtype != np.bool_:
        raise GraphError(f"oneway must be True/False or one bool per edge, got {oneway!r}")
    if arr.ndim == 0:
        return np.full(m, bool(arr))
    if arr.shape != (m,):
        raise GraphError(f"oneway has shape {arr.shape}, expected ({m},)")
    return arr


def _ways(way, m):
    arr = validate.array(way, "way")
    if arr.shape != (m,) or not validate.int_dtype(arr.dtype):
        raise GraphError(f"way must be one integer id per edge ({m}), got shape "
                         f"{arr.shape} dtype {arr.dtype}")
    return arr.astype(np.int64)
