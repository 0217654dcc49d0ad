"""Background worlds (``World(background=True)``): requests are searched
on threads of their own across frames; ``tick`` publishes what finished,
in request order, and never waits for a search."""
import threading
import time

import numpy as np
import pytest

import navcore
from navcore import PathStatus
from navcore_scheduler import background


def _maze(size=120, seed=4):
    rng = np.random.default_rng(seed)
    walk = rng.random((size, size)) >= 0.3
    walk[0, :] = walk[:, 0] = walk[-1, :] = walk[:, -1] = True
    return walk


def _tick_until(world, handles, seconds=120):
    """Tick as a game does, with the rest of each frame spent elsewhere
    (a tight loop of ticks would hold the GIL the search threads need
    between their steps), until every handle is done."""
    give_up = time.monotonic() + seconds
    ticks = 0
    while not all(h.done for h in handles):
        world.tick()
        ticks += 1
        assert time.monotonic() < give_up, f"not done after {ticks} ticks"
        time.sleep(0.0005)
    return ticks


def test_background_results_equal_find_path_and_are_published_in_request_order():
    walk = _maze()
    free = np.argwhere(walk)
    rng = np.random.default_rng(9)
    with navcore.World(workers=2, background=True) as world:
        world.add_graph("g", type="grid", array=walk)
        published = []              # (tick, seq) per callback
        ends, handles = [], []
        for k in range(40):
            (sy, sx), (gy, gx) = free[rng.integers(len(free), size=2)]
            a, b = (int(sx), int(sy)), (int(gx), int(gy))
            algorithm = ("auto", "astar", "dijkstra", "jps")[k % 4]
            ends.append((a, b, algorithm))
            handles.append(world.request_path(
                "g", a, b, algorithm=algorithm,
                callback=lambda h: published.append((world.frame, h.seq))))
        _tick_until(world, handles)
        for h, (a, b, algorithm) in zip(handles, ends):
            want = world.find_path("g", a, b, algorithm=algorithm)
            got = h.result()
            assert got.status is want.status
            assert got.nodes.tolist() == want.nodes.tolist()
            assert got.cost == want.cost and got.expanded == want.expanded
            assert world.is_current(got)
        # each tick's results in request order
        for frame in {f for f, _ in published}:
            seqs = [s for f, s in published if f == frame]
            assert seqs == sorted(seqs)
        assert sorted(s for _, s in published) == [h.seq for h in handles]


class _Gate:
    """A plugin whose searches wait at their first step until ``go`` is
    set: a search as long as the test wants."""

    def __init__(self):
        self.go = threading.Event()
        self.stepping = threading.Event()
        self.closed = 0

    @navcore.hookimpl(hookwrapper=True)
    def navcore_begin_search(self, world, graph, request):
        outcome = yield
        inner = outcome.get_result()
        if inner is not None and not inner.done:
            outcome.force_result(_Held(self, inner))


class _Held(navcore.Search):
    def __init__(self, gate, inner):
        self._gate, self._inner = gate, inner
        super().__init__(inner.graph, inner.request)

    def _advance(self, budget):
        self._gate.stepping.set()
        assert self._gate.go.wait(30)
        done = self._inner.step(budget)
        self.expanded = self._inner.expanded
        return self._inner.result() if done else None

    def _release(self):
        self._gate.closed += 1


def test_tick_never_waits_for_a_search():
    gate = _Gate()
    with navcore.World(workers=1, background=True, plugins=[gate]) as world:
        world.add_graph("g", type="grid", array=_maze(60))
        h = world.request_path("g", (0, 0), (59, 59))
        world.tick()
        assert gate.stepping.wait(30)           # the search is under way, held
        for _ in range(5):                      # frames go on meanwhile
            s = world.tick()
            assert s.requests_served == 0 and s.requests_waiting == 1
        assert not h.done
        gate.go.set()
        _tick_until(world, [h])
        want = world.find_path("g", (0, 0), (59, 59))
        assert h.result().nodes.tolist() == want.nodes.tolist()


def test_a_search_cancelled_or_whose_graph_goes_finishes_cancelled_and_stops():
    gate = _Gate()
    with navcore.World(workers=1, background=True, plugins=[gate]) as world:
        world.add_graph("g", type="grid", array=_maze(60))
        world.add_graph("k", type="grid", array=_maze(60, seed=5))
        a = world.request_path("g", (0, 0), (59, 59))
        b = world.request_path("k", (0, 0), (59, 59))
        world.tick()
        assert gate.stepping.wait(30)
        a.cancel()
        world.remove_graph("k")
        assert a.result().status is PathStatus.CANCELLED
        assert b.result().status is PathStatus.CANCELLED
        gate.go.set()
        give_up = time.monotonic() + 30
        while world.tick().requests_waiting and time.monotonic() < give_up:
            time.sleep(0.001)
        s = world.tick()
        assert s.requests_waiting == 0 and s.requests_served == 0
        assert a.result().status is PathStatus.CANCELLED      # not replaced later


def test_a_search_whose_graph_changes_begins_again_on_the_new_graph(monkeypatch):
    # many small steps, so the update lands between two of them
    monkeypatch.setattr(background, "FIRST_STEP", 16)
    monkeypatch.setattr(background, "STEP_S", 1e-9)
    walk = np.ones((300, 300), dtype=bool)
    with navcore.World(workers=1, background=True) as world:
        g = world.add_graph("g", type="grid", array=walk)
        before = g.stamp()
        h = world.request_path("g", (0, 0), (299, 299), algorithm="dijkstra")
        world.tick()
        while not world.scheduler.requests._bg._per_node:     # a step was taken
            time.sleep(0.0002)
        world.update("g", rect=(100, 0, 1, 299), walkable=False)   # a wall, one gap
        world.tick()
        _tick_until(world, [h])
        got = h.result()
        want = world.find_path("g", (0, 0), (299, 299), algorithm="dijkstra")
        assert got.version != before and world.is_current(got)
        assert got.nodes.tolist() == want.nodes.tolist()
        assert got.cost == want.cost and got.expanded == want.expanded


