"""Hierarchical connected components against scipy (ndimage.label for grids,
csgraph.connected_components for graphs) and a naive BFS, through random
update sequences."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import ndimage
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

import navcore
from navcore import PathStatus
from navcore_areas import hierarchy_of
from navcore_areas._kernels import MAX_CHILDREN

import reference
from reference import same_partition
from hooktags import exercises



def grid_labels(walk, rule):
    if rule.get("connectivity") == 4 or not rule.get("corner_cutting"):
        # without corner cutting a diagonal move needs both orthogonal cells,
        # so 8-connectivity joins exactly what 4-connectivity joins
        structure = ndimage.generate_binary_structure(2, 1)
    else:
        structure = np.ones((3, 3), dtype=bool)
    return ndimage.label(walk, structure=structure)[0]


RULES = [{}, {"corner_cutting": True}, {"connectivity": 4}]


@st.composite
def grid_scripts(draw, max_side=40):
    w = draw(st.integers(1, max_side))
    h = draw(st.integers(1, max_side))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    walk = rng.random((h, w)) >= draw(st.sampled_from([0.0, 0.3, 0.45]))
    steps = []
    for _ in range(draw(st.integers(1, 8))):
        batch = []
        for _ in range(draw(st.integers(1, 3))):
            x, y = int(rng.integers(w)), int(rng.integers(h))
            rw, rh = int(rng.integers(1, w - x + 1)), int(rng.integers(1, h - y + 1))
            batch.append(((x, y, min(rw, 6), min(rh, 6)), bool(rng.random() < 0.5)))
        steps.append(batch)
    return walk, steps


@pytest.mark.nojit
@given(grid_scripts(), st.sampled_from(RULES))
def test_grid_areas_match_ndimage_label_through_updates(script, rule):
    walk, steps = script
    world = navcore.World(autoload=False)
    g = world.add_graph("g", type="grid", array=walk, **rule)
    walk = walk.copy()
    assert same_partition(world.areas("g"), grid_labels(walk, rule), walk)
    for batch in steps:
        for (x, y, w, h), free in batch:
            world.update("g", rect=(x, y, w, h), walkable=free)
            walk[y:y + h, x:x + w] = free
        world.tick()
        labels = grid_labels(walk, rule)
        assert same_partition(world.areas("g"), labels, walk)
        assert (hierarchy_of(g).hierarchical_sizes() <= MAX_CHILDREN).all()
    # reachable and reachable_many agree with the labels
    rng = np.random.default_rng(0)
    a = rng.integers(walk.size, size=30)
    b = rng.integers(walk.size, size=30)
    flat, lab = walk.ravel(), labels.ravel()
    truth = flat[a] & flat[b] & (lab[a] == lab[b])
    assert world.reachable_many("g", a, b).tolist() == truth.tolist()
    assert [world.reachable("g", int(s), int(t)) for s, t in zip(a, b)] == truth.tolist()


@st.composite
def graph_scripts(draw):
    n = draw(st.integers(1, 60))
    m = draw(st.integers(0, 3 * n))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    src = rng.integers(n, size=m)
    dst = rng.integers(n, size=m)
    steps = []
    for _ in range(draw(st.integers(1, 6))):
        if m and rng.random() < 0.5:
            k = rng.integers(m, size=int(rng.integers(1, 4)))
            steps.append(("edges", k, float(rng.choice([1.0, np.inf]))))
        else:
            k = rng.integers(n, size=int(rng.integers(1, 4)))
            steps.append(("nodes", k, bool(rng.random() < 0.5)))
    return n, src, dst, steps


def weak_labels(n, src, dst, cost, walkable):
    ok = np.isfinite(cost) & walkable[src] & walkable[dst]
    mat = coo_matrix((np.ones(ok.sum()), (src[ok], dst[ok])), shape=(n, n))
    return connected_components(mat, directed=True, connection="weak")[1]


@pytest.mark.nojit
@given(graph_scripts(), st.booleans())
def test_graph_areas_match_csgraph_through_updates(script, directed):
    n, src, dst, steps = script
    world = navcore.World(autoload=False)
    world.add_graph("g", type="csr", src=src, dst=dst, num_nodes=n, directed=directed)
    cost = np.ones(len(src))
    walkable = np.ones(n, dtype=bool)
    # first edge of a (u, v) pair wins in the CSR, so updates act on pairs
    for kind, idx, value in steps:
        if kind == "edges":
            pairs = np.stack([src[idx], dst[idx]], axis=1)
            world.update("g", edges=pairs.tolist(), cost=value)
            for u, v in pairs:
                hit = (src == u) & (dst == v)
                if not directed:
                    hit |= (src == v) & (dst == u)
                cost[hit] = value
        else:
            world.update("g", nodes=idx.tolist(), walkable=value)
            walkable[idx] = value
        world.tick()
        labels = weak_labels(n, src, dst, cost, walkable)
        assert same_partition(world.areas("g"), labels, walkable)
    # reachable against a naive BFS over the current graph
    adj = reference.adjacency(src, dst, cost, n, directed=directed)
    for s in range(0, n, max(1, n // 7)):
        hops = {t for t in range(n) if walkable[s]
                and reference.bfs_hops(adj, s, t, walkable=walkable) >= 0}
        for t in range(n):
            assert world.reachable("g", s, t) == (t in hops), (s, t)
        got = world.reachable_many("g", np.full(n, s), np.arange(n))
        assert got.tolist() == [t in hops for t in range(n)]


def test_hierarchical_nodes_do_not_fragment_under_many_updates():
    rng = np.random.default_rng(3)
    walk = rng.random((120, 150)) >= 0.2
    world = navcore.World(autoload=False)
    g = world.add_graph("g", type="grid", array=walk)
    h = hierarchy_of(g)
    for _ in range(300):
        x, y = int(rng.integers(145)), int(rng.integers(115))
        world.update("g", rect=(x, y, int(rng.integers(1, 6)), int(rng.integers(1, 6))),
                     walkable=bool(rng.random() < 0.5))
        world.tick()
    sizes = h.hierarchical_sizes()
    assert sizes.max() <= MAX_CHILDREN
    fresh = navcore.World(autoload=False).add_graph("f", type="grid",
                                                    array=g.walkable_grid.copy())
    n_fresh = hierarchy_of(fresh).num_hierarchical_nodes
    assert h.num_hierarchical_nodes <= 1.5 * n_fresh, (h.num_hierarchical_nodes, n_fresh)
    assert h.builds == 1 and h.updates > 250        # never rebuilt from scratch
    assert 0 < h.local_updates < h.updates          # both ways of settling ran
    assert same_partition(world.areas("g"), grid_labels(g.walkable_grid, {}),
                          g.walkable_grid)


class ComponentLog:
    def __init__(self):
        self.calls = []

    @navcore.hookimpl
    def navcore_components_changed(self, graph_id, changed_areas):
        self.calls.append((graph_id, changed_areas.tolist()))


DUNGEON = ["....#....",
           "....#....",
           ".........",
           "....#...."]


@pytest.mark.nojit
@exercises("navcore_areas", "navcore_components_changed")
def test_door_splits_and_merges_areas_and_tells_listeners():
    log = ComponentLog()
    world = navcore.World(autoload=False, plugins=[log])
    world.add_graph("d", type="grid", rows=DUNGEON)
    left, right = world.area("d", (0, 0)), world.area("d", (8, 0))
    assert left == right >= 0 and world.area("d", (4, 0)) == -1
    world.update("d", cells=[(1, 1)], walkable=False)        # no split
    world.tick()
    assert log.calls == [] and world.area("d", (0, 0)) == left
    world.update("d", cells=[(4, 2)], walkable=False)        # close the door
    world.tick()
    a, b = world.area("d", (0, 0)), world.area("d", (8, 0))
    # the component with the lowest hierarchical node keeps the old id, the
    # other side gets a new one; both are reported
    assert a == left and b != a and b >= 0
    assert log.calls == [("d", sorted({a, b}))]
    r = world.find_path("d", (0, 0), (8, 0))
    assert r.status == PathStatus.UNREACHABLE and r.expanded == 0
    world.update("d", cells=[(4, 2)], walkable=True)         # open it again
    world.tick()
    assert world.area("d", (0, 0)) == world.area("d", (8, 0)) == left
    assert log.calls[-1] == ("d", sorted({a, b}))
    assert world.find_path("d", (0, 0), (8, 0)).found
    # an area that vanishes and one that appears
    world.update("d", cells=[(0, 3), (0, 2), (1, 3)], walkable=False)
    world.tick()
    n_calls = len(log.calls)
    world.update("d", cells=[(4, 3)], walkable=True)         # a wall cell opens
    world.tick()
    assert len(log.calls) == n_calls                          # joins, no new area
    areas = world.areas("d")
    assert areas.dtype == np.int32 and areas.shape == (36,)
    assert world.area("d", (99.0, 99.0)) == -1               # outside the map


@pytest.mark.nojit
@exercises("navcore_nearest_reachable")
def test_nearest_reachable_picks_the_closest_cell_of_the_start_area():
    rows = ["......#...",
            "......#.#.",
            "......#.#.",
            "......###."]
    world = navcore.World(autoload=False)
    world.add_graph("g", type="grid", rows=rows)
    # a point on the walled-in island (7, 1..2): closest reachable cell is left of the wall
    assert world.nearest_reachable("g", (7.5, 1.5), from_=(0, 0)) == world.graph("g").node_id(5, 1)
    # a point in a wall
    assert world.nearest_reachable("g", (6.2, 0.5), from_=(0, 0)) == world.graph("g").node_id(5, 0)
    # a point in the start's own area is its own cell
    assert world.nearest_reachable("g", (2.5, 3.5), from_=(0, 0)) == world.graph("g").node_id(2, 3)
    # from the island, the far-away left point maps onto the island
    assert world.nearest_reachable("g", (0.5, 0.5), from_=(7, 1)) == world.graph("g").node_id(7, 0)
    assert world.nearest_reachable("g", (0.5, 0.5), from_=(6, 0)) == -1     # blocked start


def test_nearest_reachable_matches_brute_force_on_random_grids():
    rng = np.random.default_rng(8)
    for _ in range(10):
        walk = rng.random((25, 30)) >= 0.4
        world = navcore.World(autoload=False)
        world.add_graph("g", type="grid", array=walk)
        labels = grid_labels(walk, {})
        free = np.argwhere(walk)
        sy, sx = free[rng.integers(len(free))]
        p = rng.random(2) * [30, 25]
        got = world.nearest_reachable("g", tuple(p), from_=(int(sx), int(sy)))
        ys, xs = np.nonzero(labels == labels[sy, sx])
        d = (xs + 0.5 - p[0]) ** 2 + (ys + 0.5 - p[1]) ** 2
        gy, gx = divmod(got, 30)
        assert labels[gy, gx] == labels[sy, sx]
        assert (gx + 0.5 - p[0]) ** 2 + (gy + 0.5 - p[1]) ** 2 == pytest.approx(d.min())


@pytest.mark.nojit
@exercises("navcore_reachable_many")
def test_one_way_edges_and_directed_graphs():
    # 0 -> 1 -> 2, 2 -> 0 closes a cycle; 3 -> 4 is one-way only
    world = navcore.World(autoload=False)
    world.add_graph("g", type="csr", src=[0, 1, 2, 3], dst=[1, 2, 0, 4], num_nodes=6,
                    positions=[[0, 0], [1, 0], [2, 0], [5, 0], [6, 0], [9, 9]])
    assert world.reachable("g", 0, 2) and world.reachable("g", 2, 1)
    assert world.reachable("g", 3, 4) and not world.reachable("g", 4, 3)
    assert not world.reachable("g", 0, 3)
    assert world.area("g", 3) == world.area("g", 4) != world.area("g", 0)
    got = world.reachable_many("g", [3, 4, 0, 5], [4, 3, 2, 5])
    assert got.tolist() == [True, False, True, True]
    assert world.nearest_reachable("g", (6.0, 0.0), from_=4) == 4
    assert world.nearest_reachable("g", (5.0, 0.0), from_=4) == 4   # 3 is not reachable
    assert world.nearest_reachable("g", (5.0, 0.0), from_=3) == 3


@pytest.mark.nojit
def test_nearest_reachable_takes_a_2d_point_on_a_3d_graph_at_height_0():
    # the kernel reads as many coordinates as the positions have: a 2-d
    # point was read past its end (garbage with the JIT, IndexError without)
    world = navcore.World(autoload=False)
    world.add_graph("g", type="csr", src=[0, 2], dst=[1, 3], num_nodes=4, directed=False,
                    positions=[[0, 0, 0], [4, 0, 3], [10, 0, 0], [11, 0, 0]])
    # (9, 0) lies in the other area: of 0's, node 0 is 9 away, node 1 is
    # sqrt(25 + 9) at height 0
    assert world.nearest_reachable("g", (9.0, 0.0), from_=0) == 1
    assert world.nearest_reachable("g", (9.0, 0.0, 40.0), from_=0) == 1
    assert world.nearest_reachable("g", (2.0, 0.0, 0.0), from_=2) == 2


@pytest.mark.nojit
def test_bad_input_says_what_is_wrong():
    world = navcore.World(autoload=False)
    world.add_graph("g", type="csr", src=[0], dst=[1], num_nodes=3)
    with pytest.raises(navcore.QueryError, match="as many a as b"):
        world.reachable_many("g", [0, 1], [1])
    with pytest.raises(navcore.NodeError, match="out of range"):
        world.reachable_many("g", [0, 7], [1, 1])
    with pytest.raises(navcore.QueryError, match="needs node positions"):
        world.nearest_reachable("g", (0.0, 0.0), from_=0)
    with pytest.raises(navcore.NodeError, match="out of range"):
        world.area("g", 3)
    world.add_graph("grid", type="grid", rows=["..", ".."])
    assert world.reachable_many("grid", [(0, 0), (5.0, 5.0)], [(1, 1), (0, 0)]).tolist() \
        == [True, False]


def test_world_without_the_areas_plugin_still_answers_reachable():
    world = navcore.World(autoload=False)
    world.plugins.unregister("areas")
    world.add_graph("g", type="csr", src=[0, 1], dst=[1, 2], num_nodes=4, directed=False)
    assert world.reachable_many("g", [0, 0], [2, 3]).tolist() == [True, False]
    with pytest.raises(navcore.QueryError, match="areas plugin"):
        world.areas("g")


def test_areas_command_reports_a_door_closing_and_opening(tmp_path, capsys):
    import json
    from navcore.cli import main

    door = tmp_path / "door.map"
    door.write_text("type octile\nheight 3\nwidth 9\nmap\n"
                    + "\n".join(["....@....", ".........", "....@...."]) + "\n")
    out_json = tmp_path / "areas.json"
    assert main(["areas", str(door), "--block", "4,1,1,1", "--open", "4,1,1,1",
                 "--json", str(out_json)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "25 walkable cells, 1 areas (largest 25 cells)" in lines[0]
    assert lines[1].startswith("block 4,1,1,1: 2 areas (largest 12), changed ids [0, 1]")
    assert lines[2].startswith("open 4,1,1,1: 1 areas (largest 25), changed ids [0, 1]")
    report = json.loads(out_json.read_text())
    assert [c["areas"] for c in report["changes"]] == [2, 1]
    with pytest.raises(SystemExit):                       # argparse: exit status 2
        main(["areas", str(door), "--block", "4,1"])
    assert "expected X,Y,W,H" in capsys.readouterr().err
    assert main(["areas", str(tmp_path / "missing.map")]) == 2
    assert "not found" in capsys.readouterr().err


@pytest.mark.nojit
@exercises("navcore_components_changed")
def test_an_observer_that_queries_sees_current_areas_and_events_still_fire():
    # another plugin's navcore_graph_updated asks reachable: it must see the
    # batch already, and the door's split and merge must still be reported
    class Asker:
        def __init__(self):
            self.answers, self.events = [], []

        @navcore.hookimpl
        def navcore_graph_updated(self, world, graph_id):
            self.answers.append(world.reachable(graph_id, (0, 0), (4, 0)))

        @navcore.hookimpl
        def navcore_components_changed(self, changed_areas):
            self.events.append(changed_areas.tolist())

    asker = Asker()
    world = navcore.World(plugins=[asker])
    world.add_graph("g", type="grid", rows=["..#..", ".....", "..#.."])
    world.update("g", cells=[(2, 1)], walkable=False)
    world.tick()
    world.update("g", cells=[(2, 1)], walkable=True)
    world.tick()
    assert asker.answers == [False, True]
    assert len(asker.events) == 2
