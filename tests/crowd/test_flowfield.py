"""Flow fields: the exact cost to the goal from every cell (against
scipy's Dijkstra on the grid's moves), next cells that walk it at that
cost, and crowds that share one field per goal and follow map changes."""
import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

import navcore
from crowdkit import walk_to_near
from navcore_crowd import crowd as C
from navcore_crowd.flowfield import FlowField


def _random_grid(rng, width=20, height=14, walls=70):
    cells = np.full((height, width), ".")
    cells.flat[rng.choice(width * height, walls, replace=False)] = "#"
    return ["".join(r) for r in cells]


def _truth(graph, goal):
    """The cost to ``goal`` from every node: scipy's Dijkstra from the goal
    over the graph's allowed moves, reversed."""
    csr = graph.csr
    src = np.repeat(np.arange(graph.num_nodes), np.diff(csr.offsets))
    ok = np.isfinite(csr.cost)
    m = csr_matrix((csr.cost[ok], (csr.targets[ok], src[ok])),
                   shape=(graph.num_nodes, graph.num_nodes))
    return dijkstra(m, indices=goal)


def _walk_cost(graph, field, start):
    """The cells from ``start`` along ``field.next`` and the sum of their
    moves' costs (added from the goal's end, as the field adds them)."""
    csr = graph.csr
    cells, costs = [start], []
    while cells[-1] != field.goal:
        u, v = cells[-1], int(field.next[cells[-1]])
        row = slice(csr.offsets[u], csr.offsets[u + 1])
        costs.append(float(csr.cost[row][csr.targets[row] == v][0]))
        cells.append(v)
        assert len(cells) <= graph.num_nodes
    total = 0.0
    for c in reversed(costs):
        total = c + total
    return cells, total


def _check(graph, field):
    truth = _truth(graph, field.goal)
    np.testing.assert_allclose(field.cost, truth, rtol=1e-12, atol=0)
    assert np.array_equal(np.isinf(field.cost), np.isinf(truth))
    assert (field.next[np.isinf(truth)] == -1).all()
    for start in np.flatnonzero(np.isfinite(truth)).tolist():
        _, total = _walk_cost(graph, field, start)
        assert total == field.cost[start]


@pytest.mark.parametrize("connectivity,corner_cutting", [(8, False), (8, True), (4, False)])
def test_field_is_the_exact_cost_to_the_goal_before_and_after_map_updates(
        connectivity, corner_cutting):
    rng = np.random.default_rng(connectivity + corner_cutting)
    world = navcore.World()
    cost = rng.uniform(1.0, 3.0, (14, 20))
    graph = world.add_graph("g", type="grid", rows=_random_grid(rng),
                            connectivity=connectivity, corner_cutting=corner_cutting)
    world.update("g", mask=graph.walkable_grid.copy(), cost=cost)
    world.tick(0.0)
    free = np.flatnonzero(graph.walkable)
    for _ in range(3):
        for goal in rng.choice(free, 3, replace=False).tolist():
            _check(graph, FlowField(graph, goal))
        x, y = rng.integers(0, 16), rng.integers(0, 10)
        world.update("g", rect=(x, y, 4, 3), walkable=bool(rng.random() < 0.4))
        world.update("g", cells=[tuple(c) for c in rng.integers(0, (20, 14), (5, 2))],
                     cost=float(rng.uniform(1, 5)))
        world.tick(0.0)
        free = np.flatnonzero(graph.walkable)


