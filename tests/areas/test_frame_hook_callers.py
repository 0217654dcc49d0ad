"""``PluginRegistry.caller`` of hooks that are not firstresult (the frame
loop's hook callers) against pluggy's own call of the same hook: same
results in the same order, the same wrapper behaviour on success and on
an exception."""
import navcore
import pytest


class _Plain:
    def __init__(self, tag, log, **opts):
        self.tag, self.log = tag, log

    @navcore.hookimpl
    def navcore_frame_end(self, world, frame, stats):
        self.log.append(self.tag)
        return (self.tag, frame)


class _First(_Plain):
    @navcore.hookimpl(tryfirst=True)
    def navcore_frame_end(self, world, frame, stats):
        self.log.append(self.tag)
        return (self.tag, frame)


class _Silent(_Plain):
    @navcore.hookimpl
    def navcore_frame_end(self, world, frame):
        self.log.append(self.tag)          # returns None: not in the results


class _Raising(_Plain):
    @navcore.hookimpl
    def navcore_frame_end(self, world, frame, stats):
        self.log.append(self.tag)
        raise ValueError(f"from {self.tag}")


class _Wrapper(_Plain):
    def __init__(self, tag, log, swallow=False):
        super().__init__(tag, log)
        self.swallow = swallow

    @navcore.hookimpl(wrapper=True)
    def navcore_frame_end(self, world, frame, stats):
        self.log.append(f"{self.tag} in")
        try:
            result = yield
        except ValueError as exc:
            self.log.append(f"{self.tag} saw {exc}")
            if not self.swallow:
                raise
            return ["swallowed"]
        self.log.append(f"{self.tag} out")
        return result + [(self.tag, "wrapped")]


def _world(parts):
    world = navcore.World(autoload=False)
    log = []
    for k, (cls, opts) in enumerate(parts):
        world.plugins.register(cls(f"p{k}", log, **opts), name=f"p{k}")
    return world, log


def _both(parts):
    """(outcome, log) of pluggy's call and of caller's call."""
    out = []
    for direct in (True, False):
        world, log = _world(parts)
        log.clear()
        try:
            if direct:
                got = world.plugins.hook.navcore_frame_end(world=world, frame=7, stats=None)
            else:
                got = world.plugins.caller("navcore_frame_end", None,
                                           ("world", "frame", "stats"))(world, 7, None)
        except ValueError as exc:
            got = ("raised", str(exc))
        out.append((got, list(log)))
    return out


CASES = {
    "plain": [(_Plain, {}), (_Silent, {}), (_First, {}), (_Plain, {})],
    "wrapped": [(_Plain, {}), (_Wrapper, {}), (_First, {}), (_Wrapper, {})],
    "raising": [(_Plain, {}), (_Wrapper, {}), (_Raising, {}), (_Plain, {})],
    "swallowed": [(_Wrapper, {"swallow": True}), (_Raising, {}), (_Wrapper, {})],
}


@pytest.mark.nojit
@pytest.mark.parametrize("case", sorted(CASES))
def test_caller_calls_hooks_as_pluggy_does(case):
    pluggy_call, ours = _both(CASES[case])
    assert ours == pluggy_call
    assert pluggy_call[1]             # something ran


def test_caller_follows_registration():
    world, log = _world([(_Plain, {})])
    call = world.plugins.caller("navcore_frame_end", None, ("world", "frame", "stats"))
    assert call(world, 1, None) == [("p0", 1)]
    world.plugins.register(_First("late", log), name="late")
    call = world.plugins.caller("navcore_frame_end", None, ("world", "frame", "stats"))
    assert call(world, 2, None) == [("late", 2), ("p0", 2)]


class _Special(navcore.NavGraph):
    pass


class _Other(navcore.NavGraph):
    pass


def _typed_world(log):
    class ForSpecial:
        @navcore.hookimpl
        @navcore.for_graphs(_Special)
        def navcore_graph_updated(self, graph_id, graph):
            log.append("special")
            return "special"

    class ForOther:
        @navcore.hookimpl(tryfirst=True)
        @navcore.for_graphs(_Other)
        def navcore_graph_updated(self, graph):
            log.append("other")
            return "other"

    class ForAll:
        @navcore.hookimpl
        def navcore_graph_updated(self, world, graph_id, graph, dirty):
            log.append("all")
            return "all"
    world = navcore.World(autoload=False)
    for k, p in enumerate((ForAll(), ForSpecial(), ForOther())):
        world.plugins.register(p, name=f"p{k}")
    return world


@pytest.mark.nojit
@pytest.mark.parametrize("cls", [_Special, _Other, navcore.NavGraph])
def test_callers_per_graph_class_run_what_pluggy_runs(cls):
    """``caller(name, graph_type, params)`` leaves out the implementations
    marked for other classes and gives pluggy's results in pluggy's order."""
    import numpy as np
    log = []
    world = _typed_world(log)
    base = world.add_graph("b", type="csr", src=[0], dst=[1])
    graph = cls(base.csr)
    args = ("world", "graph_id", "graph", "dirty")
    want = world.plugins.hook.navcore_graph_updated(world=world, graph_id="x", graph=graph,
                                                    dirty=np.empty(0, np.int32))
    want_log = list(log)
    log.clear()
    got = world.plugins.caller("navcore_graph_updated", cls, args)(
        world, "x", graph, np.empty(0, np.int32))
    assert got == want and log == want_log
    assert ("special" in log) == (cls is _Special) and ("other" in log) == (cls is _Other)


@pytest.mark.nojit
def test_area_changes_are_announced_after_the_other_observers():
    """The areas are current for every observer of the batch, and
    ``navcore_components_changed`` comes after all of them."""
    log = []

    class Observer:
        @navcore.hookimpl
        def navcore_graph_updated(self, world, graph_id):
            log.append(("updated", world.area(graph_id, (0, 0)) == world.area(graph_id, (8, 0))))

        @navcore.hookimpl
        def navcore_components_changed(self, graph_id, changed_areas):
            log.append(("changed", len(changed_areas)))

    world = navcore.World(autoload=False, plugins=[Observer()])
    world.add_graph("d", type="grid", rows=["....#....", ".........", "....#...."])
    world.update("d", cells=[(4, 1)], walkable=False)        # close the door
    world.tick()
    assert log == [("updated", False), ("changed", 2)]
    log.clear()
    world.update("d", cells=[(1, 2)], walkable=False)        # no area changes
    world.tick()
    assert log == [("updated", False)]
    world.update("d", cells=[(4, 1)], walkable=True)         # open the door
    world.tick()
    assert log == [("updated", False), ("updated", True), ("changed", 2)]
