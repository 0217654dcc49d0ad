"""Plugin manager: built-ins via entry points, run-time and third-party
plugins, and every way a plugin can be wrong."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import navcore
from navcore.plugins import BUILTIN, ENTRY_POINT, RUN_TIME

ROOT = Path(__file__).resolve().parents[2]

HEXGRID = Path(__file__).resolve().parents[2] / "examples" / "navcore_hexgrid"


def test_builtins_come_from_the_navcore_entry_point_group(world):
    info = {i.name: i for i in world.plugins.info()}
    assert info["csr"].source == BUILTIN
    assert "csr" in info["csr"].graph_types
    assert "navcore_find_path" in info["csr"].hooks


class Ring:
    """A tiny run-time plugin: type 'ring' of n nodes."""

    @navcore.hookimpl
    def navcore_graph_types(self):
        def build(world, graph_id, n=6):
            return navcore.NavGraph.from_edges(range(n), [(i + 1) % n for i in range(n)],
                                               world=world, directed=False)
        return {"ring": build}


def test_run_time_plugin_provides_a_type_queried_by_generic_kernels(world):
    name = world.plugins.register(Ring())
    assert world.plugins.info()[-1].source == RUN_TIME
    world.add_graph("r", type="ring", n=8)
    r = world.find_path("r", 0, 6)
    assert r.nodes.tolist() == [0, 7, 6] and r.cost == 2.0
    world.plugins.unregister(name)
    with pytest.raises(navcore.UnknownGraphTypeError):
        world.add_graph("r2", type="ring")


def test_unknown_type_lists_known_types_and_their_plugins(world):
    with pytest.raises(navcore.UnknownGraphTypeError, match=r"'hex'.*csr \(csr\)"):
        world.add_graph("g", type="hex")
    assert world.graphs == {}


def test_two_plugins_claiming_one_type_is_an_error_naming_both(world):
    world.plugins.register(Ring(), name="ring-a")
    with pytest.raises(navcore.PluginError, match="'ring'.*'ring-a'.*'ring-b'"):
        world.plugins.register(Ring(), name="ring-b")
    assert "ring-b" not in world.plugins.names()


class Typo:
    @navcore.hookimpl
    def navcore_find_pth(self, graph, request):
        return None


class Unmarked:
    def navcore_frame_strat(self, world, frame):
        pass


class BadArgs:
    @navcore.hookimpl
    def navcore_find_path(self, graph, request, banana):
        return None


@pytest.mark.nojit
@pytest.mark.parametrize("plugin, message", [
    (Typo(), r"unknown hook 'navcore_find_pth' \(did you mean 'navcore_find_path'\?\)"),
    (Unmarked(), r"unknown hook 'navcore_frame_strat'"),
    (BadArgs(), r"invalid.*banana"),
])
def test_invalid_plugins_are_rejected_by_name_and_leave_the_world_as_it_was(
        world, plugin, message):
    before = world.plugins.names()
    with pytest.raises(navcore.PluginError, match=message):
        world.plugins.register(plugin, name="bad")
    assert world.plugins.names() == before
    world.add_graph("g", type="csr", src=[0], dst=[1])
    assert world.find_path("g", 0, 1).found


def test_plugin_can_add_its_own_hooks(world):
    class Extension:
        @navcore.hookspec
        def navcore_ext_ping(self, x):
            """A hook a plugin adds for its own plugins."""

    class Listener:
        @navcore.hookimpl
        def navcore_ext_ping(self, x):
            return x * 2

    world.plugins.register(Extension())
    world.plugins.register(Listener())
    assert world.plugins.hook.navcore_ext_ping(x=21) == [42]


def _fake_distribution(tmp_path, name, module_source, module_name, extra=""):
    """A real entry point: a module plus a .dist-info that importlib.metadata reads."""
    (tmp_path / f"{module_name}.py").write_text(textwrap.dedent(module_source))
    info = tmp_path / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[navcore]\n{name} = {module_name}{extra}\n")
    return tmp_path


def _run(code, path, env_extra=None):
    import os
    env = dict(os.environ, PYTHONPATH=str(path), **(env_extra or {}))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, env=env, timeout=120)


def test_entry_point_plugin_is_loaded_and_can_be_disabled(tmp_path):
    path = _fake_distribution(tmp_path, "hexgrid", HEXGRID.joinpath(
        "navcore_hexgrid.py").read_text(), "navcore_hexgrid")
    code = """
        import navcore
        w = navcore.World()
        info = {i.name: i for i in w.plugins.info()}
        print(info["hexgrid"].source, info["hexgrid"].graph_types)
        w.add_graph("h", type="hexgrid", width=5, height=5, blocked=[(1, 1)])
        r = w.find_path("h", (0, 0), (2, 2))
        print(r.status.value, r.cost)
    """
    out = _run(code, path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == f"{ENTRY_POINT} ('hexgrid',)"
    assert out.stdout.split("\n")[1] == "found 4.0"
    off = _run("import navcore; print(navcore.World().plugins.names())", path,
               {"NAVCORE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert off.returncode == 0 and "hexgrid" not in off.stdout and "csr" in off.stdout


_WORLD_WITH_A_BROKEN_PLUGIN = """
    import warnings
    import navcore
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w = navcore.World()
    print([str(c.message) for c in caught if c.category is navcore.plugins.PluginWarning])
    print([(s.name, s.failed, s.reason) for s in w.plugins.skipped])
    print(sorted(w.graph_types()))
    try:
        w.add_graph("h", type="hexgrid")
    except navcore.UnknownGraphTypeError as e:
        print("UnknownGraphTypeError:", e)
