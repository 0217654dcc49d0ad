"""One ORCA step for agents given as arrays (the crowd's avoidance phase):
the neighbour grid, the new velocities and the move.

>>> import numpy as np
>>> from navcore_crowd.avoidance import Agents, step
>>> agents = Agents(np.array([[0.0, 0.0], [10.0, 0.0]]), radius=1.0, max_speed=1.0)
>>> agents.pref[:] = [[1.0, 0.0], [-1.0, 0.0]]     # head-on
>>> for _ in range(40):
...     step(agents, 0.25)
>>> bool(np.hypot(*(agents.pos[0] - agents.pos[1])) >= 2.0)    # they passed apart
True
"""
from __future__ import annotations

import math

import numpy as np

from . import _orca as K


class Walls:
    """Walls as RVO2 takes obstacles: closed rings of vertices with
    walkable space on the right of every edge ``v -> next`` (counter-
    clockwise around what is solid); a two-vertex ring is a thin wall
    seen from both sides. ``Walls(rings)`` from a list of rings;
    ``Walls.from_rings(vertices, ring_start, owner)`` from the arrays
    ``navcore_walls`` gives. ``owner`` (int32 per vertex, or empty): the
    node whose side the edge from each vertex is; an agent then avoids
    only the walls of the nodes of its neighbourhood (``Agents.local``)."""

    def __init__(self, rings=(), cell: float = 8.0):
        rings = [np.asarray(r, dtype=np.float64).reshape(-1, 2) for r in rings]
        start = np.cumsum([0] + [r.shape[0] for r in rings]).astype(np.int64)
        verts = np.concatenate(rings) if rings else np.zeros((0, 2))
        self._build(verts, start, None, cell)

    @classmethod
    def from_rings(cls, vertices, ring_start, owner=None, cell: float = 8.0) -> "Walls":
        walls = cls.__new__(cls)
        walls._build(np.ascontiguousarray(vertices, dtype=np.float64).reshape(-1, 2),
                     np.asarray(ring_start, dtype=np.int64), owner, cell)
        return walls

    def _build(self, verts, ring_start, owner, cell):
        m = verts.shape[0]
        self.owner = np.zeros(0, np.int32) if owner is None else \
            np.ascontiguousarray(owner, dtype=np.int32)
        #: how many nodes the owners name (``Scratch.mark``'s size)
        self.num_owners = int(self.owner.max()) + 1 if self.owner.size else 0
        idx = np.arange(m)
        ring = np.repeat(np.arange(ring_start.size - 1), np.diff(ring_start))
        lo, hi = ring_start[ring], ring_start[ring + 1]
        self.vertices = verts
        self.next = np.where(idx + 1 < hi, idx + 1, lo).astype(np.int32)
        self.prev = np.where(idx > lo, idx - 1, hi - 1).astype(np.int32)
        d = verts[self.next] - verts
        length = np.hypot(d[:, 0], d[:, 1])
        self.direction = d / np.where(length > 0, length, 1.0)[:, None]
        a, b, c = verts[self.prev], verts, verts[self.next]
        turn = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
        self.convex = (turn >= 0) | (hi - lo == 2)
        if m:
            lo_xy = verts.min(0)
            size = np.maximum(verts.max(0) - lo_xy, cell)
            nx, ny = (int(v) for v in np.ceil(size / cell))
            self.grid = np.array([cell, lo_xy[0], lo_xy[1], nx, ny])
            self.start, self.items = K.bucket_edges(verts, self.next, lo_xy[0], lo_xy[1],
                                                    cell, nx, ny)
        else:
            nx = ny = 1
            self.grid = np.array([1.0, 0.0, 0.0, 1.0, 1.0])
            self.start, self.items = np.zeros(2, np.int64), np.zeros(0, np.int32)
        #: how many edges the cells hold, summed from the grid's corner
        #: (``(ny + 1, nx + 1)``): the edges of any block of cells at once,
        #: so an agent far from every wall reads no cell
        self.filled = np.zeros((ny + 1, nx + 1), np.int64)
        self.filled[1:, 1:] = np.diff(self.start).reshape(ny, nx).cumsum(0).cumsum(1)


#: the most walls that make half-planes for one agent (its nearest)
MAX_WALLS = 64
#: the most neighbours one agent avoids (``max_neighbours``)
MAX_NEIGHBOURS = 64
_NONE = np.zeros(0)
#: the least share of its radius an agent keeps off the walls
#: (``wall_radii``)
MIN_WALL_RADIUS = 0.01


