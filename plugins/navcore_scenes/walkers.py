"""Scene agents that walk as navcore crowds.

On a graph whose backend moves crowds (a grid, a 2D navmesh, a 3D level:
they answer ``navcore_walls`` and ``navcore_move_along_surface``) a
scene's agents walk as one crowd per graph (``World.add_crowd``; a
level's is a ``LevelCrowd``, its points ``(x, y, z)`` on the surface):
each plans its path through the scheduler and follows its corridor, or
the flow field of a goal many share, avoids the others and the walls
with ORCA and stays on walkable ground (on a level: on its own floor,
taking off-mesh links on its way); ``world.tick`` moves them. ``Walk`` copies the crowd's
arrays into the scene's agent arrays (``Agents``: positions, velocities,
states, distance walked) after every tick, on arrays, and does what the
crowd does not know of: the legs of waypoints and patrols, goals that
events set, counting re-plans and unreachable goals, members that leave
the map when they arrive. Points, goals and distances have the graph's
coordinates (2, or 3 on a level: there an agent's distance walked is
measured in 3D, and agents on floors above one another are far apart);
velocities are kept on the ground plane, as pictures draw them.

A goal the crowd cannot take now (an event sends agents into a door that
is shut) waits: the agents stand, it counts as unreachable once, and it
is tried again whenever the graph changes.

Two rules make a group's arrival look as a player expects:

* many sent to one point cannot all stand on it: a walker that touches
  one that arrived at the same goal, within the disc that those there
  would fill packed round it (``PACKING``) or held up (``HELD``), has
  arrived too: the group settles round the point, as units do in a
  strategy game, instead of pushing into the ones there forever;
* one that arrived and was pushed more than ``HOLD_RADII`` of its radii
  from where it stopped (others walked through) walks back there.
"""
from __future__ import annotations

import numpy as np

from .states import ARRIVED, MOVING, WAITING

#: "touching": discs this share of the smaller radius apart, at most
TOUCH = 0.25
#: the share of a disc round a goal that the agents that arrived there
#: fill: one that touches them has arrived within that disc's radius
#: (plus its own diameter); loose, as walls near the goal spread them
PACKING = 0.35
#: a walker slower than this share of its speed that touches them has
#: arrived too, wherever it is: pushing on into the ones there crushes
#: them against the walls
HELD = 0.5
#: an agent that arrived walks back to where it stopped once pushed this
#: many radii away
HOLD_RADII = 4.0


