"""A navmesh built for an agent radius already keeps agents' centres that
far from the solid: a crowd keeps its agents only the rest of their
radius from its walls, so an agent as wide as the mesh was built for
walks a way just wider than itself, and rounds the corners of the walls
it hugs. Distances are checked against the obstacles drawn (shapely),
not against the mesh. Also: ``paths_served`` counts each path result."""
from pathlib import Path

import numpy as np
from shapely.geometry import Point, Polygon, box

import navcore

SCENES = Path(__file__).resolve().parents[2] / "scenes"


def _walk(world, crowd, steps, check=lambda c: None, dt=0.1):
    for _ in range(steps):
        world.tick(dt)
        check(crowd)
        if crowd.arrived.all():
            break


def test_an_agent_as_wide_as_the_mesh_was_built_for_walks_a_way_barely_wider():
    # a corridor 2.6 wide (y 3.7 .. 6.3) for an agent of radius 1.2: its
    # centre has a band 0.2 wide; keeping its radius again from the mesh
    # edges, as from walls, left it none
    world = navcore.World()
    walls = [box(5, 0, 25, 3.7), box(5, 6.3, 25, 10)]
    world.add_graph("m", type="navmesh", bounds=(0, 0, 30, 10), obstacles=walls,
                    agent_radius=1.2)
    crowd = world.add_crowd("c", graph="m", radius=1.2, max_speed=2.0)
    assert crowd.clearance == 1.2
    crowd.add([(2.0, 5.0)], goals=[(28.0, 5.0)])
    nearest = [np.inf]

    def check(c):
        p = Point(*c.positions[0])
        nearest[0] = min(nearest[0], min(w.distance(p) for w in walls))

    _walk(world, crowd, 400, check)
    assert crowd.arrived.all(), crowd.positions
    assert nearest[0] >= 1.2 - 1e-6          # never through a wall


def test_agents_hugging_a_wall_round_its_corner():
    # the courtyard's south-east corner tower, from the south road to the
    # postern: the way turns round the tower's corner (94.3, 56.3); an
    # agent that walks close to the tower reaches that corner (within its
    # radius) before it is round it, and must not head on from there into
    # the tower
    world = navcore.World()
    spec = navcore.read_scene(SCENES / "courtyard.yaml").graph_spec("infantry")
    walls = [Polygon(r) for r in spec.params["obstacles"]]
    world.add_graph("m", type="navmesh", bounds=spec.params["bounds"], obstacles=walls,
                    agent_radius=0.3)
    crowd = world.add_crowd("c", graph="m", radius=0.3, max_speed=3.0)
    crowd.add([(80.0, 58.0), (94.15, 56.3), (96.0, 58.0)], goals=[(83.3, 25.6)] * 3)
    nearest = [np.inf]

    def check(c):
        nearest[0] = min(nearest[0], min(w.distance(Point(*p)) for w in walls
                                         for p in c.positions))

    _walk(world, crowd, 600, check, dt=0.05)
    assert crowd.arrived.all(), (crowd.state_names(), crowd.positions)
    # the farthest walks about 52 units at 3 a second: 17 s, not minutes
    # of creeping along the tower
    assert world.frame * 0.05 <= 25.0
    assert nearest[0] >= 0.3 - 1e-6


def test_a_grid_has_no_clearance():
    world = navcore.World()
    world.add_graph("g", type="grid", rows=["....", "...."])
    assert world.add_crowd("c", graph="g").clearance == 0.0


def test_paths_served_counts_each_path_result():
    world = navcore.World()
    world.add_graph("g", type="grid", rows=["....#....", ".........", "....#...."])
    crowd = world.add_crowd("c", graph="g", radius=0.3, max_speed=1.0)
    ids = crowd.add([(0.5, 1.5), (0.5, 0.5)], goals=[(8.5, 1.5), (1.5, 0.5)])
    world.tick(0.1)
    assert crowd.paths_served.tolist() == [1, 1]
    world.update("g", cells=[(4, 1)], walkable=False)      # the only way across
    for _ in range(3):
        world.tick(0.1)
    served = crowd.paths_served
    assert served[0] >= 2 and crowd.state_names()[0] == "no_path"
    assert served[1] == 1                                   # its path was not cut
    crowd.remove(ids[:1])
    assert crowd.paths_served.tolist() == [1]
