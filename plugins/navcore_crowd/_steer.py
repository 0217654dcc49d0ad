"""Steering kernels: where each agent of a crowd wants to go this step
(its corridor's next corner) and how fast."""
from __future__ import annotations

import math

from numba import njit

#: agent states (``Crowd.state``); ``ON_LINK``: taking an off-mesh link
#: (a ladder, a jump) on a 3D level
IDLE, WAITING, MOVING, ARRIVED, NO_PATH, ON_LINK = 0, 1, 2, 3, 4, 5
#: every preferred velocity turns this far clockwise (radians): agents
#: meeting head-on then both keep right and pass. Without it, perfect
#: symmetry (two agents on one line, each heading for where the other
#: stands) is a fixed point of ORCA and they push against each other
#: forever (RVO2's examples add random noise instead, which is not
#: repeatable)
KEEP_RIGHT = 0.05
_COS, _SIN = math.cos(KEEP_RIGHT), math.sin(KEEP_RIGHT)


@njit(cache=True, nogil=True)
def lookahead(state, pts, hi, corner, rows):
    """The rows of moving agents whose corridor has a corner after the
    current one (``rows`` gets them); their count."""
    k = 0
    for r in range(state.shape[0]):
        if state[r] == MOVING and corner[r] + 1 < hi[r]:
            rows[k] = r
            k += 1
    return k


@njit(cache=True, nogil=True)
def preferred(pos, radius, wall_radius, max_speed, state, pts, lo, hi, corner, dt, pref):
    """Each agent's preferred velocity into ``pref``: toward its corner at
    full speed (turned ``KEEP_RIGHT``), slowing within two radii of its
    goal (DetourCrowd's slow-down), zero when it is not moving or has no
    corridor (``corner`` at ``hi``: a flow field steers it). An agent
    within its reach of a corner that it has come round (it stands past
    the line through the corner across the way it came, from the corner
    before, ``pts[corner - 1]`` when that is ``lo`` or later) takes the
    next: one that hugs a wall reaches a corner of it before it is round,
    and heading on from there would lead it into the wall. A corner is a
    point of the walls, which an agent keeps ``wall_radius`` from: it
    counts that much nearer, and round that much early (an agent wider
    than the navmesh was built for can still stall at a corner: give a
    crowd a mesh built for its widest agents). Within its reach
    of the goal it has arrived (its reach: its radius, or half a step at
    full speed if that is more). Returns how many arrived this step."""
    arrived = 0
    for r in range(pos.shape[0]):
        pref[r, 0] = 0.0
        pref[r, 1] = 0.0
        if state[r] != MOVING or corner[r] >= hi[r]:
            continue                      # an agent on a flow field: no corridor
        reach = max(radius[r], 0.5 * max_speed[r] * dt)
        c = corner[r]
        last = hi[r] - 1
        dx, dy = pts[c, 0] - pos[r, 0], pts[c, 1] - pos[r, 1]
        d = math.sqrt(dx * dx + dy * dy)
        slack = wall_radius[r]
        while c < last and d <= reach + slack and (c <= lo[r] or _round(pos, r, pts, c, slack)):
            c += 1
            dx, dy = pts[c, 0] - pos[r, 0], pts[c, 1] - pos[r, 1]
            d = math.sqrt(dx * dx + dy * dy)
        corner[r] = c
        if c == last and d <= reach:
            state[r] = ARRIVED
            arrived += 1
            continue
        speed = max_speed[r]
        if c == last:
            speed *= min(1.0, d / (2.0 * reach))
        ux, uy = dx / d, dy / d
        pref[r, 0] = (ux * _COS + uy * _SIN) * speed
        pref[r, 1] = (uy * _COS - ux * _SIN) * speed
    return arrived


@njit(cache=True, nogil=True, inline="always")
def _round(pos, r, pts, c, slack):
    """Whether agent ``r`` stands past corner ``c`` along the way from
    corner ``c - 1`` (on the line across it, or beyond, or at most
    ``slack`` short of it)."""
    ux, uy = pts[c, 0] - pts[c - 1, 0], pts[c, 1] - pts[c - 1, 1]
    along = (pos[r, 0] - pts[c, 0]) * ux + (pos[r, 1] - pts[c, 1]) * uy
    return along >= -slack * math.sqrt(ux * ux + uy * uy)


