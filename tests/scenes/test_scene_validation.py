"""Scene files are checked before anything runs, and every mistake is a
SceneError at its file, line and column that leaves the world unchanged.

Each file in broken/ starts with ``# expect: LINE:COLUMN: message``
(``{types}`` stands for the graph types on offer); the positions were
counted by hand in the files.
"""
import math
from pathlib import Path

import numpy as np
import pytest

import navcore
from navcore_scenes.scene import parse_scene, read_scene
from hooktags import exercises

BROKEN = Path(__file__).parent / "broken"
BROKEN_FILES = sorted(BROKEN.glob("*.yaml"))


def _expected(path: Path, world) -> str:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# expect: "), f"{path.name} must start with '# expect: '"
    message = first.removeprefix("# expect: ")
    message = message.replace("{types}", ", ".join(sorted(world.graph_types())))
    return f"{path}:{message}" if message[0].isdigit() else f"{path}: {message}"


@pytest.mark.nojit
def test_there_is_a_broken_scene_per_kind_of_mistake():
    assert len(BROKEN_FILES) >= 40


@pytest.mark.nojit
@pytest.mark.parametrize("path", BROKEN_FILES, ids=[p.stem for p in BROKEN_FILES])
def test_broken_scene_is_reported_at_its_position(path, world):
    with pytest.raises(navcore.SceneError) as info:
        navcore.Simulation.from_file(path, world=world)
    assert str(info.value) == _expected(path, world)
    assert info.value.path == str(path)
    # nothing of the scene stays behind in the world
    assert world.graphs == {}
    assert world.pending_updates() == 0
    assert world.scheduler.requests.waiting == 0


@pytest.mark.nojit
def test_a_later_mistake_removes_the_graphs_already_built(world):
    world.add_graph("mine", type="grid", rows=["..."])
    text = ("graphs:\n"
            "  - {id: a, type: grid, rows: ['...']}\n"
            "  - {id: b, type: grid, rows: ['...']}\n"
            "agents:\n"
            "  - {id: x, graph: b, start: [9, 0], goal: [0, 0]}\n")
    with pytest.raises(navcore.SceneError, match=r"s.yaml:5:30: start of agent 'x' "
                                                 r"\[9, 0\] is outside graph 'b'"):
        navcore.Simulation.from_text(text, "s.yaml", world=world)
    assert list(world.graphs) == ["mine"]


@pytest.mark.nojit
def test_a_scene_whose_id_is_taken_in_the_world_says_so(world):
    world.add_graph("hall", type="grid", rows=["..."])
    with pytest.raises(navcore.SceneError, match=r"s.yaml:1:10: graph 'hall': graph id "
                                                 r"'hall' is already in use"):
        navcore.Simulation.from_text("graphs: [{id: hall, type: grid, rows: ['...']}]",
                                     "s.yaml", world=world)
    assert list(world.graphs) == ["hall"]


@pytest.mark.nojit
def test_missing_scene_file(tmp_path):
    with pytest.raises(navcore.SceneError, match="scene file not found"):
        read_scene(tmp_path / "nope.yaml")


@pytest.mark.nojit
def test_unknown_key_without_a_close_match_lists_the_keys():
    text = "graphs: [{id: a, type: grid, rows: ['..']}]\nsettings: {zzz: 1}\n"
    with pytest.raises(navcore.SceneError) as info:
        parse_scene(text, "s.yaml")
    assert str(info.value) == ("s.yaml:2:12: unknown key 'zzz' in settings; expected one "
                               "of: avoidance, background, deterministic, dt, frame_budget_ms, "
                               "frame_budget_nodes, frames, seed, workers")


@pytest.mark.nojit
def test_a_good_scene_reads_into_specs(tmp_path):
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "r.map").write_text("type octile\nheight 1\nwidth 3\nmap\n...\n")
    path = tmp_path / "s.yaml"
    path.write_text("settings: {dt: 0.1, frames: 5, seed: 2}\n"
                    "graphs:\n"
                    "  - {id: r, type: grid, map: maps/r.map, doors: {d: [1, 0, 1, 1]}}\n"
                    "agents:\n"
                    "  - {id: 7, start: [0, 0], waypoints: [[2, 0], [0, 0]], loop: true}\n"
                    "events:\n"
                    "  - {at: 4, close: d}\n"
                    "  - {at: 2, open: d}\n")
    scene = read_scene(path)
    assert (scene.settings.dt, scene.settings.frames, scene.settings.seed) == (0.1, 5, 2)
    g = scene.graphs[0]
    assert g.params == {"map": str((tmp_path / "maps" / "r.map").resolve())}
    # a region is kept as written: the graph's scene layer reads it once built
    assert g.doors["d"].region == [1, 0, 1, 1] and g.doors["d"].open
    a = scene.agents[0]
    assert (a.id, a.graph, a.goals, a.loop, a.speed, a.repath) == \
        ("7", "r", [(2, 0), (0, 0)], True, 4.0, True)
    assert [e.at for e in scene.events] == [2, 4]     # in frame order


