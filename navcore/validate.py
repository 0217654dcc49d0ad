"""Checks at the boundary: node ids, points, rectangles, flags and options.

Every public call and every plugin validates its input with these, so a
mistake reads the same wherever it is made: the message names the
argument, the value and what was expected. Each check raises the
``NavError`` subclass its caller passes (``NodeError`` by default for
nodes, the caller's own for the rest) and returns the value normalised.

>>> from navcore import validate
>>> validate.node_id(3, 10, "start")
3
>>> validate.node_id(12, 10, "start")
Traceback (most recent call last):
navcore.errors.NodeError: start node 12 is out of range for a graph of 10 nodes (0..9)
>>> validate.rect((1, 2, 3, 1), 8, 4)
(1, 2, 3, 1)
>>> validate.choice("jsp", ("astar", "jps"), "algorithm")
Traceback (most recent call last):
navcore.errors.QueryError: unknown algorithm 'jsp' (did you mean 'jps'?); choose one of: astar, jps
"""
from __future__ import annotations

import difflib
import math
import numbers
import os
from pathlib import Path

import numpy as np

from .errors import CapacityError, FrameError, GraphError, NodeError, QueryError, UpdateError


def is_int(value) -> bool:
    """A true integer (Python or numpy), not a bool nor a ``timedelta64``
    (which numpy makes a subclass of its signed integers)."""
    return (type(value) is int or isinstance(value, (numbers.Integral, np.integer))) \
        and not isinstance(value, (bool, np.bool_, np.timedelta64))


def int_dtype(dtype) -> bool:
    """Whether ``dtype`` holds integers: signed or unsigned, not bool and
    not ``timedelta64`` (which ``np.issubdtype(.., np.integer)`` admits)."""
    return np.dtype(dtype).kind in "iu"


def real_dtype(dtype) -> bool:
    """Whether ``dtype`` holds real numbers: integers or floats (not bool,
    complex, ``timedelta64``)."""
    return np.dtype(dtype).kind in "iuf"


def node_id(value, num_nodes: int, what: str | None = None, error=NodeError) -> int:
    """``value`` as an int node id in ``0..num_nodes-1``; ``what`` names
    its role in messages (``"start"``)."""
    if not is_int(value):
        raise error(f"{what or 'node'} must be an integer node id, got {value!r}")
    node = int(value)
    if not 0 <= node < num_nodes:
        label = f"{what} node" if what else "node id"
        raise error(f"{label} {node} is out of range for a graph of {num_nodes} nodes"
                    + (f" (0..{num_nodes - 1})" if num_nodes else ""))
    return node


