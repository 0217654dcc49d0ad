"""The built-in graph types (grid, csr) pass navcore's conformance kit
(navcore.testing), and every check of the kit can fail: a deliberately
broken plugin is caught by each."""
import threading

import numpy as np
import pytest

import navcore
import navcore.testing
from navcore.testing import GraphFactory

from generic_updates import GenericUpdates


class GridFactory(GraphFactory):
    """Random grids of about 50 to 160 cells with a quarter of them walls."""

    graph_type = "grid"
    #: per-cell costs a grid with costs draws from (0 is a wall, as in tcod)
    CELL_COSTS = (0.0, 0.5, 1.0, 1.0, 2.0, 3.5)

    def __init__(self, connectivity=8, *, costs=False, corner_cutting=False, landmarks=None):
        self.connectivity = connectivity
        self.costs = costs
        self.corner_cutting = corner_cutting
        self.landmarks = landmarks          # a stronger heuristic that follows updates
        self.name = (f"grid{connectivity}" + ("-cut" if corner_cutting else "")
                     + ("-costs" if costs else "")
                     + (f"-landmarks{landmarks}" if landmarks else ""))

    def build(self, world, graph_id, rng):
        h, w = (int(v) for v in rng.integers(6, 14, size=2))
        walk = rng.random((h, w)) >= 0.25
        if self.costs:
            array = np.where(walk, rng.choice(self.CELL_COSTS, size=(h, w)), np.inf)
        else:
            array = walk
        return world.add_graph(graph_id, type="grid", array=array,
                               connectivity=self.connectivity,
                               corner_cutting=self.corner_cutting, landmarks=self.landmarks)

    def random_update(self, graph, rng):
        W, H = graph.width, graph.height
        if rng.random() < 0.5:
            k = int(rng.integers(1, 6))
            region = {"cells": [(int(x), int(y)) for x, y in
                                zip(rng.integers(W, size=k), rng.integers(H, size=k))]}
            k = len(region["cells"])
        else:
            x, y = int(rng.integers(W)), int(rng.integers(H))
            rw = int(rng.integers(1, min(4, W - x) + 1))
            rh = int(rng.integers(1, min(4, H - y) + 1))
            region = {"rect": (x, y, rw, rh)}
            k = rw * rh
        if self.costs and rng.random() < 0.5:
            costs = np.append(self.CELL_COSTS, np.inf)
            cost = float(rng.choice(costs)) if rng.random() < 0.5 else \
                rng.choice(costs, size=k).tolist()
            if "rect" in region and not np.isscalar(cost):
                cost = np.reshape(cost, (region["rect"][3], region["rect"][2]))
            return {**region, "cost": cost}
        return {**region, "walkable": bool(rng.random() < 0.5)}

    def block_nodes(self, graph, nodes):
        return {"cells": [graph.cell_of(n) for n in nodes], "walkable": False}


class CsrFactory(GenericUpdates, GraphFactory):
    """Random sparse graphs of 20 to 120 nodes, some nodes blocked and some
    edges closed, with 2-d or 3-d positions (A* with a scaled euclidean
    heuristic) or without (Dijkstra)."""

    graph_type = "csr"

    def __init__(self, directed, *, positions=2, nodes=(20, 120)):
        self.directed = directed
        self.positions = positions          # dimensions, 0 for none
        self.nodes = nodes
        self.name = ("csr-directed" if directed else "csr-undirected") \
            + {0: "-nopos", 2: "", 3: "-3d"}[positions]

    def build(self, world, graph_id, rng):
        n = int(rng.integers(*self.nodes))
        m = int(rng.integers(n, 3 * n))
        src, dst = rng.integers(n, size=m), rng.integers(n, size=m)
        cost = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0, 10.0, np.inf], size=m,
                          p=[0.05, 0.2, 0.3, 0.2, 0.1, 0.1, 0.05])
        pos = rng.random((n, self.positions)) * 10.0 if self.positions else None
        if pos is not None:        # costs at least the distance: a useful heuristic
            cost = cost + np.linalg.norm(pos[src] - pos[dst], axis=1)
        return world.add_graph(graph_id, type="csr", src=src, dst=dst, cost=cost,
                               num_nodes=n, positions=pos, directed=self.directed,
                               walkable=rng.random(n) >= 0.05)


