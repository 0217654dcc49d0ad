"""Flow fields on navmeshes: the field's distance at every polygon's
centroid and at random points is the exact any-angle length Polyanya
finds (``find_path``), before and after random map updates; following its
corners from anywhere walks a shortest path; crowds sharing a goal walk
one field."""
import numpy as np
import pytest
import shapely

import navcore
from crowdkit import obstacle_mesh, walk_to_near
from hooktags import exercises
from navcore_navmesh import MeshFlowField, path_lengths

#: the field against Polyanya: both sum the same segments, in other orders
REL = 1e-9


def _truth(graph, points, goal):
    """Polyanya's lengths from ``points`` to ``goal`` (inf: no way)."""
    out = path_lengths(graph, points, np.repeat([goal], len(points), axis=0))
    return np.where(np.isnan(out), np.inf, out)        # nan: a point in a blocked polygon


def _samples(world, graph, rng, k=120):
    """Every walkable polygon's centroid and ``k`` random points."""
    free = np.flatnonzero(graph.walkable)
    rand = np.array([world.random_point(graph.graph_id, rng).point[:2] for _ in range(k)])
    return np.vstack([graph.positions[free, :2], rand])


def _check(world, graph, goal, rng):
    field = MeshFlowField(graph, goal)
    assert field.version == graph.version and field.current
    pts = _samples(world, graph, rng)
    got, truth = field.distances(pts), _truth(graph, pts, goal)
    assert np.array_equal(np.isinf(got), np.isinf(truth))
    fin = np.isfinite(truth)
    np.testing.assert_allclose(got[fin], truth[fin], rtol=REL, atol=0)
    # the polygons it reaches: those Polyanya reaches from their centroids
    free = np.flatnonzero(graph.walkable)
    assert np.array_equal(field.reachable[free], fin[:free.size])
    return field, pts[fin]


@pytest.mark.parametrize("tile_size", [None, 0])
def test_field_is_the_exact_distance_before_and_after_map_updates(tile_size):
    rng = np.random.default_rng(11 if tile_size is None else 12)
    world, graph = obstacle_mesh(rng, tile_size)
    for step in range(4):
        for _ in range(2):
            goal = world.random_point("m", rng).point[:2]
            _check(world, graph, goal, rng)
        # a few centroids checked by find_path itself, the public call
        field = MeshFlowField(graph, goal)
        for p in graph.positions[np.flatnonzero(graph.walkable)[:5], :2]:
            r = world.find_path("m", tuple(p), tuple(goal))
            want = r.cost if r.found else np.inf
            assert field.distances([p])[0] == pytest.approx(want, rel=REL)
        # random map updates: polygons blocked, portals closed, and on a
        # tiled mesh obstacles that come and go and a wall region
        free = np.flatnonzero(graph.walkable)
        world.update("m", nodes=rng.choice(free, 3, replace=False).tolist(), walkable=False)
        csr = graph.csr
        u = int(rng.choice(np.flatnonzero(np.diff(csr.offsets) > 0)))
        v = int(csr.targets[csr.offsets[u]])
        world.update("m", edges=[(u, v), (v, u)], cost=np.inf)
        if tile_size is None:
            x, y = rng.uniform(2, 34, 2)
            world.update("m", add_obstacle=shapely.box(x, y, x + 3, y + 1.5),
                         obstacle_id=f"box{step}")
            if step:
                world.update("m", remove_obstacle=f"box{step - 1}")
            world.update("m", rect=(float(rng.uniform(0, 30)), 10.0, 1.0, 8.0),
                         walkable=False)
        world.tick(0.0)


def test_following_the_field_walks_a_shortest_path():
    rng = np.random.default_rng(5)
    world, graph = obstacle_mesh(rng, None)
    world.update("m", rect=(12.0, 0.0, 1.0, 26.0), walkable=False)     # a long wall
    world.tick(0.0)
    for _ in range(3):
        goal = world.random_point("m", rng).point[:2]
        field, starts = _check(world, graph, goal, rng)
        for start in starts[rng.choice(len(starts), 25, replace=False)]:
            here, walked, turns = start, 0.0, 0
            while not np.array_equal(here, goal):
                _, ahead, count = field.steer([here], [graph.locate(tuple(here))])
                ahead = [a for a in ahead[0, :count[0]] if not np.array_equal(a, here)]
                nxt = ahead[0] if ahead else np.asarray(goal)
                step = float(np.hypot(*(nxt - here)))
                # a straight walk: Polyanya's way between the two is the segment
                assert _truth(graph, [here], nxt)[0] == pytest.approx(step, rel=REL, abs=1e-12)
                walked, here, turns = walked + step, nxt, turns + 1
                assert turns < 100
            assert walked == pytest.approx(field.distances([start])[0], rel=REL)


