"""Requests too long for a frame run a slice per frame (``longsearch.py``)
and finish with ``find_path``'s result; cancelling, removing the graph or
changing it meanwhile behaves as for any request."""
import numpy as np
import pytest

import navcore
from navcore import PathStatus


def _maze_world(budget_ms):
    rng = np.random.default_rng(4)
    walk = rng.random((120, 120)) >= 0.3
    walk[0, :] = walk[:, 0] = walk[-1, :] = walk[:, -1] = True
    w = navcore.World(frame_budget_ms=budget_ms)
    w.add_graph("g", type="grid", rows=["".join(".#"[not c] for c in r) for r in walk])
    return w


def _tick_until(w, handles, most=20_000):
    stats = []
    while not all(h.done for h in handles):
        stats.append(w.tick())
        assert len(stats) < most
    return stats


@pytest.mark.parametrize("algorithm", ["auto", "astar"])
def test_long_requests_are_stepped_over_frames_and_end_as_find_path(algorithm):
    w = _maze_world(0.02)
    ends = [((0, 0), (119, 119)), ((119, 0), (0, 119)), ((0, 60), (119, 60))]
    hs = [w.request_path("g", a, b, algorithm=algorithm) for a, b in ends]
    stats = _tick_until(w, hs)
    for h, (a, b) in zip(hs, ends):
        want = w.find_path("g", a, b, algorithm=algorithm)
        got = h.result()
        assert got.nodes.tolist() == want.nodes.tolist() and got.cost == want.cost
        assert got.expanded == want.expanded
    # frames that searched without finishing anything: slices of a search
    assert any(s.requests_served == 0 and s.nodes_expanded > 0 for s in stats)


def test_a_long_request_cancelled_or_whose_graph_goes_finishes_cancelled():
    w = _maze_world(0.02)
    first = w.request_path("g", (0, 0), (119, 119))      # learns the graph's cost
    _tick_until(w, [first])
    a = w.request_path("g", (0, 0), (119, 119))
    b = w.request_path("g", (119, 0), (0, 119))
    while w.scheduler.requests._long.graph_ids() == set():
        w.tick()
        assert not a.done
    a.cancel()
    w.tick()
    assert a.result().status is PathStatus.CANCELLED and not b.done
    w.remove_graph("g")
    assert b.done and b.result().status is PathStatus.CANCELLED
    assert len(w.scheduler.requests._long) == 0


def test_a_long_request_whose_graph_changes_ends_as_find_path_on_the_new_graph():
    w = _maze_world(0.02)
    first = w.request_path("g", (0, 0), (119, 119))
    _tick_until(w, [first])
    path = first.result().nodes
    h = w.request_path("g", (0, 0), (119, 119))
    while not w.scheduler.requests._long.graph_ids():
        w.tick()
    g = w.graph("g")
    cell = int(path[len(path) // 2])
    w.update("g", cells=[(cell % g.width, cell // g.width)], walkable=False)
    _tick_until(w, [h])
    want = w.find_path("g", (0, 0), (119, 119))
    assert h.result().nodes.tolist() == want.nodes.tolist()
    assert cell not in h.result().nodes.tolist()


@pytest.mark.parametrize("budget_ms", [0.02, 100.0])
def test_a_capped_request_ends_as_find_path_with_the_same_cap(budget_ms):
    w = _maze_world(budget_ms)
    ends = ((0, 0), (119, 119))
    whole = w.find_path("g", *ends, algorithm="astar")
    cap = whole.expanded // 3
    hs = [w.request_path("g", *ends, algorithm="astar", max_nodes=cap, partial=p)
          for p in (True, False)]
    hs.append(w.request_path("g", *ends, algorithm="astar", max_nodes=whole.expanded))
    _tick_until(w, hs)
    want = w.find_path("g", *ends, algorithm="astar", max_nodes=cap, partial=True)
    got = hs[0].result()
    assert got.status is PathStatus.PARTIAL and got.expanded == cap
    assert got.nodes.tolist() == want.nodes.tolist() and got.cost == want.cost
    assert hs[1].result().status is PathStatus.BUDGET_EXCEEDED
    assert hs[2].result().nodes.tolist() == whole.nodes.tolist()


def test_bad_caps_on_request_path_are_query_errors_and_queue_nothing():
    w = _maze_world(2.0)
    for kwargs, message in (({"max_nodes": 0}, "max_nodes must be an integer >= 1"),
                            ({"partial": True}, "partial=True needs max_nodes"),
                            ({"max_nodes": 5, "partial": 1}, "partial")):
        with pytest.raises(navcore.QueryError, match=message):
            w.request_path("g", (0, 0), (5, 5), **kwargs)
    assert w.scheduler.requests.waiting == 0


def test_the_first_request_on_a_graph_is_stepped_too():
    """Nothing is known yet of what a search on the graph costs, so the
    first one does not run whole inside one frame: it is stepped."""
    w = _maze_world(0.05)
    want = w.find_path("g", (0, 0), (119, 119))
    h = w.request_path("g", (0, 0), (119, 119))
    first = w.tick()
    assert first.requests_served == 0 and 0 < first.nodes_expanded < want.expanded
    _tick_until(w, [h])
    assert h.result().nodes.tolist() == want.nodes.tolist()
    assert h.result().expanded == want.expanded


def test_a_head_cancelled_on_another_thread_before_it_is_begun_keeps_waiting_right(
        monkeypatch):
    """A cancel between the frame's look at the queue's head and its begin
    (another thread's) is counted once: ``waiting`` never goes below 0."""
    w = _maze_world(0.05)
    q = w.scheduler.requests
    h = w.request_path("g", (0, 0), (119, 119))
    other = w.request_path("g", (119, 0), (0, 119))
    real = q._take

    def take(*args):
        got = real(*args)
        if q._too_big is h:
            h.cancel()                 # as if from another thread, just now
        return got
    monkeypatch.setattr(q, "_take", take)
    w.tick()
    assert h.result().status is PathStatus.CANCELLED and q.waiting == 1
    _tick_until(w, [other])
    assert q.waiting == 0 and other.result().status is PathStatus.FOUND


@pytest.mark.parametrize("how", ["remove_graph", "close"])
def test_a_graph_dropped_on_another_thread_waits_for_the_step_under_way(how, monkeypatch):
    # the frame is inside a stepped search when another thread removes the
    # graph or closes the world: the drop waits for the step to end, so
    # the frame neither steps a closed search nor pops a deque that was
    # replaced under it
    import threading

    from navcore.search import Search

    w = _maze_world(0.02)
    h = w.request_path("g", (0, 0), (119, 119))       # the graph's first: stepped
    in_step, go = threading.Event(), threading.Event()
    step = Search.step

    def held_step(self, n=2 ** 62):
        in_step.set()
        go.wait(5)
        return step(self, n)
    monkeypatch.setattr(Search, "step", held_step)
    errors = []

    def run(fn, *args):
        try:
            fn(*args)
        except Exception as exc:       # noqa: BLE001 - what the test looks for
            errors.append(exc)
    ticker = threading.Thread(target=run, args=(w.tick,))
    ticker.start()
    assert in_step.wait(5)
    dropper = threading.Thread(target=run, args=((lambda: w.remove_graph("g"))
                                                 if how == "remove_graph" else w.close,))
    dropper.start()
    dropper.join(0.2)
    assert dropper.is_alive()            # waiting for the step under way
    go.set()
    ticker.join(5)
    dropper.join(5)
    assert errors == [] and h.done and h.result().status is PathStatus.CANCELLED
    assert len(w.scheduler.requests._long) == 0
