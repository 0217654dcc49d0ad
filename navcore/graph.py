"""``NavGraph``: the one shape every backend produces.

A NavGraph has ``num_nodes`` integer nodes with optional positions
(float64, ``(N, 2)`` or ``(N, 3)``), a walkable mask, and a CSR view of its
topology with float64 edge costs (``inf`` means the edge is closed). Every
generic plugin (search, components, simplification) works on that view,
so every backend must be able to hand it out; backends with faster
structures (the grid's implicit neighbours) subclass NavGraph and add them.

Scratch memory for searches lives with the graph, one set per thread
(Detour's model): ``graph.scratch(key, factory)`` returns this thread's
set, so a query allocates nothing but its result.
"""
from __future__ import annotations

import collections
import secrets
import threading
import time

import numpy as np

from . import validate
from .errors import GraphError, NodeError, QueryError
from .types import GraphVersion

HEURISTICS = ("euclidean", "manhattan", "octile", "zero")


#: reads of ``NavGraph.read_consistent`` spoiled by update batches, or
#: seconds spent waiting for batches to end (a writer that applies batches
#: back to back, the GIL handed over mostly inside one), before it holds
#: the batches off for one read
READ_TRIES = 3
READ_PATIENCE_S = 0.05

#: the dirty nodes of at most this many update batches are kept per graph
#: (``NavGraph.dirty_since``, ``World.is_current``): a path older than that
#: is no longer known to be current
DIRTY_LOG_BATCHES = 64
#: ... and of at most this many node ids in all (the newest batch is always
#: kept): about 4 MB; the oldest batches go first
DIRTY_LOG_NODES = 1 << 20


def _published(out, publish):
    if publish is not None:
        publish(out)
    return out