@pytest.mark.nojit
def test_goals_on_corners_and_edges_and_a_mesh_of_arrays():
    # two squares side by side, a third above the right one: an L
    vertices = np.array([(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (1, 2), (2, 2.0)])
    polygons = [[0, 1, 4, 3], [1, 2, 5, 4], [4, 5, 7, 6]]
    world = navcore.World()
    graph = world.add_graph("l", type="navmesh", vertices=vertices, polygons=polygons)
    # the goal on the inner corner (1, 1): every polygon round it holds it
    field = MeshFlowField(graph, (1.0, 1.0))
    assert sorted(field.goal_polygons.tolist()) == [0, 1, 2]
    d = field.distances([(0.0, 0.0), (2.0, 2.0), (1.0, 1.0), (0.5, 0.5)])
    np.testing.assert_allclose(d, [np.sqrt(2), np.sqrt(2), 0.0, np.sqrt(0.5)], rtol=1e-15)
    # on the edge between the right square and the top one: round the corner
    field = MeshFlowField(graph, (1.5, 1.0))
    assert sorted(field.goal_polygons.tolist()) == [1, 2]
    d = field.distances([(0.0, 1.0), (1.0, 2.0), (0.0, 0.0)])
    np.testing.assert_allclose(d, [1.5, np.hypot(0.5, 1.0), np.hypot(1.5, 1.0)], rtol=1e-15)
    # from the top square's far corner to the left square's: round (1, 1)
    field = MeshFlowField(graph, (0.0, 0.0))
    cost, ahead, count = field.steer([(1.0, 2.0)], [2])
    assert count.tolist() == [1] and ahead[0, 0].tolist() == [1.0, 1.0]
    assert cost[0] == pytest.approx(1.0 + np.sqrt(2), rel=1e-15)
    # a node that does not hold the point (as after an update) is located again
    assert field.steer([(1.0, 2.0)], [0])[0][0] == cost[0]
    # a disc of radius 0.1 rounds it 0.1 off, on the bisector of the turn,
    # away from the missing top-left square
    _, ahead, _ = field.steer([(1.0, 2.0)], [2], radii=[0.1])
    bisector = np.array([0.0, 1.0]) + np.array([-1.0, -1.0]) / np.sqrt(2)
    np.testing.assert_allclose(ahead[0, 0], (1, 1) - 0.1 * bisector / np.hypot(*bisector),
                               rtol=1e-15)
    assert ahead[0, 0, 0] > 1.0 and ahead[0, 0, 1] < 1.0
    assert np.isnan(field.distances([(1.5, 1.5 + 1.0)])[0])          # off the mesh


def test_unreachable_polygons_and_a_blocked_goal_polygon():
    world = navcore.World()
    # a wall across the room with no gap: two rooms
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, 10, 6),
                            obstacles=[[(4, -1), (5, -1), (5, 7), (4, 7)]])
    field = MeshFlowField(graph, (1.0, 1.0))
    left = graph.positions[:, 0] < 4
    assert field.reachable[left].all() and not field.reachable[~left].any()
    assert np.isinf(field.distances([(8.0, 3.0)])[0])
    cost, _, count = field.steer([(8.0, 3.0)], [graph.locate((8.0, 3.0))])
    assert np.isinf(cost[0]) and count[0] == 0
    world.update("m", nodes=[graph.locate((1.0, 1.0))], walkable=False)
    world.tick(0.0)
    assert not field.current
    with pytest.raises(navcore.QueryError, match="made for version 0 of navmesh 'm', which "
                                                 "is at version 1 now"):
        field.distances([(1.0, 1.0)])
    with pytest.raises(navcore.NodeError, match="not on walkable ground of navmesh 'm'"):
        MeshFlowField(graph, (1.0, 1.0))


