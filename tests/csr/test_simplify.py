"""Graph simplification against a naive Dijkstra on the original
graph: same optimal costs, paths that are real walks, on mazes and on
random corridor graphs, directed and undirected."""
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import navcore
from navcore_csr import simplify, simplified_view
from navcore_grid import maze_cells, maze_edges
from reference import adjacency, dijkstra

from conftest import NOJIT


def corridor_graph(rng, directed):
    """Junctions joined by corridors of 0-5 nodes (two-way, one-way or with
    different costs each way), dead-end branches and a free-floating ring,
    with node ids shuffled."""
    m = int(rng.integers(1, 10))
    src, dst, cost = [], [], []
    n = m

    def link(u, v, mode):
        c = float(rng.uniform(0.5, 5.0))
        if mode == "one":
            src.append(u); dst.append(v); cost.append(c)
        else:
            back = c if mode == "two" else float(rng.uniform(0.5, 5.0))
            src.extend((u, v)); dst.extend((v, u)); cost.extend((c, back))

    def path(a, b, k, mode):
        nonlocal n
        nodes = [a] + list(range(n, n + k)) + ([b] if b is not None else [])
        n += k
        for u, v in zip(nodes[:-1], nodes[1:]):
            link(u, v, mode)

    modes = ["two", "one", "asym"] if directed else ["two"]
    for _ in range(int(rng.integers(1, 3 * m + 2))):
        a, b = (int(x) for x in rng.integers(0, m, 2))
        path(a, b, int(rng.integers(0, 6)), rng.choice(modes))
    for _ in range(int(rng.integers(0, 4))):          # dead ends
        path(int(rng.integers(0, n)), None, int(rng.integers(1, 5)), rng.choice(modes))
    if rng.random() < 0.5:                              # a ring on its own
        k = int(rng.integers(3, 6))
        ring = list(range(n, n + k))
        n += k
        mode = rng.choice(modes)
        for u, v in zip(ring, ring[1:] + ring[:1]):
            link(u, v, mode)
    perm = rng.permutation(n)
    src, dst = perm[np.array(src, int)], perm[np.array(dst, int)]
    cost = np.array(cost)
    if directed and rng.random() < 0.3 and cost.size:   # a closed edge
        cost[int(rng.integers(0, cost.size))] = np.inf
    walkable = rng.random(n) > (0.1 if rng.random() < 0.4 else 0.0)
    return src, dst, cost, n, walkable


def tree_graph(rng, directed):
    """A small maze (spanning tree) with random costs, a few extra edges
    making cycles, and for directed graphs some one-way edges: deep
    enough for several levels of simplification."""
    w, h = (int(x) for x in rng.integers(2, 13, 2))
    src, dst = maze_edges(w, h, seed=int(rng.integers(0, 2**31)))
    n = w * h
    extra = int(rng.integers(0, 4))
    src = np.concatenate([src, rng.integers(0, n, extra)])
    dst = np.concatenate([dst, rng.integers(0, n, extra)])
    cost = rng.uniform(0.5, 5.0, src.size)
    if directed:   # both directions, then drop one side of some edges
        back = rng.random(src.size) > 0.2
        src, dst = np.concatenate([src, dst[back]]), np.concatenate([dst, src[back]])
        cost = np.concatenate([cost, rng.uniform(0.5, 5.0, int(back.sum()))])
    walkable = rng.random(n) > (0.05 if rng.random() < 0.3 else 0.0)
    return src, dst, cost, n, walkable


def check_answer(world, adj, walkable, s, t, truth_cache, gid="g"):
    r = world.find_path(gid, int(s), int(t), algorithm="simplified")
    if not walkable[s]:
        assert r.status.value == "invalid_start"
        return r
    if not walkable[t]:
        assert r.status.value == "invalid_goal"
        return r
    if s not in truth_cache:
        truth_cache[s] = dijkstra(adj, int(s), walkable=walkable)
    truth = truth_cache[s].get(int(t), math.inf)
    if math.isinf(truth):
        assert r.status.value == "unreachable", (s, t, r)
        return r
    assert r.status.value == "found", (s, t, truth)
    assert r.cost == pytest.approx(truth, rel=1e-9), (s, t)
    nodes = r.nodes.tolist()
    assert nodes[0] == s and nodes[-1] == t
    walked = 0.0
    for u, v in zip(nodes[:-1], nodes[1:]):
        assert walkable[v] and v in adj[u] and adj[u][v] < math.inf, (s, t, u, v)
        walked += adj[u][v]
    assert walked == pytest.approx(r.cost, rel=1e-9)
    return r