# -- a plugin that adds a graph type and an event kind ---------------------------

class Ring:
    """``type: ring``: ``n`` nodes on a circle, neighbours joined; the
    event ``sever: [a, b]`` closes the edge between two nodes."""

    @navcore.hookimpl
    def navcore_graph_types(self):
        def build_ring(world, graph_id, n=6, radius=10.0):
            angle = 2 * math.pi * np.arange(n) / n
            pos = np.column_stack((radius * np.cos(angle), radius * np.sin(angle)))
            src = np.arange(n)
            dst = (src + 1) % n
            cost = np.linalg.norm(pos[src] - pos[dst], axis=1)
            return navcore.NavGraph.from_edges(src, dst, cost, positions=pos,
                                               directed=False, world=world)
        return {"ring": build_ring}

    @navcore.hookimpl
    def navcore_scene_event_kinds(self):
        return {"sever": Sever()}


class Sever(navcore.EventKind):
    def validate(self, value, graph, sim):
        if not isinstance(value, list) or len(value) != 2:
            raise navcore.SceneError(f"expected [a, b], got {value!r}")
        for node in value:
            if not isinstance(node, int) or not 0 <= node < graph.num_nodes:
                raise navcore.SceneError(f"node {node!r} is not on the ring "
                                         f"(0..{graph.num_nodes - 1})")
        return tuple(value)

    def apply(self, sim, graph_id, payload):
        sim.world.update(graph_id, edges=[payload], cost=math.inf)

    def describe(self, payload):
        return f"sever {payload[0]}-{payload[1]}"


RING_SCENE = """\
settings: {dt: 0.1, frames: 80}
graphs:
  - {id: loop, type: ring, n: 6, radius: 10}
agents:
  - {id: courier, start: [10, 0], goal: [-5, 8.66], speed: 10, repath: true}
events:
  - {at: 5, sever: [1, 2]}
"""


@pytest.mark.nojit
@exercises("navcore_scene_event_kinds")
def test_a_plugin_adds_a_graph_type_and_an_event_kind_a_scene_uses():
    # requests served by a node budget: the courier's path comes on the
    # frame it asks, however loaded the machine is
    world = navcore.World(autoload=False, plugins=[Ring()], deterministic=True)
    with navcore.Simulation.from_text(RING_SCENE, "ring.yaml", world=world) as sim:
        summary = sim.run()
    # Chords of a 6-ring of radius 10 are 10 long. The courier heads for
    # node 2 by 0-1-2, has gone 4 units when 1-2 is severed at frame 5,
    # walks back to node 0 (4) and goes round 0-5-4-3-2 (40).
    assert summary["agents"]["arrived"] == 1
    assert summary["path_length"]["total"] == pytest.approx(48.0)
    assert summary["repaths"] == 1
    assert summary["events"][0]["what"] == "sever 1-2"
    assert summary["events"][0]["areas_before"] == summary["events"][0]["areas_after"] == 1


@pytest.mark.nojit
def test_a_plugin_event_kind_error_is_reported_at_the_value():
    world = navcore.World(autoload=False, plugins=[Ring()])
    text = RING_SCENE.replace("sever: [1, 2]", "sever: [1, 9]")
    with pytest.raises(navcore.SceneError) as info:
        navcore.Simulation.from_text(text, "ring.yaml", world=world)
    assert str(info.value) == ("ring.yaml:7:20: 'sever' of event #1 (at frame 5): "
                               "node 9 is not on the ring (0..5)")
    assert world.graphs == {}


@pytest.mark.nojit
def test_plugin_graph_type_parameters_get_a_did_you_mean():
    world = navcore.World(autoload=False, plugins=[Ring()])
    text = RING_SCENE.replace("radius: 10", "raduis: 10")
    with pytest.raises(navcore.SceneError) as info:
        navcore.Simulation.from_text(text, "ring.yaml", world=world)
    assert str(info.value) == ("ring.yaml:3:34: unknown 'ring' parameter 'raduis' in "
                               "graph 'loop'; did you mean 'radius'?")


