"""When a crowd's per-agent parts pay for a second thread: the world
scheduler's job round trip against the flow field's steering and the
moves (``navcore_move_along_surface``) of the packed circle of
bench/crowd.py, each timed whole on one thread and split in two
(``World(workers=1)``), interleaved on the same state (the crowd after
ten steps).

    flock /tmp/navcore-cpu.lock .venv/bin/python bench/crowd_split.py [sizes...]

The thresholds ``PARALLEL_STEER`` and ``PARALLEL_MOVES`` of
``navcore_crowd.crowd`` (agents per thread) come from this: a part
splits where its split time is below its whole time. Only meaningful
with both cores free (the split half waits for a busy core otherwise).

Whether the two threads run arithmetic side by side at all
(``two_at_once``): a loop of square roots and divisions, the kind of work
the moves and the steering are, timed alone and as two copies at once
(one on a worker). Two copies at once taking twice one's time or more
say the threads share one core's arithmetic (two hardware threads of one
core, or a CPU quota), and no split of such a part can pay there,
whatever a job's round trip costs.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import log, print_table  # noqa: E402
from crowd import DT, navcore_crowd  # noqa: E402

ROUNDS = 200
OFF = 10 ** 9                 # a threshold no crowd reaches: one thread


def job_round_trip(world, rounds=ROUNDS):
    """Median seconds of scheduling a job that does nothing and waiting
    for it (the worker idle in between, as between a step's parts)."""
    sched, out = world.scheduler, []
    for _ in range(rounds):
        time.sleep(0.0002)
        t = time.perf_counter()
        sched.schedule(lambda: None).complete()
        out.append(time.perf_counter() - t)
    return float(np.median(out))


def two_at_once(world, rounds=ROUNDS):
    """``(one, two)``: median seconds of a loop of square roots and
    divisions alone, and of two copies at once (one on a worker)."""
    import math

    from numba import njit

    @njit(nogil=True)
    def arithmetic(x, k):
        s = 0.0
        for i in range(k):
            s += math.sqrt(x + i) / (i + 1.0)
        return s

    arithmetic(1.0, 10)
    sched, one, two = world.scheduler, [], []
    k = 20_000
    for _ in range(rounds):
        time.sleep(0.0002)
        t = time.perf_counter()
        arithmetic(1.0, k)
        one.append(time.perf_counter() - t)
        time.sleep(0.0002)
        t = time.perf_counter()
        job = sched.schedule(arithmetic, 2.0, k)
        arithmetic(1.0, k)
        job.complete()
        two.append(time.perf_counter() - t)
    return float(np.median(one)), float(np.median(two))


def parts(n, rounds=ROUNDS):
    """``{part: (whole s, split s)}`` medians on the circle of ``n``."""
    import navcore_crowd.crowd as C
    world, crowd = navcore_crowd(n, 1)
    for _ in range(10):
        crowd.step(DT)
    a = crowd._agents
    start = a.pos.copy()
    end = start + a.new_vel * DT
    node = crowd._node.copy()
    out_pts, out_nodes = np.empty_like(start), np.empty_like(node)
    cases = {"steer": ("PARALLEL_STEER", lambda: crowd._follow_fields(DT)),
             "moves": ("PARALLEL_MOVES",
                       lambda: crowd._move_all(start, node, end, out_pts, out_nodes))}
    res = {"job": job_round_trip(world), "pair": two_at_once(world)}
    for part, (name, call) in cases.items():
        keep = getattr(C, name)
        times = {OFF: [], 1: []}
        try:
            for r in range(rounds):
                for least in ((OFF, 1) if r % 2 else (1, OFF)):
                    setattr(C, name, least)
                    time.sleep(0.0002)
                    t = time.perf_counter()
                    call()
                    times[least].append(time.perf_counter() - t)
        finally:
            setattr(C, name, keep)
        res[part] = (float(np.median(times[OFF])), float(np.median(times[1])))
    world.close()
    return res


def main(argv=None):
    sizes = [int(x) for x in (argv if argv is not None else sys.argv[1:])] or \
        [500, 1000, 2000, 5000]
    rows = []
    for n in sizes:
        log(f"circle of {n}")
        r = parts(n)
        one, two = r["pair"]
        row = [f"{n:,}", f"{r['job'] * 1e6:.0f} us", f"{two / one:.2f}x"]
        for part in ("steer", "moves"):
            whole, split = r[part]
            row += [f"{whole * 1e3:.3f} ms ({whole / n * 1e9:.0f} ns/agent)",
                    f"{split * 1e3:.3f} ms", f"{(whole - split) * 1e3:+.3f} ms"]
        rows.append(row)
    print_table("Whole on one thread against split in two (medians)",
                ["agents", "job round trip", "two loops at once / one", "steering, 1 thread", "steering, split",
                 "gain", "moves, 1 thread", "moves, split", "gain"], rows)


if __name__ == "__main__":
    main()
