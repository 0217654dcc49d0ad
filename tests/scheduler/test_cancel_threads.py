"""Handles cancelled from other threads while the game's thread ticks:
the queue's count of waiting requests stays exact, and every handle
finishes."""
import sys
import threading

import numpy as np
import pytest

import navcore
from navcore import PathStatus


@pytest.fixture
def threads_switch_often():
    """The GIL handed over every microsecond, so races show within rounds."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def test_cancels_from_another_thread_keep_the_waiting_count_exact(threads_switch_often):
    world = navcore.World()
    world.add_graph("g", type="grid", array=np.ones((40, 40), bool))
    rng = np.random.default_rng(3)
    queue = world.scheduler.requests
    for round_ in range(30):
        handles = [world.request_path("g", tuple(rng.integers(0, 40, 2)),
                                      tuple(rng.integers(0, 40, 2)), repath=bool(k % 2))
                   for k in range(60)]
        go = threading.Barrier(2)

        def cancel_all():
            go.wait()
            for h in handles:
                h.cancel()
        th = threading.Thread(target=cancel_all)
        th.start()
        go.wait()
        while th.is_alive():
            world.tick(budget_ms=0.05)
            assert queue.waiting >= 0
        th.join()
        world.tick(budget_ms=1e6)
        assert queue.waiting == 0 and len(queue._pending) == 0, round_
        assert all(h.done for h in handles)
        assert all(h.result().status in (PathStatus.CANCELLED, PathStatus.FOUND)
                   for h in handles)
    world.close()


def test_a_tick_after_the_scheduler_closed_applies_every_graphs_updates():
    """Two graphs' update batches are jobs on the workers; with the
    workers stopped they run on the ticking thread, none is dropped."""
    world = navcore.World(workers=2)
    for gid in ("a", "b"):
        world.add_graph(gid, type="grid", rows=["....", "...."])
    world.scheduler.close()
    for gid in ("a", "b"):
        world.update(gid, cells=[(1, 0), (1, 1)], walkable=False)
    stats = world.tick()
    assert stats.updates_applied == 2
    for gid in ("a", "b"):
        assert not world.reachable(gid, (0, 0), (3, 0))
    world.close()


def test_a_cancel_marks_and_counts_under_the_lock_the_queue_is_popped_under():
    """While the ticking thread holds the queue's lock (popping cancelled
    handles), a cancel from another thread neither marks the handle nor
    counts it; both happen together once the lock is free."""
    world = navcore.World()
    world.add_graph("g", type="grid", rows=["....", "...."])
    queue = world.scheduler.requests
    h = world.request_path("g", (0, 0), (3, 1))
    with queue._lock:
        th = threading.Thread(target=h.cancel)
        th.start()
        th.join(0.1)
        assert th.is_alive() and not h.cancelled and queue.waiting == 1
    th.join(5)
    assert h.cancelled and queue.waiting == 0
    assert h.result().status is PathStatus.CANCELLED
    world.tick()
    assert queue.waiting == 0 and not queue._pending
    world.close()