@pytest.mark.nojit
@pytest.mark.parametrize("levels", [1, 3])
@pytest.mark.parametrize("make", [corridor_graph, tree_graph])
@pytest.mark.parametrize("directed", [False, True])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_graphs_match_dijkstra(directed, make, levels, seed):
    rng = np.random.default_rng(seed)
    src, dst, cost, n, walkable = make(rng, directed)
    world = navcore.World(autoload=False)
    world.add_graph("g", type="csr", src=src, dst=dst, cost=cost, num_nodes=n,
                    directed=directed, walkable=walkable)
    adj = adjacency(src, dst, cost, n, directed)
    view = simplify(world.graph("g"), levels=levels)
    assert len(view.levels) == levels and view.num_nodes <= n
    pairs = rng.integers(0, n, size=(40, 2)).tolist()
    # pairs inside one chain, both ways, and with a chain end
    lv = view.levels[0]
    for c in range(min(view.num_chains, 6)):
        lo, hi = lv.chain_off[c], lv.chain_off[c + 1]
        members = lv.chain_nodes[lo:hi]
        a, b = rng.choice(members, 2)
        pairs += [[a, b], [b, a], [a, lv.chain_a[c]], [lv.chain_a[c], b]]
        if lv.chain_b[c] >= 0:
            pairs += [[a, lv.chain_b[c]], [lv.chain_b[c], a]]
    cache = {}
    for s, t in pairs:
        check_answer(world, adj, walkable, s, t, cache)


