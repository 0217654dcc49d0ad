"""Contraction hierarchies against a naive Dijkstra: the same
optimal costs, paths that are real walks of the graph, on random graphs,
grids with costs and walls, and MovingAI scenarios; the hierarchy's
lifecycle (stale after updates, rebuilt on request, saved and loaded)."""
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import navcore
from navcore.errors import GraphError, NavError, NodeError, QueryError
from navcore.files import npz_bytes
from navcore_csr import contract, contracted_view, load_contracted
from navcore_csr.contraction import VIEW_KEY
from reference import adjacency, dijkstra, grid_dijkstra, is_valid_grid_walk

from conftest import MOVINGAI, NOJIT

SQRT2 = math.sqrt(2.0)


def random_graph(rng):
    """An undirected graph of a few clusters with random costs, some nodes
    not walkable, some isolated."""
    n = int(rng.integers(2, 60))
    m = int(rng.integers(0, 4 * n))
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    cost = rng.choice([1.0, 2.0, SQRT2, 0.5], m) * rng.integers(1, 4, m)
    walkable = rng.random(n) > (0.15 if rng.random() < 0.5 else 0.0)
    return src, dst, cost, n, walkable


def check_against_reference(world, gid, adj, walkable, pairs):
    contract(world.graph(gid))
    for s, t in pairs:
        r = world.find_path(gid, s, t, algorithm="ch")
        if not walkable[s]:
            assert r.status is navcore.PathStatus.INVALID_START
            continue
        if not walkable[t]:
            assert r.status is navcore.PathStatus.INVALID_GOAL
            continue
        ref = dijkstra(adj, s, t, walkable)
        if t not in ref:
            assert r.status is navcore.PathStatus.UNREACHABLE, (s, t)
            continue
        assert r.found, (s, t)
        assert r.cost == pytest.approx(ref[t], rel=1e-12, abs=1e-12), (s, t)
        nodes = r.nodes.tolist()
        assert nodes[0] == s and nodes[-1] == t
        assert all(walkable[v] for v in nodes)
        walked = sum(adj[u][v] for u, v in zip(nodes[:-1], nodes[1:]))
        assert walked == pytest.approx(r.cost, rel=1e-12, abs=1e-12)
        assert r.algorithm == "ch"


@pytest.mark.nojit
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_random_graphs_match_dijkstra(seed):
    rng = np.random.default_rng(seed)
    src, dst, cost, n, walkable = random_graph(rng)
    world = navcore.World()
    world.add_graph("g", type="csr", src=src, dst=dst, cost=cost, num_nodes=n,
                    directed=False, walkable=walkable)
    adj = adjacency(src, dst, cost, n, directed=False)   # first edge of a pair wins
    pairs = [tuple(int(v) for v in rng.integers(0, n, 2)) for _ in range(25)]
    check_against_reference(world, "g", adj, walkable, pairs)


@pytest.mark.nojit
@given(seed=st.integers(0, 2 ** 32 - 1), connectivity=st.sampled_from([4, 8]),
       corner_cutting=st.booleans(), costs=st.booleans())
