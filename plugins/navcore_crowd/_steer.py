"""Steering kernels: where each agent of a crowd wants to go this step
(its corridor's next corner) and how fast."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._orca import apart

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


#: how long, at most, an agent backs out of another's way (``give_way``)
BACK_SECONDS = 10.0
#: a backing agent heads this far (radians) left of the way it backs along:
#: the one it makes way for keeps right (``KEEP_RIGHT``), so in a room it
#: steps off that one's way and is clear; in a passage the walls hold it
BACK_SIDE = 0.5
_BACK_COS, _BACK_SIN = math.cos(BACK_SIDE), math.sin(BACK_SIDE)
#: an agent's blocker is the nearest other within this share of its radius
#: of touching it, ahead (``BLOCK_COS``: within 60 degrees of its heading)
BLOCK_GAP = 0.5
BLOCK_COS = 0.5
#: a share of its preferred speed at which an agent walks freely
FREE_SPEED = 0.5


@njit(cache=True, nogil=True)
def give_way(rows, k, pos, elev, tall, vel, pref, radius, max_speed, state, ids, stall, back,
             back_left, yielding, cell, x0, y0, nx, ny, cell_start, cell_items):
    """Head-on jams among the stuck agents ``rows[:k]`` (``track_stalls``'
    to plan again): a stuck agent whose blocker (the nearest agent ahead,
    ``BLOCK_GAP``, ``BLOCK_COS``; on its floor) is walking toward it and
    stuck too has met it head-on, as two agents do in a passage one agent
    wide, where planning again finds both the same way. One of the pair
    backs out (``back``: the id of the agent it makes way for, for at most
    ``BACK_SECONDS``, ``back_left``; ``back_out`` steers it) and the other
    walks on. Each agent walks for a root: itself, or the one it backs
    for; the agent whose root's id is lower backs, for the other's root,
    so a line of agents behind a backing one backs out with it, and the
    agent of the highest id in a jam is never asked to back. An agent that
    meets one backing for it, or for its own root, waits (its blocker is
    about to move). Agents are ``cell_start``/``cell_items`` by cells of
    side ``cell`` from ``(x0, y0)``, ``nx`` by ``ny`` (``_orca.bucket``;
    ``cell`` at least the widest blocker's reach). The rest of ``rows``
    plan again and give way a while (``yielding``): they are put first
    in ``rows``; their count."""
    before = back[rows[:k]].copy()          # who backed for whom as the step ended
    done = np.zeros(k, np.bool_)
    for t in range(k):
        r = rows[t]
        j = _blocker(r, pos, elev, tall, pref, radius, cell, x0, y0, nx, ny, cell_start,
                     cell_items)
        if j < 0 or state[j] != MOVING:
            continue
        toward = pref[j, 0] * (pos[r, 0] - pos[j, 0]) + pref[j, 1] * (pos[r, 1] - pos[j, 1])
        speed = math.sqrt(vel[j, 0] * vel[j, 0] + vel[j, 1] * vel[j, 1])
        if toward <= 0.0 or speed >= STUCK_SPEED * max_speed[j]:
            continue
        done[t] = True
        root_r = back[r] if back[r] >= 0 else ids[r]
        root_j = back[j] if back[j] >= 0 else ids[j]
        if root_r != root_j and root_j != ids[r]:
            if root_r < root_j:
                back[r], back_left[r] = root_j, BACK_SECONDS
            else:
                back[j], back_left[j] = root_r, BACK_SECONDS
                stall[j], yielding[j] = 0.0, 0.0
    m = 0
    for t in range(k):
        r = rows[t]
        if done[t] or back[r] != before[t]:      # in a jam, or made to back in one
            yielding[r] = 0.0
            continue
        back[r] = -1
        yielding[r] = YIELD_SECONDS + 0.25 * (ids[r] % 4)
        rows[m] = r
        m += 1
    return m


@njit(cache=True, nogil=True)
def _blocker(r, pos, elev, tall, pref, radius, cell, x0, y0, nx, ny, cell_start, cell_items):
    """The row of agent ``r``'s blocker (``give_way``), or -1."""
    px, py = pos[r, 0], pos[r, 1]
    ux, uy = pref[r, 0], pref[r, 1]
    u = math.sqrt(ux * ux + uy * uy)
    if u == 0.0:
        return -1
    hc = min(max(int((px - x0) / cell), 0), nx - 1)
    hr = min(max(int((py - y0) / cell), 0), ny - 1)
    best, best_d = -1, math.inf
    for cr in range(max(hr - 1, 0), min(hr + 1, ny - 1) + 1):
        for cc in range(max(hc - 1, 0), min(hc + 1, nx - 1) + 1):
            b = cr * nx + cc
            for q in range(cell_start[b], cell_start[b + 1]):
                j = cell_items[q]
                if j == r or apart(elev, tall, r, j):
                    continue
                dx, dy = pos[j, 0] - px, pos[j, 1] - py
                d = math.sqrt(dx * dx + dy * dy)
                if d >= radius[r] * (1.0 + BLOCK_GAP) + radius[j] or d == 0.0:
                    continue
                if dx * ux + dy * uy < BLOCK_COS * d * u:
                    continue
                if d < best_d or (d == best_d and j < best):
                    best, best_d = j, d
    return best


@njit(cache=True, nogil=True)
def back_out(state, pos, vel, pref, radius, max_speed, ids, row_of, pts, corner, ends, back,
             back_left, dt, again):
    """The preferred velocities of the agents backing out of another's way
    (``give_way``): each walks along the way of the one it makes way for
    (from where that one stands, through its corridor's points from its
    corner, before ``ends``; an agent on a flow field has none here: its
    heading) a little ahead of its own nearest point of it, turned
    ``BACK_SIDE`` left, at full speed. It stops backing when it is clear
    of that way (as far from it as their radii together), that one has
    passed it, stops walking or backs itself, or ``BACK_SECONDS`` are
    over; then ``again`` marks it to plan its way again from there."""
    for r in range(state.shape[0]):
        if back[r] < 0:
            continue
        back_left[r] -= dt
        b = row_of[back[r]]
        if state[r] != MOVING or back_left[r] <= 0.0 or b < 0 or state[b] != MOVING \
                or back[b] >= 0 or not _back_along(r, b, pos, vel, pref, radius, max_speed, pts,
                                                    corner[b], ends[b]):
            back[r] = -1
            again[r] = state[r] == MOVING


@njit(cache=True, nogil=True, inline="always")
def _way_leg(ray, ax, ay, pref, b, h, window, pts, c):
    """The leg of agent ``b``'s way from ``(ax, ay)``: its end ``(bx, by)``
    (corridor point ``c``, or ``window`` along ``b``'s heading when it has
    no corridor: ``ray``), the leg ``(sx, sy)`` and its length."""
    if ray:
        bx, by = ax + pref[b, 0] / h * window, ay + pref[b, 1] / h * window
    else:
        bx, by = pts[c, 0], pts[c, 1]
    sx, sy = bx - ax, by - ay
    return bx, by, sx, sy, math.sqrt(sx * sx + sy * sy)


@njit(cache=True, nogil=True)
def _back_along(r, b, pos, vel, pref, radius, max_speed, pts, first, end):
    """``pref[r]`` along agent ``b``'s way (``back_out``); False when ``r``
    is clear of it or ``b`` has passed it."""
    px, py = pos[r, 0], pos[r, 1]
    apart_by = radius[r] + radius[b]
    ax, ay = pos[b, 0], pos[b, 1]
    window = math.sqrt((px - ax) ** 2 + (py - ay) ** 2) + 4.0 * apart_by
    ray = first >= end                  # no corridor: b's heading, far enough
    h = math.sqrt(pref[b, 0] ** 2 + pref[b, 1] ** 2)
    if ray and h == 0.0:
        return False
    # the nearest point of b's way to r (its distance along the way, s)
    best_d, best_s, s = math.inf, 0.0, 0.0
    c = first
    fx = fy = 0.0                       # the way's first heading
    while True:
        bx, by, sx, sy, length = _way_leg(ray, ax, ay, pref, b, h, window, pts, c)
        if length > 0.0:
            if fx == 0.0 and fy == 0.0:
                fx, fy = sx / length, sy / length
            t = min(1.0, max(0.0, ((px - ax) * sx + (py - ay) * sy) / (length * length)))
            qx, qy = ax + t * sx - px, ay + t * sy - py
            d = math.sqrt(qx * qx + qy * qy)
            if d < best_d:
                best_d, best_s = d, s + t * length
            s += length
        c += 1
        if ray or c >= end or s > window:
            break
        ax, ay = bx, by
    if best_s == 0.0 and (px - pos[b, 0]) * fx + (py - pos[b, 1]) * fy < 0.0:
        return False                    # b has passed
    if best_d >= apart_by and vel[b, 0] ** 2 + vel[b, 1] ** 2 >= FREE_SPEED ** 2 * h * h:
        return False                    # off b's way, and b walks on
    # head for the point of the way a pair's width past the nearest
    goal_s = best_s + apart_by
    ax, ay = pos[b, 0], pos[b, 1]
    tx, ty, s, c = ax, ay, 0.0, first
    while True:
        bx, by, sx, sy, length = _way_leg(ray, ax, ay, pref, b, h, window, pts, c)
        tx, ty = bx, by
        if s + length >= goal_s and length > 0.0:
            t = (goal_s - s) / length
            tx, ty = ax + t * sx, ay + t * sy
            break
        s += length
        c += 1
        if ray or c >= end:
            break
        ax, ay = bx, by
    dx, dy = tx - px, ty - py
    d = math.sqrt(dx * dx + dy * dy)
    if d < 1e-9:
        dx, dy, d = fx, fy, 1.0
    ux, uy = dx / d, dy / d
    speed = max_speed[r]
    pref[r, 0] = (ux * _BACK_COS - uy * _BACK_SIN) * speed
    pref[r, 1] = (uy * _BACK_COS + ux * _BACK_SIN) * speed
    return True


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
