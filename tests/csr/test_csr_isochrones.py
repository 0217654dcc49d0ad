"""``World.isochrone`` on any graph (the csr plugin's bounded
multi-source Dijkstra): node sets and costs equal scipy's Dijkstra with
``limit`` (``min_only`` for several sources) on random graphs, bands,
blocked nodes, edge pieces, outlines, and the errors of bad input."""
import numpy as np
import pytest
import shapely
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

import navcore
from hooktags import exercises


def random_world(seed, n=60, m=200, directed=True):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    cost = rng.uniform(0.5, 5.0, m)
    w = navcore.World()
    g = w.add_graph("g", type="csr", src=src, dst=dst, cost=cost, num_nodes=n,
                    positions=rng.uniform(0, 10, (n, 2)), directed=directed)
    return w, g


def scipy_graph(g):
    """The cheapest of parallel edges, self-loops left out (scipy's
    sparse matrix would sum duplicates)."""
    csr = g.csr
    src = np.repeat(np.arange(g.num_nodes), np.diff(csr.offsets))
    ok = np.isfinite(csr.cost) & g.walkable[src] & g.walkable[csr.targets] & \
        (src != csr.targets)
    src, dst, cost = src[ok], csr.targets[ok], csr.cost[ok]
    order = np.lexsort((cost, dst, src))
    key = src[order] * g.num_nodes + dst[order]
    o = order[np.r_[True, key[1:] != key[:-1]]] if key.size else order
    return csr_matrix((cost[o], (src[o], dst[o])), shape=(g.num_nodes,) * 2)


def truth(g, sources, limit):
    d = dijkstra(scipy_graph(g), indices=np.asarray(sources), limit=limit, min_only=True)
    nodes = np.flatnonzero(np.isfinite(d))
    return nodes, d[nodes]


@exercises("navcore_isochrone")
@pytest.mark.parametrize("seed", range(6))
def test_random_graphs_equal_scipy_bounded_dijkstra(seed):
    w, g = random_world(seed, directed=seed % 2 == 0)
    rng = np.random.default_rng(100 + seed)
    for k in (1, 3):
        sources = rng.choice(g.num_nodes, k, replace=False)
        for limit in (0.0, 2.5, 6.0, np.inf):
            iso = w.isochrone("g", sources.tolist() if k > 1 else int(sources[0]), limit)
            nodes, costs = truth(g, sources, limit)
            assert iso.nodes.tolist() == nodes.tolist()
            np.testing.assert_allclose(iso.costs, costs, rtol=1e-12)