def node_ids(values, num_nodes: int, what: str = "nodes", error=NodeError,
             dtype=np.int32) -> np.ndarray:
    """A 1-d array of integer node ids in range, as ``dtype``."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError, OverflowError):     # ragged, or not numbers at all
        raise error(f"{what} must be a 1-d sequence of integer node ids, got "
                    f"{describe(values)}") from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1 or not (arr.size == 0 or int_dtype(arr.dtype)):
        raise error(f"{what} must be a 1-d sequence of integer node ids, got {values!r}")
    if arr.size and (arr.min() < 0 or arr.max() >= num_nodes):
        i = int(np.flatnonzero((arr < 0) | (arr >= num_nodes))[0])
        raise error(f"{what} holds node id {int(arr[i])} (index {i}), out of range for "
                    f"a graph of {num_nodes} nodes")
    return arr.astype(dtype, copy=False)


def _numbers(value):
    """``value``, or ``TypeError`` when numpy would take it for numbers by
    dropping something: complex values (their imaginary part), text
    (``"1.5"`` parsed), times (``timedelta64`` read as counts), booleans."""
    arr = value if isinstance(value, np.ndarray) else np.asarray(value)
    if arr.dtype.kind in "bcmMSU":
        raise TypeError(f"not numbers: {arr.dtype}")
    return arr


def point(value, dims: int = 2, what: str = "a point", error=NodeError) -> np.ndarray:
    """A finite float64 point of ``dims`` coordinates (a 2-d point is
    accepted where 3 are expected, at height 0)."""
    try:
        p = np.asarray(_numbers(value), dtype=np.float64)
    except OverflowError:
        raise error(f"{what} {value!r} has a coordinate too large for a float") from None
    except (TypeError, ValueError):
        raise error(f"expected {what} of {dims} numbers, got {value!r}") from None
    if p.shape != (dims,) and not (dims == 3 and p.shape == (2,)):
        raise error(f"expected {what} of {dims} numbers, got {value!r}")
    if not np.isfinite(p).all():
        raise error(f"{what} {value!r} is not finite")
    return np.append(p, 0.0) if p.shape[0] < dims else p


def points(value, what: str = "points", error=NodeError) -> np.ndarray:
    """float64 ``(k, 2)`` finite points; the first row that is not finite
    is named (``what[i]``).

    >>> points([(1, 2), (3, 4.5)]).tolist()
    [[1.0, 2.0], [3.0, 4.5]]
    """
    try:
        p = np.asarray(_numbers(value), dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise error(f"{what} must be (k, 2) points, got {value!r}") from None
    if p.ndim != 2 or p.shape[1] != 2:
        raise error(f"{what} must be (k, 2) points, got shape {p.shape}")
    # one reduction over all the numbers first: per row (axis=1) costs 20x more
    if not np.isfinite(p).all():
        i = int(np.flatnonzero(~np.isfinite(p).all(axis=1))[0])
        raise error(f"{what}[{i}] = {p[i].tolist()} is not finite")
    return p


def xy(value, what: str = "a point", error=NodeError) -> tuple[float, float]:
    """A finite 2-d point as two Python floats. Plain tuples and lists of
    numbers take a fast path (no array made): queries call this per end.

    >>> xy((1, 2.5))
    (1.0, 2.5)
    """
    if type(value) in (tuple, list) and len(value) == 2:
        x, y = value
        if type(x) is float and type(y) is float or \
                type(x) in (float, int) and type(y) in (float, int) \
                and -2 ** 53 <= x <= 2 ** 53 and -2 ** 53 <= y <= 2 ** 53:   # (10**400: no float)
            x, y = float(x), float(y)
            if math.isfinite(x) and math.isfinite(y):
                return x, y
    p = point(value, 2, what, error)
    return float(p[0]), float(p[1])


def rect(value, width: int, height: int, what: str = "rect",
         error=UpdateError) -> tuple:
    """``(x, y, w, h)`` integers with a positive size, inside a
    ``width`` x ``height`` grid."""
    try:
        items = list(value)
        if len(items) != 4 or not all(
                is_int(v) or (isinstance(v, (float, np.floating)) and float(v).is_integer())
                for v in items):
            raise TypeError
        x, y, w, h = (int(v) for v in items)
    except (TypeError, ValueError, OverflowError):
        raise error(f"{what} must be (x, y, width, height) integers, got {value!r}") \
            from None
    if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > width or y + h > height:
        raise error(f"{what} {value!r} does not lie inside the {width} x {height} grid "
                    f"(x in 0..{width - 1}, y in 0..{height - 1}, positive size)")
    return x, y, w, h


def array(value, what: str, error=GraphError, dtype=None) -> np.ndarray:
    """``np.asarray(value, dtype)``, or ``error`` naming ``what`` where
    numpy would raise its own: ragged rows, text where numbers go, an int
    too large for a float.

    >>> array([[1], [2, 3]], "way")
    Traceback (most recent call last):
    navcore.errors.GraphError: way must be an array (equal-length rows), got [[1], [2, 3]]
    """
    try:
        return np.asarray(value if dtype is None else _numbers(value), dtype=dtype)
    except (TypeError, ValueError, OverflowError):
        kind = "of numbers" if dtype is not None else "(equal-length rows)"
        text = repr(value)
        raise error(f"{what} must be an array {kind}, got "
                    f"{text if len(text) <= 80 else text[:77] + '...'}") from None


def file_path(value, what: str, error=GraphError) -> Path:
    """``value`` (a ``str`` or ``os.PathLike``) as a ``Path``; a NUL
    character, which no file name can hold and ``open`` would refuse with
    a bare ``ValueError``, is the caller's ``error`` here.

    >>> file_path("maps/a.map", "map")
    PosixPath('maps/a.map')
    >>> file_path("a\\x00.map", "map")
    Traceback (most recent call last):
    navcore.errors.GraphError: map 'a\\x00.map' is not a file path: it holds a NUL character
    """
    if not isinstance(value, (str, os.PathLike)):
        raise error(f"{what} must be a file path, got {value!r}")
    text = os.fspath(value)
    if "\0" in (text if isinstance(text, str) else text.decode("latin-1")):
        raise error(f"{what} {value!r} is not a file path: it holds a NUL character")
    return Path(text if isinstance(text, str) else os.fsdecode(text))


def describe(value) -> str:
    """How a plain value (as YAML or JSON reads it: None, bools, numbers,
    strings, lists, mappings) reads in an error message: ``true``,
    ``nothing (null)``, ``[1, 1, 0, 1]``, ``a mapping``, ``a list of 12``."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        flat = "[" + ", ".join(describe(v) if not isinstance(v, str) else repr(v)
                               for v in value) + "]"
        return flat if len(flat) <= 40 else f"a list of {len(value)}"
    if isinstance(value, int) and abs(value) >= 10 ** 40:    # 10**400 in a message
        return f"an integer of {len(str(abs(value)))} digits"
    if isinstance(value, str) and len(value) > 80:          # a whole file read as one string
        return f"{value[:40]!r}... (a string of {len(value)} characters)"
    return repr(value)


