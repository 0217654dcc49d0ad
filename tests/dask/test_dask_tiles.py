"""How navcore_dask cuts a matrix into tiles, seen from the workers: every
one-to-many search of the whole matrix runs exactly once across its tiles
(undirected and directed graphs, either side the searches run from); and
what a worker keeps of a graph: nothing once the graph is removed or
collected on the client."""
import gc
import time
from pathlib import Path

import numpy as np
import pytest

from daskcluster import local_cluster

import navcore
import navcore_dask

MONACO = Path(__file__).resolve().parents[2] / "scenes" / "maps" / "monaco.osm.gz"


@pytest.fixture(scope="module")
def client():
    with local_cluster() as c:
        yield c


def _recording(client):
    """Wrap ``World.distance_matrix`` on every worker to log its calls;
    returns a function that unwraps it and gives back ``[(sources,
    targets), ...]`` of every call on every worker."""
    def install():
        import navcore as nc
        plain = nc.World.distance_matrix
        log = []

        def recorded(self, graph_id, sources, targets):
            log.append((np.asarray(sources).tolist(), np.asarray(targets).tolist()))
            return plain(self, graph_id, sources, targets)
        recorded.plain, recorded.log = plain, log
        nc.World.distance_matrix = recorded

    def collect():
        import navcore as nc
        recorded = nc.World.distance_matrix
        nc.World.distance_matrix = recorded.plain
        return recorded.log

    client.run(install)
    return lambda: [call for calls in client.run(collect).values() for call in calls]


def _searches(calls, directed):
    """Searches per node over the tiles: a tile's matrix runs one search
    per source, or per target when the graph is directed and the tile has
    fewer targets (the csr plugin's documented rule, as in one process)."""
    count: dict = {}
    for src, dst in calls:
        for node in (dst if directed and len(dst) < len(src) else src):
            count[node] = count.get(node, 0) + 1
    return count


def _grid(world):
    walk = np.random.default_rng(3).random((40, 48)) >= 0.25
    return world.add_graph("grid", type="grid", array=walk)


def _roads(world):
    return world.add_graph("roads", type="roads", osm=MONACO)


@pytest.mark.parametrize("kind, ns, nt", [("grid", 90, 40), ("grid", 40, 90),
                                          ("roads", 90, 40), ("roads", 40, 90)])
@pytest.mark.parametrize("chunk", [None, 7])
def test_each_search_runs_once_across_the_tiles(client, kind, ns, nt, chunk):
    world = navcore.World()
    g = _grid(world) if kind == "grid" else _roads(world)
    ok = np.flatnonzero(g.walkable)
    rng = np.random.default_rng(ns)
    # distinct nodes: a node listed twice is searched twice in one process too
    s = rng.choice(ok, ns, replace=False).astype(np.int32)
    t = rng.choice(ok, nt, replace=False).astype(np.int32)
    navcore_dask.distance_matrix(client, g, s[:2], t[:2])     # graph on the workers
    collect = _recording(client)
    try:
        got = navcore_dask.distance_matrix(client, g, s, t, chunk=chunk)
    finally:
        calls = collect()
    assert np.array_equal(got, world.distance_matrix(g.graph_id, s, t))
    assert len(calls) > 1                                     # it was cut
    from_targets = g.directed and nt < ns
    searched = _searches(calls, g.directed)
    assert sorted(searched) == sorted((t if from_targets else s).tolist())
    assert set(searched.values()) == {1}


def _tokens(client, graph_job):
    before = {t for w in navcore_dask.worker_counts(client).values() for t in w["arrived"]}
    graph_job()
    after = navcore_dask.worker_counts(client)
    new = {t for w in after.values() for t in w["arrived"]} - before
    assert len(new) == 1
    return new.pop()


def _wait_released(client, token, seconds=15.0):
    """Until no worker holds ``token`` and every worker that unpickled its
    graph has freed it again (releases travel asynchronously; no test
    here collects garbage on the workers)."""
    end = time.monotonic() + seconds
    while True:
        counts = navcore_dask.worker_counts(client).values()
        held = any(token in w["held"] for w in counts)
        kept = any(w["loaded"].get(token, 0) != w["freed"].get(token, 0) for w in counts)
        if not held and not kept:
            return
        assert time.monotonic() < end, f"the workers still keep {token}: {list(counts)}"
        time.sleep(0.05)


def test_a_removed_graph_leaves_the_workers(client):
    world = navcore.World()
    g = _grid(world)
    s = np.flatnonzero(g.walkable)[:20].astype(np.int32)
    token = _tokens(client, lambda: navcore_dask.distance_matrix(client, g, s, s, chunk=5))
    counts = navcore_dask.worker_counts(client)
    assert any(token in w["held"] for w in counts.values())
    assert sum(w["loaded"].get(token, 0) for w in counts.values()) >= 1
    world.remove_graph("grid")
    _wait_released(client, token)


def test_a_graph_dropped_with_its_world_leaves_the_workers(client):
    world = navcore.World()
    g = _grid(world)
    s = np.flatnonzero(g.walkable)[:20].astype(np.int32)
    token = _tokens(client, lambda: navcore_dask.distance_matrix(client, g, s, s, chunk=5))
    assert any(token in w["held"] for w in navcore_dask.worker_counts(client).values())
    del world, g                   # no remove_graph, no update: only the collector sees it
    gc.collect()
    _wait_released(client, token)
