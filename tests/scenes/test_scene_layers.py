"""A graph type that is not a grid takes part in scenes through its own
scene layer and draw hook, with no change to the scenes plugin: "rooms",
positioned nodes joined by corridors, whose regions are lists of room ids.

The house (rooms 3 units apart, corridors of length 3)::

    0 (1, 1) --- 1 (4, 1) --- 2 (7, 1)
    |                         |
    3 (1, 4) --- 4 (4, 4) --- 5 (7, 4)
"""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import navcore
from navcore.validate import describe, is_int
from navcore_scenes.cli import describe_scene
from navcore_scenes.render import WALL, draw

from hooktags import exercises

POSITIONS = [[1, 1], [4, 1], [7, 1], [1, 4], [4, 4], [7, 4]]
CORRIDORS = [(0, 1), (1, 2), (0, 3), (2, 5), (3, 4), (4, 5)]


class RoomsGraph(navcore.NavGraph):
    """Rooms at ``positions``; a point belongs to the nearest room."""


class RoomsLayer(navcore.SceneLayer):
    """Regions are lists of room ids. Bounds and obstacles' boxes come
    from the rooms' positions (the base class's defaults); agents belong to
    the nearest room."""

    node_word = "room"

    def region(self, value):
        n = self.graph.num_nodes
        if not isinstance(value, list) or not value or not all(
                is_int(v) and 0 <= v < n for v in value):
            raise navcore.SceneError(f"must be a list of room ids 0..{n - 1}, got "
                                     f"{describe(value)}")
        return tuple(int(v) for v in value)

    def nodes_in(self, region):
        return np.array(region, dtype=np.int64)

    def describe(self):
        return f"{self.graph.num_nodes} nodes"

    def nearest(self, points, walkable_only=False):
        d = ((points[:, None, :] - self.graph.positions[None, :, :2]) ** 2).sum(axis=2)
        if walkable_only:
            d[:, ~self.graph.walkable] = np.inf
        return np.argmin(d, axis=1)

    def step_out(self, point, node):
        if not self.graph.walkable.any():
            return None
        k = self.nearest(np.array([point]), walkable_only=True)[0]
        return tuple(self.graph.positions[k])

    def entering_walls(self, at, now):
        to, here = self.nearest(at), self.nearest(now)
        return (to != here) & ~self.graph.walkable[to]


class Rooms:
    """The plugin: ``type: rooms``, its scene layer and its pictures."""

    @navcore.hookimpl
    def navcore_graph_types(self):
        def build_rooms(world, graph_id):
            pos = np.array(POSITIONS, dtype=np.float64)
            src, dst = np.array(CORRIDORS).T
            cost = np.linalg.norm(pos[src] - pos[dst], axis=1)
            return RoomsGraph.from_edges(src, dst, cost, positions=pos, directed=False,
                                         world=world)
        return {"rooms": build_rooms}

    @navcore.hookimpl
    @navcore.for_graphs(RoomsGraph)
    def navcore_scene_layer(self, world, graph_id, graph):
        return RoomsLayer(world, graph_id, graph)

    @navcore.hookimpl
    @navcore.for_graphs(RoomsGraph)
    def navcore_draw_graph(self, graph, canvas):
        # each room a disc of radius 1 around its position
        p = canvas.pixel_centres()
        d = ((p[:, :, None, :] - graph.positions[None, None]) ** 2).sum(axis=3)
        near = d.argmin(axis=2)
        canvas.paint(np.where(d.min(axis=2) <= 1.0, near, -1))
        return True


HOUSE = """\
settings: {dt: 0.1, frames: 40}
graphs:
  - {id: house, type: rooms, doors: {hall: {rect: [1], open: false}}}
agents:
  - {id: cat, start: 0, goal: 2, speed: 10}
  - {id: dog, start: [1.2, 3.9], goal: [7, 4], speed: 10}
events:
  - {at: 1, block: [4]}
  - {at: 5, open: hall}
  - {at: 30, cost: {rect: [3], value: 2.5}}
"""


@pytest.mark.nojit
@exercises("navcore_scene_layer", "navcore_draw_graph", "navcore_draw_overlay")
def test_a_rooms_graph_has_doors_events_agents_and_pictures():
    world = navcore.World(autoload=False, plugins=[Rooms()])
    with navcore.Simulation.from_text(HOUSE, "house.yaml", world=world) as sim:
        assert describe_scene(sim).startswith("'house': 1 graph (rooms 6 nodes), 2 agents")
        summary = sim.run()
        # Frame 1: the hall door (closed from the start) and the block on
        # room 4 land together: {0, 3} and {2, 5} are cut apart and both
        # agents wait. Frame 5: the hall opens, the areas merge, the cat
        # goes 0-1-2 (6) and the dog 3-0-1-2-5 (12), 1 unit a frame.
        assert [(e["frame"], e["what"], e["areas_before"], e["areas_after"])
                for e in summary["events"]] == [(1, "block [4]", 1, 2),
                                                (5, "open hall", 2, 1),
                                                (30, "cost [3] = 2.5", 1, 1)]
        assert summary["agents"]["arrived"] == 2
        assert summary["unreachable"] == 2
        assert summary["path_length"]["total"] == pytest.approx(18.0)
        assert sim.agents.pos.tolist() == [[7.0, 1.0], [7.0, 4.0]]
        # the corridors into room 3 cost 2.5 times their length now
        g = world.graph("house")
        assert world.find_path("house", 3, 0).cost == pytest.approx(7.5)
        assert not g.walkable[4] and g.walkable[1]
        img = draw(sim, borders=True)
    assert img.size == (128, 80)                 # bounds 8 x 5, 16 pixels a unit
    room0, room4 = img.getpixel((16, 16)), img.getpixel((64, 64))
    assert room4 == WALL and room0 != WALL       # blocked room 4, floor of room 0
    assert img.getpixel((40, 40)) == WALL        # between the rooms: nothing drawn
    assert img.getpixel((112, 16)) != room0      # the cat on room 2, a dot


