"""Contraction hierarchies: exact shortest paths on a static graph
in a small fraction of an A* search, after a build that contracts every node.

:func:`contract` builds the graph's hierarchy as a
:class:`~navcore_csr.hierarchy.DirectedHierarchy` (two upward graphs over
node ranks; one-way edges included, an undirected graph is its symmetric
case), so every graph type (csr directed or not, grid, navmesh, roads)
is served by one structure, one query class (:class:`HierarchyQuery`) and
one file format. Two contraction orders fill it, each where it builds
faster (``bench/contraction.py``, figures in BENCHMARKS.md "One
contraction hierarchy"):

* a graph whose every edge costs the same both ways is contracted one node
  at a time, cheapest first (RoutingKit's priority: level, edges and hops
  added against removed, re-checked lazily at the top of the queue). On
  grids full of equal-cost ties it builds 37-128x faster than the rounds
  (3,600 and 10,000 cells), leaves a third of the shortcuts and answers
  1.4-2.1x faster; on a road graph made two-way it builds about 2x faster
  and on sparse random graphs 3.7-7x (there its queries are 1.1-1.5x
  slower than the rounds' order);
* any other graph (one-way edges, costs that differ by direction) is
  contracted in rounds of independent nodes, in parallel on large graphs
  (``DirectedHierarchy.build``).

A query is two Dijkstra searches, from start and goal, that only climb to
nodes contracted later; the best meeting node gives the distance, and the
shortcuts on the way are unpacked into the graph's own edges, whose costs
are summed in path order (a witness at most 1e-12, relative, longer than a
shortcut stands in for it: equal lengths summed in another order may differ
in the last bit).

While it is current, ``World.distance_matrix`` answers from it by the
bucket many-to-many (``navcore_csr.buckets``: an upward search from every
source and every target, met in buckets; on a 300x300 grid 200 x 200
cells take ~100x less than a Dijkstra per row) and ``distance_pairs`` by a
query per pair.

Where it pays: large maps that do not change, where A* has to expand many
nodes because no heuristic sees the detours. The build is the price, so a
hierarchy can be saved with :meth:`ContractedGraph.save` and loaded into
the same graph later (:func:`load_contracted`).

The hierarchy is a derived view (``navcore.views``), built from arrays read
with ``NavGraph.read_consistent`` (never half an update batch). Any update
of the graph makes it stale (:attr:`ContractedGraph.current` is False):
``"auto"`` then leaves it alone and the backend's own search answers, an
explicit ``algorithm="ch"`` is a ``QueryError`` until :func:`contract`
builds it again. Queries never build one.

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
import os
import time
from pathlib import Path

import numpy as np

from navcore import validate
from navcore.errors import GraphError, QueryError
from navcore.files import npz_bytes, read_npz, verify, write_atomic
from navcore.types import PathResult
from navcore.views import DerivedView

from . import _contract as K
from .hierarchy import DirectedHierarchy, HierarchyQuery, check_ends
from .search import ends_or_answer

#: where a graph keeps its hierarchy (``graph.view(VIEW_KEY)``)
VIEW_KEY = "navcore_csr.contracted"
#: settled nodes after which a witness search gives up (and the shortcut is
#: added; RoutingKit's default too). On a 1024x1024 grid with 25% random
#: walls 500 answered in 0.46 ms a query, 100 made a denser top and 0.8 ms
WITNESS_LIMIT = 500
#: the cheaper witness search of the one-node build that re-checks the
#: priority of the node at the top of the queue (see ``_contract.py``): 30
#: built that grid in 68 s instead of 164 with the same queries, and an
#: open 256x256 city map in 13 s instead of 23
PRIORITY_CHECK_LIMIT = 30
#: the file format :meth:`ContractedGraph.save` writes (the arrays of a
#: ``DirectedHierarchy``); files of the one-node structure before it
#: (``navcore-ch-1``) are refused with a request to build again
FORMAT = "navcore-ch-2"
_OLD_FORMATS = ("navcore-ch-1",)
_MAX_LIMIT = 2 ** 31 - 1


class ContractedGraph(DerivedView):
    """The contraction hierarchy of one graph at one version: its
    :class:`~navcore_csr.hierarchy.DirectedHierarchy` (``hierarchy``), the
    fingerprint of what it was built from and how it was built."""

    def __init__(self, graph, witness_limit=WITNESS_LIMIT, *, _loaded=None):
        graph = validate.graph(graph)
        witness_limit = _limit(witness_limit)
        t0 = time.perf_counter()
        # the version first: an update from here on leaves this hierarchy stale
        super().__init__(graph)
        self.witness_limit = witness_limit
        self.witness_work = None
        if _loaded is None:
            offsets, targets, cost = hierarchy_inputs(graph)
            #: what it was built from (``save`` writes it, ``load_contracted``
            #: compares it with the graph it is loaded into)
            self.fingerprint = _fingerprint(graph.num_nodes, offsets, targets, cost)
            self.hierarchy, self.witness_work = _build(offsets, targets, cost,
                                                       witness_limit, graph)
        else:
            self.hierarchy, self.fingerprint = _loaded
        self.build_seconds = time.perf_counter() - t0

    # -- facts ------------------------------------------------------------------
    @property
    def num_edges(self) -> int:
        """Upward arcs of both searches: the graph's edges and the shortcuts."""
        return int(self.hierarchy.stats()["forward_edges"]
                   + self.hierarchy.stats()["backward_edges"])

    @property
    def num_shortcuts(self) -> int:
        return int(self.hierarchy.num_shortcuts)

    @property
    def nbytes(self) -> int:
        return int(self.hierarchy.nbytes)

    def stats(self) -> dict:
        st = self.hierarchy.stats()
        return {"nodes": self.graph.num_nodes, "edges": self.num_edges,
                "shortcuts": self.num_shortcuts, "nesting": st["shortcut_depth"],
                "bytes": self.nbytes, "build_ms": self.build_seconds * 1e3,
                "witness_limit": self.witness_limit, "work": self.witness_work}

    # -- queries ----------------------------------------------------------------
    def query(self) -> HierarchyQuery:
        """This thread's query object (its own scratch memory)."""
        return self.thread_local(lambda: HierarchyQuery(self.hierarchy, self.graph, view=self))

    def find_path(self, start, goal) -> PathResult:
        """Optimal path between node ids ``start`` and ``goal`` (this
        thread's :meth:`query`); ``QueryError`` once the graph has changed
        since the build (a stale hierarchy would answer for the old map)."""
        return self.query().find_path(start, goal)

    def warm_up(self) -> None:
        """Load the query kernel (and its path's points) with a query from
        the first node to itself; current or not, nothing changes. The
        builders (:func:`contract`, :func:`load_contracted`) call it before
        they publish the view, so a tick's first query on it compiles
        nothing."""
        if self.hierarchy.num_nodes > 0 and self.graph.num_nodes > 0:
            self.query()._search(0, 0)

    # -- files ------------------------------------------------------------------
    def save(self, path) -> None:
        """Write the hierarchy to ``path`` (a ``.npz`` file, no pickles) with
        the fingerprint of the graph as it was built from, so it only ever
        loads into that map (a stale one will not load into the changed map).
        The file is named as given (no ``.npz`` added) and written whole or
        not at all, over a regular file only (``navcore.files.write_atomic``;
        ``GraphError`` when it cannot be written)."""
        write_atomic(path, npz_bytes(format=np.array(FORMAT),
                                     fingerprint=np.array(self.fingerprint),
                                     witness_limit=np.array(self.witness_limit),
                                     **self.hierarchy.arrays()),
                     GraphError)

    def __repr__(self) -> str:
        state = "current" if self.current else "stale"
        return (f"<ContractedGraph of {self.graph.graph_id!r}: {self.graph.num_nodes} nodes, "
                f"{self.num_edges} upward edges ({self.num_shortcuts} shortcuts), {state}>")


