"""Contraction hierarchies (plain and customizable) on hop-weight city
street graphs, where every edge costs 1 and equal-length paths are
everywhere (the shape of PACE16's New York graph), against scipy."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

import navcore
import navcore_roads
from navcore_csr.hierarchy import DirectedHierarchy
from roadtruth import close, scipy_distances

_GEN = Path(__file__).resolve().parents[2] / "bench" / "citygen.py"


def make_city(**kw):
    spec = importlib.util.spec_from_file_location("citygen", _GEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.make_city(**kw)


def csr(n, src, dst, w):
    o = np.lexsort((dst, src))
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.add.at(offsets, src[o] + 1, 1)
    return np.cumsum(offsets), dst[o].astype(np.int32), w[o].astype(np.float64)


def test_city_hierarchy_answers_like_scipy():
    n = 1600
    g = make_city(nodes=n, seed=5)
    offsets, targets, weights = csr(n, g["src"], g["dst"], g["w"])
    h = DirectedHierarchy.build(offsets, targets, weights)
    # an equal-length witness replaces a shortcut (RoutingKit's rule: its
    # ch-router adds as many here); demanding a strictly shorter one added
    # about twice as many (8,136 shortcuts for 4,335 arcs)
    assert h.num_shortcuts < 1.2 * targets.shape[0]
    q = h.query()
    rng = np.random.default_rng(5)
    s, t = rng.integers(0, n, 40), rng.integers(0, n, 60)
    d = dijkstra(csr_matrix((weights, targets, offsets), shape=(n, n)), indices=s)
    assert np.array_equal(q.matrix(s, t), d[:, t])         # integer sums: exact
    assert np.array_equal(q.distances(s, t[:40]), d[np.arange(40), t[:40]])
    for i in range(40):
        cost, edges = q.path(int(s[i]), int(t[i]))
        assert cost == d[i, t[i]]
        if np.isfinite(cost):
            assert edges.shape[0] == cost                  # hop weights: one per edge
            assert np.array_equal(offsets.searchsorted(edges, "right")[1:] - 1,
                                  targets[edges[:-1]])     # consecutive edges chain


@pytest.mark.parametrize("customizable", [False, True])
def test_city_roads_ch_and_cch_equal_scipy(customizable):
    n = 1200
    g = make_city(nodes=n, seed=11)
    w = navcore.World()
    rg = w.add_graph("c", type="roads", src=g["src"], dst=g["dst"], cost=g["w"],
                     length=g["w"], keep="all")
    navcore_roads.contract(rg, customizable=customizable)
    rng = np.random.default_rng(11)
    s, t = rng.integers(0, n, 30), rng.integers(0, n, 30)
    ref = scipy_distances(rg, s)
    assert close(w.distance_pairs("c", s, t), ref[np.arange(30), t], rel=0)
    assert close(w.distance_matrix("c", s[:8], t), ref[:8][:, t], rel=0)
    algorithm = "cch" if customizable else "ch"
    for i in range(5):
        r = w.find_path("c", int(s[i]), int(t[i]))
        if np.isinf(ref[i, t[i]]):
            assert not r.found
            continue
        assert r.algorithm == algorithm and r.cost == ref[i, t[i]]
        edges = rg.path_edges(r.nodes)
        assert (edges >= 0).all() and rg.csr.cost[edges].sum() == r.cost
