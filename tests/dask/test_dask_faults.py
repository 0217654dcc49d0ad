"""Faults: a worker process killed in the middle of a matrix job (the
scheduler runs its tiles again elsewhere: the result is complete and
identical), and a client process killed in the middle of one (the
cluster drops everything of it)."""
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import dask
import numpy as np
import pytest

from daskcluster import local_cluster, navcore_keys

import navcore
import navcore_dask

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def client():
    # a result the killed worker held is asked of it until the connect
    # timeout (30 s by default) runs out, then computed again: 2 s here
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}), local_cluster() as c:
        yield c


def _grid(world):
    walk = np.random.default_rng(11).random((160, 160)) >= 0.25
    return world.add_graph("field", type="grid", array=walk)


def _scheduler_states(client, prefix):
    def states(dask_scheduler):
        return [ts.state for k, ts in dask_scheduler.tasks.items() if str(k).startswith(prefix)]
    return client.run_on_scheduler(states)


# A cluster of its own and a worker restarted by its nanny, about 6 s, so it
# runs in CI. (The job used to take ~45 s, kill or no kill: on this
# undirected grid every tile of 4 targets repeated all 600 source searches;
# tiles now cut the side whose searches run.)
def test_worker_killed_mid_job_loses_and_repeats_nothing(client):
    world = navcore.World()
    g = _grid(world)
    ok = np.flatnonzero(g.walkable)
    rng = np.random.default_rng(2)
    s, t = rng.choice(ok, 600).astype(np.int32), rng.choice(ok, 300).astype(np.int32)
    want = world.distance_matrix("field", s, t)
    navcore_dask.distance_matrix(client, g, s[:4], t)      # graph and kernels on the workers
    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    tiles = 150                                              # 600 sources, 4 a tile
    seen = {}

    def kill_when_running():
        end = time.monotonic() + 30
        while time.monotonic() < end:
            states = _scheduler_states(client, "navcore-matrix")
            waiting = sum(st not in ("memory", "released", "forgotten") for st in states)
            if states and tiles - waiting >= 2 and waiting >= 30:
                seen["waiting"] = waiting
                os.kill(pids[victim], signal.SIGKILL)
                return
            time.sleep(0.005)

    killer = threading.Thread(target=kill_when_running)
    killer.start()
    got = navcore_dask.distance_matrix(client, g, s, t, chunk=4)
    killer.join()
    assert seen.get("waiting", 0) >= 30, "the job finished before the worker was killed"
    assert got.shape == want.shape and np.array_equal(got, want)
    # the nanny restarts the worker; the cluster is whole again for later tests
    client.wait_for_workers(2, timeout=60)
    assert victim not in client.run(os.getpid) or client.run(os.getpid)[victim] != pids[victim]
    assert np.array_equal(navcore_dask.distance_matrix(client, g, s[:30], t), want[:30])


CLIENT_SCRIPT = """
import sys, numpy as np, navcore, navcore_dask
client = navcore_dask.connect(sys.argv[1])
world = navcore.World()
walk = np.random.default_rng(11).random((160, 160)) >= 0.25
g = world.add_graph("field", type="grid", array=walk)
ok = np.flatnonzero(g.walkable)
s = np.random.default_rng(3).choice(ok, 4000).astype(np.int32)
print("started", flush=True)
navcore_dask.distance_matrix(client, g, s, s, chunk=4)
print("finished", flush=True)
"""


def _held(client) -> set:
    return {t for w in navcore_dask.worker_counts(client).values() for t in w["held"]}


def test_client_killed_mid_job_leaves_the_cluster_clean(client):
    before = _held(client)          # this client's own snapshots, if any are left
    keys_before = set(navcore_keys(client))
    proc = subprocess.Popen([sys.executable, "-c", CLIENT_SCRIPT, client.scheduler.address],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout.readline().strip() == "started"
        end = time.monotonic() + 60
        while not _scheduler_states(client, "navcore-matrix"):
            assert time.monotonic() < end and proc.poll() is None
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
    end = time.monotonic() + 30
    while set(navcore_keys(client)) - keys_before or _held(client) - before:
        assert time.monotonic() < end, f"left on the cluster: {navcore_keys(client)}"
        time.sleep(0.1)
