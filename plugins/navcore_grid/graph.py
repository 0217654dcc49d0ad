"""``GridGraph``: a NavGraph whose neighbours are implicit.

Coordinates follow MovingAI: ``(x, y)`` with ``(0, 0)`` the top-left cell
and ``x`` the column; a cell's node id is ``y * width + x``; a cell spans
``[x, x + 1) x [y, y + 1)`` so its centre is ``(x + 0.5, y + 0.5)``.

Movement rule: 4- or 8-connected; a straight move costs 1 and a diagonal
``diagonal_cost`` (sqrt 2 by default), each times the mean of the two
cells' costs; without ``corner_cutting`` a diagonal needs both orthogonal
cells free (the MovingAI rule).
"""
from __future__ import annotations

import math
import numbers
import threading
import weakref

import numpy as np

from navcore import limits, validate
from navcore.errors import CapacityError, GraphError, NodeError
from navcore.graph import NavGraph, build_storage

from . import _jps, _locate
from .costs import as_costs, walls
from . import _kernels as K


class GridGraph(NavGraph):
    """A grid map. Build with ``world.add_graph(id, type="grid", ...)``.

    >>> import navcore
    >>> w = navcore.World()
    >>> g = w.add_graph("g", type="grid", rows=["..#", "...", "#.."])
    >>> g.width, g.height, g.node_id(2, 1)
    (3, 3, 5)
    >>> w.find_path("g", (0, 0), (2, 2)).nodes.tolist()
    [0, 4, 8]
    """

    #: ``locate_many`` answers as ``locate`` does, on whole arrays
    vector_locate = True

    def __init__(self, walkable, cost=None, *, connectivity=8,
                 diagonal_cost=math.sqrt(2.0), corner_cutting=False, world=None):
        # a copy: updates must never write into the caller's array
        try:
            walkable = np.array(walkable, dtype=bool)
        except (TypeError, ValueError):       # ragged rows, objects that are no flags
            raise GraphError(f"a grid needs a non-empty 2-d array of walkable flags, got "
                             f"{validate.describe(walkable)}") from None
        if walkable.ndim != 2 or walkable.size == 0:
            raise GraphError(f"a grid needs a non-empty 2-d array, got shape {walkable.shape}")
        # before the padded arrays are made: a grid past int32 cell ids or
        # past the memory is refused, not swapped into
        cells = (walkable.shape[0] + 2) * (walkable.shape[1] + 2)
        if cells > limits.MAX_NODES:
            raise CapacityError(f"a grid of {walkable.shape[1]} x {walkable.shape[0]} cells "
                                f"exceeds the int32 node-id limit of {limits.MAX_NODES}")
        limits.check_memory(f"a grid of {walkable.shape[1]} x {walkable.shape[0]} cells",
                            cells * limits.BYTES_PER_CELL)
        if not validate.is_int(connectivity) or connectivity not in (4, 8):
            raise GraphError(f"connectivity must be 4 or 8, got {connectivity!r}")
        if not isinstance(diagonal_cost, numbers.Real) \
                or isinstance(diagonal_cost, (bool, np.bool_, np.timedelta64)) \
                or not (0 < diagonal_cost <= 1e300):               # 10**400: no float
            raise GraphError(f"diagonal_cost must be a positive number, got {diagonal_cost!r}")
        self.height, self.width = walkable.shape
        self.connectivity = int(connectivity)
        self.diagonal_cost = float(diagonal_cost)
        self.corner_cutting = validate.boolean(corner_cutting, "corner_cutting")
        H, W = self.height, self.width
        # The search kernels read the map in a padded layout: one blocked
        # cell all around, so no move needs a bounds check. These arrays
        # are the grid plugin's working state (its search, updates and
        # landmarks share them); users read ``walkable`` and ``cost``.
        #: width of a padded row, ``width + 2``
        self.padded_width = W + 2
        free = np.zeros((H + 2, W + 2), dtype=np.bool_)
        free[1:-1, 1:-1] = walkable
        #: walkable mask in padded layout (flat, ``(height+2) * (width+2)``)
        self.padded_free = free.ravel()
        #: per-cell cost in padded layout
        self.padded_cost = np.ones((H + 2) * (W + 2), dtype=np.float64)
        if cost is not None:
            # the cell costs a search adds: finite, > 0, at most MAX_COST
            # (walls are the walkable mask's, not a cost's)
            cost = validate.array(cost, "cost", GraphError)
            if cost.shape != walkable.shape:
                raise GraphError(f"cost must have the grid's shape {walkable.shape}, got "
                                 f"shape {cost.shape}")
            cost = as_costs(cost, lambda i: (i % W, i // W), GraphError, "cost")
            if walls(cost).any():
                i = int(np.flatnonzero(walls(cost).reshape(-1))[0])
                raise GraphError(f"cost: cell ({i % W}, {i // W}) has cost "
                                 f"{cost.reshape(-1)[i]}; a cell cost must be > 0 and finite")
            self.padded_cost.reshape(H + 2, W + 2)[1:-1, 1:-1] = cost
        self._stats = None
        self._bits = None
        #: every thread's search scratch for this grid (updates rewrite
        #: their blocked sentinels), guarded by ``scratch_lock``
        self.scratch_sets = []
        #: the parallel batches' scratch, one stack per thread count
        #: (``parallel.parallel_scratch``; also in ``scratch_sets``)
        self.parallel_stacks = {}
        self.scratch_lock = threading.Lock()
        # whose storage plugins build the CSR view when it is first asked
        # for (weakly: the world owns its graphs, not the other way round)
        self._world = None if world is None else weakref.ref(world)
        super().__init__(None, walkable=walkable.ravel(), directed=False, num_nodes=H * W,
                         heuristic="octile" if connectivity == 8 else "manhattan")
        self._csr_lock = threading.Lock()     # the lazy CSR view's one builder
        #: ``(offset, dx, dy, needed straight moves, length)`` per move
        self.directions = _direction_tables(self.padded_width, self.diagonal_cost)
        # load locate_many's kernel now, not in the first frame that serves
        # requests (the scheduler resolves a frame's points through it)
        self.locate_many(_NO_POINTS)

    # -- geometry -------------------------------------------------------------
    @property
    def shape(self):
        return (self.height, self.width)

    @property
    def cost(self) -> np.ndarray:
        """Per-cell traversal costs, a read-only ``(height, width)`` view."""
        v = self.padded_cost.reshape(self.height + 2, self.padded_width)[1:-1, 1:-1]
        v.flags.writeable = False
        return v

    @property
    def walkable_grid(self) -> np.ndarray:
        """The walkable mask as ``(height, width)`` (a view)."""
        return self.walkable.reshape(self.height, self.width)

    @property
    def positions(self) -> np.ndarray:
        """Cell centres, float64 ``(N, 2)``, made on first use."""
        if self._positions is None:
            ys, xs = np.divmod(np.arange(self.num_nodes), self.width)
            self._positions = np.column_stack([xs + 0.5, ys + 0.5])
        return self._positions

    def has_positions(self) -> bool:
        return True

    def node_id(self, x, y) -> int:
        """The id of cell ``(x, y)``; ``NodeError`` outside the grid."""
        x = validate.node_id(x, self.width, "x", NodeError)
        return validate.node_id(y, self.height, "y", NodeError) * self.width + x

    def cell_of(self, node) -> tuple:
        """``(x, y)`` of cell ``node``; ``NodeError`` for an id that is no cell."""
        y, x = divmod(validate.node_id(node, self.num_nodes, "cell"), self.width)
        return (x, y)

    def node_of(self, where) -> int:
        if type(where) is tuple and len(where) == 2:      # the common cases, fast
            return self.locate(where)
        if type(where) is int:
            return super().node_of(where)
        if validate.is_int(where):
            return super().node_of(where)
        return self.locate(where)

    def locate(self, point) -> int:
        """The cell containing ``point`` = ``(x, y)``; -1 outside the grid."""
        try:
            px, py = point
            x = math.floor(px)
            y = math.floor(py)
        except (TypeError, ValueError, OverflowError):
            raise NodeError(f"a grid point is (x, y) or a node id, got {point!r}") from None
        if isinstance(px, bool) or isinstance(py, bool):
            raise NodeError(f"a grid point is (x, y) or a node id, got {point!r}")
        if 0 <= x < self.width and 0 <= y < self.height:
            return y * self.width + x
        return -1

    def locate_many(self, points) -> np.ndarray:
        """``locate`` of each point of ``points`` (``(k, 2)`` numbers) in
        a few numpy operations: int32 cell ids, ``-1`` outside the grid.
        ``NodeError`` names the first point that is not two finite
        numbers (``locate`` refuses those too: Python bools among them)."""
        if not isinstance(points, np.ndarray):
            if not isinstance(points, (list, tuple)):
                raise NodeError(f"points must be (k, 2) points, got {points!r}")
            if len(points) == 0:
                return np.empty(0, dtype=np.int32)
            bad = next((i for i, p in enumerate(points) if isinstance(p, (tuple, list))
                        and any(type(v) is bool for v in p)), None)
            if bad is not None:
                raise NodeError(f"points[{bad}] = {points[bad]!r}: a grid point is "
                                f"(x, y) numbers, not bools")
        try:
            p = np.asarray(points, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise NodeError(f"points must be (k, 2) points, got {points!r}") from None
        if p.ndim != 2 or p.shape[1] != 2:
            raise NodeError(f"points must be (k, 2) points, got shape {p.shape}")
        out = np.empty(len(p), dtype=np.int32)
        bad = _locate.locate_cells(p, self.width, self.height, out)
        if bad >= 0:
            raise NodeError(f"points[{bad}] = {p[bad].tolist()} is not finite")
        return out

    def points_of(self, nodes) -> np.ndarray:
        # cell ids are int32 (a grid has at most MAX_NODES cells): one
        # signature of the kernel to compile, not one per id dtype
        return K.centres(validate.node_ids(nodes, self.num_nodes, "nodes"), self.width)

    # -- CSR view -------------------------------------------------------------
    @property
    def csr(self):
        """Explicit CSR view (built on first use; updates keep it current).

        Built on another thread while the world applies updates (a
        hierarchy built as a job), it is made from one version of the
        cells: an update batch that began while it was being made may have
        found no CSR to patch, so it is made again (``read_consistent``'s
        sequence lock, with the view published inside the checked part)."""
        csr = self._csr
        if csr is not None:
            return csr
        with self._csr_lock:            # one builder; the others take its view
            if self._csr is None:
                self.read_consistent(self._build_csr, publish=self._publish_csr)
            return self._csr

    def _built_csr(self):
        """The CSR view if it is built, else ``None`` (never builds: an
        update batch patches the view only when there is one)."""
        return self._csr

    def _publish_csr(self, csr) -> None:
        self._csr = csr

    def _refresh_csr(self, csr, dirty) -> None:
        """Write the costs of the edges at ``dirty`` cells (int64 ids) into
        the CSR view ``csr`` from the cells' current state."""
        K.refresh_csr_costs(csr.offsets, csr.targets, csr.cost, self.padded_free,
                            self.padded_cost, self.width, self.diagonal_cost,
                            self.connectivity, self.corner_cutting, dirty)

    def _build_csr(self):
        offsets, targets, cost = K.grid_csr(self.padded_free, self.padded_cost, self.width,
                                             self.height, self.diagonal_cost,
                                             self.connectivity, self.corner_cutting)
        # through the storage hook like every graph's, in the order the
        # kernel made (sorted, distinct): nothing to sort again
        world = self._world() if self._world is not None else None
        csr = build_storage(None, targets, {"cost": cost}, self.num_nodes,
                            world=world, offsets=offsets)
        # the kernel that patches it in every later update batch, loaded
        # now on no cells: a tick must not load it (the view is often built
        # after add_graph's warm-up, by contract or simplify)
        self._refresh_csr(csr, np.empty(0, np.int64))
        return csr

    def lattice(self):
        """``(height, width, diagonal)`` (see ``NavGraph.lattice``): cells
        joined by sides, and by corners only when corner cutting is on
        (without it a diagonal move needs both side cells, so it joins
        nothing 4-neighbour moves do not)."""
        return (self.height, self.width,
                self.connectivity == 8 and self.corner_cutting)

    @property
    def csr_built(self) -> bool:
        return self._csr is not None

    # -- bit lines for jump point search ---------------------------------------
    @property
    def bit_lines(self):
        """``(rowbits, colbits)``: the padded walkable mask as bits, one
        line of uint64 words per row and per column (built on first use;
        updates keep them current). About 0.25 bytes per cell."""
        if self._bits is None:
            free2d = self.padded_free.reshape(self.height + 2, self.padded_width)
            self._bits = (_jps.pack_lines(free2d), _jps.pack_lines(free2d.T))
        return self._bits

    def _sync_bits(self, padded_cells) -> None:
        """Copy the walkability of ``padded_cells`` into the bit lines."""
        if self._bits is not None:
            _jps.set_bits(self._bits[0], self._bits[1], self.padded_width,
                           np.ascontiguousarray(padded_cells, dtype=np.int64), self.padded_free)

    # -- cost statistics --------------------------------------------------------
    def cost_stats(self):
        """``(uniform, least cell cost, jps applies)``, worked out again
        only after a cost update (queries ask on every call)."""
        if self._stats is None:
            inner = self.padded_cost.reshape(self.height + 2, self.padded_width)[1:-1, 1:-1]
            uniform = bool((inner == 1.0).all())
            jps = (self.connectivity == 8 and not self.corner_cutting
                   and 1.0 <= self.diagonal_cost <= 2.0 and uniform
                   and self.padded_free.size < 2 ** 29)
            self._stats = (uniform, float(inner.min()), jps)
        return self._stats

    def _costs_changed(self) -> None:
        """Cell costs were written: ``cost_stats`` works them out again."""
        self._stats = None

    @property
    def uniform(self) -> bool:
        """Every cell costs 1 (JPS applies)."""
        return self.cost_stats()[0]

    def __repr__(self) -> str:
        return (f"<GridGraph {self.graph_id!r} {self.width}x{self.height} "
                f"{self.connectivity}-connected corner_cutting={self.corner_cutting}>")


_NO_POINTS = np.empty((0, 2))


def _direction_tables(Wp, diag):
    dxs = np.array([1, -1, 0, 0, 1, -1, 1, -1], dtype=np.int64)
    dys = np.array([0, 0, 1, -1, 1, 1, -1, -1], dtype=np.int64)
    off = dxs + dys * Wp
    # bits of the straight moves a diagonal needs (E=0, W=1, S=2, N=3)
    need = np.array([0, 0, 0, 0, 1 | 4, 2 | 4, 1 | 8, 2 | 8], dtype=np.int64)
    lens = np.array([1.0] * 4 + [diag] * 4)
    return off, dxs, dys, need, lens