class NavGraph:
    """A navigable graph: nodes, walkable mask, CSR topology, geometry.

    Build one from edges with :meth:`from_edges`, or through
    ``World.add_graph`` with a ``type:`` a plugin provides.

    >>> import numpy as np, navcore
    >>> g = navcore.NavGraph.from_edges([0, 1], [1, 2], [1.0, 2.5])
    >>> g.num_nodes, g.csr.num_edges
    (3, 2)
    """

    #: the ``type:`` name that built this graph (set by ``World.add_graph``)
    kind = "graph"
    #: True when :meth:`locate_many` answers exactly as :meth:`locate` would,
    #: in one vectorised call: ``World`` then hands it whole point arrays
    #: (sources and targets of a matrix, pairs) instead of one point at a time
    vector_locate = False
    #: numba threads its kernels may use (``navcore.parallel.threads_for``):
    #: its world's ``workers`` (set when it joins one; 0 runs every kernel on
    #: the calling thread), None outside a world (numba's own setting)
    workers = None
    #: True when an edge's cost is the length of the move it stands for, so a
    #: search over the edges answers path lengths. A navmesh's polygon graph
    #: sets False (its costs join polygon centroids): the generic edge
    #: searches (``bfs``, ``ch``, ``simplified``...) are then not offered for it
    edge_costs_are_lengths = True
    #: True when every path walks the graph's edges, so nodes in different
    #: connected components never reach each other (the areas plugin's
    #: pre-check answers ``unreachable`` from that). A layered navmesh with
    #: off-mesh links (jumps, teleporters) is False: its paths may leave
    #: a component by a link
    paths_follow_edges = True
    #: True when an update batch never gives a node id to another place (a
    #: changed node keeps its place or is retired unwalkable). A level
    #: rebuilt in tiles numbers its polygons again (False once it did): a
    #: search that restarts on it places its point ends again
    #: (``Search``), and a node id from before names another polygon
    stable_node_ids = True
    #: True when ``positions`` are (lon, lat) degrees (road networks):
    #: outlines (``Isochrone.polygons``) are then measured in metres
    positions_lonlat = False

    def __init__(self, storage, *, positions=None, walkable=None,
                 heuristic=None, directed=True, num_nodes=None):
        self._csr = storage
        if num_nodes is None:
            num_nodes = storage.num_nodes
        self.num_nodes = int(num_nodes)
        self._positions = _check_positions(positions, self.num_nodes)
        if walkable is None:
            walkable = np.ones(self.num_nodes, dtype=np.bool_)
        else:
            walkable = _walkable_mask(walkable)   # a copy, ours: updates write it
            if walkable.shape != (self.num_nodes,):
                raise GraphError(f"walkable mask has shape {walkable.shape}, "
                                 f"expected ({self.num_nodes},)")
        self.walkable = walkable
        if heuristic is None:
            heuristic = "euclidean" if self._positions is not None else "zero"
        if type(heuristic) is not str or heuristic not in HEURISTICS:
            raise GraphError(f"unknown heuristic {heuristic!r}; choose one of "
                             f"{', '.join(HEURISTICS)}")
        if heuristic != "zero" and not self.has_positions():
            raise GraphError(f"heuristic {heuristic!r} needs node positions")
        self.heuristic = heuristic
        self.directed = validate.boolean(directed, "directed")
        self.graph_id = None
        #: bumped by the backend every time an update batch changes the graph
        self.version = 0
        self._new_salt()
        #: per-plugin state attached to this graph, keyed by plugin name
        self.extensions: dict = {}
        self._views: dict = {}
        # its own lock: a long build (contract holds ``lock``) must not hold
        # up a cheap view another query needs
        self._view_lock = threading.RLock()
        #: held by explicit view builds (``contract``, ``simplify``, ...) so
        #: two threads do not build the same view twice; updates never take it
        self.lock = threading.RLock()
        # odd while the world applies an update batch (a sequence lock, see
        # ``read_consistent``): builders on other threads never hold up a tick
        self._writes = 0
        self._writer = None          # the thread applying the batch (while odd)
        # held while a batch is applied, and by a reader that lost
        # READ_TRIES races with batches: it holds off the next batch for
        # one read, so a game that updates every frame cannot starve it
        self._write_gate = threading.RLock()
        # searches stepping on other threads now (``hold_updates``): a batch
        # waits until there are none, and no step begins while one is due
        self._holders = 0
        self._batches_due = 0
        self._holders_gone = threading.Condition(threading.Lock())
        self._tls = threading.local()

    # -- construction -------------------------------------------------------
    @classmethod
    def from_edges(cls, src, dst, cost=None, num_nodes=None, positions=None,
                   directed=True, *, heuristic=None, walkable=None, world=None,
                   sort=True, dedup=True):
        """Build a graph from edge arrays; nodes are ``0..num_nodes-1``.

        ``cost`` defaults to 1 per edge; ``inf`` marks a closed edge.
        ``directed=False`` adds every edge in both directions. Repeated
        ``(src, dst)`` pairs keep the first edge (``dedup``). Storage is
        built through the ``navcore_storage_build`` hook of ``world``'s
        plugins (the default plugin set when ``world`` is None).
        """
        from .edges import validate_edges
        src, dst, cost, num_nodes = validate_edges(src, dst, cost, num_nodes)
        directed = validate.boolean(directed, "directed")
        if not directed:
            src, dst, cost = (np.column_stack((src, dst)).ravel(),
                              np.column_stack((dst, src)).ravel(),
                              np.repeat(cost, 2))
        storage = build_storage(src, dst, {"cost": cost}, num_nodes, world=world,
                                sort=sort, dedup=dedup)
        return cls(storage, positions=positions, walkable=walkable,
                   heuristic=heuristic, directed=directed)

    # -- topology -----------------------------------------------------------
    @property
    def positions(self):
        """Node positions, float64 ``(N, 2)`` or ``(N, 3)``, or None."""
        return self._positions

    def edge_pieces(self, edges, start, stop) -> np.ndarray:
        """float64 ``(k, 2, 2)``: the drawn pieces of ``edges`` (CSR
        positions) from ``start`` to ``stop`` (finite costs >= 0 along
        each edge from its tail, one per edge), as 2-point lines in the
        plane of ``positions`` ((lon, lat) on a road network). Here the
        straight line between the edge's ends, cut in proportion to the
        cost (a cost past the edge's end is its end); a backend whose
        edges are drawn otherwise (a road's chain
        of segments: one line per segment) overrides ``_edge_pieces``.
        ``Isochrone.polygons`` draws with it. ``QueryError`` for a graph
        without positions, an edge out of range or a bad cost."""
        if not self.has_positions():
            raise QueryError(f"edge_pieces needs node positions; graph {self.graph_id!r} "
                             f"has none")
        e = validate.node_ids(edges, self.csr.num_edges, "edge_pieces: edges", QueryError,
                              np.int64)
        ends = []
        for name, value in (("start", start), ("stop", stop)):
            a = validate.array(value, f"edge_pieces: {name}", QueryError, np.float64)
            if a.shape != e.shape or not (np.isfinite(a) & (a >= 0)).all():
                raise QueryError(f"edge_pieces: {name} must hold one finite cost >= 0 per "
                                 f"edge ({e.size}), got {validate.describe(value)}")
            ends.append(a)
        return self._edge_pieces(e, *ends)

    def _edge_pieces(self, edges, start, stop) -> np.ndarray:
        """``edge_pieces`` of checked arrays (int64 edges, float64 costs)."""
        pos = self.positions[:, :2]
        csr = self.csr
        tail = np.repeat(np.arange(self.num_nodes), np.diff(csr.offsets))[edges]
        a, b = pos[tail], pos[csr.targets[edges]]
        cost = csr.cost[edges]
        # a cost past the edge's own is its head (as a road's chain is cut)
        with np.errstate(invalid="ignore", divide="ignore"):
            f0 = np.minimum(np.where(cost > 0, start / cost, 0.0), 1.0)[:, None]
            f1 = np.minimum(np.where(cost > 0, stop / cost, 1.0), 1.0)[:, None]
        return np.stack((a + (b - a) * f0, a + (b - a) * f1), axis=1)

    def has_positions(self) -> bool:
        """Whether ``positions`` can be given (subclasses may make them lazily)."""
        return self._positions is not None

    @property
    def csr(self):
        """The CSR view (``offsets``, ``targets``, ``cost``, ...)."""
        return self._csr

    def lattice(self):
        """``None``, or ``(height, width, diagonal)`` when the graph is a
        lattice: node ``y * width + x`` is the cell ``(x, y)`` of a
        ``height`` x ``width`` grid, and its connected components (over
        walkable nodes) are exactly those of the rule "walkable cells that
        share a side are joined; with ``diagonal``, also those that share
        only a corner". Costs and the move rule beyond that do not matter
        (a grid that forbids cutting corners has the components of the
        4-neighbour rule). Generic plugins may use it for whole-map passes
        that need no CSR view: the hierarchy labels areas run by run, the
        way ``scipy.ndimage.label`` does."""
        return None

    def set_csr(self, storage) -> None:
        """Replace the CSR view (backends call this when topology changes,
        inside ``navcore_apply_updates``, whose one ``version`` bump per
        batch tells derived views)."""
        self._csr = storage

    # -- versions ------------------------------------------------------------
    def _new_salt(self) -> None:
        #: drawn at random for each graph object (a copy or an unpickled
        #: graph draws its own): what tells a result's graph from another
        #: one of the same id and version (``GraphVersion.salt``)
        self.salt = secrets.randbits(63)
        self._stamp = GraphVersion(self.salt, self.version)
        self._dirty_log = collections.deque()   # (version, dirty nodes) per batch
        self._dirty_logged = 0                  # node ids in the log

    def stamp(self) -> GraphVersion:
        """The ``GraphVersion`` of the graph as it is now: what a result
        computed now carries (``PathResult.version``)."""
        stamp = self._stamp
        if stamp[1] != self.version:
            stamp = self._stamp = GraphVersion(self.salt, self.version)
        return stamp

    def dirty_since(self, version: int):
        """The nodes (int32, sorted, distinct) that the update batches
        applied after ``version`` made dirty, or ``None`` when the graph
        no longer knows them all: the log keeps the latest
        ``DIRTY_LOG_BATCHES`` batches (at most ``DIRTY_LOG_NODES`` ids), and
        a version bump that no logged batch made (a batch being applied
        right now, a backend changing the graph outside ``World.tick``)
        leaves a gap. ``World.is_current`` answers from it."""
        now = self.version
        if version == now:
            return np.empty(0, dtype=np.int32)
        log = list(self._dirty_log)            # one step: batches may be logged meanwhile
        after = [(v, d) for v, d in log if v > version]
        if [v for v, _ in after] != list(range(version + 1, now + 1)):
            return None
        if not after:
            return np.empty(0, dtype=np.int32)
        return np.unique(np.concatenate([d for _, d in after]))

    def _log_dirty(self, dirty) -> None:
        """Keep the dirty nodes of the batch just applied (``end_write``)."""
        dirty = np.array(dirty, dtype=np.int32).reshape(-1)    # a copy: ours
        log = self._dirty_log
        log.append((self.version, dirty))
        self._dirty_logged += dirty.size
        while len(log) > 1 and (len(log) > DIRTY_LOG_BATCHES
                                or self._dirty_logged > DIRTY_LOG_NODES):
            self._dirty_logged -= log.popleft()[1].size

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_dirty_log", None)          # this object's history, not the copy's
        return state

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)
        self._new_salt()                       # a copy is another graph

    # -- consistent reads from other threads ---------------------------------
    def begin_write(self) -> None:
        """Mark an update batch as being applied: ``World.tick`` (its
        ``navcore_run_frame``) calls this and ``end_write`` around each
        graph's ``navcore_apply_updates``; ``World.update`` only queues.
        Waits while a starved reader holds the batches off
        (``read_consistent``)."""
        held = self._holders_gone
        with held:
            self._batches_due += 1            # from now on no step begins
            try:
                while self._holders:          # the steps under way end first
                    held.wait()
            except BaseException:             # an interrupt: the steps may go on
                self._batch_done()
                raise
        # taken after the steps ended, not before: a starved reader holding
        # the gate (read_consistent) may hold a lock a step waits for
        try:
            self._write_gate.acquire()
        except BaseException:
            with held:
                self._batch_done()
            raise
        self._writer = threading.get_ident()
        self._writes += 1

    def end_write(self, dirty=None) -> None:
        """The batch marked by ``begin_write`` is applied (or failed).
        ``dirty``: the dirty nodes ``navcore_apply_updates`` returned for
        it, kept for ``dirty_since`` (``None`` when the batch failed, and
        so changed nothing)."""
        if dirty is not None:
            self._log_dirty(dirty)
        self._writes += 1
        self._writer = None
        self._write_gate.release()
        with self._holders_gone:
            self._batch_done()

    def _batch_done(self) -> None:
        # (under ``_holders_gone``) one batch fewer due; steps go on at none
        self._batches_due -= 1
        if not self._batches_due:
            self._holders_gone.notify_all()

    def hold_updates(self) -> "_UpdatesHeld":
        """A context in which no update batch is applied to the graph:
        ``begin_write`` waits until every thread that holds one has left
        it, and a thread entering one waits for a batch under way to end.
        A search stepped on another thread while the game ticks (a
        background search) takes each step inside one, so it never reads
        half a batch; keep it short, as the tick waits for it."""
        return _UpdatesHeld(self)

    def writing_here(self) -> bool:
        """Whether this thread is applying an update batch to the graph now
        (a backend building a lazy view then reads the batch's own state
        rather than waiting for itself)."""
        return self._writes % 2 == 1 and self._writer == threading.get_ident()

    def read_consistent(self, read, publish=None):
        """``read()``'s result, taken while no update batch was being
        applied to this graph: retried when a batch began or ran meanwhile
        (a sequence lock). A view built on a worker thread copies the
        arrays it builds from through this, so it never sees half an update
        (an edge changed one way and not yet the other), and the ticking
        thread does not wait for it. ``read`` must copy what it keeps.

        After ``READ_TRIES`` reads that a batch spoiled (or
        ``READ_PATIENCE_S`` seconds of batches), the read is made holding
        the batches off (the next ``begin_write`` waits for this
        one read), so it always finishes. ``publish(out)``, when given,
        stores the result where a batch beginning afterwards finds and
        patches it (a lazily built view); it is called inside the checked
        part, and ``publish(None)`` when a batch began meanwhile. On the
        thread applying a batch, ``read()`` runs at once (it reads the
        batch's own state).
        """
        if self.writing_here():
            return _published(read(), publish)
        spoiled = 0
        patience = time.monotonic() + READ_PATIENCE_S
        while spoiled < READ_TRIES:
            seen = self._writes
            if seen % 2 == 0:
                out = _published(read(), publish)
                if self._writes == seen:
                    return out
                spoiled += 1
                if publish is not None:
                    publish(None)        # a batch began meanwhile: maybe unpatched
            elif time.monotonic() > patience:
                break                    # batches back to back: wait for this one's end
            time.sleep(0)                # let the writer finish its batch
        with self._write_gate:
            return _published(read(), publish)

    # -- derived views (see navcore.views) ----------------------------------
    def view(self, key, build=None):
        """The derived view stored under ``key`` while it is current.

        Without ``build``: ``None`` when there is none or it is stale (a
        query then falls back to another search). With ``build``: a stale
        or missing view is replaced by ``build(self)`` (under a lock of the
        graph's views, so two threads do not build it twice). Only explicit build
        functions (``contract``, ``simplify``, ...) pass ``build``.
        """
        v = self._views.get(key)
        if v is not None and v.version == self.version:
            return v
        if build is None:
            return None
        with self._view_lock:
            v = self._views.get(key)
            if v is None or not v.current:
                v = self._views[key] = build(self)
        return v

    def stored_view(self, key):
        """The view stored under ``key``, current or stale, or ``None``
        (for inspection and for rebuilding with the same settings)."""
        return self._views.get(key)

    def set_view(self, key, view) -> None:
        """Store ``view`` (a ``navcore.DerivedView``) under ``key``."""
        self._views[key] = view

    def drop_view(self, key) -> None:
        self._views.pop(key, None)

    def views(self) -> dict:
        """``{key: view}`` of every stored view, current or stale (a copy:
        for inspection, e.g. to tell whether a view was built since)."""
        return dict(self._views)

    # -- nodes and points ---------------------------------------------------
    def node_of(self, where) -> int:
        """Resolve a node id or a point to a node id.

        Integers are node ids and must be in range (``NodeError``
        otherwise). Anything else is a point handed to :meth:`locate`,
        which returns ``-1`` for a point outside the graph.
        """
        if type(where) is int and 0 <= where < self.num_nodes:
            return where                 # the common case, on every query's path
        if type(where) is int or validate.is_int(where):
            return validate.node_id(where, self.num_nodes)
        return self.locate(where)

    def nodes_of(self, start, goal) -> tuple:
        """``(node_of(start), node_of(goal))``: a query's two ends (a
        backend that locates both in one call overrides it)."""
        n = self.num_nodes
        if type(start) is int and type(goal) is int and 0 <= start < n and 0 <= goal < n \
                and type(self).node_of is _NODE_OF:
            return start, goal           # two node ids: node_of's common case, inlined
        return self.node_of(start), self.node_of(goal)     # (a subclass's own node_of)

    def first_walkable(self, count: int = 1) -> np.ndarray:
        """The ``count`` smallest walkable node ids (int64; fewer when fewer
        nodes are walkable), for warm-ups, which run a query or an update on
        real nodes wherever they are (a map whose first rows are walls
        too). Scanned in growing blocks: microseconds when they come early.

        >>> g = NavGraph.from_edges([0, 1, 2], [1, 2, 3], walkable=[False, False, True, True])
        >>> g.first_walkable().tolist(), g.first_walkable(5).tolist()
        ([2], [2, 3])
        """
        if not validate.is_int(count) or count < 0:
            raise GraphError(f"first_walkable: count must be a whole number >= 0, got "
                             f"{validate.describe(count)}")
        walk = self.walkable
        found, start, block = [], 0, 4096
        while start < walk.shape[0] and sum(map(len, found)) < count:
            ids = np.flatnonzero(walk[start:start + block]) + start
            found.append(ids[:count - sum(map(len, found))])
            start += block
            block *= 4
        return np.concatenate(found).astype(np.int64) if found else np.empty(0, np.int64)

    def end_nodes(self, end, node):
        """Every node a query's ``end`` (as the caller gave it, which
        ``node_of`` resolved to ``node``) lies in, when that is more than
        ``node`` alone, else ``None`` (the base class: always ``None``). A
        navmesh point on a corner that polygons of several areas share
        lies in all of them, and a search from it may leave through any:
        the areas plugin's pre-check asks this before it answers ends in
        different areas ``unreachable``, and only on that answer's path."""
        return None

    def locate(self, point) -> int:
        """Map a point to the nearest node (``-1`` if there is none).

        The base class answers with the nearest node by position; backends
        with a spatial structure (grid cells, navmesh triangles) override it.
        On a graph with 3-d positions a 2-d point is a top-down one: the
        nearest node in ``(x, y)``, whatever its height, so the points a
        path returns (``points_of``: ``(x, y)``) locate back to its nodes.
        """
        if self.positions is None:
            raise NodeError(f"{self.kind} graph {self.graph_id!r} has no node "
                            f"positions, so nodes are given as integer ids, "
                            f"not {point!r}")
        dims = self.positions.shape[1]
        p = validate.point(point, dims, "a node id or a point")
        if self.num_nodes == 0:
            return -1
        if dims == 3 and np.shape(point) == (2,):
            diff = self.positions[:, :2] - p[:2]
        else:
            diff = self.positions - p
        far = np.abs(diff).max()
        if far > 1e150:                  # squares would overflow to inf and tie
            diff = diff / far
        return int(np.argmin((diff ** 2).sum(axis=1)))

    def locate_many(self, points) -> np.ndarray:
        """:meth:`locate` for each point of ``points`` (int32, ``-1``
        outside); backends with a spatial index override it with one call
        (and set ``vector_locate``)."""
        return np.array([self.locate(p) for p in points], dtype=np.int32)

    def points_of(self, nodes) -> np.ndarray:
        """Positions of ``nodes`` as float64 ``(k, 2)``; NaN without geometry.
        A node id out of range (negative included) is a ``NodeError``."""
        positions = self.positions
        ids = nodes if type(nodes) is np.ndarray else None
        if ids is None or ids.ndim != 1 or ids.dtype.kind not in "iu":
            ids = validate.node_ids(nodes, self.num_nodes)     # a list, or a mistake
        if ids.dtype.itemsize < 8:
            # seen unsigned, a negative id is out of range too (take would
            # wrap it round): no min() (it cost a path query's points 30%);
            # 64-bit ones would come back negative as take's intp
            ids = ids.view(ids.dtype.str.replace("i", "u"))
        elif ids.size and ids.min() < 0:
            validate.node_ids(ids, self.num_nodes)             # names the bad id
        if positions is None:
            if ids.size and ids.max() >= self.num_nodes:
                validate.node_ids(nodes, self.num_nodes)       # names the bad id
            return np.full((ids.shape[0], 2), np.nan)
        try:
            pts = positions.take(ids, axis=0)      # take: 2-3x faster than [nodes]
        except IndexError:
            validate.node_ids(nodes, self.num_nodes)           # names the bad id
            raise
        return pts if pts.shape[1] == 2 else np.ascontiguousarray(pts[:, :2])

    # -- per-thread scratch -------------------------------------------------
    def scratch(self, key, factory):
        """This thread's scratch set ``key``, created by ``factory(graph)``.

        Scratch is usually sized by ``num_nodes``, which an update batch may
        grow (a navmesh's new polygons): a set made for another node count
        is made again."""
        store = self._tls.__dict__
        entry = store.get(key)
        if entry is None or entry[0] != self.num_nodes:
            entry = store[key] = (self.num_nodes, factory(self))
        return entry[1]

    def __repr__(self) -> str:
        edges = self._csr.num_edges if self._csr is not None else "?"
        return (f"<{type(self).__name__} {self.graph_id!r} type={self.kind} "
                f"nodes={self.num_nodes} edges={edges}>")