class Walk:
    """The crowd-walking agents of ``agents`` (``Agents.walks``), on
    ``crowds`` (graph id -> its ``Crowd``), heading for ``targets`` (per
    agent, the points of its legs as the crowd takes them)."""

    def __init__(self, agents, crowds: dict, targets: list):
        self.agents = agents
        self.crowds = crowds
        self.targets = targets
        n = len(agents.ids)
        self.cid = np.full(n, -1, np.int64)        # the agent's id in its crowd
        self.scene_of: dict = {}                   # graph id -> crowd id -> agent
        self.served = np.zeros(n, np.int64)        # crowd's paths_served, last read
        self.planned = np.zeros(n, bool)           # had a path result on this leg
        self.no_path = np.zeros(n, bool)           # unreachable at the last read
        #: on an off-mesh link at the last read (a level's ladder or jump:
        #: moving in a straight line through the air, out of avoidance)
        self.linked = np.zeros(n, bool)
        d = agents.dims
        self.goal = np.zeros((n, d))               # the goal of its leg now
        self.rest = np.full((n, d), np.nan)        # where it stopped, once arrived
        self.dims: dict = {}                       # graph id -> its points' coordinates
        self.pending: dict = {}                    # agent -> goal the crowd refused
        self._pending_version: dict = {}           # graph id -> version tried at
        self._state_of: dict = {}                  # graph id -> crowd state -> scene state
        for gid, crowd in crowds.items():
            rows = np.flatnonzero(agents.walks & (np.asarray(agents.graph_ids) == gid))
            self._state_of[gid] = _scene_states(crowd.STATES)
            d = self.dims[gid] = agents.layers[gid].dims
            if rows.size == 0:
                continue
            goals = np.array([targets[i][agents.leg[i]] for i in rows.tolist()],
                             dtype=np.float64)
            self.goal[rows, :d] = goals
            ids = crowd.add(agents.pos[rows, :d], goals=goals, radius=agents.radius[rows],
                            max_speed=agents.speed[rows])
            self.cid[rows] = ids
            lookup = np.full(int(ids.max()) + 1, -1, np.int64)
            lookup[ids] = rows
            self.scene_of[gid] = lookup

    # -- goals ----------------------------------------------------------------
    def send(self, rows, goals) -> None:
        """Agents ``rows`` (scene indices, all walking) head for ``goals``
        (one point per agent, as the crowd takes them)."""
        rows = np.asarray(rows, dtype=np.int64)
        a = self.agents
        goals = a._padded(goals)                    # (k, dims): 2D goals padded with 0
        gids = np.asarray(a.graph_ids, dtype=object)[rows]
        for gid in dict.fromkeys(gids.tolist()):
            mine = gids == gid
            self._send(gid, rows[mine], goals[mine])

    def _send(self, gid, rows, goals) -> None:
        crowd = self.crowds[gid]
        a = self.agents
        for i in rows.tolist():
            self.pending.pop(i, None)
        self.goal[rows] = goals
        goals = goals[:, :self.dims[gid]]
        ok = self._takes(crowd, goals)
        self.planned[rows] = False
        a.state[rows] = WAITING
        if ok.any():
            crowd.set_goals(self.cid[rows[ok]], goals[ok])
        if not ok.all():
            late = rows[~ok]
            crowd.stop(self.cid[late])
            a.unreachable[late] += 1
            for i, g in zip(late.tolist(), goals[~ok].tolist()):
                self.pending[i] = g
            self._pending_version[gid] = crowd.graph.version

    @staticmethod
    def _takes(crowd, goals) -> np.ndarray:
        """Which ``goals`` (the graph's points) lie on walkable ground of
        the crowd's graph now."""
        g = crowd.graph
        if len(goals) == 0:
            return np.zeros(0, bool)
        nodes = g.locate_many(goals)
        ok = nodes >= 0
        ok[ok] = g.walkable[nodes[ok]]
        return ok

    def _retry_pending(self) -> None:
        """Goals refused earlier are tried again once their graph changed."""
        if not self.pending:
            return
        by_graph: dict = {}
        for i, g in self.pending.items():
            by_graph.setdefault(self.agents.graph_ids[i], []).append((i, g))
        for gid, items in by_graph.items():
            crowd = self.crowds[gid]
            if self._pending_version.get(gid) == crowd.graph.version:
                continue
            self._pending_version[gid] = crowd.graph.version
            rows = np.array([i for i, _ in items], dtype=np.int64)
            goals = np.array([g for _, g in items], dtype=np.float64)
            ok = self._takes(crowd, goals)
            if ok.any():
                for i in rows[ok].tolist():
                    del self.pending[i]
                self.planned[rows[ok]] = False
                crowd.set_goals(self.cid[rows[ok]], goals[ok])

    def replan(self, rows) -> int:
        """Agents ``rows`` (walking, on their way) ask for their paths
        again from where they stand; returns how many did."""
        rows = np.asarray([i for i in rows if i not in self.pending], dtype=np.int64)
        a = self.agents
        gids = np.asarray(a.graph_ids, dtype=object)[rows]
        for gid in dict.fromkeys(gids.tolist()):
            mine = rows[gids == gid]
            goals = np.array([self.targets[i][a.leg[i]] for i in mine.tolist()])
            self.crowds[gid].set_goals(self.cid[mine], goals)
        return int(rows.size)

    # -- after each tick ------------------------------------------------------
    def sync(self) -> None:
        """Read every crowd's arrays into the agents' after a tick; agents
        at the end of a leg start the next one (or arrive)."""
        self._retry_pending()
        a = self.agents
        done = []
        for gid, crowd in self.crowds.items():
            ids = crowd.ids
            if ids.size == 0:
                continue
            rows = self.scene_of[gid][ids]
            d = self.dims[gid]
            pos = crowd.positions
            a.travelled[rows] += _norm(pos - a.pos[rows, :d])
            a.pos[rows, :d] = pos
            vel = crowd.velocities
            a.vel[rows] = vel if d == 2 else a.layers[gid].on_ground(vel)
            served = crowd.paths_served
            new = served - self.served[rows]
            self.served[rows] = served
            first = (new > 0) & ~self.planned[rows]
            a.repaths[rows] += new - first
            self.planned[rows] |= new > 0
            raw = crowd.state
            state = self._state_of[gid][raw]
            no_path = raw == crowd.STATES["no_path"]
            self.linked[rows] = raw == crowd.STATES["on_link"]
            a.unreachable[rows] += no_path & ~self.no_path[rows]
            self.no_path[rows] = no_path
            finished = a.arrived_at[rows] >= 0
            ended = (state == ARRIVED) & ~finished
            ended |= self._settled(rows, raw == crowd.STATES["moving"], finished) & ~finished
            a.state[rows] = np.where(finished, ARRIVED, np.where(ended, MOVING, state))
            self._hold(crowd, rows[finished], raw[finished])
            if ended.any():
                done.append(rows[ended])
        if done:
            self._legs_done(np.concatenate(done))

    def _settled(self, rows, moving, finished) -> np.ndarray:
        """Which of ``rows`` (one crowd's agents), walking, touch an agent
        that arrived at the same goal (bool per row). Distances are the
        graph's (3D on a level: one on the floor below does not touch)."""
        a = self.agents
        out = np.zeros(rows.size, bool)
        here = finished & ~a.gone[rows]
        if not here.any() or not moving.any():
            return out
        goals, pos, radius = self.goal[rows], a.pos[rows], a.radius[rows]
        _, key = np.unique(goals, axis=0, return_inverse=True)   # a goal as one number
        key = key.reshape(-1)
        walking = np.flatnonzero(moving)
        walking = walking[np.isin(key[walking], key[here])]
        for g in np.unique(key[walking]):
            mine = walking[key[walking] == g]
            there = np.flatnonzero(here & (key == g))
            filled = np.sqrt((radius[there] ** 2).sum() / PACKING)
            off = _norm(pos[mine] - goals[mine])
            vel = a.vel[rows[mine]]
            held = np.hypot(vel[:, 0], vel[:, 1]) < HELD * a.speed[rows[mine]]
            mine = mine[held | (off <= filled + 2.0 * radius[mine])]
            gap = _norm(pos[mine, None] - pos[None, there])
            reach = radius[mine, None] + radius[None, there] \
                + TOUCH * np.minimum(radius[mine, None], radius[None, there])
            out[mine[(gap <= reach).any(axis=1)]] = True
        return out

    def _hold(self, crowd, rows, raw) -> None:
        """Agents ``rows`` arrived (for good): where they stopped is noted;
        those pushed ``HOLD_RADII`` radii from it, standing, walk back."""
        if rows.size == 0:
            return
        a = self.agents
        d = self.dims[crowd.graph_id]
        new = np.isnan(self.rest[rows, 0])
        self.rest[rows[new]] = a.pos[rows[new]]
        off = _norm(a.pos[rows] - self.rest[rows]) > HOLD_RADII * a.radius[rows]
        standing = (raw == crowd.STATES["arrived"]) | (raw == crowd.STATES["idle"])
        back = rows[off & standing]
        back = back[self._takes(crowd, self.rest[back, :d])]    # not under a wall come since
        if back.size:
            crowd.set_goals(self.cid[back], self.rest[back, :d])

    def _legs_done(self, rows) -> None:
        """Agents ``rows`` reached the goal of their leg: the next leg,
        the first again (a patrol), or the end (they leave the map if
        their group does)."""
        a = self.agents
        going, arrived = a.end_legs(rows)
        if going.size:
            self.send(going, [self.targets[i][a.leg[i]] for i in going.tolist()])
        leaving, staying = arrived[a.leave[arrived]], arrived[~a.leave[arrived]]
        if leaving.size:
            self.leave(leaving)
        if staying.size:                # settled ones stop walking; the others stand
            rows = staying
            self.rest[rows] = np.nan
            gids = np.asarray(a.graph_ids, dtype=object)[rows]
            for gid in dict.fromkeys(gids.tolist()):
                crowd = self.crowds[gid]
                mine = rows[gids == gid]
                crowd.stop(self.cid[mine][self._raw_moving(crowd, mine)])

    def _raw_moving(self, crowd, rows) -> np.ndarray:
        """Which agents of ``rows`` their crowd still has walking."""
        ids = self.cid[rows]
        state = crowd.state
        where = np.searchsorted(crowd.ids, ids)   # a crowd lists its ids in rising order
        return state[where] == crowd.STATES["moving"]

    def leave(self, rows) -> None:
        """Agents ``rows`` leave the map: out of their crowd, not drawn."""
        a = self.agents
        a.gone[rows] = True
        a.vel[rows] = 0.0
        gids = np.asarray(a.graph_ids, dtype=object)[rows]
        for gid in dict.fromkeys(gids.tolist()):
            self.crowds[gid].remove(self.cid[rows[gids == gid]])


def _norm(v) -> np.ndarray:
    """The length of each vector along ``v``'s last axis."""
    if v.shape[-1] == 2:
        return np.hypot(v[..., 0], v[..., 1])
    return np.sqrt((v * v).sum(axis=-1))


def _scene_states(states: dict) -> np.ndarray:
    """The scene state of each crowd state value: an agent waiting for a
    path, without one (it waits for the map to change) or stopped (its
    goal refused) waits; one on an off-mesh link (a ladder, a jump) moves."""
    lut = np.full(max(states.values()) + 1, WAITING, np.int8)
    lut[states["moving"]] = MOVING
    if "on_link" in states:
        lut[states["on_link"]] = MOVING
    lut[states["arrived"]] = ARRIVED
    return lut
