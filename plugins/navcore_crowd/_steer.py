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


#: an agent stepping aside for another (``back_out``) is at its place
#: within this share of its radius
PLACE_RADII = 0.5
#: seconds an agent may make no headway before it counts as stuck
STUCK_SECONDS = 1.0
#: "no headway": slower than this share of its top speed
STUCK_SPEED = 0.1
#: an agent that moves but makes no headway (pushed to and fro, walking
#: into another that pushes back as hard) counts as stuck once it has come
#: less far along the way it wants to go in this many seconds than
#: ``STUCK_SPEED`` would take it
PUSHED_SECONDS = 5.0
#: a stuck agent this many radii from its goal has arrived (others stand
#: on the goal); farther away it plans again from where it stands
CLOSE_RADII = 4.0


#: a stuck agent far from its goal gives way (a lower avoidance weight) for this
#: many seconds, plus a quarter second per step of its id modulo 4, so
#: that of two agents stuck against each other one gives way longer
YIELD_SECONDS = 1.0


@njit(cache=True, nogil=True)
def track_stalls(state, vel, pref, max_speed, pos, goals, radius, ids, returning, aside,
                 back_to, stall, gain, yielding, dt, replan, near):
    """Count each moving agent's time without headway in ``stall`` (one on
    its way back to its goal, ``returning``: without headway toward it),
    and in ``gain`` (seconds, metres) how far it came along the way it
    wants to go (its preferred velocity ``pref``; with none, any way)
    since that last averaged ``STUCK_SPEED`` of its top speed. Those
    stuck ``STUCK_SECONDS``, or ``PUSHED_SECONDS`` without that average,
    go into ``near`` when within ``CLOSE_RADII``
    of their goal, or on their way back to it (``returning``: pushed off
    it after arriving), and the caller says they arrived if they see it
    (one on its way back: where others stand in its way, else it walks
    on); the others give way for a while
    (``yielding``: seconds left) and go into ``replan`` to plan again.
    An agent that has stepped aside for another (``aside``, within
    ``PLACE_RADII`` of its place ``back_to``) waits there: it is not
    stuck. Returns both counts."""
    k = m = 0
    for r in range(state.shape[0]):
        yielding[r] = max(0.0, yielding[r] - dt)
        if state[r] != MOVING or aside[r] and (pos[r, 0] - back_to[r, 0]) ** 2 + (
                pos[r, 1] - back_to[r, 1]) ** 2 <= (PLACE_RADII * radius[r]) ** 2:
            stall[r] = 0.0
            gain[r, 0] = gain[r, 1] = 0.0
            continue
        slow = STUCK_SPEED * max_speed[r]
        u = math.sqrt(pref[r, 0] * pref[r, 0] + pref[r, 1] * pref[r, 1])
        speed = math.sqrt(vel[r, 0] * vel[r, 0] + vel[r, 1] * vel[r, 1])
        along = (vel[r, 0] * pref[r, 0] + vel[r, 1] * pref[r, 1]) / u if u > 0.0 else speed
        gain[r, 0] += dt
        gain[r, 1] += along * dt
        if gain[r, 1] >= slow * gain[r, 0]:
            gain[r, 0] = gain[r, 1] = 0.0
        if returning[r]:                # headway: toward its goal (not pushed about)
            gx, gy = goals[r, 0] - pos[r, 0], goals[r, 1] - pos[r, 1]
            g = math.sqrt(gx * gx + gy * gy)
            speed = (vel[r, 0] * gx + vel[r, 1] * gy) / g if g > 0.0 else 0.0
        stall[r] = stall[r] + dt if speed < slow else 0.0
        if stall[r] < STUCK_SECONDS and gain[r, 0] < PUSHED_SECONDS:
            continue
        stall[r] = 0.0
        gain[r, 0] = gain[r, 1] = 0.0
        dx, dy = goals[r, 0] - pos[r, 0], goals[r, 1] - pos[r, 1]
        if returning[r] or dx * dx + dy * dy <= (CLOSE_RADII * radius[r]) ** 2:
            near[m] = r
            m += 1
        else:
            yielding[r] = YIELD_SECONDS + 0.25 * (ids[r] % 4)
            replan[k] = r
            k += 1
    return k, m


