"""Partial customization of the customizable hierarchy: after a batch of
cost changes only the arcs the changed edges reach are computed again.
Every metric it leaves must equal, bit for bit (weights, triangles, input
edges), a whole customization from scratch for the same costs, on the
shared extracts and a generated road-like graph, for random batches of
closures, slowdowns, speed-ups and restores, basic and perfect; routes
after them equal scipy's Dijkstra; and through ``World.update`` the
partial pass is what runs when a batch is small, the whole one when the
batch reaches too many arcs."""
import numpy as np
import pytest

import navcore
import navcore_roads
from navcore.errors import GraphError
from navcore_roads import cch

from roadlike import roadlike
from roadtruth import NAMES
from test_cch import check_exact, timed_graph

FIELDS = ("w_up", "w_down", "mid_up", "mid_down", "src_up", "src_down")


def whole(view):
    """A whole customization from scratch for the costs ``view``'s metric holds."""
    topo = view.topology
    m = cch.Metric(topo)
    marks = np.full((1, topo.num_nodes), -1, dtype=np.int64)
    return m.compute(topo, view.metric.cost, marks, view.perfect, 0)


def assert_same_as_whole(view):
    got, want = view.metric, whole(view)
    fields = FIELDS + (("b_up", "b_down") if view.perfect else ())
    for f in fields:
        a, b = getattr(got, f), getattr(want, f)
        assert a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8)), f


def random_batch(g, base, rng, k):
    """``k`` random edges closed, slowed, sped up or restored to ``base``."""
    e = rng.choice(g.csr.num_edges, k, replace=False)
    kind = int(rng.integers(0, 4))
    now = g.csr.cost[e]
    new = (np.full(k, np.inf), now * rng.uniform(1.0, 4.0, k), now * rng.uniform(0.3, 1.0, k),
           base[e])[kind]
    new = np.where(np.isinf(now) & (kind != 3), base[e] * 2.0, new)   # reopen some
    return e, new


def roadlike_world(n=3000, seed=7):
    offsets, targets, weights, lon, lat = roadlike(n, seed)
    src = np.repeat(np.arange(offsets.shape[0] - 1), np.diff(offsets))
    w = navcore.World()
    g = w.add_graph("gen", type="roads", src=src, dst=targets, cost=weights,
                    positions=np.column_stack((lon / 1e5, lat / 1e5)), keep="all", compress=False)
    return w, g


def worlds():
    for name in NAMES:
        yield name, timed_graph(name)
    yield "gen", roadlike_world()


@pytest.mark.parametrize("perfect", [False, True])
def test_partial_customization_equals_a_whole_one_bit_for_bit(perfect, monkeypatch):
    # a budget that lets the small graphs' batches run partially
    monkeypatch.setattr(cch, "PARTIAL_MAX_FRACTION", 0.5)
    rng = np.random.default_rng(11 + perfect)
    for gid, (w, g) in worlds():
        view = navcore_roads.contract(g, customizable=True)
        view.follow_updates = False
        view.perfect = perfect
        base = g.csr.cost.copy()
        partial = 0
        for step in range(24):
            e, new = random_batch(g, base, rng, int(rng.integers(1, 12)))
            g.csr.set_cost(e, new)
            g.version += 1
            view.customize()
            partial += view.metric.recomputed >= 0
            assert view.metric.perfect == perfect
            assert_same_as_whole(view)
            if step % 8 == 7:
                check_exact(w, gid, g, rng, k=20, rows=4)
        assert partial >= 12, (gid, partial)         # the partial pass really ran


def test_world_updates_customize_partially_and_stay_exact(monkeypatch):
    monkeypatch.setattr(cch, "PARTIAL_MAX_FRACTION", 0.5)
    rng = np.random.default_rng(5)
    w, g = timed_graph("helsinki")
    view = navcore_roads.contract(g, customizable=True)
    first = [(int(g.edge_src[0]), int(g.csr.targets[0]))]
    w.update("helsinki", edges=first, factor=2.0)               # a second metric to fill
    w.tick()
    n = g.num_nodes
    for step in range(6):
        e = rng.choice(g.csr.num_edges, 3, replace=False)
        pairs = [(int(g.edge_src[i]), int(g.csr.targets[i])) for i in e]
        if step % 3 == 2:
            w.update("helsinki", edges=pairs, reset=True)
        else:
            w.update("helsinki", edges=pairs, factor=float(rng.uniform(0.5, 3.0)))
        w.tick()
        assert view.current
        assert 0 <= view.stats()["recomputed_arcs"] < view.topology.num_arcs
        assert_same_as_whole(view)
        check_exact(w, "helsinki", g, rng, k=15, rows=3)
    # junctions blocked: their roads close, partially too
    w.update("helsinki", nodes=rng.choice(n, 2, replace=False), walkable=False)
    w.tick()
    assert view.current and view.stats()["recomputed_arcs"] >= 0
    assert_same_as_whole(view)
    check_exact(w, "helsinki", g, rng, k=15, rows=3)


def test_a_batch_reaching_many_arcs_runs_the_whole_pass(monkeypatch):
    w, g = roadlike_world(2000, seed=3)
    view = navcore_roads.contract(g, customizable=True)
    view.follow_updates = False
    view.customize()                                   # both metrics filled once
    g.csr.set_cost(np.arange(g.csr.num_edges), g.csr.cost * 1.5)   # every road slower
    g.version += 1
    view.customize()
    assert view.metric.recomputed == -1                # gave up: the whole pass ran
    assert_same_as_whole(view)
    g.csr.set_cost(np.array([0]), g.csr.cost[:1] * 2.0)
    g.version += 1
    view.customize()                                   # the other metric: still every road
    assert view.metric.recomputed == -1
    g.version += 1
    view.customize()                                   # one road since this metric's costs
    assert view.metric.recomputed >= 1
    assert_same_as_whole(view)
    g.version += 1
    view.customize(partial=False)
    assert view.metric.recomputed == -1
    assert_same_as_whole(view)
    check_exact(w, "gen", g, np.random.default_rng(0))


def test_no_change_recomputes_nothing():
    w, g = roadlike_world(1000, seed=1)
    view = navcore_roads.contract(g, customizable=True)
    view.follow_updates = False
    for _ in range(2):
        g.version += 1
        view.customize()
    assert view.metric.recomputed == 0
    assert_same_as_whole(view)


def test_partial_flag_is_strict():
    w, g = roadlike_world(500, seed=2)
    view = navcore_roads.contract(g, customizable=True)
    for bad in ("yes", 1, None):
        with pytest.raises(GraphError, match="partial must be True or False"):
            view.customize(partial=bad)
    assert view.current
