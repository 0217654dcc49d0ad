"""The scheduler's batches on road graphs: a frame's ``ch`` and ``cch``
requests between junctions are answered in one pass of the hierarchy's
many-pairs kernels, each exactly as ``find_path`` answers it (route, drawn
road, cost, ``expanded``), whatever the graph keeps (every junction or
chains of road points, coordinates or none); requests from or to a point
on a road, and the other searches, are still answered one at a time; the
costs are scipy's."""
import numpy as np
import pytest

import navcore
import navcore_roads
from navcore import PathStatus
from navcore.types import PathBatch

from roadlike import roadlike
from roadtruth import scipy_distances


def _world(shape_nodes=False, positions=True, n=400, seed=5, workers=0):
    """A road-like graph; with ``shape_nodes`` every road gets a point
    halfway along it (compressed away: each edge is a chain of two
    segments, its drawn road has more points than junctions)."""
    off, tg, wt, lon, lat = roadlike(n, seed)
    src = np.repeat(np.arange(off.size - 1), np.diff(off))
    dst = tg.astype(np.int64)
    lon, lat = 24.9 + lon / 1e5, 60.1 + lat / 1e5
    if shape_nodes:
        mid = lon.size + np.arange(src.size)
        lon = np.concatenate((lon, (lon[src] + lon[dst]) / 2))
        lat = np.concatenate((lat, (lat[src] + lat[dst]) / 2))
        src, dst = np.concatenate((src, mid)), np.concatenate((mid, dst))
        wt = np.concatenate((wt / 2, wt / 2))
    w = navcore.World(workers=workers)
    kw = {"positions": np.column_stack((lon, lat))} if positions else {"length": wt}
    g = w.add_graph("r", type="roads", src=src, dst=dst, cost=wt, keep="all",
                    compress=shape_nodes, **kw)
    assert g.one_segment_edges is (not shape_nodes)
    return w, g


def _pairs(g, k=60, seed=1):
    rng = np.random.default_rng(seed)
    pairs = [tuple(map(int, p)) for p in rng.integers(0, g.num_nodes, (k, 2))]
    return pairs + [(pairs[0][0], pairs[0][0])]          # a route to itself


def _served(w, pairs, algorithm):
    hs = [w.request_path("r", a, b, algorithm=algorithm) for a, b in pairs]
    for _ in range(200):
        if all(h.done for h in hs):
            break
        w.tick(1 / 60)
    return [h.result() for h in hs]


def _same(a, b):
    assert (a.status, a.cost, a.expanded, a.algorithm) == \
        (b.status, b.cost, b.expanded, b.algorithm)
    assert a.nodes.tolist() == b.nodes.tolist()
    assert np.array_equal(a.points, b.points, equal_nan=True)


@pytest.mark.parametrize("algorithm", ["ch", "cch"])
@pytest.mark.parametrize("shape_nodes,positions", [(False, True), (True, True),
                                                   (False, False)])
def test_batched_routes_are_find_paths(algorithm, shape_nodes, positions, monkeypatch):
    w, g = _world(shape_nodes, positions)
    navcore_roads.contract(g, progress=False, customizable=algorithm == "cch")
    pairs = _pairs(g)
    batched = []
    spied = navcore_roads.search.hierarchy_routes

    def spy(view, name, batch):
        spied(view, name, batch)
        batched.extend(i for i in range(len(batch)) if batch.result(i) is not None)
    monkeypatch.setattr(navcore_roads.search, "hierarchy_routes", spy)
    got = _served(w, pairs, algorithm)
    assert len(batched) > len(pairs) // 2          # most went through the batches
    truth = scipy_distances(g, [a for a, _ in pairs])
    found = 0
    for (a, b), r, row in zip(pairs, got, truth):
        _same(r, w.find_path("r", a, b, algorithm=algorithm))
        if np.isfinite(row[b]):
            found += 1
            assert r.status is PathStatus.FOUND
            assert r.cost == pytest.approx(row[b], rel=1e-9)
        else:
            assert r.status is PathStatus.UNREACHABLE
    assert found > len(pairs) // 2