def test_capped_and_re_planned_requests_in_the_background():
    walk = _maze()
    with navcore.World(workers=2, background=True) as world:
        world.add_graph("g", type="grid", array=walk)
        capped = world.request_path("g", (0, 0), (119, 119), algorithm="astar",
                                    max_nodes=50, partial=True)
        kept = world.request_path("g", (0, 0), (119, 119), repath=True)
        _tick_until(world, [capped, kept])
        want = world.find_path("g", (0, 0), (119, 119), algorithm="astar", max_nodes=50,
                               partial=True)
        assert capped.result().status is PathStatus.PARTIAL
        assert capped.result().nodes.tolist() == want.nodes.tolist()
        path = kept.result().nodes
        x, y = int(path[len(path) // 2]) % 120, int(path[len(path) // 2]) // 120
        world.update("g", cells=[(x, y)], walkable=False)
        world.tick()
        give_up = time.monotonic() + 120
        while kept.repaths == 0:
            world.tick()
            assert time.monotonic() < give_up
            time.sleep(0.0005)
        assert kept.result().nodes.tolist() == \
            world.find_path("g", (0, 0), (119, 119)).nodes.tolist()


@pytest.mark.nojit
@pytest.mark.parametrize("kw, match", [
    ({"background": True}, "background=True needs worker threads"),
    ({"background": True, "workers": 2, "deterministic": True}, "not deterministic"),
    ({"background": "yes", "workers": 2}, "background must be True or False"),
    ({"background": True, "workers": 1, "frame_budget_nodes": 500},
     "no frame_budget_nodes"),
])
def test_background_settings_are_checked(kw, match):
    with pytest.raises(navcore.FrameError, match=match):
        navcore.World(**kw)


def test_a_scene_runs_in_the_background_from_its_settings():
    text = ("settings: {workers: 2, background: true}\n"
            "graphs: [{id: a, type: grid, rows: ['......', '.####.', '......']}]\n"
            "agents: [{id: x, start: [0, 0], goal: [5, 2]}]\n")
    with navcore.Simulation.from_text(text) as sim:
        s = sim.run(200)
        assert sim.world.background and s["background"]
    assert s["agents"]["arrived"] == 1
    from navcore_scenes.summary import format_summary
    assert "background: requests searched across frames" in format_summary(s)


@pytest.mark.nojit
@pytest.mark.parametrize("settings", ["{background: true}",
                                      "{background: true, workers: 2, deterministic: true}"])
def test_a_background_scene_needs_workers_and_no_determinism(settings):
    from navcore_scenes.scene import parse_scene
    text = f"settings: {settings}\ngraphs: [{{id: a, type: grid, rows: ['..']}}]\n"
    with pytest.raises(navcore.SceneError, match="'background: true' of settings needs") \
            as info:
        parse_scene(text, "s.yaml")
    assert str(info.value).startswith("s.yaml:1:")


def test_a_result_an_update_overtook_before_it_was_published_is_searched_again():
    rows = ["." * 20] * 5
    gate = _Gate()
    with navcore.World(workers=1, background=True, plugins=[gate]) as world:
        g = world.add_graph("g", type="grid", rows=rows)
        h = world.request_path("g", (0, 2), (19, 2), repath=True)
        world.tick()                                   # handed out, held at its first step
        gate.go.set()
        bg = world.scheduler.requests._bg
        give_up = time.monotonic() + 30
        while not bg._finished and time.monotonic() < give_up:     # searched, unpublished
            time.sleep(0.0005)
        assert not h.done
        world.update("g", rect=(10, 0, 1, 5), walkable=False)       # a wall across it
        _tick_until(world, [h])
        r = h.result()
        assert r.status is PathStatus.UNREACHABLE and world.is_current(r)
        assert r.version == g.stamp()


def test_a_node_budget_beside_the_clock_still_stops_at_the_deadline():
    with navcore.World(frame_budget_nodes=20_000) as world:
        world.add_graph("g", type="grid", rows=["." * 8] * 3)
        hs = [world.request_path("g", (0, 0), (7, 2)) for _ in range(300)]
        assert world.tick(budget_ms=0.0).requests_served == 1     # the frame's one pass
        assert sum(h.done for h in hs) == 1


def test_a_batch_waiting_for_steps_leaves_the_graph_to_starved_readers():
    """begin_write waits for the steps under way without holding the gate a
    starved read_consistent reader takes: that reader may hold a lock a
    step needs."""
    g = navcore.NavGraph.from_edges([0], [1])
    held = g.hold_updates()
    held.__enter__()
    writer = threading.Thread(target=lambda: (g.begin_write(), g.end_write()))
    writer.start()
    give_up = time.monotonic() + 30
    while not g._batches_due and time.monotonic() < give_up:
        time.sleep(0.0005)
    assert g._batches_due == 1 and writer.is_alive()          # the batch waits
    assert g._write_gate.acquire(timeout=5)                   # the gate is free
    g._write_gate.release()
    entered = []
    late = threading.Thread(target=lambda: entered.append(g.hold_updates().__enter__()))
    late.start()
    late.join(0.05)
    assert not entered                                        # no new step begins
    held.__exit__(None, None, None)
    writer.join(30)
    late.join(30)
    assert not writer.is_alive() and entered and g._holders == 1 and g._writes == 2
