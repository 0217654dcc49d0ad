"""``PathResult.version`` and ``World.is_current``: a result knows the
graph object and version it was computed on; it is current while no
update batch since dirtied a node of its path (checked here against the
path's cost now, ``path_costs``, and against the cells each test changes)."""
import copy

import numpy as np
import pytest
from shapely.geometry import box

import navcore
from navcore import graph as graph_module
from navcore.types import GraphVersion, PathStatus

ROWS = ["........",
        "........",
        "........",
        "........"]


def _grid():
    w = navcore.World(warm_up=False)
    g = w.add_graph("g", type="grid", rows=ROWS)
    return w, g


def test_results_carry_the_graphs_salt_and_version():
    w, g = _grid()
    r = w.find_path("g", (0, 0), (7, 0))
    assert r.version == GraphVersion(g.salt, g.version) == (g.salt, 0)
    w.update("g", cells=[(4, 3)], walkable=False)
    w.tick()
    assert g.version == 1
    assert w.find_path("g", (0, 0), (7, 0)).version == (g.salt, 1)
    assert w.find_path("g", (4, 3), (0, 0)).version == (g.salt, 1)      # invalid start
    assert w.find_path("g", (0, 0), (4, 3)).status is PathStatus.INVALID_GOAL
    assert w.find_path("g", (0, 0), (4, 3)).version == (g.salt, 1)
    # every result its own object: a version is never written on a shared one
    a, b = w.find_path("g", (4, 3), (0, 0)), w.find_path("g", (4, 3), (1, 0))
    assert a is not b
    other = w.add_graph("h", type="grid", rows=ROWS)
    assert other.salt != g.salt


def test_a_blocked_node_on_the_path_ends_it_an_update_elsewhere_does_not():
    w, g = _grid()
    r = w.find_path("g", (0, 0), (7, 0))
    on_path = {tuple(int(v) for v in p) for p in r.points}
    assert (3, 0) in on_path and (6, 3) not in on_path
    # far from every node of the path (no edge of the path changes either)
    w.update("g", cells=[(6, 3)], walkable=False)
    w.tick()
    assert w.is_current(r)
    assert w.path_costs("g", [r.nodes])[0] == r.cost
    w.update("g", cells=[(3, 0)], walkable=False)
    w.tick()
    assert w.path_costs("g", [r.nodes])[0] == np.inf           # the truth: broken
    assert not w.is_current(r)
    # unblocking it again restores the costs, not the currency: a batch
    # touched the path since
    w.update("g", cells=[(3, 0)], walkable=True)
    w.tick()
    assert w.path_costs("g", [r.nodes])[0] == r.cost
    assert not w.is_current(r)
    assert w.is_current(w.find_path("g", (0, 0), (7, 0)))


def test_random_updates_never_leave_a_broken_or_dearer_path_current():
    rng = np.random.default_rng(5)
    w = navcore.World(warm_up=False)
    w.add_graph("g", type="grid", rows=["." * 16] * 12)
    found = []
    for frame in range(12):
        cells = [(int(rng.integers(16)), int(rng.integers(12))) for _ in range(3)]
        w.update("g", cells=cells, walkable=bool(rng.integers(2)))
        w.tick()
        for _ in range(4):
            a = (int(rng.integers(16)), int(rng.integers(12)))
            b = (int(rng.integers(16)), int(rng.integers(12)))
            r = w.find_path("g", a, b)
            if r.found:
                found.append(r)
        costs = w.path_costs("g", [r.nodes for r in found])
        for r, now in zip(found, costs.tolist()):
            if w.is_current(r):
                assert now == pytest.approx(r.cost)


def test_a_graph_removed_and_added_again_is_another_graph():
    w, g = _grid()
    r = w.find_path("g", (0, 0), (7, 0))
    assert w.is_current(r)
    w.remove_graph("g")
    assert not w.is_current(r)
    again = w.add_graph("g", type="grid", rows=ROWS)
    assert again.version == g.version and again.salt != g.salt
    assert not w.is_current(r)


def test_a_copied_or_pickled_graph_is_another_graph():
    w, g = _grid()
    r = w.find_path("g", (0, 0), (7, 0))
    twin = copy.copy(g)
    assert twin.salt != g.salt and twin.version == g.version
    assert twin.stamp() == (twin.salt, g.version)
    w.remove_graph("g")
    w.adopt_graph(twin)
    assert not w.is_current(r)
    assert w.is_current(w.find_path("g", (0, 0), (7, 0)))