FACTORIES = [GridFactory(8), GridFactory(4), GridFactory(8, costs=True),
             GridFactory(4, costs=True), GridFactory(8, corner_cutting=True, costs=True),
             GridFactory(8, costs=True, landmarks=3),
             CsrFactory(directed=False), CsrFactory(directed=True),
             CsrFactory(directed=False, positions=0), CsrFactory(directed=True, positions=3)]

KNOWN: dict = {}      # id -> reason, for a check a built-in type is known to fail


@navcore.testing.parametrize(FACTORIES, xfail=KNOWN)
def test_builtin_type_conforms(factory, check):
    check(factory)


# small graphs, so the kit also runs with NUMBA_DISABLE_JIT=1 (make test-nojit)
@pytest.mark.nojit
@navcore.testing.parametrize([GridFactory(8, costs=True),
                              CsrFactory(directed=True, nodes=(15, 40))])
def test_builtin_type_conforms_without_jit(factory, check):
    check(factory)


# -- every check can fail ----------------------------------------------------------

class Broken(CsrFactory):
    """The undirected csr factory with a broken plugin in its worlds."""

    def __init__(self, plugin):
        super().__init__(directed=False, nodes=(30, 60))
        self.plugins = (plugin,)
        self.name = f"csr-with-{type(plugin).__name__}"


class DearerPaths:
    """Reports every found path one unit dearer than it is."""

    @navcore.hookimpl(wrapper=True)
    def navcore_find_path(self):
        result = yield
        if result is not None and result.found:
            result = navcore.PathResult(result.status, result.nodes, result.points,
                                        result.cost + 1.0, result.expanded,
                                        result.algorithm)
        return result


class ForgetfulUpdates:
    """Applies updates but reports only half the nodes they changed."""

    @navcore.hookimpl(wrapper=True)
    def navcore_apply_updates(self):
        dirty = yield
        return dirty[::2].copy()


class OneArea:
    """Says every walkable node is in area 0."""

    @navcore.hookimpl(tryfirst=True)
    def navcore_areas(self, graph, nodes):
        areas = np.where(graph.walkable, 0, -1).astype(np.int32)
        return areas if nodes is None else areas[nodes]


class StalePathCosts:
    """Says every path still costs what it did: nothing is planned again."""

    @navcore.hookimpl(tryfirst=True)
    def navcore_path_costs(self, nodes, starts):
        return np.zeros(len(starts) - 1)


class LaxUpdates:
    """Accepts update parameters it does not know, and drops them."""

    @navcore.hookimpl(tryfirst=True)
    def navcore_make_update(self, graph, params):
        if set(params) - {"nodes", "walkable", "edges", "cost"} or not params:
            return navcore.Update(graph.graph_id, "walkable",
                                  {"nodes": np.empty(0, np.int64), "walkable": True})
        return None


class WorkerDrift:
    """Adds a rounding error to the costs of paths found on worker threads."""

    @navcore.hookimpl(wrapper=True)
    def navcore_find_path(self):
        result = yield
        if result is not None and result.found \
                and threading.current_thread() is not threading.main_thread():
            result = navcore.PathResult(result.status, result.nodes, result.points,
                                        result.cost + 1e-6, result.expanded,
                                        result.algorithm)
        return result


class ShiftedPoints:
    """Reports each path's points half a unit off its nodes."""

    @navcore.hookimpl(wrapper=True)
    def navcore_find_path(self):
        result = yield
        if result is not None and result.found:
            result = navcore.PathResult(result.status, result.nodes, result.points + 0.5,
                                        result.cost, result.expanded, result.algorithm)
        return result


class SmoothEverywhere:
    """Declares an option for every graph that no search reads."""
    @navcore.hookimpl
    def navcore_query_options(self, graph):
        return {"smooth": (True, False)}


class NodesIgnored:
    """Accepts nodes= updates and drops them."""
    @navcore.hookimpl(tryfirst=True)
    def navcore_make_update(self, graph, params):
        if "nodes" in params:
            return navcore.Update(graph.graph_id, "walkable",
                                  {"nodes": np.empty(0, np.int64), "walkable": True})
        return None