#: an agent that has arrived walks back to its goal once others have
#: pushed it this many radii farther from it than it came to rest (and
#: beyond ``CLOSE_RADII`` of it: nearer, it would count as arrived again as
#: soon as others block it), and has arrived again once back within one
#: radius of that: a hysteresis, so one that just arrived is not woken by
#: the next small push, and a crowd standing round one point (those
#: outside arrived where the others blocked them) is not stirred forever
RETURN_RADII = 2.0
#: ... and once nothing has pushed it for this many seconds (the walker
#: that pushed it has passed: it does not walk back into it)
RETURN_SECONDS = 0.5


@njit(cache=True, nogil=True)
def displaced(state, pos, vel, goals, radius, max_speed, rest, still, returning, within, dt,
              wake):
    """After a step, for each agent that has arrived: ``rest`` gets its
    distance to its goal the first step it has (and ``returning`` is
    over); one pushed farther (``RETURN_RADII``), and left alone since for
    ``RETURN_SECONDS`` (``still``: seconds slower than ``STUCK_SPEED``),
    goes into ``wake`` to walk back to its goal, and ``within`` gets the
    distance to it at which it has arrived again. A moving agent on its
    way back within that has arrived. Agents that have not arrived get a
    NaN ``rest``. The count woken."""
    k = 0
    for r in range(state.shape[0]):
        if state[r] != ARRIVED and not (state[r] == MOVING and returning[r]):
            rest[r] = math.nan
            continue
        away = math.sqrt((pos[r, 0] - goals[r, 0]) ** 2 + (pos[r, 1] - goals[r, 1]) ** 2)
        if state[r] == MOVING:
            if away > within[r]:
                rest[r] = math.nan
                continue
            state[r] = ARRIVED              # back
        if math.isnan(rest[r]):
            rest[r] = away
            returning[r] = False
            still[r] = 0.0
            continue
        if vel[r, 0] ** 2 + vel[r, 1] ** 2 >= (STUCK_SPEED * max_speed[r]) ** 2:
            still[r] = 0.0
            continue
        still[r] += dt
        if still[r] >= RETURN_SECONDS and away > max(rest[r] + RETURN_RADII * radius[r],
                                                     CLOSE_RADII * radius[r]):
            within[r] = rest[r] + radius[r]
            rest[r] = math.nan              # it comes to rest where it arrives next
            wake[k] = r
            k += 1
    return k


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
def give_way(rows, k, pos, elev, tall, vel, pref, radius, wall_radius, max_speed, state, ids,
             stall, gain, back, back_left, back_to, yielding, pts, corner, ends, cell, x0, y0,
             nx, ny, cell_start, cell_items, ov, o_next, owned, wall_grid, wall_start, wall_items):
    """Head-on jams among the stuck agents ``rows[:k]`` (``track_stalls``'
    to plan again): a stuck agent whose blocker (the nearest agent ahead,
    ``BLOCK_GAP``, ``BLOCK_COS``; on its floor) is walking toward it and
    stuck too has met it head-on, as two agents do in a passage one agent
    wide, where planning again finds both the same way. One of the pair
    backs out (``back``: the id of the agent it makes way for, for at most
    ``BACK_SECONDS``, ``back_left``; ``back_out`` steers it) and the other
    walks on: the one with the shorter way back to a place where the
    other can pass it (``_room``: along the other's way, a room or a
    niche beside it), so one coming out of a dead end is never sent
    deeper in; with no such place near either (or walls of several
    floors, ``owned``) the one whose root's id is lower. Each agent walks
    for a root: itself, or the one it backs for; the backing one backs
    for the other's root, so a line of agents behind it backs out with
    it, heading for that place (``back_to``; NaN: none). An agent that
    meets one backing for it, or for its own root,
    waits (its blocker is about to move). Agents are
    ``cell_start``/``cell_items`` by cells of side ``cell`` from
    ``(x0, y0)``, ``nx`` by ``ny`` (``_orca.bucket``; ``cell`` at least
    the widest blocker's reach); each agent's way is its corridor
    ``pts[corner:ends]`` (none: its heading); the walls are the edges
    ``v -> o_next[v]`` of ``ov``, bucketed by ``wall_grid`` as ORCA takes
    them. The rest of ``rows`` plan again and give way a while
    (``yielding``): they are put first in ``rows``; their count."""
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
            room_r = room_j = math.inf
            to_r = to_j = (math.nan, math.nan)
            if not owned:
                room_r, rx, ry = _room(r, j, pos, pref, radius, wall_radius, max_speed, pts,
                                       corner[j], ends[j], ov, o_next, wall_grid, wall_start,
                                       wall_items, cell, x0, y0, nx, ny, cell_start, cell_items)
                room_j, jx, jy = _room(j, r, pos, pref, radius, wall_radius, max_speed, pts,
                                       corner[r], ends[r], ov, o_next, wall_grid, wall_start,
                                       wall_items, cell, x0, y0, nx, ny, cell_start, cell_items)
                to_r, to_j = (rx, ry), (jx, jy)
            if room_r < room_j or (room_r == room_j and root_r < root_j):
                back[r], back_left[r] = root_j, BACK_SECONDS
                back_to[r, 0], back_to[r, 1] = to_r
            else:
                back[j], back_left[j] = root_r, BACK_SECONDS
                back_to[j, 0], back_to[j, 1] = to_j
                stall[j], gain[j, 0], gain[j, 1], yielding[j] = 0.0, 0.0, 0.0, 0.0
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
def held_by_standing(rows, pos, elev, tall, pref, radius, state, cell, x0, y0, nx, ny,
                     cell_start, cell_items, out):
    """Per agent of ``rows`` into ``out``: its blocker (``give_way``'s:
    the nearest agent ahead) stands (is not walking). Agents bucketed as
    ``give_way`` takes them."""
    for t in range(rows.shape[0]):
        j = _blocker(rows[t], pos, elev, tall, pref, radius, cell, x0, y0, nx, ny, cell_start,
                     cell_items)
        out[t] = j >= 0 and state[j] != MOVING


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


