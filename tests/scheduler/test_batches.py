"""Batched searches (``navcore_find_paths``): what the scheduler serves in
batches equals ``World.find_path`` asked one request at a time (and so the
MovingAI-checked single searches); a plugin that answers only one request
at a time is never bypassed; ``PathBatch``'s contract."""
import numpy as np
import pytest

import navcore
from navcore import PathBatch, PathResult, PathStatus
from navcore_grid import search

import reference
from hooktags import exercises

NO_BUDGET = 1e7


def _grid(seed, shape=(90, 120), density=0.3):
    rng = np.random.default_rng(seed)
    walk = rng.random(shape) >= density
    walk[:, shape[1] // 2] = False               # two halves: unreachable pairs
    walk[::7, shape[1] // 2] = True
    walk[shape[0] // 2:, shape[1] // 2] = False
    return walk, rng


def _same(r, truth):
    assert r.status == truth.status and r.algorithm == truth.algorithm
    assert r.expanded == truth.expanded and r.cost == truth.cost
    assert r.nodes.dtype == np.int32 and r.nodes.tolist() == truth.nodes.tolist()
    np.testing.assert_array_equal(r.points, truth.points)


@exercises("navcore_find_paths")
@pytest.mark.parametrize("workers", [0, 2])
def test_batched_results_equal_find_path_one_request_at_a_time(workers):
    walk, rng = _grid(3)
    world = navcore.World(workers=workers, frame_budget_ms=NO_BUDGET)
    world.add_graph("g", type="grid", array=walk)
    world.warm_up()
    sizes = []

    class Sizes:                    # sees each batch first, answers nothing
        @navcore.hookimpl(tryfirst=True)
        def navcore_find_paths(self, batch):
            sizes.append((len(batch), batch.threads))

    world.plugins.register(Sizes())
    free = np.argwhere(walk)
    asks = []
    for k in range(400):
        (sy, sx), (gy, gx) = free[rng.integers(len(free), size=2)]
        asks.append(((int(sx), int(sy)), (int(gx), int(gy)),
                     ("auto", "astar", "dijkstra", "jps")[k % 4]))
    inside = tuple(int(v) for v in free[0][::-1])
    wall = tuple(int(v) for v in np.argwhere(~walk)[0][::-1])
    asks += [(inside, (500, 500), "auto"), (wall, inside, "astar")]
    handles = [world.request_path("g", s, t, algorithm=a) for s, t, a in asks]
    while world.scheduler.requests.waiting:
        world.tick()
    for h, (s, t, a) in zip(handles, asks):
        _same(h.result(), world.find_path("g", s, t, algorithm=a))
    statuses = {h.result().status for h in handles}
    assert {PathStatus.FOUND, PathStatus.UNREACHABLE, PathStatus.INVALID_GOAL,
            PathStatus.INVALID_START} <= statuses
    assert sum(n for n, _ in sizes) >= 398 and max(sizes)[0] > 1    # served in batches
    # with workers each round's group is one batch offered to every thread
    assert {threads for n, threads in sizes if n > 50} == {max(workers, 1)}
    world.scheduler.close()


def test_a_plugin_that_answers_one_request_at_a_time_is_never_bypassed():
    walk, rng = _grid(4, (40, 50))
    world = navcore.World(frame_budget_ms=NO_BUDGET)
    world.add_graph("g", type="grid", array=walk)
    g = world.graph("g")
    # one area: ends in two areas are the areas plugin's pre-check, asked
    # before any planner (navcore.precheck)
    areas = world.areas("g").reshape(walk.shape)
    biggest = np.bincount(areas[areas >= 0]).argmax()
    free = [tuple(int(v) for v in p[::-1]) for p in np.argwhere(areas == biggest)[:30]]
    special = g.node_id(*free[1])
    mine = PathResult.failed(PathStatus.UNREACHABLE, algorithm="mine")

    class Planner:
        @navcore.hookimpl(tryfirst=True)
        def navcore_find_path(self, request):
            return mine if request.goal_node == special else None

    world.plugins.register(Planner())
    hs = [world.request_path("g", p, free[1] if i % 3 == 0 else free[-1])
          for i, p in enumerate(free)]
    world.tick()
    for i, h in enumerate(hs):
        if i % 3 == 0:
            assert h.result() is mine
        else:
            _same(h.result(), world.find_path("g", free[i], free[-1]))


def test_grid_batches_grow_their_entry_pool_and_path_buffer():
    """A* batches that run out of open-list entries or path room mid-batch
    go on where they stopped: costs equal a reference Dijkstra's, paths
    are valid walks, everything equals the single searches."""
    walk, rng = _grid(6, (60, 70), 0.25)
    world = navcore.World(autoload=False)
    g = world.add_graph("g", type="grid", array=walk)
    sc = search.scratch_for(g)
    sc.buffer = np.empty(1, np.int32)
    sc._pool = tuple(np.empty(8, a.dtype) for a in sc.pool()[:3]) + sc.pool()[3:]
    free = np.flatnonzero(g.walkable)
    s = rng.choice(free, 40).astype(np.int32)
    t = rng.choice(free, 40).astype(np.int32)
    for algorithm in ("astar", "jps", "dijkstra"):
        batch = PathBatch("g", algorithm, s, t)
        search.grid_find_paths(g, batch)
        assert batch.todo().size == 0
        single = {"astar": lambda a, b: search.grid_astar(g, a, b),
                  "jps": lambda a, b: search.grid_jps(g, a, b),
                  "dijkstra": lambda a, b: search.grid_astar(g, a, b, heuristic=False,
                                                             algorithm="dijkstra")}
        for i, r in enumerate(batch.results()):
            _same(r, single[algorithm](int(s[i]), int(t[i])))
            truth = reference.grid_dijkstra(walk, start=g.cell_of(s[i])).get(
                g.cell_of(t[i]), np.inf)
            assert r.cost == pytest.approx(truth, rel=1e-12) if r.found else truth == np.inf
            if r.found:
                assert reference.is_valid_grid_walk(walk, [g.cell_of(n) for n in r.nodes])
    assert sc._pool[0].size > 8 and sc.buffer.size > 1


@pytest.mark.nojit
def test_path_batch_contract():
    b = PathBatch("g", "auto", np.array([0, 1, 2, 3], np.int32),
                  np.array([4, 5, 6, 7], np.int32))
    b.answer_status([1], PathStatus.UNREACHABLE, "hierarchy")
    b.defer([3])
    assert b.todo().tolist() == [0, 2]
    with pytest.raises(navcore.PluginError, match="open entries"):
        b.answer_status([1], PathStatus.UNREACHABLE, "again")
    with pytest.raises(navcore.PluginError, match="found path needs its nodes"):
        b.answer_status([0], PathStatus.FOUND, "trivial")     # and nothing changed:
    assert b.todo().tolist() == [0, 2]
    with pytest.raises(navcore.PluginError, match="offsets"):
        b.answer([0, 2], [1.0, 2.0], [3, 4], np.zeros(3, np.int32), [0, 3], np.zeros((3, 2)),
                 "x")
    b.answer([0, 2], [1.0, np.inf], [3, 4], np.array([0, 9, 4], np.int32), [0, 3, 3],
             np.zeros((3, 2)), "astar")
    rs = b.results()
    assert [r is None for r in rs] == [False, False, False, True]
    assert rs[0].nodes.tolist() == [0, 9, 4] and rs[0].expanded == 3 and rs[0].found
    assert rs[1].status == PathStatus.UNREACHABLE and rs[1].algorithm == "hierarchy"
    assert rs[2].status == PathStatus.UNREACHABLE and rs[2].expanded == 4
    for i in range(4):
        a, c = b.result(i), rs[i]
        assert (a is None) == (c is None)
        if a is not None:
            assert (a.status, a.cost, a.expanded, a.algorithm) == \
                (c.status, c.cost, c.expanded, c.algorithm)
    assert b.expanded.tolist() == [3, 0, 4, 0]


def test_a_plugin_answering_found_without_a_path_loses_no_request():
    """``answer_status(..., found)`` is refused (a found path has nodes): the
    plugin's batch fails, its requests are served one at a time, and every
    handle of the tick gets its result and its callback, kept-up-to-date
    ones included (this used to raise while publishing, after the results
    and before any waiter or callback)."""
    class SameCell:
        @navcore.hookimpl(tryfirst=True)
        def navcore_find_paths(self, graph, batch):
            idx = batch.todo()
            same = idx[batch.starts[idx] == batch.goals[idx]]
            if same.size:
                batch.answer_status(same, PathStatus.FOUND, "trivial")

    rows = ["....#....", ".##.#.##.", "........."]
    world = navcore.World(frame_budget_ms=NO_BUDGET)
    world.plugins.register(SameCell())
    world.add_graph("g", type="grid", rows=rows)
    got = []
    ends = [((0, 0), (0, 0)), ((0, 0), (8, 0)), ((8, 2), (0, 2))]
    handles = [world.request_path("g", a, b, repath=True, callback=got.append)
               for a, b in ends]
    world.tick()
    assert got == handles
    truth = navcore.World()
    truth.add_graph("g", type="grid", rows=rows)
    for h, (a, b) in zip(handles, ends):
        _same(h.result(), truth.find_path("g", a, b))
