"""``LevelCrowd``: a crowd on a 3D level (a layered navmesh, the ``level``
graph type), whose storeys, bridges and ramps overlap in the ground plane.

Points in and out are 3D, in the level's axes (``graph.up``: y or z up):
``add``, ``teleport`` and ``set_goals`` take ``(k, 3)`` points (a 2D point
is ambiguous where floors overlap: ``CrowdError``), each placed as
Detour's ``findNearestPoly`` places a query end (the polygon under or
nearest it within the level's ``extents``, one above or below counting
only the height beyond the level's ``climb``) at that polygon's nearest
point; ``positions``, ``goals`` and ``velocities`` are ``(n, 3)``.

Inside, the crowd works in the ground plane as on a 2D navmesh (corners,
ORCA, separation), each agent keeping the polygon it stands on and a
height: the level's surface there (its detail mesh, Detour's
``getPolyHeight``). What keeps the floors apart:

* a move goes from the agent's polygon across shared sides only
  (``navcore_move_along_surface`` on a layered mesh): it never steps onto
  the floor above or below, and follows a ramp or stairs to another;
* an agent avoids only the walls of its neighbourhood (the polygons
  joined to its own within its wall reach: ``navcore_local_neighbourhood``,
  Detour's ``findLocalNeighbourhood``), not those of a floor above or
  below it (``navcore_walls`` names each wall's polygon on a level);
* agents whose heights differ by the mean of their ``height`` or more
  ignore each other, in ORCA and in the separation (DetourCrowd's rule);
* a corner counts as seen only when the straight walk to it ends at its
  height (within half an agent's ``height``), not under or over it.

Off-mesh links (ladders, jumps, drops; ``PathResult.links``): an agent
walks its corridor up to a link's start and, within its reach of it (its
radius, or half a step at full speed), takes the link: it is ``on_link``
(``STATES``) and moves in a straight 3D line from where it stands to the
link's end at its top speed (DetourCrowd animates its off-mesh
connections so), out of everyone's avoidance, then walks on. Told a new
goal or to stop meanwhile, it lands first (a new path starts at the
link's end); ``teleport`` takes it off the link at once. ``links_taken``
counts the links agents took, by kind.
"""
from __future__ import annotations

import numpy as np

from navcore.errors import CrowdError
from navcore.limits import MAX_COORDINATE

from . import _steer as S
from .crowd import Crowd, _number_array

#: the ground axes and the up axis of a level's points, by ``graph.up``
_AXES = {"y": (0, 2, 1), "z": (0, 1, 2)}


