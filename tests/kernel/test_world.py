"""World API: statuses, validation, world unchanged after bad input."""
import numpy as np
import pytest

import navcore
from navcore import PathStatus


@pytest.fixture
def line(world):
    # 0 - 1 - 2 - 3, plus isolated 4
    world.add_graph("line", type="csr", src=[0, 1, 2], dst=[1, 2, 3],
                    cost=[1.0, 2.0, 3.0], num_nodes=5, directed=False,
                    positions=[[0, 0], [1, 0], [3, 0], [6, 0], [9, 9]])
    return world


@pytest.mark.nojit
def test_statuses(line):
    r = line.find_path("line", 0, 3)
    assert r.found and r.cost == 6.0 and r.nodes.dtype == np.int32
    assert r.points.shape == (4, 2) and r.points[-1].tolist() == [6.0, 0.0]
    assert line.find_path("line", 0, 4).status == PathStatus.UNREACHABLE
    assert line.find_path("line", 2, 2).nodes.tolist() == [2]
    line.update("line", nodes=[0], walkable=False)
    line.update("line", nodes=[4], walkable=False)
    line.tick()
    assert line.find_path("line", 0, 3).status == PathStatus.INVALID_START
    assert line.find_path("line", 3, 4).status == PathStatus.INVALID_GOAL
    assert not line.reachable("line", 0, 3)


@pytest.mark.nojit
def test_points_resolve_to_nearest_node_when_positions_exist(line):
    assert line.locate("line", (2.9, 0.2)) == 2
    assert line.find_path("line", (0.1, 0.0), (5.5, 0.5)).nodes.tolist() == [0, 1, 2, 3]


@pytest.mark.nojit
@pytest.mark.parametrize("start, goal, error, message", [
    (7, 0, navcore.NodeError, "node id 7 is out of range"),
    (0, -1, navcore.NodeError, "node id -1 is out of range"),
    (0, "a", navcore.NodeError, "expected a node id or a point"),
    (0, (np.nan, 0), navcore.NodeError, "not finite"),
])
def test_bad_nodes_raise(line, start, goal, error, message):
    with pytest.raises(error, match=message):
        line.find_path("line", start, goal)


@pytest.mark.nojit
def test_node_ids_only_without_positions(world):
    world.add_graph("g", type="csr", src=[0], dst=[1])
    with pytest.raises(navcore.NodeError, match="no node positions"):
        world.find_path("g", (0, 0), 1)
    assert np.isnan(world.find_path("g", 0, 1).points).all()


@pytest.mark.nojit
@pytest.mark.parametrize("params, message", [
    (dict(src=[0, 1], dst=[1]), "src has 2 entries but dst has 1"),
    (dict(src=[0], dst=[1], cost=[-2.0]), "has cost -2.0"),
    (dict(src=[0], dst=[1], colour="red"), "unexpected keyword argument 'colour'.*"
                                           "parameters: src, dst, cost"),
    (dict(dst=[1]), "missing a required argument: 'src'"),
    (dict(src=[0], dst=[1], positions=[[0, 0]]), r"positions has shape \(1, 2\)"),
    (dict(src=[0], dst=[1], heuristic="chebyshev"), "unknown heuristic 'chebyshev'"),
])
def test_bad_graph_parameters_leave_the_world_unchanged(world, params, message):
    world.add_graph("keep", type="csr", src=[0], dst=[1])
    with pytest.raises(navcore.GraphError, match=message):
        world.add_graph("new", type="csr", **params)
    assert list(world.graphs) == ["keep"]


@pytest.mark.nojit
def test_duplicate_and_unknown_graph_ids(world):
    world.add_graph("g", type="csr", src=[0], dst=[1])
    with pytest.raises(navcore.GraphError, match="already in use"):
        world.add_graph("g", type="csr", src=[0], dst=[1])
    with pytest.raises(navcore.UnknownGraphError, match="no graph 'h'.*'g'"):
        world.update("h", nodes=[0], walkable=False)


@pytest.mark.nojit
@pytest.mark.parametrize("params, message", [
    (dict(nodes=[9], walkable=False), r"nodes of graph .line. holds node id 9 \(index 0\), out of range"),
    (dict(nodes=[0], walkable="no"), "walkable must be True or False"),
    (dict(edges=[(0, 3)], cost=1.0), "has no edge 0 -> 3"),
    (dict(edges=[(0, 1)], cost=-1.0), "cost must be numbers >= 0"),
    (dict(edges=[0, 1], cost=1.0), "edges must be a list of"),
    (dict(speed=2), r"unknown update parameter\(s\) \['speed'\]"),
])
def test_bad_updates_raise_at_once_and_queue_nothing(line, params, message):
    with pytest.raises(navcore.UpdateError, match=message):
        line.update("line", **params)
    assert line.pending_updates() == 0


@pytest.mark.nojit
def test_edge_cost_updates_apply_on_tick_last_write_wins(line):
    line.update("line", edges=[(1, 2)], cost=10.0)
    line.update("line", edges=[(1, 2)], cost=np.inf)
    assert line.find_path("line", 0, 3).cost == 6.0
    stats = line.tick()
    assert stats.updates_applied == 2 and stats.dirty_nodes == 2
    assert line.find_path("line", 0, 3).status == PathStatus.UNREACHABLE
    line.update("line", edges=[(2, 1)], cost=0.5)   # undirected: both directions
    line.tick()
    assert line.find_path("line", 3, 0).cost == 4.5


