"""Scenes are a built-in plugin, navcore_scenes: the kernel imports none of
it, the old public names still reach it, and its commands and event kinds
come through hooks."""
import subprocess
import sys
import textwrap

import pytest

import navcore
import navcore_scenes
import navcore_scenes.render
from navcore.cli import build_parser
from navcore_scenes.events import event_kinds


@pytest.mark.nojit
def test_import_navcore_loads_no_scene_code_nor_its_dependencies():
    code = textwrap.dedent("""
        import sys, navcore
        loaded = {'yaml', 'PIL', 'tqdm', 'navcore_scenes', 'numba'} & set(sys.modules)
        assert not loaded, loaded
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr


@pytest.mark.nojit
def test_the_public_scene_names_resolve_to_the_plugin():
    assert navcore.Simulation is navcore_scenes.Simulation
    assert navcore.Scene is navcore_scenes.Scene
    assert navcore.read_scene is navcore_scenes.read_scene
    assert navcore.EventKind is navcore_scenes.EventKind
    assert "render" not in dir(navcore)     # scene pictures: navcore_scenes.render.draw
    with pytest.raises(AttributeError, match="module 'navcore' has no attribute 'Simulaton'"):
        navcore.Simulaton


@pytest.mark.nojit
def test_load_scene_returns_a_simulation_of_the_file(tmp_path):
    scene = tmp_path / "hall.yaml"
    scene.write_text("graphs: [{id: hall, type: grid, rows: ['......']}]\n"
                     "agents: [{id: a, start: [0, 0], goal: [5, 0], speed: 10}]\n")
    world = navcore.World(autoload=False)
    with navcore.load_scene(scene, world=world) as sim:
        assert isinstance(sim, navcore.Simulation)
        assert sim.world is world and list(world.graphs) == ["hall"]
        assert sim.run(frames=20)["agents"]["arrived"] == 1
    with pytest.raises(navcore.SceneError, match=r"nope.yaml: scene file not found"):
        navcore.load_scene(tmp_path / "nope.yaml")


@pytest.mark.nojit
def test_scene_commands_and_event_kinds_come_from_the_scenes_plugin(capsys):
    registry = navcore.PluginRegistry(autoload=False)
    assert "scenes" in registry.names()
    for argv in (["run", "s.yaml"], ["validate", "s.yaml"], ["render", "s.yaml", "-o", "s.png"]):
        args = build_parser(registry).parse_args(argv)
        # the levels plugin wraps render (a level file is drawn as built, a
        # scene handed on to the scenes plugin); without it, render is the
        # scenes plugin's own
        want = "navcore_levels.cli" if argv[0] == "render" else "navcore_scenes.cli"
        assert args.func.__module__ == want
    alone = navcore.PluginRegistry(autoload=False)
    alone.unregister("levels")
    args = build_parser(alone).parse_args(["render", "s.yaml", "-o", "s.png"])
    assert args.func.__module__ == "navcore_scenes.cli"
    world = navcore.World(autoload=False)
    kinds, owners = event_kinds(world, owners=True)
    assert set(kinds) == {"block", "unblock", "open", "close", "cost", "goal", "traffic"}
    assert owners.pop("traffic") == "roads"           # the roads plugin's own kind
    assert set(owners.values()) == {"navcore"}

    registry.unregister("scenes")
    with pytest.raises(SystemExit):
        build_parser(registry).parse_args(["run", "s.yaml"])
    assert "invalid choice: 'run'" in capsys.readouterr().err
    world.plugins.unregister("scenes")
    assert set(event_kinds(world)) == {"traffic"}