@njit(cache=True, nogil=True)
def limit_accel(vel, new_vel, max_accel, dt):
    """Each agent's velocity change capped at ``max_accel * dt``."""
    cap = max_accel * dt
    for r in range(vel.shape[0]):
        dx, dy = new_vel[r, 0] - vel[r, 0], new_vel[r, 1] - vel[r, 1]
        d = math.sqrt(dx * dx + dy * dy)
        if d > cap:
            new_vel[r, 0] = vel[r, 0] + dx / d * cap
            new_vel[r, 1] = vel[r, 1] + dy / d * cap


#: seconds an agent may make no headway before it counts as stuck
STUCK_SECONDS = 1.0
#: "no headway": slower than this share of its top speed
STUCK_SPEED = 0.1
#: a stuck agent this many radii from its goal has arrived (others stand
#: on the goal); farther away it plans again from where it stands
CLOSE_RADII = 4.0


#: a stuck agent far from its goal gives way (a lower avoidance weight) for this
#: many seconds, plus a quarter second per step of its id modulo 4, so
#: that of two agents stuck against each other one gives way longer
YIELD_SECONDS = 1.0


@njit(cache=True, nogil=True)
def track_stalls(state, vel, max_speed, pos, goals, radius, ids, stall, yielding, dt, replan,
                 near):
    """Count each moving agent's time without headway in ``stall``. Those
    stuck ``STUCK_SECONDS`` go into ``near`` when within ``CLOSE_RADII``
    of their goal (the caller says they arrived if they see it: others
    stand on it), else give way for a while (``yielding``: seconds left)
    and go into ``replan`` to plan again. Returns both counts."""
    k = m = 0
    for r in range(state.shape[0]):
        yielding[r] = max(0.0, yielding[r] - dt)
        if state[r] != MOVING:
            stall[r] = 0.0
            continue
        speed = math.sqrt(vel[r, 0] * vel[r, 0] + vel[r, 1] * vel[r, 1])
        if speed >= STUCK_SPEED * max_speed[r]:
            stall[r] = 0.0
            continue
        stall[r] += dt
        if stall[r] < STUCK_SECONDS:
            continue
        stall[r] = 0.0
        dx, dy = goals[r, 0] - pos[r, 0], goals[r, 1] - pos[r, 1]
        if dx * dx + dy * dy <= (CLOSE_RADII * radius[r]) ** 2:
            near[m] = r
            m += 1
        else:
            yielding[r] = YIELD_SECONDS + 0.25 * (ids[r] % 4)
            replan[k] = r
            k += 1
    return k, m


#: the corridor column (of a crowd on a 3D level) that is 1.0 at a point
#: where an off-mesh link starts (the link runs to the next point)
LINK_COLUMN = 3


@njit(cache=True, nogil=True)
def walk_ends(state, pts, hi, corner, ends):
    """Per agent into ``ends``: one past the first corridor point from its
    corner on where an off-mesh link starts (``pts[c, LINK_COLUMN]`` is
    1.0), else its corridor's end ``hi``: a moving agent walks the
    ground up to a link's start (and takes the link there)."""
    for r in range(state.shape[0]):
        ends[r] = hi[r]
        if state[r] != MOVING:
            continue
        for c in range(corner[r], hi[r] - 1):
            if pts[c, LINK_COLUMN] == 1.0:
                ends[r] = c + 1
                break


@njit(cache=True, nogil=True)
def field_corridors(ahead, count, goal, sub, used, pts, first, hi):
    """The ways read from a flow field as corridors, in place of numpy's
    gathers (no array made per step): agent ``i``'s ``count[i]`` points
    ``ahead[i]`` then its ``goal[i]``, right-aligned in a block of
    ``m + 1`` points of ``pts`` (``m``: the columns of ``ahead``) from
    ``used + i * (m + 1)``; ``first[sub[i]]`` and ``hi[sub[i]]`` get the
    corridor's first point and one past its last."""
    m = ahead.shape[1]
    for i in range(ahead.shape[0]):
        base = used + (m + 1) * i
        lead = m - count[i]
        for j in range(count[i]):
            pts[base + lead + j, 0] = ahead[i, j, 0]
            pts[base + lead + j, 1] = ahead[i, j, 1]
        pts[base + m, 0] = goal[i, 0]
        pts[base + m, 1] = goal[i, 1]
        first[sub[i]] = base + lead
        hi[sub[i]] = base + m + 1