def test_random_grids_match_dijkstra(seed, connectivity, corner_cutting, costs):
    rng = np.random.default_rng(seed)
    H, W = int(rng.integers(1, 14)), int(rng.integers(1, 14))
    walk = rng.random((H, W)) > rng.uniform(0.0, 0.4)
    cell_cost = rng.choice([1.0, 2.0, 3.5], (H, W)) if costs else None
    world = navcore.World()
    array = np.where(walk, cell_cost, np.inf) if costs else walk
    world.add_graph("g", type="grid", array=array, connectivity=connectivity,
                    corner_cutting=corner_cutting)
    free = [(x, y) for y in range(H) for x in range(W) if walk[y, x]]
    if not free:
        return
    contract(world.graph("g"))
    for _ in range(6):
        s = free[int(rng.integers(len(free)))]
        ref = grid_dijkstra(walk.tolist(), None if cell_cost is None else cell_cost.tolist(),
                            start=s, connectivity=connectivity,
                            corner_cutting=corner_cutting)
        t = free[int(rng.integers(len(free)))]
        r = world.find_path("g", s, t, algorithm="ch")
        if t not in ref:
            assert r.status is navcore.PathStatus.UNREACHABLE
            continue
        assert r.cost == pytest.approx(ref[t], rel=1e-12, abs=1e-12)
        cells = [(int(v) % W, int(v) // W) for v in r.nodes]
        assert cells[0] == s and cells[-1] == t
        assert is_valid_grid_walk(walk.tolist(), cells, connectivity, corner_cutting)


@pytest.mark.skipif(NOJIT, reason="a 96x96 build is too slow without the JIT")
def test_random_grid_agrees_with_astar_and_jps_on_many_pairs():
    rng = np.random.default_rng(7)
    walk = rng.random((96, 96)) >= 0.25
    world = navcore.World()
    world.add_graph("g", type="grid", array=walk)
    ch = contract(world.graph("g"))
    assert ch.num_shortcuts > 0 and ch.current
    free = np.flatnonzero(walk.ravel())
    for _ in range(300):
        s, t = (int(v) for v in rng.choice(free, 2))
        a = world.find_path("g", s, t, algorithm="astar")
        c = world.find_path("g", s, t, algorithm="ch")
        assert a.status == c.status
        if a.found:
            assert c.cost == pytest.approx(a.cost, rel=1e-12)
            # the path walked move by move costs what the result says
            xy = np.column_stack([c.nodes % 96, c.nodes // 96])
            steps = np.abs(np.diff(xy, axis=0))
            assert (steps.max(axis=1) == 1).all()
            walked = np.where(steps.sum(axis=1) == 2, SQRT2, 1.0).sum()
            assert walked == pytest.approx(c.cost, rel=1e-12)


@pytest.mark.nojit
def test_auto_takes_a_current_hierarchy_and_leaves_a_stale_one():
    world = navcore.World()
    world.add_graph("g", type="grid", rows=["......", ".##...", "......"])
    a, b = (0, 0), (5, 2)
    assert world.find_path("g", a, b).algorithm == "jps"
    ch = contract(world.graph("g"))
    r = world.find_path("g", a, b)
    assert r.algorithm == "ch"
    assert r.cost == pytest.approx(world.find_path("g", a, b, algorithm="astar").cost)
    world.update("g", rect=(3, 0, 1, 2), walkable=False)      # a wall across the short way
    world.tick()
    assert not ch.current and contracted_view(world.graph("g")) is None
    # views() lists stored views, stale ones included; a copy, not the store
    views = world.graph("g").views()
    assert views[VIEW_KEY] is ch and not views[VIEW_KEY].current
    views.clear()
    assert world.graph("g").stored_view(VIEW_KEY) is ch
    want = world.find_path("g", a, b, algorithm="astar").cost
    assert want > r.cost
    r = world.find_path("g", a, b)
    assert r.algorithm == "jps" and r.cost == pytest.approx(want)
    # an explicit "ch" query does not build it again: contract() does
    with pytest.raises(QueryError, match="is stale.*navcore_csr.contract"):
        world.find_path("g", a, b, algorithm="ch")
    with pytest.raises(QueryError, match="is stale"):
        ch.find_path(0, 1)
    contract(world.graph("g"))
    r = world.find_path("g", a, b, algorithm="ch")
    assert r.algorithm == "ch" and r.cost == pytest.approx(want)
    assert contracted_view(world.graph("g")) is not None


@pytest.mark.skipif(NOJIT, reason="needs the GIL-free kernel to overlap the ticks")
def test_built_as_a_job_while_the_world_ticks_and_changes():
    """A build on a worker thread while ticks apply updates: whichever
    version of the map it saw, no answer is ever wrong (a hierarchy of an
    older version is stale and auto leaves it alone)."""
    rng = np.random.default_rng(3)
    walk = rng.random((160, 160)) >= 0.25
    world = navcore.World(workers=2)
    g = world.add_graph("g", type="grid", array=walk)
    job = world.scheduler.schedule(contract, g)
    ticks = 0
    while not job.done:
        x, y = (int(v) for v in rng.integers(0, 150, 2))
        world.update("g", rect=(x, y, 3, 3), walkable=bool(ticks % 2))
        world.tick()
        ticks += 1
        free = np.flatnonzero(world.graph("g").walkable)
        s, t = (int(v) for v in rng.choice(free, 2))
        a = world.find_path("g", s, t, algorithm="astar")
        r = world.find_path("g", s, t)
        assert r.status == a.status and (not a.found or r.cost == pytest.approx(a.cost))
    ch = job.complete()
    free = np.flatnonzero(world.graph("g").walkable)
    for _ in range(20):       # current (built after the last change) or left alone
        s, t = (int(v) for v in rng.choice(free, 2))
        a = world.find_path("g", s, t, algorithm="astar")
        r = world.find_path("g", s, t)
        assert r.status == a.status and (not a.found or r.cost == pytest.approx(a.cost))
        assert not a.found or (r.algorithm == "ch") == ch.current
    world.scheduler.close()


@pytest.mark.nojit
def test_invalid_ends_same_node_and_unreachable():
    world = navcore.World()
    world.add_graph("g", type="grid", rows=["..#..", "..#..", "..#.."])
    with pytest.raises(QueryError, match="was never built"):
        world.find_path("g", (0, 0), (1, 1), algorithm="ch")
    contract(world.graph("g"))
    assert world.find_path("g", (2, 0), (0, 0), algorithm="ch").status \
        is navcore.PathStatus.INVALID_START
    assert world.find_path("g", (0, 0), (2, 1), algorithm="ch").status \
        is navcore.PathStatus.INVALID_GOAL
    r = world.find_path("g", (1, 1), (1, 1), algorithm="ch")
    assert r.found and r.cost == 0.0 and r.nodes.tolist() == [6]
    ch = contract(world.graph("g"))
    assert contract(world.graph("g")) is ch         # current: not built again
    r = ch.find_path(0, 4)                  # asked directly: no areas plugin in between
    assert r.status is navcore.PathStatus.UNREACHABLE
    with pytest.raises(NodeError, match="start node 99"):
        ch.find_path(99, 0)
    with pytest.raises(NodeError, match="goal must be an integer"):
        ch.find_path(0, "x")


@pytest.mark.nojit
def test_heaps_grow_when_a_query_needs_more():
    world = navcore.World()
    world.add_graph("g", type="grid", rows=["." * 12] * 12)
    ch = contract(world.graph("g"))
    want = world.find_path("g", 0, 143, algorithm="astar").cost
    ch.query()._heaps(1)
    r = ch.find_path(0, 143)
    assert r.cost == pytest.approx(want) and ch.query()._hkf.shape[0] > 1


@pytest.mark.nojit
def test_one_way_edges_contract_and_answer_in_their_direction():
    world = navcore.World()
    g = world.add_graph("d", type="csr", src=[0, 1, 2, 0], dst=[1, 2, 0, 2],
                        cost=[1.0, 1.0, 1.0, 5.0], directed=True)
    with pytest.raises(QueryError, match="never built"):
        world.find_path("d", 0, 2, algorithm="ch")
    with pytest.raises(QueryError, match="witness_limit"):
        contract(g, witness_limit=0)
    assert contracted_view(g) is None
    contract(g)
    there = world.find_path("d", 0, 2, algorithm="ch")
    back = world.find_path("d", 2, 1, algorithm="ch")
    assert (there.nodes.tolist(), there.cost) == ([0, 1, 2], 2.0)
    assert (back.nodes.tolist(), back.cost) == ([2, 0, 1], 2.0)


@pytest.mark.nojit
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_directed_graphs_match_dijkstra(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    m = int(rng.integers(0, 4 * n))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    cost = rng.choice([1.0, 2.0, 0.5, 0.0], m) * rng.integers(1, 4, m)
    walkable = rng.random(n) > 0.1
    world = navcore.World()
    g = world.add_graph("d", type="csr", src=src, dst=dst, cost=cost, num_nodes=n,
                        directed=True, walkable=walkable)
    adj = [dict() for _ in range(n)]              # the edges as the graph keeps them
    for u in range(n):
        for e in range(g.csr.offsets[u], g.csr.offsets[u + 1]):
            v = int(g.csr.targets[e])
            if v != u:
                adj[u][v] = min(float(g.csr.cost[e]), adj[u].get(v, math.inf))
    pairs = [tuple(int(x) for x in rng.integers(0, n, 2)) for _ in range(20)]
    check_against_reference(world, "d", adj, walkable, pairs)


@pytest.mark.nojit
def test_save_and_load(tmp_path):
    rows = ["........", ".##..##.", "........", "..####..", "........"]
    world = navcore.World()
    g = world.add_graph("g", type="grid", rows=rows)
    ch = contract(g)
    f = tmp_path / "g.ch.npz"
    ch.save(f)
    other = navcore.World()
    g2 = other.add_graph("g", type="grid", rows=rows)
    loaded = load_contracted(g2, f)
    assert loaded.current and loaded.num_edges == ch.num_edges
    for s, t in [(0, 39), (8, 31), (2, 37)]:
        a = other.find_path("g", s, t, algorithm="astar")
        b = other.find_path("g", s, t)
        assert b.algorithm == "ch" and b.cost == pytest.approx(a.cost)
    # another map, a corrupt file, no file: GraphError, the graph untouched
    g3 = other.add_graph("h", type="grid", rows=rows[:-1] + ["#......."])
    with pytest.raises(GraphError, match="built for another graph"):
        load_contracted(g3, f)
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(GraphError, match="not a readable .npz archive"):
        load_contracted(g3, bad)
    with pytest.raises(GraphError, match="no such file"):
        load_contracted(g3, tmp_path / "missing.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(GraphError, match="not a navcore hierarchy"):
        load_contracted(g3, tmp_path / "other.npz")
    with np.load(f) as data:
        parts = dict(data)
    parts["fwd_w"] = parts["fwd_w"] + 1
    np.savez(tmp_path / "tampered.npz", **parts)
    with pytest.raises(GraphError, match="do not match its checksum"):
        load_contracted(g2, tmp_path / "tampered.npz")
    del parts["checksum"]                       # forged with a checksum of its own
    (tmp_path / "forged.npz").write_bytes(npz_bytes(**parts))
    with pytest.raises(GraphError, match="do not fit graph"):
        load_contracted(g2, tmp_path / "forged.npz")
    assert contracted_view(g3) is None
    assert isinstance(GraphError("x"), NavError)


@pytest.mark.skipif(not (MOVINGAI / "arena.map.scen").is_file(),
                    reason=f"MovingAI data not found at {MOVINGAI}")
def test_movingai_arena_every_scenario():
    from navcore_grid import run_scenarios
    report = run_scenarios(MOVINGAI / "arena.map.scen", algorithm="ch")
    assert report["queries"] > 100 and report["mismatches"] == 0, \
        report["mismatch_examples"]



@pytest.mark.skipif(not (MOVINGAI / "arena.map.scen").is_file(),
                    reason=f"MovingAI data not found at {MOVINGAI}")
def test_cli_scen_with_hierarchies(tmp_path):
    import json
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "navcore", "scen",
                          str(MOVINGAI / "arena.map.scen"), "--algorithm", "ch",
                          "--json", str(tmp_path / "r.json")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "160 queries, algorithm ch (hierarchies built in" in out.stdout
    assert "0 mismatches" in out.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["mismatches"] == 0 and report["build_s"] > 0


SCENS = sorted(MOVINGAI.glob("*.scen")) if MOVINGAI.is_dir() else []


@pytest.mark.slow
@pytest.mark.skipif(not SCENS, reason=f"MovingAI data not found at {MOVINGAI}")
@pytest.mark.parametrize("scen", SCENS, ids=lambda p: p.name.split(".")[0])
def test_movingai_every_scenario_of_every_map(scen):
    from navcore_grid import run_scenarios
    report = run_scenarios(scen, algorithm="ch")
    assert report["queries"] > 100 and report["mismatches"] == 0, \
        report["mismatch_examples"]


@pytest.mark.nojit
def test_a_stale_hierarchy_refuses_to_answer_and_saves_for_its_own_map(tmp_path):
    rows = ["......", "......", "......"]
    world = navcore.World()
    g = world.add_graph("g", type="grid", rows=rows)
    ch = contract(g)
    world.update("g", cells=[(2, 1)], walkable=False)
    world.tick()
    with pytest.raises(QueryError, match="stale"):
        ch.find_path(0, 17)
    ch.save(tmp_path / "old.npz")            # the map it was built for, not today's
    with pytest.raises(GraphError, match="built for another graph"):
        load_contracted(g, tmp_path / "old.npz")
    fresh = navcore.World().add_graph("g", type="grid", rows=rows)
    assert load_contracted(fresh, tmp_path / "old.npz").current


@pytest.mark.nojit
def test_bad_ids_are_refused_before_anything_is_built():
    world = navcore.World()
    g = world.add_graph("g", type="grid", rows=["...."])
    with pytest.raises(NodeError):
        world.find_path("g", 0, 99, algorithm="ch")
    assert contracted_view(g) is None and g.stored_view(VIEW_KEY) is None
    with pytest.raises(QueryError, match="witness_limit"):
        contract(g, witness_limit=2 ** 70)


def _tampered(tmp_path, f, name, change):
    """``f`` with ``change`` made to its arrays and a checksum made anew:
    a forged file, which only the structural checks can refuse."""
    with np.load(f) as data:
        parts = dict(data)
    parts.pop("checksum")
    change(parts)
    out = tmp_path / f"{name}.npz"
    out.write_bytes(npz_bytes(**parts))
    return out


@pytest.mark.nojit
def test_a_file_edited_without_its_checksum_is_refused(tmp_path):
    world = navcore.World()
    g = world.add_graph("g", type="grid", rows=["....", ".#..", "...."])
    f = tmp_path / "g.npz"
    contract(g).save(f)
    with np.load(f) as data:
        parts = dict(data)
    parts["fwd_head"] = parts["fwd_head"][::-1].copy()   # shuffled, shapes intact
    np.savez(tmp_path / "edited.npz", **parts)
    with pytest.raises(GraphError, match="do not match its checksum"):
        load_contracted(g, tmp_path / "edited.npz")
    del parts["checksum"]
    np.savez(tmp_path / "bare.npz", **parts)
    with pytest.raises(GraphError, match="has no checksum"):
        load_contracted(g, tmp_path / "bare.npz")


@pytest.mark.nojit
@pytest.mark.parametrize("name, change", [
    ("rank", lambda p: p.__setitem__("rank", p["rank"][::-1].copy())),
    ("negative", lambda p: p["fwd_w"].__setitem__(0, -1.0)),
    ("nan", lambda p: p["bwd_w"].__setitem__(-1, np.nan)),
    ("half-shortcut", lambda p: p.__setitem__("sc_c2", p["sc_c2"][:-1].copy())),
    ("forward-child", lambda p: p["sc_c1"].__setitem__(
        0, p["weights"].size + p["sc_c1"].size - 1)),
    ("overlap", lambda p: p["fwd_first"].__setitem__(int(p["fwd_first"].size // 2), 0)),
    ("cost", lambda p: p["weights"].__setitem__(0, p["weights"][0] + 1.0)),
    ("limit-shape", lambda p: p.__setitem__("witness_limit", np.array([5, 5]))),
    ("limit-zero", lambda p: p.__setitem__("witness_limit", np.array(0))),
    ("format", lambda p: p.__setitem__("format", np.array(1))),
])
def test_crafted_files_are_refused(tmp_path, name, change):
    world = navcore.World()
    g = world.add_graph("g", type="grid", rows=["....."] * 5)
    ch = contract(g)
    assert ch.num_shortcuts > 0
    f = tmp_path / "g.npz"
    ch.save(f)
    with pytest.raises(GraphError):
        load_contracted(g, _tampered(tmp_path, f, name, change))
    assert g.stored_view(VIEW_KEY) is ch        # what it had stays


@pytest.mark.nojit
def test_a_chain_of_shortcuts_that_walks_no_path_is_refused(tmp_path):
    """32 shortcuts each made of the previous one twice (2**32 edges
    unpacked) on a graph of one edge: the children of each do not meet,
    so no path of the graph stands behind them."""
    world = navcore.World()
    g = world.add_graph("g", type="csr", src=[0], dst=[1], cost=[1.0], directed=False)
    ch = contract(g)
    f = tmp_path / "g.npz"
    ch.save(f)

    def chain(p):
        k, m = 32, p["weights"].size
        p["sc_c1"] = np.concatenate(([0], m + np.arange(k - 1))).astype(np.int64)
        p["sc_c2"] = p["sc_c1"].copy()
        p["fwd_arc"] = np.array([m + k - 1], np.int64)
        p["fwd_w"] = np.array([2.0 ** k])
    with pytest.raises(GraphError, match="do not meet"):
        load_contracted(g, _tampered(tmp_path, f, "wrap", chain))


@pytest.mark.nojit
def test_a_file_of_the_one_node_format_asks_for_a_new_build(tmp_path):
    world = navcore.World()
    g = world.add_graph("g", type="grid", rows=["...", "..."])
    f = tmp_path / "g.npz"
    contract(g).save(f)
    with pytest.raises(GraphError, match="earlier navcore.*build it again"):
        load_contracted(g, _tampered(tmp_path, f, "old", lambda p: p.__setitem__(
            "format", np.array("navcore-ch-1"))))


@pytest.mark.nojit
def test_files_that_are_not_hierarchies(tmp_path):
    world = navcore.World()
    g = world.add_graph("g", type="grid", rows=["...", "..."])
    f = tmp_path / "g.npz"
    contract(g).save(f)
    np.save(tmp_path / "one.npy", np.zeros(3))
    with pytest.raises(GraphError, match="not a readable .npz archive"):
        load_contracted(g, tmp_path / "one.npy")
    cut = tmp_path / "cut.npz"
    cut.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    with pytest.raises(GraphError, match="not a readable .npz archive"):
        load_contracted(g, cut)


@pytest.mark.nojit
def test_a_hierarchy_answer_counts_the_nodes_its_searches_settled():
    walk = np.random.default_rng(3).random((24, 24)) >= 0.25
    walk[0, 0] = walk[-1, -1] = True
    world = navcore.World()
    g = world.add_graph("g", type="grid", array=walk)
    contract(g)
    a = world.find_path("g", 0, 24 * 24 - 1, algorithm="astar")
    r = world.find_path("g", 0, 24 * 24 - 1, algorithm="ch")
    assert r.found == a.found
    if r.found:
        assert r.cost == pytest.approx(a.cost)
    # both searches settle at least their own end; never every node twice
    assert 2 <= r.expanded <= 2 * int(walk.sum())
