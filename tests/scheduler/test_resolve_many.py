"""Resolving many requests at once: ``GridGraph.locate_many`` against
``locate`` point by point, ``World.prepare_paths`` against
``prepare_path`` request by request (seeded points inside, outside, on
walls, on cell borders; ids and points mixed), bad input refused with a
``NavError`` and the world unchanged, and ``replan_from.many``: one call
a round, the same results as per-handle ``replan_from``, and a failing
``many`` falling back to each handle's own call."""
import math

import numpy as np
import pytest

import navcore
from navcore import NavError, NodeError, PathRequest, PathResult, QueryError

NO_BUDGET = 1e7


def _world(seed=5, shape=(23, 31)):
    rng = np.random.default_rng(seed)
    walk = rng.random(shape) >= 0.3
    world = navcore.World(frame_budget_ms=NO_BUDGET)
    graph = world.add_graph("g", type="grid", array=walk)
    return world, graph, rng


def _points(rng, graph, k):
    """Seeded points: inside, outside on every side, on cell borders,
    huge, negative zero."""
    pts = rng.uniform([-3, -3], [graph.width + 3, graph.height + 3], (k, 2))
    pts[: k // 4] = np.floor(pts[: k // 4])              # exactly on borders
    pts[k // 4] = (-0.0, 0.0)
    pts[k // 4 + 1] = (1e300, 2.0)
    pts[k // 4 + 2] = (graph.width - 1e-12, graph.height - 1e-12)
    pts[k // 4 + 3] = (graph.width, 0.5)
    return pts


@pytest.mark.nojit
@pytest.mark.parametrize("seed", range(5))
def test_locate_many_equals_locate_point_by_point(seed):
    _, graph, rng = _world(seed)
    pts = _points(rng, graph, 200)
    truth = [graph.locate(tuple(p)) for p in pts.tolist()]
    got = graph.locate_many(pts)
    assert got.dtype == np.int32 and got.tolist() == truth
    assert graph.locate_many(pts.tolist()).tolist() == truth           # lists of lists
    assert graph.locate_many([tuple(p) for p in pts.tolist()]).tolist() == truth
    assert graph.locate_many([]).tolist() == []
    assert graph.locate_many(np.empty((0, 2))).tolist() == []


@pytest.mark.nojit
@pytest.mark.parametrize("bad", [
    [(0.5, 0.5), (math.nan, 1.0)], [(0.5, math.inf)], [(True, 1.0)], [(1.0, False)],
    np.zeros((3, 3)), np.zeros(4), "xy", [(1.0, 2.0), (3.0,)], [("a", "b")], None,
])
def test_locate_many_refuses_bad_points_like_locate(bad):
    _, graph, _ = _world()
    with pytest.raises(NodeError):
        graph.locate_many(bad)


def _same_prepared(got, want):
    if type(want) is PathResult:
        # a new result each (each carries its graph version), alike
        assert type(got) is PathResult and got is not want
        assert (got.status, got.version) == (want.status, want.version)
        return
    assert type(got) is PathRequest
    assert (got.graph_id, got.start, got.goal, got.algorithm, got.start_node,
            got.goal_node, got.options) == (want.graph_id, want.start, want.goal,
                                             want.algorithm, want.start_node,
                                             want.goal_node, want.options)
    assert type(got.start_node) is int and type(got.goal_node) is int


@pytest.mark.nojit
@pytest.mark.parametrize("seed", range(4))
def test_prepare_paths_equals_prepare_path_request_by_request(seed):
    world, graph, rng = _world(seed)
    k = 120
    pts = _points(rng, graph, 2 * k)
    starts = [tuple(p) for p in pts[:k].tolist()]
    goals = [tuple(np.float64(v) for v in p) for p in pts[k:]]     # numpy scalars too
    for algorithm in ("auto", "astar"):
        _, got = world.prepare_paths("g", starts, goals, algorithm)
        want = [world.prepare_path("g", s, t, algorithm)[1] for s, t in zip(starts, goals)]
        assert len(got) == k
        for a, b in zip(got, want):
            _same_prepared(a, b)
    # ids mixed with points, and lists: resolved one at a time, same answers
    mixed = [int(rng.integers(graph.num_nodes)) if i % 3 == 0 else list(s)
             for i, s in enumerate(starts)]
    _, got = world.prepare_paths("g", mixed, goals)
    for a, s, t in zip(got, mixed, goals):
        _same_prepared(a, world.prepare_path("g", s, t)[1])


@pytest.mark.nojit
@pytest.mark.parametrize("starts, goals, error", [
    ([(1.5, 1.5), (math.nan, 2.0)], [(2.5, 2.5), (3.5, 3.5)], NodeError),
    ([(1.5, 1.5), (True, 2.0)], [(2.5, 2.5), (3.5, 3.5)], NodeError),
    ([(1.5, 1.5), 10 ** 9], [(2.5, 2.5), (3.5, 3.5)], NodeError),
    ([(1.5, 1.5)], [(2.5, 2.5), (3.5, 3.5)], QueryError),
    ([(1.5, 1.5)], [("a", "b")], NodeError),
])
def test_prepare_paths_refuses_bad_input_and_changes_nothing(starts, goals, error):
    world, graph, _ = _world()
    walk, version = graph.walkable.copy(), graph.version
    with pytest.raises(error):
        world.prepare_paths("g", starts, goals)
    with pytest.raises(QueryError):
        world.prepare_paths("g", [(1.5, 1.5)], [(2.5, 2.5)], algorithm="nope")
    with pytest.raises(NavError):
        world.prepare_paths("nope", [(1.5, 1.5)], [(2.5, 2.5)])
    assert graph.version == version and np.array_equal(graph.walkable, walk)
    assert world.prepare_paths("g", [], [])[1] == []


class _Units:
    """A game's units: where each re-plan starts, per handle and for many."""

    def __init__(self, points, fail_many=False, bad=()):
        self.points = points
        self.fail_many = fail_many
        self.bad = set(bad)
        self.calls = []                       # ("one", unit) / ("many", units)

    def start(self, unit):
        units = self

        class StartOf:
            many = self.many

            def __call__(self, handle):
                units.calls.append(("one", unit))
                if unit in units.bad:
                    raise ValueError(f"unit {unit} is nowhere")
                return units.points[unit]

        StartOf.unit = unit
        return StartOf()

    def many(self, handles):
        units = [h.replan_from.unit for h in handles]
        self.calls.append(("many", units))
        if self.fail_many:
            raise RuntimeError("many failed")
        return [self.points[u] for u in units]


def _replan_run(many, fail_many=False, bad=()):
    """Units ask for paths with repath=True, walls fall on their paths, the
    re-plans start at each unit's point: every result, and the calls."""
    world, graph, rng = _world(11, (40, 60))
    free = np.argwhere(graph.walkable_grid)
    picks = free[rng.choice(len(free), 60, replace=False)]
    points = [(float(x) + 0.5, float(y) + 0.5) for y, x in picks[:30]]
    goals = [(float(x) + 0.5, float(y) + 0.5) for y, x in picks[30:]]
    units = _Units(points, fail_many, bad)
    handles = []
    for u in range(30):
        start_of = units.start(u)
        if not many:
            type(start_of).many = None
        handles.append(world.request_path("g", points[u], goals[u], repath=True,
                                          replan_from=start_of))
    world.tick()
    out = []
    for frame in range(6):
        units.points[:] = [(x + rng.uniform(-2, 2), y + rng.uniform(-2, 2))
                           for x, y in units.points]
        for h in handles:                    # a wall across the middle of each path
            r = h._result
            if r is not None and r.found and len(r.nodes) > 4:
                world.update("g", cells=[graph.cell_of(r.nodes[len(r.nodes) // 2])],
                             walkable=False)
        world.tick()
        out.append([(h.repaths, h.start, repr(h._result), repr(h._error)) if h._result is None
                    else (h.repaths, h.start, h._result.status.value, h._result.cost,
                          h._result.nodes.tolist(), repr(h._error)) for h in handles])
    return out, units.calls


def test_replan_from_many_is_one_call_a_round_with_the_same_results():
    one_by_one, calls_one = _replan_run(many=False)
    batched, calls_many = _replan_run(many=True)
    assert batched == one_by_one
    assert calls_one and all(kind == "one" for kind, _ in calls_one)
    assert calls_many and all(kind == "many" for kind, _ in calls_many)
    assert sum(len(u) for _, u in calls_many) == len(calls_one)
    assert [u for _, u in calls_one] == [u for _, us in calls_many for u in us]


def test_a_failing_many_falls_back_to_each_handles_replan_from():
    one_by_one, _ = _replan_run(many=False, bad=[3, 17])
    batched, calls = _replan_run(many=True, fail_many=True, bad=[3, 17])
    assert batched == one_by_one
    assert any(kind == "many" for kind, _ in calls) and any(kind == "one" for kind, _ in calls)
    errors = {i for frame in batched for i, row in enumerate(frame) if "nowhere" in row[-1]}
    assert errors == {3, 17}                  # the error lands on its own request
