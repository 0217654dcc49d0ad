"""Deterministic worlds: requests served by a node budget (nodes expanded
per frame), never by the clock, so a frame serves the same requests, in
the same order, with the same results, on any machine and worker count."""
import math

import numpy as np
import pytest

import navcore
from navcore import PathStatus

from hooktags import exercises

DUNGEON = ["....#....",
           ".........",
           "....#...."]


def _replay(workers, budget=1500, frames=40):
    """A small game under a binding node budget: requests each frame (a
    third kept up to date, re-planned from a start that depends on the
    frame), walls toggled; every published result, in publishing order."""
    rng = np.random.default_rng(12)
    walk = rng.random((70, 90)) >= 0.22
    world = navcore.World(workers=workers, deterministic=True, frame_budget_nodes=budget,
                          frame_budget_ms=0.0)          # the clock does not count
    world.add_graph("g", type="grid", array=walk)
    free = np.argwhere(walk)
    log, frames_out = [], []

    def record(h):
        r = h.result()
        log.append((world.frame, h.seq, h.repaths, h.start, r.status.value, r.cost,
                    r.expanded, r.nodes.tolist()))

    def moved(h):                  # a unit that walked on: depends on the frame only
        x, y = free[(h.seq * 31 + world.frame) % len(free)][::-1]
        return (int(x), int(y))

    for frame in range(frames):
        for k in range(12):
            (sy, sx), (gy, gx) = free[rng.integers(len(free), size=2)]
            world.request_path("g", (int(sx), int(sy)), (int(gx), int(gy)),
                               repath=k % 3 == 0, callback=record,
                               replan_from=moved if k % 6 == 0 else None)
        x, y = (int(v) for v in rng.integers(0, [86, 66]))
        world.update("g", rect=(x, y, 4, 4), walkable=bool(frame % 2))
        s = world.tick(1 / 60)
        frames_out.append((s.requests_served, s.requests_waiting, s.nodes_expanded))
    world.scheduler.close()
    return log, frames_out


def test_a_deterministic_world_replays_identically_on_0_1_and_2_workers():
    first = _replay(0)
    assert _replay(1) == first
    assert _replay(2) == first
    assert _replay(2) == first                  # and again
    log, frames = first
    assert max(w for _, w, _ in frames) > 0     # the budget binds: requests wait
    assert any(entry[2] > 0 for entry in log)   # and some were planned again


def _expansions(walk, pairs, algorithm="auto"):
    w = navcore.World()
    w.add_graph("g", type="grid", rows=walk)
    return [w.find_path("g", s, t, algorithm=algorithm).expanded for s, t in pairs]


PAIRS = [((0, 0), (8, 2)), ((8, 0), (0, 2)), ((3, 1), (5, 1)), ((0, 2), (8, 0)),
         ((1, 1), (1, 1)), ((4, 1), (0, 0))] * 3


def _serve_all(budget, pairs, rows=DUNGEON, algorithm="auto"):
    """``(served, nodes expanded)`` per tick of a deterministic world
    serving ``pairs`` under ``budget``, and the handles."""
    world = navcore.World(deterministic=True, frame_budget_nodes=budget)
    world.add_graph("g", type="grid", rows=rows)
    order = []
    handles = [world.request_path("g", s, t, algorithm=algorithm,
                                  callback=lambda h: order.append(h.seq)) for s, t in pairs]
    got = []
    while world.scheduler.requests.waiting:
        s = world.tick(budget_ms=0.0)
        got.append((s.requests_served, s.nodes_expanded))
        assert len(got) < 10_000
    assert order == [h.seq for h in handles]
    return got, handles


@pytest.mark.nojit
def test_a_zero_node_budget_serves_one_whole_request_a_frame():
    cost = _expansions(DUNGEON, PAIRS)
    got, handles = _serve_all(0, PAIRS)
    assert got == [(1, c) for c in cost]
    assert [h.result().expanded for h in handles] == cost