def test_routes_from_points_are_left_to_find_path():
    """A (lon, lat) end starts on the road itself (a phantom node), not at
    the junction it resolves to: such entries stay out of the batch."""
    w, g = _world()
    navcore_roads.contract(g, progress=False)
    pts = g.positions[[3, 40]] + 2e-5
    ends = [(tuple(pts[0]), 77), (5, 90), (12, tuple(pts[1]))]
    got = _served(w, ends, "ch")
    for (a, b), r in zip(ends, got):
        _same(r, w.find_path("r", a, b, algorithm="ch"))
    b = PathBatch("r", "ch", np.array([1, 2], np.int32), np.array([3, 4], np.int32),
                  nodes_given=lambda: [False, True])
    w.plugins.hook.navcore_find_paths(world=w, graph=g, batch=b)
    assert b.result(0) is None and b.result(1) is not None


def test_batches_on_worker_threads_are_find_paths():
    w, g = _world(workers=2)
    navcore_roads.contract(g, progress=False)
    pairs = _pairs(g, k=150, seed=4)
    for (a, b), r in zip(pairs, _served(w, pairs, "ch")):
        _same(r, w.find_path("r", a, b, algorithm="ch"))
    w.close()


@pytest.mark.parametrize("algorithm", ["ch", "cch"])
def test_many_pairs_report_what_each_query_expanded(algorithm, monkeypatch):
    """``paths(..., expanded)`` on this thread and on two: the nodes each
    pair's query went through, as the single query's ``settled``."""
    import navcore.parallel
    w, g = _world()
    view = navcore_roads.contract(g, progress=False, customizable=algorithm == "cch")
    pairs = np.array(_pairs(g, k=100), dtype=np.int32)
    q = view.query()
    single = []
    for a, b in pairs:
        cost, edges = q.path(int(a), int(b))
        single.append((cost, edges.tolist(), q.settled))
    monkeypatch.setattr(navcore.parallel, "_running", lambda: 1)    # both cores free
    for workers in (0, 2):
        g.workers = workers
        assert navcore.parallel.threads_for(g, len(pairs), 64) == max(workers, 1)
        expanded = np.zeros(len(pairs), np.int64)
        costs, offsets, edges = view.query().paths(pairs[:, 0], pairs[:, 1], expanded)
        for i, (cost, path, settled) in enumerate(single):
            assert costs[i] == cost
            assert edges[offsets[i]:offsets[i + 1]].tolist() == path
            assert expanded[i] == settled


def test_answer_with_point_offsets():
    b = PathBatch("g", "ch", np.array([0, 1], np.int32), np.array([2, 1], np.int32))
    pts = np.arange(10.0).reshape(5, 2)
    b.answer([0, 1], cost=[2.0, 0.0], expanded=[3, 1], nodes=np.array([0, 2, 1], np.int32),
             offsets=[0, 2, 3], points=pts, algorithm="ch", point_offsets=[0, 4, 5])
    assert b.result(0).points.tolist() == pts[:4].tolist()
    assert b.results()[1].points.tolist() == pts[4:].tolist()
    b = PathBatch("g", "ch", np.array([0], np.int32), np.array([2], np.int32))
    with pytest.raises(navcore.errors.PluginError, match="point offsets"):
        b.answer([0], cost=[2.0], expanded=[3], nodes=np.array([0, 2], np.int32),
                 offsets=[0, 2], points=pts, algorithm="ch", point_offsets=[0, 4])


@pytest.mark.parametrize("algorithm", ["ch", "cch"])
@pytest.mark.parametrize("bad", [np.zeros(1, np.int64), np.zeros(3, np.float64),
                                 np.zeros(3, np.int32), [0, 0, 0]])
def test_many_pairs_refuse_an_expanded_array_they_cannot_fill(algorithm, bad):
    """The kernels write every entry unchecked: a short or mistyped array
    is a QueryError, never a write past its end."""
    w, g = _world()
    view = navcore_roads.contract(g, progress=False, customizable=algorithm == "cch")
    s = np.array([1, 2, 3], np.int32)
    with pytest.raises(navcore.errors.QueryError, match="expanded must be a writable int64"):
        view.query().paths(s, s[::-1].copy(), bad)
