"""Agents that request paths and walk them, all moved at once with numpy.

Every agent's current polyline lives in one flat array of points with a
running arc length, so one frame's movement for all agents is a handful of
vectorised operations (advance the distance, ``searchsorted`` the segment,
interpolate) whatever the number of agents. A new polyline is appended at
the end of the array (the arc length keeps rising, so one search still
finds every agent's segment); the array is compacted only when it is
full, to twice what is live, so placing paths costs amortised O(points
placed), not O(all paths) per frame. Python runs per agent only
when something happens to it: a path result arrives (scheduler callback)
or it reaches the end of a leg.

A result that the scheduler re-planned (``repath=True``, an update broke
the path or made it dearer) starts where the agent stood when the search
ran (``replan_from``), so the agent follows it from its current node; if
it has left that node since, it asks again from where it stands, walking
on along its old path until the answer comes. That is for paths with a
point per node (grids). A path whose points are not its nodes' (a
navmesh's: the corners turned) is joined where it starts: an agent that
walked on since it asked walks back along its own track to where it
asked (a frame's walk or so), then along the path.

What depends on a graph's geometry (stepping out of a node that became a
wall, not walking into one) is asked of the graph's scene layer
(``navcore.SceneLayer.step_out``, ``entering_walls``); on graphs without
one agents simply follow their paths.

Agents that walk as crowds (``walks``: on grids, navmeshes and 3D
levels, unless the scene says ``avoidance: false``) are moved by the world's crowds
instead: their path requests, corridors and avoidance are the crowd
plugin's, and ``walkers.Walk`` copies where they are into these arrays
after every tick.
"""
from __future__ import annotations

import numpy as np

from navcore.errors import NavError
from navcore.scene_layer import SceneLayer
from navcore.types import PathStatus

from .states import ARRIVED, MOVING, RETRY, STATE_NAMES, STUCK, WAITING
from .walkers import Walk

__all__ = ["Agents", "WAITING", "MOVING", "ARRIVED", "STUCK", "RETRY", "STATE_NAMES"]
#: frames an agent buried in a wall waits before asking again
RETRY_FRAMES = 10


class _AgentCall:
    """A callback that knows agent ``i`` and, as ``many``, the method of
    ``Agents`` that answers the same for a round's agents at once (named
    by the subclass's ``_MANY``)."""

    __slots__ = ("agents", "i", "many")
    _MANY = ""

    def __init__(self, agents, i):
        self.agents = agents
        self.i = i
        self.many = getattr(agents, self._MANY)


class _StartOf(_AgentCall):
    """Agent ``i``'s ``replan_from``: where its re-plan starts
    (``Agents._asked_from``); ``many`` answers a round's re-plans of all
    agents at once (the scheduler calls it instead, see
    ``navcore_scheduler.requests``)."""

    __slots__ = ()
    _MANY = "_many"

    def __call__(self, handle):
        return self.agents._asked_from(self.i)


class _ResultOf(_AgentCall):
    """Agent ``i``'s request callback: the result is noted for
    ``Agents.take_results``; ``many`` notes a frame's results at once."""

    __slots__ = ()
    _MANY = "_noted"

    def __call__(self, handle):
        self.agents._fresh.append((self.i, handle))