def test_results_that_are_not_found_are_current_only_while_nothing_changed():
    w = navcore.World(warm_up=False)
    w.add_graph("g", type="grid", rows=["..#..", "..#.."])
    r = w.find_path("g", (0, 0), (4, 0))
    assert r.status is PathStatus.UNREACHABLE and w.is_current(r)
    w.update("g", cells=[(4, 1)], walkable=False)
    w.tick()
    assert not w.is_current(r)


def test_the_log_that_no_longer_reaches_back_says_not_current(monkeypatch):
    monkeypatch.setattr(graph_module, "DIRTY_LOG_BATCHES", 3)
    w, g = _grid()
    r = w.find_path("g", (0, 0), (7, 0))
    for k in range(3):
        w.update("g", cells=[(k, 3)], walkable=False)
        w.tick()
        assert w.is_current(r)
    w.update("g", cells=[(5, 3)], walkable=False)
    w.tick()
    assert g.dirty_since(r.version.version) is None
    assert not w.is_current(r)


def test_a_version_bump_outside_a_logged_batch_says_not_current():
    w, g = _grid()
    r = w.find_path("g", (0, 0), (7, 0))
    g.version += 1                 # a change no batch logged
    assert not w.is_current(r)


def test_a_result_without_a_version_or_not_a_result():
    w, _ = _grid()
    assert not w.is_current(navcore.PathResult(PathStatus.FOUND, np.array([0], np.int32)))
    with pytest.raises(navcore.QueryError, match="PathResult or a request_path handle"):
        w.is_current([0, 1, 2])


@pytest.mark.parametrize("workers", [0, 2])
def test_scheduled_results_carry_the_version_too(workers):
    w = navcore.World(warm_up=False, workers=workers)
    g = w.add_graph("g", type="grid", rows=ROWS)
    hs = [w.request_path("g", (0, r), (7, r)) for r in (0, 2, 3)]
    bad = w.request_path("g", (0, 0), (99, 0))           # off the grid: invalid goal
    assert not w.is_current(hs[0])                        # no result yet
    w.tick(budget_ms=1e6)
    assert bad.result().status is PathStatus.INVALID_GOAL
    for h in hs + [bad]:
        assert h.result().version == (g.salt, 0)
        assert w.is_current(h)
    w.update("g", cells=[(3, 0)], walkable=False)
    w.tick(budget_ms=1e6)
    # row 1 would be dirty too: its diagonal moves past (3, 0) changed
    assert [w.is_current(h.result()) for h in hs] == [False, True, True]
    w.close()


def test_a_navmesh_path_through_polygon_ids_reused_after_re_tiling_is_not_current():
    w = navcore.World(warm_up=False)
    g = w.add_graph("m", type="navmesh", bounds=(0, 0, 8, 2), tile_size=2.0)
    # a first obstacle elsewhere retires slots, so the next re-tiling can reuse ids
    w.update("m", add_obstacle=box(6.2, 0.2, 6.4, 0.4), obstacle_id="far")
    w.tick()
    r = w.find_path("m", (0.5, 1.0), (5.5, 1.0))
    assert r.found and w.is_current(r)
    through = {int(p) for p in r.nodes}
    w.update("m", add_obstacle=box(2.2, 1.5, 2.4, 1.7), obstacle_id="crate")
    w.tick()
    w.update("m", remove_obstacle="crate")
    w.tick()
    # the path's polygon ids name polygons again (reused slots): a check of
    # the path as it stands now could not tell them from the old ones
    assert g.walkable[r.nodes].all()
    reused = through & set(g.dirty_since(r.version.version).tolist())
    assert reused
    assert not w.is_current(r)
    # the same obstacles elsewhere leave a path in other tiles current
    r2 = w.find_path("m", (0.5, 0.5), (1.5, 0.5))
    w.update("m", add_obstacle=box(6.6, 1.5, 6.8, 1.7), obstacle_id="crate2")
    w.tick()
    assert set(r2.nodes.tolist()).isdisjoint(g.dirty_since(r2.version.version).tolist())
    assert w.is_current(r2)


def test_sliced_searches_carry_the_version_they_ran_on():
    w, g = _grid()
    search = w.begin_search("g", (0, 0), (7, 3), algorithm="astar")
    search.step(1)
    part = search.result(partial=True)
    assert part.version == (g.salt, 0)
    w.update("g", cells=[(6, 0)], walkable=False)
    w.tick()
    while not search.step(5):          # begun again on the changed graph
        pass
    r = search.result()
    assert r.found and r.version == (g.salt, 1) and w.is_current(r)
    capped = w.find_path("g", (0, 0), (7, 3), algorithm="astar", max_nodes=1)
    assert capped.status is PathStatus.BUDGET_EXCEEDED and capped.version == (g.salt, 1)
