"""Road searches a slice at a time (``navcore_roads.sliced``): stepped, a
search finishes exactly as ``find_path`` does (route, cost, ``expanded``),
its cost is scipy's; an update between steps begins it again on the new
costs; a partial path is a walk whose cost is the truth to its end; a
closed or dropped search gives its slot back ready for the next one."""
import numpy as np
import pytest

import navcore
import navcore_roads
from navcore import PathStatus

from roadlike import roadlike
from roadtruth import close, scipy_distances

ALGORITHMS = ("dijkstra", "astar", "bidijkstra")
POOL = "navcore_roads.slots"


def _world(n=300, seed=2, positions=True, budget_ms=None):
    off, tg, wt, lon, lat = roadlike(n, seed)
    src = np.repeat(np.arange(off.size - 1), np.diff(off))
    w = navcore.World() if budget_ms is None else navcore.World(frame_budget_ms=budget_ms)
    kw = {"positions": np.column_stack((24.9 + lon / 1e5, 60.1 + lat / 1e5))} \
        if positions else {"length": wt}
    g = w.add_graph("r", type="roads", src=src, dst=tg, cost=wt, keep="all", **kw)
    return w, g


def _far_pairs(g, k=3, seed=0):
    rng = np.random.default_rng(seed)
    return [(int(a), int(b)) for a, b in rng.integers(0, g.num_nodes, (k, 2)) if a != b]


def _stepped(w, s, t, algorithm, budget):
    search = w.begin_search("r", s, t, algorithm=algorithm)
    steps = 1
    while not search.step(budget):
        steps += 1
    return search, steps


def _same(a, b):
    assert a.status is b.status
    assert a.nodes.tolist() == b.nodes.tolist()
    assert a.cost == b.cost and a.expanded == b.expanded
    assert np.array_equal(a.points, b.points)