@njit(cache=True, nogil=True, inline="always")
def _seg_sq(ax, ay, bx, by, px, py):
    """The squared distance from ``(px, py)`` to the segment ``a b``."""
    ux, uy = bx - ax, by - ay
    length_sq = ux * ux + uy * uy
    t = 0.0
    if length_sq > 0.0:
        t = min(1.0, max(0.0, ((px - ax) * ux + (py - ay) * uy) / length_sq))
    dx, dy = px - (ax + t * ux), py - (ay + t * uy)
    return dx * dx + dy * dy


#: ``_room`` looks for a place to step aside every this share of the
#: backing agent's radius along the way (a niche just wider than the
#: agent leaves it a fifth of its radius to stand in)
ROOM_STEP = 0.2


@njit(cache=True, nogil=True)
def _room(r, b, pos, pref, radius, wall_radius, max_speed, pts, first, end, ov, o_next,
          wall_grid, wall_start, wall_items, cell, x0, y0, nx, ny, cell_start, cell_items):
    """How far agent ``r`` would back along agent ``b``'s way (as
    ``back_out`` walks it: from ``b`` through its corridor ``pts[first:
    end]``, or along its heading) before it can step off it: a point of
    the way from which a straight step of their two radii to one side
    crosses no wall and ends where ``r``'s disc touches none (a room, a
    niche) nor another agent (bucketed as ``give_way`` takes them), and
    that place beside it: ``(distance, x, y)``; ``(inf, nan,
    nan)`` when there is none before ``b``'s way ends or within
    ``BACK_SECONDS`` of backing at ``r``'s speed."""
    px, py = pos[r, 0], pos[r, 1]
    off = radius[r] + radius[b]
    reach = BACK_SECONDS * max_speed[r]
    ax, ay = pos[b, 0], pos[b, 1]
    window = math.sqrt((px - ax) ** 2 + (py - ay) ** 2) + reach + off
    ray = first >= end
    h = math.sqrt(pref[b, 0] ** 2 + pref[b, 1] ** 2)
    if ray and h == 0.0:
        return math.inf, math.nan, math.nan
    # r's nearest point of b's way (its distance along the way)
    best_d, best_s, _, _ = _nearest_on_way(px, py, ray, pos, pref, b, h, window, pts, first, end)
    # from there on along the way, a place beside it every ROOM_STEP
    step = ROOM_STEP * radius[r]
    at = best_s
    ax, ay, s, c = pos[b, 0], pos[b, 1], 0.0, first
    while True:
        bx, by, sx, sy, length = _way_leg(ray, ax, ay, pref, b, h, window, pts, c)
        if length > 0.0:
            ux, uy = sx / length, sy / length
            while at <= s + length:
                if at > best_s + reach:
                    return math.inf, math.nan, math.nan
                qx, qy = ax + ux * (at - s), ay + uy * (at - s)
                for side in (1.0, -1.0):
                    ex, ey = qx - side * uy * off, qy + side * ux * off
                    if _clear(qx, qy, ex, ey, wall_radius[r], False, ov, o_next, wall_grid,
                              wall_start, wall_items) and \
                            _free(ex, ey, r, b, pos, radius, cell, x0, y0, nx, ny, cell_start,
                                  cell_items):
                        return at - best_s, ex, ey
                at += step
            s += length
        c += 1
        if ray or c >= end:
            return math.inf, math.nan, math.nan
        ax, ay = bx, by


