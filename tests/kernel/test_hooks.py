"""The plugin contract: every hook in hookspecs.py is documented and is
exercised through a plugin somewhere in tests/. Adding a hook without a
docstring and a test tagged ``@exercises("navcore_...")`` fails
``test_every_hook_...``."""
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import navcore
from navcore import hookspecs

from hooktags import EXERCISED, exercises

TESTS = Path(__file__).resolve().parents[1]


def _tagged_anywhere() -> set:
    """Hooks tagged in any test file: read from the sources, so the check
    does not depend on which test modules this run imported."""
    names = set()
    for path in TESTS.rglob("test_*.py"):
        for args in re.findall(r"@exercises\(([^)]*)\)", path.read_text()):
            names.update(re.findall(r"[\"'](navcore_\w+)[\"']", args))
    return names


def _hooks():
    return sorted(n for n in dir(hookspecs) if n.startswith("navcore_"))


@pytest.mark.nojit
def test_every_hook_is_documented_and_exercised():
    for name in _hooks():
        doc = inspect.getdoc(getattr(hookspecs, name)) or ""
        assert len(doc) > 80, f"{name} needs a docstring that states its contract"
        assert "Called" in doc or "called" in doc or "Fired" in doc, \
            f"{name}'s docstring must say when it is called"
    missing = set(_hooks()) - EXERCISED - _tagged_anywhere()
    assert not missing, f"hooks without a test through a plugin: {sorted(missing)}"


class Recorder:
    """Records every observer hook call it receives."""

    def __init__(self):
        self.calls = []

    @navcore.hookimpl
    def navcore_graph_built(self, graph_id, graph):
        self.calls.append(("built", graph_id, graph.num_nodes))

    @navcore.hookimpl
    def navcore_graph_removed(self, graph_id):
        self.calls.append(("removed", graph_id))

    @navcore.hookimpl
    def navcore_graph_updated(self, graph_id, dirty):
        self.calls.append(("updated", graph_id, dirty.tolist()))

    @navcore.hookimpl
    def navcore_frame_start(self, frame):
        self.calls.append(("start", frame))

    @navcore.hookimpl
    def navcore_frame_end(self, frame, stats):
        self.calls.append(("end", frame, stats.updates_applied, stats.dirty_nodes))

    @navcore.hookimpl
    def navcore_components_changed(self, graph_id, changed_areas):
        self.calls.append(("components", graph_id, list(changed_areas)))


@pytest.fixture
def recorded(world):
    rec = Recorder()
    world.plugins.register(rec)
    world.add_graph("g", type="csr", src=[0, 1, 2], dst=[1, 2, 3], directed=False)
    return world, rec


@exercises("navcore_graph_types", "navcore_graph_built", "navcore_graph_removed")
def test_graph_lifecycle_hooks(recorded):
    world, rec = recorded
    world.remove_graph("g")
    assert rec.calls == [("built", "g", 4), ("removed", "g")]
    with pytest.raises(navcore.UnknownGraphError, match="no graph 'g'"):
        world.find_path("g", 0, 1)


@exercises("navcore_make_update", "navcore_apply_updates", "navcore_graph_updated",
           "navcore_frame_start", "navcore_frame_end")
def test_update_and_frame_hooks(recorded):
    world, rec = recorded
    world.update("g", nodes=[2], walkable=False)
    assert world.find_path("g", 0, 3).found          # queued, not applied yet
    stats = world.tick(0.016)
    assert world.find_path("g", 0, 3).status == navcore.PathStatus.UNREACHABLE
    # blocking node 2 of the path 0-1-2-3 splits its area: the hierarchy
    # plugin reports the two ids after the graph_updated observers ran
    assert rec.calls[1:] == [("start", 1), ("updated", "g", [2]), ("components", "g", [0, 1]),
                             ("end", 1, 1, 1)]
    assert stats.frame == 1 and stats.updates_applied == 1


