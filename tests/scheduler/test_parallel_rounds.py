"""Rounds with workers: a batchable group is one batch offered to every
worker thread (``PathBatch.threads``) on the ticking thread; what the
batch leaves (a graph whose plugins answer one request at a time) is still
served, one request at a time, on the worker threads. Results equal
``workers=0``'s and ``World.find_path``'s."""
import numpy as np
import pytest

import navcore
from navcore_scheduler import rounds

NO_BUDGET = 1e7


def _grid(seed):
    rng = np.random.default_rng(seed)
    walk = rng.random((50, 70)) >= 0.3
    walk[:, 35] = False                          # two halves joined at the top:
    walk[0, 35] = True                           # long detours beside short hops
    return walk


def _play(workers, seed=11, frames=6, per_frame=60):
    walk = _grid(seed)
    rng = np.random.default_rng(seed)
    world = navcore.World(workers=workers, frame_budget_ms=NO_BUDGET)
    world.add_graph("g", type="grid", array=walk)
    n = 300
    src = rng.integers(0, n, 900)
    world.add_graph("c", type="csr", src=src, dst=rng.integers(0, n, 900),
                    cost=rng.random(900) + 0.5)
    seen = []

    class Spy:
        @navcore.hookimpl(tryfirst=True)
        def navcore_find_paths(self, graph, batch):
            seen.append((batch.graph_id, len(batch), batch.threads))

    world.plugins.register(Spy())
    free = np.argwhere(walk)
    out = []
    for frame in range(frames):
        hs = []
        for k in range(per_frame):
            (sy, sx), (gy, gx) = free[rng.integers(len(free), size=2)]
            algo = ("auto", "astar", "dijkstra")[k % 3]
            hs.append(world.request_path("g", (int(sx), int(sy)), (int(gx), int(gy)),
                                         algorithm=algo))
            a, b = rng.integers(0, n, 2)
            hs.append(world.request_path("c", int(a), int(b)))
        x, y = rng.integers(0, 60), rng.integers(0, 45)
        world.update("g", rect=(int(x), int(y), 3, 3), walkable=bool(frame % 2))
        world.tick()
        while world.scheduler.requests.waiting:
            world.tick()
        out += [(h.result().status, h.result().cost, h.result().expanded,
                 h.result().nodes.tolist(), h.result().algorithm) for h in hs]
    world.scheduler.close()
    return out, seen


def test_workers_0_1_2_give_identical_results_and_batches_are_offered_to_the_threads():
    r0, seen0 = _play(0)
    r1, seen1 = _play(1)
    r2, seen2 = _play(2)
    assert r0 == r1 == r2
    assert len({status for status, *_ in r0}) >= 2          # found and unreachable
    assert {t for *_, t in seen0} == {1} and {t for *_, t in seen1} == {1}
    big = {(gid, t) for gid, n, t in seen2 if n >= 20}
    assert ("g", 2) in big and ("c", 2) in big               # one batch, two threads


def test_a_graph_served_one_request_at_a_time_still_uses_the_workers(monkeypatch):
    # the csr graph's plugins defer every entry of its batches: the
    # scheduler hands those requests to the worker threads in chunks
    names = []
    real = rounds._Chunk.solve

    def solve(self, world, left):
        import threading
        left = list(left)
        if left:
            names.append(threading.current_thread().name)
        return real(self, world, left)

    monkeypatch.setattr(rounds._Chunk, "solve", solve)
    world = navcore.World(workers=2, frame_budget_ms=NO_BUDGET)
    rng = np.random.default_rng(3)
    n = 200
    world.add_graph("c", type="csr", src=rng.integers(0, n, 700),
                    dst=rng.integers(0, n, 700))
    world.scheduler.min_chunk_ms = 0               # every request a chunk
    pairs = rng.integers(0, n, (40, 2))
    hs = [world.request_path("c", int(a), int(b)) for a, b in pairs]
    world.tick()
    for h, (a, b) in zip(hs, pairs):
        want = world.find_path("c", int(a), int(b))
        got = h.result()
        assert (got.status, got.cost, got.nodes.tolist()) == \
            (want.status, want.cost, want.nodes.tolist())
    assert any(name.startswith("navcore-worker") for name in names)
    world.scheduler.close()


def test_a_small_round_stays_on_one_thread():
    # expected work under MIN_PARALLEL_S: the batch is not offered to threads
    from navcore.types import PathRequest
    world = navcore.World(workers=2)
    world.add_graph("g", type="grid", rows=["." * 20] * 10)
    seen = []

    class Spy:
        @navcore.hookimpl(tryfirst=True)
        def navcore_find_paths(self, batch):
            seen.append(batch.threads)

    world.plugins.register(Spy())

    def items():
        out = []
        for k in range(4):
            it = rounds.Item(None, None)
            it.request = PathRequest("g", None, None, "auto", k, 199 - k, {})
            out.append(it)
        return out

    jobs = world.scheduler.jobs
    for per in ({"g": 1e-6}, {"g": 1e-3}, {}):
        got = items()
        timing = rounds.run_round(world, jobs, got, {}, per)
        # answered by the batch: made into a PathResult when read
        assert all(it.lazy is not None and it.lazy[0].result(it.lazy[1]).found
                   and it.found for it in got)
        assert [n for n, _ in timing["g"]] == [4]
    assert seen == [1, 2, 2]
    world.scheduler.close()
