"""Contraction hierarchies: exact shortest paths on a static graph
in a small fraction of an A* search, after a build that contracts every node.

:func:`contract` orders the nodes (RoutingKit's priority: level, edges and
hops added against removed) and contracts them one by one, adding a
shortcut wherever the only shortest connection between two neighbours ran
through the contracted node. A query is two Dijkstra searches, from start
and goal, that only climb to nodes contracted later, with stall-on-demand;
the best meeting node gives the distance, and the shortcuts on the way are
unpacked into the graph's own nodes. The cost is summed edge by edge along
that path, so it is the optimum up to float rounding: a witness path at
most 1e-12 (relative) longer than a shortcut stands in for it, since equal
lengths summed in another order may differ in the last bit.

Where it pays: large maps that do not change, where A* has to expand many
nodes because no heuristic sees the detours (random obstacles: on a
1024x1024 grid with 25% blocked, A* expands about 50,000 cells a query).
The build is the price (a minute or more at a million nodes, see
BENCHMARKS.md), so a hierarchy can be saved with :meth:`ContractedGraph.save`
and loaded into the same graph later (:func:`load_contracted`).

The hierarchy is a derived view (``navcore.views``): its data
(:class:`ContractedGraph`, arrays that :meth:`~ContractedGraph.save` writes)
is apart from its query state (:class:`HierarchyQuery`, one per thread with
its scratch, from :meth:`~ContractedGraph.query`), as RoutingKit separates
ContractionHierarchy and ContractionHierarchyQuery. Any update of the graph
makes it stale (:attr:`ContractedGraph.current` is False): ``"auto"`` then
leaves it alone and the backend's own search answers, an explicit
``algorithm="ch"`` is a ``QueryError`` until :func:`contract` builds it
again. Queries never build one. Undirected graphs only: every edge must
cost the same both ways (a grid's always do).

>>> import navcore
>>> from navcore_csr import contract
>>> world = navcore.World()
>>> g = world.add_graph("ring", type="csr", src=[0, 1, 2, 3, 4], dst=[1, 2, 3, 4, 0],
...                     cost=[1.0, 1.0, 1.0, 1.0, 5.0], directed=False)
>>> ch = contract(g)
>>> r = world.find_path("ring", 0, 4, algorithm="ch")
>>> r.nodes.tolist(), r.cost
([0, 1, 2, 3, 4], 4.0)
>>> world.find_path("ring", 4, 0).algorithm        # auto takes the current hierarchy
'ch'
"""
from __future__ import annotations

import hashlib
import time
import os
from pathlib import Path

import numpy as np

from navcore import validate
from navcore.errors import CapacityError, GraphError, QueryError
from navcore.files import npz_bytes, read_npz, verify, write_atomic
from navcore.types import PathResult, PathStatus

from . import _contract as K
from .search import INT32_MAX, ends_or_answer
from navcore.views import DerivedView

#: where a graph keeps its hierarchy (``graph.view(VIEW_KEY)``)
VIEW_KEY = "navcore_csr.contracted"
#: settled nodes after which a witness search gives up (and the shortcut is
#: added; RoutingKit's default too). On a 1024x1024 grid with 25% random
#: walls 500 answered in 0.46 ms a query, 100 made a denser top and 0.8 ms
#: (2026-11-24)
WITNESS_LIMIT = 500
#: the cheaper witness search that re-checks the priority of the node at the
#: top of the queue (see ``_contract.py``): 30 built that grid in 68 s
#: instead of 164 with the same queries, and an open 256x256 city map in
#: 13 s instead of 23
PRIORITY_CHECK_LIMIT = 30
_FORMAT = "navcore-ch-1"
_MAX_LIMIT = 2 ** 31 - 1
_ARRAYS = ("rank", "up_begin", "up_end", "up_tgt", "up_src", "up_w", "up_c1", "up_c2",
           "up_hops")