class SharedResults:
    """Answers a pair asked again (by another algorithm) with the result
    object it gave the first time when the cost is the same: the version
    World writes on it is then the last query's."""

    def __init__(self):
        self.kept = {}

    @navcore.hookimpl(wrapper=True)
    def navcore_find_path(self, graph, request):
        result = yield
        key = (graph.salt, request.start_node, request.goal_node, result.cost)
        return self.kept.setdefault(key, result)


@pytest.mark.nojit
@pytest.mark.parametrize("plugin, check, message", [
    (DearerPaths(), navcore.testing.check_paths_match_reference, "reference Dijkstra"),
    (SharedResults(), navcore.testing.check_paths_match_reference,
     "PathResult object of an earlier query"),
    (OneArea(), navcore.testing.check_reachable_and_areas_match_labelling,
     "not connected"),
    (ForgetfulUpdates(), navcore.testing.check_dirty_covers_changes, "misses"),
    (StalePathCosts(), navcore.testing.check_scheduler_replans, "not planned again"),
    (LaxUpdates(), navcore.testing.check_bad_input_changes_nothing, "raised nothing"),
    (WorkerDrift(), navcore.testing.check_workers_agree, "with workers=2"),
    (ShiftedPoints(), navcore.testing.check_points_locate_back, "not the points"),
    (SmoothEverywhere(), navcore.testing.check_options_are_read_or_refused,
     "'smooth' is declared for this graph, but no algorithm"),
    (NodesIgnored(), navcore.testing.check_update_vocabulary, "left nodes"),
], ids=lambda v: navcore.testing.check_name(v) if callable(v) and not isinstance(v, str)
   and hasattr(v, "__name__") else None)
def test_each_check_catches_a_broken_plugin(plugin, check, message):
    factory = Broken(plugin)
    with pytest.raises(AssertionError, match=message):
        check(factory)
    # the same check passes without the broken plugin
    check(CsrFactory(directed=False, nodes=(30, 60)))


class HeuristicEverywhere:
    """What the csr plugin used to do: declare heuristic= for every graph."""
    @navcore.hookimpl
    def navcore_query_options(self, graph):
        return ["heuristic"]


@pytest.mark.nojit
def test_an_option_declared_for_a_graph_whose_search_ignores_it_is_caught():
    factory = GridFactory(8)
    factory.plugins = (HeuristicEverywhere(),)
    with pytest.raises(AssertionError, match="'heuristic' is declared for this graph, but no "
                                             "algorithm"):
        navcore.testing.check_options_are_read_or_refused(factory)
    navcore.testing.check_options_are_read_or_refused(GridFactory(8))
    # and on a grid today, heuristic= is refused, naming what a grid reads
    world = navcore.World(autoload=False)
    world.add_graph("g", type="grid", rows=["...", "..."])
    with pytest.raises(navcore.QueryError, match=r"'heuristic' for grid graph 'g'; its "
                                                 r"options: none"):
        world.find_path("g", (0, 0), (2, 1), heuristic="bogus")


@pytest.mark.nojit
def test_check_graph_type_lists_every_failure():
    factory = Broken(DearerPaths())
    with pytest.raises(AssertionError) as info:
        navcore.testing.check_graph_type(factory, seeds=[0, 1],
                                         checks=[navcore.testing.check_paths_match_reference,
                                                 navcore.testing.check_scheduler_replans])
    text = str(info.value)
    assert text.startswith("csr-with-DearerPaths fails 4 conformance check(s)")
    assert "paths_match_reference (seed 1)" in text and "scheduler_replans (seed 0)" in text


@pytest.mark.nojit
def test_parametrize_names_tests_and_marks_known_failures():
    mark = navcore.testing.parametrize([CsrFactory(directed=True)], seeds=(0, 1),
                                       xfail={"workers_agree": "known"})
    params = mark.args[1]
    ids = [p.id for p in params]
    assert len(ids) == 2 * len(navcore.testing.CHECKS)
    assert "csr-directed-paths_match_reference-seed1" in ids
    xfailed = [p.id for p in params if p.marks]
    assert xfailed == ["csr-directed-workers_agree-seed0", "csr-directed-workers_agree-seed1"]


@pytest.mark.nojit
def test_importing_navcore_does_not_import_pytest_or_the_kit():
    import subprocess
    import sys
    code = ("import sys, navcore; print('pytest' in sys.modules, "
            "'navcore.testing' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.split() == ["False", "False"], out.stderr
