"""``SceneLayer``: what a backend lends the scenes plugin for one graph.

A scene (``plugins/navcore_scenes``) changes its graphs with doors, timed
events (block, unblock, cost) and moving obstacles, and places crowds in
regions of them. The scenes plugin knows no graph's geometry: each of
those goes through the graph's scene layer, which its backend returns from
the ``navcore_scene_layer`` hook. A graph without one takes agents only.

A backend subclasses ``SceneLayer`` and says what a *region* is on its
graphs (a grid: a rectangle ``[x, y, w, h]`` of cells; a road network: a
list of node ids; a navmesh: a polygon): how a scene writes one
(``region``) and which nodes it holds (``nodes_in``). A region is any
immutable value that compares with ``==`` (a tuple, a frozenset):
obstacles compare their old and new region to see whether they moved.
How a moving obstacle's box maps to a region (``box_region``,
``region_box``) and the box that holds the map (``bounds``) default to
node positions; a backend with finer geometry overrides them.

The base class keeps what a scene does to the nodes, the same for every
backend: a *static* layer (the map as events left it) under the
obstacles' *cover*. A node is walkable when the static layer says so and
no obstacle covers it, so an obstacle that drives over a closed door and
leaves restores the door's state, not "walkable". Changes are collected
during a frame and ``flush`` queues, per graph, the nodes whose
walkability must change, through ``queue`` (the backend's own
``world.update`` parameters), for the next ``World.tick`` to apply as one
batch.

This module is part of the kernel, numpy only (no YAML, no Pillow), so a
backend implements it without importing the scenes plugin.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from .errors import NavError


class SceneLayer(ABC):
    """The scene state and geometry of one graph (see the module docstring).

    Subclasses implement ``region`` and ``nodes_in``; the other methods
    have defaults that suit graphs with node positions updated with the
    generic ``nodes=`` / ``edges=`` updates, and backends with their own
    update vocabulary or geometry override them (the grid's:
    ``navcore_grid.scene_layer``).
    """

    #: what one node is called in messages ("holds no walkable cell")
    node_word = "node"
    #: the key a scene writes a box region under in a ``cost`` event:
    #: ``rect`` (``[x, y, w, h]``) on planar graphs, ``bbox`` (``[west,
    #: south, east, north]`` in degrees) on road networks, as their
    #: ``world.update`` calls name them
    region_key = "rect"
    #: pictures: the world length of one map unit (``--scale`` is pixels
    #: per map unit; path widths and agent sizes are in map units). A grid
    #: cell or a navmesh unit is 1; a road map in degrees says how many
    #: degrees make a unit
    unit = 1.0
    #: pictures: whether y grows upwards (latitude), so north is drawn up;
    #: maps whose y grows downwards (grids, map files) leave it False
    y_up = False
    #: pictures: how long a unit of x is against a unit of y (a degree of
    #: longitude is cos(latitude) of a degree of latitude)
    aspect = 1.0

    def __init__(self, world, graph_id, graph):
        self.world = world
        self.graph_id = graph_id
        self.graph = graph
        walkable = graph.walkable
        #: the map as it was built (what an opened door restores)
        self.drawn = walkable.copy()
        #: the map as events left it
        self.static = walkable.copy()
        #: the graph as it will be once the queued updates are applied
        self.current = walkable.copy()
        #: how many obstacles cover each node
        self.covered = np.zeros(walkable.size, dtype=np.int16)
        self._touched: list = []
        self._built_cost = None

    # -- geometry: region and nodes_in are the backend's, the rest default to positions
    @abstractmethod
    def region(self, value):
        """The region a scene file writes as ``value`` (plain YAML data:
        lists, numbers, strings, mappings), checked to lie in the graph.

        On a mistake raise a ``navcore.NavError`` (``SceneError``) whose
        message reads after the value's label, which the scenes plugin puts
        in front with the file position: ``"must be a rectangle ..., got
        [1, 1, 0, 1]"``, ``"[3, 0, 3, 1] does not fit in graph 'keep'"``.
        """

    @abstractmethod
    def nodes_in(self, region) -> np.ndarray:
        """The ids of the nodes in ``region`` (an int array)."""

    def bounds(self) -> tuple:
        """``(x0, y0, x1, y1)``: the box in world coordinates that holds
        the map; obstacles bounce off its sides and pictures show it. By
        default the node positions' box with one unit to spare."""
        pos = self._positions()
        return (*(pos.min(axis=0) - 1.0), *(pos.max(axis=0) + 1.0))

    def box_region(self, box) -> object:
        """The region a moving obstacle covers when its box
        ``(x, y, w, h)`` (floats, inside ``bounds``) is where it is. By
        default the nodes whose positions lie in ``[x, x + w) x [y, y + h)``,
        as a tuple of ids (``nodes_in`` must take that form too)."""
        x, y, w, h = box
        pos = self._positions()
        inside = (pos[:, 0] >= x) & (pos[:, 0] < x + w) & (pos[:, 1] >= y) & (pos[:, 1] < y + h)
        return tuple(np.flatnonzero(inside).tolist())

    def region_box(self, region) -> tuple:
        """``(x, y, w, h)``: the box of an obstacle a scene writes as
        ``region`` (where it starts and how big it is). By default the box
        round its nodes' positions, half a unit to spare on each side."""
        pos = self._positions()[self.nodes_in(region)]
        lo, hi = pos.min(axis=0) - 0.5, pos.max(axis=0) + 0.5
        return (*lo, *(hi - lo))

    def _positions(self) -> np.ndarray:
        if not self.graph.has_positions():
            raise NavError(f"{self.graph.kind} graph {self.graph_id!r} has no node "
                           f"positions: obstacles and pictures need its scene layer to "
                           f"give bounds, box_region and region_box")
        return self.graph.positions[:, :2]

    #: True when ``step_lengths`` measures other than straight lines in
    #: world units (a road map in degrees measures metres)
    measures_steps = False
    #: coordinates of a point on the graph: 2, or 3 on a graph of a 3D
    #: level (``[x, y, z]`` in the level's axes; regions, bounds and
    #: pictures stay on the ground plane, ``on_ground``)
    dims = 2

    def on_ground(self, points) -> np.ndarray:
        """``(k, 2)``: where points of the graph (``(k, dims)``) lie on the
        map's plane, as pictures draw them. By default their first two
        coordinates."""
        return np.asarray(points, dtype=np.float64).reshape(-1, self.dims)[:, :2]

    def step_lengths(self, points) -> np.ndarray:
        """Lengths of the steps of the polyline ``points`` (``(k, dims)``):
        how far an agent walks between them, so a scene's speeds are these
        units per second. By default straight lines in world units; a road
        layer gives great-circle metres (and sets ``measures_steps``)."""
        step = np.diff(np.asarray(points, dtype=np.float64), axis=0)
        return np.sqrt((step * step).sum(axis=1))

    # -- what a scene does to the graph --------------------------------------
    def set_walkable(self, region, walkable: bool) -> None:
        """The nodes of ``region`` become walls or floor in the static
        layer (obstacles on them keep them blocked until they leave)."""
        idx = self.nodes_in(region)
        self.static[idx] = bool(walkable)
        self.touch(idx)

    def restore(self, region) -> None:
        """The nodes of ``region`` as the map was built (an opened door: a
        door drawn wider than its passage leaves the walls beside it)."""
        idx = self.nodes_in(region)
        self.static[idx] = self.drawn[idx]
        self.touch(idx)

    def cover(self, region, amount: int) -> None:
        """An obstacle arrives on (``+1``) or leaves (``-1``) ``region``."""
        idx = self.nodes_in(region)
        self.covered[idx] += amount
        self.touch(idx)

    def set_cost(self, region, value: float) -> None:
        """The cost of ``region``; ``inf`` makes its nodes walls, a finite
        cost leaves walls walls. Queued at once with ``world.update``.

        This default uses the generic edge update (``edges=``, ``cost=``):
        every edge that touches a node of ``region`` costs ``value`` times
        what it cost when the first cost was set. Backends that keep costs
        per node (grids) override it.
        """
        idx = self.nodes_in(region)
        csr = self.graph.csr
        if self._built_cost is None:
            self._built_cost = csr.cost.copy()
        src = np.repeat(np.arange(csr.num_nodes), np.diff(csr.offsets))
        hit = np.flatnonzero(np.isin(csr.targets, idx) | np.isin(src, idx))
        if hit.size:
            cost = np.full(hit.size, np.inf) if np.isinf(value) \
                else value * self._built_cost[hit]          # inf * 0 would be nan
            self.world.update(self.graph_id, edges=np.column_stack((src[hit],
                                                                    csr.targets[hit])),
                              cost=cost)
        if np.isinf(value):
            self.static[idx] = False
            self.touch(idx)

    def queue(self, nodes: np.ndarray, walkable: bool) -> None:
        """Queue ``nodes`` (an int array) to become walkable or blocked,
        with ``world.update`` in the backend's own parameters (this
        default: the generic ``nodes=``, ``walkable=``)."""
        self.world.update(self.graph_id, nodes=nodes, walkable=walkable)

    def touch(self, nodes: np.ndarray) -> None:
        """``nodes`` may have changed: ``flush`` looks at them."""
        self._touched.append(nodes)

    def flush(self) -> int:
        """Queue the nodes whose walkability must change (at most two
        ``queue`` calls: block, then unblock); returns how many."""
        if not self._touched:
            return 0
        idx = np.unique(np.concatenate(self._touched))
        self._touched.clear()
        want = self.static[idx] & (self.covered[idx] == 0)
        change = want != self.current[idx]
        for walkable in (False, True):
            nodes = idx[change & (want == walkable)]
            if nodes.size:
                self.queue(nodes, walkable)
        self.current[idx] = want
        return int(change.sum())

    def obstacle_nodes(self) -> np.ndarray:
        """Bool per node: floor of the static layer that an obstacle covers
        now (pictures draw these apart from walls)."""
        return (self.covered > 0) & self.static

    def sample_points(self, region, count: int, rng, usable: np.ndarray):
        """``count`` points (float ``(count, 2)``) where a crowd's agents
        start or go, drawn with the numpy generator ``rng`` from
        ``region`` on nodes where the bool array ``usable`` (one entry per
        node) is True; ``None`` when no such node is in ``region``. This
        default draws nodes and gives their positions; a backend with
        area (a navmesh) draws points spread over the region instead."""
        nodes = self.nodes_in(region)
        nodes = nodes[usable[nodes]]
        if nodes.size == 0:
            return None
        return self.graph.points_of(rng.choice(nodes, size=count))

    # -- words and agents: defaults a backend may refine ----------------------
    def agent_radius(self):
        """The radius (world units) of the agents this graph was made for,
        which pictures draw them at; ``None`` (this default): no size, a
        dot."""
        return None

    def describe(self) -> str:
        """A few words on the graph's size for ``navcore validate``
        (``"49x31"``); empty by default."""
        return ""

    def extent(self) -> str:
        """The graph's size as error messages give it after "is outside
        graph 'g'" (``"4 x 2 cells"``); empty by default."""
        return ""

    def show(self, region) -> str:
        """``region`` as messages and summaries print it."""
        return str(list(region)) if isinstance(region, (tuple, list)) else str(region)

    def buried(self, point, node: int) -> bool:
        """Whether an agent standing at ``point``, in ``node`` as the
        graph's ``node_of`` places it (``-1``: none), stands where it may
        not (a wall came down on it) and steps out (``step_out``) before
        it waits or walks. By default: ``node`` is blocked or there is
        none. A backend whose ``node_of`` snaps points near the graph onto
        it (a navmesh, within the agent radius) answers more exactly."""
        return node < 0 or not self.graph.walkable[node]

    def step_out(self, point, node: int):
        """Where an agent standing at ``point`` in ``node``, which an update
        blocked, starts its next search: a nearby walkable point, or
        ``None`` to search from where it stands (this default). ``node``
        is ``-1`` when an update took the ground from under the agent (a
        navmesh carved round an obstacle dropped on it)."""
        return None

    def entering_walls(self, at: np.ndarray, now: np.ndarray) -> np.ndarray:
        """Bool per agent: would the step from ``now`` to ``at`` (both
        ``(k, 2)`` float arrays) enter another node that is blocked? Such
        agents wait at the edge for a new path instead of walking through.
        This default holds nobody back; override it with a vectorised
        lookup where the geometry makes one cheap (grids)."""
        return np.zeros(len(at), dtype=bool)