def short(value, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters, for a message."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def progress_callback(value, what: str, error=FrameError):
    """``value`` when it is None or a ``callback(done, total, name)`` (a
    loading screen's report)."""
    if value is not None and not callable(value):
        raise error(f"{what} must be None or a callable(done, total, name), got {value!r}")
    return value


def distance(value, what: str, error=GraphError) -> float:
    """``value`` as a finite float >= 0: an int or float (numpy's too),
    not a bool or a numeric string (``float(True)`` is 1.0, ``float("2")``
    2.0: a mistake read as a number).

    >>> distance(0.5, "agent_radius")
    0.5
    >>> distance(True, "agent_radius")
    Traceback (most recent call last):
    navcore.errors.GraphError: agent_radius must be a finite number >= 0, got True
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating)):
        raise error(f"{what} must be a finite number >= 0, got {value!r}")
    try:
        d = float(value)
    except OverflowError:
        raise error(f"{what} must be a finite number >= 0, got {value!r}") from None
    if not 0 <= d < math.inf:
        raise error(f"{what} must be a finite number >= 0, got {value!r}")
    return d


def boolean(value, what: str, error=GraphError) -> bool:
    """``True`` or ``False`` only: ``"no"``, 0 or None are mistakes, not
    falsy values."""
    if not isinstance(value, (bool, np.bool_)):
        raise error(f"{what} must be True or False, got {value!r}")
    return bool(value)


def one_of_each(params, selections, actions, unknown, wrong, error=UpdateError):
    """``(selection, action)``: the one key of ``params`` (an update's
    keyword arguments) among ``selections`` and the one among ``actions``.
    ``error(unknown(keys))`` for keys in neither (sorted), ``error(wrong())``
    unless exactly one of each is given (messages made only then)."""
    extra = sorted(set(params).difference(selections, actions))
    if extra:
        raise error(unknown(extra))
    chosen = [k for k in selections if k in params]
    acts = [k for k in actions if k in params]
    if len(chosen) != 1 or len(acts) != 1:
        raise error(wrong())
    return chosen[0], acts[0]


def obstacle_id(params: dict):
    """The ``obstacle_id=`` of an ``add_obstacle=`` update's ``params``
    (which must hold exactly those two keys): any hashable but None;
    ``UpdateError`` otherwise. Shared by the backends with run-time
    obstacles (2D navmeshes, 3D levels)."""
    if set(params) != {"add_obstacle", "obstacle_id"}:
        raise UpdateError(f"add_obstacle= takes exactly obstacle_id= with it, got "
                          f"{sorted(params)}")
    oid = params["obstacle_id"]
    try:
        hash(oid)
    except TypeError:
        raise UpdateError(f"obstacle_id must be hashable (a str or int), got "
                          f"{describe(oid)}") from None
    if oid is None:
        raise UpdateError("obstacle_id must not be None")
    return oid


def choice(value, choices, what: str, error=QueryError, where: str = ""):
    """``value`` if it is one of ``choices``; else an error listing them,
    with the closest one as a suggestion (``where`` follows the value)."""
    try:
        if value in choices:
            return value
    except (TypeError, ValueError):   # unhashable, or an array's ambiguous ==
        pass
    hint = difflib.get_close_matches(value, [str(c) for c in choices], n=1) \
        if isinstance(value, str) else []
    raise error(f"unknown {what} {value!r}{where}"
                + (f" (did you mean {hint[0]!r}?)" if hint else "")
                + f"; choose one of: {', '.join(str(c) for c in choices)}")


def query_options(answers) -> dict:
    """The ``navcore_query_options`` answers of every plugin for one graph,
    merged: ``{option: allowed values (a tuple) or None}``. A plugin
    answers a dict (an option's allowed values, or ``None`` when the plugin
    checks the value itself), a list of names (any value) or ``None`` (it
    reads none on this graph). Where plugins disagree, the values either
    allows are allowed, and ``None`` (any) wins."""
    merged: dict = {}
    for answer in answers:
        if not answer:
            continue
        pairs = answer.items() if isinstance(answer, dict) else ((n, None) for n in answer)
        for name, allowed in pairs:
            allowed = None if allowed is None else tuple(allowed)
            if name in merged:
                old = merged[name]
                allowed = None if old is None or allowed is None else \
                    old + tuple(v for v in allowed if v not in old)
            merged[name] = allowed
    return merged


def query_option_values(options: dict, declared: dict, where: str) -> None:
    """``QueryError`` unless every key of ``options`` is a ``declared``
    option (``query_options``) and its value one of the allowed ones;
    ``where`` names the graph (``"grid graph 'g'"``).

    >>> query_option_values({"heuristic": "zero"}, {"heuristic": ("zero",)}, "csr graph 'c'")
    >>> query_option_values({"smooth": 1}, {}, "grid graph 'g'")
    Traceback (most recent call last):
    navcore.errors.QueryError: unknown find_path option(s) 'smooth' for grid graph 'g'; its options: none
    """
    extra = sorted(set(options) - set(declared), key=str)
    if extra:
        raise QueryError(f"unknown find_path option(s) {', '.join(map(repr, extra))} "
                         f"for {where}; its options: "
                         f"{', '.join(sorted(map(str, declared))) or 'none'}")
    for name, value in options.items():
        allowed = declared[name]
        if allowed is not None:
            choice(value, allowed, f"{name}", QueryError, where=f" for {where}")


_NAV_GRAPH = []


def graph(value, kind=None, what: str = "graph", error=QueryError):
    """``value`` if it is a navcore graph (a ``NavGraph``, or of class
    ``kind`` where a plugin's own graphs are needed): the functions that
    take one read its arrays, and a string or None there would surface as
    an ``AttributeError`` deep inside."""
    if not _NAV_GRAPH:
        from .graph import NavGraph          # (navcore.graph imports this module)
        _NAV_GRAPH.append(NavGraph)
    want = kind or _NAV_GRAPH[0]
    if not isinstance(value, want):
        name = " or ".join(k.__name__ for k in want) if isinstance(want, tuple) else \
            want.__name__
        raise error(f"{what} must be a {name} (world.graph(id) gives one), got "
                    f"{describe(value) if not isinstance(value, str) else repr(value)}")
    return value


def frame_number(value, what, where="tick: ") -> float:
    """A finite number ``>= 0`` of seconds or milliseconds for ``World``
    and ``tick``, or ``FrameError``: a bool, a string, NaN, inf or a
    negative time would otherwise surface frames later, far from the
    mistake (a budget of 0 is legal: a spent frame still serves one
    request every other tick)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating)):
        raise FrameError(f"{where}{what} must be a number, got {value!r}")
    try:
        x = float(value)
    except OverflowError:                   # an int no float holds: 10**400
        x = math.inf
    if not math.isfinite(x) or x < 0:
        raise FrameError(f"{where}{what} must be finite and >= 0, got {describe(value)}")
    return x


