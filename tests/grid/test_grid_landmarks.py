"""Landmarks (a differential heuristic) against a naive grid Dijkstra:
exact under every movement rule and per-cell costs, fewer expansions,
valid through updates that close and reopen, stale after new openings."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import navcore
from navcore import PathStatus
from navcore_grid import landmarks, landmarks_of
import reference

from test_grid_search import _cells, _check, _world_grid, grids

RULES = [dict(), dict(connectivity=4), dict(corner_cutting=True),
         dict(diagonal_cost=1.0, corner_cutting=True), dict(diagonal_cost=1.9)]


@pytest.mark.nojit
@given(grids(max_side=11, costs=True), st.sampled_from(RULES), st.integers(1, 6),
       st.booleans(), st.data())
def test_every_rule_stays_exact_with_landmarks(grid, rule, count, with_costs, data):
    walk, cost = grid
    cost = cost if with_costs else None
    world = _world_grid(walk, cost, **rule)
    lm = landmarks(world.graph("g"), count)
    assert lm.current and lm.count == count
    h, w = walk.shape
    for _ in range(4):
        s = (data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1)))
        t = (data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1)))
        for algo in ("auto", "astar"):
            _check(world, walk, cost, s, t, algo, **rule)


def test_landmarks_cut_expansions_on_cluttered_maps_and_keep_costs():
    rng = np.random.default_rng(5)
    walk = rng.random((150, 200)) >= 0.4
    plain = _world_grid(walk)
    marked = _world_grid(walk)
    landmarks(marked.graph("g"), 8)
    free = np.argwhere(walk)
    totals = {"astar": [0, 0], "jps": [0, 0]}
    for _ in range(25):
        (sy, sx), (gy, gx) = free[rng.integers(len(free), size=2)]
        for algo in totals:
            a = plain.find_path("g", (sx, sy), (gx, gy), algorithm=algo)
            b = marked.find_path("g", (sx, sy), (gx, gy), algorithm=algo)
            assert a.status == b.status and b.cost == pytest.approx(a.cost, rel=1e-12)
            totals[algo][0] += a.expanded
            totals[algo][1] += b.expanded
    for algo, (before, after) in totals.items():
        assert after < 0.8 * before, (algo, before, after)


@pytest.mark.nojit
def test_closing_and_reopening_keeps_them_current_and_new_openings_make_them_stale():
    rows = ["..........",
            "....#.....",
            "....#.....",
            "....#.....",
            ".........."]
    world = navcore.World(autoload=False)
    g = world.add_graph("g", type="grid", rows=rows, landmarks=3)   # the builder's way
    lm = landmarks(g)
    assert lm.count == 3 and lm.current

    def exact():
        walk = g.walkable_grid
        truth = reference.grid_dijkstra(walk, np.array(g.cost), (0, 2))
        for goal in ((9, 2), (5, 0), (9, 4)):
            r = world.find_path("g", (0, 2), goal)
            if goal in truth and walk[goal[1], goal[0]]:
                assert r.cost == pytest.approx(truth[goal], rel=1e-12)
            else:
                assert not r.found

    world.update("g", cells=[(4, 0), (4, 4)], walkable=False)       # the wall closes
    world.tick()
    assert lm.current
    exact()
    world.update("g", cells=[(4, 0), (4, 4)], walkable=True)        # and opens again
    world.update("g", rect=(6, 0, 2, 5), cost=4.0)                  # mud: dearer
    world.tick()
    assert lm.current
    exact()
    world.update("g", rect=(6, 0, 2, 5), cost=1.0)                  # back to the build
    world.tick()
    assert lm.current
    world.update("g", cells=[(4, 2)], walkable=True)                # new: a hole in the wall
    world.tick()
    assert not lm.current
    exact()                                                         # octile alone, still exact
    assert landmarks(g) is not lm and landmarks(g).current         # measured again
    world.update("g", rect=(0, 0, 1, 1), cost=0.5)                  # cheaper than at build
    world.tick()
    assert not landmarks_of(g).current
    exact()


@pytest.mark.nojit
def test_bad_landmark_requests_say_what_is_wrong():
    world = navcore.World(autoload=False)
    g = world.add_graph("g", type="grid", rows=["...."])
    for bad in (0, 33, 2.5, True, "8"):
        with pytest.raises(navcore.GraphError, match="landmarks must be a whole number"):
            landmarks(g, bad)
    with pytest.raises(navcore.GraphError, match="landmarks must be a whole number"):
        world.add_graph("h", type="grid", rows=["...."], landmarks=-1)
    assert "h" not in world.graphs
    c = world.add_graph("c", type="csr", src=[0], dst=[1])
    with pytest.raises(navcore.GraphError, match="landmarks are for grids"):
        landmarks(c, 4)
    empty = world.add_graph("e", type="grid", rows=["###"])
    assert landmarks(empty, 2).current                             # nothing to measure


@pytest.mark.nojit
@pytest.mark.parametrize("algorithm", ["astar", "jps"])
def test_queries_drop_a_table_the_moment_it_goes_stale(algorithm):
    # Searches cache their kernel arguments per grid. A wall whose only gap
    # is at the bottom: the table measures the detours, and a gap opened
    # later makes it overestimate. After the update every query must search
    # exactly as on a grid that never had landmarks.
    rows = ["......#....."] * 15 + ["." * 12]
    plain, lit = navcore.World(autoload=False), navcore.World(autoload=False)
    plain.add_graph("g", type="grid", rows=rows)
    lit.add_graph("g", type="grid", rows=rows, landmarks=4)
    pairs = [((0, y), (11, y2)) for y in range(0, 15, 2) for y2 in range(0, 15, 3)]
    for w in (plain, lit):
        for s, t in pairs:
            w.find_path("g", s, t, algorithm=algorithm)              # arguments cached
        w.update("g", cells=[(3, 15)], walkable=False)                # closing: stays current
        w.tick()
    assert landmarks_of(lit.graph("g")).current
    for w in (plain, lit):
        w.update("g", cells=[(3, 15), (6, 4)], walkable=True)         # a gap never seen
        w.tick()
    assert not landmarks_of(lit.graph("g")).current
    walk = plain.graph("g").walkable_grid
    for s, t in pairs:
        truth = reference.grid_dijkstra(walk, np.ones(walk.shape), s)
        a = plain.find_path("g", s, t, algorithm=algorithm)
        b = lit.find_path("g", s, t, algorithm=algorithm)
        assert b.cost == pytest.approx(truth[t], rel=1e-12)
        assert (b.expanded, b.nodes.tolist()) == (a.expanded, a.nodes.tolist())


@pytest.mark.parametrize("count", [np.timedelta64(3, "s"), True, 2.0, "3"])
def test_a_landmark_count_that_is_no_whole_number_is_refused(count):
    world = navcore.World()
    with pytest.raises(navcore.GraphError, match="landmarks must be a whole number"):
        world.add_graph("g", type="grid", generate="maze", width=3, height=2, seed=1,
                        landmarks=count)


@pytest.mark.nojit
def test_a_table_built_after_queries_is_used_by_the_next_query():
    # Searches take the grid's inputs from a view kept per graph version;
    # building landmarks changes no version, so the build must make the
    # next query gather them again: it then searches as on a grid that had
    # the table from the start, not as on one without it (A*: JPS expands
    # as few nodes here with the table as without it).
    algorithm = "astar"
    rows = ["......#....."] * 15 + ["." * 12]
    late, early = navcore.World(autoload=False), navcore.World(autoload=False)
    late.add_graph("g", type="grid", rows=rows)
    early.add_graph("g", type="grid", rows=rows, landmarks=4)
    pairs = [((0, y), (11, y2)) for y in range(0, 15, 3) for y2 in range(0, 15, 4)]
    plain = [late.find_path("g", s, t, algorithm=algorithm) for s, t in pairs]
    landmarks(late.graph("g"), 4)
    walk = late.graph("g").walkable_grid
    for (s, t), p in zip(pairs, plain):
        truth = reference.grid_dijkstra(walk, np.ones(walk.shape), s)
        a = late.find_path("g", s, t, algorithm=algorithm)
        b = early.find_path("g", s, t, algorithm=algorithm)
        assert a.cost == pytest.approx(truth[t], rel=1e-12)
        assert (a.expanded, a.nodes.tolist()) == (b.expanded, b.nodes.tolist())
    assert sum(late.find_path("g", s, t, algorithm=algorithm).expanded for s, t in pairs) \
        < sum(p.expanded for p in plain)