def wall_radii(radius, clearance: float) -> np.ndarray:
    """Per agent of ``radius``, the disc ORCA keeps off walls that
    already keep ``clearance`` from the solid (a navmesh or level built for
    an agent radius): the rest of its radius, at least ``MIN_WALL_RADIUS``
    of it (never 0: an agent on a wall's line still has a side)."""
    radius = np.asarray(radius, dtype=np.float64)
    return np.maximum(radius - clearance, MIN_WALL_RADIUS * radius)


class Scratch:
    """One thread's working arrays for ``_orca.velocities``."""

    def __init__(self, walls: Walls):
        lines = MAX_WALLS + MAX_NEIGHBOURS
        self.keys = np.empty(max(MAX_WALLS, MAX_NEIGHBOURS))
        self.ids = np.empty(self.keys.size, np.int32)
        self.stamp = np.zeros(walls.vertices.shape[0] + 1, np.int64)
        self.mark = np.zeros(walls.num_owners + 1, np.int64)
        self.lp, self.ld = np.empty((lines, 2)), np.empty((lines, 2))
        self.pp, self.pd = np.empty((lines, 2)), np.empty((lines, 2))
        #: one mark per agent and the last generation (``neighbours_from_hint``)
        self.seen = np.zeros(1, np.int64)

    def fit(self, n: int) -> None:
        """Room for ``n`` agents."""
        if self.seen.size < n + 1:
            self.seen = np.zeros(n + 1, np.int64)


class Agents:
    """Agents as arrays with RVO2's parameters (per agent). ``pos`` are
    ground points; on a surface with floors above one another (a 3D
    level, ``floors``) ``elev`` holds each agent's height and ``tall``
    how tall it is: agents ignore those on other floors
    (``_orca.apart``), and with
    walls that have owners ``local`` (``(start, nodes)``, as
    ``navcore_local_neighbourhood`` gives them) says whose walls each
    agent avoids."""

    def __init__(self, pos, radius=0.5, max_speed=2.0, neighbour_dist=15.0, max_neighbours=10,
                 time_horizon=10.0, time_horizon_obstacles=10.0, walls: Walls | None = None,
                 tall=2.0):
        self.pos = np.array(pos, dtype=np.float64).reshape(-1, 2)
        n = self.pos.shape[0]
        full = lambda v, t=np.float64: np.broadcast_to(np.asarray(v, t), (n,)).copy()
        #: agents stand on several floors (``elev`` and ``tall`` count)
        self.floors = False
        self.elev = np.zeros(n)
        self.tall = full(tall)
        self.local = (np.zeros(n + 1, np.int64), np.zeros(0, np.int32))
        self.vel = np.zeros((n, 2))
        self.pref = np.zeros((n, 2))
        self.radius = full(radius)
        #: how far each agent keeps from the walls: its radius, less what
        #: the walls already keep (``wall_radii``: a navmesh or level built
        #: for an agent radius)
        self.wall_radius = self.radius.copy()
        #: how little of the avoiding each agent takes (``_orca``: a pair
        #: splits it in inverse proportion; all 1: RVO2's halves)
        self.weight = np.ones(n)
        self.max_speed = full(max_speed)
        self.neighbour_dist = full(neighbour_dist)
        self.max_neighbours = np.minimum(full(max_neighbours, np.int64), MAX_NEIGHBOURS)
        self.time_horizon = full(time_horizon)
        self.time_horizon_obstacles = full(time_horizon_obstacles)
        self.new_vel = np.zeros((n, 2))
        self.cell_items = np.empty(n, np.int32)
        self.cell_start = np.zeros(2, np.int64)
        self.cell_pos = np.empty((0, 2))        # the points in cell order
        self.pairs = np.empty((1024, 2), np.int32)     # separation's close pairs
        self.drift, self.moved = np.empty(0), np.zeros((0, 2))    # and its scratch
        self.held, self.off_walls = np.zeros((0, 3)), np.empty((0, 2))
        #: each agent's neighbours of the last step, where the next search
        #: starts (``_orca.neighbours_from_hint``; any agents will do, the
        #: search is exact whatever they are): ``hint[i, :hint_n[i]]``
        self.hint, self.hint_n = np.zeros((0, 0), np.int32), np.zeros(0, np.int32)
        self.set_walls(walls if walls is not None else Walls())

    def heights(self) -> tuple:
        """``(elev, tall)`` as the kernels take them: empty on one floor."""
        return (self.elev, self.tall) if self.floors else (_NONE, _NONE)

    def set_walls(self, walls: Walls) -> None:
        self.walls = walls
        self.scratch = [Scratch(walls)]

    def scratch_for(self, chunks: int) -> list:
        while len(self.scratch) < chunks:
            self.scratch.append(Scratch(self.walls))
        return self.scratch[:chunks]