@njit(cache=True, nogil=True)
def _free(ex, ey, r, b, pos, radius, cell, x0, y0, nx, ny, cell_start, cell_items):
    """Whether agent ``r``'s disc at ``(ex, ey)`` touches no agent but
    ``r`` and ``b`` (those in the 3 x 3 cells round it: ``cell`` is at
    least the widest pair's reach)."""
    hc = min(max(int((ex - x0) / cell), 0), nx - 1)
    hr = min(max(int((ey - y0) / cell), 0), ny - 1)
    for cr in range(max(hr - 1, 0), min(hr + 1, ny - 1) + 1):
        for cc in range(max(hc - 1, 0), min(hc + 1, nx - 1) + 1):
            q = cr * nx + cc
            for t in range(cell_start[q], cell_start[q + 1]):
                j = cell_items[t]
                if j == r or j == b:
                    continue
                if (pos[j, 0] - ex) ** 2 + (pos[j, 1] - ey) ** 2 < (radius[r] + radius[j]) ** 2:
                    return False
    return True


#: a swept step is clear of the walls when its disc keeps this share of
#: its radius off them (an agent pushed against a wall touches it)
SWEPT_SHARE = 0.99


@njit(cache=True, nogil=True)
def _clear(qx, qy, ex, ey, rad, swept, ov, o_next, wall_grid, wall_start, wall_items):
    """Whether the step from ``(qx, qy)`` to ``(ex, ey)`` crosses no wall
    (the edges ``v -> o_next[v]`` of ``ov``, bucketed by ``wall_grid``)
    and a disc of ``rad`` at its end touches none (``swept``: nor
    anywhere along the step)."""
    if ov.shape[0] == 0:
        return True
    side, x0, y0 = wall_grid[0], wall_grid[1], wall_grid[2]
    wnx, wny = int(wall_grid[3]), int(wall_grid[4])
    c0 = max(int((min(qx, ex) - rad - x0) / side), 0)
    c1 = min(int((max(qx, ex) + rad - x0) / side), wnx - 1)
    r0 = max(int((min(qy, ey) - rad - y0) / side), 0)
    r1 = min(int((max(qy, ey) + rad - y0) / side), wny - 1)
    for cr in range(r0, r1 + 1):
        for cc in range(c0, c1 + 1):
            cb = cr * wnx + cc
            for e in range(wall_start[cb], wall_start[cb + 1]):
                v = wall_items[e]
                w = o_next[v]
                ax, ay, bx, by = ov[v, 0], ov[v, 1], ov[w, 0], ov[w, 1]
                if _seg_sq(ax, ay, bx, by, ex, ey) < rad * rad:
                    return False
                if swept and min(_seg_sq(qx, qy, ex, ey, ax, ay), _seg_sq(qx, qy, ex, ey, bx, by),
                                 _seg_sq(ax, ay, bx, by, qx, qy)) < (SWEPT_SHARE * rad) ** 2:
                    return False
                ux, uy = bx - ax, by - ay
                d1 = (ux * (qy - ay) - uy * (qx - ax)) > 0.0
                d2 = (ux * (ey - ay) - uy * (ex - ax)) > 0.0
                sx, sy = ex - qx, ey - qy
                d3 = (sx * (ay - qy) - sy * (ax - qx)) > 0.0
                d4 = (sx * (by - qy) - sy * (bx - qx)) > 0.0
                if d1 != d2 and d3 != d4:
                    return False
    return True