@pytest.mark.nojit
def test_field_on_a_small_grid_and_a_directed_graph():
    world = navcore.World()
    graph = world.add_graph("g", type="grid", rows=["....", ".##.", "...#"])
    field = FlowField(graph, graph.node_id(0, 2))
    _check(graph, field)
    assert field.next[graph.node_id(0, 2)] == graph.node_id(0, 2)
    assert field.next[graph.node_id(1, 1)] == -1 and np.isinf(field.cost[graph.node_id(3, 2)])
    # a one-way ring 0 -> 1 -> 2 -> 3 -> 0 with a shortcut 1 -> 3: in-edges count
    ring = world.add_graph("r", type="csr", src=[0, 1, 2, 3, 1], dst=[1, 2, 3, 0, 3],
                           cost=[1.0, 1.0, 1.0, 1.0, 5.0])
    field = FlowField(ring, 0)
    assert field.cost.tolist() == [0.0, 3.0, 2.0, 1.0]
    assert field.next.tolist() == [0, 2, 3, 0]
    with pytest.raises(navcore.NodeError, match="goal node 9 is out of range"):
        FlowField(ring, 9)
    with pytest.raises(navcore.NodeError, match="goal must be an integer node id"):
        FlowField(ring, 1.5)
    with pytest.raises(navcore.GraphError, match="FlowField needs a navcore graph"):
        FlowField("r", 0)
    assert field.chains([1, 2], 3).tolist() == [[2, 3, 0], [3, 0, 0]]
    with pytest.raises(navcore.NodeError, match="out of range"):
        field.chains([4], 2)
    with pytest.raises(navcore.QueryError, match="k must be a whole number from 1"):
        field.chains([1], 0)


def _units(world, rows, n, radius=0.3):
    graph = world.add_graph("g", type="grid", rows=rows)
    crowd = world.add_crowd("c", graph="g", radius=radius, max_speed=2.0)
    rng = np.random.default_rng(4)
    free = np.flatnonzero(graph.walkable & (np.arange(graph.num_nodes) % graph.width < 6))
    ids = crowd.add(graph.points_of(rng.choice(free, n, replace=False)))
    return graph, crowd, ids


def test_forty_units_to_one_point_share_one_field_and_get_there():
    rows = ["." * 30] * 20
    rows = [r[:15] + "#" + r[16:] if 4 <= i < 16 else r for i, r in enumerate(rows)]
    world = navcore.World()
    graph, crowd, ids = _units(world, rows, 40)
    goal = (25.5, 9.5)
    crowd.set_goals(ids, goal)
    assert crowd._handles == {}                      # no path requests
    for _ in range(400):
        world.tick(0.1)
        cells = np.floor(crowd.positions).astype(int)
        assert graph.walkable[cells[:, 1] * graph.width + cells[:, 0]].all()
        if crowd.arrived.all():
            break
    assert crowd.fields_made == 1
    # 40 discs of radius 0.3 pack within about 2.1 of the goal
    d = np.hypot(*(crowd.positions - goal).T)
    assert d.max() < 5.0 and crowd.arrived.mean() >= 0.5, (d.round(2), crowd.state_names())


def test_a_small_group_keeps_its_paths_and_a_grown_one_joins_the_field():
    world = navcore.World()
    graph, crowd, ids = _units(world, ["." * 12] * 8, 12)
    crowd.set_goals(ids[:C.FLOW_MIN_AGENTS - 1], (10.5, 4.5))
    assert len(crowd._handles) == C.FLOW_MIN_AGENTS - 1
    world.tick(0.1)
    assert crowd.fields_made == 0
    crowd.set_goals(ids[C.FLOW_MIN_AGENTS - 1:], (10.2, 4.8))      # the same goal cell
    assert crowd._handles == {}
    world.tick(0.1)
    assert crowd.fields_made == 1 and set(crowd.state_names()) == {"moving"}
    crowd.stop(ids[:2])
    crowd.set_goals(ids[2:4], (1.5, 1.5))     # too few for a field there: paths
    assert set(crowd._handles) == set(ids[2:4].tolist())


def _settle(world):
    """Five seconds more: the last to arrive can have pushed one that had
    arrived away from the goal, which walks back once left alone."""
    for _ in range(50):
        world.tick(0.1)


