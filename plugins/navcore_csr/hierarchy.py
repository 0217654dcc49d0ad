"""Directed contraction hierarchies over CSR arrays: the fast exact
shortest paths of every graph type (one-way streets included; an
undirected graph is the symmetric case).

:meth:`DirectedHierarchy.build` contracts the nodes of a directed graph
given as CSR arrays (``offsets``, ``targets``, ``weights``; ``inf`` is a
closed edge, parallel edges count with their cheapest, self-loops not at
all) in rounds of independent nodes, adding a shortcut wherever the only
short connection between two neighbours ran through the contracted node.
The result is two *upward* graphs over node ranks: the forward one (edges
``u -> x`` to nodes contracted later) and the backward one (edges
``x -> u`` from them, stored at ``u``).

Queries go through a :class:`HierarchyQuery` (one per thread, it owns the
scratch): ``distance``, ``path`` (the edges as positions into the input
CSR, their weights summed in path order), ``distances`` for pairs and
``matrix`` (the bucket many-to-many of ``navcore_csr.buckets``, on both cores).

>>> import numpy as np
>>> offsets = np.array([0, 1, 2, 3], dtype=np.int64)       # a one-way ring 0->1->2->0
>>> targets = np.array([1, 2, 0], dtype=np.int32)
>>> weights = np.array([1.0, 2.0, 4.0])
>>> q = DirectedHierarchy.build(offsets, targets, weights).query()
>>> q.distance(0, 2), q.distance(2, 1)
(3.0, 5.0)
>>> cost, edges = q.path(1, 0)
>>> cost, edges.tolist()
(6.0, [1, 2])
"""
from __future__ import annotations

import time

import numba
import numpy as np

from navcore import validate
from navcore.errors import GraphError, QueryError
from navcore.parallel import kernel_threads, threads_for
from navcore.types import PathResult, PathStatus

from . import _ch as K

# module constants for the per-query path (class attribute lookups cost
# a road route a few tenths of a microsecond)
_FOUND = PathStatus.FOUND
_UNREACHABLE = PathStatus.UNREACHABLE
_found_path = PathResult.found_path
_INF = float("inf")

#: settled nodes after which a contraction's witness search gives up (and
#: the shortcut is added)
WITNESS_LIMIT = 500
#: priority estimates' witnesses by default: paths of at most three edges,
#: found without a heap (None as ``priority_limit``). Estimates are most of
#: a build (a node is estimated again whenever a neighbour goes, ~4.6 times
#: on a hop-weight city); on a 20k-node one they took the build from 0.87 s
#: (bounded Dijkstras of 30 settled nodes) to 0.37 s, with 1% more
#: shortcuts and as many nodes settled a query
PRIORITY_LIMIT = None
_MAX_LIMIT = 2 ** 31 - 1
_INT32_MAX = 2 ** 31 - 1
#: nodes from which a build contracts on several threads; the rounds of a
#: parallel build still pick serial or parallel each by its size
#: (``_ch._PAR_MIN``). 2 cores (BENCHMARKS.md "Serial or parallel"): 21k
#: nodes 0.34-0.37 s on one thread, 0.74-1.09 s on two; 90k nodes two
#: threads lost too while other processes used the machine
BUILD_PARALLEL_FROM = 100_000
#: pairs from which ``distances`` and ``paths`` search on several threads
#: (21k nodes: 16 pairs 0.05 ms on one thread, 32 pairs 0.25 ms on one and
#: 0.05 ms on two)
PAIRS_PARALLEL_FROM = 32
#: source x target cells from which ``matrix`` fills on several threads
#: (21k nodes: 20x20 0.17 ms on one thread, 0.14 ms on two; 50x50 0.49 and
#: 0.38 ms; a pool that waits for a descheduled thread costs 8-30 ms)
MATRIX_PARALLEL_FROM = 1024
#: the arrays of :meth:`DirectedHierarchy.arrays`, with their dtypes
_ARRAYS = {
    "rank": np.int32, "fwd_first": np.int64, "fwd_head": np.int32, "fwd_w": np.float64,
    "fwd_arc": np.int64, "bwd_first": np.int64, "bwd_head": np.int32, "bwd_w": np.float64,
    "bwd_arc": np.int64, "sc_c1": np.int64, "sc_c2": np.int64, "weights": np.float64,
}


def _threads() -> int:
    """Rows of per-thread scratch: every id ``numba.get_thread_id`` can give."""
    return max(int(numba.config.NUMBA_NUM_THREADS), 1)