@pytest.mark.nojit
@pytest.mark.parametrize("budget", [1, 7, 25, 10_000])
def test_a_frame_expands_its_node_budget_oldest_requests_first(budget):
    """Each result is find_path's; the frames' expansions add up to the
    searches' (none counted twice or lost); a frame goes past the budget
    only by the one request of a round that crosses it."""
    cost = _expansions(DUNGEON, PAIRS)
    got, handles = _serve_all(budget, PAIRS)
    assert [h.result().expanded for h in handles] == cost
    assert sum(n for _, n in got) == sum(cost)
    assert sum(k for k, _ in got) == len(PAIRS)
    assert all(n < budget + max(cost) for _, n in got)
    # frames used against the work: at most one more than a frame per
    # budget's worth of nodes, plus one per request that cut a frame short
    assert len(got) <= sum(cost) // budget + len(PAIRS) + 1


@pytest.mark.nojit
@pytest.mark.parametrize("budget", [1, 7, 13, 90])
def test_requests_longer_than_the_node_budget_are_expanded_as_one_stream(budget):
    """Against a naive model: when every search expands more than the
    budget, each frame expands exactly the budget (the last what is left)
    of the queue's searches one after another, and serves the requests
    whose last node falls in it."""
    rows, pair = ["." * 12] * 9, ((0, 0), (11, 8))
    c = _expansions(rows, [pair], "dijkstra")[0]
    assert c > budget
    n = 6
    got, _ = _serve_all(budget, [pair] * n, rows, "dijkstra")
    ends = [c * (k + 1) for k in range(n)]
    want = []
    for f in range(-(-c * n // budget)):
        lo, hi = f * budget, min((f + 1) * budget, c * n)
        want.append((sum(lo < e <= hi for e in ends), hi - lo))
    assert got == want


@pytest.mark.nojit
def test_tick_budget_nodes_overrides_and_applies_beside_the_clock():
    world = navcore.World(frame_budget_ms=1e7)            # not deterministic
    world.add_graph("g", type="grid", rows=DUNGEON)
    for _ in range(5):
        world.request_path("g", (0, 0), (8, 2))
    one = world.find_path("g", (0, 0), (8, 2)).expanded
    assert world.tick(budget_nodes=2 * one).requests_served == 2
    assert world.tick(budget_nodes=0).requests_served == 1
    assert world.tick().requests_served == 2               # no node budget: the clock


@pytest.mark.nojit
def test_bad_budgets_are_frame_errors_and_change_nothing():
    for kw, match in (({"deterministic": "yes"}, "deterministic must be True or False"),
                      ({"deterministic": 1}, "deterministic must be True or False"),
                      ({"frame_budget_nodes": -1}, "frame_budget_nodes must be an integer"),
                      ({"frame_budget_nodes": 2.5}, "frame_budget_nodes must be an integer"),
                      ({"frame_budget_nodes": True}, "frame_budget_nodes must be an integer")):
        with pytest.raises(navcore.FrameError, match=match):
            navcore.World(**kw)
    world = navcore.World(deterministic=True)
    assert world.frame_budget_nodes == navcore.world.DEFAULT_FRAME_BUDGET_NODES
    world.add_graph("g", type="grid", rows=DUNGEON)
    h = world.request_path("g", (0, 0), (8, 2))
    for bad in (-3, 1.5, "10", True):
        with pytest.raises(navcore.FrameError, match="tick: budget_nodes"):
            world.tick(budget_nodes=bad)
    assert world.frame == 0 and not h.done and world.scheduler.requests.waiting == 1
    world.tick()
    assert h.result().status is PathStatus.FOUND


@pytest.mark.nojit
@exercises("navcore_frame_work")
def test_frame_work_hears_the_node_budget_and_no_deadline_when_deterministic():
    heard = []

    class Listener:
        @navcore.hookimpl
        def navcore_frame_work(self, deadline, budget_nodes):
            heard.append((deadline, budget_nodes))

    for world in (navcore.World(deterministic=True, frame_budget_nodes=99),
                  navcore.World(frame_budget_ms=5.0)):
        world.plugins.register(Listener())
        world.tick()
        world.tick(budget_nodes=7)
    (d1, n1), (d2, n2), (d3, n3), (d4, n4) = heard
    assert d1 == d2 == math.inf and (n1, n2) == (99, 7)
    assert d3 < math.inf and (n3, n4) == (None, 7)