def _limit(witness_limit) -> int:
    if not validate.is_int(witness_limit) or not 1 <= witness_limit <= _MAX_LIMIT:
        raise QueryError(f"witness_limit must be an integer from 1 to {_MAX_LIMIT}, got "
                         f"{witness_limit!r}")
    return int(witness_limit)


def hierarchy_inputs(graph):
    """``(offsets, targets, cost)``: the graph's CSR as a contraction
    hierarchy sees it, read with ``graph.read_consistent`` (never half an
    update batch), the costs a copy with inf on every edge at a node that
    is not walkable. Every backend's hierarchy builds from this."""
    graph = validate.graph(graph)

    def read():
        csr = graph.csr
        return (csr.offsets, csr.targets, np.array(csr.cost, dtype=np.float64),
                np.array(graph.walkable, dtype=np.bool_))
    offsets, targets, cost, walkable = graph.read_consistent(read)
    if not walkable.all():
        cost = K.walkable_costs(offsets, targets, cost, walkable)
    return offsets, targets, cost


def _build(offsets, targets, cost, witness_limit, graph):
    """``(DirectedHierarchy, witness work or None)``: the one-node build
    for a graph whose edges cost the same both ways, the round-based one
    for any other (see the module's docstring for the measured rule)."""
    walk = np.ones(offsets.shape[0] - 1, dtype=np.bool_)
    u, _ = K.asymmetric_edge(offsets, targets, cost, walk)
    if u >= 0:
        return DirectedHierarchy.build(offsets, targets, cost, witness_limit=witness_limit,
                                       threads=graph), None
    t0 = time.perf_counter()
    out = K.ch_build(offsets, targets, cost, witness_limit,
                     min(PRIORITY_CHECK_LIMIT, witness_limit))
    work = {k: int(v) for k, v in zip(
        ("simulations", "witness_searches", "witness_settled", "requeued"), out[10])}
    hierarchy = DirectedHierarchy.from_arrays(
        _directed_arrays(offsets, targets, cost, *out[:9]))
    hierarchy.build_seconds = time.perf_counter() - t0
    return hierarchy, work


