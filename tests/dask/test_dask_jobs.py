"""navcore_dask on a LocalCluster of 2 worker processes: matrices, pairs
and path batches equal what one process answers (and scipy, for a grid),
for grids and road networks, hierarchies on and off; the graph crosses to
the workers once per version; bad input is a NavError before any tile."""
from pathlib import Path

import numpy as np
import pytest

from daskcluster import local_cluster, navcore_keys

import navcore
import navcore_csr
import navcore_dask
import navcore_roads

MONACO = Path(__file__).resolve().parents[2] / "scenes" / "maps" / "monaco.osm.gz"


@pytest.fixture(scope="module")
def client():
    with local_cluster() as c:
        yield c


def _grid(world, gid="grid", ch=False):
    walk = np.random.default_rng(3).random((40, 48)) >= 0.25
    g = world.add_graph(gid, type="grid", array=walk)
    if ch:
        navcore_csr.contract(g)
    return g


def _roads(world, gid="roads", hierarchy=None):
    g = world.add_graph(gid, type="roads", osm=MONACO)
    if hierarchy == "ch":
        navcore_roads.contract(g)
    elif hierarchy == "cch":
        navcore_roads.contract(g, customizable=True)
    return g


GRAPHS = {"grid": lambda w: _grid(w), "grid-ch": lambda w: _grid(w, ch=True),
          "roads": lambda w: _roads(w), "roads-ch": lambda w: _roads(w, hierarchy="ch"),
          "roads-cch": lambda w: _roads(w, hierarchy="cch")}


def _ends(graph, k, seed):
    rng = np.random.default_rng(seed)
    ok = np.flatnonzero(graph.walkable)
    return rng.choice(ok, k).astype(np.int32), rng.choice(ok, k).astype(np.int32)


@pytest.mark.parametrize("kind", sorted(GRAPHS))
@pytest.mark.parametrize("chunk", [None, 7, (5, 11)])
def test_matrix_equals_one_process(client, kind, chunk):
    world = navcore.World()
    g = GRAPHS[kind](world)
    s, t = _ends(g, 60, 1)
    t = t[:45]
    want = world.distance_matrix(g.graph_id, s, t)
    got = navcore_dask.distance_matrix(client, g, s, t, chunk=chunk)
    assert got.shape == (60, 45) and np.isfinite(want).any()
    if isinstance(chunk, tuple) and kind == "roads":
        # 5 x 11 tiles search from their sources, the whole 60 x 45 matrix
        # from its targets: the same costs up to rounding (documented)
        assert np.allclose(got, want, rtol=1e-12, atol=0)
        assert np.array_equal(np.isinf(got), np.isinf(want))
    else:
        assert np.array_equal(got, want)
    # more sources than targets: the searches run from the targets
    got = navcore_dask.distance_matrix(client, g, t, s)
    assert np.array_equal(got, world.distance_matrix(g.graph_id, t, s))


def test_grid_matrix_against_scipy(client):
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra
    world = navcore.World()
    g = _grid(world)
    s, t = _ends(g, 30, 2)
    csr = g.csr
    n = g.num_nodes
    m = csr_matrix((csr.cost, csr.targets, csr.offsets), shape=(n, n))
    truth = dijkstra(m, indices=s)[:, t]
    got = navcore_dask.distance_matrix(client, g, s, t, chunk=4)
    assert np.allclose(got, truth, rtol=1e-12) and np.array_equal(np.isinf(got), np.isinf(truth))


@pytest.mark.parametrize("kind", ["grid", "roads", "roads-ch"])
def test_pairs_equal_one_process(client, kind):
    world = navcore.World()
    g = GRAPHS[kind](world)
    s, t = _ends(g, 200, 4)
    got = navcore_dask.distance_pairs(client, g, s, t, chunk=33)
    assert np.array_equal(got, world.distance_pairs(g.graph_id, s, t))


@pytest.mark.parametrize("kind", ["grid", "grid-ch", "roads", "roads-ch", "roads-cch"])
def test_paths_equal_one_process(client, kind):
    world = navcore.World()
    g = GRAPHS[kind](world)
    s, t = _ends(g, 40, 5)
    got = navcore_dask.find_paths(client, g, s, t, chunk=9)
    assert len(got) == 40
    for a, b, r in zip(s, t, got):
        want = world.find_path(g.graph_id, int(a), int(b))
        assert (r.status, r.cost, r.algorithm, r.expanded) == \
            (want.status, want.cost, want.algorithm, want.expanded)
        assert np.array_equal(r.nodes, want.nodes) and np.array_equal(r.points, want.points)


def test_paths_with_points_blocked_ends_and_an_algorithm(client):
    world = navcore.World()
    g = _grid(world)
    blocked = int(np.flatnonzero(~g.walkable)[0])
    starts = [(1.5, 1.5), blocked, 5, (200.0, 3.0)]
    goals = [(30.5, 20.5), 7, blocked, 9]
    got = navcore_dask.find_paths(client, g, starts, goals, algorithm="astar")
    for a, b, r in zip(starts, goals, got):
        want = world.find_path("grid", a, b, algorithm="astar")
        assert (r.status, r.cost) == (want.status, want.cost)
    assert [r.status.value for r in got[1:]] == ["invalid_start", "invalid_goal",
                                                  "invalid_start"]