@pytest.mark.nojit
def test_bad_input_is_a_clear_error():
    world = navcore.World()
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, 10, 6))
    grid = world.add_graph("g", type="grid", rows=["..."])
    with pytest.raises(navcore.GraphError, match="needs a 2D navmesh graph"):
        MeshFlowField(grid, (1.0, 0.5))
    with pytest.raises(navcore.GraphError, match="needs a 2D navmesh graph"):
        MeshFlowField("m", (1.0, 1.0))
    for goal, what in (((20.0, 1.0), "not on walkable ground"), ((np.nan, 1.0), "not finite"),
                       ("here", "goal of 2 numbers"), ((1.0,), "goal of 2 numbers")):
        with pytest.raises(navcore.NodeError, match=what):
            MeshFlowField(graph, goal)
    field = MeshFlowField(graph, (9.0, 5.0))
    with pytest.raises(navcore.QueryError, match=r"points\[1\] = \[nan, 1.0\] is not finite"):
        field.distances([(1.0, 1.0), (np.nan, 1.0)])
    with pytest.raises(navcore.QueryError, match="must be \\(k, 2\\) points"):
        field.distances([1.0, 2.0, 3.0])
    with pytest.raises(navcore.QueryError, match=r"nodes\[0\] = 99 is neither -1 nor a polygon"):
        field.steer([(1.0, 1.0)], [99])
    with pytest.raises(navcore.QueryError, match="nodes must be 1 integer polygon ids"):
        field.steer([(1.0, 1.0)], [0.5])
    with pytest.raises(navcore.QueryError, match="one goal per point"):
        field.steer([(1.0, 1.0)], [-1], goals=[(9.0, 5.0), (9.0, 5.0)])
    for radii in ([-1.0], [np.nan], [0.1, 0.2]):
        with pytest.raises(navcore.QueryError, match="radii must be 1 finite numbers >= 0"):
            field.steer([(1.0, 1.0)], [-1], radii=radii)


@pytest.mark.nojit
def test_arrays_as_a_crowd_keeps_them_are_checked_and_answered_alike():
    # C-ordered float64 points and int32 nodes take one kernel pass of
    # checks; a wrong value there must still raise what the numpy checks
    # say, and right ones must answer as any other input does
    world = navcore.World()
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, 10, 6),
                            obstacles=[[(4, 0), (6, 0), (6, 4), (4, 4)]])
    field = MeshFlowField(graph, (9.0, 1.0))
    pts = np.array([(1.0, 1.0), (2.0, 5.0), (8.0, 5.5)])
    nodes = np.full(3, -1, np.int32)
    goals = np.array([(9.0, 1.0)] * 3)
    radii = np.array([0.3, 0.5, 0.0])
    fast = field.steer(pts, nodes, goals=goals, radii=radii)
    slow = field.steer(pts.tolist(), nodes.tolist(), goals=goals.tolist(), radii=radii.tolist())
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a, b)
    assert np.isfinite(fast[0]).all() and fast[2].max() > 0     # ways round the block
    assert (nodes == -1).all()                                   # the caller's nodes untouched
    for i, (what, bad) in enumerate((("points", np.nan), ("goals", np.inf))):
        p, g = pts.copy(), goals.copy()
        (p if what == "points" else g)[2, 0] = bad
        with pytest.raises(navcore.QueryError, match=rf"{what}\[2\] = .* is not finite"):
            field.steer(p, nodes, goals=g, radii=radii)
    for value in (graph.num_nodes, -2):
        n = nodes.copy()
        n[1] = value
        with pytest.raises(navcore.QueryError, match=rf"nodes\[1\] = {value} is neither -1"):
            field.steer(pts, n, goals=goals, radii=radii)
    for value in (-0.5, np.nan, np.inf):
        r = radii.copy()
        r[0] = value
        with pytest.raises(navcore.QueryError, match="radii must be 3 finite numbers >= 0"):
            field.steer(pts, nodes, goals=goals, radii=r)