def _directed_arrays(offsets, targets, cost, rank, up_begin, up_end, up_tgt, up_src, up_w,
                     up_c1, up_c2, up_hops) -> dict:
    """The arrays of a ``DirectedHierarchy`` from the one-node build's
    upward edges (each stands for both directions). An upward edge
    ``a - b`` (``rank[a] < rank[b]``) becomes the forward arc ``a -> b`` and
    the backward arc ``b -> a``, both stored at ``a``. An edge of the graph
    is the cheapest CSR position of each direction; shortcut ``j`` (in
    the build's order) is arc ``m + 2j`` (``a -> b``) and ``m + 2j + 1``
    (``b -> a``), whose children are the two directions of the upward
    edges ``v - u`` and ``v - w`` of the node ``v`` it bypasses."""
    n = offsets.shape[0] - 1
    m = targets.shape[0]
    src = up_src.astype(np.int64)
    tgt = up_tgt.astype(np.int64)
    c1, c2 = up_c1.astype(np.int64), up_c2.astype(np.int64)
    e = tgt.shape[0]
    up_arc = np.empty(e, dtype=np.int64)         # arc src -> tgt
    dn_arc = np.empty(e, dtype=np.int64)         # arc tgt -> src
    orig = c1 < 0
    # edges of the graph: the cheapest CSR position from each end to the other
    tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    keys = tails * n + targets.astype(np.int64)
    by = np.lexsort((cost, keys))
    skeys = keys[by]
    for arcs, a, b in ((up_arc, src, tgt), (dn_arc, tgt, src)):
        want = a[orig] * n + b[orig]
        at = np.searchsorted(skeys, want)        # the first of equal keys: the cheapest
        arcs[orig] = by[at]
    short = np.flatnonzero(~orig)
    j = np.arange(short.size, dtype=np.int64)
    up_arc[short] = m + 2 * j
    dn_arc[short] = m + 2 * j + 1
    # shortcut a - b over v: v - u is c1, v - w is c2 (both upward from v)
    e1, e2 = c1[short], c2[short]
    u_is_a = tgt[e1] == src[short]
    sc_c1 = np.empty(2 * short.size, dtype=np.int64)
    sc_c2 = np.empty(2 * short.size, dtype=np.int64)
    first_in, first_out = np.where(u_is_a, e1, e2), np.where(u_is_a, e2, e1)
    sc_c1[0::2], sc_c2[0::2] = dn_arc[first_in], up_arc[first_out]      # a -> v -> b
    sc_c1[1::2], sc_c2[1::2] = dn_arc[first_out], up_arc[first_in]      # b -> v -> a
    ra = rank.astype(np.int64)[src]
    order = np.argsort(ra, kind="stable")
    first = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(ra, minlength=n), out=first[1:])
    head = rank[tgt[order]].astype(np.int32)
    w = np.ascontiguousarray(up_w[order], dtype=np.float64)
    return {"rank": rank.astype(np.int32),
            "fwd_first": first, "fwd_head": head, "fwd_w": w, "fwd_arc": up_arc[order],
            "bwd_first": first.copy(), "bwd_head": head.copy(), "bwd_w": w.copy(),
            "bwd_arc": dn_arc[order], "sc_c1": sc_c1, "sc_c2": sc_c2,
            "weights": np.ascontiguousarray(cost, dtype=np.float64)}