class LevelCrowd(Crowd):
    """A ``Crowd`` on a layered (3D) mesh: see the module docstring.
    Inside, a point is ``(x, y, height)`` with ``(x, y)`` on the ground
    plane (``_COLS``); a corridor point adds 1.0 where an off-mesh link
    starts (``_steer.LINK_COLUMN``)."""

    _COLS = 3
    _PT_COLS = 4
    _MORE_ROWS = ("_h", "_h_before", "_link_left", "_link_time", "_link_from", "_link_to",
                  "_after_link")

    def __init__(self, world, crowd_id, graph_id, **params):
        self._axes = _AXES[world.graph(graph_id).up]
        self._h = np.zeros(0)                      # height of the surface under each
        self._h_before = np.zeros(0)               # ... before the last step
        self._dt = 1.0                             # the last step's length
        # an agent on an off-mesh link: seconds left of its time on it,
        # from and to (x, y, height), its state when it lands
        self._link_left = np.zeros(0)
        self._link_time = np.zeros(0)
        self._link_from = np.zeros((0, 3))
        self._link_to = np.zeros((0, 3))
        self._after_link = np.zeros(0, np.int8)
        self._taken: dict = {}                     # link kind -> agents that took one
        # agent id -> {corridor point where a link starts: its kind}, for
        # the agents whose corridors have links
        self._link_kinds: dict = {}
        self._kinds_of_path: dict = {}             # the same, of the path being stored
        super().__init__(world, crowd_id, graph_id, **params)
        # (Recast shrinks a level's walkable surface by its ``agent_radius``:
        # ``Crowd.clearance``, agents keep only the rest of theirs off its
        # boundary, as Detour's walk right up to it)
        self._agents.floors = True
        self._flow = False              # no flow fields: its agents plan paths

    # -- the arrays, in the level's axes ------------------------------------
    @property
    def positions(self) -> np.ndarray:
        """float64 ``(n, 3)``: where each agent stands, on the surface, in
        the level's axes (a copy)."""
        return self._to_user(self._agents.pos, self._h)

    @property
    def goals(self) -> np.ndarray:
        """float64 ``(n, 3)``: each agent's goal (placed on the surface), NaN
        without one (a copy)."""
        return self._to_user(self._goal[:, :2], self._goal[:, 2])

    @property
    def velocities(self) -> np.ndarray:
        """float64 ``(n, 3)``: each agent's velocity in the last step (its
        climb on the up axis)."""
        return self._to_user(self._agents.vel, (self._h - self._h_before) / self._dt)

    @property
    def links_taken(self) -> dict:
        """``{kind: count}``: how many times agents stepped onto an
        off-mesh link of each kind (``"ladder"``, ``"jump"``...) (a copy)."""
        return dict(self._taken)

    def stop(self, ids) -> None:
        """As ``Crowd.stop``; an agent on a link lands first."""
        self._check_open("stop")
        _, rows = self._rows(ids)
        linked = rows[self._state[rows] == S.ON_LINK]
        super().stop(ids)
        self._after_link[linked] = S.IDLE
        self._state[linked] = S.ON_LINK

    # -- the hooks of Crowd -------------------------------------------------
    def _to_user(self, ground, up) -> np.ndarray:
        a, b, u = self._axes
        out = np.empty((len(up), 3))
        out[:, a], out[:, b], out[:, u] = ground[:, 0], ground[:, 1], up
        return out

    def _place(self, value, what, k=None):
        pts = _points3(value, what, k, self.graph_id)
        polys, on = self.graph.nearest_polys(pts)
        off = polys < 0
        off[~off] = ~self.graph.walkable[polys[~off]]
        if off.any():
            i = int(np.flatnonzero(off)[0])
            why = f"no polygon within its extents {self.graph.extents} of it" if polys[i] < 0 \
                else f"the polygon it stands on, {int(polys[i])}, is blocked"
            raise CrowdError(f"{what}[{i}] = {tuple(pts[i].tolist())} is not on walkable "
                             f"ground of level graph {self.graph_id!r} ({why})")
        a, b, u = self._axes
        return np.column_stack([on[:, a], on[:, b], on[:, u]]), polys

    def _put(self, rows, pts, nodes):
        a = self._agents
        a.pos[rows] = pts[:, :2]
        self._h[rows] = self._h_before[rows] = a.elev[rows] = pts[:, 2]
        self._node[rows] = nodes
        landed = rows[self._state[rows] == S.ON_LINK]      # teleported off its link
        self._link_left[rows] = 0.0
        self._state[landed] = self._after_link[landed]

    def _here(self, rows):
        out = np.column_stack([self._agents.pos[rows], self._h[rows]])
        on = self._state[rows] == S.ON_LINK
        out[on] = self._link_to[rows[on]]               # where it will stand
        return out

    def _user(self, pts):
        return [tuple(p) for p in self._to_user(pts[:, :2], pts[:, 2]).tolist()]

    def _corridor(self, result):
        pts = np.asarray(result.points, dtype=np.float64)
        a, b, u = self._axes
        out = np.zeros((len(pts), self._PT_COLS))
        out[:, 0], out[:, 1], out[:, 2] = pts[:, a], pts[:, b], pts[:, u]
        for link in result.links:
            out[link.point, S.LINK_COLUMN] = 1.0
        self._kinds_of_path = {link.point: link.kind for link in result.links}
        return out

    def _store(self, r, pts):
        super()._store(r, pts)
        agent = int(self._ids[r])
        if self._kinds_of_path:
            self._link_kinds[agent] = self._kinds_of_path
            self._kinds_of_path = {}
        else:
            self._link_kinds.pop(agent, None)
        if pts[0, S.LINK_COLUMN] == 1.0:
            self._corner[r] = self._lo[r]           # a link from the start: take it first

    def _reaches(self, rows, targets):
        ends = np.ascontiguousarray(targets[:, :2])
        seen, nodes = self._move(self._agents.pos[rows], self._node[rows], ends)
        # by column: a reduction along rows costs more than the move's kernel
        ok = (seen[:, 0] == ends[:, 0]) & (seen[:, 1] == ends[:, 1]) & (nodes >= 0)
        there = np.flatnonzero(ok)
        if there.size:
            h = self._heights(nodes[there], seen[there])
            ok[there] = np.abs(h - targets[there, 2]) < 0.5 * self.height
        return ok

    def _walk_ends(self):
        ends = np.empty(self._ids.size, np.int64)
        S.walk_ends(self._state, self._pts, self._hi, self._corner, ends)
        return ends

    def _leave_ground(self, ends):
        """Agents that reached a link's start (``preferred`` says they
        arrived, short of their corridor's end) take the link."""
        rows = np.flatnonzero((self._state == S.ARRIVED) & (ends < self._hi))
        if rows.size == 0:
            return
        a = self._agents
        end = ends[rows]                             # the link's end point
        for r, e in zip(rows.tolist(), end.tolist()):       # few: those stepping on
            kinds = self._link_kinds.get(int(self._ids[r]), {})
            kind = kinds.get(e - 1 - int(self._lo[r]), "link")
            self._taken[kind] = self._taken.get(kind, 0) + 1
        start, to = self._here(rows), self._pts[end, :3]
        time = np.sqrt(((to - start) ** 2).sum(axis=1)) / a.max_speed[rows]
        self._link_from[rows], self._link_to[rows] = start, to
        self._link_time[rows] = self._link_left[rows] = time
        self._corner[rows] = end
        self._after_link[rows] = S.MOVING
        self._state[rows] = S.ON_LINK
        self._node[rows] = -1                        # off the ground: no walls, no move
        a.pref[rows] = 0.0
        a.elev[rows] = np.nan                        # out of everyone's avoidance

    def _settle(self, dt):
        """After the move: heights of the agents on the ground; those on
        links move along them and land at their ends (before the
        separation, which parts them from any standing there)."""
        a = self._agents
        self._h_before[:] = self._h
        self._dt = dt
        linked = self._state == S.ON_LINK
        if not linked.any():
            # the usual step: nobody on a link, all on the ground (a few
            # array operations, not a dozen: they cost more than the kernels)
            if (self._node >= 0).all():
                self._h[:] = self._heights(self._node, a.pos)
            else:
                ground = np.flatnonzero(self._node >= 0)
                self._h[ground] = self._heights(self._node[ground], a.pos[ground])
            a.elev[:] = self._h
            return
        ground = np.flatnonzero(~linked & (self._node >= 0))
        if ground.size:
            self._h[ground] = self._heights(self._node[ground], a.pos[ground])
        on = np.flatnonzero(linked)
        left = np.maximum(self._link_left[on] - dt, 0.0)
        self._link_left[on] = left
        time = self._link_time[on]
        t = np.where(time > 0.0, 1.0 - left / np.where(time > 0.0, time, 1.0), 1.0)
        p = self._link_from[on] + t[:, None] * (self._link_to[on] - self._link_from[on])
        a.pos[on], self._h[on] = p[:, :2], p[:, 2]
        landed = on[left == 0.0]
        if landed.size:
            self._land(landed)
        np.copyto(a.elev, np.where(self._state == S.ON_LINK, np.nan, self._h))

    def _push(self, rows, start, end):
        moved = super()._push(rows, start, end)
        nodes = self._node[rows]
        if (nodes >= 0).all():
            h = self._heights(nodes, moved)
            self._h[rows] = h
            self._agents.elev[rows] = h
            return moved
        on = nodes >= 0
        self._h[rows[on]] = self._heights(nodes[on], moved[on])
        self._agents.elev[rows[on]] = self._h[rows[on]]
        return moved

    def _land(self, rows):
        """Agents ``rows`` at their links' ends, on the polygon there."""
        self._state[rows] = self._after_link[rows]
        self._link_left[rows] = 0.0
        self._stand(rows, self._link_to[rows])

    def _stand(self, rows, pts):
        """Agents ``rows`` on the walkable polygon at (or, when that is
        blocked, nearest to) their points ``pts`` (``(k, 3)``, inside
        form); one with none near keeps its point, node ``-1``."""
        a, (ax, bx, ux) = self._agents, self._axes
        polys, on = self.graph.nearest_polys(self._to_user(pts[:, :2], pts[:, 2]))
        ok = polys >= 0
        ok[ok] = self.graph.walkable[polys[ok]]
        good = rows[ok]
        a.pos[good] = np.column_stack([on[ok, ax], on[ok, bx]])
        self._h[good] = on[ok, ux]
        self._node[good] = polys[ok]
        lost = np.flatnonzero(~ok)
        a.pos[rows[lost]], self._h[rows[lost]] = pts[lost, :2], pts[lost, 2]
        self._node[rows[lost]] = -1
        # few: agents whose polygon an update blocked, or whose link's end has none
        for i in lost.tolist():
            found = self.world.nearest_point(self.graph_id, self._user(pts[i:i + 1])[0])
            if found.node >= 0:
                r = rows[i]
                a.pos[r] = found.point[[ax, bx]]
                self._h[r] = found.point[ux]
                self._node[r] = found.node

    def _current_walls(self):
        """As ``Crowd``'s; after a map change every agent on the ground is
        placed again from its 3D point (an update may renumber the
        polygons, or block the one it stands on)."""
        changed = self._walls_version != self.graph.version
        super()._current_walls()
        if changed and self._ids.size:
            rows = np.flatnonzero(self._state != S.ON_LINK)
            self._stand(rows, self._here(rows))
            self._agents.elev[rows] = self._h[rows]

    def _send(self, ids, rows, goals):
        linked = rows[self._state[rows] == S.ON_LINK]
        super()._send(ids, rows, goals)
        self._after_link[linked] = self._state[linked]      # it lands first
        self._state[linked] = S.ON_LINK

    def _take_paths(self, handles):
        linked = np.flatnonzero(self._state == S.ON_LINK)
        super()._take_paths(handles)
        got = linked[self._state[linked] != S.ON_LINK]
        self._after_link[got] = self._state[got]             # it lands first
        self._state[got] = S.ON_LINK

    def _grow_rows(self, grow):
        for name in ("_h", "_h_before", "_link_left", "_link_time"):
            setattr(self, name, np.concatenate([getattr(self, name), np.zeros(grow)]))
        for name in ("_link_from", "_link_to"):
            setattr(self, name, np.concatenate([getattr(self, name), np.zeros((grow, 3))]))
        self._after_link = np.concatenate([self._after_link, np.zeros(grow, np.int8)])

    def _heights(self, nodes, ground):
        """The surface's height at ground points ``ground`` on ``nodes``:
        the graph's ``surface`` (a level's detail mesh) read directly,
        the polygons' own (``points_on``) only where it knows none; what
        ``points_on`` answers, without its checks and 3D points (the
        crowd's nodes and points are its own, always valid)."""
        surface = self.graph.surface
        if surface is None or nodes.size == 0:
            return self.graph.points_on(nodes, ground)[:, self._axes[2]]
        h = np.asarray(surface(nodes, ground), dtype=np.float64)
        unknown = ~np.isfinite(h)
        if unknown.any():
            h = h.copy()
            h[unknown] = self.graph.points_on(nodes[unknown], ground[unknown])[:, self._axes[2]]
        return h

    def _follow_fields(self, dt):
        """No flow fields on a level: its agents plan paths."""

    def _load_kernels(self):
        super()._load_kernels()
        S.walk_ends(self._state, self._pts, self._hi, self._corner,
                    np.empty(0, np.int64))
        walk = np.flatnonzero(self.graph.walkable)
        if walk.size:
            p = walk[:1].astype(np.int32)
            self._heights(p, self.graph.positions[p, :2])
            self.graph.nearest_polys(self.graph.points_on(p, self.graph.positions[p, :2]))


