"""``Crowd``: agents that walk one graph together, as arrays.

Each step, for every agent: its path corridor's next corner (skipping
corners it can already see), a preferred velocity toward it, ORCA
against its neighbours and the graph's walls (``avoidance``), the move
kept on walkable ground (``navcore_move_along_surface``). Paths come from
the world's scheduler (``request_path`` with ``repath=True``), so a map
change re-plans the paths it breaks and an agent without a path gets one
when its goal's area joins its own again. Agents sharing a goal node (a
cell, a polygon: ``FLOW_MIN_AGENTS`` or more) walk one flow field instead,
when the graph's plugins make one (``navcore_flow_field``: grids and 2D
navmeshes), made again when the graph changes.

>>> import navcore
>>> world = navcore.World()
>>> _ = world.add_graph("room", type="grid", rows=["........", "...##...", "........"])
>>> crowd = world.add_crowd("units", graph="room", radius=0.3, max_speed=2.0)
>>> ids = crowd.add([(0.5, 0.5), (0.5, 2.5)], goals=[(7.5, 2.5), (7.5, 0.5)])
>>> for _ in range(80):
...     _ = world.tick(0.1)
>>> crowd.arrived.tolist(), crowd.state_names()
([True, True], ['arrived', 'arrived'])
"""
from __future__ import annotations

import math
from types import MappingProxyType

import numpy as np

from navcore import ends, validate
from navcore.errors import CrowdError
from navcore.limits import MAX_COORDINATE
from navcore.types import PathStatus

from . import _steer as S
from . import flowfield
from .avoidance import Agents, Walls, near_grid, separate, step_velocities, wall_radii

#: ``Crowd.state`` values, by name
STATES = {"idle": S.IDLE, "waiting": S.WAITING, "moving": S.MOVING, "arrived": S.ARRIVED,
          "no_path": S.NO_PATH, "on_link": S.ON_LINK}
_NAMES = {v: k for k, v in STATES.items()}
#: the smallest radius an agent may have (its reach decides arrival)
MIN_RADIUS = 1e-6
#: the longest horizon, in seconds (a day)
MAX_HORIZON = 86_400.0
#: the avoidance weight of an agent that is not walking, against a walking
#: one's 1: 0, it does all of a pair's avoiding, and the walker passes it
#: as a pushing unit passes one that stands (avoiding it a step ahead only).
#: So has one walking back to its goal after others pushed it off
#: (``_steer.displaced``): a walker that pushed it through a passage pushes
#: it on until it can step aside (instead of the two stalling head-on), and
#: it walks back between agents standing without shoving them
STANDING_WEIGHT = 0.0
#: the avoidance weight of a walker that gives way (stuck a while): it
#: takes most of the avoiding from other walkers, and still pushes those
#: standing
YIELDING_WEIGHT = 0.25
#: the fewest agents per thread for which the avoidance splits over the
#: world's workers (a scheduler job costs tens of microseconds, an agent's
#: avoidance about two)
PARALLEL_AGENTS = 256
#: the fewest agents per thread for which the flow field's steering splits
#: over the world's workers. bench/crowd_split.py measures it: a job's
#: round trip costs 45-95 us, the steering 0.17-0.28 us an agent, so two
#: threads can save at most 0.05-0.09 ms at 1,000 agents; split in two it
#: was 0.2-0.3 ms slower at 1,000 and 5,000 agents with the cores shared
PARALLEL_STEER = 1024
#: the fewest agents per thread for which the moves split over the world's
#: workers: 0.29-0.37 us an agent (bench/crowd_split.py), split in two
#: 0.2-0.4 ms slower at 1,000 and 5,000 agents with the cores shared;
#: with the steering split, 12-18% of a step faster at 5,000-10,000
#: agents with a core free
PARALLEL_MOVES = 1024
#: agents of a crowd sharing a goal node (a grid's cell, a navmesh's
#: polygon) walk one flow field (``navcore_flow_field``) instead of a path
#: each once there are this many of them
FLOW_MIN_AGENTS = 8

#: the parameters of ``World.add_crowd`` and their defaults: RVO2's agent
#: parameters, sized for maps measured in cells or metres (a person's
#: radius and walking pace, corridors one cell wide)
DEFAULTS = dict(radius=0.4, max_speed=1.5, max_accel=math.inf, neighbour_dist=4.0,
                max_neighbours=10, time_horizon=2.0, time_horizon_obstacles=1.0, height=2.0)