def _fingerprint(num_nodes, offsets, targets, cost) -> str:
    """A digest of what a hierarchy depends on: the topology and the
    costs (inf at nodes that are not walkable)."""
    h = hashlib.blake2b(digest_size=16)
    for a in (np.array([num_nodes], np.int64), offsets, targets, cost):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def contracted_view(graph):
    """The graph's hierarchy if one was built and is current, else None
    (never builds)."""
    graph = validate.graph(graph)
    return graph.view(VIEW_KEY)


def contract(graph, witness_limit=WITNESS_LIMIT) -> ContractedGraph:
    """The contraction hierarchy of ``graph`` (a ``NavGraph`` of any type,
    directed or not), built now if it is missing, stale or was built with
    another ``witness_limit``, and kept with the graph for later queries
    (``algorithm="ch"``, and ``"auto"``, ``World.distance_matrix`` and
    ``World.distance_pairs`` while it is current)."""
    graph = validate.graph(graph)
    _limit(witness_limit)
    return built_view(graph, VIEW_KEY, lambda v: v.witness_limit == witness_limit,
                      lambda: ContractedGraph(graph, witness_limit))


def built_view(graph, key, fits, make):
    """The graph's current view ``key`` if ``fits(view)``, else ``make()``
    kept as that view: built once under the graph's lock (another thread
    may have built it meanwhile), read without it when it is there. A
    new view's ``warm_up()`` runs before it is kept: once kept, a tick's
    queries use it, and none may load a kernel."""
    view = graph.view(key)
    if view is not None and fits(view):
        return view
    with graph.lock:
        view = graph.view(key)
        if view is None or not fits(view):
            view = make()
            view.warm_up()
            graph.set_view(key, view)
        return view


def contracted_matrix(graph, sources, targets):
    """``distance_matrix`` between node ids (checked) from the graph's
    current hierarchy (:meth:`HierarchyQuery.matrix`, the bucket
    many-to-many), None when it has none. Blocked ends are inf as in the
    searches: the hierarchy closed a blocked node's edges, not the node, so
    from and to itself it would say 0."""
    view = contracted_view(graph)
    if view is None:
        return None
    out = view.query().matrix(sources, targets)
    walk = graph.walkable
    out[~walk[sources]] = np.inf
    out[:, ~walk[targets]] = np.inf
    return out


def contracted_pairs(graph, sources, targets):
    """``distance_pairs`` between node ids (checked, as many of each) from
    the graph's current hierarchy, None when it has none (blocked ends inf,
    as in :func:`contracted_matrix`)."""
    view = contracted_view(graph)
    if view is None:
        return None
    out = view.query().distances(sources, targets)
    out[~(graph.walkable[sources] & graph.walkable[targets])] = np.inf
    return out


def bucket_search_side(num_sources: int, num_targets: int) -> str:
    """The side whose searches a hierarchy's matrix repeats when it is cut
    into blocks (``navcore_matrix_search_side``): the buckets cost an
    upward search from every source and every target, so blocks cut along
    the larger side repeat only the smaller side's searches."""
    return "sources" if num_sources >= num_targets else "targets"


def load_contracted(graph, path) -> ContractedGraph:
    """Load a hierarchy that :meth:`ContractedGraph.save` wrote for this
    graph (same nodes, edges, costs and walkable nodes) and keep it with
    the graph. ``GraphError`` when the file is unreadable, inconsistent or
    was made for another graph; the graph keeps what it had then."""
    graph = validate.graph(graph)
    if not isinstance(path, (str, os.PathLike)):
        raise GraphError(f"load_contracted needs a file path, got {path!r}")
    path = Path(path)
    arrays, fingerprint, limit = read_hierarchy(path, FORMAT, _OLD_FORMATS)
    with graph.lock:
        # the view takes the graph's version before the fingerprint is
        # compared: an update in between leaves it stale, never wrong
        view = ContractedGraph.__new__(ContractedGraph)
        DerivedView.__init__(view, graph)
        offsets, targets, cost = hierarchy_inputs(graph)
        if fingerprint != _fingerprint(graph.num_nodes, offsets, targets, cost):
            raise GraphError(f"{path}: this hierarchy was built for another graph (or "
                             f"another version of graph {graph.graph_id!r}); build it anew "
                             f"with contract()")
        hierarchy = tie_to_graph(path, arrays, offsets, targets, cost)
        view.witness_limit, view.witness_work = limit, None
        view.hierarchy, view.fingerprint, view.build_seconds = hierarchy, fingerprint, 0.0
        view.warm_up()
        graph.set_view(VIEW_KEY, view)
        return view