#: the base class's node_of: nodes_of inlines it only for graphs that keep it
_NODE_OF = NavGraph.node_of


def build_storage(src, dst, data, num_nodes, *, world=None, sort=True, dedup=True,
                  offsets=None):
    """CSR storage for validated edge arrays, through the
    ``navcore_storage_build`` hook of ``world``'s plugins (the built-ins when
    ``world`` is None). With ``offsets`` (and ``src=None``) the edges are
    already in CSR order, as a backend's own kernel makes them, so the
    storage need not sort them again."""
    storage = _storage_hook(world)(
        src=src, dst=dst, data=data, num_nodes=num_nodes,
        options={"sort": bool(sort), "dedup": bool(dedup), "offsets": offsets})
    if storage is None:
        from .errors import PluginError
        raise PluginError("no plugin answered navcore_storage_build; "
                          "is the csr plugin registered?")
    return storage


def _storage_hook(world):
    if world is not None:
        return world.plugins.hook.navcore_storage_build
    from .plugins import PluginRegistry
    global _DEFAULT_PLUGINS
    if _DEFAULT_PLUGINS is None:
        _DEFAULT_PLUGINS = PluginRegistry(autoload=False)
    return _DEFAULT_PLUGINS.hook.navcore_storage_build


_DEFAULT_PLUGINS = None