def _csr(offsets, targets, weights):
    """The input checked and in the kernels' dtypes."""
    offsets = validate.array(offsets, "offsets", GraphError)
    targets = validate.array(targets, "targets", GraphError)
    weights = validate.array(weights, "weights", GraphError)
    for name, a in (("offsets", offsets), ("targets", targets)):
        if a.ndim != 1 or a.dtype.kind not in "iu":
            raise GraphError(f"{name} must be a 1-d integer array, got dtype {a.dtype} "
                             f"and shape {a.shape}")
    if weights.ndim != 1 or weights.dtype.kind not in "fiu":
        raise GraphError(f"weights must be a 1-d float array, got dtype {weights.dtype} "
                         f"and shape {weights.shape}")
    if offsets.shape[0] < 1:
        raise GraphError("offsets must have at least one entry (N + 1 for N nodes), got 0")
    n = offsets.shape[0] - 1
    m = targets.shape[0]
    if n > _INT32_MAX:
        raise GraphError(f"at most {_INT32_MAX} nodes, got {n}")
    if weights.shape[0] != m:
        raise GraphError(f"weights must have one entry per edge ({m}), got "
                         f"{weights.shape[0]}")
    if offsets[0] != 0 or offsets[-1] != m:
        raise GraphError(f"offsets must run from 0 to the number of edges {m}, got "
                         f"{offsets[0]} to {offsets[-1]}")
    if n and np.any(np.diff(offsets) < 0):
        i = int(np.argmax(np.diff(offsets) < 0))
        raise GraphError(f"offsets must not decrease, got offsets[{i}] = {offsets[i]} > "
                         f"offsets[{i + 1}] = {offsets[i + 1]}")
    if m and (targets.min() < 0 or targets.max() >= n):
        i = int(np.argmax((targets < 0) | (targets >= n)))
        raise GraphError(f"targets must be node ids from 0 to {n - 1}, got targets[{i}] = "
                         f"{targets[i]}")
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    bad = np.isnan(weights) | (weights < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise GraphError(f"weights must be >= 0 (inf: closed), got weights[{i}] = "
                         f"{weights[i]}")
    return (np.ascontiguousarray(offsets, dtype=np.int64),
            np.ascontiguousarray(targets, dtype=np.int32), weights)


def _limit(name, value):
    if not validate.is_int(value) or not 1 <= value <= _MAX_LIMIT:
        raise GraphError(f"{name} must be an integer from 1 to {_MAX_LIMIT}, got {value!r}")
    return int(value)


class DirectedHierarchy:
    """The contraction hierarchy of a directed graph: two upward graphs over
    node ranks and the shortcuts' children. Build it with :meth:`build`,
    load it with :meth:`from_arrays`; ask it through :meth:`query`."""

    def __init__(self, arrays: dict, build_seconds: float = 0.0, stats: dict | None = None):
        # the private constructor: arrays already checked (build, from_arrays)
        arrays = _packed(self, dict(arrays))
        self._a = arrays
        for key, value in arrays.items():
            setattr(self, "_" + key, value)
        self.num_nodes = int(arrays["rank"].shape[0])
        self.num_edges = int(arrays["weights"].shape[0])
        self.num_shortcuts = int(np.count_nonzero(arrays["fwd_arc"] >= self.num_edges)
                                 + np.count_nonzero(arrays["bwd_arc"] >= self.num_edges))
        # the upward graphs as the many-pair kernels take them
        self._fwd = K.UpwardGraph(self._fwd_first, self._fwd_head, self._fwd_w, self._fwd_arc)
        self._bwd = K.UpwardGraph(self._bwd_first, self._bwd_head, self._bwd_w, self._bwd_arc)
        self.build_seconds = float(build_seconds)
        self._stats = dict(stats or {})
        # shortcuts nest at most as deep as the chain of their children
        self._depth = int(K.nesting_depth(self._sc_c1, self._sc_c2, self.num_edges))

    # -- build -------------------------------------------------------------------
    @classmethod
    def build(cls, offsets, targets, weights, *, witness_limit: int = WITNESS_LIMIT,
              priority_limit: int | None = PRIORITY_LIMIT, progress=None,
              threads=None) -> "DirectedHierarchy":
        """Contract the graph ``offsets``/``targets``/``weights`` (CSR).

        ``witness_limit``: settled nodes after which a contraction's witness
        search gives up (more means fewer shortcuts and a slower build);
        ``priority_limit``: None (the default) estimates a node's priority
        with witnesses of at most three edges, an integer with bounded
        Dijkstras that give up after that many settled nodes (slower; a
        few more witnesses, so a slightly better order). ``progress``:
        None or ``callable(done_nodes, total)``, called between chunks of
        rounds (about ten a build). ``threads``: whose threads the build
        may use (``navcore.parallel.max_threads``: a graph in a world, a
        count; None: numba's setting)."""
        offsets, targets, weights = _csr(offsets, targets, weights)
        limit = _limit("witness_limit", witness_limit)
        sim_limit = 0 if priority_limit is None else _limit("priority_limit", priority_limit)
        if progress is not None and not callable(progress):
            raise GraphError(f"progress must be None or a callable, got {progress!r}")
        t0 = time.perf_counter()
        n = offsets.shape[0] - 1
        m = targets.shape[0]
        pool, top = K.build_init(offsets, targets, weights)
        st, rows = K.build_prepare(n, _threads())
        ints = np.array([top, n, 0, 0, 0, n, 0, 1], dtype=np.int64)
        sc_c1 = np.empty(max(16, m // 2), dtype=np.int64)
        sc_c2 = np.empty_like(sc_c1)
        # chunks of ~n/10 nodes: a round is O(remaining), so ten calls cost nothing
        step = n if progress is None else max(n // 10, 1)
        while ints[2] < n:
            until = min(int(ints[2]) + step, n)
            with kernel_threads(threads, n, BUILD_PARALLEL_FROM) as used:
                ints[7] = used
                pool, sc_c1, sc_c2 = K.build_rounds(until, m, limit, sim_limit, pool, ints,
                                                    st, rows, sc_c1, sc_c2)
            if progress is not None:
                progress(int(ints[2]), n)
        fwd, bwd, sc_c1, sc_c2 = K.finalize(st.order, st.rank, pool, sc_c1, sc_c2,
                                            int(ints[3]))
        arrays = {}
        for side, graph in (("fwd", fwd), ("bwd", bwd)):
            arrays.update((f"{side}_{k}", v) for k, v in zip(("first", "head", "w", "arc"),
                                                              graph))
        sc_c1, sc_c2, arrays["fwd_arc"], arrays["bwd_arc"] = K.shortcuts_in_unpacking_order(
            m, sc_c1, sc_c2, arrays["fwd_arc"], arrays["bwd_arc"])
        arrays["sc_c1"] = sc_c1
        arrays["sc_c2"] = sc_c2
        arrays["rank"] = st.rank
        arrays["weights"] = weights
        seconds = time.perf_counter() - t0
        stats = {"rounds": int(ints[4]), "shortcuts_created": int(ints[3]),
                 "pool_entries": int(ints[0]), "witness_limit": limit,
                 "priority_limit": sim_limit or None}
        return cls(arrays, seconds, stats)

    # -- storage -----------------------------------------------------------------
    def arrays(self) -> dict:
        """Everything :meth:`from_arrays` needs, as plain numpy arrays."""
        return dict(self._a)

    @classmethod
    def from_arrays(cls, arrays) -> "DirectedHierarchy":
        """A hierarchy from :meth:`arrays` output; ``GraphError`` on arrays
        that are missing, of the wrong dtype or shape, or out of range."""
        if not hasattr(arrays, "keys"):
            raise GraphError(f"arrays must be a mapping of names to arrays, got "
                             f"{type(arrays).__name__}")
        a = {}
        for key, dtype in _ARRAYS.items():
            if key not in arrays:
                raise GraphError(f"arrays lacks {key!r}")
            v = np.asarray(arrays[key])
            if v.dtype != dtype or v.ndim != 1:
                raise GraphError(f"arrays[{key!r}] must be 1-d {np.dtype(dtype)}, got "
                                 f"{v.dtype} with shape {v.shape}")
            a[key] = np.ascontiguousarray(v)
        _check_arrays(a)
        return cls(a)

    # -- facts -------------------------------------------------------------------
    @property
    def nbytes(self) -> int:
        """Bytes held by the hierarchy's arrays."""
        # the upward edges' tails and input-edge counts, after the heads
        extra = self._hd.nbytes - self._fwd_head.nbytes - self._bwd_head.nbytes
        return int(sum(v.nbytes for v in self._a.values()) + extra)

    def stats(self) -> dict:
        """Sizes and build facts, for logs and benchmarks."""
        out = {"nodes": self.num_nodes, "edges": self.num_edges,
               "shortcuts": self.num_shortcuts,
               "forward_edges": int(self._fwd_head.shape[0]),
               "backward_edges": int(self._bwd_head.shape[0]),
               "shortcut_depth": self._depth, "build_seconds": self.build_seconds,
               "nbytes": self.nbytes}
        out.update(self._stats)
        return out

    def drawing(self, targets, runs, run_xy, start_xy) -> "EdgeDrawing":
        """How :meth:`HierarchyQuery.drawn_path` draws a path of this
        hierarchy's input graph, checked once here (a graph's arrays, not
        copied when they have the kernels' dtypes, except that with one
        point an edge each edge's weight, point and head are copied into
        one row of 32 bytes): ``targets`` the head
        of every input edge (int), ``runs`` ``num_edges + 1``
        non-decreasing offsets into ``run_xy``, the ``(k, 2)`` points
        drawn along each edge after its tail (a road's shape, its head
        last), ``start_xy`` the ``(num_nodes, 2)`` node positions (a
        path's first point). ``GraphError`` for arrays that do not fit."""
        n, m = self.num_nodes, self.num_edges
        targets = validate.array(targets, "targets", GraphError)
        runs = validate.array(runs, "runs", GraphError)
        run_xy = validate.array(run_xy, "run_xy", GraphError)
        start_xy = validate.array(start_xy, "start_xy", GraphError)
        if targets.shape != (m,) or targets.dtype.kind not in "iu":
            raise GraphError(f"targets must be {m} node ids (one per input edge), got "
                             f"{_shape(targets)}")
        if m and (targets.min() < 0 or targets.max() >= n):
            raise GraphError(f"targets must be node ids from 0 to {n - 1}, got "
                             f"{targets.min()} to {targets.max()}")
        for name, a, rows in (("run_xy", run_xy, None), ("start_xy", start_xy, n)):
            if a.ndim != 2 or a.shape[1] != 2 or a.dtype.kind not in "fiu" or \
                    (rows is not None and a.shape[0] != rows):
                want = "(k, 2)" if rows is None else f"({rows}, 2)"
                raise GraphError(f"{name} must be a {want} array of points, got "
                                 f"{_shape(a)}")
        if runs.shape != (m + 1,) or runs.dtype.kind not in "iu":
            raise GraphError(f"runs must be {m + 1} offsets into run_xy (one more than the "
                             f"input edges), got {_shape(runs)}")
        if runs[0] != 0 or runs[-1] != run_xy.shape[0] or np.any(np.diff(runs) < 0):
            raise GraphError(f"runs must not decrease from 0 to {run_xy.shape[0]} (the rows "
                             f"of run_xy), got {runs[0]} to {runs[-1]}")
        targets = np.ascontiguousarray(targets, dtype=np.int32)
        start_xy = np.ascontiguousarray(start_xy, dtype=np.float64)
        # one point an edge (no shape points): the kernel reads one row an
        # edge, its weight, point and head side by side, and no offsets
        # (each array read at an edge of a long route misses the caches)
        if run_xy.shape[0] == m and bool(np.all(np.diff(runs) == 1)):
            table = np.empty((m, 4), dtype=np.float64)
            table[:, 0] = self._weights
            table[:, 1:3] = run_xy
            table[:, 3] = targets
            return EdgeDrawing(self, targets, np.zeros(0, np.int64), table[:, 1:3], start_xy,
                               table)
        return EdgeDrawing(self, targets, np.ascontiguousarray(runs, dtype=np.int64),
                           np.ascontiguousarray(run_xy, dtype=np.float64), start_xy)

    def query(self, threads=None) -> "HierarchyQuery":
        """A new query object (scratch for one thread); ``threads``: whose
        threads its many-pair calls may use (see :meth:`build`)."""
        return HierarchyQuery(self, threads)

    def __repr__(self) -> str:
        return (f"DirectedHierarchy(nodes={self.num_nodes}, edges={self.num_edges}, "
                f"shortcuts={self.num_shortcuts})")


#: the query arrays of a hierarchy, packed by dtype into one buffer each
#: (the arrays themselves become views of it), in this order
_PACKS = (("_li", ("fwd_first", "bwd_first", "fwd_arc", "bwd_arc", "sc_c1", "sc_c2")),
          ("_hd", ("fwd_head", "bwd_head")), ("_wl", ("fwd_w", "bwd_w")))


def _packed(h, arrays: dict) -> dict:
    """``arrays`` with the query's arrays made views of three buffers
    (``h._li``, ``h._hd``, ``h._wl``; :func:`_ch.route` splits them again),
    and after the heads in ``h._hd`` the tail rank of every upward edge,
    then the input edges it stands for: the path query takes 8 array
    arguments instead of 22 (numba unboxes each one on every call), walks
    its path back without a binary search per arc and sizes its edges
    without walking the shortcuts twice."""
    tails = [np.repeat(np.arange(arrays[k].shape[0] - 1, dtype=np.int32),
                       np.diff(arrays[k])) for k in ("fwd_first", "bwd_first")]
    hops = K.arc_hops(arrays["sc_c1"], arrays["sc_c2"], arrays["weights"].shape[0])
    tails += [hops[arrays[k]].astype(np.int32) for k in ("fwd_arc", "bwd_arc")]
    for attr, keys in _PACKS:
        parts = [arrays[k] for k in keys]
        buf = np.concatenate(parts + tails if attr == "_hd" else parts)
        setattr(h, attr, buf)
        at = 0
        for k in keys:
            size = arrays[k].shape[0]
            arrays[k] = buf[at:at + size]
            at += size
    return arrays


def _check_arrays(a: dict) -> None:
    """``GraphError`` unless the arrays form a hierarchy the kernels can
    walk without reading out of bounds or looping."""
    n = a["rank"].shape[0]
    m = a["weights"].shape[0]
    nsc = a["sc_c1"].shape[0]
    rank = a["rank"]
    if np.any(rank < 0) or np.any(rank >= n) or np.unique(rank).shape[0] != n:
        raise GraphError(f"arrays['rank'] must be a permutation of 0..{n - 1}")
    if a["sc_c2"].shape[0] != nsc:
        raise GraphError(f"arrays['sc_c2'] must have {nsc} entries like sc_c1, got "
                         f"{a['sc_c2'].shape[0]}")
    w = a["weights"]
    if np.any(np.isnan(w) | (w < 0)):
        raise GraphError("arrays['weights'] must be >= 0")
    for side in ("fwd", "bwd"):
        first, head = a[side + "_first"], a[side + "_head"]
        k = head.shape[0]
        if first.shape[0] != n + 1 or first[0] != 0 or first[-1] != k \
                or np.any(np.diff(first) < 0):
            raise GraphError(f"arrays['{side}_first'] must be {n + 1} non-decreasing "
                             f"offsets from 0 to {k}")
        for key in ("_w", "_arc"):
            if a[side + key].shape[0] != k:
                raise GraphError(f"arrays['{side}{key}'] must have {k} entries, got "
                                 f"{a[side + key].shape[0]}")
        tail = np.repeat(np.arange(n, dtype=np.int64), np.diff(first))
        if k and (np.any(head >= n) or np.any(head <= tail)):
            raise GraphError(f"arrays['{side}_head'] must hold ranks above their node's")
        ww = a[side + "_w"]
        if np.any(np.isnan(ww) | (ww < 0) | np.isinf(ww)):
            raise GraphError(f"arrays['{side}_w'] must be finite and >= 0")
        arc = a[side + "_arc"]
        if k and (arc.min() < 0 or arc.max() >= m + nsc):
            raise GraphError(f"arrays['{side}_arc'] must be arcs from 0 to {m + nsc - 1}")
    # a shortcut's children are input edges or older shortcuts: unpacking ends
    own = np.arange(nsc, dtype=np.int64) + m
    for key in ("sc_c1", "sc_c2"):
        c = a[key]
        if nsc and (c.min() < 0 or np.any(c >= own)):
            raise GraphError(f"arrays[{key!r}] must name input edges or older shortcuts")
    # and every arc costs what it stands for: an input edge its weight, a
    # shortcut the sum of its children's (a damaged weight answers wrongly)
    arc_w = _arc_weights(w, a["sc_c1"], a["sc_c2"])
    for side in ("fwd", "bwd"):
        got, want = a[side + "_w"], arc_w[a[side + "_arc"]]
        bad = np.flatnonzero(~np.isclose(got, want, rtol=1e-9, atol=0.0))
        if bad.size:
            raise GraphError(f"arrays['{side}_w'][{bad[0]}] is {got[bad[0]]}, but its arc "
                             f"{a[side + '_arc'][bad[0]]} costs {want[bad[0]]}")


def check_ends(a, offsets, targets, fail) -> None:
    """``fail(message)`` unless every arc of the hierarchy ``a`` (the
    arrays of :meth:`DirectedHierarchy.arrays`) joins the nodes its place
    says in the graph ``offsets``/``targets`` it was built from: an input
    edge ``u -> v`` of the graph, a shortcut the start of its first child
    to the end of its second (which meet), and each stored between the
    ranks ``rank`` gives its ends. :meth:`DirectedHierarchy.from_arrays`
    checks that the arrays can be walked and costs add up; this ties them
    to the graph: a file's ``rank`` shuffled (checksum made again) passes
    those and answers with costs no path has."""
    rank = a["rank"].astype(np.int64)
    c1, c2 = a["sc_c1"], a["sc_c2"]
    m = a["weights"].shape[0]
    n = offsets.shape[0] - 1
    tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    start = np.concatenate([tails, np.full(c1.shape[0], -1)])
    end = np.concatenate([targets.astype(np.int64), np.full(c1.shape[0], -1)])
    todo = np.arange(c1.shape[0], dtype=np.int64)
    while todo.size:      # children are older arcs (from_arrays checked): rounds end
        ready = (end[c1[todo]] >= 0) & (start[c2[todo]] >= 0)
        k = todo[ready]
        if (end[c1[k]] != start[c2[k]]).any():
            fail("a shortcut's two children do not meet")
        start[m + k], end[m + k] = start[c1[k]], end[c2[k]]
        todo = todo[~ready]
    for side, lo, hi in (("fwd", start, end), ("bwd", end, start)):
        first, head, arc = a[side + "_first"], a[side + "_head"], a[side + "_arc"]
        tail = np.repeat(np.arange(first.shape[0] - 1, dtype=np.int64), np.diff(first))
        if not ((rank[lo[arc]] == tail) & (rank[hi[arc]] == head)).all():
            fail(f"an arc of '{side}' does not join the nodes its ranks name")


def node_rank(name, v, rank) -> int:
    """The rank (a hierarchy's kernels' node id) of node id ``v``, given as
    argument ``name``; ``QueryError`` unless it is a node of the ``rank``
    array's graph."""
    n = rank.shape[0]
    if not validate.is_int(v) or not 0 <= v < n:
        raise QueryError(f"{name} must be a node id from 0 to {n - 1}, got {v!r}")
    return int(rank[int(v)])


def end_ranks(s, t, rank):
    """``(rank of s, rank of t)``: :func:`node_rank` of both ends of a
    path query, named ``s`` and ``t``. In-range Python ints (the ids every
    route was checked to have before its search) cost two lookups."""
    n = rank.shape[0]
    if type(s) is int and type(t) is int and 0 <= s < n and 0 <= t < n:
        return rank.item(s), rank.item(t)
    return node_rank("s", s, rank), node_rank("t", t, rank)


def node_ranks(name, v, rank) -> np.ndarray:
    """:func:`node_rank` of a 1-d array of node ids (empty allowed)."""
    n = rank.shape[0]
    a = validate.array(v, name, QueryError)             # ragged: no array
    if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
        raise QueryError(f"{name} must be a 1-d array of node ids, got dtype {a.dtype} "
                         f"and shape {a.shape}")
    if a.size and (a.min() < 0 or a.max() >= n):
        i = int(np.argmax((a < 0) | (a >= n)))
        raise QueryError(f"{name} must hold node ids from 0 to {n - 1}, got "
                         f"{name}[{i}] = {a[i]}")
    return rank[a.astype(np.int64)] if a.size else rank[:0].copy()


def expanded_out(expanded, k) -> np.ndarray:
    """The array a many-pairs query writes each pair's expanded nodes to:
    ``expanded`` if it is a writable int64 array of ``k`` entries (a new
    one for None); ``QueryError`` otherwise (the kernels write every
    entry unchecked)."""
    if expanded is None:
        return np.empty(k, dtype=np.int64)
    if not isinstance(expanded, np.ndarray) or expanded.dtype != np.int64 \
            or expanded.shape != (k,) or not expanded.flags.writeable:
        raise QueryError(f"expanded must be a writable int64 array of shape ({k},) (one "
                         f"entry per pair), got {validate.describe(expanded)}")
    return expanded


def _shape(a) -> str:
    return f"dtype {a.dtype} and shape {a.shape}"


def _arc_weights(weights, c1, c2) -> np.ndarray:
    """The cost of every arc: input edges, then shortcuts as the sums of
    their children (older arcs), filled in rounds of one shortcut level."""
    m = weights.shape[0]
    out = np.concatenate([weights, np.full(c1.shape[0], np.nan)])
    todo = np.arange(c1.shape[0], dtype=np.int64)
    while todo.size:
        a, b = out[c1[todo]], out[c2[todo]]
        ready = ~(np.isnan(a) | np.isnan(b))
        if not ready.any():               # children are older, so this never happens
            raise GraphError("shortcut children form a cycle")
        out[m + todo[ready]] = a[ready] + b[ready]
        todo = todo[~ready]
    return out


def _compiled(kernel, args):
    """``kernel``'s compiled function for exactly the types of ``args``
    (numba's, compiled or loaded from its cache now), or ``kernel`` itself
    when numba's JIT is off. Called directly it skips the dispatcher's
    typing of every argument and its look-up of the overload: 0.45 us of
    a road route's ~4 us call with 19 arguments. Only for arguments whose
    types never change while it is kept (arrays this module made, Python
    ints): the compiled function unboxes them as the types it was made
    for, without checking them."""
    try:
        sig = tuple(kernel.typeof_pyval(a) for a in args)
    except AttributeError:                     # NUMBA_DISABLE_JIT: a plain function
        return kernel
    kernel.compile(sig)
    return kernel.overloads[sig].entry_point


class EdgeDrawing:
    """The arrays :meth:`HierarchyQuery.drawn_path` draws paths from, as
    :meth:`DirectedHierarchy.drawing` checked them for ``hierarchy``."""

    __slots__ = ("hierarchy", "targets", "runs", "run_xy", "start_xy", "_table")

    def __init__(self, hierarchy, targets, runs, run_xy, start_xy, table=None):
        self.hierarchy = hierarchy
        self.targets = targets
        self.runs = runs
        self.run_xy = run_xy
        self.start_xy = start_xy
        # with one point an edge (``runs`` empty): every input edge's
        # weight, point and head as one row, which the kernel reads
        # instead of ``run_xy`` (a view of its middle columns)
        self._table = table


class HierarchyQuery:
    """Queries on one :class:`DirectedHierarchy` with scratch of their own
    (generation-stamped labels, heaps that grow): one per thread, never
    shared between threads.

    ``view``: the graph's hierarchy view it answers for (a
    ``navcore_csr.ContractedGraph``, whose ``query()`` makes it), which
    :meth:`find_path` and :meth:`search` need to answer with the graph's
    nodes and to refuse a stale hierarchy."""

    #: nodes the last :meth:`path` expanded, both searches (not stalled)
    settled = 0

    def __init__(self, h: DirectedHierarchy, threads=None, *, view=None):
        self.hierarchy = h
        self.threads = threads
        self.view = view
        n = h.num_nodes
        self._n = n
        # row 0 forward, row 1 backward: one array argument each for route()
        self._dist = np.empty((2, n), dtype=np.float64)
        self._stamps = np.zeros((2, n), dtype=np.int32)
        self._parents = np.empty((2, n), dtype=np.int64)
        self._hp = np.empty((2, n), dtype=np.int32)     # where each node is in its heap
        self._df, self._db = self._dist
        self._hpf, self._hpb = self._hp
        self._sf, self._sb = self._stamps
        self._pf, self._pb = self._parents
        self._gen = 0
        self._heaps(1024)
        self._stack = np.empty(h._depth + 2, dtype=np.int64)
        self._hops = None                      # edges per arc, for paths()
        self._par = None                       # per-thread scratch, made on first use
        self._space = 256

    def _heaps(self, cap):
        self._draw_arrays = None               # holds the heaps: made again with them
        self._hk = np.empty((2, cap), dtype=np.float64)
        self._hn = np.empty((2, cap), dtype=np.int32)
        self._hkf, self._hkb = self._hk
        self._hnf, self._hnb = self._hn

    def _next_gen(self) -> int:
        gen = self._gen + 1
        if gen > K._GEN_MAX:                   # wrap-around: wipe the stamps once
            self._sf[:] = 0
            self._sb[:] = 0
            gen = 1
        self._gen = gen
        return gen

    def _nodes(self, name, v) -> np.ndarray:
        return node_ranks(name, v, self.hierarchy._rank)

    def _graphs(self):
        h = self.hierarchy
        return (h._fwd_first, h._fwd_head, h._fwd_w, h._bwd_first, h._bwd_head, h._bwd_w)

    def distance(self, s, t) -> float:
        """The cost of a shortest path from ``s`` to ``t``; inf if none."""
        rs, rt = end_ranks(s, t, self.hierarchy._rank)
        while True:
            best, meet, _ = K.bidir(*self._graphs(), rs, rt, self._df, self._db, self._sf,
                                 self._sb, self._pf, self._pb, self._hkf, self._hnf,
                                 self._hpf, self._hkb, self._hnb, self._hpb,
                                 self._next_gen())
            if meet != -2:
                return float(best)
            self._heaps(4 * self._hkf.shape[0])

    def path(self, s, t):
        """``(cost, edges)``: a shortest path from ``s`` to ``t`` as int64
        positions into the input CSR, its cost their weights summed in path
        order; ``(inf, empty)`` if there is none."""
        cost, edges, _ = self._path(*end_ranks(s, t, self.hierarchy._rank))
        return cost, edges

    def _path(self, rs, rt):
        """``(cost, edges, settled)``: :meth:`path` between ranks ``rs`` and
        ``rt`` (no checks) and the nodes its searches expanded (also kept
        as ``settled``)."""
        h = self.hierarchy
        while True:
            cost, edges, status, settled = K.route_edges(
                h._li, h._hd, h._wl, h._weights, rs, rt, self._dist, self._stamps,
                self._parents, self._hk, self._hn, self._hp, self._next_gen(),
                self._stack)
            if status != -2:
                self.settled = settled
                return float(cost), edges, int(settled)
            self._heaps(4 * self._hkf.shape[0])

    def drawn_path(self, s, t, drawing: EdgeDrawing):
        """``(cost, nodes, points)``: :meth:`path` from node ``s`` to node
        ``t`` as its nodes (int32, ``s`` first, then the head of every
        edge) and its drawn points (``drawing.start_xy[s]``, then each
        edge's run of ``drawing.run_xy``), searched and drawn in one kernel
        call; ``(inf, empty, empty)`` if there is none. ``settled`` as
        :meth:`path` leaves it. ``drawing``: :meth:`DirectedHierarchy.drawing`
        of this query's hierarchy."""
        r = self.drawn_result(s, t, drawing)
        if r.status is _FOUND:
            return r.cost, r.nodes, r.points
        return _INF, np.empty(0, dtype=np.int32), np.empty((0, 2), dtype=np.float64)

    def drawn_result(self, s, t, drawing: EdgeDrawing, algorithm: str = "ch") -> PathResult:
        """:meth:`drawn_path` as a ``PathResult`` (``found`` with the nodes,
        points, cost and nodes settled, named ``algorithm``; else
        ``unreachable``): what a graph's route returns, made here so that
        a route between two nodes is one Python call around the kernel."""
        h = self.hierarchy
        if type(drawing) is not EdgeDrawing or drawing.hierarchy is not h:
            whose = "another hierarchy's" if type(drawing) is EdgeDrawing else \
                f"a {type(drawing).__name__}"
            raise QueryError(f"drawing must be this hierarchy's own drawing(...) "
                             f"(DirectedHierarchy.drawing), got {whose}")
        n = self._n
        if not (type(s) is int and type(t) is int and 0 <= s < n and 0 <= t < n):
            end_ranks(s, t, h._rank)                  # QueryError for ids that are not nodes
            s, t = int(s), int(t)
        rank = h._rank
        rs, rt = rank.item(s), rank.item(t)
        while True:
            # the kernel's arrays as one tuple, kept while the drawing and
            # the heaps stay the same: a road route's one call reads one
            # attribute instead of fifteen
            arrays = self._draw_arrays
            if arrays is None or arrays[0] is not drawing:
                made = self._drawing_arrays(drawing)
                arrays = self._draw_arrays = (drawing, made,
                                              _compiled(K.route_drawn, made + (0, 0, 0, 1)))
            gen = self._gen + 1
            if gen > K._GEN_MAX:
                gen = self._next_gen()
            self._gen = gen
            cost, nodes, points, status, settled = arrays[2](*arrays[1], rs, rt, s, gen)
            if status != -2:
                self.settled = settled
                if status == 0:
                    return _found_path(nodes, points, cost, settled, algorithm)
                return PathResult(_UNREACHABLE, expanded=settled, algorithm=algorithm)
            self._heaps(4 * self._hkf.shape[0])

    def _drawing_arrays(self, drawing) -> tuple:
        """``route_drawn``'s array arguments, in its order."""
        h = self.hierarchy
        xy = drawing.run_xy if drawing._table is None else drawing._table
        return (h._li, h._hd, h._wl, h._weights, drawing.targets, drawing.runs,
                xy, drawing.start_xy, self._dist, self._stamps, self._parents,
                self._hk, self._hn, self._hp, self._stack)

    def find_path(self, start, goal) -> PathResult:
        """Optimal path between node ids ``start`` and ``goal`` of the
        view's graph; ``QueryError`` when the hierarchy is stale."""
        view = self._view()
        from .search import ends_or_answer
        s, t, answer = ends_or_answer(view.graph, start, goal, "ch")
        if answer is not None:
            return answer
        return self._search(s, t)

    def search(self, s, t) -> PathResult:
        """The search between walkable, distinct node ids ``s`` and ``t``
        (``find_path`` without its checks; ``NodeError`` for ids that are
        not nodes, ``QueryError`` on a stale hierarchy)."""
        view = self._view()
        n = view.graph.num_nodes
        s, t = validate.node_id(s, n, "start"), validate.node_id(t, n, "goal")
        return self._search(s, t)

    def _view(self):
        view = self.view
        if view is None:
            raise QueryError("find_path and search answer for a graph's hierarchy: use the "
                             "query() of navcore_csr.contract(graph); this one only has "
                             "distance, path, distances, paths and matrix")
        if not view.current:
            raise QueryError(f"the contraction hierarchy of graph {view.graph.graph_id!r} "
                             f"is stale: the graph changed after it was built; build it "
                             f"again with navcore_csr.contract(graph)")
        return view

    def _search(self, s, t) -> PathResult:
        """The path between node ids ``s`` and ``t`` of the view's graph as a
        ``PathResult`` (nodes, points, cost summed edge by edge)."""
        h = self.hierarchy
        rank = h._rank
        graph = self.view.graph
        targets = graph.csr.targets
        while True:
            cost, nodes, status, settled = K.route(
                h._li, h._hd, h._wl, h._weights, targets, rank[s], rank[t], s, self._dist,
                self._stamps, self._parents, self._hk, self._hn, self._hp, self._next_gen(),
                self._stack)
            if status != -2:
                break
            self._heaps(4 * self._hkf.shape[0])
        self.settled = settled = int(settled)
        if status < 0:
            return PathResult(PathStatus.UNREACHABLE, expanded=settled, algorithm="ch")
        return PathResult(PathStatus.FOUND, nodes, graph.points_of(nodes), float(cost),
                          settled, "ch")

    def _parallel(self, hcap=1024):
        """Per-thread scratch rows for the parallel kernels."""
        if self._par is None or self._par.hkf.shape[1] < hcap:
            rows, n = _threads(), self._n
            self._par = K.SearchRows(
                df=np.empty((rows, n)), db=np.empty((rows, n)),
                sf=np.zeros((rows, n), np.int32), sb=np.zeros((rows, n), np.int32),
                pf=np.empty((rows, n), np.int64), pb=np.empty((rows, n), np.int64),
                hkf=np.empty((rows, hcap)), hnf=np.empty((rows, hcap), np.int32),
                hkb=np.empty((rows, hcap)), hnb=np.empty((rows, hcap), np.int32),
                gens=np.zeros(rows, np.int32), hpf=np.empty((rows, n), np.int32),
                hpb=np.empty((rows, n), np.int32))
        return self._par

    def distances(self, sources, targets) -> np.ndarray:
        """Element-wise: ``out[i]`` is the distance from ``sources[i]`` to
        ``targets[i]`` (inf if unreachable); both cores, one call."""
        s = self._nodes("sources", sources)
        t = self._nodes("targets", targets)
        if s.shape != t.shape:
            raise QueryError(f"sources and targets must have the same length, got "
                             f"{s.shape[0]} and {t.shape[0]}")
        h = self.hierarchy
        out = np.empty(s.shape[0], dtype=np.float64)
        todo = np.arange(s.shape[0])
        hcap = 1024
        while todo.size:
            p = self._parallel(hcap)
            part = np.empty(todo.size)
            with kernel_threads(self.threads, todo.size, PAIRS_PARALLEL_FROM):
                K.pair_distances(h._fwd, h._bwd, s[todo], t[todo], part, p)
            out[todo] = part
            todo = todo[np.isnan(part)]          # a heap ran out of room: bigger ones
            hcap = 4 * p.hkf.shape[1]
        return out

    def paths(self, sources, targets, expanded=None, *, parallel=None):
        """Shortest paths for every pair ``sources[i]``, ``targets[i]``
        in two parallel passes (search and collect the arcs, then unpack):
        ``(costs, offsets, edges)``, path ``i`` being the input-CSR edge
        positions ``edges[offsets[i]:offsets[i + 1]]`` (empty, cost inf,
        when unreachable; cost 0 from a node to itself). ``expanded``: an
        int64 array of one entry per pair that receives the nodes each
        pair's searches expanded (what :meth:`path` leaves in ``settled``).
        ``parallel``: True or False runs the parallel or the serial
        kernels whatever the pairs (warm-ups load both); None chooses by
        the pairs and the threads the graph may use."""
        h = self.hierarchy
        s = self._nodes("sources", sources)
        t = self._nodes("targets", targets)
        if s.shape != t.shape:
            raise QueryError(f"sources and targets must have the same length, got "
                             f"{s.shape[0]} and {t.shape[0]}")
        k = s.shape[0]
        expanded = expanded_out(expanded, k)
        if parallel is None:
            parallel = threads_for(self.threads, k, PAIRS_PARALLEL_FROM) > 1
        if not parallel:
            return self._paths_here(s, t, expanded)
        if self._hops is None:
            self._hops = K.arc_hops(h._sc_c1, h._sc_c2, h.num_edges)
        costs = np.full(k, np.inf)
        counts = np.zeros(k, dtype=np.int64)
        narcs = np.empty(k, dtype=np.int64)
        width = 64
        arcs = np.empty((k, width), dtype=np.int64)
        todo = np.arange(k)
        hcap = 1024
        while todo.size:                       # retried: heaps or rows ran out of room
            p = self._parallel(hcap)
            na = np.empty(todo.size, dtype=np.int64)
            ne = np.zeros(todo.size, dtype=np.int64)
            ns = np.zeros(todo.size, dtype=np.int64)
            part = np.empty((todo.size, width), dtype=np.int64)
            with kernel_threads(self.threads, todo.size, PAIRS_PARALLEL_FROM):
                K.pair_arcs(h._fwd, h._bwd, s[todo], t[todo], self._hops, part, na, ne, ns, p)
            done = na >= -1
            expanded[todo[done]] = ns[done]
            if width > arcs.shape[1]:
                arcs = np.concatenate((arcs, np.empty((k, width - arcs.shape[1]),
                                                      np.int64)), axis=1)
            arcs[todo[done], :width] = part[done]
            narcs[todo[done]] = na[done]
            counts[todo[done]] = ne[done]
            if (na == -2).any():
                hcap = 4 * p.hkf.shape[1]
            if (na == -3).any():
                width *= 4
            todo = todo[~done]
        offsets = np.zeros(k + 1, dtype=np.int64)
        np.cumsum(np.where(narcs >= 0, counts, 0), out=offsets[1:])
        edges = np.empty(offsets[-1], dtype=np.int64)
        with kernel_threads(self.threads, k, PAIRS_PARALLEL_FROM):
            K.unpack_arcs(arcs, narcs, offsets, h.num_edges, h._sc_c1, h._sc_c2, h._weights,
                          h._depth, edges, costs)
        return costs, offsets, edges

    def _paths_here(self, s, t, expanded):
        """:meth:`paths` of ranks ``s``, ``t`` on this thread, in one
        kernel call (a few numpy calls of a parallel run's bookkeeping
        cost more than a few routes; nor is numba's thread count touched,
        30 us a call once its pool runs)."""
        h = self.hierarchy
        k = s.shape[0]
        costs = np.empty(k, dtype=np.float64)
        offsets = np.zeros(k + 1, dtype=np.int64)
        edges = np.empty(64 * k, dtype=np.int64)
        done = 0
        while True:
            done, self._gen, edges = K.many_path_queries(
                h._fwd_first, h._fwd_head, h._fwd_w, h._fwd_arc, h._bwd_first, h._bwd_head,
                h._bwd_w, h._bwd_arc, s, t, self._df, self._db, self._sf, self._sb, self._pf,
                self._pb, self._hkf, self._hnf, self._hpf, self._hkb, self._hnb, self._hpb,
                self._gen, h.num_edges,
                h._sc_c1, h._sc_c2, h._weights, self._stack, done, costs, offsets, expanded,
                edges)
            if done == k:
                return costs, offsets, edges[:offsets[k]]
            self._heaps(4 * self._hkf.shape[0])

    def matrix(self, sources, targets) -> np.ndarray:
        """``(S, T)`` distances from every source to every target (inf where
        unreachable): the bucket algorithm, the buckets filled from the
        larger side (the graphs swap roles when sources outnumber targets)."""
        s = self._nodes("sources", sources)
        t = self._nodes("targets", targets)
        h = self.hierarchy
        hcap = 1024
        while True:
            p = self._parallel(hcap)
            with kernel_threads(self.threads, s.shape[0] * t.shape[0],
                                MATRIX_PARALLEL_FROM):
                if s.shape[0] <= t.shape[0]:
                    res, ok = K.bucket_matrix(h._fwd, h._bwd, s, t, self._n, p, self._space)
                else:                            # fewer sources: they fill the buckets
                    res, ok = K.bucket_matrix(h._bwd, h._fwd, t, s, self._n, p, self._space)
                    res = res.T
            if ok:
                return np.ascontiguousarray(res)
            self._space *= 4
            hcap = 4 * p.hkf.shape[1]


class SteppedPath(HierarchyQuery):
    """:meth:`HierarchyQuery.path` a budget of settled nodes at a time
    (``navcore.Search``'s steps), with scratch of its own, reused search
    after search: ``begin(s, t)``, then ``step(budget)`` until it returns
    True; then ``cost``, ``edges`` (as :meth:`path` gives them) and
    ``settled`` (as many as :meth:`path` counts: the same search)."""

    def __init__(self, h: DirectedHierarchy):
        super().__init__(h)
        self._regs = np.full(K.REGISTERS, -1, dtype=np.int64)
        self._best = np.zeros(1)
        self._ends = self._nodes = (0, 0)
        self._search_gen = 0
        self.cost = np.inf
        self.edges = np.empty(0, dtype=np.int64)

    def begin(self, s, t) -> None:
        """Begin the path from node ``s`` to node ``t`` (``QueryError``
        for ids that are not nodes)."""
        self._ends = end_ranks(s, t, self.hierarchy._rank)
        self._nodes = (s, t)
        self._regs[K.R_SETTLED] = -1
        self._search_gen = self._next_gen()
        self.settled = 0

    def step(self, budget: int) -> bool:
        """Settle at most ``budget`` (>= 1) more nodes; True once done."""
        h = self.hierarchy
        rs, rt = self._ends
        best, meet, settled = K.bidir_steps(
            h._fwd_first, h._fwd_head, h._fwd_w, h._bwd_first, h._bwd_head, h._bwd_w, rs, rt,
            self._df, self._db, self._sf, self._sb, self._pf, self._pb, self._hkf, self._hnf,
            self._hpf, self._hkb, self._hnb, self._hpb, self._search_gen, self._regs, self._best,
            budget)
        self.settled = int(settled)
        if meet == K.PAUSED:
            return False
        if meet == -2:          # out of heap room: bigger heaps, and from the start
            self._heaps(4 * self._hkf.shape[0])
            self.begin(*self._nodes)
            return False
        if meet < 0:
            self.cost, self.edges = np.inf, np.empty(0, dtype=np.int64)
        else:
            cost, self.edges = K.unpack(meet, rs, rt, h._fwd_first, h._fwd_head, h._fwd_arc,
                                        h._bwd_first, h._bwd_head, h._bwd_arc, self._pf,
                                        self._pb, h.num_edges, h._sc_c1, h._sc_c2,
                                        h._weights, self._stack)
            self.cost = float(cost)
        return True
