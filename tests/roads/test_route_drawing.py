"""Every road search's route between junction ids, against independent
truth: its cost is scipy's Dijkstra distance, its nodes a walk on the
graph costing that much, and its drawn road the polyline of that walk's
segments (``RoadGraph.route_points``, its own kernel reading the
segments), so it passes through the nodes' positions in order. On a graph
whose edges are one segment each (arrays, DIMACS) and on one whose edges
are chains of segments (compressed shape nodes)."""
import numpy as np
import pytest

import navcore
import navcore_roads
from navcore.errors import QueryError

from roadlike import roadlike
from roadtruth import close, scipy_distances

ALGORITHMS = ("ch", "cch", "bidijkstra", "astar", "dijkstra", "auto")


def road_world(shape_nodes):
    """A small road-like graph as (lon, lat) arrays; with ``shape_nodes``
    every road gets a node halfway along it (compressed away, so each edge
    is a chain of two segments)."""
    offsets, targets, cost, x, y = roadlike(150, seed=4)
    src = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    dst = targets.astype(np.int64)
    lon, lat = 7.4 + x / 80_000.0, 43.7 + y / 111_000.0
    if shape_nodes:
        m, n = src.size, lon.size
        mid = n + np.arange(m)
        lon = np.concatenate((lon, (lon[src] + lon[dst]) / 2))
        lat = np.concatenate((lat, (lat[src] + lat[dst]) / 2))
        src, dst = np.concatenate((src, mid)), np.concatenate((mid, dst))
        cost = np.concatenate((cost / 2, cost / 2))
    w = navcore.World()
    g = w.add_graph("r", type="roads", src=src, dst=dst, cost=cost, keep="all",
                    positions=np.column_stack((lon, lat)), compress=shape_nodes)
    assert g.one_segment_edges is (not shape_nodes)
    navcore_roads.contract(g)
    navcore_roads.contract(g, customizable=True)
    return w, g


@pytest.mark.parametrize("shape_nodes", [False, True])
def test_routes_of_every_search_are_exact_walks_drawn_along_their_segments(shape_nodes):
    w, g = road_world(shape_nodes)
    w.update("r", nodes=[5], walkable=False)          # the hierarchies follow (cch) or
    w.tick()                                          # are rebuilt (ch) for it
    navcore_roads.contract(g)
    rng = np.random.default_rng(7)
    s = rng.integers(0, g.num_nodes, 25)
    t = rng.integers(0, g.num_nodes, 25)
    s[:3], t[:3] = [2, 5, 9], [2, 9, 5]               # to itself, from/to a blocked junction
    truth = scipy_distances(g, s)[np.arange(s.size), t]
    for algorithm in ALGORITHMS:
        for i in range(s.size):
            r = w.find_path("r", int(s[i]), int(t[i]), algorithm=algorithm)
            if not (g.walkable[s[i]] and g.walkable[t[i]]):
                assert not r.found
                continue
            assert r.found == np.isfinite(truth[i]), (algorithm, i)
            if not r.found:
                continue
            assert close(r.cost, truth[i]), (algorithm, i, r.cost, truth[i])
            assert r.nodes.dtype == np.int32 and r.nodes[0] == s[i] and r.nodes[-1] == t[i]
            edges = g.path_edges(r.nodes)
            assert (edges >= 0).all() and close(g.csr.cost[edges].sum(), r.cost)
            assert r.points.dtype == np.float64 and r.points.flags.c_contiguous
            if edges.size == 0:
                assert np.array_equal(r.points, g.positions[[s[i]]])
                continue
            assert np.array_equal(r.points, g.route_points(edges)), (algorithm, i)
            # through the nodes' positions in order: node k where edge k begins
            at = np.concatenate(([0], np.cumsum(np.diff(g.chain_start)[edges])))
            assert np.array_equal(r.points[at], g.positions[r.nodes])
            assert r.points.shape[0] == (edges.size + 1 if not shape_nodes
                                         else 2 * edges.size + 1)


def test_hierarchy_paths_take_numpy_ids_and_refuse_others():
    w, g = road_world(False)
    for view in (navcore_roads.ch.current(g), navcore_roads.cch.current(g)):
        q = view.query()
        cost, edges = q.path(3, 40)
        got = q.path(np.int64(3), np.int32(40))
        assert got[0] == cost and np.array_equal(got[1], edges)
        assert close(q.distance(np.int16(3), 40), cost)     # arcs summed: rounding may differ
        for bad in (-1, g.num_nodes, 2.0, True, "3"):
            with pytest.raises(QueryError, match="s must be a node id"):
                q.path(bad, 40)
            with pytest.raises(QueryError, match="t must be a node id"):
                q.distance(3, bad)


def same_result(a, b) -> bool:
    """Two ``PathResult`` are the same answer, bit for bit."""
    return (a.status == b.status and a.expanded == b.expanded and a.algorithm == b.algorithm
            and (a.cost == b.cost or (np.isnan(a.cost) and np.isnan(b.cost)))
            and a.nodes.dtype == b.nodes.dtype and np.array_equal(a.nodes, b.nodes)
            and a.points.dtype == b.points.dtype
            and np.array_equal(a.points, b.points, equal_nan=True))


@pytest.mark.parametrize("graph", ["one_segment", "chains", "no_positions"])
def test_ch_routes_drawn_in_the_search_kernel_equal_routes_drawn_after_it(graph):
    # World.find_path's ch route is searched and drawn in one kernel
    # (RoadHierarchy.route); search.hierarchy_route searches, then draws
    # the edges in a second kernel (what the customizable hierarchy and
    # graphs without positions use): the same answers, and scipy's costs
    if graph == "no_positions":
        offsets, targets, cost, _, _ = roadlike(150, seed=4)
        w = navcore.World()
        g = w.add_graph("r", type="roads", src=np.repeat(np.arange(offsets.size - 1),
                                                          np.diff(offsets)),
                        dst=targets, cost=cost, length=np.full(cost.size, 100.0), keep="all")
        assert g.chain_xy is None
    else:
        w, g = road_world(graph == "chains")
    view = navcore_roads.contract(g)
    rng = np.random.default_rng(11)
    s = rng.integers(0, g.num_nodes, 300)
    t = rng.integers(0, g.num_nodes, 300)
    s[:2], t[:2] = [4, 7], [4, 4]
    truth = scipy_distances(g, s)[np.arange(s.size), t]
    for a, b, want in zip(s.tolist(), t.tolist(), truth.tolist()):
        r = w.find_path("r", a, b, algorithm="ch")
        old = navcore_roads.search.hierarchy_route(view, a, b, "ch")
        assert same_result(r, old), (a, b)
        assert r.found == np.isfinite(want) and (not r.found or close(r.cost, want))
    # unreachable: a junction whose roads are closed (the hierarchy leaves
    # them out; World.find_path answers invalid_start before searching)
    w.update("r", nodes=[5], walkable=False)
    w.tick()
    view = navcore_roads.contract(g)
    for a, b in ((5, 9), (9, 5), (5, 5)):
        r, old = view.route(a, b), navcore_roads.search.hierarchy_route(view, a, b, "ch")
        assert same_result(r, old)
        assert r.found == (a == b)