class QueryScratch:
    """One thread's memory for hierarchy queries: both searches' labels
    (generation-stamped), heaps that grow when a query needs more,
    and the unpacking stack."""

    __slots__ = ("dist", "stamp", "par", "hk", "hn", "stack", "gen")

    def __init__(self, n, nesting):
        n = max(int(n), 1)
        self.dist = np.empty((2, n), dtype=np.float64)
        self.stamp = np.zeros((2, n), dtype=np.int32)
        self.par = np.empty((2, n), dtype=np.int32)
        self.stack = np.empty((int(nesting) + 2, 2), dtype=np.int64)
        self.gen = 0
        self.grow(1024)

    def grow(self, size):
        self.hk = np.empty((2, size), dtype=np.float64)
        self.hn = np.empty((2, size), dtype=np.int32)

    def next_gen(self) -> int:
        self.gen += 1
        if self.gen >= INT32_MAX:             # wrap-around: wipe the stamps once
            self.stamp[:] = 0
            self.gen = 1
        return self.gen


class ContractedGraph(DerivedView):
    """The contraction hierarchy of one graph at one version: its data.

    ``up_begin[v]:up_end[v]`` index node ``v``'s upward edges (to nodes
    contracted after it): ``up_tgt``, ``up_w`` (cost), ``up_c1``/``up_c2``
    (for a shortcut, the two upward edges of the node it bypasses; -1 for
    an edge of the graph), ``up_src`` (= ``v``) and ``up_hops`` (edges of
    the graph it stands for). ``rank[v]`` is ``v``'s place in the order.
    """

    def __init__(self, graph, witness_limit=WITNESS_LIMIT, *, _loaded=None):
        graph = validate.graph(graph)
        if not validate.is_int(witness_limit) or not 1 <= witness_limit <= _MAX_LIMIT:
            raise QueryError(f"witness_limit must be an integer from 1 to {_MAX_LIMIT}, got "
                             f"{witness_limit!r}")
        t0 = time.perf_counter()
        # the version first: an update from here on leaves this hierarchy stale
        super().__init__(graph)
        self.witness_limit = int(witness_limit)
        self.witness_work = None
        if _loaded is None:
            inputs = _checked_costs(graph)
            #: what it was built from (``save`` writes it, ``load_contracted``
            #: compares it with the graph it is loaded into)
            self.fingerprint = _fingerprint(graph.num_nodes, *inputs)
            offsets, targets, cost, _ = inputs
            out = K.ch_build(offsets, targets, cost, self.witness_limit,
                              min(PRIORITY_CHECK_LIMIT, self.witness_limit))
            arrays = dict(zip(_ARRAYS, out[:9]))
            self.witness_work = {k: int(v) for k, v in zip(
                ("simulations", "witness_searches", "witness_settled", "requeued"), out[10])}
            if arrays["up_tgt"].size >= INT32_MAX:
                raise CapacityError(f"the hierarchy of graph {graph.graph_id!r} has "
                                    f"{arrays['up_tgt'].size} edges, more than int32 ids "
                                    f"can index")
            arrays["up_c1"] = arrays["up_c1"].astype(np.int32)
            arrays["up_c2"] = arrays["up_c2"].astype(np.int32)
        else:
            arrays, self.fingerprint = _loaded
        for name in _ARRAYS:
            setattr(self, name, arrays[name])
        self.nesting = int(K.nesting(self.up_c1, self.up_c2))
        #: the arrays the query kernel takes, in its order
        self.kernel_args = (self.up_begin, self.up_end, self.up_tgt, self.up_src,
                             self.up_w, self.up_c1, self.up_c2, self.up_hops)
        self.build_seconds = time.perf_counter() - t0

    # -- facts ------------------------------------------------------------------
    @property
    def num_edges(self) -> int:
        """Upward edges: each edge of the graph once, plus the shortcuts."""
        return int(self.up_tgt.size)

    @property
    def num_shortcuts(self) -> int:
        return int(np.count_nonzero(self.up_c1 >= 0))

    @property
    def nbytes(self) -> int:
        return int(sum(getattr(self, name).nbytes for name in _ARRAYS))

    def stats(self) -> dict:
        return {"nodes": self.graph.num_nodes, "edges": self.num_edges,
                "shortcuts": self.num_shortcuts, "nesting": self.nesting,
                "bytes": self.nbytes, "build_ms": self.build_seconds * 1e3,
                "witness_limit": self.witness_limit, "work": self.witness_work}

    # -- queries ----------------------------------------------------------------
    def query(self) -> "HierarchyQuery":
        """This thread's query object (its own scratch memory)."""
        return self.thread_local(lambda: HierarchyQuery(self))

    def find_path(self, start, goal) -> PathResult:
        """Optimal path between node ids ``start`` and ``goal`` (this
        thread's :meth:`query`); ``QueryError`` once the graph has changed
        since the build (a stale hierarchy would answer for the old map)."""
        return self.query().find_path(start, goal)

    # -- files ------------------------------------------------------------------
    def save(self, path) -> None:
        """Write the hierarchy to ``path`` (a ``.npz`` file, no pickles) with
        the fingerprint of the graph as it was built from, so it only ever
        loads into that map (a stale one will not load into the changed map).
        The file is named as given (no ``.npz`` added) and written whole or
        not at all, over a regular file only (``navcore.files.write_atomic``;
        ``GraphError`` when it cannot be written)."""
        write_atomic(path, npz_bytes(format=np.array(_FORMAT),
                                     fingerprint=np.array(self.fingerprint),
                                     witness_limit=np.array(self.witness_limit),
                                     **{name: getattr(self, name) for name in _ARRAYS}),
                     GraphError)

    def __repr__(self) -> str:
        state = "current" if self.current else "stale"
        return (f"<ContractedGraph of {self.graph.graph_id!r}: {self.graph.num_nodes} nodes, "
                f"{self.num_edges} upward edges ({self.num_shortcuts} shortcuts), {state}>")