@exercises("navcore_components_changed")
def test_components_changed_reaches_listeners(recorded):
    world, rec = recorded
    world.plugins.hook.navcore_components_changed(world=world, graph_id="g",
                                                  changed_areas=np.array([3, 4]))
    assert rec.calls[-1] == ("components", "g", [3, 4])


@exercises("navcore_storage_build")
def test_storage_can_be_replaced_by_a_plugin(world):
    seen = []

    class LoggingStorage:
        @navcore.hookimpl(tryfirst=True)
        def navcore_storage_build(self, src, dst, data, num_nodes, options):
            seen.append((len(src), num_nodes, options["dedup"]))
            return None   # pass on to the csr plugin

    world.plugins.register(LoggingStorage())
    world.add_graph("g", type="csr", src=[0, 0], dst=[1, 1])
    assert seen == [(2, 2, True)]
    assert world.graph("g").csr.num_edges == 1


@exercises("navcore_find_path", "navcore_algorithms", "navcore_postprocess_path")
def test_query_hooks_let_a_planner_answer_first_and_postprocess(world):
    class Teleport:
        @navcore.hookimpl
        def navcore_algorithms(self, graph):
            return ["teleport"]

        @navcore.hookimpl
        def navcore_find_path(self, graph, request):
            if request.algorithm != "teleport":
                return None
            nodes = np.array([request.start_node, request.goal_node], dtype=np.int32)
            return navcore.PathResult("found", nodes, graph.points_of(nodes), 0.0, 0,
                                      "teleport")

        @navcore.hookimpl
        def navcore_postprocess_path(self, request, result):
            if result.algorithm == "teleport":
                return navcore.PathResult("found", result.nodes, result.points, 42.0, 0,
                                          "teleport+post")
            return None

    world.plugins.register(Teleport())
    world.add_graph("g", type="csr", src=[0, 1], dst=[1, 2])
    assert "teleport" in world.algorithms("g")
    r = world.find_path("g", 0, 2, algorithm="teleport")
    assert (r.nodes.tolist(), r.cost, r.algorithm) == ([0, 2], 42.0, "teleport+post")
    assert world.find_path("g", 0, 2).cost == 2.0          # generic A* still answers
    with pytest.raises(navcore.QueryError, match="unknown algorithm 'warp'.*teleport"):
        world.find_path("g", 0, 2, algorithm="warp")


def test_an_algorithm_checked_once_is_checked_again_when_plugins_or_graph_change(world):
    # prepare_path remembers the last algorithm it found known for a graph:
    # a plugin leaving, or another graph under the same id, must not see it
    class Teleport:
        @navcore.hookimpl
        def navcore_algorithms(self, graph):
            return ["teleport"] if graph.num_nodes == 3 else []

        @navcore.hookimpl
        def navcore_find_path(self, graph, request):
            return navcore.PathResult("found", np.array([request.start_node], np.int32),
                                      algorithm="teleport")

    plugin = Teleport()
    world.plugins.register(plugin)
    world.add_graph("g", type="csr", src=[0, 1], dst=[1, 2])
    assert world.find_path("g", 0, 2, algorithm="teleport").algorithm == "teleport"
    world.remove_graph("g")
    world.add_graph("g", type="csr", src=[0, 1, 2], dst=[1, 2, 3])     # 4 nodes: no teleport
    with pytest.raises(navcore.QueryError, match="unknown algorithm 'teleport'"):
        world.find_path("g", 0, 2, algorithm="teleport")
    world.add_graph("h", type="csr", src=[0, 1], dst=[1, 2])
    assert world.find_path("h", 0, 2, algorithm="teleport").algorithm == "teleport"
    world.plugins.unregister(plugin)
    with pytest.raises(navcore.QueryError, match="unknown algorithm 'teleport'"):
        world.find_path("h", 0, 2, algorithm="teleport")
    with pytest.raises(navcore.QueryError, match="unknown algorithm"):
        world.find_path("h", 0, 2, algorithm=np.array(["astar", "dijkstra"]))