def test_a_node_at_exactly_the_limit_is_reached_as_scipy_says():
    w, g = random_world(3)
    d = dijkstra(scipy_graph(g), indices=[0])
    limit = float(np.sort(d[np.isfinite(d)])[len(d[np.isfinite(d)]) // 2])
    iso = w.isochrone("g", 0, limit)
    nodes, _ = truth(g, [0], limit)
    assert iso.nodes.tolist() == nodes.tolist()
    assert iso.costs.max() == limit


def test_bands_are_each_nodes_first_limit():
    w, g = random_world(5)
    bands = [1.0, 3.0, 7.5]
    iso = w.isochrone("g", [2, 9], bands)
    for b, limit in enumerate(bands):
        nodes, _ = truth(g, [2, 9], limit)
        assert iso.nodes[iso.band <= b].tolist() == nodes.tolist()
    lower = np.r_[-np.inf, bands][iso.band]
    assert (iso.costs <= np.array(bands)[iso.band]).all() and (iso.costs > lower).all()


def test_blocked_nodes_are_never_entered_and_a_blocked_source_reaches_nothing():
    w = navcore.World()
    w.add_graph("line", type="csr", src=[0, 1, 2], dst=[1, 2, 3], cost=[1.0] * 3,
                directed=False, walkable=[True, False, True, True])
    assert w.isochrone("line", 0, 10).nodes.tolist() == [0]
    assert w.isochrone("line", 1, 10).nodes.tolist() == []
    assert w.isochrone("line", [1, 2], 10).nodes.tolist() == [2, 3]


def test_pieces_reach_along_edges_by_cost():
    w = navcore.World()
    w.add_graph("g", type="csr", src=[0, 1, 1], dst=[1, 2, 3], cost=[2.0, 4.0, 1.0],
                positions=[[0, 0], [2, 0], [6, 0], [2, 1]])
    iso = w.isochrone("g", 0, [1.0, 4.0])
    edges, lo, hi = iso.segments(0)
    assert edges.tolist() == [0] and lo.tolist() == [0.0] and hi.tolist() == [0.5]
    edges, lo, hi = iso.segments()          # the last band: 2 left after node 1
    assert dict(zip(edges.tolist(), hi.tolist())) == {0: 1.0, 1: 0.5, 2: 1.0}
    lines = w.graph("g").edge_pieces(edges, lo * 0, hi * np.array([2.0, 4.0, 1.0]))
    np.testing.assert_allclose(lines[1], [[2, 0], [4, 0]])


def test_polygons_contain_the_reached_nodes_and_grow_with_the_bands():
    import shapely
    w, g = random_world(8, directed=False)
    iso = w.isochrone("g", 0, [2.0, 4.0], polygons=True)
    polys = iso.polygons()
    assert len(polys) == 2 and polys[0].area < polys[1].area
    for b, poly in enumerate(polys):
        xy = g.positions[iso.nodes[iso.band <= b]]
        assert shapely.contains_xy(poly, xy[:, 0], xy[:, 1]).all()
    hull = iso.polygons(method="concave")[1]
    xy = g.positions[iso.nodes]
    assert shapely.intersects_xy(hull, xy[:, 0], xy[:, 1]).all()
    gj = iso.to_geojson(buffer=0.2)
    assert [f["properties"]["band"] for f in gj["features"]] == [1, 0]
    assert gj["features"][0]["properties"]["nodes"] == iso.nodes.size


def test_default_outlines_of_the_bands_nest_when_a_wider_band_adds_short_edges():
    # two long edges within 10, then twenty short ones from node 1 within 11:
    # the outer band's outline holds the inner one's, both widened by half
    # the median piece within the last limit (0.1)
    pos = np.zeros((23, 2))
    pos[1], pos[2] = (10, 0), (-10, 0)
    ang = np.linspace(0, np.pi, 20)
    pos[3:] = pos[1] + 0.1 * np.c_[np.cos(ang), np.sin(ang)]
    w = navcore.World()
    w.add_graph("g", type="csr", src=[0, 0] + [1] * 20, dst=[1, 2] + list(range(3, 23)),
                cost=[10.0, 10.0] + [0.1] * 20, positions=pos, directed=False)
    iso = w.isochrone("g", 0, [10.0, 11.0])
    inner, outer = iso.polygons()
    assert outer.buffer(1e-9).contains(inner)
    np.testing.assert_allclose(inner.area, iso.polygons(buffer=0.05)[0].area)


@pytest.mark.parametrize("seed", range(3))
def test_concave_outlines_of_the_bands_nest(seed):
    w, g = random_world(seed, directed=False)
    iso = w.isochrone("g", 0, [2.0, 4.0, 6.0])
    outlines = iso.polygons(method="concave")
    for b, (inner, outer) in enumerate(zip(outlines, outlines[1:])):
        assert outer.buffer(1e-9).contains(inner), b
        # each still holds what its band reaches
        pos = g.positions[iso.nodes[iso.band <= b + 1]]
        assert outer.buffer(1e-9).contains(shapely.multipoints(pos))


def test_grids_have_isochrones_through_their_csr_view():
    w = navcore.World()
    g = w.add_graph("grid", type="grid", rows=["....", ".##.", "...."])
    iso = w.isochrone("grid", (0, 0), [1, 2.5])
    nodes, costs = truth(g, [g.node_of((0, 0))], 2.5)
    assert iso.nodes.tolist() == nodes.tolist() and nodes.size > 3
    np.testing.assert_allclose(iso.costs, costs, rtol=1e-12)
    assert g.walkable[iso.nodes].all()


@pytest.mark.parametrize("call, error, words", [
    (lambda w: w.isochrone("g", 0, -1.0), navcore.QueryError, "max_cost must be a number >= 0"),
    (lambda w: w.isochrone("g", 0, float("nan")), navcore.QueryError, "got nan"),
    (lambda w: w.isochrone("g", 0, []), navcore.QueryError, "empty sequence"),
    (lambda w: w.isochrone("g", 0, [3, 1]), navcore.QueryError, "increase strictly"),
    (lambda w: w.isochrone("g", 0, "5"), navcore.QueryError, "max_cost must be a number"),
    (lambda w: w.isochrone("g", 0, [1, True]), navcore.QueryError, "max_cost[1]"),
    (lambda w: w.isochrone("g", 99, 1.0), navcore.NodeError, "99"),
    (lambda w: w.isochrone("g", -1, 1.0), navcore.NodeError, "-1"),
    (lambda w: w.isochrone("g", [], 1.0), navcore.NodeError, "source is empty"),
    (lambda w: w.isochrone("g", None, 1.0), navcore.NodeError, "source must be"),
    (lambda w: w.isochrone("g", 0, 1.0, polygons="yes"), navcore.QueryError, "polygons"),
    (lambda w: w.isochrone("nope", 0, 1.0), navcore.UnknownGraphError, "nope"),
    (lambda w: w.isochrone("g", 0, 1.0).segments(5), navcore.QueryError, "band must be"),
    (lambda w: w.isochrone("g", 0, 1.0).polygons(buffer=-1), navcore.QueryError, "buffer"),
    (lambda w: w.isochrone("g", 0, 1.0).polygons(method="x"), navcore.QueryError, "method"),
])
def test_bad_input_is_a_nav_error_that_says_what(call, error, words):
    w, _ = random_world(1)
    with pytest.raises(error) as e:
        call(w)
    assert words in str(e.value)


def test_polygons_need_positions():
    w = navcore.World()
    w.add_graph("g", type="csr", src=[0], dst=[1])
    iso = w.isochrone("g", 0, 1)
    assert iso.nodes.tolist() == [0, 1]
    with pytest.raises(navcore.QueryError, match="node positions"):
        iso.polygons()


@pytest.mark.parametrize("args, words", [
    (([5], [0.0], [1.0]), "edges"),
    (([0], [0.0, 1.0], [1.0]), "start must hold one finite cost"),
    (([0], [0.0], [np.nan]), "stop must hold one finite cost"),
    (([0], [0.0], ["a"]), "stop must be an array of numbers"),
    (([0.5], [0.0], [1.0]), "edges"),
])
def test_edge_pieces_checks_its_arguments(args, words):
    w = navcore.World()
    g = w.add_graph("g", type="csr", src=[0], dst=[1], positions=[[0, 0], [1, 0]])
    with pytest.raises(navcore.QueryError, match=words):
        g.edge_pieces(*args)
    np.testing.assert_allclose(g.edge_pieces([0], [0.25], [1.0]), [[[0.25, 0], [1, 0]]])


def test_edge_pieces_end_at_the_edges_head():
    # costs past the edge's (1.0) draw up to its head, never beyond
    w = navcore.World()
    g = w.add_graph("g", type="csr", src=[0], dst=[1], positions=[[0, 0], [2, 0]])
    np.testing.assert_allclose(g.edge_pieces([0], [0.5], [7.0]), [[[1, 0], [2, 0]]])
    np.testing.assert_allclose(g.edge_pieces([0], [3.0], [7.0]), [[[2, 0], [2, 0]]])


def test_closed_edges_stay_closed_under_an_infinite_limit():
    w = navcore.World()
    w.add_graph("g", type="csr", src=[0, 1, 0], dst=[1, 2, 3], cost=[1.0, np.inf, 2.0])
    iso = w.isochrone("g", 0, np.inf)
    assert iso.nodes.tolist() == [0, 1, 3] and np.isfinite(iso.costs).all()
    assert w.isochrone("g", [0, 2], [1, np.inf]).nodes.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("share", [0.0, 0.25, 2.0])
def test_on_a_contraction_hierarchy_the_sweep_equals_scipy(share, monkeypatch):
    import navcore_csr
    from navcore_csr import isochrone as I
    swept = []
    monkeypatch.setattr(I, "SWEEP_SHARE", share)
    real = I.swept
    monkeypatch.setattr(I, "swept", lambda *a: swept.append(1) or real(*a))
    for seed in range(4):
        w, g = random_world(20 + seed, n=80, m=260, directed=seed % 2 == 1)
        w.update("g", nodes=[3, 7], walkable=False)
        tail = int(np.searchsorted(g.csr.offsets, 0, side="right") - 1)   # edge 0's
        w.update("g", edges=[(tail, int(g.csr.targets[0]))], cost=np.inf)
        w.tick()
        navcore_csr.contract(g)
        rng = np.random.default_rng(seed)
        for k in (1, 3):
            sources = rng.choice(g.num_nodes, k, replace=False)
            for limit in (1.5, 4.0, np.inf):
                iso = w.isochrone("g", sources.tolist(), limit)
                nodes, costs = truth(g, sources, limit)
                assert iso.nodes.tolist() == nodes.tolist(), (seed, k, limit)
                np.testing.assert_allclose(iso.costs, costs, rtol=1e-12)
    assert (len(swept) > 0) == (share < 1)