class HierarchyQuery:
    """Queries on one :class:`ContractedGraph` from one thread: both
    searches' labels (generation-stamped), heaps that grow when a
    query needs more, and the unpacking stack. Get one with
    ``hierarchy.query()``; never share one between threads."""

    def __init__(self, hierarchy: ContractedGraph):
        self.hierarchy = hierarchy
        self.scratch = QueryScratch(hierarchy.graph.num_nodes, hierarchy.nesting)

    def find_path(self, start, goal) -> PathResult:
        """Optimal path between node ids ``start`` and ``goal``;
        ``QueryError`` when the hierarchy is stale."""
        ch = self.hierarchy
        if not ch.current:
            raise QueryError(f"the contraction hierarchy of graph {ch.graph.graph_id!r} "
                             f"is stale: the graph changed after it was built; build it "
                             f"again with navcore_csr.contract(graph)")
        s, t, answer = ends_or_answer(ch.graph, start, goal, "ch")
        if answer is not None:
            return answer
        return self._search(s, t)

    def search(self, s, t) -> PathResult:
        """The search between walkable, distinct node ids ``s`` and ``t``
        (``find_path`` without its checks; ``NodeError`` for ids that are
        not nodes, ``QueryError`` on a stale hierarchy)."""
        n = self.hierarchy.graph.num_nodes
        s, t = validate.node_id(s, n, "start"), validate.node_id(t, n, "goal")
        if not self.hierarchy.current:
            return self.find_path(s, t)           # says it is stale
        return self._search(s, t)

    def _search(self, s, t) -> PathResult:
        ch, sc = self.hierarchy, self.scratch
        while True:
            cost, settled, path = K.ch_path(*ch.kernel_args, s, t, sc.dist, sc.stamp,
                                            sc.par, sc.hk, sc.hn, sc.stack, sc.next_gen())
            if cost != -2.0:
                break
            sc.grow(2 * sc.hk.shape[1])
        if path.size == 0:
            return PathResult(PathStatus.UNREACHABLE, expanded=settled, algorithm="ch")
        return PathResult(PathStatus.FOUND, path, ch.graph.points_of(path), float(cost),
                          settled, "ch")