@exercises("navcore_reachable", "navcore_distance_matrix")
def test_reachable_and_matrix_hooks_can_be_answered_by_a_plugin(world):
    class Oracle:
        @navcore.hookimpl(tryfirst=True)
        def navcore_reachable(self, a, b):
            return True if (a, b) == (2, 0) else None

        @navcore.hookimpl(tryfirst=True)
        def navcore_distance_matrix(self, sources, targets):
            return np.zeros((len(sources), len(targets))) if len(sources) == 3 else None

    world.add_graph("g", type="csr", src=[0, 1], dst=[1, 2])
    assert world.reachable("g", 0, 2) and not world.reachable("g", 2, 0)
    assert world.distance_matrix("g", [0], [2]).tolist() == [[2.0]]
    world.plugins.register(Oracle())
    assert world.reachable("g", 2, 0)
    assert world.distance_matrix("g", [0, 1, 2], [0]).tolist() == [[0.0]] * 3


@exercises("navcore_distance_pairs")
def test_distance_pairs_hook_answers_arrays_of_pairs(world):
    class Oracle:
        @navcore.hookimpl(tryfirst=True)
        def navcore_distance_pairs(self, sources, targets):
            return np.full(len(sources), 7.0) if len(sources) == 1 else None

    world.add_graph("g", type="csr", src=[0, 1, 0], dst=[1, 2, 2], cost=[1.0, 1.0, 5.0])
    assert world.distance_pairs("g", [0, 2, 0], [2, 0, 1]).tolist() == [2.0, np.inf, 1.0]
    with pytest.raises(navcore.QueryError, match="as many sources as targets"):
        world.distance_pairs("g", [0, 1], [2])
    world.plugins.register(Oracle())
    assert world.distance_pairs("g", [0], [2]).tolist() == [7.0]


@exercises("navcore_isochrone")
def test_isochrone_hook_gets_resolved_sources_and_increasing_limits(world):
    seen = []

    class Oracle:
        # a plugin sees node ids (points located), the cost spent at each
        # source (0 from World.isochrone) and the limits as a float array
        @navcore.hookimpl(tryfirst=True)
        def navcore_isochrone(self, graph, sources, source_costs, source_points, limits):
            seen.append((sources.tolist(), source_costs.tolist(), source_points,
                         limits.tolist()))

    world.add_graph("g", type="csr", src=[0, 1], dst=[1, 2], cost=[1.0, 1.0],
                    positions=[[0, 0], [1, 0], [2, 0]])
    world.plugins.register(Oracle())
    iso = world.isochrone("g", [2, (0.1, 0.0)], [1, 2.5])
    assert iso.nodes.tolist() == [0, 1, 2] and iso.costs.tolist() == [0.0, 1.0, 0.0]
    (sources, costs, points, limits), = seen
    assert sources == [2, 0] and costs == [0.0, 0.0] and limits == [1.0, 2.5]
    assert np.isnan(points[0]).all() and points[1].tolist() == [0.1, 0.0]


@exercises("navcore_add_commands")
def test_plugins_add_cli_subcommands(capsys):
    from navcore.cli import build_parser

    class Hello:
        @navcore.hookimpl
        def navcore_add_commands(self, subparsers):
            p = subparsers.add_parser("hello", help="say hello")
            p.add_argument("name")
            p.set_defaults(func=lambda args: print(f"hello {args.name}") or 0)

    registry = navcore.PluginRegistry(autoload=False)
    registry.register(Hello())
    args = build_parser(registry).parse_args(["hello", "grid"])
    assert args.func(args) == 0
    assert capsys.readouterr().out == "hello grid\n"
    assert "scen" in build_parser(registry)._subparsers._group_actions[0].choices


