"""World asks every hook through ``PluginRegistry.caller``: it answers as
pluggy's own hook call does (both call shapes, hook wrappers of both
styles, exceptions), follows registration, lets pluggy's call monitoring
and tracing see every hook, and a query no plugin answers is one
``QueryError`` naming the graph, its type and the algorithm."""
import numpy as np
import pytest

import navcore
from hooktags import exercises

FIRST = "navcore_reachable"            # firstresult: (world, graph, a, b)
ALL = "navcore_frame_end"              # not firstresult: (world, frame, stats)


class _Graph:
    kind = "fake"
    graph_id = "x"


class _Special(_Graph):
    pass


def _plugin(kind, tag, log, **opts):
    """A plugin implementing FIRST and ALL the ``kind`` way, logging its
    calls: answer / silent (None) / raise / wrapper (new style) /
    oldwrapper (``hookwrapper=True``) / special (``for_graphs(_Special)``)."""
    mark = navcore.hookimpl(**opts)

    class P:
        pass

    if kind in ("answer", "silent", "raise"):
        def impl(*args):
            log.append(tag)
            if kind == "raise":
                raise ValueError(f"from {tag}")
            return None if kind == "silent" else tag

        def first(world, graph, a, b):
            return impl()

        def every(world, frame):
            return impl()
    elif kind == "special":
        @navcore.for_graphs(_Special)
        def first(graph, a):
            log.append(tag)
            return tag

        every = None                    # (the frame hook has no graph argument)
    elif kind == "wrapper":
        mark = navcore.hookimpl(wrapper=True, **opts)

        def wrap():
            log.append(f"{tag} in")
            try:
                result = yield
            except ValueError as exc:
                log.append(f"{tag} saw {exc}")
                raise
            log.append(f"{tag} out")
            return result

        def first(world):
            return (yield from wrap())

        def every(frame):
            return (yield from wrap())
    else:                                      # old-style hookwrapper
        mark = navcore.hookimpl(hookwrapper=True, **opts)

        def old():
            log.append(f"{tag} in")
            outcome = yield
            log.append(f"{tag} out {outcome.exception is not None}")

        def first(a, b):
            yield from old()

        def every(stats):
            yield from old()
    P.navcore_reachable = staticmethod(mark(first))
    if every is not None:
        P.navcore_frame_end = staticmethod(mark(every))
    return P()


CASES = {
    "plain": [("answer", {}), ("silent", {}), ("answer", {"tryfirst": True}),
              ("silent", {"trylast": True})],
    "all silent": [("silent", {}), ("silent", {"tryfirst": True})],
    "for_graphs": [("answer", {"trylast": True}), ("special", {}), ("silent", {})],
    "wrapped": [("answer", {}), ("wrapper", {}), ("silent", {"tryfirst": True}),
                ("wrapper", {"tryfirst": True})],
    "old wrapper": [("answer", {}), ("oldwrapper", {}), ("answer", {})],
    "raising": [("answer", {"trylast": True}), ("wrapper", {}), ("raise", {}),
                ("oldwrapper", {})],
}


def _world(parts):
    world = navcore.World(autoload=False, warm_up=False)
    for name in world.plugins.names():
        world.plugins.unregister(name)
    log = []
    for k, (kind, opts) in enumerate(parts):
        world.plugins.register(_plugin(kind, f"p{k}", log, **opts), name=f"p{k}")
    return world, log


def _outcome(call):
    try:
        return call()
    except ValueError as exc:
        return ("raised", str(exc))


@pytest.mark.nojit
@pytest.mark.parametrize("graph_class", [_Graph, _Special])
@pytest.mark.parametrize("case", sorted(CASES))
def test_caller_answers_as_pluggy_does(case, graph_class):
    """Both call shapes, against pluggy's own call of the same hook on the
    same plugins: same answer, same implementations run in the same order,
    wrappers seeing the same results and exceptions."""
    world, log = _world(CASES[case])
    graph = graph_class()
    hook = world.plugins.hook
    for typed in (None, graph_class):
        for name, pluggy_call, ours in (
                (FIRST, lambda: hook.navcore_reachable(world=world, graph=graph, a=1, b=2),
                 lambda: world.plugins.caller(FIRST, typed)(world, graph, 1, 2)),
                (ALL, lambda: hook.navcore_frame_end(world=world, frame=3, stats=None),
                 lambda: world.plugins.caller(ALL, typed)(world, 3, None))):
            log.clear()
            want = _outcome(pluggy_call)
            want_log = list(log)
            log.clear()
            got = _outcome(ours)
            assert (got, log) == (want, want_log), (name, typed)
            assert want_log


@pytest.mark.nojit
def test_caller_follows_registration_also_through_the_pluggy_manager():
    world, log = _world([("answer", {})])
    graph = _Graph()
    assert world.plugins.caller(FIRST)(world, graph, 1, 2) == "p0"
    late = _plugin("answer", "late", log, tryfirst=True)
    world.plugins.register(late, name="late")
    assert world.plugins.caller(FIRST)(world, graph, 1, 2) == "late"
    world.plugins.unregister("late")
    assert world.plugins.caller(FIRST)(world, graph, 1, 2) == "p0"
    world.plugins.manager.register(late, name="late")          # behind the registry
    assert world.plugins.caller(FIRST)(world, graph, 1, 2) == "late"
    world.plugins.manager.unregister(name="late")
    assert world.plugins.caller(FIRST)(world, graph, 1, 2) == "p0"
    world.plugins.manager.set_blocked("p0")
    assert world.plugins.caller(FIRST)(world, graph, 1, 2) is None