@exercises("navcore_flow_field")
def test_the_flow_field_hook_answers_for_grids_and_2d_meshes_only():
    world = navcore.World()
    mesh = world.add_graph("m", type="navmesh", bounds=(0, 0, 10, 6),
                           obstacles=[[(4, 0), (6, 0), (6, 4), (4, 4)]])
    grid = world.add_graph("g", type="grid", rows=["....", ".#..", "...."])
    csr = world.add_graph("c", type="csr", src=[0], dst=[1])
    hook = world.plugins.caller("navcore_flow_field", type(mesh))
    goal = np.array([9.0, 1.0])
    field = hook(world, mesh, mesh.locate(tuple(goal)), goal)
    assert isinstance(field, MeshFlowField) and field.version == mesh.version
    cost, ahead, count = field.steer(np.array([[1.0, 1.0]]),
                                     np.array([mesh.locate((1.0, 1.0))], dtype=np.int32),
                                     np.array([[9.0, 1.0]]))
    assert count.tolist() == [2] and ahead[0, :2].tolist() == [[4.0, 4.0], [6.0, 4.0]]
    assert cost[0] == pytest.approx(2 * np.hypot(3, 3) + 2, rel=1e-15)
    field = world.plugins.caller("navcore_flow_field", type(grid))(
        world, grid, grid.node_id(3, 2), np.array([3.5, 2.5]))
    cost, ahead, count = field.steer(np.array([[0.5, 0.5]]), np.array([0], dtype=np.int32),
                                     np.array([[3.5, 2.5]]))
    assert field.version == grid.version and cost[0] == pytest.approx(3 + np.sqrt(2))
    assert world.plugins.caller("navcore_flow_field", type(csr))(
        world, csr, 1, np.array([0.0, 0.0])) is None


def _yard(world):
    """A 40 x 30 yard cut by a wall at x = 15 with a door at y 4-6 and one
    at y 22-24."""
    wall = [[(15, 0), (16, 0), (16, 4), (15, 4)], [(15, 6), (16, 6), (16, 22), (15, 22)],
            [(15, 24), (16, 24), (16, 30), (15, 30)]]
    return world.add_graph("m", type="navmesh", bounds=(0, 0, 40, 30), obstacles=wall)


def test_forty_units_on_a_navmesh_share_one_field_and_all_arrive():
    world = navcore.World()
    graph = _yard(world)
    crowd = world.add_crowd("c", graph="m", radius=0.3, max_speed=2.0)
    rng = np.random.default_rng(1)
    ids = crowd.add(np.c_[rng.uniform(1, 12, 40), rng.uniform(10, 28, 40)])
    goal = (30.0, 15.0)
    crowd.set_goals(ids, goal)
    assert crowd._handles == {} and crowd.fields_made == 1       # no path requests
    for _ in range(600):
        world.tick(0.1)
        assert (graph.locate_many(crowd.positions) >= 0).all()   # never off the mesh
        if crowd.arrived.all():
            break
    assert crowd.arrived.all() and crowd.fields_made == 1
    assert np.hypot(*(crowd.positions - goal).T).max() < 5.0


def test_units_on_a_field_walk_about_the_shortest_way():
    # round a pillar: each walks within 3% of its exact shortest length
    # (less the 3 units it stops short, where the group crowds the goal)
    world = navcore.World()
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, 40, 30),
                            obstacles=[[(18, 8), (22, 8), (22, 22), (18, 22)]])
    crowd = world.add_crowd("c", graph="m", radius=0.3, max_speed=2.0)
    starts = np.c_[np.full(8, 2.0), 4.0 + 3 * np.arange(8)]
    goal = np.array([37.0, 15.0])
    crowd.add(starts, goals=goal)
    near = 3.0
    done, walked = walk_to_near(world, crowd, goal, near, 400)
    assert done.all() and crowd.fields_made == 1
    shortest = _truth(graph, starts, goal) - near
    assert (walked / shortest < 1.03).all(), walked / shortest