"""


@pytest.mark.parametrize("name, source, extra, message", [
    ("broken", "import does_not_exist_anywhere\n", "",
     "plugin 'broken' (navcore_broken (broken)) failed to load: ModuleNotFoundError"),
    # an extra makes a missing module optional, not every other failure
    ("buggy", "x = 1 / 0\n", " [osm]",
     "plugin 'buggy' (navcore_buggy [osm] (buggy)) failed to load: ZeroDivisionError"),
    # registration fails: a hook navcore does not have
    ("typo", "def navcore_find_pathh(graph):\n    pass\n", "",
     "plugin 'typo' implements unknown hook 'navcore_find_pathh'"),
])
def test_a_broken_third_party_plugin_is_left_out_named_and_warned_about(
        tmp_path, name, source, extra, message):
    # one broken install must not stop every world (and every command):
    # the plugin is left out with a warning, listed as failed with its
    # error, and named where a user would miss it (an unknown graph type)
    path = _fake_distribution(tmp_path, name, source, f"navcore_{name}", extra=extra)
    out = _run(_WORLD_WITH_A_BROKEN_PLUGIN, path)
    assert out.returncode == 0, out.stderr
    warned, skipped, types, unknown = out.stdout.splitlines()[:4]
    assert message in warned and "it is not loaded" in warned
    assert f"('{name}', True, " in skipped and message in skipped
    assert types == "['csr', 'grid', 'level', 'navmesh', 'roads']"
    assert unknown.startswith("UnknownGraphTypeError: unknown graph type 'hexgrid'")
    assert f"plugin '{name}' was not loaded: {message}" in unknown


def test_every_command_works_beside_a_broken_plugin_and_plugins_lists_it(tmp_path):
    path = _fake_distribution(tmp_path, "broken", "raise RuntimeError('boom')\n",
                              "navcore_broken")
    import os
    env = dict(os.environ, PYTHONPATH=str(path))
    cli = [sys.executable, "-m", "navcore"]
    help_ = subprocess.run(cli + ["--help"], capture_output=True, text=True, env=env)
    assert help_.returncode == 0 and "usage: navcore" in help_.stdout
    listing = subprocess.run(cli + ["plugins"], capture_output=True, text=True, env=env)
    assert listing.returncode == 0
    assert "broken  [entry point, failed]  navcore_broken (broken)" in listing.stdout
    assert "failed to load: RuntimeError: boom" in listing.stdout
    scene = ROOT / "scenes" / "dungeon.yaml"
    check = subprocess.run(cli + ["validate", str(scene)], capture_output=True, text=True,
                           env=env)
    assert check.returncode == 0, check.stderr
    off = subprocess.run(cli + ["plugins"], capture_output=True, text=True,
                         env=dict(env, NAVCORE_DISABLE_PLUGIN_AUTOLOAD="1"))
    assert off.returncode == 0 and "broken" not in off.stdout + off.stderr


def test_optional_plugin_missing_its_extra_is_skipped_with_a_note(tmp_path):
    path = _fake_distribution(tmp_path, "osmish", "import osmium_not_installed_here\n",
                              "navcore_osmish", extra=" [osm]")
    out = _run("""
        import navcore
        w = navcore.World()
        print(w.plugins.names())
        print(w.plugins.skipped[0].reason)
        from navcore.cli import main; main(['plugins'])
    """, path)
    assert out.returncode == 0, out.stderr
    names, reason = out.stdout.split("\n")[:2]
    assert "osmish" not in names and "grid" in names
    assert reason.startswith("needs the [osm] extra (pip install 'osmish[osm]'): ")
    assert "osmium_not_installed_here" in reason
    assert "osmish  [entry point, not loaded]" in out.stdout


def test_builtin_only_and_the_environment_both_keep_third_party_plugins_out(tmp_path):
    path = _fake_distribution(tmp_path, "hexgrid", HEXGRID.joinpath(
        "navcore_hexgrid.py").read_text(), "navcore_hexgrid")
    listing = "from navcore.cli import main; main(['plugins'])"
    assert "hexgrid" in _run(listing, path).stdout
    assert "hexgrid" not in _run(listing.replace("'plugins'", "'plugins', '--builtin-only'"),
                                 path).stdout
    off = _run(listing, path, {"NAVCORE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert off.returncode == 0 and "hexgrid" not in off.stdout and "csr  [built-in]" in off.stdout


def test_cli_lists_plugins_with_source_hooks_and_types(tmp_path):
    path = _fake_distribution(tmp_path, "hexgrid", HEXGRID.joinpath(
        "navcore_hexgrid.py").read_text(), "navcore_hexgrid")
    out = _run("from navcore.cli import main; main(['plugins'])", path)
    assert out.returncode == 0, out.stderr
    assert "csr  [built-in]" in out.stdout
    assert "hexgrid  [entry point]  navcore_hexgrid (hexgrid)" in out.stdout
    assert "graph types: hexgrid" in out.stdout
    assert "hooks: algorithms, apply_updates" in out.stdout


@pytest.mark.nojit
def test_plugins_registered_through_the_pluggy_manager_are_heard_by_find_path():
    import numpy as np
    world = navcore.World(autoload=False)
    world.add_graph("g", type="csr", src=[0], dst=[1], positions=np.eye(2))
    assert world.find_path("g", 0, 1).found

    class Closed:
        @navcore.hookimpl(tryfirst=True)
        def navcore_find_path(self):
            return navcore.PathResult.failed(navcore.PathStatus.UNREACHABLE)

    world.plugins.manager.register(Closed())
    assert world.find_path("g", 0, 1).status.value == "unreachable"


@pytest.mark.nojit
def test_for_graphs_runs_an_implementation_only_for_its_graph_classes():
    import numpy as np

    class Special(navcore.NavGraph):
        pass

    seen = []

    class Planner:
        @navcore.hookimpl(tryfirst=True)
        @navcore.for_graphs(Special)
        def navcore_find_path(self, graph, request):
            seen.append(graph.graph_id)
            return navcore.PathResult.failed(navcore.PathStatus.UNREACHABLE)

        @navcore.hookimpl
        @navcore.for_graphs(Special)
        def navcore_algorithms(self, graph):
            return ["special"]

    world = navcore.World(autoload=False, plugins=[Planner()])
    plain = world.add_graph("plain", type="csr", src=[0], dst=[1], positions=np.eye(2))
    world.graphs["odd"] = Special(plain.csr, positions=np.eye(2))
    world.graphs["odd"].graph_id = "odd"
    assert world.find_path("plain", 0, 1).found             # passed on to the csr plugin
    assert world.find_path("odd", 0, 1).status.value == "unreachable"
    assert seen == ["odd"]
    assert "special" in world.algorithms("odd") and "special" not in world.algorithms("plain")
    with pytest.raises(navcore.PluginError, match="takes no 'graph' argument"):
        navcore.for_graphs(Special)(lambda world, request: None)
    with pytest.raises(navcore.PluginError, match="needs graph classes"):
        navcore.for_graphs("grid")


@pytest.mark.nojit
def test_for_graphs_keeps_decorators_under_it_and_refuses_wrappers():
    import functools

    import numpy as np
    calls = []

    def logged(fn):
        @functools.wraps(fn)
        def inner(*args):
            calls.append(fn.__name__)
            return fn(*args)
        return inner

    class Special(navcore.NavGraph):
        pass

    class Planner:
        @navcore.hookimpl(tryfirst=True)
        @navcore.for_graphs(Special)
        @logged
        def navcore_find_path(self, graph, request):
            return navcore.PathResult.failed(navcore.PathStatus.UNREACHABLE)

    world = navcore.World(autoload=False, plugins=[Planner()])
    plain = world.add_graph("plain", type="csr", src=[0], dst=[1], positions=np.eye(2))
    world.graphs["odd"] = Special(plain.csr, positions=np.eye(2))
    world.graphs["odd"].graph_id = "odd"
    world.find_path("plain", 0, 1)                      # the cached chain
    assert world.find_path("odd", 0, 1).status.value == "unreachable"
    assert calls == ["navcore_find_path"]
    with pytest.raises(navcore.PluginError, match="not to a hook wrapper"):
        @navcore.for_graphs(Special)
        def navcore_find_path(graph, request):
            yield
    with pytest.raises(navcore.PluginError, match="applies once"):
        navcore.for_graphs(Special)(navcore.for_graphs(Special)(lambda graph: None))


def test_optional_plugin_whose_own_module_is_missing_is_a_failure(tmp_path):
    path = _fake_distribution(tmp_path, "roads", "x = 1\n", "navcore_roads_ok",
                              extra=" [osm]")
    info = next(tmp_path.glob("roads-*.dist-info"))
    (info / "entry_points.txt").write_text("[navcore]\nroadz = navcore_roadz.plugin [osm]\n")
    out = _run(_WORLD_WITH_A_BROKEN_PLUGIN, path)
    skipped = out.stdout.splitlines()[1]
    assert "('roadz', True, \"plugin 'roadz'" in skipped and "navcore_roadz" in skipped, \
        out.stdout + out.stderr


def test_third_party_plugin_named_like_a_builtin_is_skipped_with_a_note(tmp_path):
    path = _fake_distribution(tmp_path, "grid", "x = 1\n", "navcore_other_grid")
    out = _run("""
        import navcore
        w = navcore.World()
        print([(s.name, s.reason) for s in w.plugins.skipped])
        print(w.plugins.info()[[i.name for i in w.plugins.info()].index("grid")].source)
    """, path)
    assert out.returncode == 0, out.stderr
    assert "('grid', \"a plugin named 'grid' is already registered" in out.stdout
    assert out.stdout.split("\n")[1] == "built-in"


def test_forward_makes_fn_the_hook_for_its_graphs_and_refuses_defaults():
    from navcore.plugins import forward
    seen = []

    def reachable(graph, a, b):
        seen.append((graph.graph_id, a, b))
        return True

    import types
    plugin = types.ModuleType("fwd")          # as in a plugin module
    plugin.navcore_reachable = forward(reachable, navcore.NavGraph, tryfirst=True)
    w = navcore.World(warm_up=False)
    w.plugins.register(plugin, name="fwd")
    w.add_graph("g", type="csr", src=[0], dst=[1], num_nodes=3)
    assert w.reachable("g", 2, 0) is True           # no edge: only the plugin says so
    assert seen == [("g", 2, 0)]
    assert not hasattr(reachable, "navcore_impl")    # fn itself stays unmarked

    class Layer:                               # a class: called with the hook's arguments
        def __init__(self, world, graph_id, graph):
            self.args = (world, graph_id, graph)
    other = types.ModuleType("fwd2")
    other.navcore_scene_layer = forward(Layer, navcore.NavGraph)
    w.plugins.register(other, name="fwd2")
    layer = w.plugins.caller("navcore_scene_layer", navcore.NavGraph)(w, "g", w.graph("g"))
    assert isinstance(layer, Layer) and layer.args == (w, "g", w.graph("g"))

    def with_default(graph, a, b=None):
        return True
    with pytest.raises(navcore.PluginError, match="parameter with a default"):
        forward(with_default)