def _grid_world():
    world = navcore.World(autoload=False)
    world.add_graph("g", type="grid", rows=["....", "....", "...."])
    return world


def _frame_and_queries(world):
    world.update("g", cells=[(1, 1)], walkable=False)
    stats = world.tick()
    path = world.find_path("g", (0, 0), (3, 2))
    return (stats.updates_applied, path.cost, world.reachable("g", (0, 0), (3, 2)),
            world.distance_pairs("g", [0], [11]).tolist(), int(world.area("g", (0, 0))))


@pytest.mark.nojit
@exercises("navcore_run_frame")
def test_hook_call_monitoring_sees_every_hook_world_calls():
    world = _grid_world()
    want = _frame_and_queries(world)
    seen, after = [], []
    undo = world.plugins.manager.add_hookcall_monitoring(
        lambda name, impls, kwargs: seen.append(name),
        lambda outcome, name, impls, kwargs: after.append(name))
    got = _frame_and_queries(world)
    assert got[:3] == want[:3]
    for hook in ("navcore_make_update", "navcore_run_frame", "navcore_frame_start",
                 "navcore_apply_updates", "navcore_graph_updated", "navcore_frame_work",
                 "navcore_frame_end", "navcore_find_path", "navcore_reachable",
                 "navcore_distance_pairs", "navcore_areas"):
        assert hook in seen, hook
    assert sorted(seen) == sorted(after)
    undo()
    seen.clear()
    world.find_path("g", (0, 0), (3, 2))
    world.tick()
    assert seen == []


@pytest.mark.nojit
def test_tracing_sees_find_path():
    world = _grid_world()
    lines = []
    world.plugins.manager.trace.root.setwriter(lines.append)
    undo = world.plugins.manager.enable_tracing()
    try:
        world.find_path("g", (0, 0), (3, 2))
    finally:
        undo()
    assert any("navcore_find_path" in line for line in lines)
    lines.clear()
    world.find_path("g", (0, 0), (3, 2))
    assert lines == []


@pytest.mark.nojit
def test_a_query_no_plugin_answers_names_graph_type_and_algorithm():
    class Silencer:
        @navcore.hookimpl(wrapper=True)
        def navcore_find_path(self):
            yield
            return None

        @navcore.hookimpl(wrapper=True)
        def navcore_reachable(self):
            yield
            return None

    world = navcore.World(autoload=False)
    world.add_graph("ring", type="csr", src=[0, 1], dst=[1, 2])
    world.plugins.register(Silencer())
    with pytest.raises(navcore.QueryError,
                       match=r"no plugin answered find_path on csr graph 'ring' with "
                             r"algorithm 'dijkstra'"):
        world.find_path("ring", 0, 2, algorithm="dijkstra")
    with pytest.raises(navcore.QueryError,
                       match=r"no plugin answered reachable on csr graph 'ring'$"):
        world.reachable("ring", 0, 2)
    world.plugins.unregister("areas")
    with pytest.raises(navcore.QueryError, match=r"no plugin answered areas on csr graph "
                                                 r"'ring' \(is the areas plugin"):
        world.areas("ring")


@pytest.mark.nojit
@exercises("navcore_run_frame")
def test_the_frame_is_run_by_the_run_frame_hook():
    world = navcore.World(autoload=False)
    world.add_graph("g", type="csr", src=[0, 1], dst=[1, 2])
    runs = []

    class Frames:
        @navcore.hookimpl(tryfirst=True)
        def navcore_run_frame(self, frame, stats, deadline, budget_nodes, take_updates):
            runs.append((frame, deadline, budget_nodes, take_updates()))
            stats.extra["mine"] = True
            return stats

    world.plugins.register(Frames(), name="frames")
    world.update("g", nodes=[1], walkable=False)
    stats = world.tick(budget_nodes=7)
    assert stats.extra == {"mine": True} and stats.frame == 1
    [(frame, deadline, nodes, taken)] = runs
    assert frame == 1 and nodes == 7 and deadline > 0
    assert [(gid, g, len(batch)) for gid, g, batch in taken] == [("g", world.graph("g"), 1)]
    assert world.pending_updates() == 0
    world.plugins.unregister("frames")
    world.plugins.unregister("scheduler")
    with pytest.raises(navcore.FrameError, match="no plugin ran frame 2"):
        world.tick()
    assert np.asarray(world.graph("g").walkable).all()     # taken, not applied


def test_a_graph_with_its_own_node_of_resolves_both_ends_through_it():
    # nodes_of inlines the base class's integer case; a subclass that says
    # otherwise for an id in range (here: id 1 means node 2) keeps its say
    from navcore.graph import NavGraph

    class Renamed(NavGraph):
        def node_of(self, where):
            return 2 if type(where) is int and where == 1 else super().node_of(where)

    g = Renamed.from_edges([0, 1, 2], [1, 2, 3])
    assert g.nodes_of(1, 0) == (2, 0)
    assert g.nodes_of(0, 1) == (0, 2)
    assert NavGraph.from_edges([0, 1], [1, 2]).nodes_of(1, 0) == (1, 0)
