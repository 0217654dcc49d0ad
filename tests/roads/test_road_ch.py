"""Contraction hierarchies on road graphs, through the world: exact
against the truth and scipy, never used stale, saved and loaded only into
the graph they were built for."""
import numpy as np
import pytest

import navcore
import navcore_roads

from roadtruth import NAMES, ROADS, close, matrix, need, pairs, scipy_distances


def dimacs(name, **params):
    need(name)
    w = navcore.World()
    g = w.add_graph(name, type="roads", dimacs=ROADS / f"{name}.gr",
                    coords=ROADS / f"{name}.co", keep="all", **params)
    return w, g


@pytest.mark.parametrize("name", NAMES)
def test_hierarchy_answers_the_truth_exactly(name):
    w, g = dimacs(name, contract=True)
    assert navcore_roads.ch.current(g) is not None
    p = pairs(name)
    s, t = p["source"].astype(int), p["target"].astype(int)
    got = [w.find_path(name, int(a), int(b)) for a, b in zip(s[:100], t[:100])]
    assert {r.algorithm for r in got} == {"ch"}
    assert np.array_equal([r.cost for r in got], p["dimacs_dm"][:100])
    assert np.array_equal(w.distance_pairs(name, s, t), p["dimacs_dm"])
    m = matrix(name)
    assert np.array_equal(w.distance_matrix(name, m["sources"], m["targets"]), m["dimacs_dm"])
    assert np.array_equal(w.distance_matrix(name, m["sources"][:5], m["targets"]),
                          m["dimacs_dm"][:5])
    anyp = pairs(name, "pairs_any")
    assert np.array_equal(w.distance_pairs(name, anyp["source"].astype(int),
                                           anyp["target"].astype(int)), anyp["dimacs_dm"])
    # routes are walks on the graph whose edges add up to the cost
    for r in got[:20]:
        edges = g.path_edges(r.nodes)
        assert (edges >= 0).all() and g.csr.cost[edges].sum() == r.cost


def test_updates_make_it_stale_and_a_rebuild_is_exact_again():
    w, g = dimacs("monaco")
    h = navcore_roads.contract(g)
    rng = np.random.default_rng(1)
    ways = rng.choice(g.num_nodes, 6, replace=False)
    w.update("monaco", nodes=ways[:3].tolist(), walkable=False)
    w.update("monaco", bbox=tuple(g.positions[ways[3]] - 0.001) + tuple(g.positions[ways[3]]
                                                                        + 0.001),
             factor=4.0)
    w.tick()
    assert not h.current
    s, t = rng.integers(0, g.num_nodes, 30), rng.integers(0, g.num_nodes, 30)
    ref = scipy_distances(g, s)
    assert w.find_path("monaco", int(s[0]), int(t[0])).algorithm == "bidijkstra"
    with pytest.raises(navcore.QueryError, match="stale"):
        w.find_path("monaco", int(s[0]), int(t[0]), algorithm="ch")
    assert close(w.distance_pairs("monaco", s, t), ref[np.arange(30), t])  # fallback, exact
    h2 = navcore_roads.contract(g)                     # blocked junctions left out
    assert h2.current
    assert close(w.distance_pairs("monaco", s, t), ref[np.arange(30), t])
    assert close(w.distance_matrix("monaco", s, t), ref[:, t])
    got = [w.find_path("monaco", int(a), int(b), algorithm="ch").cost for a, b in zip(s, t)]
    walk = g.walkable
    want = np.where(walk[s] & walk[t], ref[np.arange(30), t], np.inf)
    got = np.where(walk[s] & walk[t], got, np.inf)
    assert close(got, want)


def test_no_hierarchy_is_a_query_error_naming_contract():
    w, g = dimacs("helsinki")
    with pytest.raises(navcore.QueryError, match="no contraction hierarchy.*contract"):
        w.find_path("helsinki", 0, 5, algorithm="ch")
    assert "ch" in w.algorithms("helsinki")


def test_save_and_load_only_into_the_graph_it_was_built_for(tmp_path):
    w, g = dimacs("helsinki")
    h = navcore_roads.contract(g)
    path = tmp_path / "h.npz"
    h.save(path)
    w2, g2 = dimacs("helsinki")
    h2 = navcore_roads.load_hierarchy(g2, path)
    m = matrix("helsinki")
    assert np.array_equal(w2.distance_matrix("helsinki", m["sources"], m["targets"]),
                          m["dimacs_dm"])
    assert h2.current and h2.fingerprint == h.fingerprint
    w3, g3 = dimacs("helsinki", weight="time")
    w3.update("helsinki", nodes=[4], walkable=False)
    w3.tick()
    with pytest.raises(navcore.GraphError, match="another graph or other costs"):
        navcore_roads.load_hierarchy(g3, path)
    _, other = dimacs("monaco")
    with pytest.raises(navcore.GraphError, match="another graph"):
        navcore_roads.load_hierarchy(other, path)
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(navcore.GraphError, match="not a saved road hierarchy"):
        navcore_roads.load_hierarchy(g2, bad)
    np.savez(bad, x=np.zeros(3))
    with pytest.raises(navcore.GraphError, match="not a saved road hierarchy"):
        navcore_roads.load_hierarchy(g2, bad)
    with pytest.raises(navcore.GraphError, match="road graph"):
        navcore_roads.contract(navcore.World().add_graph("c", type="csr", src=[0], dst=[1]))


def test_a_scheduler_job_rebuilds_it_without_blocking_and_progress_is_told():
    w = navcore.World(workers=2)
    need("monaco")
    g = w.add_graph("m", type="roads", osm=ROADS / "monaco.osm.gz")
    seen = []
    job = w.scheduler.schedule(lambda: navcore_roads.contract(
        g, progress=lambda done, total: seen.append((done, total))))
    h = job.complete(timeout=120)
    assert h.current and seen and seen[-1][0] == seen[-1][1] == g.num_nodes
    assert w.find_path("m", 0, g.num_nodes - 1).algorithm == "ch"
    w.close() if hasattr(w, "close") else None
