"""A customizable hierarchy whose customization does not fit the frame
budget: customized by a scheduler job while ``auto`` answers by
bidirectional search, swapped in at a tick; answers exact (scipy on the
updated costs) before, during and after, a newer batch never lost."""
import time

import numpy as np
import pytest

import navcore
import navcore_roads
from navcore_roads import cch

from roadtruth import close, need, scipy_distances
from test_cch import random_batch


def jobs_world(name, budget_ms=1e-6, workers=1):
    d = np.load(need(name))
    w = navcore.World(workers=workers, frame_budget_ms=budget_ms)
    g = w.add_graph(name, type="roads", src=d["src"], dst=d["dst"], length=d["length_m"],
                    speed=d["speed_kmh"], positions=np.column_stack((d["lon"], d["lat"])),
                    keep="all")
    return w, g


def assert_exact(w, gid, g, rng, algorithm, k=25):
    n = g.num_nodes
    s, t = rng.integers(0, n, k), rng.integers(0, n, k)
    ref = scipy_distances(g, s)
    assert close(w.distance_pairs(gid, s, t), ref[np.arange(k), t])
    assert close(w.distance_matrix(gid, s[:6], t), ref[:6][:, t])
    for i in range(4):
        if not (g.walkable[s[i]] and g.walkable[t[i]]):
            continue
        r = w.find_path(gid, int(s[i]), int(t[i]))
        if np.isinf(ref[i, t[i]]):
            assert not r.found
            continue
        assert r.algorithm == algorithm and close(r.cost, ref[i, t[i]])


def test_slow_customization_runs_as_a_job_and_answers_stay_exact():
    w, g = jobs_world("monaco")
    h = navcore_roads.contract(g, customizable=True)
    assert h.estimate_seconds() > 1e-9          # the build's customization, measured
    rng = np.random.default_rng(5)
    closed = set()
    for batch in range(6):
        random_batch(w, "monaco", g, rng, closed)
        w.tick()
        # swapped in at the start of a tick only: stale now, never answering
        assert not h.current and cch.current(g) is None
        assert_exact(w, "monaco", g, rng, "bidijkstra")
        assert h.wait(60)
        assert not h.current                    # done, but it waits for a tick
        assert_exact(w, "monaco", g, rng, "bidijkstra")
        w.tick()
        assert h.current and cch.current(g) is h and not h.customizing
        assert_exact(w, "monaco", g, rng, "cch")
    assert h.background_customizations == 6


def test_a_batch_arriving_while_the_job_runs_is_not_lost():
    w, g = jobs_world("helsinki")
    h = navcore_roads.contract(g, customizable=True)
    rng = np.random.default_rng(6)
    e = [(int(g.edge_src[i]), int(g.csr.targets[i])) for i in rng.integers(0, 2000, 8)]
    with h._customizing:                        # hold the job inside its customization
        w.update("helsinki", edges=e[:4], cost=float("inf"))
        w.tick()
        assert h.customizing
        # the job thread has taken the first costs (and waits for the lock)
        # before the next batches come: on a loaded machine it may start
        # late, and then it only ever sees the newest costs
        deadline = time.monotonic() + 60
        while h._next is not None and time.monotonic() < deadline:
            time.sleep(0.001)
        assert h._next is None
        w.update("helsinki", edges=e[4:], factor=4.0)
        w.tick()
        w.update("helsinki", edges=e[:2], reset=True)
        w.tick()
        assert not h.current
        assert_exact(w, "helsinki", g, rng, "bidijkstra")
    assert h.wait(60)
    w.tick()
    assert h.current and h.version == g.version
    assert_exact(w, "helsinki", g, rng, "cch")
    # the first job's costs, then the newest (the middle batch superseded)
    assert h.background_customizations == 2


def test_customization_fitting_the_budget_stays_inline():
    w, g = jobs_world("helsinki", budget_ms=1e4)
    h = navcore_roads.contract(g, customizable=True)
    w.update("helsinki", edges=[(int(g.edge_src[3]), int(g.csr.targets[3]))],
             cost=float("inf"))
    w.tick()
    assert h.current and h.background_customizations == 0
    assert_exact(w, "helsinki", g, np.random.default_rng(8), "cch")


def test_a_world_without_workers_or_a_deterministic_one_customizes_inline():
    for kw in ({"workers": 0}, {"workers": 1, "deterministic": True}):
        d = np.load(need("helsinki"))
        w = navcore.World(frame_budget_ms=1e-6, **kw)
        g = w.add_graph("h", type="roads", src=d["src"], dst=d["dst"], length=d["length_m"],
                        speed=d["speed_kmh"], keep="all")
        h = navcore_roads.contract(g, customizable=True)
        w.update("h", edges=[(int(g.edge_src[3]), int(g.csr.targets[3]))], factor=3.0)
        w.tick()
        assert h.current and h.background_customizations == 0


@pytest.mark.nojit
def test_small_graph_kernels_parallel_and_sequential_agree_and_answer_exactly():
    from navcore_roads import _cch as K
    from roadlike import roadlike
    off, tg, wt, lon, lat = roadlike(150, 3)
    w = navcore.World(workers=1, frame_budget_ms=1e-6)
    src = np.repeat(np.arange(off.size - 1), np.diff(off))
    g = w.add_graph("s", type="roads", src=src, dst=tg, length=wt, cost=wt,
                    positions=np.column_stack((lon / 1e5, lat / 1e5)), keep="all")
    h = navcore_roads.contract(g, customizable=True)
    t = h.topology
    got = []
    for parallel in (False, True):
        m = cch.Metric(t)
        K.customize(t.arrays, g.csr.cost.copy(), np.zeros((2, t.num_nodes), dtype=np.int64),
                    parallel, m.weights)
        got.append((m.w_up.copy(), m.w_down.copy(), m.mid_up.copy()))
    for a, b in zip(*got):
        assert np.array_equal(a, b)
    rng = np.random.default_rng(4)
    for perfect in (False, True):
        h.perfect = perfect
        e = rng.integers(0, g.csr.num_edges, 5)
        w.update("s", edges=[(int(g.edge_src[i]), int(g.csr.targets[i])) for i in e],
                 factor=3.0)
        w.tick()
        assert h.wait(60)
        w.tick()
        assert h.current
        assert_exact(w, "s", g, rng, "cch", k=12)
