"""A grid batch searched by several threads in one call (``PathBatch.threads``,
``navcore_grid.parallel``) answers exactly what the one-thread batch and
single queries answer, with costs checked against a naive grid Dijkstra."""
import math
import threading

import numba
import numpy as np
import pytest

import navcore.parallel as navcore_parallel
import reference
from navcore.types import PathBatch, PathStatus
from navcore_grid import GridGraph, parallel, search


def _maze_like(seed, h=24, w=31, density=0.3):
    rng = np.random.default_rng(seed)
    walk = rng.random((h, w)) >= density
    walk[h // 2, :] = True                      # a long corridor: uneven work
    walk[h // 2 + 1, 2:-2] = False               # a wall beside it
    walk[:, 3] = False                           # cut off the west strip:
    walk[0, 3] = True                            # one gap, long detours
    return walk


def _pairs(graph, rng, n):
    free = np.flatnonzero(graph.walkable).astype(np.int32)
    s, t = rng.choice(free, n), rng.choice(free, n)
    s[:3] = t[:3]                                # some trivial ones
    return s.astype(np.int32), t.astype(np.int32)


def _answers(graph, algorithm, s, t, threads):
    b = PathBatch("g", algorithm, s, t, threads)
    search.grid_find_paths(graph, b)
    assert b.todo().size == 0
    return [(r.status, r.cost, r.expanded, r.nodes.tolist(), r.points.tolist(), r.algorithm)
            for r in b.results()]


@pytest.mark.nojit
@pytest.mark.parametrize("algorithm", ["jps", "astar", "dijkstra", "auto"])
def test_two_threads_answer_as_one_and_as_single_queries(algorithm):
    walk = _maze_like(7)
    g = GridGraph(walk)
    s, t = _pairs(g, np.random.default_rng(1), 40)
    one = _answers(g, algorithm, s, t, 1)
    two = _answers(g, algorithm, s, t, 2)
    assert one == two
    kind = {"auto": "jps"}.get(algorithm, algorithm)
    for (status, cost, expanded, nodes, _, name), a, b in zip(two, s, t):
        single = search.jps_query(g, int(a), int(b)) if kind == "jps" else \
            search.grid_astar(g, int(a), int(b), heuristic=kind == "astar", algorithm=kind)
        assert (status, expanded, nodes, name) == (single.status, single.expanded,
                                                   single.nodes.tolist(), single.algorithm)
        assert cost == single.cost
    # costs against the naive reference, unreachable pairs included
    W = g.width
    statuses = set()
    for (status, cost, *_), a, b in zip(two, s, t):
        truth = reference.grid_dijkstra(walk, None, (int(a) % W, int(a) // W))
        want = truth.get((int(b) % W, int(b) // W), math.inf)
        statuses.add(status)
        if want == math.inf:
            assert status is PathStatus.UNREACHABLE
        else:
            assert cost == pytest.approx(want, rel=1e-9)
    assert statuses == {PathStatus.FOUND, PathStatus.UNREACHABLE}


def test_many_seeded_batches_with_costs_and_landmarks_match():
    # uneven work (long detours beside trivial pairs), per-cell costs (A*
    # only), several seeds; two threads give the one-thread answers
    for seed in range(6):
        walk = _maze_like(seed, 48, 64)
        rng = np.random.default_rng(seed)
        costs = np.where(walk, rng.choice([0.5, 1.0, 3.0], walk.shape), np.inf)
        for g, algos in ((GridGraph(walk), ("jps", "astar", "dijkstra")),
                         (GridGraph(np.isfinite(costs), np.where(np.isfinite(costs), costs, 1.0)),
                          ("astar", "dijkstra"))):
            s, t = _pairs(g, rng, 200)
            for algorithm in algos:
                assert _answers(g, algorithm, s, t, 2) == _answers(g, algorithm, s, t, 1)


def test_rows_and_pools_that_run_out_grow_and_lose_nothing():
    walk = _maze_like(3, 40, 60, density=0.15)
    g = GridGraph(walk)
    s, t = _pairs(g, np.random.default_rng(3), 120)
    want = {a: _answers(g, a, s, t, 1) for a in ("jps", "astar")}
    sc = parallel.parallel_scratch(g, 2)
    sc.bufs = np.zeros((2, 8), dtype=np.int32)          # a path of 8 cells fills a row
    sc.pool()
    fb = np.zeros((2, 16))
    sc._pool = (np.zeros((2, 4), np.int32), np.zeros((2, 4), np.int64),
                np.zeros((2, 4), np.int32), np.empty((2, 96), np.int32), fb, fb.view(np.int64),
                np.full((2, 16), -1, np.int64))
    for a in ("jps", "astar"):
        assert _answers(g, a, s, t, 2) == want[a]
    assert sc.bufs.shape[1] > 8 and sc._pool[0].shape[1] > 4


def test_a_busy_stack_falls_back_to_this_thread():
    g = GridGraph(_maze_like(5))
    s, t = _pairs(g, np.random.default_rng(5), 30)
    want = _answers(g, "jps", s, t, 1)
    sc = parallel.parallel_scratch(g, 2)
    with sc.lock:                                # another thread's batch
        b = PathBatch("g", "jps", s, t, 2)
        assert not parallel.find_paths_parallel(g, b, "jps", b.todo(), 2)
        assert _answers(g, "jps", s, t, 2) == want


def test_parallel_calls_hold_the_lock_while_the_layer_may_be_workqueue(monkeypatch,
                                                                       section_held_elsewhere):
    g = GridGraph(_maze_like(9))
    s, t = _pairs(g, np.random.default_rng(9), 20)
    held = []
    real = parallel.P.jps_parallel

    def spy(*args):
        held.append(section_held_elsewhere())
        return real(*args)

    monkeypatch.setattr(parallel.P, "jps_parallel", spy)
    for layer, locked in (("workqueue", True), ("omp", False), ("tbb", False)):
        monkeypatch.setattr(navcore_parallel, "_layer", [layer])
        held.clear()
        _answers(g, "jps", s, t, 2)
        assert held == [locked]
    assert not section_held_elsewhere()


def test_a_batch_does_not_wait_behind_another_threads_parallel_kernel(monkeypatch):
    """Under workqueue, while another thread is inside a parallel section
    (a contraction, say), the batch is searched on this thread instead."""
    g = GridGraph(_maze_like(6))
    s, t = _pairs(g, np.random.default_rng(6), 25)
    want = _answers(g, "jps", s, t, 1)
    monkeypatch.setattr(navcore_parallel, "_layer", ["workqueue"])
    inside, leave = threading.Event(), threading.Event()

    def other():
        with navcore_parallel.parallel_section():
            inside.set()
            leave.wait(30)
    th = threading.Thread(target=other)
    th.start()
    try:
        assert inside.wait(30)
        b = PathBatch("g", "jps", s, t, 2)
        assert not parallel.find_paths_parallel(g, b, "jps", b.todo(), 2)
        assert _answers(g, "jps", s, t, 2) == want
    finally:
        leave.set()
        th.join()


def test_updates_reach_every_slot_of_the_stack():
    # A* reads blocked cells from its stamp rows: an update must reach both
    walk = np.ones((20, 30), dtype=bool)
    g = GridGraph(walk)
    s = np.array([0, 20 * 30 - 1, 5, 99], np.int32)
    t = np.array([29, 0, 590, 119], np.int32)
    _answers(g, "astar", s, t, 2)                  # the stack exists
    from navcore_grid import updates
    upd = updates.make_update(g, {"rect": (10, 0, 1, 19), "walkable": False})
    updates.apply_updates(g, [upd])
    got = _answers(g, "astar", s, t, 2)
    assert got == _answers(g, "astar", s, t, 1)
    for (_, _, _, nodes, *_) in got:
        assert all(n % 30 != 10 or n // 30 == 19 for n in nodes)   # through the gap


@pytest.mark.nojit
@pytest.mark.skipif(not numba.config.DISABLE_JIT,
                    reason="makes the kernel's join raise by replacing a Python function")
@pytest.mark.parametrize("algorithm", ["jps", "astar"])
def test_a_raising_parallel_call_leaves_the_callers_thread_count(monkeypatch, algorithm):
    """The kernel sets this thread's numba thread count and restores it at
    its end; when it raises in between (a MemoryError of the join, say),
    the caller restores it from ``ctl``, and the error still reaches it."""
    from navcore_grid import _parallel as P
    g = GridGraph(np.ones((10, 12), bool))
    s = np.array([0, 5, 7], np.int32)
    t = np.array([100, 60, 30], np.int32)

    def boom(*args):
        raise MemoryError("the join's arrays")

    before = numba.get_num_threads()
    monkeypatch.setattr(P, "_collect", boom)
    numba.set_num_threads(1)
    try:
        with pytest.raises(MemoryError, match="join"):
            search.grid_find_paths(g, PathBatch("g", algorithm, s, t, 2))
        assert numba.get_num_threads() == 1
    finally:
        numba.set_num_threads(before)