def _points3(value, what, k, graph_id) -> np.ndarray:
    """``value`` as float64 ``(k, 3)`` finite points (one point, or
    ``(k, 3)``; ``k`` of them when given); a 2D point is refused."""
    pts = _number_array(value, f"{what} (x, y, z) points")
    if pts.shape == (3,):
        pts = pts.reshape(1, 3)
    if pts.size == 0:
        pts = pts.reshape(0, 3)
    if pts.shape == (2,) or (pts.ndim == 2 and pts.shape[1] == 2):
        raise CrowdError(f"{what} must be (x, y, z) points on level graph {graph_id!r} (a "
                         f"2D point is ambiguous where floors overlap), got an array of "
                         f"shape {pts.shape}")
    if pts.ndim != 2 or pts.shape[1] != 3:
        raise CrowdError(f"{what} must be (x, y, z) points, got an array of shape "
                         f"{pts.shape}")
    bad = ~(np.abs(pts) <= MAX_COORDINATE).all(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise CrowdError(f"{what}[{i}] = {tuple(pts[i].tolist())} is not a finite point "
                         f"within ±{MAX_COORDINATE:g}")
    if k is not None and pts.shape[0] != k:
        raise CrowdError(f"{what}: one per agent ({k}), got {pts.shape[0]}")
    return pts