def read_hierarchy(path, fmt, old_formats=()):
    """``(arrays, fingerprint, witness limit or None)`` from a hierarchy
    file of format ``fmt`` (what ``save`` of a contraction hierarchy
    writes), or ``GraphError`` saying what is wrong with it (a damaged
    archive, a checksum that does not match, another format, a missing or
    malformed entry). The arrays are not checked yet: :func:`tie_to_graph`."""
    def fail(message):
        raise GraphError(f"{path}: {message}")

    data = read_npz(path, fail)

    def scalar(key, kinds):
        a = data[key]
        if a.shape != () or a.dtype.kind not in kinds:
            fail(f"{key} is {a.dtype}{a.shape}, expected a single "
                 f"{'string' if kinds == 'U' else 'integer'}")
        return a[()]
    got = scalar("format", "U") if "format" in data else None
    if got in old_formats:
        fail(f"a hierarchy file of an earlier navcore (format {got!r}); build it again "
             f"with contract() and save it")
    if got != fmt:
        fail(f"not a navcore hierarchy file (format {got!r}, expected {fmt!r})")
    data = verify(data, fail)
    if "fingerprint" not in data:
        fail("hierarchy file lacks fingerprint")
    fingerprint = str(scalar("fingerprint", "U"))
    limit = None
    if "witness_limit" in data:
        limit = int(scalar("witness_limit", "iu"))
        if not 1 <= limit <= _MAX_LIMIT:
            fail(f"witness_limit {limit} is outside 1..{_MAX_LIMIT}")
    arrays = {k: v for k, v in data.items()
              if k not in ("format", "fingerprint", "witness_limit")}
    return arrays, fingerprint, limit


def tie_to_graph(path, arrays, offsets, targets, cost) -> DirectedHierarchy:
    """The ``DirectedHierarchy`` of a file's ``arrays`` for the graph
    ``offsets``/``targets``/``cost`` (:func:`hierarchy_inputs`), or
    ``GraphError``: the fingerprint names the graph a file was saved for,
    but the arrays beside it can be edited (and the checksum made again).
    They must be walkable without reading out of bounds or looping
    (``DirectedHierarchy.from_arrays``), hold the graph's very costs, and
    every arc must join the nodes its place says (:func:`check_ends`)."""
    def fail(message):
        raise GraphError(f"{path}: hierarchy arrays do not fit graph it was saved for "
                         f"({message}; corrupt or edited file?)")
    rank, weights = arrays.get("rank"), arrays.get("weights")
    if rank is None or weights is None or rank.shape != (offsets.shape[0] - 1,) \
            or weights.shape != cost.shape or not np.array_equal(weights, cost):
        fail("its nodes or edge costs are not the graph's")
    try:
        hierarchy = DirectedHierarchy.from_arrays(arrays)
    except GraphError as e:
        fail(str(e))
    check_ends(arrays, offsets, targets, fail)
    return hierarchy


def contracted_path(graph, start, goal) -> PathResult:
    """``find_path`` on the graph's current hierarchy; ``QueryError`` when
    it has none or it is stale (queries never build one: ``contract`` does).
    Bad or unwalkable ends are answered first."""
    graph = validate.graph(graph)
    s, t, answer = ends_or_answer(graph, start, goal, "ch")
    if answer is not None:
        return answer
    return contracted_between(graph, s, t)


def contracted_between(graph, s, t) -> PathResult:
    """:func:`contracted_path` between node ids ``s`` and ``t`` that are
    already checked (in range and walkable: ``World.find_path`` checked
    them; ``s == t`` is the one-node path, as the search finds it)."""
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
    one (``World.warm_up``)."""
    view = contracted_view(graph)
    if view is not None:
        view.warm_up()