@njit(cache=True, nogil=True)
def back_out(state, pos, vel, pref, radius, wall_radius, max_speed, ids, row_of, pts, corner,
             ends, back, back_left, back_to, dt, again, aside, ov, o_next, wall_grid, wall_start,
             wall_items):
    """The preferred velocities of the agents backing out of another's way
    (``give_way``): each walks along the way of the one it makes way for
    (from where that one stands, through its corridor's points from its
    corner, before ``ends``; an agent on a flow field has none here: its
    heading) a little ahead of its own nearest point of it, turned
    ``BACK_SIDE`` left, at full speed; once a straight walk (its disc
    clear of the walls ``ov``, ``wall_grid`` as ``give_way`` takes them)
    reaches its place beside the way (``back_to``, not NaN), it heads
    there instead (``aside``: it steps into it, and the other need not
    walk on through it). It stops backing when it is clear
    of that way (as far from it as their radii together), that one has
    passed it, stops walking or backs itself, or ``BACK_SECONDS`` are
    over; then ``again`` marks it to plan its way again from there."""
    for r in range(state.shape[0]):
        aside[r] = False
        if back[r] < 0:
            continue
        back_left[r] -= dt
        b = row_of[back[r]]
        if state[r] != MOVING or back_left[r] <= 0.0 or b < 0 or state[b] != MOVING \
                or back[b] >= 0 or not _back_along(r, b, pos, vel, pref, radius, max_speed, pts,
                                                    corner[b], ends[b]):
            back[r] = -1
            again[r] = state[r] == MOVING
            continue
        tx, ty = back_to[r, 0], back_to[r, 1]
        if not math.isnan(tx) and _clear(pos[r, 0], pos[r, 1], tx, ty, wall_radius[r], True, ov,
                                         o_next, wall_grid, wall_start, wall_items):
            dx, dy = tx - pos[r, 0], ty - pos[r, 1]
            d = math.sqrt(dx * dx + dy * dy)
            speed = min(max_speed[r], d / dt) / d if d > 0.0 else 0.0
            pref[r, 0], pref[r, 1] = dx * speed, dy * speed
            aside[r] = True


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


@njit(cache=True, nogil=True, inline="always")
def _nearest_on_way(px, py, ray, pos, pref, b, h, window, pts, first, end):
    """The point of agent ``b``'s way (from ``b`` along its corridor
    ``pts[first:end]``, or its heading when ``ray``; up to ``window``
    along it) nearest to ``(px, py)``: ``(distance, s, fx, fy)`` with ``s``
    its distance along the way and ``(fx, fy)`` the way's first heading."""
    ax, ay = pos[b, 0], pos[b, 1]
    best_d, best_s, s, c = math.inf, 0.0, 0.0, first
    fx = fy = 0.0
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
    return best_d, best_s, fx, fy


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
    # the nearest point of b's way to r (its distance along the way) and
    # the way's first heading
    best_d, best_s, fx, fy = _nearest_on_way(px, py, ray, pos, pref, b, h, window, pts, first,
                                             end)
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


@njit(cache=True, nogil=True)
def weights(state, yielding, back, aside, returning, walker, giving_way, standing, weight):
    """Each agent's avoidance weight into ``weight``: ``walker`` for one
    walking, ``giving_way`` while it gives way (``yielding``) or steps
    aside for another (``aside``: the other slows a little for it),
    ``standing`` for one not walking, backing out of another's way or
    walking back to its goal (``returning``)."""
    for r in range(state.shape[0]):
        if state[r] != MOVING or returning[r] or (back[r] >= 0 and not aside[r]):
            weight[r] = standing
        elif yielding[r] > 0.0 or aside[r]:
            weight[r] = giving_way
        else:
            weight[r] = walker


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


@njit(cache=True, nogil=True)
def field_walkers(field, state, rows):
    """The agents that walk their flow field (``field[i] >= 0``, and
    waiting, moving or without a path), their rows into ``rows`` in
    order: ``(count, one)``, ``one`` whether they all walk one field (in
    place of numpy's masks and a min and max: about 20 us a step at 1,000
    agents)."""
    k = 0
    lo, hi = 0, -1
    for i in range(field.shape[0]):
        s = state[i]
        f = field[i]
        if f >= 0 and (s == WAITING or s == MOVING or s == NO_PATH):
            rows[k] = i
            if k == 0:
                lo = hi = f
            lo, hi = min(lo, f), max(hi, f)
            k += 1
    return k, lo == hi


@njit(cache=True, nogil=True)
def reach_states(cost, state):
    """``state[i]``: ``MOVING`` where the field's ``cost[i]`` is finite (a
    way to the goal), else ``NO_PATH``."""
    for i in range(cost.shape[0]):
        state[i] = MOVING if math.isfinite(cost[i]) else NO_PATH
