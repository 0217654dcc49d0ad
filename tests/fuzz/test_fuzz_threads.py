"""A world's lifecycle across threads: a World with a scheduler
(``workers=2``) while a game thread requests paths, queues updates and
ticks, another thread cancels handles, waits on them and reads the
queue's counters, and a third closes the scheduler or the world at a
random moment (the GIL handed over every few microseconds, so the
interleavings vary). Properties: no raw exception on any thread (a
``NavError``, such as ``FrameError`` from a closed world, is an answer),
no thread still running after its join timeout, ``requests.waiting``
never negative and zero at the end, every handle done once the world is
closed (with its result or ``cancelled``), and no update lost: each
update blocks a cell of its own, so the cells blocked in the graph plus
the updates still queued must count every update that was accepted.
"""
import sys
import threading
import time

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import navcore

import fuzzkit as kit

pytestmark = pytest.mark.fuzz

SIDE = 12
#: seconds a thread may run before it counts as hung
JOIN_SECONDS = 30.0


@pytest.fixture(scope="module", autouse=True)
def switch_often():
    old = sys.getswitchinterval()
    sys.setswitchinterval(5e-6)
    yield
    sys.setswitchinterval(old)


cell = st.tuples(st.integers(0, SIDE - 1), st.integers(0, SIDE - 1))
game_op = st.one_of(
    st.tuples(st.just("request"), cell, cell, st.booleans()),
    st.tuples(st.just("update")),
    st.tuples(st.just("tick"), st.sampled_from([0.0, 0.05, 1.0, 1e6])))
other_op = st.one_of(
    st.tuples(st.just("cancel"), st.integers(0, 100)),
    st.tuples(st.just("wait"), st.integers(0, 100)),
    st.tuples(st.just("peek"), st.integers(0, 100)),
    st.tuples(st.just("request"), cell, cell, st.booleans()),
    st.tuples(st.just("update")),
)


@settings(kit.FUZZ)
@given(game=st.lists(game_op, min_size=1, max_size=30),
       other=st.lists(other_op, max_size=30),
       closer=st.tuples(st.sampled_from(["world", "scheduler", "both", "none"]),
                        st.integers(0, 30)),
       other_calls_game=st.booleans())
def test_lifecycle_across_threads(game, other, closer, other_calls_game):
    world = navcore.World(workers=2)
    world.add_graph("g", type="grid", array=np.ones((SIDE, SIDE), bool))
    sched = world.scheduler
    queue = sched.requests
    handles = []
    cells = iter([(x, y) for y in range(SIDE) for x in range(SIDE)])
    lock = threading.Lock()          # the test's own bookkeeping, not the world's
    accepted = []                    # cells of updates world.update took
    dropped = []                     # tick's NavErrors that say a batch was dropped
    raw = []                         # (thread, call, exception)
    negative = []
    progress = [0]
    call = f"game={game!r}, other={other!r}, closer={closer!r}, other_calls_game={other_calls_game}"

    def guarded(who, what, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except navcore.NavError as exc:
            if what == "tick" and "dropped" in str(exc):
                with lock:
                    dropped.append(exc)
            return exc
        except Exception as exc:         # noqa: BLE001 - the finding itself
            raw.append((who, what, exc))
            return exc

    def request(who, s, g, repath):
        h = guarded(who, "request_path", world.request_path, "g", s, g, repath=repath)
        if isinstance(h, Exception):
            return
        with lock:
            handles.append(h)

    def update(who):
        with lock:
            c = next(cells, None)
        if c is None:
            return
        out = guarded(who, "update", world.update, "g", cells=[c], walkable=False)
        if out is None:
            with lock:
                accepted.append(c)

    def game_thread():
        for i, op in enumerate(game):
            progress[0] = i
            if op[0] == "request":
                request("game", op[1], op[2], op[3])
            elif op[0] == "update":
                update("game")
            else:
                guarded("game", "tick", world.tick, budget_ms=op[1])

    def other_thread():
        for op in other:
            if queue.waiting < 0:
                negative.append(queue.waiting)
            with lock:
                h = handles[op[1] % len(handles)] \
                    if handles and op[0] in ("cancel", "wait", "peek") else None
            if op[0] == "cancel" and h is not None:
                guarded("other", "cancel", h.cancel)
            elif op[0] == "wait" and h is not None:
                guarded("other", "wait", h.wait, 0.001)
            elif op[0] == "peek" and h is not None:
                if h.done:
                    guarded("other", "result", h.result)
            elif op[0] == "request" and other_calls_game:
                request("other", op[1], op[2], op[3])
            elif op[0] == "update" and other_calls_game:
                update("other")

    def closer_thread():
        which, after = closer
        if which == "none":
            return
        deadline = time.monotonic() + 5
        while progress[0] < min(after, len(game) - 1) and time.monotonic() < deadline:
            time.sleep(0.0005)
        if which in ("scheduler", "both"):
            guarded("closer", "scheduler.close", sched.close)
        if which in ("world", "both"):
            guarded("closer", "world.close", world.close)

    def body(fn):
        def run():
            try:
                fn()
            except BaseException as exc:       # the harness's own slip counts too
                raw.append((fn.__name__, "thread body", exc))
        return run

    threads = [threading.Thread(target=body(f), daemon=True, name=f.__name__)
               for f in (game_thread, other_thread, closer_thread)]
    for th in threads:
        th.start()
    t_end = time.monotonic() + JOIN_SECONDS
    for th in threads:
        th.join(max(t_end - time.monotonic(), 0.1))
    hung = [th.name for th in threads if th.is_alive()]
    if hung:
        kit.disagree("threads hang", call, f"threads still running after {JOIN_SECONDS} s: "
                                           f"{hung}")
        return
    for who, what, exc in raw:
        kit.disagree(f"threads raw {what}", call + f"\n# on the {who} thread",
                     f"{type(exc).__name__}: {exc}")
    if raw:
        return
    if negative:
        kit.disagree("threads waiting < 0", call, f"requests.waiting was {negative[0]}")
    if not world.closed:
        guarded("main", "tick", world.tick, budget_ms=1e6)
    queued_before_close = world.pending_updates("g")
    blocked = int((~world.graph("g").walkable).sum())
    if not dropped and blocked + queued_before_close != len(accepted):
        kit.disagree("threads lost update", call,
                     f"{len(accepted)} updates accepted, {blocked} applied, "
                     f"{queued_before_close} still queued")
    world.close()
    not_done = [h for h in handles if not h.done]
    if not_done:
        kit.disagree("threads handle not done", call,
                     f"{len(not_done)} of {len(handles)} handles never finished after "
                     f"world.close(): {not_done[:3]}")
    if queue.waiting != 0:
        kit.disagree("threads waiting at end", call,
                     f"requests.waiting is {queue.waiting} after world.close()")
    event(f"closed by {closer[0]}, {len(handles)} handles, {len(accepted)} updates")