def step(agents: Agents, dt: float) -> None:
    """Every agent's ORCA velocity from the velocities now, then the move
    (all agents see the same old velocities, as RVO2's ``doStep``)."""
    step_velocities(agents, dt)
    agents.vel[:] = agents.new_vel
    agents.pos += agents.vel * dt


def step_velocities(agents: Agents, dt: float, run=None, chunks: int = 1) -> None:
    """Every agent's ORCA velocity (``agents.new_vel``) from the positions
    and velocities now. ``run(calls)``, given, runs ``[(fn, args)]`` (one
    per chunk of ``chunks``) on several threads and returns when all are
    done; each agent's velocity depends on the old state alone, so the
    answer is the same however the agents are split."""
    a, w = agents, agents.walls
    n = a.pos.shape[0]
    if n == 0:
        return
    reach = float(a.neighbour_dist.max())
    x0, y0, x1, y1 = K.bounds(a.pos)
    w_span, h_span = x1 - x0, y1 - y0
    # cells of about one agent each where the crowd is as dense as its box
    # (at least an eighth of the neighbour distance, at most all of it):
    # an agent's nearest neighbours are then found in a few small cells,
    # not among every agent of the nine cells a neighbour distance wide.
    # The neighbour lists do not depend on the cells (``agent_neighbours``)
    side = min(reach, max(math.sqrt(w_span * h_span / n), reach / 8.0))
    nx, ny = _cells(w_span, h_span, side)
    while nx * ny > 4 * n + 16:          # a sparse crowd: fewer, larger cells
        side *= 2.0
        nx, ny = _cells(w_span, h_span, side)
    if a.cell_start.size < nx * ny + 1:
        a.cell_start = np.zeros(nx * ny + 1, np.int64)
    if a.cell_items.size != n:
        a.cell_items = np.empty(n, np.int32)
    K.bucket(a.pos, x0, y0, side, nx, ny, a.cell_start, a.cell_items)
    if a.cell_pos.shape[0] != n:
        a.cell_pos = np.empty((n, 2))
    K.in_cell_order(a.pos, a.cell_items, a.cell_pos)
    grid = np.array([side, x0, y0, nx, ny])
    local_start, local_nodes = a.local
    elev, tall = a.heights()
    if w.owner.size and local_start.size != n + 1:
        raise ValueError(f"walls with owners need a neighbourhood per agent ({n}), got "
                         f"{local_start.size - 1}")
    width = int(a.max_neighbours.max())
    if a.hint.shape != (n, width):
        a.hint, a.hint_n = np.zeros((n, width), np.int32), np.zeros(n, np.int32)
    chunks = max(1, min(chunks, n)) if run is not None else 1
    # integer cuts (``np.linspace`` costs about 20 us, 1% of a 1,000-agent
    # step); the answer does not depend on them
    bounds = [n * c // chunks for c in range(chunks + 1)]
    calls = []
    for (first, last), s in zip(zip(bounds[:-1], bounds[1:]), a.scratch_for(chunks)):
        s.fit(n)
        calls.append((K.velocities, (
            first, last, a.pos, elev, tall, a.vel, a.pref, a.radius, a.wall_radius, a.weight,
            a.max_speed, a.neighbour_dist, a.max_neighbours, a.time_horizon,
            a.time_horizon_obstacles, dt,
            grid, a.cell_start, a.cell_items, a.cell_pos, w.vertices, w.next, w.prev,
            w.direction, w.convex, w.owner, local_start, local_nodes, w.grid, w.start, w.items,
            w.filled, MAX_WALLS, s.keys, s.ids, s.stamp, s.mark, s.lp, s.ld, s.pp, s.pd,
            a.hint, a.hint_n, s.seen, a.new_vel)))
    if len(calls) == 1:
        fn, args = calls[0]
        fn(*args)
    else:
        run(calls)


def near_grid(agents: Agents, reach: float) -> tuple:
    """The agents bucketed by cells of side ``reach`` or more (fewer, larger
    cells when they are spread thin) into ``agents.cell_start`` and
    ``cell_items``: ``(cell, x0, y0, nx, ny)``, as ``_orca.bucket`` takes
    them; every agent within ``reach`` of one stands in its cell's block of
    nine."""
    a = agents
    n = a.pos.shape[0]
    # no agents (a crowd's kernels loaded before any is added): one cell
    x0, y0, x1, y1 = K.bounds(a.pos) if n else (0.0, 0.0, 0.0, 0.0)
    side = max(reach, 1e-9)
    nx, ny = _cells(x1 - x0, y1 - y0, side)
    while nx * ny > 4 * n + 16:
        side *= 2.0
        nx, ny = _cells(x1 - x0, y1 - y0, side)
    if a.cell_start.size < nx * ny + 1:
        a.cell_start = np.zeros(nx * ny + 1, np.int64)
    if a.cell_items.size != n:
        a.cell_items = np.empty(n, np.int32)
    K.bucket(a.pos, x0, y0, side, nx, ny, a.cell_start, a.cell_items)
    return side, x0, y0, nx, ny


def _cells(w_span, h_span, side):
    """``(nx, ny)``: cells of ``side`` over a box ``w_span`` by
    ``h_span`` (at least one cell a way)."""
    return (int(math.ceil(max(w_span, side) / side)), int(math.ceil(max(h_span, side) / side)))


#: at most this many passes of ``separate`` per step; the first
#: ``WEIGHTED_PASSES`` part pairs by their weights, the rest evenly
SEPARATION_PASSES = 64
WEIGHTED_PASSES = 2
#: overlaps this small are left (a thousandth of a unit)
OVERLAP_TOLERANCE = 1e-4
#: each push of ``separate`` parts a pair by this many times its overlap
#: (successive over-relaxation): RVO2's circle at 10,000 agents parts
#: its crowd in 6 passes instead of 14, a dense jam in 295 instead of over
#: 384, at a gap of at most half the overlap between the pair
SEPARATION_OVER_RELAX = 1.5


#: at most about this many pair tests of ``separate`` a step (passes
#: stop before one that would go past it): a jam of thousands too dense
#: to part within them stays overlapped into the next step, whose
#: velocities part it too, so a step's cost stays bounded (RVO2's circle
#: at 10,000 agents jammed in its middle took 200-250 ms a step without
#: it, about 45 ms with it; 400 discs dropped at random on a square they
#: cover 0.6 of part in 43,000 pair tests)
SEPARATION_WORK = 2_000_000


#: rounds of passes, each ended by keeping the pushed agents on the ground
#: and off the walls; agents a wall held back slide along it in the next
SEPARATION_ROUNDS = 6
#: a wall holds an agent back when it cuts its push short by more than
#: this (less is the rounding of a move along the surface)
HELD_BACK = 1e-6
#: walls that held an agent back along ways 45 degrees apart or more (a
#: corner, the end of a dead end, a gap narrower than its disc) pin it:
#: sliding along the one way that sums them would take it into one of the
#: walls, so a push toward them (against that way) moves it not at all and
#: its neighbour takes the whole push. (A disc first pushed out of a square
#: corner in one move is held along the corner's bisector, 45 degrees from
#: either wall, and pinned once either holds it back again.)
PINNED_COS = math.sqrt(0.5)


def separate(agents: Agents, move=None) -> float:
    """Push overlapping agents apart until no pair overlaps by more than
    ``OVERLAP_TOLERANCE`` or ``SEPARATION_PASSES`` passes are done (the
    first by weight, so a walker pushes those standing; then evenly), in
    at most ``SEPARATION_ROUNDS`` rounds and about ``SEPARATION_WORK``
    pair tests;
    ``move(rows, start, end)``, given, keeps agents on walkable ground
    and returns where those agents end: with it every disc is first
    pushed off the walls it reaches into (``unwall``), and after each
    round of passes each push is kept on the ground and off the walls.
    An agent a wall held back (its push cut short, or pushed off a wall)
    is not pushed into that wall again in the rounds after but slides
    along it, its neighbours taking the rest of the push (as
    position-based crowd solvers keep a wall contact): a pair pressed
    against a wall parts along it. One held back by walls on several
    sides (a corner, the end of a dead end: ``PINNED_COS``) is not pushed
    toward them at all: its neighbour takes the whole push. The largest
    overlap left by the last round's passes."""
    a = agents
    n = a.pos.shape[0]
    if n < 2 and move is None:
        return 0.0
    if a.cell_start.size < 4 * n + 17:
        a.cell_start = np.zeros(4 * n + 17, np.int64)
    if a.cell_items.size != n:
        a.cell_items = np.empty(n, np.int32)
    if a.drift.size != n:
        a.drift, a.moved = np.empty(n), np.zeros((n, 2))
        a.held, a.off_walls = np.zeros((n, 3)), np.empty((n, 2))
    drift, moved, held = a.drift, a.moved, a.held
    held[:] = 0.0
    if move is not None:
        _hold(held, *unwall(a, np.arange(n), move))
    if n < 2:
        return 0.0
    worst = 0.0
    work = SEPARATION_WORK
    for _ in range(SEPARATION_ROUNDS):
        moved[:] = 0.0
        while True:
            worst, tested = K.relax(a.pos, *a.heights(), a.radius, a.weight, held,
                                    SEPARATION_PASSES, WEIGHTED_PASSES, OVERLAP_TOLERANCE,
                                    SEPARATION_OVER_RELAX, work, a.cell_start, a.cell_items,
                                    a.pairs, drift, moved)
            if worst >= 0.0:
                break
            a.pairs = np.empty((2 * a.pairs.shape[0], 2), np.int32)     # more room
        work -= tested
        pushed = K.moved_rows(moved)
        if move is None or pushed.size == 0:
            break
        end = a.pos[pushed]
        a.pos[pushed] = move(pushed, end - moved[pushed], end)
        unwall(a, pushed, move)
        back = a.pos[pushed] - end
        stopped = np.hypot(back[:, 0], back[:, 1]) > HELD_BACK
        if (not stopped.any() and worst <= OVERLAP_TOLERANCE) or work <= 0:
            break                          # no wall held a push back, or no work left
        _hold(held, pushed[stopped], back[stopped])
    return worst


def _hold(held, rows, back):
    """Agents ``rows`` were pushed ``back`` by a wall: the way walls hold
    them (``held[:, :2]``, a unit vector) turns to take it in (a corner's
    two walls: between them), and one held along ways apart
    (``PINNED_COS``) is pinned (``held[:, 2]``: 1)."""
    if rows.size == 0:
        return                        # most steps: the fancy indexing below costs ~25 us
    size = np.hypot(back[:, 0], back[:, 1])
    held_back = size > HELD_BACK
    rows, back, size = rows[held_back], back[held_back], size[held_back]
    old, new = held[rows, :2], back / size[:, None]
    turned = (np.hypot(old[:, 0], old[:, 1]) > 0.0) & (
        old[:, 0] * new[:, 0] + old[:, 1] * new[:, 1] <= PINNED_COS + 1e-9)
    way = old + new
    held[rows, :2] = way / np.maximum(np.hypot(way[:, 0], way[:, 1]), 1e-12)[:, None]
    held[rows[turned], 2] = 1.0


def unwall(agents: Agents, rows, move) -> tuple:
    """Push the discs (``wall_radius``) of agents ``rows`` out of the
    walls they reach into, kept on walkable ground by ``move`` (as in
    ``separate``); ``(moved, by)``: the rows moved and how far each.
    Walls with owners (floors above one another) are left to ORCA: an
    agent avoids only its own floor's."""
    a, w = agents, agents.walls
    if w.owner.size or rows.size == 0:
        return rows[:0], _NONE.reshape(0, 2)
    out = a.off_walls[:rows.size]
    if K.unwall(rows, a.pos, a.wall_radius, w.vertices, w.next, w.grid, w.start, w.items,
                w.filled, a.scratch[0].stamp, out) == 0:
        return rows[:0], _NONE.reshape(0, 2)
    changed = (out[:, 0] != a.pos[rows, 0]) | (out[:, 1] != a.pos[rows, 1])
    rows = rows[changed]
    start = a.pos[rows]
    a.pos[rows] = move(rows, start, out[changed])
    return rows, a.pos[rows] - start
