"""Agents that request paths and walk them, all moved at once with numpy.

Every agent's current polyline lives in one flat array of points with a
running arc length, so one frame's movement for all agents is a handful of
vectorised operations (advance the distance, ``searchsorted`` the segment,
interpolate) whatever the number of agents. Python runs per agent only
when something happens to it: a path result arrives (scheduler callback)
or it reaches the end of a leg.

A result that the scheduler re-planned (``repath=True``, an update touched
the path) goes from where the request started, not from where the agent
is now: the agent keeps following it from its current cell when that cell
is on the new path, and asks again from where it stands otherwise.
"""
from __future__ import annotations

import numpy as np

from .errors import NavError
from .types import PathStatus

WAITING, MOVING, ARRIVED, STUCK, RETRY = range(5)
STATE_NAMES = ("waiting", "moving", "arrived", "stuck", "retry")
#: frames an agent whose cell is blocked (an obstacle on it) waits before asking again
RETRY_FRAMES = 10


class Agents:
    """The agents of a simulation: positions, paths, legs and counters."""

    def __init__(self, world, ids, graphs, starts, goals, loops, speeds, repaths):
        self.world = world
        self.ids = list(ids)
        self.index = {a: i for i, a in enumerate(self.ids)}
        n = len(self.ids)
        self.graph_ids = list(graphs)
        self.pos = np.array(starts, dtype=np.float64).reshape(n, 2)
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
        self.handles = [None] * n
        self.s = np.zeros(n, dtype=np.float64)         # distance along own polyline
        self.frame = 0
        self._fresh: list = []                          # (agent, handle) from callbacks
        self._polys = [self.pos[i:i + 1].copy() for i in range(n)]
        self._dirty = True
        for i in range(n):
            self._request(i)

    # -- requests and results -------------------------------------------------
    def _request(self, i: int) -> None:
        """Ask for a path from where agent ``i`` stands to its leg's goal."""
        old = self.handles[i]
        if old is not None:
            old.cancel()        # its re-plans would be for a leg we left
        goal = self.goals[i][self.leg[i]]
        self.handles[i] = self.world.request_path(
            self.graph_ids[i], tuple(self.pos[i]), goal, repath=self.repath[i],
            callback=lambda h, i=i: self._fresh.append((i, h)))
        self.state[i] = WAITING
        self._set_poly(i, self.pos[i:i + 1].copy())

    def _set_poly(self, i: int, poly: np.ndarray) -> None:
        self._polys[i] = poly
        self.s[i] = 0.0
        self._dirty = True

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
        replanned = h.repaths > 0
        if replanned:
            self.repaths[i] += 1
        if r.status is PathStatus.FOUND:
            k = 0
            if replanned:     # planned from where the request began: find ourselves on it
                here = self.world.graph(self.graph_ids[i]).node_of(tuple(self.pos[i]))
                on_path = np.flatnonzero(r.nodes == here)
                if on_path.size == 0:
                    self._request(i)
                    return
                k = int(on_path[0])
            self.follow(i, np.vstack((self.pos[i:i + 1], r.points[k:, :2])))
            return
        if r.status is PathStatus.UNREACHABLE:
            self.unreachable[i] += 1
        if replanned:                         # the old leg start may be what is blocked
            self._request(i)
        elif r.status is PathStatus.INVALID_START:
            self.state[i] = RETRY             # standing on a blocked cell: wait, ask again
            self.retry_at[i] = self.frame + RETRY_FRAMES
            self._set_poly(i, self.pos[i:i + 1].copy())
        elif self.repath[i]:
            self.state[i] = WAITING           # the scheduler asks again when areas change
            self._set_poly(i, self.pos[i:i + 1].copy())
        else:
            self.state[i] = STUCK
            h.cancel()

    def follow(self, i: int, points) -> None:
        """Agent ``i`` walks the polyline ``points`` (``(k, 2)``, from where
        it stands) from its start; the leg ends at its last point."""
        self._set_poly(i, np.asarray(points, dtype=np.float64).reshape(-1, 2))
        self.state[i] = MOVING

    def retry(self, frame: int) -> None:
        self.frame = frame
        for i in np.flatnonzero((self.state == RETRY) & (self.retry_at <= frame)):
            self._request(int(i))

    def set_goal(self, i: int, point) -> None:
        """Send agent ``i`` to ``point`` from where it stands (one leg)."""
        self.goals[i] = [point]
        self.leg[i] = 0
        self.loop[i] = False
        self._request(i)

    # -- movement -------------------------------------------------------------
    def _flatten(self) -> None:
        """One array of all polylines and their running arc length; rebuilt
        only in frames where some agent got a new polyline."""
        polys = self._polys
        lens = np.fromiter((len(p) for p in polys), dtype=np.int64, count=len(polys))
        self._points = np.concatenate(polys)
        self._off = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
        self._last = self._off + lens - 1
        step = np.linalg.norm(np.diff(self._points, axis=0), axis=1)
        step[self._off[1:] - 1] = 0.0          # no segment between two agents' polylines
        self._arc = np.concatenate(([0.0], np.cumsum(step)))
        self._base = self._arc[self._off]
        self._total = self._arc[self._last] - self._base
        self._dirty = False

    def move(self, dt: float) -> None:
        """Advance every moving agent by ``speed * dt`` along its polyline;
        agents at the end of a leg start the next one."""
        if not self.ids:
            return
        if self._dirty:
            self._flatten()
        moving = self.state == MOVING
        s = np.minimum(self.s + np.where(moving, self.speed * dt, 0.0), self._total)
        self.travelled += s - self.s
        self.s = s
        q = self._base + s
        lo = np.clip(np.searchsorted(self._arc, q, side="right") - 1, self._off, self._last)
        hi = np.minimum(lo + 1, self._last)
        seg = self._arc[hi] - self._arc[lo]
        t = np.divide(q - self._arc[lo], seg, out=np.zeros_like(q), where=seg > 0)
        t = np.clip(t, 0.0, 1.0)[:, None]
        at = self._points[lo] + t * (self._points[hi] - self._points[lo])
        self.pos[moving] = at[moving]
        for i in np.flatnonzero(moving & (s >= self._total)):
            self._leg_done(int(i))

    def _leg_done(self, i: int) -> None:
        self.legs_done[i] += 1
        if self.leg[i] + 1 < len(self.goals[i]):
            self.leg[i] += 1
        elif self.loop[i]:
            self.leg[i] = 0
        else:
            self.state[i] = ARRIVED
            if self.handles[i] is not None:
                self.handles[i].cancel()
            return
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
        if self._dirty and self.ids:
            self._flatten()
        out = []
        for i, p in enumerate(self._polys):   # for pictures, not per frame
            arc = self._arc[self._off[i]:self._last[i] + 1] - self._base[i]
            passed = int(np.searchsorted(arc, self.s[i], side="right"))
            out.append(np.vstack((self.pos[i:i + 1], p[passed:])))
        return out