NO_LAYER = ("is not supported on graph 'loop': its type 'ring' has no scene layer (no "
            "plugin answers navcore_scene_layer for it)")


@pytest.mark.nojit
@pytest.mark.parametrize("old, new, where", [
    ("sever: [1, 2]", "block: [0, 0, 1, 1]", "7:20: 'block'"),
    ("n: 6, radius: 10}", "n: 6, radius: 10, doors: {gate: [1]}}", "3:60: door 'gate'"),
    ("events:", "obstacles: [{id: cart, rect: [1], velocity: [1, 0]}]\nevents:",
     "6:30: 'rect' of obstacle 'cart'"),
    ("events:", "crowds: [{id: mob, count: 2, from: [0], to: [3]}]\nevents:",
     "6:36: 'from' of crowd 'mob'"),
])
def test_regions_need_a_graph_type_with_a_scene_layer(old, new, where):
    world = navcore.World(autoload=False, plugins=[Ring()])
    with pytest.raises(navcore.SceneError) as info:
        navcore.Simulation.from_text(RING_SCENE.replace(old, new), "ring.yaml", world=world)
    assert str(info.value) == f"ring.yaml:{where} {NO_LAYER}"
    assert world.graphs == {}


@pytest.mark.nojit
def test_an_event_kind_claimed_twice_is_a_plugin_error():
    class Clash:
        @navcore.hookimpl
        def navcore_scene_event_kinds(self):
            return {"block": Sever()}

    world = navcore.World(autoload=False, plugins=[Clash()])
    with pytest.raises(navcore.PluginError, match="event kind 'block' is provided by both "
                                                  "'navcore' and plugin"):
        navcore.Simulation.from_text(RING_SCENE, "ring.yaml", world=world)


@pytest.mark.nojit
def test_an_unknown_graph_type_far_from_any_lists_the_types(world):
    with pytest.raises(navcore.SceneError) as info:
        navcore.Simulation.from_text("graphs: [{id: a, type: voxels3d}]", "s.yaml", world)
    types = ", ".join(sorted(world.graph_types()))
    assert str(info.value) == (f"s.yaml:1:24: unknown graph type 'voxels3d' in graph 'a'; "
                               f"expected one of: {types}")


@pytest.mark.nojit
def test_a_world_without_a_scheduler_is_refused_before_building(world):
    world.scheduler = None             # as if navcore_scheduler were not loaded
    with pytest.raises(navcore.SceneError, match="^s.yaml: scenes need the scheduler plugin"):
        navcore.Simulation.from_text("graphs: [{id: a, type: grid, rows: ['..']}]",
                                     "s.yaml", world=world)
    assert world.graphs == {}


@pytest.mark.nojit
def test_plugins_that_fail_with_bare_exceptions_are_reported_with_their_name():
    class Sloppy:
        @navcore.hookimpl
        def navcore_graph_types(self):
            def build(world, graph_id, n=3):
                return None.num_nodes          # AttributeError
            return {"sloppy": build}

        @navcore.hookimpl
        def navcore_scene_event_kinds(self):
            class Boom(navcore.EventKind):
                def validate(self, value, graph, sim):
                    return len(value)              # TypeError on an int

                def apply(self, sim, graph_id, payload):
                    raise RuntimeError("apply failed")
            return {"boom": Boom()}

    world = navcore.World(autoload=False, plugins=[Sloppy(), Ring()])
    with pytest.raises(navcore.SceneError) as info:
        navcore.Simulation.from_text("graphs: [{id: s, type: sloppy}]", "s.yaml", world=world)
    assert str(info.value).startswith("s.yaml:1:10: graph 's': the 'sloppy' builder of plugin "
                                      "'Sloppy' failed: AttributeError")
    assert "AttributeError" in str(info.value)
    text = RING_SCENE.replace("sever: [1, 2]", "boom: 5")
    with pytest.raises(navcore.SceneError, match=r"ring.yaml:7:19: 'boom' of event #1 \(at "
                                                 r"frame 5\): event kind 'boom' of plugin .* "
                                                 r"failed: TypeError"):
        navcore.Simulation.from_text(text, "ring.yaml", world=world)
    assert world.graphs == {}
    with navcore.Simulation.from_text(RING_SCENE.replace("sever: [1, 2]", "boom: [1]"),
                                      "ring.yaml", world=world) as sim:
        with pytest.raises(navcore.NavError, match="frame 5: event kind 'boom' of plugin "
                                                   ".* failed: RuntimeError: apply failed"):
            sim.run()