def test_a_wall_makes_the_field_again_and_the_units_go_round():
    # a wall with a door at x = 4 and one at x = 12; the near door closes
    rows = ["." * 16] * 4 + ["####.#######.###"] + ["." * 16] * 4
    world = navcore.World()
    graph, crowd, ids = _units(world, rows, 10)
    crowd.teleport(ids, [(x + 0.5, y + 0.5) for x in range(5) for y in range(2)])
    crowd.set_goals(ids, (4.5, 8.5))
    world.tick(0.1)
    assert crowd.fields_made == 1
    world.update("g", cells=[(4, 4)], walkable=False)
    via = set()
    for _ in range(400):
        world.tick(0.1)
        on_wall = np.floor(crowd.positions[:, 1]) == 4
        via.update(np.floor(crowd.positions[on_wall, 0]).astype(int).tolist())
        if crowd.arrived.all():
            break
    assert crowd.fields_made == 2 and via == {12}
    _settle(world)
    assert (np.hypot(*(crowd.positions - (4.5, 8.5)).T) < 3.0).all()
    # both doors shut: no way; one opens: they come
    crowd.teleport(ids, [(x + 0.5, y + 0.5) for x in range(5) for y in range(2)])
    crowd.set_goals(ids, (4.5, 8.5))
    world.update("g", cells=[(12, 4)], walkable=False)
    world.tick(0.1)
    assert set(crowd.state_names()) == {"no_path"}
    world.update("g", cells=[(4, 4)], walkable=True)
    for _ in range(300):
        world.tick(0.1)
        if crowd.arrived.all():
            break
    _settle(world)
    assert (np.hypot(*(crowd.positions - (4.5, 8.5)).T) < 3.0).all()


def test_units_on_a_field_walk_straight_across_an_open_room():
    # eight units at a slant to their goal: cell to cell (an octile walk)
    # they would go up to 8% farther than the straight line
    world = navcore.World()
    world.add_graph("g", type="grid", rows=["." * 40] * 30)
    crowd = world.add_crowd("c", graph="g", radius=0.3, max_speed=2.0)
    starts = np.c_[np.full(8, 1.5), 2.5 + 3 * np.arange(8)]
    goal = np.array([37.5, 14.5])
    crowd.add(starts, goals=goal)
    near = 3.0                                 # where the group crowds round the goal
    done, walked = walk_to_near(world, crowd, goal, near, 300)
    assert done.all() and crowd.fields_made == 1
    straight = np.hypot(*(starts - goal).T) - near
    assert (walked / straight < 1.02).all(), walked / straight


def test_a_group_whose_field_cannot_be_made_again_plans_paths_instead(monkeypatch):
    """After a map change a group's field is made again; when the graph's
    plugins make none any more (a plugin that stopped answering), the
    group plans a path each and still gets there."""
    world = navcore.World()
    graph, crowd, ids = _units(world, ["." * 20] * 8, 10)
    crowd.set_goals(ids, (17.5, 4.5))
    world.tick(0.1)
    assert crowd._handles == {} and crowd.fields_made == 1
    monkeypatch.setattr(crowd, "_make_fields", lambda todo: False)
    world.update(graph.graph_id, rect=(10, 0, 1, 3), walkable=False)
    for _ in range(200):
        world.tick(0.1)
        if crowd.arrived.all():
            break
    assert crowd._flow is False and (crowd._field < 0).all()     # paths, not fields
    assert crowd.arrived.mean() >= 0.8, crowd.state_names()


def test_a_unit_that_stalls_on_a_door_jamb_heads_for_the_next_cell_and_gets_out():
    # the evacuation scene's map: a unit standing in a hall's door, its disc
    # on the jamb's corner; the farthest cell its centre sees along the
    # field is down the corridor, past the corner by 0.04, and the disc
    # cannot follow: without the fallback to the next cell it stalled there
    from pathlib import Path
    world = navcore.World(deterministic=True)
    scenes = Path(__file__).resolve().parents[2] / "scenes"
    world.add_graph("g", type="grid", map=str(scenes / "maps" / "evacuation.map"))
    crowd = world.add_crowd("c", graph="g", radius=0.3, max_speed=1.5, time_horizon=1.0,
                            time_horizon_obstacles=0.25)
    jamb = (82.72579407, 36.98779797)
    crowd.add([jamb] + [(20.5 + 2 * k, 20.5) for k in range(7)], goals=[(121.5, 39.5)],
              radius=[0.27420593233921275] + [0.3] * 7)
    for _ in range(300):
        world.tick(0.1)
    assert crowd.fields_made == 1                      # the eight walk one field
    assert crowd.state_names()[0] == "arrived", crowd.positions[0]