def _checked_costs(graph):
    """``(offsets, targets, cost, walkable)`` of ``graph`` as a hierarchy
    sees them: its CSR arrays with inf on edges at blocked nodes (a copy);
    ``QueryError`` when an edge costs differently the other way."""
    def read():        # the arrays of one version, even while ticks update them
        csr = graph.csr
        return (csr.offsets, csr.targets, np.array(csr.cost),
                np.array(graph.walkable, dtype=np.bool_))
    offsets, targets, cost, walkable = graph.read_consistent(read)
    u, v = K.asymmetric_edge(offsets, targets, cost, walkable)
    if u >= 0:
        raise QueryError(f"contraction hierarchies need every edge to cost the same both "
                         f"ways; in graph {graph.graph_id!r} edge {u} -> {v} does not "
                         f"(or has no way back)")
    cost = K.walkable_costs(offsets, targets, cost, walkable)
    return offsets, targets, cost, walkable


def _fingerprint(num_nodes, offsets, targets, cost, walkable) -> str:
    """A digest of what a hierarchy depends on: the topology, the costs
    and which nodes are walkable."""
    h = hashlib.blake2b(digest_size=16)
    for a in (np.array([num_nodes], np.int64), offsets, targets, cost, walkable):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def contracted_view(graph):
    """The graph's hierarchy if one was built and is current, else None
    (never builds)."""
    graph = validate.graph(graph)
    return graph.view(VIEW_KEY)


def contract(graph, witness_limit=WITNESS_LIMIT) -> ContractedGraph:
    """The contraction hierarchy of ``graph`` (a ``NavGraph``), built now
    if it is missing, stale or was built with another ``witness_limit``,
    and kept with the graph for later queries (``algorithm="ch"``, and
    ``"auto"`` while it is current)."""
    graph = validate.graph(graph)
    view = graph.view(VIEW_KEY)
    if view is not None and view.witness_limit == witness_limit:
        return view
    with graph.lock:
        view = graph.view(VIEW_KEY)          # another thread may have built it
        if view is None or view.witness_limit != witness_limit:
            view = ContractedGraph(graph, witness_limit)
            graph.set_view(VIEW_KEY, view)
        return view


def load_contracted(graph, path) -> ContractedGraph:
    """Load a hierarchy that :meth:`ContractedGraph.save` wrote for this
    graph (same nodes, edges, costs and walkable nodes) and keep it with
    the graph. ``GraphError`` when the file is unreadable, inconsistent or
    was made for another graph; the graph keeps what it had then."""
    graph = validate.graph(graph)
    if not isinstance(path, (str, os.PathLike)):
        raise GraphError(f"load_contracted needs a file path, got {path!r}")
    path = Path(path)
    arrays, fingerprint, limit = _read(path)
    _check_arrays(arrays, graph.num_nodes, path)
    with graph.lock:
        # the view takes the graph's version before the fingerprint is
        # compared: an update in between leaves it stale, never wrong
        view = ContractedGraph(graph, limit, _loaded=(arrays, fingerprint))
        inputs = _checked_costs(graph)
        if fingerprint != _fingerprint(graph.num_nodes, *inputs):
            raise GraphError(f"{path}: this hierarchy was built for another graph (or "
                             f"another version of graph {graph.graph_id!r}); build it anew "
                             f"with contract()")
        _check_edges(arrays, inputs, path)
        graph.set_view(VIEW_KEY, view)
        return view