def test_matrix_from_points_on_roads(client):
    world = navcore.World()
    g = _roads(world, hierarchy="ch")
    pts = [(7.4165, 43.7285), (7.4335, 43.7445), (7.42, 43.735)]
    assert np.array_equal(navcore_dask.distance_matrix(client, g, pts, pts),
                          world.distance_matrix("roads", pts, pts))


def test_navmesh_matrices_measure_from_the_points(client):
    # the tiles get the caller's points, not their polygons: a navmesh
    # answers exact lengths between points (a polygon id: its centroid)
    world = navcore.World()
    g = world.add_graph("yard", type="navmesh", bounds=(0, 0, 20, 10),
                        obstacles=[[(5, 2), (8, 2), (8, 6), (5, 6)]])
    pts = np.array([(1.0, 1.0), (18.0, 8.0), (1.0, 4.0), (12.5, 3.25), (6.5, 9.0)])
    want = world.distance_matrix("yard", pts, pts[::-1])
    assert want[0, 3] == pytest.approx(world.find_path("yard", (1, 1), (18, 8)).cost)
    assert np.array_equal(navcore_dask.distance_matrix(client, g, pts, pts[::-1], chunk=2),
                          want)
    assert np.array_equal(navcore_dask.distance_pairs(client, g, pts, pts[::-1], chunk=2),
                          np.diag(want))
    lazy = navcore_dask.distance_matrix(client, g, pts, pts[::-1], chunk=(2, 3), lazy=True)
    assert np.array_equal(lazy.compute(), want)
    mixed = [0, (1.0, 1.0), 3]
    assert np.array_equal(navcore_dask.distance_matrix(client, g, mixed, pts, chunk=1),
                          world.distance_matrix("yard", mixed, pts))


def test_lazy_matrix_is_a_dask_array_of_tiles(client):
    import dask.array as da
    world = navcore.World()
    g = _roads(world, hierarchy="ch")
    s, t = _ends(g, 50, 6)
    lazy = navcore_dask.distance_matrix(client, g, s, t, chunk=(20, 30), lazy=True)
    assert isinstance(lazy, da.Array) and lazy.chunks == ((20, 20, 10), (30, 20))
    want = world.distance_matrix("roads", s, t)
    # reduced on the cluster: only the sums come back (added tile by tile)
    assert np.allclose(lazy.sum(axis=1).compute(), want.sum(axis=1), rtol=1e-12)
    assert np.array_equal(lazy.compute(), want)


def test_graph_sent_once_per_version(client):
    world = navcore.World()
    g = _roads(world, hierarchy="cch")
    s, t = _ends(g, 30, 7)
    before = navcore_dask.worker_counts(client)
    for _ in range(3):
        navcore_dask.distance_matrix(client, g, s, t, chunk=5)
    navcore_dask.find_paths(client, g, s, t)
    assert navcore_dask.scattered(g) == 1
    counts = navcore_dask.worker_counts(client)
    new = _new_tokens(before, counts)
    assert len(new) == 1                         # one snapshot ...
    token = new.pop()
    for worker in counts.values():
        # ... arrived at every worker once from the client's broadcast, and
        # at most once more from a peer (a task Dask placed there before it
        # knew of the broadcast copy fetches the key; seen on a loaded
        # machine): four jobs, not four sends. Unpickled at most once there
        assert 1 <= worker["arrived"][token] <= 2
        assert worker["loaded"].get(token, 0) <= 1
    assert sum(w["loaded"].get(token, 0) for w in counts.values()) >= 1
    # closures: the next job replaces the old version everywhere first
    world.update("roads", bbox=(7.4225, 43.7345, 7.4255, 43.7362), cost=float("inf"))
    world.tick()
    _wait(lambda: not any(token in w["held"]
                          for w in navcore_dask.worker_counts(client).values()))
    got = navcore_dask.distance_matrix(client, g, s, t, chunk=5)
    assert np.array_equal(got, world.distance_matrix("roads", s, t))
    assert navcore_dask.scattered(g) == 2
    after = navcore_dask.worker_counts(client)
    newer = _new_tokens(counts, after)
    assert len(newer) == 1
    token = newer.pop()
    assert all(w["arrived"][token] == 1 for w in after.values())


def _wait(condition, seconds=10.0):
    # releases travel to the workers asynchronously
    import time
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "the cluster did not release the old snapshot"
        time.sleep(0.05)


def test_a_view_built_later_is_sent(client):
    world = navcore.World()
    g = _roads(world)
    s, t = _ends(g, 20, 8)
    navcore_dask.distance_matrix(client, g, s, t)
    navcore_roads.contract(g)                    # same version, a new view
    got = navcore_dask.find_paths(client, g, s[:3], t[:3])
    assert navcore_dask.scattered(g) == 2
    assert {r.algorithm for r in got} == {"ch"}


