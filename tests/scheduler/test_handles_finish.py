"""Every path handle finishes: found, unreachable, cancelled, its graph
removed or its request raising; ``await`` and ``wait`` return; a raising
callback loses no other request's result."""
import asyncio
import threading

import pytest

import navcore
from navcore import PathStatus

NO_BUDGET = 1e7
ROOM = ["....#....",
        ".........",
        "....#...."]


def world_with_room(**options):
    world = navcore.World(frame_budget_ms=NO_BUDGET, **options)
    world.add_graph("d", type="grid", rows=ROOM)
    return world


@pytest.mark.nojit
def test_a_cancelled_handle_is_done_and_await_returns():
    world = world_with_room()
    h = world.request_path("d", (0, 0), (8, 2))
    h.cancel()
    assert h.done and h.cancelled and h.result().status is PathStatus.CANCELLED
    assert h.wait(timeout=1).status is PathStatus.CANCELLED
    assert world.tick().requests_served == 0

    async def waits():
        return await h
    assert asyncio.run(waits()).status is PathStatus.CANCELLED
    found = world.request_path("d", (0, 0), (8, 2))
    world.tick()
    found.cancel()                          # a result already there stays
    assert found.cancelled and found.result().found


@pytest.mark.nojit
def test_removing_a_graph_cancels_its_requests():
    world = world_with_room()
    world.add_graph("e", type="grid", rows=ROOM)
    queued = world.request_path("d", (0, 0), (8, 2))
    kept = world.request_path("d", (0, 0), (8, 0), repath=True)
    world.tick()
    other = world.request_path("e", (0, 0), (8, 2))
    again = world.request_path("d", (1, 1), (7, 1))
    world.remove_graph("d")
    assert again.done and again.result().status is PathStatus.CANCELLED
    assert kept.cancelled and kept.result().found       # its last result stays
    assert queued.result().found
    world.tick()                                        # nothing left of 'd' to serve
    assert other.result().found
    assert world.scheduler.requests.waiting == 0


@pytest.mark.nojit
def test_a_raising_callback_loses_no_other_result_and_is_raised_at_the_end(caplog):
    world = world_with_room()
    seen = []

    def record(h):
        seen.append(h.seq)

    def boom(h):
        raise RuntimeError("the game's bug")

    handles = [world.request_path("d", (0, 0), (8, 2), callback=record),
               world.request_path("d", (0, 0), (8, 0), callback=boom),
               world.request_path("d", (1, 1), (7, 1), callback=record)]
    with pytest.raises(RuntimeError, match="the game's bug") as err:
        world.tick()
    assert "callback of path request" in "".join(getattr(err.value, "__notes__", []))
    assert all(h.done and h.result().found for h in handles)
    assert seen == [handles[0].seq, handles[2].seq]
    assert world.last_stats.requests_served == 3
    assert any("raised" in r.message for r in caplog.records)
    world.tick()                                         # the error was raised once


def test_wait_returns_while_another_thread_ticks():
    world = world_with_room()
    h = world.request_path("d", (0, 0), (8, 2))
    out = {}
    waiter = threading.Thread(target=lambda: out.setdefault("r", h.wait(timeout=30)))
    waiter.start()
    while not h.done:
        world.tick()
    waiter.join(timeout=30)
    assert out["r"].found
    with pytest.raises(navcore.QueryError, match="no result within"):
        world.request_path("d", (0, 0), (8, 2)).wait(timeout=0.01)