def _walk_cost(g, nodes):
    """The cost of the cheapest road between each pair of consecutive nodes."""
    csr, total = g.csr, 0.0
    for a, b in zip(nodes[:-1], nodes[1:]):
        lo, hi = csr.offsets[a], csr.offsets[a + 1]
        k = np.flatnonzero(csr.targets[lo:hi] == b)
        assert k.size, f"no road {a} -> {b}"
        total += csr.cost[lo + k].min()
    return total


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_stepped_searches_finish_as_find_path_with_the_truths_cost(algorithm):
    w, g = _world()
    for s, t in _far_pairs(g):
        whole = w.find_path("r", s, t, algorithm=algorithm)
        truth = scipy_distances(g, [s])[0, t]
        assert close(whole.cost if whole.status is PathStatus.FOUND else np.inf, truth)
        for budget in (1, 5, 64):
            search, steps = _stepped(w, s, t, algorithm, budget)
            assert search.sliced
            _same(search.result(), whole)
            # a step settles at most ``budget`` nodes (the last may settle none:
            # a queue of stale entries, or the two searches' stop test)
            assert -(-whole.expanded // budget) <= steps <= -(-whole.expanded // budget) + 1


@pytest.mark.parametrize("algorithm", ["ch", "cch", "auto"])
def test_hierarchy_searches_step_and_finish_as_find_path(algorithm):
    # expanded: the CH's settled nodes, the CCH's elimination-tree nodes
    # (auto answers from the CCH)
    w, g = _world()
    navcore_roads.contract(g, progress=False)
    navcore_roads.contract(g, customizable=True)
    for s, t in _far_pairs(g) + [(5, 5)]:
        whole = w.find_path("r", s, t, algorithm=algorithm)
        assert close(whole.cost, scipy_distances(g, [s])[0, t])
        assert whole.expanded > 0 or (s == t and algorithm == "ch")
        for budget in (1, 3, 100):
            search, steps = _stepped(w, s, t, algorithm, budget)
            assert search.sliced
            _same(search.result(), whole)
            assert -(-whole.expanded // budget) <= steps <= -(-whole.expanded // budget) + 1
        part = w.find_path("r", s, t, algorithm=algorithm, max_nodes=1, partial=True)
        assert part.status is (PathStatus.FOUND if whole.expanded <= 1
                               else PathStatus.BUDGET_EXCEEDED)


def test_a_cch_search_follows_a_customization_between_steps_and_frees_its_labels():
    w, g = _world()
    navcore_roads.contract(g, customizable=True)
    (s, t), (s2, t2) = _far_pairs(g)[:2]
    before = w.find_path("r", s, t, algorithm="cch")
    search = w.begin_search("r", s, t, algorithm="cch")
    assert not search.step(2)
    mid = len(before.nodes) // 2
    w.update("r", edges=[(int(before.nodes[mid]), int(before.nodes[mid + 1]))], factor=9.0)
    w.tick()                                          # customized again inline
    while not search.step(2):
        pass
    after = w.find_path("r", s, t, algorithm="cch")
    _same(search.result(), after)
    assert after.cost > before.cost
    # closed midway, its labels are inf again for the next search in its slot
    x = w.begin_search("r", s2, t2, algorithm="cch")
    assert not x.step(3)
    slot = x._slot
    x.close()
    assert np.isinf(slot._df).all() and np.isinf(slot._db).all()
    y = w.begin_search("r", s, t, algorithm="cch")
    assert y._slot is slot
    while not y.step(4):
        pass
    _same(y.result(), after)


def test_a_ch_search_whose_hierarchy_goes_stale_between_steps_is_refused_as_find_path():
    w, g = _world()
    navcore_roads.contract(g, progress=False)
    s, t = _far_pairs(g)[0]
    search = w.begin_search("r", s, t, algorithm="ch")
    assert not search.step(1)
    w.update("r", edges=[(int(g.edge_src[0]), int(g.csr.targets[0]))], factor=2.0)
    w.tick()
    with pytest.raises(navcore.QueryError, match="stale contraction hierarchy"):
        w.find_path("r", s, t, algorithm="ch")
    with pytest.raises(navcore.QueryError, match="stale contraction hierarchy"):
        search.step(1)
    navcore_roads.contract(g, progress=False)        # built again: the search carries on
    while not search.step(2):
        pass
    _same(search.result(), w.find_path("r", s, t, algorithm="ch"))


def test_a_stepped_ch_search_whose_heaps_run_out_grows_them_and_finishes_as_find_path():
    from navcore_csr.hierarchy import SteppedPath
    w, g = _world(2000)
    view = navcore_roads.contract(g, progress=False)
    sp = SteppedPath(view.hierarchy)
    sp._heaps(2)                                      # room for two entries a side
    for s, t in _far_pairs(g):
        sp.begin(s, t)
        while not sp.step(5):
            pass
        whole = w.find_path("r", s, t, algorithm="ch")
        assert sp.cost == whole.cost and sp.settled == whole.expanded
        assert np.array_equal(g.csr.targets[sp.edges], whole.nodes[1:])
    assert sp._hkf.shape[0] > 2


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("update", [{"factor": 5.0}, {"cost": float("inf")}])
def test_an_update_between_steps_begins_the_search_again_on_the_new_costs(algorithm,
                                                                         update):
    w, g = _world()
    s, t = _far_pairs(g)[0]
    before = w.find_path("r", s, t, algorithm=algorithm)
    assert before.status is PathStatus.FOUND and before.nodes.size > 3
    search = w.begin_search("r", s, t, algorithm=algorithm)
    assert not search.step(3)
    mid = len(before.nodes) // 2          # a road on the route found before
    w.update("r", edges=[(int(before.nodes[mid]), int(before.nodes[mid + 1]))], **update)
    w.tick()
    while not search.step(4):
        pass
    got, after = search.result(), w.find_path("r", s, t, algorithm=algorithm)
    _same(got, after)
    assert w.is_current(got)
    truth = scipy_distances(g, [s])[0, t]
    assert close(got.cost if got.status is PathStatus.FOUND else np.inf, truth)
    assert got.cost != before.cost


def test_a_closed_junction_between_steps_that_is_the_goal_ends_invalid_goal():
    w, g = _world()
    s, t = _far_pairs(g)[0]
    search = w.begin_search("r", s, t, algorithm="bidijkstra")
    assert not search.step(2)
    w.update("r", nodes=[t], walkable=False)
    w.tick()
    assert search.step(1)
    assert search.result().status is PathStatus.INVALID_GOAL


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_partial_path_is_a_walk_from_the_start_at_the_truths_cost(algorithm):
    w, g = _world()
    for s, t in _far_pairs(g):
        whole = w.find_path("r", s, t, algorithm=algorithm)
        truth = scipy_distances(g, [s])[0]
        tx = g.unit[t]
        for cap in (1, whole.expanded // 3, whole.expanded // 2):
            part = w.find_path("r", s, t, algorithm=algorithm, max_nodes=max(cap, 1),
                               partial=True)
            assert part.status is PathStatus.PARTIAL
            nodes = part.nodes.tolist()
            end = nodes[-1]
            assert nodes[0] == s and part.expanded == max(cap, 1)
            assert close(part.cost, truth[end]) and close(_walk_cost(g, nodes), part.cost)
            assert part.points.shape[0] >= len(nodes)
            # never farther from the goal (by chord) than the start
            assert np.linalg.norm(g.unit[end] - tx) <= np.linalg.norm(g.unit[s] - tx)


def test_without_coordinates_the_partial_path_is_the_start_and_astar_is_refused():
    w, g = _world(positions=False)
    s, t = _far_pairs(g)[0]
    part = w.find_path("r", s, t, algorithm="dijkstra", max_nodes=5, partial=True)
    assert part.status is PathStatus.PARTIAL and part.nodes.tolist() == [s]
    pool = g.scratch(POOL, list)
    assert len(pool) == 1
    with pytest.raises(navcore.QueryError, match="astar needs node coordinates"):
        w.begin_search("r", s, t, algorithm="astar")
    assert len(pool) == 1                   # refused before a slot was taken


def test_close_gives_the_slot_back_and_the_next_search_reuses_it_from_the_start():
    w, g = _world()
    (s, t), (s2, t2) = _far_pairs(g)[:2]
    a = w.begin_search("r", s, t, algorithm="astar")
    assert not a.step(5)
    slot = a._slot
    a.close()
    assert a.result().status is PathStatus.CANCELLED
    pool = g.scratch(POOL, list)
    assert pool == [slot]
    b = w.begin_search("r", s2, t2, algorithm="bidijkstra")
    assert b._slot is slot and pool == []           # reused, and begins afresh
    while not b.step(3):
        pass
    _same(b.result(), w.find_path("r", s2, t2, algorithm="bidijkstra"))
    assert pool == [slot]                           # a finished search gives it back too


def test_many_searches_at_once_keep_at_most_four_slots_and_each_its_own_labels():
    w, g = _world()
    pairs = _far_pairs(g, k=8, seed=5)
    searches = [w.begin_search("r", s, t, algorithm=a) for s, t in pairs
                for a in ALGORITHMS]
    assert len({id(x._slot) for x in searches}) == len(searches)
    while not all([x.step(2) for x in searches]):     # interleaved
        pass
    for x in searches:
        r = x.request
        _same(x.result(), w.find_path("r", r.start_node, r.goal_node,
                                      algorithm=x.result().algorithm))
    assert len(g.scratch(POOL, list)) == 4


def test_a_search_dropped_midway_frees_its_slot():
    w, g = _world()
    s, t = _far_pairs(g)[0]
    x = w.begin_search("r", s, t, algorithm="dijkstra")
    x.step(3)
    del x
    pool = g.scratch(POOL, list)
    assert len(pool) == 1
    y, _ = _stepped(w, s, t, "dijkstra", 2)
    _same(y.result(), w.find_path("r", s, t, algorithm="dijkstra"))


def _points(g, i, j):
    return tuple(g.positions[i] + 1e-5), tuple(g.positions[j] - 1e-5)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_searches_between_points_finish_as_find_path(algorithm):
    # bidijkstra between points (phantom nodes) is stepped; dijkstra and
    # astar there run up to four searches and run whole
    w, g = _world()
    for i, j in ((3, 250), (17, 120), (200, 9)):
        a, b = _points(g, i, j)
        whole = w.find_path("r", a, b, algorithm=algorithm)
        assert whole.status is PathStatus.FOUND and whole.expanded > 10
        for budget in (1, 7):
            search, steps = _stepped(w, a, b, algorithm, budget)
            _same(search.result(), whole)
            if algorithm == "bidijkstra":
                assert search.sliced and steps >= whole.expanded // budget
            else:
                assert steps == 1 and not search.sliced
        # one end a junction, the other a point
        whole = w.find_path("r", i, b, algorithm=algorithm)
        search, _ = _stepped(w, i, b, algorithm, 5)
        _same(search.result(), whole)


def test_a_search_between_points_has_no_partial_path_and_restarts_after_an_update():
    w, g = _world()
    a, b = _points(g, 3, 250)
    part = w.find_path("r", a, b, algorithm="bidijkstra", max_nodes=5, partial=True)
    assert part.status is PathStatus.BUDGET_EXCEEDED and part.expanded == 5
    before = w.find_path("r", a, b, algorithm="bidijkstra")
    search = w.begin_search("r", a, b, algorithm="bidijkstra")
    assert not search.step(5)
    mid = len(before.nodes) // 2
    w.update("r", edges=[(int(before.nodes[mid]), int(before.nodes[mid + 1]))], factor=20.0)
    w.tick()
    while not search.step(9):
        pass
    after = w.find_path("r", a, b, algorithm="bidijkstra")
    _same(search.result(), after)
    assert after.cost > before.cost


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_the_scheduler_spreads_a_long_road_search_over_frames(algorithm):
    w, g = _world(3000, budget_ms=0.02)
    ends = [(0, 2999), (2999, 0), (1500, 20)]
    handles = [w.request_path("r", s, t, algorithm=algorithm) for s, t in ends]
    stats = []
    while not all(h.done for h in handles):
        stats.append(w.tick())
        assert len(stats) < 20_000
    for h, (s, t) in zip(handles, ends):
        _same(h.result(), w.find_path("r", s, t, algorithm=algorithm))
    # frames that searched without finishing anything: slices of a search
    assert any(x.requests_served == 0 and x.nodes_expanded > 0 for x in stats)