def _new_tokens(before, after) -> set:
    old = {t for w in before.values() for t in w["arrived"]}
    return {t for w in after.values() for t in w["arrived"]} - old


BAD = [
    (dict(sources=[0, 10**6]), navcore.NodeError, "out of range"),
    (dict(sources=[0, -1]), navcore.NodeError, "out of range"),
    (dict(sources="abc"), navcore.NodeError, "sources"),
    (dict(sources=[[1e9, 1e9]]), navcore.NodeError, "outside"),
    (dict(sources=[0, True]), navcore.NodeError, "node id"),
    (dict(chunk=0), navcore.QueryError, "chunk"),
    (dict(chunk=True), navcore.QueryError, "chunk"),
    (dict(chunk="big"), navcore.QueryError, "chunk"),
    (dict(chunk=(3, 0)), navcore.QueryError, r"chunk\[1\]"),
    (dict(chunk=(1, 2, 3)), navcore.QueryError, "chunk"),
    (dict(lazy="yes"), navcore.QueryError, "lazy"),
    (dict(retries=-1), navcore.QueryError, "retries"),
]


@pytest.mark.parametrize("bad, error, words", BAD)
def test_bad_matrix_input_is_a_nav_error_before_any_tile(client, bad, error, words):
    world = navcore.World()
    g = _grid(world)
    args = {"sources": [0, 1], "targets": [2, 3], **bad}
    before = navcore_dask.scattered(g)
    with pytest.raises(error, match=words):
        navcore_dask.distance_matrix(client, g, **args)
    assert navcore_dask.scattered(g) == before
    assert not [k for k in navcore_keys(client) if "matrix" in k]


def test_bad_pairs_paths_and_graph(client):
    world = navcore.World()
    g = _grid(world)
    with pytest.raises(navcore.QueryError, match="as many sources as targets"):
        navcore_dask.distance_pairs(client, g, [0, 1], [2])
    with pytest.raises(navcore.QueryError, match="as many starts as goals"):
        navcore_dask.find_paths(client, g, [0, 1], [2])
    with pytest.raises(navcore.QueryError, match="algorithm"):
        navcore_dask.find_paths(client, g, [0], [2], algorithm="teleport")
    with pytest.raises(navcore.QueryError, match="heuristc"):
        navcore_dask.find_paths(client, g, [0], [2], heuristc="zero")
    with pytest.raises(navcore.NodeError, match=r"starts\[1\]"):
        navcore_dask.find_paths(client, g, [0, "x"], [2, 3])
    with pytest.raises(navcore.QueryError, match="NavGraph"):
        navcore_dask.distance_matrix(client, "grid", [0], [1])
    with pytest.raises(navcore_dask.ClusterError, match="Client"):
        navcore_dask.distance_matrix(object(), g, [0], [1])
    assert navcore_dask.scattered(g) == 0


def test_empty_jobs_send_nothing(client):
    world = navcore.World()
    g = _grid(world)
    assert navcore_dask.distance_matrix(client, g, [], [1, 2]).shape == (0, 2)
    assert navcore_dask.distance_pairs(client, g, [], []).shape == (0,)
    assert navcore_dask.find_paths(client, g, [], []) == []
    assert navcore_dask.scattered(g) == 0


# A client made with set_as_default=False, in a process with no other
# client: the jobs must wait on that client, not on "the default client"
# (dask's as_completed takes the default client's event loop unless given
# one: it raised "No clients found" here, and with two clients in one
# process, as in bench/dask.py, it waited on the wrong loop and hung).
LONE_CLIENT_SCRIPT = """
import sys, numpy as np, dask.distributed as dd, navcore, navcore_dask
client = dd.Client(sys.argv[1], set_as_default=False, timeout=30)
world = navcore.World()
g = world.add_graph("g", type="grid", array=np.random.default_rng(3).random((30, 30)) >= 0.25)
ok = np.flatnonzero(g.walkable)
s = np.random.default_rng(4).choice(ok, 20).astype(np.int32)
t = np.random.default_rng(5).choice(ok, 20).astype(np.int32)
assert np.array_equal(navcore_dask.distance_matrix(client, g, s, t, chunk=3),
                      world.distance_matrix("g", s, t))
assert np.array_equal(navcore_dask.distance_pairs(client, g, s, t, chunk=3),
                      world.distance_pairs("g", s, t))
got = navcore_dask.find_paths(client, g, s[:4], t[:4], chunk=2)
assert [p.cost for p in got] == [world.find_path("g", int(a), int(b)).cost
                                 for a, b in zip(s[:4], t[:4])]
client.close()
print("ok")
"""


def test_jobs_on_a_client_that_is_not_the_default(client):
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", LONE_CLIENT_SCRIPT, client.scheduler.address],
                          capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
