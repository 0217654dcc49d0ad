"""Flow fields: one Dijkstra from a goal serves every agent heading there.

``FlowField(graph, goal)`` holds, for every node of ``graph``, its exact
cost to ``goal`` (``cost``, float64, ``inf`` where the goal cannot be
reached) and the node to step to next (``next``, int32: the neighbour
minimizing move cost + its cost to the goal, ties to the lowest id; the
goal itself at the goal, ``-1`` where unreachable). It is made from the
graph's CSR view, which on a grid already holds the move rules (blocked
cells and corner cutting are ``inf`` edges), with the edges reversed on a
directed graph. A crowd keeps one per goal cell shared by a group of its
agents (``Crowd``), as a ``GridFlow``: the crowd plugin's answer to
``navcore_flow_field`` on grids, which steers each agent by looking ahead
along the field.

>>> import navcore
>>> world = navcore.World()
>>> g = world.add_graph("g", type="grid", rows=["...", ".#.", "..."], connectivity=4)
>>> field = FlowField(g, g.node_id(2, 2))
>>> field.cost.reshape(3, 3).tolist()
[[4.0, 3.0, 2.0], [3.0, inf, 1.0], [2.0, 1.0, 0.0]]
>>> field.next.tolist()[:3]
[1, 2, 5]
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from navcore import validate
from navcore._kernels import heap_decrease, heap_pop, heap_push
from navcore.errors import GraphError, NodeError, QueryError
from navcore.graph import NavGraph

INF = math.inf
#: the most steps ``FlowField.chains`` walks from a cell
MAX_CHAIN = 4096
#: an agent on a grid's field looks ahead along it, at these numbers of
#: cells, and heads for the farthest cell it sees: a straight walk, not
#: cell to cell (8 cells ahead still left walks at a slant 2-5% longer
#: than the straight line in an open room, 32 ahead under 1%); ten looks,
#: not 32, per agent and step
LOOKAHEAD = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)


@njit(cache=True, nogil=True)
def field_kernel(offsets, targets, cost, r_offsets, r_sources, r_cost, goal, dist, nxt):
    """Dijkstra from ``goal`` over the in-edges (``r_*``: node ``v``'s
    in-edges come from ``r_sources[r_offsets[v]:r_offsets[v + 1]]`` at
    ``r_cost``) into ``dist``, then every node's best out-edge
    (``offsets``/``targets``/``cost``) into ``nxt``. Every node whose
    ``dist`` is finite was settled, and with costs >= 0 a settled node's
    ``dist`` is the least of ``c + dist[w]`` over its out-edges in float
    arithmetic too, so following ``nxt`` sums back to ``dist`` exactly
    (summed from the goal's end)."""
    n = dist.shape[0]
    for v in range(n):
        dist[v] = INF
        nxt[v] = -1
    hnode = np.empty(n, np.int32)
    hkey = np.empty(n)
    hpos = np.empty(n, np.int32)
    state = np.zeros(n, np.int8)          # 1 in the heap, 2 settled
    dist[goal] = 0.0
    state[goal] = 1
    size = heap_push(hnode, hkey, hpos, 0, goal, 0.0)
    while size > 0:
        d = hkey[0]
        u, size = heap_pop(hnode, hkey, hpos, size)
        state[u] = 2
        for e in range(r_offsets[u], r_offsets[u + 1]):
            v = r_sources[e]
            if state[v] == 2:
                continue
            nd = d + r_cost[e]
            if nd < dist[v]:
                dist[v] = nd
                if state[v] == 1:
                    heap_decrease(hnode, hkey, hpos, v, nd)
                else:
                    state[v] = 1
                    size = heap_push(hnode, hkey, hpos, size, v, nd)
    for v in range(n):
        if v == goal:
            nxt[v] = goal
            continue
        if dist[v] == INF:
            continue
        best = INF
        for e in range(offsets[v], offsets[v + 1]):
            w = targets[e]
            c = cost[e] + dist[w]
            if c < best or (c == best and w < nxt[v]):
                best = c
                nxt[v] = w


@njit(cache=True, nogil=True)
def chains(nxt, cells, k, out):
    """``out[i, j]``: the node ``j + 1`` steps along ``nxt`` from
    ``cells[i]`` (the goal repeats once reached; ``-1`` from a node with
    no way on)."""
    for i in range(cells.shape[0]):
        c = cells[i]
        for j in range(k):
            if c >= 0:
                c = nxt[c]
            out[i, j] = c


class FlowField:
    """The cost to ``goal`` and the next node toward it, for every node of
    ``graph`` (a grid or any graph with a CSR view), at the graph's
    ``version`` now. ``NodeError`` for a goal that is no node,
    ``GraphError`` for a ``graph`` that is no navcore graph."""

    def __init__(self, graph, goal):
        if not isinstance(graph, NavGraph):
            raise GraphError(f"FlowField needs a navcore graph (world.graph(id)), got "
                             f"{validate.describe(graph)}")
        self.goal = validate.node_id(goal, graph.num_nodes, "goal", NodeError)
        self.version = graph.version
        csr = graph.csr
        if graph.directed:
            rev = csr.reverse()
            r_offsets, r_sources, r_cost = rev.offsets, rev.targets, rev.cost
        else:                         # every edge has its twin: in-edges are out-edges
            r_offsets, r_sources, r_cost = csr.offsets, csr.targets, csr.cost
        n = graph.num_nodes
        #: float64 per node: the least cost of walking to ``goal`` (inf: no way)
        self.cost = np.empty(n)
        #: int32 per node: the node to step to next (the goal at the goal, -1: no way)
        self.next = np.empty(n, np.int32)
        field_kernel(csr.offsets, csr.targets, csr.cost, r_offsets, r_sources, r_cost,
                     self.goal, self.cost, self.next)

    def chains(self, cells, k: int) -> np.ndarray:
        """int32 ``(len(cells), k)``: the ``k`` nodes (1 to ``MAX_CHAIN``)
        after each of ``cells`` along ``next``."""
        cells = validate.node_ids(cells, self.next.shape[0], "cells")
        if not validate.is_int(k) or not 1 <= k <= MAX_CHAIN:
            raise QueryError(f"chains: k must be a whole number from 1 to {MAX_CHAIN}, got "
                             f"{validate.describe(k)}")
        out = np.empty((cells.shape[0], int(k)), np.int32)
        chains(self.next, cells, int(k), out)
        return out


class GridFlow:
    """A grid's ``FlowField`` toward ``goal`` (a cell) as crowds steer by
    it (``navcore_flow_field``): ``version`` and ``steer``."""

    def __init__(self, world, graph, goal):
        #: the field: every cell's cost to the goal cell and its next cell
        self.field = FlowField(graph, goal)
        self.version = self.field.version
        self._world, self._graph = world, graph
        self._move = world.plugins.caller("navcore_move_along_surface", type(graph))

    def steer(self, points, nodes, goals, radii=None):
        """``(cost, ahead, count)`` for agents at ``points`` in cells
        ``nodes`` heading for ``goals`` (points in the goal cell), whatever
        their ``radii`` (cell centres are half a cell off every wall): each
        one's cost to the goal cell (inf: no way, nan: on no cell), and
        the farthest of the cells ``LOOKAHEAD`` steps along the field that
        a straight walk reaches (the next cell always: one allowed move
        away) in ``ahead[:, 0]``, ``count`` 1; ``count`` 0 when that is
        the goal cell (then its own goal point is where it heads)."""
        field, k = self.field, points.shape[0]
        cost = np.where(nodes >= 0, field.cost[np.maximum(nodes, 0)], np.nan)
        ahead = np.zeros((k, 1, 2))
        count = np.zeros(k, np.int32)
        rows = np.flatnonzero(np.isfinite(cost))
        m = rows.size
        if m == 0:
            return cost, ahead, count
        steps = np.asarray(LOOKAHEAD) - 1
        look = steps.size
        chain = field.chains(nodes[rows], int(steps[-1]) + 1)[:, steps]
        at_goal = chain == field.goal
        target = self._graph.positions[chain]
        target[at_goal] = np.broadcast_to(goals[rows][:, None, :], (m, look, 2))[at_goal]
        flat = target.reshape(-1, 2)
        seen, _ = self._move(self._world, self._graph, np.repeat(points[rows], look, axis=0),
                             np.repeat(nodes[rows], look), flat)
        clear = (seen == flat).all(axis=1).reshape(m, look)
        clear[:, 0] = True                    # the next cell: one allowed move away
        far = look - 1 - np.argmax(clear[:, ::-1], axis=1)
        pick = np.arange(m)
        ahead[rows, 0] = target[pick, far]
        count[rows] = ~at_goal[pick, far]
        return cost, ahead, count


def grid_flow(world, graph, goal_node):
    """``navcore_flow_field`` on a grid: a ``GridFlow`` toward cell
    ``goal_node``; ``None`` for other graphs."""
    if graph.kind != "grid":
        return None
    return GridFlow(world, graph, goal_node)


def warm_up() -> None:
    """Load the kernels (a crowd on a grid calls them in its steps)."""
    one = np.zeros(2, np.int64)
    none32, none = np.zeros(0, np.int32), np.zeros(0)
    field_kernel(one, none32, none, one, none32, none, 0, np.empty(1), np.empty(1, np.int32))
    chains(np.zeros(1, np.int32), np.zeros(0, np.int32), 1, np.empty((0, 1), np.int32))
