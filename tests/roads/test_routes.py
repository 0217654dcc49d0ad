"""Many routes in one call, with and without a hierarchy: every route is a
walk on the graph whose edges add up to the truth's cost."""
import numpy as np
import pytest

import navcore
import navcore_roads

from roadtruth import ROADS, close, need, pairs, scipy_distances


def world(name="monaco"):
    need(name)
    w = navcore.World()
    g = w.add_graph(name, type="roads", dimacs=ROADS / f"{name}.gr",
                    coords=ROADS / f"{name}.co", keep="all")
    return w, g


def check_walks(g, r):
    for i in range(len(r)):
        nodes = r.nodes(i)
        if not np.isfinite(r.costs[i]):
            assert nodes.size == 0 and r.route_edges(i).size == 0
            continue
        e = r.route_edges(i)
        assert nodes[0] == r.sources[i] and nodes[-1] == r.targets[i]
        assert np.array_equal(g.edge_src[e], nodes[:-1])
        assert g.csr.cost[e].sum() == pytest.approx(r.costs[i], rel=1e-12, abs=0)


@pytest.mark.parametrize("built", [True, False])
def test_routes_equal_the_truth_and_are_walks(built):
    w, g = world()
    if built:
        navcore_roads.contract(g)
    p = pairs("monaco", "pairs_any")
    s, t = p["source"].astype(int), p["target"].astype(int)
    s = np.concatenate((s, [5, 7]))
    t = np.concatenate((t, [5, 9]))                        # a route to itself: cost 0
    r = navcore_roads.routes(g, s, t)
    assert r.algorithm == ("ch" if built else "bidijkstra")
    want = np.concatenate((p["dimacs_dm"], [0.0, w.find_path("monaco", 7, 9).cost]))
    assert np.array_equal(r.costs, want)
    check_walks(g, r)
    assert r.points(0).shape[0] >= r.nodes(0).size


def test_routes_after_updates_and_with_blocked_ends():
    w, g = world("helsinki")
    navcore_roads.contract(g)
    w.update("helsinki", nodes=[3, 4], walkable=False)
    w.tick()
    navcore_roads.contract(g)
    rng = np.random.default_rng(2)
    s = np.concatenate(([3], rng.integers(0, g.num_nodes, 40)))
    t = np.concatenate(([10], rng.integers(0, g.num_nodes, 40)))
    r = navcore_roads.routes(g, s, t)
    ref = scipy_distances(g, s)[np.arange(s.size), t]
    assert np.isinf(r.costs[0]) and r.nodes(0).size == 0
    assert close(r.costs, ref)
    check_walks(g, r)


def test_routes_take_points_and_refuse_bad_input():
    w, g = world()
    navcore_roads.contract(g)
    pts = g.positions[[1, 2, 3]]
    r = navcore_roads.routes(g, pts, g.positions[[4, 5, 6]])
    assert r.sources.tolist() == [1, 2, 3] and r.targets.tolist() == [4, 5, 6]
    with pytest.raises(navcore.NodeError):
        navcore_roads.routes(g, [0, 1], [2])
    with pytest.raises(navcore.NodeError):
        navcore_roads.routes(g, [g.num_nodes], [0])


@pytest.mark.parametrize("sources, words", [
    ([[0, 1], [2]], "sources must be node ids or (lon, lat) points, all alike"),
    ([0, [1, 2]], "sources must be node ids or (lon, lat) points, all alike"),
    ([(24.9, 60.1), 3], "sources must be node ids or (lon, lat) points, all alike"),
])
def test_ragged_ends_are_a_node_error(sources, words):
    # numpy refused to make an array of them: a bare ValueError
    w = navcore.World()
    g = w.add_graph("r", type="roads", src=[0, 1, 2], dst=[1, 2, 0],
                    length=[100.0, 100.0, 100.0], speed=36.0)
    with pytest.raises(navcore.NodeError) as info:
        navcore_roads.routes(g, sources, [0, 1])
    assert words in str(info.value)
    with pytest.raises(navcore.NodeError):
        navcore_roads.routes(g, [0, 1], sources)