def test_distance_matrix_through_the_world(line):
    m = line.distance_matrix("line", [0, 3], [3, 0, 4])
    assert m.tolist() == [[6.0, 0.0, np.inf], [0.0, 6.0, np.inf]]


def test_directed_matrix_uses_reverse_search_for_few_targets(world):
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 60, 200), rng.integers(0, 60, 200)
    cost = rng.uniform(0.1, 5, 200)
    world.add_graph("d", type="csr", src=src, dst=dst, cost=cost, num_nodes=60)
    many, few = np.arange(40), np.array([5, 17])
    forward = np.array([[world.find_path("d", int(s), int(t)).cost for t in few]
                        for s in many])
    np.testing.assert_allclose(world.distance_matrix("d", many, few), forward)


WARM_SCRIPT = r"""
import sys, numpy as np, navcore, numba
from numba.core.registry import CPUDispatcher

def loaded():
    out = {}
    for name, mod in list(sys.modules.items()):
        if name.startswith(("navcore", "navcore_")):
            for attr, obj in vars(mod).items():
                if isinstance(obj, CPUDispatcher):
                    out[f"{name}.{attr}"] = len(obj.overloads)
    return out

world = navcore.World(frame_budget_ms=1e7)
rows = ["........#.........", "........#.........", "..................",
        "........#........."]
world.add_graph("g", type="grid", rows=rows)
world.add_graph("c", type="csr", src=[0, 1, 2], dst=[1, 2, 3], positions=np.eye(4, 2),
                directed=False)
world.warm_up()
before = loaded()
h = world.request_path("g", (0, 0), (17, 0), repath=True)
world.tick()
world.find_path("g", (0, 0), (17, 3), algorithm="astar")
world.find_path("c", 0, 3)
world.update("g", cells=[(8, 2)], walkable=False)       # splits the map: areas, re-plan
world.tick()
world.update("g", cells=[(8, 2)], walkable=True)
world.update("g", rect=(0, 0, 2, 2), cost=3.0)
world.tick()
world.path_costs("g", [h.result().nodes])
new = {k: v for k, v in loaded().items() if v != before.get(k, 0)}
print(sorted(new))
world.scheduler.close()
"""


def test_warm_up_loads_every_kernel_a_game_frame_needs(tmp_path):
    """After ``world.warm_up()`` a frame's usual work (requests, re-plans,
    updates that split areas, costs) calls no kernel for the first time, so
    no frame waits for a numba cache load. In a fresh process."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", WARM_SCRIPT], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", f"kernels first called after warm_up: {out.stdout}"


@pytest.mark.nojit
def test_path_costs_rejects_what_is_not_a_list_of_paths(world):
    world.add_graph("g", type="grid", rows=["..."])
    for bad in (5, "abc", None):
        with pytest.raises(navcore.NodeError, match="paths must be a list"):
            world.path_costs("g", bad)
    assert world.path_costs("g", []).tolist() == []


@pytest.mark.nojit
@pytest.mark.parametrize("call", [
    lambda w, bad: w.path_costs("line", [[0, bad]]),
    lambda w, bad: w.distance_matrix("line", [0, bad], [1]),
    lambda w, bad: w.reachable_many("line", [0, bad], [1, 2]),
])
@pytest.mark.parametrize("bad", [True, np.bool_(False), (np.nan, 0.0)])
def test_node_lists_reject_bools_and_points_mixed_with_ids(line, call, bad):
    # numpy reads [0, True] as [0, 1] and cannot make an array of
    # [0, (nan, 0)]: neither may pass as node ids or escape as a bare error
    with pytest.raises(navcore.NodeError):
        call(line, bad)


@pytest.mark.nojit
def test_a_2d_point_on_a_3d_graph_is_top_down():
    # node 1 sits right above (1, 0) but high up; (0.9, 0) is nearest to it
    # seen from above, and to node 0 if the point were taken at height 0
    world = navcore.World()
    g = world.add_graph("g", type="csr", src=[0, 1], dst=[1, 2], directed=False,
                        positions=[[0, 0, 0], [1, 0, 5], [2, 0, 0]])
    assert g.locate((0.9, 0)) == 1 and g.locate((0.9, 0, 0)) == 0
    r = world.find_path("g", 0, 1)
    assert [g.locate(p) for p in r.points] == r.nodes.tolist()
    world.update("g", nodes=[2], walkable=False)
    world.tick()
    assert world.nearest_reachable("g", (1.9, 0), 0) == 1


@pytest.mark.nojit
def test_tick_checks_dt_and_budget_before_anything_changes(line):
    import math
    w = line
    w.update("line", edges=[(0, 1)], cost=5.0)
    frame = w.frame
    for bad in (None, "x", True, -1, math.nan, math.inf, [0.1]):
        with pytest.raises(navcore.FrameError, match="dt"):
            w.tick(bad)
    for bad in (-2.0, math.nan, math.inf, "2", False):
        with pytest.raises(navcore.FrameError, match="budget_ms"):
            w.tick(0.016, budget_ms=bad)
    assert w.frame == frame and w.pending_updates() == 1          # nothing ran
    assert w.tick(0.016).frame == frame + 1 and w.pending_updates() == 0
    assert w.tick(np.float32(0.0)).dt == 0.0