def budget_nodes(value, what, where="") -> int:
    """A node budget: an integer >= 0, or ``FrameError``."""
    if not is_int(value) or value < 0:
        raise FrameError(f"{where}{what} must be an integer >= 0 (nodes expanded per "
                         f"frame), got {value!r}")
    return int(value)


def expansions(value, what: str, error=QueryError) -> int:
    """A cap on node expansions: an integer >= 1 (``max_nodes``, a search
    step), or ``error``."""
    if not is_int(value) or value < 1:
        raise error(f"{what} must be an integer >= 1 (nodes a search may expand), "
                    f"got {describe(value)}")
    return int(value)


def workers(value) -> int:
    """``World(workers=)``: an integer from 0 to ``limits.max_workers()``."""
    from . import limits
    if not is_int(value) or value < 0:
        raise FrameError(f"World: workers must be an integer >= 0 (search threads), "
                         f"got {value!r}")
    most = limits.max_workers()
    if value > most:
        raise CapacityError(f"World: workers={value} is more search threads than this "
                            f"machine can use; at most {most} ({limits.WORKERS_PER_CPU} "
                            f"per CPU, {limits.MAX_WORKERS} in all)")
    return int(value)


def own_copy(value):
    """``value`` with its numpy arrays, lists, dicts and sets copied, at
    any depth (other objects are kept: numbers, strings, geometries): an
    update is a value, whatever its caller does with its arrays later."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, list):
        return [own_copy(v) for v in value]
    if isinstance(value, tuple):
        return tuple(own_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: own_copy(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return type(value)(value)
    return value


def surface_moves(start, nodes, end, num_nodes: int, error=QueryError,
                  call="move_along_surface"):
    """The arguments of ``navcore_move_along_surface`` (or another crowd
    hook, ``call``, which names it in messages) as its kernels take them:
    float64 C-contiguous ``(n, 2)`` finite ``start`` and ``end`` of one
    length and int32 ``nodes`` (``(n,)``, each ``-1`` or a node id of a
    graph of ``num_nodes``); ``error`` names what is wrong."""
    s = np.ascontiguousarray(points(start, f"{call}: start", error))
    e = np.ascontiguousarray(points(end, f"{call}: end", error))
    if s.shape != e.shape:
        raise error(f"{call}: start and end must have the same shape, got "
                    f"{s.shape} and {e.shape}")
    try:
        n = np.asarray(nodes)
    except (TypeError, ValueError, OverflowError):
        n = None
    if n is None or n.shape != (s.shape[0],) or not (n.size == 0 or int_dtype(n.dtype)):
        raise error(f"{call}: nodes must be {s.shape[0]} integer node ids "
                    f"(-1: not known), one per start, got {describe(nodes)}")
    if n.size and (n.min() < -1 or n.max() >= num_nodes):
        i = int(np.flatnonzero((n < -1) | (n >= num_nodes))[0])
        raise error(f"{call}: nodes[{i}] = {int(n[i])} is neither -1 nor a node "
                    f"id of a graph of {num_nodes} nodes")
    return s, np.ascontiguousarray(n, dtype=np.int32), e


def cost_limits(max_cost) -> np.ndarray:
    """``max_cost`` (a number, or a sequence of strictly increasing
    numbers: cost bands) as a float64 array; a ``QueryError`` for a
    negative, NaN, non-number, empty or unsorted one. ``inf`` is allowed
    (everything reachable)."""
    scalar = not isinstance(max_cost, (list, tuple, np.ndarray))
    items = [max_cost] if scalar else list(np.asarray(max_cost, dtype=object).ravel()) \
        if isinstance(max_cost, np.ndarray) else list(max_cost)
    if not items:
        raise QueryError("isochrone: max_cost is an empty sequence; give a cost limit "
                         "(a number >= 0) or several increasing ones")
    out = np.empty(len(items))
    for i, v in enumerate(items):
        where = "max_cost" if scalar else f"max_cost[{i}]"
        if isinstance(v, (bool, np.bool_)) or not isinstance(
                v, (int, float, np.integer, np.floating)):
            raise QueryError(f"isochrone: {where} must be a number >= 0 (a cost limit), "
                             f"got {describe(v)}")
        try:
            x = float(v)
        except OverflowError:
            x = math.inf
        if not x >= 0:                         # negative or NaN
            raise QueryError(f"isochrone: {where} must be a number >= 0 (a cost limit), "
                             f"got {v!r}")
        out[i] = x
    if out.size > 1 and not (np.diff(out) > 0).all():
        i = int(np.flatnonzero(np.diff(out) <= 0)[0])
        raise QueryError(f"isochrone: the cost bands in max_cost must increase strictly, "
                         f"got max_cost[{i}] = {out[i]!r} then max_cost[{i + 1}] = "
                         f"{out[i + 1]!r}")
    return out


def sources(source, point_dims=2) -> list:
    """``source`` as a list of ends: one node id or point (a tuple, a
    list of floats or a 1-D float array), or a list / array of several.
    ``NodeError`` for an empty one."""
    if is_int(source) and not isinstance(source, (bool, np.bool_)):
        return [source]
    if isinstance(source, tuple):
        return [source]
    if isinstance(source, np.ndarray) and source.ndim == 1 and source.size == point_dims \
            and not np.issubdtype(source.dtype, np.integer):
        return [source]
    if isinstance(source, list) and len(source) == point_dims and all(
            isinstance(x, (float, np.floating)) for x in source):
        return [tuple(source)]          # numbers that are no node ids: one point
    if isinstance(source, (list, np.ndarray)):
        if len(source) == 0:
            raise NodeError("isochrone: source is empty; give a node id, a point or a "
                            "list of them")
        return source
    raise NodeError(f"isochrone: source must be a node id, a point (a tuple) or a list of "
                    f"them, got {describe(source)}")