class Agents:
    """The agents of a simulation: positions, paths, legs and counters.
    ``layers`` maps graph ids to their scene layers (graphs without one
    are left out). Per agent, optionally: ``radii`` (the size it is drawn
    at, and walks at in a crowd), ``walks`` (it walks in the crowd
    ``crowds[its graph]``, heading for ``targets``: its legs' points as
    the crowd takes them), ``leave`` (it leaves the map on arrival) and
    ``exits`` (its index in ``exit_regions``, a list of ``(graph id,
    region)``, -1 for none: it leaves the map when it steps into it)."""

    def __init__(self, world, ids, graphs, starts, goals, loops, speeds, repaths,
                 layers=None, radii=None, walks=None, leave=None, crowds=None,
                 targets=None, exits=None, exit_regions=()):
        self.world = world
        self.layers = dict(layers or {})
        self.ids = list(ids)
        self.index = {a: i for i, a in enumerate(self.ids)}
        n = len(self.ids)
        self.graph_ids = list(graphs)
        #: each agent's coordinates (2, or 3 on a 3D level); ``pos`` and the
        #: polylines have ``dims``, the most of them (the others padded with 0)
        self.point_dims = np.array([len(p) for p in starts], dtype=np.int64)
        self.dims = max(2, int(self.point_dims.max())) if n else 2
        self.pos = self._padded(starts).reshape(n, self.dims)
        self.goals = [list(g) for g in goals]          # the legs' goal points
        self.loop = list(loops)
        self.repath = list(repaths)
        self.speed = np.asarray(speeds, dtype=np.float64).reshape(n)
        self.state = np.full(n, WAITING, dtype=np.int8)
        self.leg = np.zeros(n, dtype=np.int64)
        self.legs_done = np.zeros(n, dtype=np.int64)
        self.travelled = np.zeros(n, dtype=np.float64)
        self.repaths = np.zeros(n, dtype=np.int64)
        self.unreachable = np.zeros(n, dtype=np.int64)
        self.retry_at = np.zeros(n, dtype=np.int64)
        self.radius = np.asarray(np.zeros(n) if radii is None else radii,
                                 dtype=np.float64).reshape(n)
        #: each agent's velocity in the last frame (map units per second)
        self.vel = np.zeros((n, 2))
        #: the frame of each agent's arrival at its last goal (-1: not yet)
        self.arrived_at = np.full(n, -1, dtype=np.int64)
        self.walks = np.zeros(n, bool) if walks is None else np.asarray(walks, bool).reshape(n)
        self.leave = np.zeros(n, bool) if leave is None else np.asarray(leave, bool).reshape(n)
        #: agents that left the map (arrived, with ``leave``): not drawn
        self.gone = np.zeros(n, dtype=bool)
        self.exit_of = np.full(n, -1, np.int64) if exits is None \
            else np.asarray(exits, np.int64).reshape(n)
        self.exit_regions = list(exit_regions)
        self._exit_nodes: dict = {}        # exit -> (graph version, bool per node)
        #: ``(graph id, link kind) -> count`` of off-mesh links (a level's
        #: jumps, ladders) on the paths agents were given to follow
        self.links_planned: dict = {}
        self.handles = [None] * n
        self.s = np.zeros(n, dtype=np.float64)         # distance along own polyline
        self.asked_s = np.zeros(n, dtype=np.float64)   # ... when its search's start was taken
        self.frame = 0
        self._fresh: list = []                          # (agent, handle) from callbacks
        by_graph: dict = {}
        for i, g in enumerate(self.graph_ids):
            by_graph.setdefault(g, []).append(i)
        self._by_graph = {g: np.array(m, dtype=np.int64) for g, m in by_graph.items()}
        # each agent's replan_from, made once: its ``many`` answers a
        # round's re-plans together (see _StartOf)
        self._many = self._asked_from_many
        self._start_of = [_StartOf(self, i) for i in range(n)]
        # and its callback: results noted for take_results, a frame's at once
        self._noted = self._note_results
        self._result_of = [_ResultOf(self, i) for i in range(n)]
        self._polys = [self.pos[i:i + 1].copy() for i in range(n)]
        self._new: dict = {}                            # agent -> polyline to place
        self._rebuild()
        self.walk = Walk(self, dict(crowds or {}), list(targets or [None] * n)) \
            if self.walks.any() else None
        for i in np.flatnonzero(~self.walks).tolist():
            self._request(i)

    def _padded(self, points) -> np.ndarray:
        """``points`` (rows of 2 or ``dims`` numbers) as a float ``(k, dims)``
        array, shorter rows padded with 0."""
        if isinstance(points, np.ndarray) and points.ndim == 2:
            p = points.astype(np.float64, copy=False)
        else:
            rows = [tuple(r) for r in points]
            if len({len(r) for r in rows}) > 1:          # agents of 2D and 3D graphs
                out = np.zeros((len(rows), self.dims))
                for k, r in enumerate(rows):
                    out[k, :len(r)] = r
                return out
            if not rows:
                return np.empty((0, self.dims))
            p = np.asarray(rows, dtype=np.float64).reshape(len(rows), -1)
        if p.shape[1] == self.dims:
            return p
        out = np.zeros((len(p), self.dims))
        out[:, :p.shape[1]] = p
        return out

    def _here(self, i: int) -> tuple:
        """Agent ``i``'s position as its graph takes points (Python floats)."""
        return tuple(self.pos[i, :self.point_dims[i]].tolist())

    # -- requests and results -------------------------------------------------
    def _request(self, i: int, keep_walking: bool = False) -> None:
        """Ask for a path from where agent ``i`` stands to its leg's goal;
        with ``keep_walking`` a moving agent goes on along its polyline
        until the answer comes instead of stopping."""
        old = self.handles[i]
        if old is not None:
            old.cancel()        # its re-plans would be for a leg we left
        goal = self.goals[i][self.leg[i]]
        self.handles[i] = self.world.request_path(
            self.graph_ids[i], self._asked_from(i), goal, repath=self.repath[i],
            callback=self._result_of[i], replan_from=self._start_of[i])
        if not (keep_walking and self.state[i] == MOVING):
            self.state[i] = WAITING
            self._set_poly(i, self.pos[i:i + 1].copy())

    def _asked_from(self, i: int) -> tuple:
        """Where agent ``i``'s search starts (``_free_point``), noting how
        far along its polyline it stood then."""
        self.asked_s[i] = self.s[i]
        return self._free_point(i)

    def _asked_from_many(self, handles) -> list:
        """``_asked_from`` for the agents of ``handles`` (the scheduler's
        re-plans of one round) on arrays: their points made in one go,
        their nodes located in one ``locate_many`` per graph; only agents
        buried in a wall (``step_out``) take Python of their own."""
        idx = np.fromiter((h.replan_from.i for h in handles), dtype=np.int64,
                          count=len(handles))
        self.asked_s[idx] = self.s[idx]
        return self._free_points(idx)

    def _free_points(self, idx) -> list:
        """``_free_point`` of each agent of ``idx`` (an int64 array)."""
        pos = self.pos[idx]
        if self.dims == 2:
            out = list(map(tuple, pos.tolist()))    # Python floats, as _free_point's
        else:
            out = [tuple(p[:d]) for p, d in zip(pos.tolist(), self.point_dims[idx].tolist())]
        for gid, members in self._by_graph.items():
            lay = self.layers.get(gid)
            if lay is None:
                continue
            mine = np.flatnonzero(np.isin(idx, members)) if len(self._by_graph) > 1 \
                else np.arange(len(idx))
            if not mine.size:
                continue
            graph = self.world.graph(gid)
            if type(lay).buried is not SceneLayer.buried or not graph.vector_locate:
                for j in mine.tolist():         # a layer with its own rule
                    out[j] = self._free_point(int(idx[j]))
                continue
            nodes = graph.locate_many(pos[mine, :lay.dims])
            buried = (nodes < 0) | ~graph.walkable[np.maximum(nodes, 0)]
            for j, node in zip(mine[buried].tolist(), nodes[buried].tolist()):
                stepped = lay.step_out(out[j], node)
                if stepped is not None:         # else: the request says invalid_start
                    out[j] = stepped
        return out

    def _track_back(self, i: int) -> np.ndarray:
        """``(k, 2)``: the way agent ``i`` came since its search's start
        was taken, backwards: the corners of its polyline it passed since,
        then the place where it stood (empty if it has not moved)."""
        s0, s1 = self.asked_s[i], self.s[i]
        if not s1 > s0:
            return np.empty((0, self.dims))
        poly = self._polys[i]
        # measured as move() measures ``s`` (a road layer: metres, not degrees)
        arc = np.concatenate(([0.0], np.cumsum(self._step_lengths(i, poly))))
        passed = np.flatnonzero((arc > s0) & (arc < s1))
        j = min(int(np.searchsorted(arc, s0, side="right")), len(poly) - 1)
        seg = arc[j] - arc[j - 1] if j else 0.0
        t = (s0 - arc[j - 1]) / seg if seg > 0 else 0.0
        asked = poly[j - 1] + t * (poly[j] - poly[j - 1]) if j else poly[0]
        return np.vstack((poly[passed[::-1]], asked[None]))

    def _step_lengths(self, i: int, poly) -> np.ndarray:
        """The lengths of ``poly``'s segments for agent ``i``: its layer's
        measure when it has one (``measures_steps``), else the plane's."""
        lay = self.layers.get(self.graph_ids[i])
        if lay is not None and lay.measures_steps and len(poly) > 1:
            return lay.step_lengths(poly)
        return _lengths(poly)

    def _free_point(self, i: int) -> tuple:
        """Where agent ``i``'s search starts: where it stands, or, when an
        update blocked its node (a wall dropped on it) or took its ground
        away (a navmesh carved round a crate), the nearby walkable point
        its graph's scene layer offers (``step_out``)."""
        # Python floats, not numpy scalars: the tuple is made 4x faster
        # and node_of (here and when the request is resolved) runs faster
        here = self._here(i)
        lay = self.layers.get(self.graph_ids[i])
        if lay is None:
            return here
        graph = self.world.graph(self.graph_ids[i])
        node = graph.node_of(here)
        if not lay.buried(here, node):
            return here
        out = lay.step_out(here, node)
        return here if out is None else out      # buried: the request says invalid_start

    def _set_poly(self, i: int, poly: np.ndarray) -> None:
        self._polys[i] = poly
        self._new[i] = poly
        self.s[i] = 0.0
        self.asked_s[i] = 0.0

    def _wait(self, i: int) -> None:
        """Agent ``i`` waits for a path; buried (a wall or a crate came
        down on it), it steps out to the walkable point next to it first,
        so that it does not wait inside the wall."""
        here = self._here(i)
        out = self._free_point(i)
        self._set_poly(i, self.pos[i:i + 1].copy() if out == here
                       else self._padded([here, out]))

    def _note_results(self, handles) -> None:
        """The callbacks' ``many``: a frame's results, for ``take_results``."""
        self._fresh.extend([(h.callback.i, h) for h in handles])

    def take_results(self) -> None:
        """Act on the results published during the last tick."""
        fresh, self._fresh = self._fresh, []
        for i, h in fresh:
            if h is self.handles[i]:          # not a request the agent dropped since
                self._on_result(i, h)

    def _on_result(self, i: int, h) -> None:
        try:
            r = h.result()
        except NavError:                      # e.g. a point the graph cannot place
            self.state[i] = STUCK
            return
        replanned = h.repaths > 0             # planned again from where the agent stood
        if replanned:
            self.repaths[i] += 1
        if r.status is PathStatus.FOUND:
            graph = self.world.graph(self.graph_ids[i])
            for link in r.links:
                key = (self.graph_ids[i], link.kind)
                self.links_planned[key] = self.links_planned.get(key, 0) + 1
            points = self._padded(r.points[:, :self.point_dims[i]])
            if len(points) != len(r.nodes) or not np.array_equal(r.points[:, :2],
                                                                 graph.points_of(r.nodes)):
                # corners, not a point per node: join it where it starts
                self.follow(i, np.vstack((self.pos[i:i + 1], self._track_back(i), points)))
                return
            here = graph.node_of(self._here(i))
            on_path = np.flatnonzero(r.nodes == here)
            if on_path.size:                  # go on from our own node
                k = int(on_path[0])
            elif not replanned:               # from where we asked, a few steps back
                k = 0
            else:
                self._request(i, keep_walking=True)
                return
            self.follow(i, np.vstack((self.pos[i:i + 1], points[k:])))
            return
        if r.status is PathStatus.UNREACHABLE or r.status is PathStatus.INVALID_GOAL:
            self.unreachable[i] += 1          # no path, or the goal is walled in
        if replanned:                         # the old leg start may be what is blocked
            self._request(i, keep_walking=True)
        elif r.status is PathStatus.INVALID_START:
            self.state[i] = RETRY             # buried in a wall: wait, ask again
            self.retry_at[i] = self.frame + RETRY_FRAMES
            self._set_poly(i, self.pos[i:i + 1].copy())
        elif self.repath[i]:
            self.state[i] = WAITING           # the scheduler asks again when areas change
            self._wait(i)
        else:
            self.state[i] = STUCK
            h.cancel()

    def follow(self, i: int, points) -> None:
        """Agent ``i`` walks the polyline ``points`` (``(k, dims)``, from
        where it stands) from its start; the leg ends at its last point."""
        self._set_poly(i, self._padded(points))
        self.state[i] = MOVING

    def retry(self, frame: int) -> None:
        self.frame = frame
        for i in np.flatnonzero((self.state == RETRY) & (self.retry_at <= frame)):
            self._request(int(i))

    def set_goal(self, i: int, point) -> None:
        """Send agent ``i`` to ``point`` from where it stands (one leg)."""
        self.set_goals([i], point)

    def set_goals(self, rows, point, targets=None) -> None:
        """Send agents ``rows`` to ``point`` from where they stand (one
        leg each); ``targets`` (graph id -> point as its crowd takes it)
        for those that walk in a crowd (``point`` itself by default).
        Agents that left the map stay away."""
        walking = []
        for i in rows:
            i = int(i)
            if self.gone[i]:
                continue
            self.goals[i] = [point]
            self.leg[i] = 0
            self.loop[i] = False
            self.arrived_at[i] = -1
            if self.walks[i]:
                target = (targets or {}).get(self.graph_ids[i], point)
                self.walk.targets[i] = [target]
                walking.append((i, target))
            else:
                self._request(i)
        if walking:
            self.walk.send([i for i, _ in walking], [t for _, t in walking])

    def replan(self, graph_id) -> int:
        """Agents on ``graph_id`` that are on their way (moving or waiting
        for a path) and re-plan (``repath``) ask again from where they
        stand, driving on meanwhile; returns how many asked. For changes
        that make some way cheaper (a road reopens): the scheduler re-plans
        only paths a change broke or made dearer."""
        members = self._by_graph.get(graph_id, np.zeros(0, dtype=np.int64))
        on_way = ((self.state[members] == MOVING) | (self.state[members] == WAITING)) \
            & ~self.gone[members]
        asked = [int(i) for i in members[on_way] if self.repath[i] and not self.walks[i]]
        for i in asked:
            self._request(i, keep_walking=True)
            self.repaths[i] += 1
        walking = members[on_way & self.walks[members]]
        return len(asked) + (self.walk.replan(walking.tolist()) if walking.size else 0)

    # -- movement -------------------------------------------------------------
    def _rebuild(self, spare: int = 0) -> None:
        """Pack every agent's polyline into a new array with room to grow."""
        self._new.clear()
        n = len(self._polys)
        used = sum(len(p) for p in self._polys)
        self._points = np.empty((2 * (used + spare) + 1024, self.dims))
        self._arc = np.empty(len(self._points))
        self._off = np.zeros(n, dtype=np.int64)
        self._last = np.zeros(n, dtype=np.int64)
        self._base = np.zeros(n)
        self._total = np.zeros(n)
        self._used = 0
        self._place(list(range(n)), self._polys)

    def _place(self, agents, polys) -> None:
        """Append ``polys`` after what is used and point ``agents`` at them."""
        if not agents:
            return
        lens = np.fromiter((len(p) for p in polys), dtype=np.int64, count=len(polys))
        start, end = self._used, self._used + int(lens.sum())
        pts = np.concatenate(polys)
        off = start + np.concatenate(([0], np.cumsum(lens)[:-1]))
        step = _lengths(pts)
        for a, o, n in zip(agents, off - start, lens):   # layers with their own measure
            lay = self.layers.get(self.graph_ids[a])
            if lay is not None and lay.measures_steps and n > 1:
                step[o:o + n - 1] = lay.step_lengths(pts[o:o + n])
        step[off[1:] - start - 1] = 0.0      # no segment from one polyline to the next
        first = self._arc[start - 1] if start else 0.0
        self._points[start:end] = pts
        self._arc[start:end] = first + np.concatenate(([0.0], np.cumsum(step)))
        idx = np.asarray(agents, dtype=np.int64)
        self._off[idx] = off
        self._last[idx] = off + lens - 1
        self._base[idx] = self._arc[off]
        self._total[idx] = self._arc[off + lens - 1] - self._base[idx]
        self._used = end

    def _place_new(self) -> None:
        if not self._new:
            return
        agents, polys = list(self._new), list(self._new.values())
        self._new.clear()
        need = sum(len(p) for p in polys)
        if self._used + need > len(self._points):
            self._rebuild(need)              # compact: drop polylines no agent follows
        else:
            self._place(agents, polys)

    def move(self, dt: float) -> None:
        """Advance every moving agent by ``speed * dt`` along its polyline;
        agents at the end of a leg start the next one. Agents that walk in
        crowds were moved by the tick: their places are read."""
        if not self.ids:
            return
        if self.walk is not None:
            self.walk.sync()
        if not self.walks.all():
            self._move_points(dt)
        if self.exit_regions:
            self._take_exits()

    def _move_points(self, dt: float) -> None:
        """``move`` for the agents that walk their polylines as points."""
        self._place_new()
        moving = (self.state == MOVING) & ~self.walks
        # waiting agents walk their polyline too: it is where they stand,
        # or, for one that steps out of a wall while it waits, two points
        going = moving | ((self.state == WAITING) & ~self.walks)
        s = np.minimum(self.s + np.where(going, self.speed * dt, 0.0), self._total)
        q = self._base + s
        lo = np.clip(np.searchsorted(self._arc[:self._used], q, side="right") - 1, self._off, self._last)
        hi = np.minimum(lo + 1, self._last)
        seg = self._arc[hi] - self._arc[lo]
        t = np.divide(q - self._arc[lo], seg, out=np.zeros_like(q), where=seg > 0)
        t = np.clip(t, 0.0, 1.0)[:, None]
        at = self._points[lo] + t * (self._points[hi] - self._points[lo])
        # nobody walks into a wall that appeared on its path: it waits at
        # the edge for the re-plan (repath) or is stuck (no repath); one
        # already standing in a node that became a wall walks out of it
        held = going & self._into_walls(at, self.pos)
        if held.any():
            s = np.where(held, self.s, s)
            at[held] = self.pos[held]
            for i in np.flatnonzero(held & moving):
                if not self.repath[i]:
                    self.state[i] = STUCK
                    self.handles[i].cancel()
        self.travelled += s - self.s
        self.s = s
        self.vel[going] = (at[going, :2] - self.pos[going, :2]) / dt
        self.vel[~going & ~self.walks] = 0.0
        self.pos[going] = at[going]
        done = np.flatnonzero(moving & ~held & (s >= self._total))
        if done.size:
            self._legs_done(done)

    def _take_exits(self) -> None:
        """Agents standing in their exit region leave the map (arrived)."""
        out = []
        for k, (gid, region) in enumerate(self.exit_regions):
            rows = np.flatnonzero((self.exit_of == k) & ~self.gone)
            if rows.size == 0:
                continue
            graph = self.world.graph(gid)
            version, inside = self._exit_nodes.get(k, (None, None))
            if version != graph.version:       # a navmesh's nodes change with updates
                inside = np.zeros(graph.num_nodes, dtype=bool)
                inside[self.layers[gid].nodes_in(region)] = True
                self._exit_nodes[k] = (graph.version, inside)
            nodes = graph.locate_many(self.pos[rows, :self.layers[gid].dims])
            out.append(rows[(nodes >= 0) & inside[np.maximum(nodes, 0)]])
        rows = np.concatenate(out) if out else np.zeros(0, np.int64)
        if rows.size == 0:
            return
        first = rows[self.arrived_at[rows] < 0]
        self.legs_done[first] += 1
        self.arrived_at[first] = self.frame
        self.state[rows] = ARRIVED
        self.vel[rows] = 0.0
        self.gone[rows] = True
        for i in rows[~self.walks[rows]].tolist():
            if self.handles[i] is not None:
                self.handles[i].cancel()
        walking = rows[self.walks[rows]]
        if walking.size:
            self.walk.leave(walking)

    def _into_walls(self, at, now) -> np.ndarray:
        """Which agents would step from ``now`` into another node that is
        blocked at ``at`` (one vectorised question per graph's layer)."""
        out = np.zeros(len(self.ids), dtype=bool)
        for gid, members in self._by_graph.items():
            lay = self.layers.get(gid)
            if lay is not None:
                out[members] = lay.entering_walls(at[members, :lay.dims],
                                                  now[members, :lay.dims])
        return out

    def end_legs(self, rows) -> tuple:
        """Agents ``rows`` reached the goals of their legs: each starts its
        next leg, or its first again (a patrol), or has arrived (state
        ``ARRIVED``, the frame noted). Returns ``(going, arrived)``, int64
        arrays: the agents on a new leg (``leg`` says which) and those
        that arrived. Point walkers (``_legs_done``) and crowd walkers
        (``Walk``) then go on in their own ways."""
        rows = np.asarray(rows, dtype=np.int64)
        self.legs_done[rows] += 1
        going, arrived = [], []
        for i in rows.tolist():               # only agents at the end of a leg
            if self.leg[i] + 1 < len(self.goals[i]):
                self.leg[i] += 1
            elif self.loop[i]:
                self.leg[i] = 0
            else:
                self.state[i] = ARRIVED
                self.arrived_at[i] = self.frame
                arrived.append(i)
                continue
            going.append(i)
        return np.array(going, dtype=np.int64), np.array(arrived, dtype=np.int64)

    def _legs_done(self, rows) -> None:
        """Point walkers ``rows`` at the ends of their legs: on to the next
        (a path request) or arrived (standing, or off the map with
        ``leave``)."""
        going, arrived = self.end_legs(rows)
        self.vel[arrived] = 0.0
        self.gone[arrived] = self.leave[arrived]
        for i in arrived.tolist():
            if self.handles[i] is not None:
                self.handles[i].cancel()
        for i in going.tolist():
            self._request(i)

    # -- reporting ------------------------------------------------------------
    def counts(self) -> dict:
        """How many agents are in each state (``patrolling``: looping agents)."""
        out = {name: int((self.state == k).sum()) for k, name in enumerate(STATE_NAMES)}
        patrolling = np.array(self.loop, dtype=bool) if self.ids else np.zeros(0, bool)
        out["patrolling"] = int(patrolling.sum())
        return out

    def remaining_paths(self) -> list:
        """Each agent's polyline from where it is to its leg's goal."""
        self._place_new()
        out = []
        for i, p in enumerate(self._polys):   # for pictures, not per frame
            if self.walks[i]:                  # a crowd's corridor is its own
                out.append(self.pos[i:i + 1].copy())
                continue
            arc = self._arc[self._off[i]:self._last[i] + 1] - self._base[i]
            passed = int(np.searchsorted(arc, self.s[i], side="right"))
            out.append(np.vstack((self.pos[i:i + 1], p[passed:])))
        return out


def _lengths(points) -> np.ndarray:
    """The lengths of the segments of the polyline ``points`` (``(k, d)``)."""
    if points.shape[1] == 2:
        return np.hypot(*np.diff(points, axis=0).T)
    step = np.diff(points, axis=0)
    return np.sqrt((step * step).sum(axis=1))