@pytest.mark.nojit
def test_a_file_that_is_not_utf8_is_reported_at_its_byte(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("graphs:\n  - {id: caf\xe9, type: grid}\n".encode("latin-1"))
    with pytest.raises(navcore.SceneError) as info:
        read_scene(path)
    assert str(info.value) == f"{path}:2:13: the scene file is not UTF-8 text (byte 0xe9)"


@pytest.mark.nojit
def test_yaml_merge_keys_can_be_overridden_but_keys_not_repeated():
    text = ("base: &cart {rect: [1, 0, 1, 1], velocity: [1, 0]}\n"
            "graphs: [{id: a, type: grid, rows: ['......', '......']}]\n"
            "obstacles:\n"
            "  - {<<: *cart, id: c1}\n"
            "  - {<<: *cart, id: c2, velocity: [0, 1]}\n")
    from navcore_scenes import yamlmarks
    data = yamlmarks.loads(text, "m.yaml")
    assert data["obstacles"][1]["velocity"] == [0, 1]
    assert data["obstacles"][0]["velocity"] == [1, 0]
    with pytest.raises(navcore.SceneError, match=r"m.yaml:1:12: duplicate key 'id'"):
        yamlmarks.loads("a: {id: 1, id: 2}", "m.yaml")


@pytest.mark.nojit
def test_door_names_may_be_numbers(world):
    text = ("settings: {frames: 5}\n"
            "graphs: [{id: a, type: grid, rows: ['...#...'], doors: {7: [3, 0, 1, 1]}}]\n"
            "events: [{at: 2, close: 7}]\n")
    with navcore.Simulation.from_text(text, "d.yaml", world=world) as sim:
        assert sim.run()["events"][0]["what"] == "close 7"


@pytest.mark.nojit
def test_an_event_kind_without_apply_fails_when_it_is_made():
    class Half(navcore.EventKind):
        def validate(self, value, graph, sim):
            return value

    with pytest.raises(TypeError, match="apply"):
        Half()


@pytest.mark.nojit
def test_scene_maps_take_passable(tmp_path):
    # a swamp (S) column: MovingAI's rule walks it, Polyanya's ('.G') walls it
    (tmp_path / "swamp.map").write_text("type octile\nheight 2\nwidth 3\nmap\n.S.\n.S.\n")
    text = ("graphs:\n"
            "  - {id: moving, type: grid, map: swamp.map}\n"
            "  - {id: poly, type: grid, map: swamp.map, passable: '.G'}\n"
            "  - {id: mesh, type: navmesh, map: swamp.map, passable: '.G'}\n"
            "agents:\n"
            "  - {id: a, graph: moving, start: [1, 0], goal: [2, 1]}\n")
    sim = navcore.Simulation.from_text(text, str(tmp_path / "s.yaml"),
                                       world=navcore.World(autoload=False))
    assert sim.world.graph("moving").walkable.tolist() == [True] * 6
    assert sim.world.graph("poly").walkable.tolist() == [True, False, True] * 2
    assert sim.world.graph("mesh").free_space.area == pytest.approx(4.0)
    with pytest.raises(navcore.SceneError, match=r"s.yaml:6:35: start of agent 'a' \[1, 0\] "
                                                 r"is in a wall of graph 'poly'"):
        navcore.Simulation.from_text(text.replace("graph: moving", "graph: poly  "),
                                     str(tmp_path / "s.yaml"),
                                     world=navcore.World(autoload=False))


def test_agent_types_are_one_graph_each_of_the_graphs_space(tmp_path):
    text = """
graphs:
  - id: hall
    type: grid
    rows: ["...", "...", "..."]
    agents: {king: {connectivity: 8}, rook: {connectivity: 4}}
agents:
  - {id: a, graph: hall.rook, start: [0, 0], goal: [2, 2]}
"""
    sim = navcore.Simulation.from_text(text, str(tmp_path / "s.yaml"),
                                       world=navcore.World(autoload=False))
    specs = sim.scene.graphs
    assert [(g.id, g.space, g.params) for g in specs] == [
        ("hall.king", "hall", {"rows": ["...", "...", "..."], "connectivity": 8}),
        ("hall.rook", "hall", {"rows": ["...", "...", "..."], "connectivity": 4})]
    w = sim.world
    assert w.find_path("hall.king", (0, 0), (2, 2)).cost == pytest.approx(2 * math.sqrt(2))
    assert w.find_path("hall.rook", (0, 0), (2, 2)).cost == pytest.approx(4.0)