def _walkable_mask(value) -> np.ndarray:
    """A bool copy of ``walkable``: bools, or numbers that are all 0 or 1
    (``[1, 0, 1]``); anything else (ragged, strings, 2.5) is a mistake,
    not a truth value."""
    try:
        arr = np.asarray(value)
        ok = arr.dtype == np.bool_ or (validate.real_dtype(arr.dtype)
                                       and bool(np.isin(arr, (0, 1)).all()))
    except (TypeError, ValueError):            # ragged
        ok = False
    if not ok:
        raise GraphError(f"walkable must be a sequence of True/False per node, got "
                         f"{validate.short(value)}")
    return np.array(arr, dtype=np.bool_)


def _check_positions(positions, n):
    if positions is None:
        return None
    try:
        # a copy, always: the caller's array must not change the graph later
        if np.iscomplexobj(positions):
            raise TypeError("complex numbers")
        pos = np.array(positions, dtype=np.float64, order="C", copy=True)
    except (TypeError, ValueError, OverflowError) as exc:      # 10**400 too
        raise GraphError(f"positions must be numbers: {exc}") from None
    if pos.ndim != 2 or pos.shape[0] != n or pos.shape[1] not in (2, 3):
        raise GraphError(f"positions has shape {pos.shape}, expected ({n}, 2) or ({n}, 3)")
    if not np.isfinite(pos).all():
        bad = int(np.argwhere(~np.isfinite(pos))[0][0])
        raise GraphError(f"positions of node {bad} are not finite: {pos[bad].tolist()}")
    return pos


class _UpdatesHeld:
    """``NavGraph.hold_updates``' context."""

    __slots__ = ("graph",)

    def __init__(self, graph):
        self.graph = graph

    def __enter__(self):
        g = self.graph
        with g._holders_gone:         # no batch due or under way, none begins before
            while g._batches_due:
                g._holders_gone.wait()
            g._holders += 1
        return g

    def __exit__(self, *exc) -> None:
        g = self.graph
        with g._holders_gone:
            g._holders -= 1
            if not g._holders:
                g._holders_gone.notify_all()
