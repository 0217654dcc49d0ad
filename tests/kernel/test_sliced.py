"""Searches a slice at a time: ``World.begin_search`` and ``find_path``'s
``max_nodes`` / ``partial``. The conformance kit checks stepped against
whole searches on every backend (``check_sliced_equals_whole``); these
tests pin the API: its errors, statuses, and when a search cannot be
sliced."""
import math

import numpy as np
import pytest

import navcore
from navcore import PathStatus

from hooktags import exercises
from reference import adjacency, dijkstra

ROWS = ["..........",
        ".########.",
        ".#......#.",
        ".#.####.#.",
        "..........",
        ]


def _world():
    w = navcore.World()
    w.add_graph("g", type="grid", rows=ROWS)
    return w


def _line_world():
    """A path 0-1-2-3-4 along x, and a spur 0-5 pointing away from 4."""
    w = navcore.World()
    src, dst = [0, 1, 2, 3, 0], [1, 2, 3, 4, 5]
    pos = np.array([[0, 0], [1, 0], [2, 0], [3, 0], [4, 0], [-1, 0]], np.float64)
    w.add_graph("line", type="csr", src=src, dst=dst, cost=np.ones(5), positions=pos,
                directed=False)
    return w


@exercises("navcore_begin_search")
@pytest.mark.parametrize("algorithm", ["astar", "dijkstra", "auto"])
def test_a_search_stepped_one_node_at_a_time_finishes_as_find_path(algorithm):
    w = _world()
    whole = w.find_path("g", (0, 4), (9, 4), algorithm=algorithm)
    s = w.begin_search("g", (0, 4), (9, 4), algorithm=algorithm)
    steps = 1
    while not s.step(1):
        steps += 1
        assert s.expanded == steps - 1 or not s.sliced
    r = s.result()
    assert r.nodes.tolist() == whole.nodes.tolist() and r.cost == whole.cost
    assert r.expanded == whole.expanded


def test_the_cap_gives_budget_exceeded_or_with_partial_the_path_nearest_the_goal():
    w = _line_world()
    # A* from 0 to 4 closes 0, 1, 2, ...: after two the nearest closed node is 1
    r = w.find_path("line", 0, 4, algorithm="astar", max_nodes=2)
    assert r.status is PathStatus.BUDGET_EXCEEDED and r.expanded == 2
    assert len(r.nodes) == 0 and r.cost == math.inf
    p = w.find_path("line", 0, 4, algorithm="astar", max_nodes=2, partial=True)
    assert p.status is PathStatus.PARTIAL and p.nodes.tolist() == [0, 1] and p.cost == 1.0
    assert p.points.tolist() == [[0.0, 0.0], [1.0, 0.0]]
    done = w.find_path("line", 0, 4, algorithm="astar", max_nodes=100, partial=True)
    assert done.status is PathStatus.FOUND and done.nodes.tolist() == [0, 1, 2, 3, 4]


