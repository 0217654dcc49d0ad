"""The avoidance's neighbour search against a brute-force one: each agent's
nearest agents within its range, on its floor, nearest first and ties by
id, whichever way the search starts (from the grid alone, or from a guess
such as the list of the step before, however wrong)."""
import numpy as np
import pytest

from navcore_crowd import _orca as K
from navcore_crowd.avoidance import Agents, step, step_velocities

NONE = np.zeros(0)


def _truth(pos, i, range_sq, cap, elev=NONE, tall=NONE):
    d = ((pos - pos[i]) ** 2).sum(1)
    ok = (d < range_sq) & (np.arange(len(pos)) != i)
    if elev.size:
        ok &= np.abs(elev - elev[i]) < 0.5 * (tall + tall[i])
    js = np.flatnonzero(ok)
    return js[np.lexsort((js, d[js]))][:cap].tolist()


def _grid(pos, side):
    x0, y0, x1, y1 = K.bounds(pos)
    nx = max(int(np.ceil((x1 - x0) / side)), 1)
    ny = max(int(np.ceil((y1 - y0) / side)), 1)
    start, items = np.zeros(nx * ny + 1, np.int64), np.empty(len(pos), np.int32)
    K.bucket(pos, x0, y0, side, nx, ny, start, items)
    cell_pos = np.empty_like(pos)
    K.in_cell_order(pos, items, cell_pos)
    return (side, x0, y0, nx, ny, start, items, cell_pos)


def _search(pos, grid, i, range_sq, cap, hint, hint_n, seen, elev=NONE, tall=NONE):
    keys, ids = np.empty(64), np.empty(64, np.int32)
    k = K.neighbours_from_hint(i, pos, elev, tall, *grid, range_sq, cap, hint, hint_n, seen,
                               keys, ids)
    hinted = k >= 0
    if not hinted:
        k = K.agent_neighbours(i, pos, elev, tall, *grid, range_sq, cap, keys, ids)
    return ids[:k].tolist(), hinted


def _lattice(rng, n, spread):
    # points on a lattice of quarter units: many exactly equal distances
    return np.round(rng.uniform(0.0, spread, (n, 2)) * 4.0) / 4.0


@pytest.mark.parametrize("side", [0.7, 2.0, 6.0])
def test_every_guess_gives_the_exact_lists(side):
    rng = np.random.default_rng(5)
    n, cap, range_sq = 400, 10, 4.0 ** 2
    pos = _lattice(rng, n, 30.0)
    moved = pos + np.round(rng.normal(0.0, 0.5, pos.shape) * 4.0) / 4.0
    seen = np.zeros(n + 1, np.int64)
    for before, now in ((pos, moved), (moved, moved)):
        grid = _grid(now, side)
        last = np.array([(_truth(before, i, range_sq, cap) + [-1] * cap)[:cap]
                         for i in range(n)], np.int32)
        last_n = np.array([len(_truth(before, i, range_sq, cap)) for i in range(n)], np.int32)
        # guesses: the lists of the step before; any agents at all (some
        # out of range, some the agent itself); too few to bound the search
        random = np.array([rng.choice(n, cap, replace=False) for _ in range(n)], np.int32)
        short = np.full(n, cap - 1, np.int32)
        hinted = 0
        for hint, hint_n in ((last, last_n), (random, np.full(n, cap, np.int32)),
                             (random, short)):
            for i in range(n):
                got, used = _search(now, grid, i, range_sq, cap, hint, hint_n, seen)
                assert got == _truth(now, i, range_sq, cap), (i, side)
                hinted += used
        assert hinted >= n // 2      # the guess bounded most searches


def test_guess_ignores_agents_of_other_floors():
    rng = np.random.default_rng(8)
    n, cap, range_sq = 300, 8, 5.0 ** 2
    pos = _lattice(rng, n, 25.0)
    elev = rng.choice([0.0, 3.0], n)
    tall = np.full(n, 2.0)
    grid = _grid(pos, 1.5)
    seen = np.zeros(n + 1, np.int64)
    # the guess: the nearest agents on any floor (those of the other
    # floor must not be kept)
    hint = np.array([(_truth(pos, i, range_sq, cap) + [-1] * cap)[:cap] for i in range(n)],
                    np.int32)
    hint_n = np.array([len(_truth(pos, i, range_sq, cap)) for i in range(n)], np.int32)
    for i in range(n):
        got, _ = _search(pos, grid, i, range_sq, cap, hint, hint_n, seen, elev, tall)
        assert got == _truth(pos, i, range_sq, cap, elev, tall), i


@pytest.mark.nojit
def test_steps_keep_lists_that_change_no_velocity():
    # agents stepped with their lists kept between steps get the velocities
    # of agents whose search starts afresh every step
    rng = np.random.default_rng(2)
    start = _lattice(rng, 60, 12.0)
    kept = Agents(start, radius=0.4, max_speed=1.0, neighbour_dist=3.0, max_neighbours=5)
    goal = start[::-1].copy()
    used = 0
    for _ in range(6):
        kept.pref[:] = np.clip(goal - kept.pos, -1.0, 1.0)
        fresh = Agents(kept.pos, radius=0.4, max_speed=1.0, neighbour_dist=3.0,
                       max_neighbours=5)
        fresh.vel[:], fresh.pref[:] = kept.vel, kept.pref
        step_velocities(fresh, 0.25)
        used += int((kept.hint_n == 5).sum())
        step(kept, 0.25)
        assert np.array_equal(kept.vel, fresh.new_vel)
    assert used > 0                 # some searches started from a kept list