def test_a_closed_door_makes_the_field_again_and_no_way_is_no_path():
    world = navcore.World()
    graph = _yard(world)
    crowd = world.add_crowd("c", graph="m", radius=0.3, max_speed=2.0)
    ids = crowd.add([(x, y) for x in (2.0, 4.0, 6.0) for y in (3.0, 5.0, 7.0)])
    goal = (30.0, 5.0)
    crowd.set_goals(ids, goal)
    world.tick(0.1)
    assert crowd.fields_made == 1
    world.update("m", rect=(15.0, 4.0, 1.0, 2.0), walkable=False)     # the near door shuts
    via = set()
    for _ in range(600):
        world.tick(0.1)
        x = crowd.positions[:, 0]
        via.update(np.round(crowd.positions[(x > 15) & (x < 16), 1] / 10).astype(int).tolist())
        if crowd.arrived.all():
            break
    assert crowd.fields_made == 2 and via == {2}                     # by the far door
    assert crowd.arrived.all()
    # both doors shut: no way; the far one opens again: they come
    crowd.teleport(ids, [(x, y) for x in (2.0, 4.0, 6.0) for y in (3.0, 5.0, 7.0)])
    made = crowd.fields_made
    world.update("m", rect=(15.0, 22.0, 1.0, 2.0), walkable=False)
    world.tick(0.1)
    assert set(crowd.state_names()) == {"no_path"} and crowd._handles == {}
    world.update("m", rect=(15.0, 22.0, 1.0, 2.0), walkable=True)
    for _ in range(600):
        world.tick(0.1)
        if crowd.arrived.all():
            break
    assert crowd.arrived.all() and crowd.fields_made == made + 2     # one each change


def test_units_with_their_own_points_in_one_polygon_share_its_field():
    world = navcore.World()
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, 30, 20),
                            obstacles=[[(12, 0), (14, 0), (14, 14), (12, 14)]])
    crowd = world.add_crowd("c", graph="m", radius=0.3, max_speed=2.0)
    goals = np.array([(22.0 + 2.0 * (i % 3), 4.0 + 2.0 * (i // 3)) for i in range(9)])
    assert np.unique(graph.locate_many(goals)).size == 1
    crowd.add([(2.0 + i % 3, 3.0 + i // 3) for i in range(9)], goals=goals)
    for _ in range(500):
        world.tick(0.1)
        if crowd.arrived.all():
            break
    assert crowd.fields_made == 1 and crowd._handles == {} and crowd.arrived.all()
    # (within a radius or so: walkers passing push those standing aside)
    assert (np.hypot(*(crowd.positions - goals).T) < 1.0).all(), crowd.positions - goals


@pytest.mark.parametrize("workers", [0, 2])
def test_groups_on_fields_step_the_same_for_any_worker_count(workers):
    # two groups, two goals (each side of the wall): their fields are made
    # as jobs on the workers, and again when a door shuts
    def run(w):
        world = navcore.World(workers=w, deterministic=True)
        _yard(world)
        crowd = world.add_crowd("c", graph="m", radius=0.3, max_speed=2.0)
        rng = np.random.default_rng(3)
        ids = crowd.add(np.c_[rng.uniform(1, 12, 24), rng.uniform(2, 28, 24)])
        crowd.set_goals(ids[:12], (30.0, 5.0))
        crowd.set_goals(ids[12:], (3.0, 27.0))
        out = []
        for step in range(80):
            if step == 10:
                world.update("m", rect=(15.0, 4.0, 1.0, 2.0), walkable=False)
            world.tick(0.1)
            out.append(crowd.positions)
        made = crowd.fields_made
        world.close()
        return np.array(out), made

    (a, made_a), (b, made_b) = run(workers), run(0)
    assert np.array_equal(a, b) and made_a == made_b >= 4


def test_a_goal_walled_in_after_the_order_is_no_path_until_it_opens():
    world = navcore.World()
    _yard(world)
    crowd = world.add_crowd("c", graph="m", radius=0.3, max_speed=2.0)
    ids = crowd.add([(2.0 + x, 3.0 + y) for x in range(3) for y in range(3)])
    crowd.set_goals(ids, (30.0, 15.0))
    world.tick(0.1)
    world.update("m", rect=(28.0, 13.0, 4.0, 4.0), walkable=False)   # over the goal
    world.tick(0.1)
    assert set(crowd.state_names()) == {"no_path"} and crowd._handles == {}
    world.update("m", rect=(28.0, 13.0, 4.0, 4.0), walkable=True)
    for _ in range(600):
        world.tick(0.1)
        if crowd.arrived.all():
            break
    assert crowd.arrived.all()