@exercises("navcore_path_costs")
def test_path_costs_hook_answers_for_backends_and_can_be_replaced(world):
    world.add_graph("g", type="csr", src=[0, 1, 0], dst=[1, 2, 2], cost=[1.0, 2.0, 5.0])
    world.add_graph("m", type="grid", rows=["...", "..."])
    # the csr plugin answers from the CSR view, the grid from its move rule
    assert world.path_costs("g", [[0, 1, 2], [0, 2], [2, 0], [1]]).tolist() == \
        [3.0, 5.0, np.inf, 0.0]
    assert world.path_costs("m", [[0, 4], [0, 2], [3, 4, 5]]).tolist() == \
        pytest.approx([2 ** 0.5, np.inf, 2.0])
    world.update("m", cells=[(1, 0)], walkable=False)
    world.tick()
    assert world.path_costs("m", [[0, 4], [3, 4]]).tolist() == [np.inf, 1.0]  # no corner cut

    class Toll:
        @navcore.hookimpl(tryfirst=True)
        def navcore_path_costs(self, graph, nodes, starts):
            return np.diff(starts) * 10.0 if graph.graph_id == "g" else None

    world.plugins.register(Toll())
    assert world.path_costs("g", [[0, 1, 2], [0, 2]]).tolist() == [30.0, 20.0]
    with pytest.raises(navcore.NodeError, match=r"paths\[1\]"):
        world.path_costs("g", [[0], [0, 7]])


@exercises("navcore_warm_up")
def test_warm_up_reaches_every_graph_and_changes_no_answer(world):
    seen = []

    class Spy:
        @navcore.hookimpl
        def navcore_warm_up(self, graph):
            seen.append(graph.graph_id)

    world.plugins.register(Spy())
    world.add_graph("m", type="grid", rows=["....#....", "....#....", "........."])
    world.add_graph("g", type="csr", src=[0, 1], dst=[1, 2], positions=[[0, 0], [1, 0], [2, 0]])
    assert seen == ["m", "g"]                  # add_graph warms each graph up
    before = (world.areas("m").tolist(), world.find_path("m", (0, 0), (8, 0)).cost,
              world.find_path("g", 0, 2).nodes.tolist())
    seen.clear()
    assert world.warm_up() >= 0.0
    assert sorted(seen) == ["g", "m"]
    after = (world.areas("m").tolist(), world.find_path("m", (0, 0), (8, 0)).cost,
             world.find_path("g", 0, 2).nodes.tolist())
    assert after == before
    world.warm_up("m")
    assert seen[-1] == "m"
    with pytest.raises(navcore.UnknownGraphError):
        world.warm_up("nope")


@exercises("navcore_query_options")
def test_find_path_accepts_only_the_options_some_plugin_reads(world):
    world.add_graph("c", type="csr", src=[0, 1], dst=[1, 2],
                    positions=[[0, 0], [1, 0], [2, 0]])
    assert world.find_path("c", 0, 2, heuristic="zero").algorithm == "dijkstra"
    with pytest.raises(navcore.QueryError, match=r"unknown find_path option\(s\) "
                                                 r"'heuristc' for csr graph 'c'; its "
                                                 r"options: heuristic"):
        world.find_path("c", 0, 2, heuristc="zero")
    # a declared option's value is checked before any search runs
    with pytest.raises(navcore.QueryError, match=r"unknown heuristic 'bogus' for csr graph "
                                                 r"'c'; choose one of: euclidean, "
                                                 r"manhattan, octile, zero"):
        world.find_path("c", 0, 2, heuristic="bogus")

    class Smooth:                      # a plugin that reads an option of its own
        @navcore.hookimpl
        def navcore_query_options(self, graph):
            return ["smooth"]

        @navcore.hookimpl(tryfirst=True)
        def navcore_find_path(self, graph, request):
            if request.options.get("smooth"):
                return navcore.PathResult.failed(navcore.PathStatus.UNREACHABLE)
            return None

    world.plugins.register(Smooth())
    assert world.find_path("c", 0, 2, smooth=True).status.value == "unreachable"
    assert world.find_path("c", 0, 2).status.value == "found"