def maze_world(rooms, seed, costs=True):
    src, dst = maze_edges(rooms, rooms, seed=seed)
    rng = np.random.default_rng(seed)
    cost = rng.uniform(1.0, 3.0, src.size) if costs else np.ones(src.size)
    xy = np.stack([np.arange(rooms * rooms) % rooms, np.arange(rooms * rooms) // rooms], 1)
    world = navcore.World(autoload=False)
    world.add_graph("g", type="csr", src=src, dst=dst, cost=cost, positions=xy,
                    directed=False)
    return world, adjacency(src, dst, cost, rooms * rooms, directed=False)


@pytest.mark.parametrize("rooms,seed,levels", [(8, 1, 1), (40, 2, None), (40, 2, 4)])
def test_mazes_match_dijkstra(rooms, seed, levels):
    world, adj = maze_world(rooms, seed)
    n = rooms * rooms
    view = simplify(world.graph("g"), levels=levels)
    # a spanning tree keeps only its junctions: every chain to a leaf folds
    assert view.levels[0].num_nodes < n / 2
    if levels is None:   # 1600 rooms: level 1 keeps ~430, level 2 ~100
        assert len(view.levels) == 2
    walkable = np.ones(n, bool)
    rng = np.random.default_rng(seed)
    cache = {}
    for s, t in rng.integers(0, n, size=(150, 2)):
        r = check_answer(world, adj, walkable, s, t, cache)
        assert r.algorithm == "simplified"


@pytest.mark.nojit
def test_small_maze_matches_dijkstra_without_jit():
    world, adj = maze_world(6, 3)
    simplify(world.graph("g"))
    walkable = np.ones(36, bool)
    cache = {}
    for s, t in np.random.default_rng(0).integers(0, 36, size=(60, 2)):
        check_answer(world, adj, walkable, s, t, cache)


@pytest.mark.nojit
def test_chain_cases_by_hand():
    #   0 - 1 - 2 - 3 - 4          node 2 is a junction with a dead end 5 - 6
    #           |
    #           5 - 6
    world = navcore.World(autoload=False)
    world.add_graph("g", type="csr", src=[0, 1, 2, 3, 2, 5], dst=[1, 2, 3, 4, 5, 6],
                    cost=[1, 2, 3, 4, 5, 6], directed=False)
    view = simplify(world.graph("g"))
    assert len(view.levels) == 1
    # 0 and 4 are leaves at the ends of chains that start at the junction,
    # so everything but 2 folds into dead-end chains
    assert view.top_nodes.tolist() == [2]
    assert view.num_edges == 0
    cases = {(0, 4): ([0, 1, 2, 3, 4], 10), (4, 0): ([4, 3, 2, 1, 0], 10),
             (1, 0): ([1, 0], 1), (0, 1): ([0, 1], 1), (6, 1): ([6, 5, 2, 1], 13),
             (2, 6): ([2, 5, 6], 11), (3, 3): ([3], 0), (2, 2): ([2], 0)}
    for (s, t), (nodes, cost) in cases.items():
        r = world.find_path("g", s, t, algorithm="simplified")
        assert (r.nodes.tolist(), r.cost) == (nodes, cost), (s, t)


@pytest.mark.nojit
def test_one_way_ring_and_directed_chains():
    # a one-way ring 0 -> 1 -> 2 -> 3 -> 0 hanging off junction 0, which also
    # has a two-way spur 0 - 4 - 5 - 6 and a one-way street 6 -> 7 -> 8 -> 0
    src = [0, 1, 2, 3, 0, 4, 4, 5, 5, 6, 6, 7, 8]
    dst = [1, 2, 3, 0, 4, 0, 5, 4, 6, 5, 7, 8, 0]
    cost = [1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 1, 1, 1]
    world = navcore.World(autoload=False)
    world.add_graph("g", type="csr", src=src, dst=dst, cost=cost, directed=True)
    adj = adjacency(src, dst, cost, 9)
    walkable = np.ones(9, bool)
    view = simplify(world.graph("g"), levels=1)
    assert set(view.top_nodes.tolist()) == {0, 6}
    cache = {}
    for s in range(9):
        for t in range(9):
            check_answer(world, adj, walkable, s, t, cache)
    # 3 -> 1 must go round the ring through 0
    assert world.find_path("g", 3, 1, algorithm="simplified").nodes.tolist() == [3, 0, 1]


@pytest.mark.nojit
def test_isolated_ring_and_path():
    # ring 0-1-2-3-0 on its own, path 4-5-6 on its own, lone node 7
    src, dst = [0, 1, 2, 3, 4, 5], [1, 2, 3, 0, 5, 6]
    world = navcore.World(autoload=False)
    world.add_graph("g", type="csr", src=src, dst=dst, cost=[1, 1, 1, 1, 1, 1],
                    num_nodes=8, directed=False)
    adj = adjacency(src, dst, [1] * 6, 8, directed=False)
    simplify(world.graph("g"))
    cache = {}
    for s in range(8):
        for t in range(8):
            check_answer(world, adj, np.ones(8, bool), s, t, cache)


def test_grid_maze_auto_uses_current_view_and_update_marks_it_stale():
    world = navcore.World()
    g = world.add_graph("m", type="grid", generate="maze", width=30, height=30, seed=4,
                        connectivity=4)
    start, goal = (1, 1), (59, 59)
    truth = world.find_path("m", start, goal, algorithm="dijkstra")
    assert world.find_path("m", start, goal).algorithm != "simplified"   # not built yet
    assert simplified_view(g) is None
    with pytest.raises(navcore.QueryError, match="never built.*navcore_csr.simplify"):
        world.find_path("m", start, goal, algorithm="simplified")     # queries never build
    simplify(g)
    r = world.find_path("m", start, goal, algorithm="simplified")
    assert r.cost == pytest.approx(truth.cost) and r.nodes.tolist() == truth.nodes.tolist()
    view = simplified_view(g)
    assert view is not None and view.current
    assert view.num_nodes < 0.25 * int(g.walkable.sum())
    assert world.find_path("m", start, goal).algorithm == "simplified"

    # wall off the goal's corridor: the view is patched in place (closing
    # what was open at build), auto still uses it and finds no way
    x, y = goal
    door = [c for c in ((x - 1, y), (x, y - 1)) if g.walkable[g.node_id(*c)]]
    world.update("m", cells=door, walkable=False)
    world.tick()
    assert view.current and simplified_view(g) is view and view.patches == 1
    after = world.find_path("m", start, goal)
    assert after.status.value == "unreachable"
    world.update("m", cells=door, walkable=True)
    world.tick()
    r = world.find_path("m", start, goal)
    assert r.algorithm == "simplified" and r.cost == pytest.approx(truth.cost)
    # a wall the maze was built with opens: new, so the view goes stale and
    # auto leaves it alone, and "simplified" refuses, until simplify rebuilds it
    world.update("m", cells=[(2, 1)] if not g.walkable[g.node_id(2, 1)] else [(1, 2)],
                 walkable=True)
    world.tick()
    assert not view.current and simplified_view(g) is None
    assert world.find_path("m", start, goal).algorithm != "simplified"
    with pytest.raises(navcore.QueryError, match="is stale"):
        world.find_path("m", start, goal, algorithm="simplified")
    assert simplify(g) is not view
    r = world.find_path("m", start, goal, algorithm="simplified")
    assert simplified_view(g) is not view
    assert r.cost == pytest.approx(world.find_path("m", start, goal,
                                                   algorithm="dijkstra").cost)


@pytest.mark.nojit
def test_bad_input_and_blocked_endpoints():
    world = navcore.World(autoload=False)
    world.add_graph("g", type="csr", src=[0, 1, 2], dst=[1, 2, 3], cost=[1, 1, 1],
                    directed=False, walkable=[True, True, False, True])
    assert world.find_path("g", 0, 2, algorithm="simplified").status.value == "invalid_goal"
    assert world.find_path("g", 2, 0, algorithm="simplified").status.value == "invalid_start"
    assert world.find_path("g", 0, 3, algorithm="simplified").status.value == "unreachable"
    with pytest.raises(navcore.NodeError):
        world.find_path("g", 0, 9, algorithm="simplified")
    view = simplify(world.graph("g"))
    with pytest.raises(navcore.NodeError, match="goal"):
        view.find_path(0, -1)
    with pytest.raises(navcore.NodeError, match="start"):
        view.find_path("a", 1)
    with pytest.raises(navcore.QueryError, match="levels"):
        simplify(world.graph("g"), levels=0)


def _updates_then_compare(world, gid, rng, steps, make_update, truth_of, nodes_of):
    """Apply ``steps`` random updates; after each, a current view must give
    the reference answer on random pairs (a patched view) and a stale one
    must not be used by ``auto``."""
    g = world.graph(gid)
    view = simplify(g)
    patched = stale = 0
    for _ in range(steps):
        world.update(gid, **make_update(rng))
        world.tick()
        if simplified_view(g) is None:       # something new opened: stale
            stale += 1
            view = simplify(g)                # rebuild, as a user would
            continue
        patched += 1
        adj, walkable = truth_of()
        cache = {}
        for s, t in rng.choice(nodes_of(), size=(12, 2)):
            check_answer(world, adj, walkable, int(s), int(t), cache, gid=gid)
    return patched, stale


@pytest.mark.nojit
@pytest.mark.parametrize("directed", [False, True])
@given(seed=st.integers(0, 2**32 - 1))
def test_updates_that_only_close_or_reopen_are_patched_in_place(directed, seed):
    rng = np.random.default_rng(seed)
    src, dst, cost, n, walkable = tree_graph(rng, directed)
    world = navcore.World(autoload=False)
    world.add_graph("g", type="csr", src=src, dst=dst, cost=cost, num_nodes=n,
                    directed=directed, walkable=walkable)
    ever = np.flatnonzero(walkable)
    g = world.graph("g")
    build_cost = g.csr.cost.copy()        # after the build's first-edge-wins dedup
    rows = np.repeat(np.arange(n), np.diff(g.csr.offsets))

    def make_update(rng):
        nodes = rng.choice(ever, size=int(rng.integers(1, 4)))
        if rng.random() < 0.7:
            return {"nodes": nodes, "walkable": bool(rng.random() < 0.5)}
        k = int(rng.integers(0, build_cost.size))   # at least its build cost
        return {"edges": [(int(rows[k]), int(g.csr.targets[k]))],
                "cost": float(build_cost[k] * rng.choice([1.0, 2.5, np.inf]))}

    def truth_of():
        g = world.graph("g")
        return adjacency(src, dst, g.csr.cost[_edge_positions(g, src, dst)], n, directed), \
            g.walkable.copy()

    patched, stale = _updates_then_compare(world, "g", rng, 12, make_update, truth_of,
                                           lambda: np.arange(n))
    assert stale == 0 and patched == 12       # nothing opened that the build had not seen


def _edge_positions(g, src, dst):
    from navcore_csr._build import find_edges
    return find_edges(g.csr.offsets, g.csr.targets, np.asarray(src, np.int64),
                       np.asarray(dst, np.int64))


@pytest.mark.nojit
def test_a_door_in_a_grid_maze_is_patched_and_a_new_opening_makes_the_view_stale():
    world = navcore.World()
    g = world.add_graph("m", type="grid", generate="maze", width=12, height=12, seed=3,
                        connectivity=4)
    view = simplify(g)
    free = np.flatnonzero(g.walkable)
    rng = np.random.default_rng(1)
    for _ in range(20):
        cells = [tuple(map(int, divmod(int(c), g.width)[::-1]))
                 for c in rng.choice(free, size=2)]
        world.update("m", cells=cells, walkable=bool(rng.random() < 0.5))
        world.tick()
        assert simplified_view(g) is view and view.current
        truth = [world.find_path("m", int(s), int(t), algorithm="dijkstra")
                 for s, t in rng.choice(free, size=(10, 2))]
        for r0 in truth:
            if r0.found:
                r = world.find_path("m", int(r0.nodes[0]), int(r0.nodes[-1]))
                assert r.algorithm == "simplified" and r.cost == pytest.approx(r0.cost)
    assert view.patches == 20
    wall = int(np.flatnonzero(~g.walkable)[g.width + 1])   # a wall inside the maze
    world.update("m", cells=[(wall % g.width, wall // g.width)], walkable=True)
    world.tick()
    assert not view.current and simplified_view(g) is None


@pytest.mark.nojit
def test_a_patch_does_not_wait_for_a_build_that_holds_the_graph():
    """A contraction built on a worker thread holds ``graph.lock`` for its
    whole build; the tick that patches the simplified view must not wait."""
    import threading
    world = navcore.World()
    g = world.add_graph("m", type="grid", generate="maze", width=12, height=12, seed=3,
                        connectivity=4)
    view = simplify(g)
    cell = int(np.flatnonzero(g.walkable)[5])
    released, ticked = threading.Event(), threading.Event()

    def long_build():             # as contract() holds it
        with g.lock:
            released.wait(10)
    builder = threading.Thread(target=long_build)
    builder.start()
    try:
        world.update("m", cells=[(cell % g.width, cell // g.width)], walkable=False)
        ticker = threading.Thread(target=lambda: (world.tick(), ticked.set()))
        ticker.start()
        assert ticked.wait(5), "the tick waited for the build's lock"
    finally:
        released.set()
        builder.join()
    ticker.join()
    assert view.current and view.patches == 1


@pytest.mark.nojit
@given(seed=st.integers(0, 2**32 - 1))
def test_any_update_leaves_answers_exact_patched_or_rebuilt(seed):
    rng = np.random.default_rng(seed)
    directed = bool(rng.random() < 0.5)
    src, dst, cost, n, walkable = corridor_graph(rng, directed)
    world = navcore.World(autoload=False)
    world.add_graph("g", type="csr", src=src, dst=dst, cost=cost, num_nodes=n,
                    directed=directed, walkable=walkable)
    g = world.graph("g")
    rows = np.repeat(np.arange(n), np.diff(g.csr.offsets))

    def make_update(rng):
        if rng.random() < 0.5 or g.csr.num_edges == 0:
            return {"nodes": rng.integers(0, n, int(rng.integers(1, 3))),
                    "walkable": bool(rng.random() < 0.6)}
        k = int(rng.integers(0, g.csr.num_edges))      # any cost, cheaper too
        return {"edges": [(int(rows[k]), int(g.csr.targets[k]))],
                "cost": float(rng.choice([0.3, 1.0, 4.0, np.inf]))}

    def truth_of():
        return adjacency(rows, g.csr.targets, g.csr.cost, n, True), g.walkable.copy()

    _updates_then_compare(world, "g", rng, 10, make_update, truth_of, lambda: np.arange(n))


@pytest.mark.nojit
def test_auto_leaves_a_view_alone_that_keeps_most_nodes():
    world = navcore.World()
    g = world.add_graph("open", type="grid", rows=["........"] * 6)
    view = simplify(g)
    assert view.current and not view.pays       # an open room: nothing to contract
    assert world.find_path("open", (0, 0), (7, 5)).algorithm == "jps"
    assert world.find_path("open", (0, 0), (7, 5), algorithm="simplified").algorithm == \
        "simplified"
