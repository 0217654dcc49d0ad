"""``World.close()`` and ``with World() as world``: threads stop, waiting
handles finish, the world refuses changes and frames but still answers."""
import threading

import pytest

import navcore
from hooktags import exercises
from navcore import FrameError, PathStatus

ROWS = ["........", "...##...", "........"]


def _workers_alive() -> int:
    return sum(t.name.startswith("navcore-worker") for t in threading.enumerate())


def test_close_stops_the_worker_threads_and_is_idempotent():
    before = _workers_alive()
    world = navcore.World(workers=2)
    world.add_graph("g", type="grid", rows=ROWS)
    h = world.request_path("g", (0, 0), (7, 2))
    world.tick(budget_ms=1e6)              # the pool's threads are running now
    assert h.result().status is PathStatus.FOUND
    assert _workers_alive() > before
    world.close()
    world.close()
    assert world.closed
    assert _workers_alive() == before


def test_waiting_and_kept_requests_finish_cancelled_without_callbacks():
    called = []
    world = navcore.World(workers=1)
    world.add_graph("g", type="grid", rows=ROWS)
    kept = world.request_path("g", (0, 0), (7, 2), repath=True)
    world.tick(budget_ms=1e6)
    waiting = world.request_path("g", (0, 2), (7, 0), callback=called.append)
    world.close()
    assert waiting.done and waiting.result().status is PathStatus.CANCELLED
    assert waiting.wait(timeout=0).status is PathStatus.CANCELLED
    assert kept.cancelled and kept.result().status is PathStatus.FOUND
    assert called == []


@pytest.mark.nojit
def test_a_closed_world_answers_queries_and_refuses_changes():
    world = navcore.World()
    world.add_graph("g", type="grid", rows=ROWS)
    expected = world.find_path("g", (0, 0), (7, 2)).cost
    world.close()
    frame = world.frame
    for call in (lambda: world.tick(),
                 lambda: world.update("g", cells=[(1, 1)], walkable=False),
                 lambda: world.request_path("g", (0, 0), (7, 2)),
                 lambda: world.add_graph("h", type="grid", rows=ROWS)):
        with pytest.raises(FrameError, match="closed"):
            call()
    assert world.frame == frame and world.pending_updates() == 0
    assert list(world.graphs) == ["g"]
    assert world.find_path("g", (0, 0), (7, 2)).cost == expected
    assert world.reachable("g", (0, 0), (7, 2))


@pytest.mark.nojit
def test_the_with_block_closes_on_an_exception_too():
    with pytest.raises(ZeroDivisionError):
        with navcore.World() as world:
            world.add_graph("g", type="grid", rows=ROWS)
            1 / 0
    assert world.closed


def test_close_waits_for_a_background_warm_up():
    world = navcore.World(warm_up="background")
    world.add_graph("g", type="grid", rows=ROWS)
    world.close()
    assert world.ready(timeout=0)
    assert world.find_path("g", (0, 0), (7, 2)).status is PathStatus.FOUND


@exercises("navcore_world_closed")
def test_a_plugin_hears_the_world_close_once():
    heard = []

    class Listener:
        @navcore.hookimpl
        def navcore_world_closed(self, world):
            heard.append(world)

    world = navcore.World(plugins=[Listener()])
    with world:
        pass
    world.close()
    assert heard == [world]
