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


def _expansions(walk, pairs):
    w = navcore.World()
    w.add_graph("g", type="grid", rows=walk)
    return [w.find_path("g", s, t).expanded for s, t in pairs]


@pytest.mark.nojit
@pytest.mark.parametrize("budget", [0, 1, 7, 25, 10_000])
def test_a_frame_serves_the_oldest_requests_until_the_nodes_are_spent(budget):
    """Against a naive model: each tick serves requests oldest first while
    the nodes its searches expanded so far are below the budget (the one
    that crosses it is finished and counted), at least one a frame."""
    pairs = [((0, 0), (8, 2)), ((8, 0), (0, 2)), ((3, 1), (5, 1)), ((0, 2), (8, 0)),
             ((1, 1), (1, 1)), ((4, 1), (0, 0))] * 3
    cost = _expansions(DUNGEON, pairs)
    want, i = [], 0
    while i < len(pairs):
        spent, n = 0, 0
        while i < len(pairs) and (n == 0 or spent < budget):
            spent += cost[i]
            i += 1
            n += 1
        want.append((n, spent))
    world = navcore.World(deterministic=True, frame_budget_nodes=budget)
    world.add_graph("g", type="grid", rows=DUNGEON)
    order = []
    handles = [world.request_path("g", s, t, callback=lambda h: order.append(h.seq))
               for s, t in pairs]
    got = []
    while world.scheduler.requests.waiting:
        s = world.tick(budget_ms=0.0)
        got.append((s.requests_served, s.nodes_expanded))
    assert got == want
    assert order == [h.seq for h in handles]
    assert [h.result().expanded for h in handles] == cost


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