@pytest.mark.nojit
def test_rooms_regions_are_checked_and_obstacles_cover_the_rooms_they_pass():
    world = navcore.World(autoload=False, plugins=[Rooms()])
    text = HOUSE.replace("block: [4]", "block: [4, 9]")
    with pytest.raises(navcore.SceneError) as info:
        navcore.Simulation.from_text(text, "house.yaml", world=world)
    assert str(info.value) == ("house.yaml:8:20: 'block' must be a list of room ids 0..5, "
                               "got [4, 9]")
    text = ("settings: {dt: 0.1}\n"
            "graphs: [{id: house, type: rooms}]\n"
            "obstacles: [{id: cart, rect: [3], velocity: [10, 0]}]\n")
    with navcore.Simulation.from_text(text, "cart.yaml", world=world) as sim:
        g = world.graph("house")
        seen = []
        for _ in range(8):
            sim.step()
            seen.append(np.flatnonzero(~g.walkable[3:]).tolist())
    # its box [x, x + 1) starts at 0.5 round room 3 at x = 1, moves a unit
    # a frame, covers room 4 (x = 4) from 3.5 and room 5 (x = 7) from 6.5,
    # and bounces off the bounds' side at x = 8 - 1
    assert seen == [[], [], [1], [], [], [2], [2], []]


# -- the example third-party plugin, examples/navcore_hexgrid --------------------

HIVE = """\
settings: {dt: 0.1, frames: 30}
graphs: [{id: hive, type: hexgrid, width: 5, height: 3}]
agents: [{id: bee, start: [0, 0], goal: [4, 2], speed: 10}]
events:
  - {at: 1, block: [[2, 0], [2, 1], [2, 2]]}
  - {at: 10, unblock: [[2, 2]]}
"""


@pytest.fixture(scope="module")
def hexgrid():
    path = Path(__file__).resolve().parents[2] / "examples" / "navcore_hexgrid"
    spec = importlib.util.spec_from_file_location("navcore_hexgrid",
                                                  path / "navcore_hexgrid.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.nojit
def test_the_hexgrid_example_plays_a_scene_and_is_drawn(hexgrid):
    world = navcore.World(autoload=False, plugins=[hexgrid])
    with navcore.Simulation.from_text(HIVE, "hive.yaml", world=world) as sim:
        summary = sim.run()
        # Column q = 2 walls the hive in two until (2, 2) is cleared at frame
        # 10; then the bee goes 6 hexes, 1 unit each ((+1, 0) four times
        # and (0, +1) twice, round the wall), at 1 unit a frame.
        assert [(e["frame"], e["areas_before"], e["areas_after"])
                for e in summary["events"]] == [(1, 1, 2), (10, 2, 1)]
        assert summary["events"][1]["what"] == "unblock [[2, 2]]"
        assert summary["agents"]["arrived"] == 1 and summary["unreachable"] == 1
        assert summary["path_length"]["total"] == pytest.approx(6.0)
        assert sim.agents.pos[0] == pytest.approx([5.0, 3 ** 0.5])   # hex (4, 2)
        img = draw(sim)
    # bounds: centres x in [0, 5], y in [0, 1.73], one unit to spare; 16 px a unit
    assert img.size == (112, 60)

    def at(q, r):                    # the pixel at a hex centre
        return img.getpixel((int((q + r / 2 + 1) * 16), int((r * 3 ** 0.5 / 2 + 1) * 16)))
    assert at(2, 1) == WALL and at(2, 0) == WALL
    assert at(0, 1) != WALL and at(0, 1) == at(3, 1)       # one area, one colour
    with pytest.raises(navcore.SceneError, match=r"hive.yaml:5:20: 'block' must be a list "
                                                 r"of \[q, r\] cells of the 5 x 3 hexgrid"):
        navcore.Simulation.from_text(HIVE.replace("[2, 0], [2, 1]", "[2, 0], [5, 1]"),
                                     "hive.yaml",
                                     world=navcore.World(autoload=False, plugins=[hexgrid]))


@pytest.mark.nojit
def test_a_layer_without_positions_takes_events_but_refuses_obstacles():
    class NodeLists:                       # any graph: regions are lists of node ids
        @navcore.hookimpl
        def navcore_scene_layer(self, world, graph_id, graph):
            return RoomsLayer(world, graph_id, graph)

    world = navcore.World(autoload=False, plugins=[NodeLists()])
    text = ("settings: {frames: 3}\n"
            "graphs: [{id: line, type: csr, src: [0, 1, 2], dst: [1, 2, 3]}]\n"
            "events: [{at: 2, block: [1, 2]}]\n")
    with navcore.Simulation.from_text(text, "line.yaml", world=world) as sim:
        summary = sim.run()
    # the generic update (nodes=, walkable=) blocks them: 0 and 3 are cut apart
    assert summary["events"][0]["areas_after"] == 2
    assert world.graph("line").walkable.tolist() == [True, False, False, True]
    text += "obstacles: [{id: cart, rect: [0]}]\n"
    with pytest.raises(navcore.SceneError) as info:
        navcore.Simulation.from_text(text, "line.yaml",
                                     world=navcore.World(autoload=False, plugins=[NodeLists()]))
    assert str(info.value) == ("line.yaml:4:30: 'rect' of obstacle 'cart': csr graph "
                               "'line' has no node positions: obstacles and pictures need "
                               "its scene layer to give bounds, box_region and region_box")