def test_a_partial_path_on_a_grid_is_a_shortest_path_to_its_last_cell():
    w = _world()
    g = w.graph("g")
    whole = w.find_path("g", (2, 2), (9, 4), algorithm="astar")
    p = w.find_path("g", (2, 2), (9, 4), algorithm="astar", max_nodes=whole.expanded // 2,
                    partial=True)
    assert p.status is PathStatus.PARTIAL and p.nodes[0] == g.node_of((2, 2))
    csr = g.csr
    src = np.repeat(np.arange(g.num_nodes), np.diff(csr.offsets))
    adj = adjacency(src, csr.targets, csr.cost, g.num_nodes)
    dist = dijkstra(adj, int(p.nodes[0]), walkable=g.walkable)
    assert p.cost == pytest.approx(dist[int(p.nodes[-1])])
    # ... and nearer the goal (by the octile heuristic) than the start
    def octile(x, y):
        dx, dy = abs(x - 9), abs(y - 4)
        return max(dx, dy) + (math.sqrt(2) - 1) * min(dx, dy)
    end = int(p.nodes[-1])
    assert octile(end % 10, end // 10) < octile(2, 2)


@pytest.mark.parametrize("kwargs, message", [
    ({"max_nodes": 0}, "max_nodes must be an integer >= 1"),
    ({"max_nodes": -3}, "max_nodes must be an integer >= 1"),
    ({"max_nodes": 2.5}, "max_nodes must be an integer >= 1"),
    ({"max_nodes": "10"}, "max_nodes must be an integer >= 1"),
    ({"partial": True}, "partial=True needs max_nodes"),
    ({"max_nodes": 5, "partial": "yes"}, "partial"),
])
def test_bad_caps_are_a_query_error(kwargs, message):
    w = _world()
    with pytest.raises(navcore.QueryError, match=message):
        w.find_path("g", 0, 9, **kwargs)


def test_step_needs_a_positive_count_and_a_closed_search_is_cancelled():
    w = _world()
    s = w.begin_search("g", (0, 4), (9, 4), algorithm="astar")
    for bad in (0, -1, 1.5, None, "3"):
        with pytest.raises(navcore.QueryError, match="max_expansions"):
            s.step(bad)
    assert not s.step(1) and not s.done
    s.close()
    assert s.done and s.step(5) and s.result().status is PathStatus.CANCELLED


def test_ends_that_are_not_walkable_give_a_search_already_finished():
    w = _world()
    s = w.begin_search("g", (1, 1), (9, 4))            # a wall
    assert s.done and s.result().status is PathStatus.INVALID_START
    with pytest.raises(navcore.NodeError):
        w.begin_search("g", 999, 0)


def test_a_backend_without_begin_search_gets_its_find_path_run_whole():
    # A plugin that answers grid A* itself, without navcore_begin_search:
    # begin_search must not step the grid's own A* past it
    w = _world()

    class Straight:
        @navcore.hookimpl(tryfirst=True)
        def navcore_find_path(self, graph, request):
            if request.algorithm == "astar":
                return navcore.PathResult("unreachable", expanded=1, algorithm="mine")
            return None

    w.plugins.register(Straight(), "straight")
    s = w.begin_search("g", (0, 4), (9, 4), algorithm="astar")
    assert not s.sliced
    assert s.step(1) and s.result().algorithm == "mine"
    # a partial request on it: the whole search ran within its first step
    r = w.find_path("g", (0, 4), (9, 4), algorithm="astar", max_nodes=1, partial=True)
    assert r.algorithm == "mine"


def test_a_search_on_a_grid_that_changes_begins_again_on_the_new_grid():
    w = _world()
    s = w.begin_search("g", (0, 4), (9, 4), algorithm="astar")
    s.step(3)
    w.update("g", cells=[(5, 4)], walkable=False)       # cuts the bottom row
    w.tick()
    while not s.step(2):
        pass
    want = w.find_path("g", (0, 4), (9, 4), algorithm="astar")
    assert s.result().nodes.tolist() == want.nodes.tolist()
    assert s.result().expanded == want.expanded


def test_many_searches_under_way_at_once_keep_their_own_state():
    w = _world()
    pairs = [((0, 4), (9, 4)), ((9, 0), (0, 0)), ((2, 2), (9, 4)), ((0, 0), (7, 2))]
    searches = [w.begin_search("g", a, b, algorithm="astar") for a, b in pairs]
    while not all(s.done for s in searches):
        for s in searches:
            s.step(2)
    for s, (a, b) in zip(searches, pairs):
        want = w.find_path("g", a, b, algorithm="astar")
        assert s.result().nodes.tolist() == want.nodes.tolist()


def test_a_stepped_grid_search_whose_pool_runs_out_grows_it_and_finishes_exactly():
    from navcore_grid import sliced
    w = _world()
    g = w.graph("g")
    s = w.begin_search("g", (0, 4), (9, 4), algorithm="astar")
    pool = s._slot.pool()
    s._slot._pool = (pool[0][:2], pool[1][:2], pool[2][:2], *pool[3:])
    while not s.step(3):
        pass
    want = w.find_path("g", (0, 4), (9, 4), algorithm="astar")
    assert s.result().nodes.tolist() == want.nodes.tolist()
    assert s.result().expanded == want.expanded
    assert sliced._POOL_KEY and g.num_nodes


@pytest.mark.parametrize("kind, algorithm", [("grid", "astar"), ("grid", "jps"),
                                             ("csr", "astar")])
def test_a_search_not_stepped_yet_has_no_partial_path_from_the_slot_before(kind, algorithm):
    # a slot given back keeps its last search's nearest node: a new search
    # that took it must not answer with that search's path
    if kind == "grid":
        w, gid, first, second = _world(), "g", ((0, 4), (9, 4)), ((9, 0), (0, 0))
    else:
        w, gid, first, second = _line_world(), "line", (0, 4), (5, 4)
    done = w.begin_search(gid, *first, algorithm=algorithm)
    while not done.step(1):
        pass
    fresh = w.begin_search(gid, *second, algorithm=algorithm)
    r = fresh.result(partial=True)
    assert r.status is PathStatus.BUDGET_EXCEEDED and not len(r.nodes)