def _read(path):
    """``(arrays, fingerprint, witness limit)`` from a hierarchy file, or
    ``GraphError`` saying what is wrong with it (a damaged archive, a
    checksum that does not match, a missing or malformed entry)."""
    def fail(message):
        raise GraphError(f"{path}: {message}")

    data = read_npz(path, fail)
    def scalar(key, kinds):
        a = data[key]
        if a.shape != () or a.dtype.kind not in kinds:
            fail(f"{key} is {a.dtype}{a.shape}, expected a single "
                 f"{'string' if kinds == 'U' else 'integer'}")
        return a[()]
    fmt = scalar("format", "U") if "format" in data else None
    if fmt != _FORMAT:
        fail(f"not a navcore hierarchy file (format {fmt!r}, expected {_FORMAT!r})")
    data = verify(data, fail)
    missing = [k for k in _ARRAYS + ("fingerprint", "witness_limit") if k not in data]
    if missing:
        fail(f"hierarchy file lacks {', '.join(missing)}")
    arrays = {k: data[k] for k in _ARRAYS}
    fingerprint = str(scalar("fingerprint", "U"))
    limit = int(scalar("witness_limit", "iu"))
    if not 1 <= limit <= _MAX_LIMIT:
        fail(f"witness_limit {limit} is outside 1..{_MAX_LIMIT}")
    return arrays, fingerprint, limit


def _check_arrays(a, n, path):
    """Refuse a file whose arrays do not fit together, so a query never
    reads or writes out of bounds or loops (the fingerprint ties a file to
    a graph; it does not prove the file was written by ``save``)."""
    m = a["up_tgt"].size
    want = {"rank": (n, np.int32), "up_begin": (n, np.int64), "up_end": (n, np.int64),
            "up_tgt": (m, np.int32), "up_src": (m, np.int32), "up_w": (m, np.float64),
            "up_c1": (m, np.int32), "up_c2": (m, np.int32), "up_hops": (m, np.int32)}
    for k, (size, dtype) in want.items():
        if a[k].dtype != dtype or a[k].shape != (size,):
            raise GraphError(f"{path}: array {k} is {a[k].dtype}{a[k].shape}, expected "
                             f"{np.dtype(dtype)}({size},)")
    begin, end = a["up_begin"], a["up_end"]
    c1, c2 = a["up_c1"], a["up_c2"]
    below = np.arange(m)
    # each node owns one run of edges; the runs tile the edge arrays and
    # every edge names its owner as its source (unpacking walks by it)
    order = np.lexsort((end, begin))      # empty runs first where runs share a start
    b, e = begin[order], end[order]
    ok = bool((begin <= end).all()) and (n == 0 or (b[0] == 0 and e[-1] == m
                                                    and bool((b[1:] == e[:-1]).all())))
    ok = ok and bool((a["up_src"] == np.repeat(order, e - b)).all())
    ok = ok and bool(((a["up_tgt"] >= 0) & (a["up_tgt"] < n)).all())
    # weights a Dijkstra can use; a shortcut names two earlier edges, an
    # edge of the graph none
    ok = ok and bool((np.isfinite(a["up_w"]) & (a["up_w"] >= 0)).all())
    short = c1 >= 0
    ok = ok and bool(((c2 >= 0) == short).all() and (c1 >= -1).all() and (c2 >= -1).all()
                     and (c1 < below).all() and (c2 < below).all())
    if ok:      # unpacking sizes its path by the hops: they must add up (no int32 wrap)
        h = a["up_hops"].astype(np.int64)
        ok = bool((h[~short] == 1).all() and (h[short] == h[c1[short]] + h[c2[short]]).all())
    if not ok:
        raise GraphError(f"{path}: hierarchy arrays are inconsistent (corrupt file?)")


