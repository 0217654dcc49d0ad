"""Parallel kernels follow the world (``navcore.parallel.kernel_threads``):
with ``World(workers=0)`` every kernel of a small call runs on the calling
thread, also while other processes keep the machine's cores busy; with
workers, a call with enough work runs on several threads.

Threads are counted, not timed: each kernel is wrapped to note, as it is
called, how many distinct numba threads a parallel region launched from
the calling thread at that moment runs on (a probe records
``numba.get_thread_id()`` per ``prange`` iteration: numba runs the
kernel's regions on the calling thread's thread count, the same count).
The answers are checked against scipy as well.
"""
import subprocess
import sys

import numba
import numpy as np
import pytest
from numba import njit, prange

import navcore
import navcore.parallel as navcore_parallel
import navcore_roads
from navcore_csr import _search as csr_kernels
from navcore_csr import _ch
from navcore_roads import _cch, _locate, _search
from roadtruth import close, need, scipy_distances


@njit(parallel=True)
def _thread_ids(out):
    for i in prange(out.shape[0]):
        out[i] = numba.get_thread_id()


def _threads_now() -> int:
    """Distinct numba threads a parallel region started here runs on."""
    out = np.full(64, -1, dtype=np.int64)
    _thread_ids(out)
    return len(set(out.tolist()))


@pytest.fixture
def busy_machine():
    """Three busy-loop processes: more than the cores of a 2-core machine."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


@pytest.fixture
def threads_seen(monkeypatch):
    """``{kernel name: [threads at each call]}`` of the wrapped kernels."""
    seen = {}

    def wrap(module, name):
        kernel = getattr(module, name)

        def counted(*args):
            seen.setdefault(name, []).append(_threads_now())
            return kernel(*args)
        monkeypatch.setattr(module, name, counted)

    for module, names in ((_ch, ("bucket_matrix", "pair_distances", "build_rounds")),
                          (_cch, ("bucket_matrix", "pair_distances", "customize")),
                          (_search, ("pairs",)), (_locate, ("snap",)),
                          (csr_kernels, ("matrix_rows",))):
        for name in names:
            wrap(module, name)
    return seen


def monaco(workers):
    d = np.load(need("monaco"))
    w = navcore.World(workers=workers)
    g = w.add_graph("r", type="roads", src=d["src"], dst=d["dst"], length=d["length_m"],
                    speed=d["speed_kmh"], positions=np.column_stack((d["lon"], d["lat"])),
                    keep="all")
    return w, g


def test_workers_0_runs_every_kernel_on_the_calling_thread_on_a_busy_machine(
        busy_machine, threads_seen, monkeypatch):
    serial_snaps = []
    snap_serial = _locate.snap_serial
    monkeypatch.setattr(_locate, "snap_serial",
                        lambda *a: serial_snaps.append(1) or snap_serial(*a))
    w, g = monaco(workers=0)
    c = w.add_graph("c", type="roads", src=g.edge_src, dst=g.csr.targets,
                    cost=g.csr.cost, positions=g.positions, keep="all")
    navcore_roads.contract(g)
    navcore_roads.contract(c, customizable=True)
    rng = np.random.default_rng(5)
    s, t = rng.integers(0, g.num_nodes, 50), rng.integers(0, g.num_nodes, 50)
    ref = scipy_distances(g, s)
    assert close(w.distance_matrix("r", s, t), ref[:, t])       # the hierarchy's buckets
    assert close(w.distance_matrix("c", s, t), ref[:, t])       # the CCH's
    assert close(w.distance_pairs("r", s, t), ref[np.arange(50), t])
    assert close(w.distance_pairs("c", s, t), ref[np.arange(50), t])
    navcore_roads.snap(g, g.positions[:300] + 1e-5)
    assert serial_snaps and "snap" not in threads_seen          # no parallel region at all
    w.update("c", nodes=[int(s[0])], walkable=False)
    w.tick()                                                     # customizes again
    assert navcore_roads.cch.current(c) is not None
    plain = w.add_graph("g", type="csr", src=g.edge_src, dst=g.csr.targets, cost=g.csr.cost)
    assert close(w.distance_matrix("g", s[:20], t), scipy_distances(plain, s[:20])[:, t])
    assert set(threads_seen) >= {"bucket_matrix", "customize", "build_rounds", "matrix_rows",
                                 "pair_distances"}
    assert {k: set(v) for k, v in threads_seen.items()} == \
        {k: {1} for k in threads_seen}, threads_seen
    assert plain.workers == 0


def test_with_workers_a_large_call_runs_on_several_threads(threads_seen, monkeypatch):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has one thread here")
    monkeypatch.setattr(navcore_parallel, "_running", lambda: 1)      # a quiet machine
    w, g = monaco(workers=2)
    navcore_roads.contract(g)
    threads_seen.clear()                 # contract's own warm-up calls (one node each)
    rng = np.random.default_rng(6)
    s, t = rng.integers(0, g.num_nodes, 40), rng.integers(0, g.num_nodes, 40)
    ref = scipy_distances(g, s)
    assert close(w.distance_matrix("r", s, t), ref[:, t])       # 1600 cells: parallel
    assert close(w.distance_matrix("r", s[:3], t[:3]), ref[:3][:, t[:3]])   # 9: serial
    assert threads_seen["bucket_matrix"] == [2, 1]


def test_with_workers_a_large_call_stays_on_one_thread_while_the_cores_are_busy(
        threads_seen, monkeypatch):
    w, g = monaco(workers=2)
    navcore_roads.contract(g)
    threads_seen.clear()                 # contract's own warm-up calls (one node each)
    monkeypatch.setattr(navcore_parallel, "_running", lambda: 3)      # two others run
    s = np.arange(40)
    ref = scipy_distances(g, s)
    assert close(w.distance_matrix("r", s, s), ref[:, s])
    monkeypatch.setattr(navcore_parallel, "_running", lambda: 2)      # one other: 1 core free
    assert close(w.distance_matrix("r", s, s), ref[:, s])
    assert threads_seen["bucket_matrix"] == [1, 1]


@pytest.mark.nojit
def test_free_cores_counts_the_other_runnable_tasks(monkeypatch):
    monkeypatch.setattr(navcore_parallel, "_CPUS", 4)
    for running, free in ((1, 4), (2, 3), (4, 1), (9, 1)):
        monkeypatch.setattr(navcore_parallel, "_running", lambda r=running: r)
        assert navcore_parallel.free_cores() == free
    monkeypatch.setattr(navcore_parallel, "_running", lambda: None)   # not Linux
    assert navcore_parallel.free_cores() == 4
    most = min(4, numba.config.NUMBA_NUM_THREADS)
    assert navcore_parallel.threads_for(4, work=10, least=5) == most
    assert navcore_parallel.threads_for(4, work=4, least=5) == 1
    assert navcore_parallel.threads_for(0, work=10, least=5) == 1


def test_the_caller_keeps_its_own_thread_count(threads_seen):
    before = numba.get_num_threads()
    w, g = monaco(workers=0)
    navcore_roads.contract(g)
    w.distance_matrix("r", [0, 1], [2, 3])
    assert numba.get_num_threads() == before