class Crowd:
    """Agents on graph ``graph_id`` of ``world`` (``World.add_crowd``).

    Parameters (per crowd; ``radius`` and ``max_speed`` also per agent in
    ``add``): ``radius`` of an agent's disc; ``max_speed`` (units per
    second); ``max_accel`` (units per second squared, ``inf``: none, as
    RVO2); ``neighbour_dist`` and ``max_neighbours``: the agents one
    avoids (the nearest, within that distance); ``time_horizon`` and
    ``time_horizon_obstacles``: how far ahead, in seconds, it avoids
    agents and walls (longer: earlier, wider detours); ``height``: how
    tall an agent is (on a 3D level agents whose heights differ by at
    least that stand on different floors and ignore each other,
    DetourCrowd's rule; RecastDemo's 2.0).

    Agents have ids (``add`` returns them; never reused); the arrays
    (``positions``, ``velocities``, ``goals``, ``state``, ``arrived``)
    list them in ``ids`` order.
    """

    #: the values of ``state``, by name (the module's ``STATES``, read-only)
    STATES = MappingProxyType(STATES)
    #: columns of a point inside the crowd (``_place``, ``goals``): x, y
    _COLS = 2
    #: columns of a corridor point (``_pts``; the kernels read x, y)
    _PT_COLS = 2
    #: per-agent arrays of a subclass, which ``remove`` keeps in step
    _MORE_ROWS = ()

    def __init__(self, world, crowd_id, graph_id, **params):
        unknown = sorted(set(params) - set(DEFAULTS))
        if unknown:
            raise CrowdError(f"add_crowd: unknown parameter(s) {', '.join(unknown)}; "
                             f"known: {', '.join(DEFAULTS)}")
        p = {**DEFAULTS, **params}
        self.radius = _positive(p["radius"], "radius", MIN_RADIUS, MAX_COORDINATE)
        self.max_speed = _positive(p["max_speed"], "max_speed", 0.0, MAX_COORDINATE)
        self.max_accel = _positive(p["max_accel"], "max_accel", 0.0, math.inf)
        self.neighbour_dist = _positive(p["neighbour_dist"], "neighbour_dist", 0.0,
                                        MAX_COORDINATE)
        self.time_horizon = _positive(p["time_horizon"], "time_horizon", 0.0, MAX_HORIZON)
        self.time_horizon_obstacles = _positive(p["time_horizon_obstacles"],
                                                "time_horizon_obstacles", 0.0, MAX_HORIZON)
        self.height = _positive(p["height"], "height", 0.0, MAX_COORDINATE)
        k = p["max_neighbours"]
        if not validate.is_int(k) or not 0 <= k <= 64:
            raise CrowdError(f"add_crowd: max_neighbours must be a whole number from 0 to "
                             f"64, got {validate.describe(k)}")
        self.max_neighbours = int(k)
        self.world, self.crowd_id, self.graph_id = world, crowd_id, graph_id
        self.graph = world.graph(graph_id)
        #: how far the graph's walls already keep agents' centres from the
        #: solid (a navmesh or 3D level built for an ``agent_radius``):
        #: agents keep only the rest of their radius from them (``wall_radii``)
        self.clearance = float(getattr(self.graph, "agent_radius", 0.0) or 0.0)
        self._walls_version = -1
        self._agents = Agents(np.zeros((0, 2)), walls=Walls())
        self._ids = np.zeros(0, np.int64)
        self._goal = np.zeros((0, self._COLS))
        self._state = np.zeros(0, np.int8)
        self._node = np.zeros(0, np.int32)
        self._row_of = np.zeros(0, np.int64)       # agent id -> row, -1 once removed
        # corridors: agent r's path is _pts[_lo[r]:_hi[r]], heading for _corner[r]
        self._pts = np.zeros((64, self._PT_COLS))
        self._used = 0
        self._lo = np.zeros(0, np.int64)
        self._hi = np.zeros(0, np.int64)
        self._corner = np.zeros(0, np.int64)
        self._stall = np.zeros(0)                  # seconds without headway
        self._gain = np.zeros((0, 2))              # seconds, metres along its way
        self._yield = np.zeros(0)                  # seconds left giving way
        self._retry = np.zeros(0, bool)            # plan again (its start was blocked,
                                                   # or it backed out of another's way)
        self._back = np.zeros(0, np.int64)         # backing out of the way of this id, or -1
        self._back_left = np.zeros(0)              # seconds it may back on
        self._back_to = np.zeros((0, 2))           # the place beside the way it backs to
        self._aside = np.zeros(0, bool)            # stepping into that place this step
        self._served = np.zeros(0, np.int64)       # path results received
        self._rest = np.zeros(0)                   # how far from its goal an arrived one
                                                   # came to rest (NaN: not arrived)
        self._returning = np.zeros(0, bool)        # walking back to its goal, pushed off it
        self._within = np.zeros(0)                 # ... until this near it
        self._still = np.zeros(0)                  # seconds an arrived one was left alone
        self._handles: dict = {}                   # agent id -> its path request
        # flow fields: agent r walks the field of goal node _field[r] (-1:
        # its own path); the fields in use, by goal node; _flow turns False
        # when the graph's plugins make none
        self._field = np.zeros(0, np.int32)
        self._fields: dict = {}
        #: how many flow fields this crowd has made (one per goal node and
        #: graph version in use)
        self.fields_made = 0
        self._flow = True
        self._field_pts = np.empty((0, 2))          # the ways read from fields, a step's
        self._start = self._end = np.empty((0, 2))  # a step's moves, from and to
        self._agent_of: dict = {}                  # path request -> agent id
        self._arrived_paths = _Many(self._take_paths)
        self._replan_from = _Many(self._starts)
        self.closed = False
        # a graph a crowd cannot walk is refused now, not at its first step
        self._current_walls()
        self._move(np.zeros((0, 2)), np.zeros(0, np.int32), np.zeros((0, 2)))
        self._load_kernels()

    # -- the arrays ---------------------------------------------------------
    def __len__(self) -> int:
        return int(self._ids.size)

    @property
    def ids(self) -> np.ndarray:
        """int64: the agents' ids, in the order of every array (a copy)."""
        return self._ids.copy()

    @property
    def goals(self) -> np.ndarray:
        """float64 ``(n, 2)``: each agent's goal, NaN without one (a copy)."""
        return self._goal.copy()

    @property
    def state(self) -> np.ndarray:
        """int8 per agent, a value of ``STATES`` (a copy)."""
        return self._state.copy()

    @property
    def positions(self) -> np.ndarray:
        """float64 ``(n, 2)``: where each agent stands (a copy)."""
        return self._agents.pos.copy()

    @property
    def velocities(self) -> np.ndarray:
        """float64 ``(n, 2)``: each agent's velocity in the last step."""
        return self._agents.vel.copy()

    @property
    def radii(self) -> np.ndarray:
        return self._agents.radius.copy()

    @property
    def paths_served(self) -> np.ndarray:
        """int64 per agent: how many path results it has received, found
        or not (its first for each goal, then each re-plan: a map change
        broke or blocked its path, or it was stuck); agents on a flow field
        receive none. A copy."""
        return self._served.copy()

    @property
    def arrived(self) -> np.ndarray:
        """bool per agent: it reached its goal (within its radius, or
        where others standing round it held it up) and has not been pushed
        off it since (one pushed off walks back: ``_steer.displaced``)."""
        return self._state == S.ARRIVED

    def state_names(self) -> list:
        """``state`` as names (``STATES``)."""
        return [_NAMES[int(s)] for s in self._state]

    # -- changing agents ----------------------------------------------------
    def add(self, positions, goals=None, radius=None, max_speed=None) -> np.ndarray:
        """Add agents standing at ``positions`` (``(k, 2)``, or one point)
        and return their ids (int64). ``goals``: send them there at once
        (as ``set_goals``). ``radius``/``max_speed``: one value or one per
        agent (default: the crowd's). A position off walkable ground, a
        radius or speed that is not a finite number > 0: ``CrowdError``,
        and no agent is added."""
        self._check_open("add")
        pos, nodes = self._place(positions, "positions")
        k = pos.shape[0]
        rad = _per_agent(self.radius if radius is None else radius, k, "radius", MIN_RADIUS)
        speed = _per_agent(self.max_speed if max_speed is None else max_speed, k, "max_speed",
                           0.0)
        goal = None if goals is None else self._goals(goals, k)
        first = self._row_of.size
        new_ids = np.arange(first, first + k, dtype=np.int64)
        a = self._agents
        n = self._ids.size
        self._resize(n + k)
        a.radius[n:] = rad
        a.wall_radius[n:] = wall_radii(rad, self.clearance)
        a.max_speed[n:] = speed
        self._put(np.arange(n, n + k), pos, nodes)
        self._ids[n:] = new_ids
        self._row_of = np.concatenate([self._row_of, np.arange(n, n + k, dtype=np.int64)])
        if goal is not None:
            self._send(new_ids, np.arange(n, n + k), goal)
        return new_ids

    def set_goals(self, ids, goals) -> None:
        """Send agents ``ids`` to ``goals`` (one point for all, or one per
        agent): each plans a path there (served by the next ticks) and
        follows it. A goal off walkable ground: ``CrowdError``."""
        self._check_open("set_goals")
        ids, rows = self._rows(ids)
        goals = self._goals(goals, ids.size)
        self._returning[rows] = False
        self._send(ids, rows, goals)

    def stop(self, ids) -> None:
        """Agents ``ids`` give up their goals and stand (still stepping
        aside for others)."""
        self._check_open("stop")
        ids, rows = self._rows(ids)
        self._cancel(ids)
        self._state[rows] = S.IDLE
        self._returning[rows] = False
        self._hi[rows] = self._lo[rows]
        self._field[rows] = -1

    def remove(self, ids) -> None:
        """Take agents ``ids`` out of the crowd; their ids are not reused."""
        self._check_open("remove")
        ids, rows = self._rows(ids)
        self._cancel(ids)
        keep = np.ones(self._ids.size, dtype=bool)
        keep[rows] = False
        self._row_of[ids] = -1
        a = self._agents
        for name in ("pos", "vel", "pref", "new_vel", "radius", "wall_radius", "max_speed",
                     "weight", "elev"):
            setattr(a, name, getattr(a, name)[keep])
        for name in ("_ids", "_goal", "_state", "_node", "_lo", "_hi", "_corner", "_stall",
                     "_gain", "_yield", "_retry", "_back", "_back_left", "_back_to", "_aside",
                     "_field",
                     "_served", "_rest", "_returning", "_within", "_still") + self._MORE_ROWS:
            setattr(self, name, getattr(self, name)[keep])
        self._row_of[self._ids] = np.arange(self._ids.size)
        self._fit_agents()

    def teleport(self, ids, positions) -> None:
        """Put agents ``ids`` at ``positions`` (on walkable ground: else
        ``CrowdError``); those with a goal plan again from there."""
        self._check_open("teleport")
        ids, rows = self._rows(ids)
        pos, nodes = self._place(positions, "positions", ids.size)
        self._put(rows, pos, nodes)
        self._agents.vel[rows] = 0.0
        self._returning[rows] = False
        going = np.isin(self._state[rows], (S.WAITING, S.MOVING, S.NO_PATH, S.ARRIVED))
        if going.any():
            self._send(ids[going], rows[going], self._goal[rows[going]])

    def close(self) -> None:
        """The crowd is removed (``World.remove_crowd``): its requests are
        cancelled."""
        if not self.world.closed:
            self._cancel(self._ids)
        self.closed = True

    # -- stepping -----------------------------------------------------------
    def step(self, dt: float) -> int:
        """Move every agent by ``dt`` seconds; the number moved.
        ``World.tick(dt)`` calls it for every crowd."""
        self._check_open("step")
        dt = validate.frame_number(dt, "dt")
        n = self._ids.size
        if n == 0 or dt == 0.0:
            return 0
        a = self._agents
        self._current_walls()
        ends = self._walk_ends()
        self._see_ahead(ends)
        S.preferred(a.pos, a.radius, a.wall_radius, a.max_speed, self._state, self._pts,
                    self._lo, ends, self._corner, dt, a.pref)
        self._leave_ground(ends)
        self._follow_fields(dt)
        walls = self._wall_arrays()
        S.back_out(self._state, a.pos, a.vel, a.pref, a.radius, a.wall_radius, a.max_speed,
                   self._ids, self._row_of, self._pts, self._corner, ends, self._back,
                   self._back_left, self._back_to, dt, self._retry, self._aside, *walls[:2],
                   *walls[3:])
        # agents that stand (arrived, stopped, waiting for a path) step
        # aside for those walking: they take most of each pair's avoiding;
        # so does one backing out of another's way, or walking back to its goal
        S.weights(self._state, self._yield, self._back, self._aside, self._returning, 1.0,
                  YIELDING_WEIGHT, STANDING_WEIGHT, a.weight)
        if a.walls.owner.size:
            self._neighbourhoods()
        chunks = self._chunks(n)
        step_velocities(a, dt, self._run if chunks > 1 else None, chunks)
        if math.isfinite(self.max_accel):
            S.limit_accel(a.vel, a.new_vel, self.max_accel, dt)
        if self._start.shape != a.pos.shape:
            self._start, self._end = np.empty_like(a.pos), np.empty_like(a.pos)
        start, end = self._start, self._end
        np.multiply(a.new_vel, dt, out=end)
        end += a.pos
        start[:] = a.pos
        self._move_all(start, self._node, end, a.pos, self._node)
        self._settle(dt)
        separate(a, self._push)
        np.subtract(a.pos, start, out=a.vel)
        a.vel /= dt
        replan, near = np.empty(n, np.int64), np.empty(n, np.int64)
        k, m = S.track_stalls(self._state, a.vel, a.pref, a.max_speed, a.pos, self._goal,
                              a.radius, self._ids, self._returning, self._aside, self._back_to,
                              self._stall, self._gain, self._yield, dt, replan, near)
        if k:
            # stuck head-on with another: one of the two backs out
            stuck = replan[:k].copy()
            grid = near_grid(a, (2.0 + S.BLOCK_GAP) * float(a.radius.max()))
            k = S.give_way(replan, k, a.pos, *a.heights(), a.vel, a.pref, a.radius,
                           a.wall_radius, a.max_speed, self._state, self._ids, self._stall,
                           self._gain, self._back, self._back_left, self._back_to, self._yield,
                           self._pts, self._corner, ends, *grid, a.cell_start, a.cell_items,
                           *walls)
            replan, k = self._lost_in_jams(stuck, replan, k, ends)
        if m:
            # stuck within a few radii of the goal: arrived if nothing but
            # other agents stands between (it sees the goal), else it plans;
            # one on its way back arrives where others stand in its way (at
            # a crowded goal), and walks on past walkers
            near = near[:m]
            back = self._returning[near]
            if back.any():
                held = np.empty(m, bool)
                grid = near_grid(a, (2.0 + S.BLOCK_GAP) * float(a.radius.max()))
                S.held_by_standing(near, a.pos, *a.heights(), a.pref, a.radius, self._state,
                                   *grid, a.cell_start, a.cell_items, held)
                near = near[~back | held]
            sees = self._reaches(near, self._goal[near])
            self._state[near[sees]] = S.ARRIVED
            # one on its way back that cannot see its goal walks as any other
            self._returning[near[~sees]] = False
            replan = np.concatenate([replan[:k], near[~sees]])
            k = replan.size
        wake = np.empty(n, np.int64)
        woken = S.displaced(self._state, a.pos, a.vel, self._goal, a.radius, a.max_speed,
                            self._rest, self._still, self._returning, self._within, dt, wake)
        if woken:
            # pushed off its goal: it walks back (a path planned again from
            # here, or its flow field), giving way to walkers on the way
            wake = wake[:woken]
            self._returning[wake] = True
            self._state[wake] = S.MOVING
            replan = np.concatenate([replan[:k], wake])
            k = replan.size
        retry = np.flatnonzero(self._retry & (self._node >= 0))
        if retry.size:
            self._retry[retry] = False
            replan = np.concatenate([replan[:k], retry])
            k = replan.size
        rows = replan[:k]
        rows = rows[self._field[rows] < 0]     # a field is exact: nothing to plan again
        if rows.size:
            self._send(self._ids[rows], rows, self._goal[rows])
        return n

    # -- internals ----------------------------------------------------------
    def _lost_in_jams(self, stuck, replan, k, ends):
        """``(replan, k)`` with the agents of ``stuck`` that ``give_way``
        kept walking on in a jam (not in ``replan[:k]``, backing for no
        one) but that cannot see their corridor's corner added: pushed off
        their way (into a niche), they would press on toward it through
        the walls while the other waits for them, so they plan again."""
        walking = stuck[(self._back[stuck] < 0) & (self._corner[stuck] < ends[stuck])]
        walking = walking[~np.isin(walking, replan[:k])]
        if walking.size == 0:
            return replan, k
        lost = walking[~self._reaches(walking, self._pts[self._corner[walking]])]
        return np.concatenate([replan[:k], lost]), k + lost.size

    def _chunks(self, n, least=None):
        """Into how many chunks ``n`` agents' work splits: one per thread
        (the world's workers and this one) when each gets ``least``
        (``PARALLEL_AGENTS`` when not given, read at the call)."""
        least = PARALLEL_AGENTS if least is None else least
        sched = self.world.scheduler
        workers = getattr(sched, "workers", 0) or 0
        return max(1, min(workers + 1, n // least))

    def _run(self, calls) -> list:
        """Run ``[(fn, args)]``: the first on this thread, the others on the
        world's workers (the kernels release the GIL); their results."""
        sched = self.world.scheduler
        jobs = [sched.schedule(fn, *args) for fn, args in calls[1:]]
        fn, args = calls[0]
        return [fn(*args)] + [job.complete() for job in jobs]

    def _load_kernels(self):
        """Load the kernels of a step now (from numba's cache, or compiled),
        on arrays of the types a step passes: no tick loads one. On a grid
        also the flow field's, and the grid's CSR view the fields read (a
        navmesh's are loaded with the graph)."""
        a, none = self._agents, np.empty(0, np.int64)
        S.lookahead(self._state, self._pts, self._hi, self._corner, none)
        S.preferred(a.pos, a.radius, a.wall_radius, a.max_speed, self._state, self._pts,
                    self._lo, self._hi, self._corner, 0.1, a.pref)
        S.track_stalls(self._state, a.vel, a.pref, a.max_speed, a.pos, self._goal, a.radius,
                       self._ids, self._returning, self._aside, self._back_to, self._stall,
                       self._gain, self._yield, 0.1, none, none)
        S.displaced(self._state, a.pos, a.vel, self._goal, a.radius, a.max_speed, self._rest,
                    self._still, self._returning, self._within, 0.1, none)
        S.held_by_standing(none, a.pos, *a.heights(), a.pref, a.radius, self._state,
                           *near_grid(a, 1.0), a.cell_start, a.cell_items, np.empty(0, bool))
        walls = self._wall_arrays()
        S.back_out(self._state, a.pos, a.vel, a.pref, a.radius, a.wall_radius, a.max_speed,
                   self._ids, self._row_of, self._pts, self._corner, self._hi, self._back,
                   self._back_left, self._back_to, 0.1, self._retry, self._aside, *walls[:2],
                   *walls[3:])
        S.weights(self._state, self._yield, self._back, self._aside, self._returning, 1.0,
                  YIELDING_WEIGHT, STANDING_WEIGHT, a.weight)
        grid = near_grid(a, 1.0)
        S.give_way(none, 0, a.pos, *a.heights(), a.vel, a.pref, a.radius, a.wall_radius,
                   a.max_speed, self._state, self._ids, self._stall, self._gain, self._back,
                   self._back_left, self._back_to, self._yield, self._pts, self._corner,
                   self._hi, *grid, a.cell_start, a.cell_items, *walls)
        if math.isfinite(self.max_accel):
            S.limit_accel(a.vel, a.new_vel, self.max_accel, 0.1)
        S.field_corridors(np.empty((0, 1, 2)), np.empty(0, np.int32), a.pref, none, 0,
                          self._field_pts, none, none)
        S.field_walkers(self._field, self._state, none)
        S.reach_states(np.empty(0), np.empty(0, np.int8))
        two = Agents(np.array([[0.0, 0.0], [0.1, 0.0]]), walls=a.walls)
        two.max_neighbours[:] = 1
        if a.walls.owner.size:
            two.local = self._local(two.pos, np.full(2, -1, np.int32), np.ones(2))
        step_velocities(two, 0.1)
        separate(two, lambda rows, start, end: end)     # with its wall pushes
        if self.graph.kind == "grid":
            flowfield.warm_up()
            self.graph.csr

    def _wall_arrays(self):
        """The walls as ``give_way`` takes them: the edges, whether they
        have owners (floors above one another), and their buckets."""
        w = self._agents.walls
        return w.vertices, w.next, w.owner.size > 0, w.grid, w.start, w.items

    def _check_open(self, what):
        if self.closed:
            raise CrowdError(f"{what}: crowd {self.crowd_id!r} was removed")
        if self.world.closed:
            raise CrowdError(f"{what}: the world of crowd {self.crowd_id!r} is closed "
                             f"(World.close())")

    def _resize(self, n):
        grow = n - self._ids.size
        a = self._agents
        pad2 = np.zeros((grow, 2))
        for name in ("pos", "vel", "pref", "new_vel"):
            setattr(a, name, np.concatenate([getattr(a, name), pad2]))
        a.elev = np.concatenate([a.elev, np.zeros(grow)])
        a.radius = np.concatenate([a.radius, np.zeros(grow)])
        a.wall_radius = np.concatenate([a.wall_radius, np.zeros(grow)])
        a.weight = np.concatenate([a.weight, np.ones(grow)])
        a.max_speed = np.concatenate([a.max_speed, np.zeros(grow)])
        self._ids = np.concatenate([self._ids, np.zeros(grow, np.int64)])
        self._goal = np.concatenate([self._goal, np.full((grow, self._COLS), np.nan)])
        self._state = np.concatenate([self._state, np.zeros(grow, np.int8)])
        self._node = np.concatenate([self._node, np.zeros(grow, np.int32)])
        for name in ("_lo", "_hi", "_corner"):
            setattr(self, name, np.concatenate([getattr(self, name), np.zeros(grow, np.int64)]))
        self._stall = np.concatenate([self._stall, np.zeros(grow)])
        self._gain = np.concatenate([self._gain, np.zeros((grow, 2))])
        self._yield = np.concatenate([self._yield, np.zeros(grow)])
        self._retry = np.concatenate([self._retry, np.zeros(grow, bool)])
        self._back = np.concatenate([self._back, np.full(grow, -1, np.int64)])
        self._back_left = np.concatenate([self._back_left, np.zeros(grow)])
        self._back_to = np.concatenate([self._back_to, np.full((grow, 2), np.nan)])
        self._aside = np.concatenate([self._aside, np.zeros(grow, bool)])
        self._served = np.concatenate([self._served, np.zeros(grow, np.int64)])
        self._rest = np.concatenate([self._rest, np.full(grow, np.nan)])
        self._returning = np.concatenate([self._returning, np.zeros(grow, bool)])
        self._within = np.concatenate([self._within, np.zeros(grow)])
        self._still = np.concatenate([self._still, np.zeros(grow)])
        self._field = np.concatenate([self._field, np.full(grow, -1, np.int32)])
        self._grow_rows(grow)
        self._fit_agents()

    def _fit_agents(self):
        """The per-agent parameters ORCA reads, as long as the arrays."""
        a, n = self._agents, self._ids.size
        a.neighbour_dist = np.full(n, self.neighbour_dist)
        a.max_neighbours = np.full(n, self.max_neighbours, np.int64)
        a.time_horizon = np.full(n, self.time_horizon)
        a.time_horizon_obstacles = np.full(n, self.time_horizon_obstacles)
        a.tall = np.full(n, self.height)


    def _rows(self, ids):
        try:
            arr = np.asarray(ids)
        except (TypeError, ValueError):         # ragged
            arr = np.asarray([], dtype=object).reshape(0, 0)
        if arr.ndim == 0:
            arr = arr.reshape(1)
        if arr.ndim != 1 or not (arr.size == 0 or np.issubdtype(arr.dtype, np.integer)):
            raise CrowdError(f"agent ids must be whole numbers (one, or a list), got "
                             f"{validate.describe(ids)}")
        if arr.dtype.kind == "u":
            arr = np.where(arr > np.uint64(2 ** 62), np.uint64(2 ** 62), arr)   # out of range
        arr = arr.astype(np.int64)
        bad = (arr < 0) | (arr >= self._row_of.size)
        rows = np.full(arr.size, -1, np.int64)
        rows[~bad] = self._row_of[arr[~bad]]
        if (rows < 0).any():
            i = int(np.flatnonzero(rows < 0)[0])
            raise CrowdError(f"crowd {self.crowd_id!r} has no agent {int(arr[i])} "
                             f"(ids[{i}]; removed, or never added)")
        if np.unique(arr).size != arr.size:
            raise CrowdError(f"agent ids repeat: {validate.describe(ids)}")
        return arr, rows

    def _nodes_at(self, pos, what):
        nodes = ends.nodes(self.graph, pos, what, allow_outside=True)
        off = nodes < 0
        off[~off] = ~self.graph.walkable[nodes[~off]]
        if off.any():
            i = int(np.flatnonzero(off)[0])
            raise CrowdError(f"{what}[{i}] = {tuple(pos[i].tolist())} is not on walkable "
                             f"ground of graph {self.graph_id!r}")
        return nodes.astype(np.int32)

    def _goals(self, goals, k):
        pts, _ = self._place(goals, "goals")
        if k == 0 and pts.shape[0] == 0:
            return pts
        if pts.shape[0] == 1 and k != 1:
            pts = np.repeat(pts, k, axis=0)
        if pts.shape[0] != k:
            raise CrowdError(f"goals: one point, or one per agent ({k}), got {pts.shape[0]}")
        return pts

    def _send(self, ids, rows, goals):
        self._cancel(ids)
        self._goal[rows] = goals
        self._state[rows] = S.WAITING
        self._hi[rows] = self._lo[rows]
        self._field[rows] = -1
        self._back[rows] = -1
        self._join_fields()
        own = self._field[rows] < 0
        ids, rows, goals = ids[own], rows[own], goals[own]
        request = self.world.request_path
        for i, s, g in zip(ids.tolist(), self._user(self._here(rows)), self._user(goals)):
            h = request(self.graph_id, s, g, repath=True,
                        callback=self._arrived_paths, replan_from=self._replan_from)
            self._handles[i] = h
            self._agent_of[h] = i

    def _join_fields(self):
        """Agents on their way to a goal node shared by at least
        ``FLOW_MIN_AGENTS`` of them walk its flow field (those following
        paths give them up), on a graph whose plugins make fields. A group
        that shrinks keeps its field."""
        if not self._flow:
            return
        going = np.flatnonzero(np.isin(self._state, (S.WAITING, S.MOVING, S.NO_PATH)))
        if going.size < FLOW_MIN_AGENTS:
            return
        nodes = self.graph.locate_many(self._goal[going])
        _, inverse, counts = np.unique(nodes, return_inverse=True, return_counts=True)
        join = (counts[inverse] >= FLOW_MIN_AGENTS) & (self._field[going] < 0)
        rows = going[join]
        if rows.size == 0:
            return
        keys, first = np.unique(nodes[join], return_index=True)
        new = [(k, r) for k, r in zip(keys.tolist(), rows[first].tolist())
               if k not in self._fields]
        if new and not self._make_fields(new):
            self._flow = False                 # no fields on this graph: paths
            return
        self._cancel(self._ids[rows])
        self._field[rows] = nodes[join]
        self._state[rows] = S.WAITING          # until the next step reads the field
        self._hi[rows] = self._lo[rows]
        self._corner[rows] = self._lo[rows]

    def _make_fields(self, todo) -> bool:
        """The flow fields of ``[(goal node, row)]`` (each ending at that
        agent's goal point) from ``navcore_flow_field``, as scheduler jobs
        (one per goal, on the world's workers) into ``_fields``; False when
        the graph's plugins make none."""
        make = self.world.plugins.caller("navcore_flow_field", type(self.graph))
        made = self._run([(make, (self.world, self.graph, k, self._goal[r].copy()))
                          for k, r in todo])
        if any(f is None for f in made):
            return False
        self._fields.update(zip((k for k, _ in todo), made))
        self.fields_made += len(made)
        return True

    def _follow_fields(self, dt):
        """The preferred velocities of the agents on flow fields: each heads
        for the next points of its way by its field (``steer``), then its
        own goal. A field answers for the graph's version it was made at:
        after a map change the group's field is made again before it is
        read, re-planning the whole group at once. An agent with no way to
        its goal from where it stands has no path."""
        rows = np.empty(self._ids.size, np.int64)
        k, one = S.field_walkers(self._field, self._state, rows)
        if k == 0:
            return
        rows = rows[:k]
        # gathers of (n, 2) rows cost as much as the steering: skipped where
        # they would copy every agent in order (the whole crowd on fields, in
        # one group: a crowd sent to one place)
        whole = rows.size == self._ids.size
        of_rows = (lambda x: x) if whole else (lambda x: x[rows])
        goal_node = of_rows(self._field)
        if one:
            order, first, keys = np.arange(rows.size), np.zeros(1, np.int64), goal_node[:1]
        else:
            order = np.argsort(goal_node, kind="stable")
            keys, first = np.unique(goal_node[order], return_index=True)
        keys = keys.tolist()
        version = self.graph.version
        stale = [(k, int(rows[order[i]])) for k, i in zip(keys, first.tolist())
                 if k not in self._fields or self._fields[k].version != version]
        if stale and not self._make_fields(stale):
            # no plugin makes this graph's fields any more: the group plans paths
            self._flow = False
            self._fields = {}
            self._send(self._ids[rows], rows, self._goal[rows].copy())
            return
        self._fields = {k: self._fields[k] for k in keys}     # fields no agent walks go
        a = self._agents
        pos, goal = of_rows(a.pos), of_rows(self._goal)
        cost = None if one else np.empty(rows.size)
        first_pt, hi = np.empty(rows.size, np.int64), np.empty(rows.size, np.int64)
        groups, used = [], 0
        for k, lo, up in zip(keys, first.tolist(), np.append(first[1:], order.size).tolist()):
            sub = order[lo:up]
            of_sub = (lambda x: x) if one else (lambda x: x[sub])
            # corners offered a wall radius off: on a mesh built for an agent
            # radius the walls are already that far in
            field = self._fields[k]
            extra = {"giving_way": of_sub(of_rows(self._yield)) > 0.0} \
                if isinstance(field, flowfield.GridFlow) else {}
            c, ahead, count = self._steer(field, (of_sub(pos), of_sub(of_rows(self._node)),
                                                  of_sub(goal), of_sub(of_rows(a.wall_radius)),
                                                  *extra.values()))
            if one:
                cost = c
            else:
                cost[sub] = c
            groups.append((sub, of_sub(goal), ahead, count, used))
            used += ahead.shape[0] * (ahead.shape[1] + 1)
        # each agent's corridor: the points ahead, then its goal, right-aligned
        # in a block of m + 1 points (kept between steps: none made per step)
        if self._field_pts.shape[0] < used:
            self._field_pts = np.empty((2 * used, 2))
        for sub, sub_goal, ahead, count, at in groups:
            S.field_corridors(ahead, count, sub_goal, sub, at, self._field_pts, first_pt, hi)
        corner = first_pt.copy()
        state = np.empty(rows.size, np.int8)
        S.reach_states(cost, state)
        pref = np.empty((rows.size, 2))
        S.preferred(pos, of_rows(a.radius), of_rows(a.wall_radius), of_rows(a.max_speed),
                    state, self._field_pts, first_pt, hi, corner, dt, pref)
        if whole:
            self._state[:] = state
            a.pref[:] = pref
        else:
            self._state[rows] = state
            a.pref[rows] = pref

    def _steer(self, field, args):
        """``field.steer(*args)`` (``args`` one row per agent), split over
        the world's threads when each gets ``PARALLEL_STEER`` agents: each
        agent's answer depends on its own row alone."""
        k = args[0].shape[0]
        chunks = self._chunks(k, PARALLEL_STEER)
        if chunks == 1:
            return field.steer(*args)
        cuts = [k * c // chunks for c in range(chunks + 1)]
        done = self._run([(field.steer, tuple(x[lo:hi] for x in args))
                          for lo, hi in zip(cuts[:-1], cuts[1:])])
        return tuple(np.concatenate(part) for part in zip(*done))

    def _cancel(self, ids):
        for i in ids.tolist():
            h = self._handles.pop(i, None)
            if h is not None:
                h.cancel()
                self._agent_of.pop(h, None)

    def _starts(self, handles):
        """Where the agents of ``handles`` stand now (a re-plan starts there)."""
        rows = np.array([self._row_of[self._agent_of[h]] for h in handles], np.int64)
        return self._user(self._here(rows))

    def _take_paths(self, handles):
        """Paths served this frame become their agents' corridors."""
        for h in handles:
            i = self._agent_of.get(h)
            if i is None or h.cancelled:
                continue
            r = int(self._row_of[i])
            result = h.result()
            self._served[r] += 1
            if result.status is not PathStatus.FOUND:
                self._state[r] = S.NO_PATH
                self._hi[r] = self._lo[r]
                # planned from where it stood when that was blocked: the
                # move puts it back on open ground, and it plans from there
                self._retry[r] = result.status is PathStatus.INVALID_START
                continue
            self._store(r, self._corridor(result))
            self._state[r] = S.MOVING

    def _store(self, r, pts):
        k = pts.shape[0]
        if self._used + k > self._pts.shape[0]:
            self._compact(k)
        self._pts[self._used:self._used + k] = pts
        self._lo[r] = self._used
        self._hi[r] = self._used + k
        self._corner[r] = self._used + min(1, k - 1)
        self._used += k

    def _compact(self, extra):
        """Drop the corridors no agent follows any more, and make room."""
        live = self._hi - self._lo
        need = int(live.sum()) + extra
        pts = np.zeros((max(64, 2 * need), self._PT_COLS))
        at = 0
        for r in np.flatnonzero(live).tolist():
            k = int(live[r])
            pts[at:at + k] = self._pts[self._lo[r]:self._hi[r]]
            self._corner[r] += at - self._lo[r]
            self._lo[r], self._hi[r] = at, at + k
            at += k
        self._pts, self._used = pts, at

    def _current_walls(self):
        if self._walls_version == self.graph.version:
            return
        walls = self.world.plugins.caller("navcore_walls", type(self.graph))(
            self.world, self.graph)
        if walls is None:
            raise CrowdError(f"{self.graph.kind} graph {self.graph_id!r} has no walls for a "
                             f"crowd (no plugin answers navcore_walls for it)")
        self._agents.set_walls(Walls.from_rings(*walls))
        self._walls_version = self.graph.version

    def _move(self, start, nodes, end):
        out = self.world.plugins.caller("navcore_move_along_surface", type(self.graph))(
            self.world, self.graph, start, nodes, end)
        if out is None:
            raise CrowdError(f"{self.graph.kind} graph {self.graph_id!r} cannot move a crowd "
                             f"(no plugin answers navcore_move_along_surface for it)")
        return out

    def _move_all(self, start, nodes, end, out_pts, out_nodes):
        """Every agent's move (``_move``) into ``out_pts``/``out_nodes``
        (which may be ``start``/``nodes``: written once all moves are
        done), split over the world's threads when each gets
        ``PARALLEL_MOVES`` agents: a move depends on its own points alone,
        and the move plugins keep their scratch per thread."""
        n = start.shape[0]
        chunks = self._chunks(n, PARALLEL_MOVES)
        if chunks == 1:
            pts, got = self._move(start, nodes, end)
            out_pts[:] = pts
            out_nodes[:] = got
            return
        mover = self.world.plugins.caller("navcore_move_along_surface", type(self.graph))
        cuts = [n * c // chunks for c in range(chunks + 1)]
        spans = list(zip(cuts[:-1], cuts[1:]))
        done = self._run([(mover, (self.world, self.graph, start[lo:hi], nodes[lo:hi],
                                   end[lo:hi])) for lo, hi in spans])
        for (lo, hi), (pts, got) in zip(spans, done):
            out_pts[lo:hi] = pts
            out_nodes[lo:hi] = got

    def _push(self, rows, start, end):
        """Where agents ``rows`` end when pushed from ``start`` toward
        ``end`` (walls hold)."""
        moved, nodes = self._move(start, self._node[rows], end)
        self._node[rows] = nodes
        return moved

    def _see_ahead(self, ends):
        """Agents that see their corridor's next corner (before ``ends``)
        head for it."""
        rows = np.empty(self._ids.size, np.int64)
        k = S.lookahead(self._state, self._pts, ends, self._corner, rows)
        if k == 0:
            return
        rows = rows[:k]
        seen = self._reaches(rows, self._pts[self._corner[rows] + 1])
        self._corner[rows[seen]] += 1

    # -- what a crowd on a 3D level does otherwise (``levels.LevelCrowd``) --
    def _place(self, value, what, k=None):
        """``(points, nodes)``: the caller's points (``value``: one, or
        ``(k, 2)``; ``k`` of them when given) as the crowd keeps them and
        the walkable node under each; ``CrowdError`` for any off it."""
        pts = _points(value, what, k)
        return pts, self._nodes_at(pts, what)

    def _put(self, rows, pts, nodes):
        """Agents ``rows`` stand at ``pts`` (``_place``'s) on ``nodes``."""
        self._agents.pos[rows] = pts
        self._node[rows] = nodes

    def _here(self, rows):
        """Where agents ``rows`` stand, as ``_place`` gives points."""
        return self._agents.pos[rows]

    def _user(self, pts):
        """Points as ``_place`` gives them, as the caller's tuples."""
        return [tuple(p) for p in pts.tolist()]

    def _corridor(self, result):
        """A found path's points as corridor points (``_pts``' columns)."""
        return np.asarray(result.points, dtype=np.float64)[:, :2]

    def _reaches(self, rows, targets):
        """bool per agent of ``rows``: a straight walk on the ground reaches
        its point of ``targets`` (corridor points, or as ``_place`` gives
        them): nothing but other agents stands between."""
        ends = np.ascontiguousarray(targets[:, :2])
        seen, _ = self._move(self._agents.pos[rows], self._node[rows], ends)
        return (seen == ends).all(axis=1)

    def _walk_ends(self):
        """Per agent, one past the last corridor point its walk on the
        ground heads for this step: the corridor's end."""
        return self._hi

    def _leave_ground(self, ends):
        """After the corners: agents that reached ``ends`` short of their
        corridor's end (nothing on the ground)."""

    def _settle(self, dt):
        """After the move, before the separation (nothing on the ground)."""

    def _grow_rows(self, grow):
        """``grow`` more agents' rows in a subclass's arrays."""

    def _neighbourhoods(self):
        """Each agent's neighbourhood (``navcore_local_neighbourhood``),
        whose nodes' walls alone it avoids: on graphs whose walls have
        owners (a level's storeys overlap)."""
        a = self._agents
        reach = a.time_horizon_obstacles * a.max_speed + a.wall_radius
        a.local = self._local(a.pos, self._node, reach)

    def _local(self, pts, nodes, reach):
        out = self.world.plugins.caller("navcore_local_neighbourhood", type(self.graph))(
            self.world, self.graph, pts, nodes, reach)
        if out is None:
            raise CrowdError(f"{self.graph.kind} graph {self.graph_id!r} has walls with "
                             f"owners but no plugin answers navcore_local_neighbourhood "
                             f"for it")
        return out


class _Many:
    """A scheduler callback (or ``replan_from``) called once per frame with
    all of a crowd's handles (``many``), not once per request."""

    def __init__(self, many):
        self.many = many

    def __call__(self, handle):
        return self.many([handle])


def _points(value, what, k=None) -> np.ndarray:
    pts = _number_array(value, f"{what} (x, y) points")
    if pts.ndim == 1 and pts.shape == (2,):
        pts = pts.reshape(1, 2)
    if pts.size == 0:
        pts = pts.reshape(0, 2)
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise CrowdError(f"{what} must be (x, y) points, got an array of shape {pts.shape}")
    if not np.isfinite(pts).all():
        i = int(np.flatnonzero(~np.isfinite(pts).all(1))[0])
        raise CrowdError(f"{what}[{i}] = {tuple(pts[i].tolist())} is not a finite point")
    if k is not None and pts.shape[0] != k:
        raise CrowdError(f"{what}: one per agent ({k}), got {pts.shape[0]}")
    return pts


def _number_array(value, what):
    """``value`` as a float64 array, refusing bools and strings (which
    numpy would read as 1.0 and 0.0, or parse)."""
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.dtype.kind not in "iuf" or arr.dtype == np.bool_:
        if arr is not None and arr.size == 0:
            return arr.astype(np.float64)
        raise CrowdError(f"{what} must be numbers, got {validate.describe(value)}")
    return arr.astype(np.float64)


def _positive(value, what, low, high) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)) or math.isnan(value) \
            or not low < value <= high:
        bound = "" if high == math.inf else f" and at most {high:g}"
        raise CrowdError(f"add_crowd: {what} must be a number > {low:g}{bound}, got "
                         f"{validate.describe(value)}")
    return float(value)


def _per_agent(value, k, what, low) -> np.ndarray:
    arr = _number_array(value, what)
    try:
        arr = np.broadcast_to(arr, (k,)).copy()
    except ValueError:
        raise CrowdError(f"{what}: one number, or one per agent ({k}), got "
                         f"{validate.describe(value)}") from None
    bad = ~(np.isfinite(arr) & (arr > low) & (arr <= MAX_COORDINATE))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise CrowdError(f"{what}[{i}] = {float(arr[i])!r} must be a finite number > {low:g} "
                         f"and at most {MAX_COORDINATE:g}")
    return arr