def _check_edges(a, inputs, path):
    """Refuse a file whose edges are not the graph's: the fingerprint
    names the graph a file was saved for, but the arrays beside it can be
    changed (and the checksum made again) into a structure that passes
    :func:`_check_arrays` and answers wrong. Each edge must climb the
    order (``rank``); the edges of the graph (no ``up_c1``) must be the
    graph's edges with a finite cost, each once, at the cheapest cost
    between their ends; a shortcut must join the two other ends of its
    two edges, which leave one node, and cost their sum. (Whether every
    shortcut the order needs is there is left to the fingerprint: telling
    would take the contraction itself.)"""
    offsets, targets, cost, _ = inputs
    n = offsets.size - 1
    rank, src, tgt, w = a["rank"], a["up_src"], a["up_tgt"], a["up_w"]
    c1, c2 = a["up_c1"], a["up_c2"]

    def fail(what):
        raise GraphError(f"{path}: hierarchy arrays do not fit graph it was saved for "
                         f"({what}; corrupt or edited file?)")
    if n and not np.array_equal(np.sort(rank), np.arange(n, dtype=rank.dtype)):
        fail("rank is not an order of the nodes")
    if not (rank[src] < rank[tgt]).all():
        fail("an upward edge runs down the order")
    u = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    v = targets.astype(np.int64)
    ok = np.isfinite(cost) & (u != v)
    keys = np.minimum(u, v)[ok] * n + np.maximum(u, v)[ok]
    order = np.lexsort((cost[ok], keys))
    keys, best = keys[order], cost[ok][order]
    first = np.ones(keys.size, dtype=np.bool_)
    first[1:] = keys[1:] != keys[:-1]
    keys, best = keys[first], best[first]          # each pair once, its cheapest cost
    orig = c1 < 0
    s64, t64 = src.astype(np.int64), tgt.astype(np.int64)
    every = np.minimum(s64, t64) * n + np.maximum(s64, t64)
    mine = every[orig]
    at = np.minimum(np.searchsorted(keys, mine), max(keys.size - 1, 0))
    if mine.size and (keys.size == 0 or np.unique(mine).size != mine.size
                      or not (keys[at] == mine).all() or not (best[at] == w[orig]).all()):
        fail("its edges of the graph are not the graph's edges and costs")
    # a graph edge it does not hold was replaced by a shortcut between the
    # same two nodes that costs no more
    gone = ~np.isin(keys, mine)
    if gone.any():
        by = np.lexsort((w, every))
        k, c = every[by], w[by]
        head = np.ones(k.size, dtype=np.bool_)
        head[1:] = k[1:] != k[:-1]
        k, c = k[head], c[head]
        at = np.minimum(np.searchsorted(k, keys[gone]), max(k.size - 1, 0))
        if k.size == 0 or not ((k[at] == keys[gone]) & (c[at] <= best[gone])).all():
            fail("an edge of the graph is missing")
    short = np.flatnonzero(~orig)
    a1, a2 = c1[short], c2[short]
    ends = np.sort(np.stack([tgt[a1], tgt[a2]], axis=1), axis=1)
    own = np.sort(np.stack([src[short], tgt[short]], axis=1), axis=1)
    if not ((src[a1] == src[a2]).all() and (ends == own).all()
            and (w[short] == w[a1] + w[a2]).all()):
        fail("a shortcut does not join the ends of its two edges at their cost")


def contracted_path(graph, start, goal) -> PathResult:
    """``find_path`` on the graph's current hierarchy; ``QueryError`` when
    it has none or it is stale (queries never build one: ``contract`` does).
    Bad or unwalkable ends are answered first."""
    graph = validate.graph(graph)
    s, t, answer = ends_or_answer(graph, start, goal, "ch")
    if answer is not None:
        return answer
    view = graph.view(VIEW_KEY)
    if view is None:
        why = "is stale (the graph changed after it was built)" \
            if graph.stored_view(VIEW_KEY) is not None else "was never built"
        raise QueryError(f"algorithm='ch' needs a current contraction hierarchy, and "
                         f"the one of graph {graph.graph_id!r} {why}: build it with "
                         f"navcore_csr.contract(graph)")
    return view.query()._search(s, t)


def warm_up(graph) -> None:
    """Load the query kernel of the graph's hierarchy, if it has a current
    one (a query between the two ends of its first edge)."""
    view = contracted_view(graph)
    if view is None or view.num_edges == 0:
        return
    view.find_path(int(view.up_src[0]), int(view.up_tgt[0]))
