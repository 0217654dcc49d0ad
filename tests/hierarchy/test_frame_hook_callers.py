"""``PluginRegistry.all_results`` (the frame loop's hook callers) against
pluggy's own call of the same hook: same results in the same order, the
same wrapper behaviour on success and on an exception."""
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
    """(outcome, log) of pluggy's call and of all_results' call."""
    out = []
    for direct in (True, False):
        world, log = _world(parts)
        log.clear()
        try:
            if direct:
                got = world.plugins.hook.navcore_frame_end(world=world, frame=7, stats=None)
            else:
                got = world.plugins.all_results(
                    "navcore_frame_end", ("world", "frame", "stats"))(world, 7, None)
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
def test_all_results_calls_hooks_as_pluggy_does(case):
    pluggy_call, ours = _both(CASES[case])
    assert ours == pluggy_call
    assert pluggy_call[1]             # something ran


def test_all_results_follows_registration():
    world, log = _world([(_Plain, {})])
    call = world.plugins.all_results("navcore_frame_end", ("world", "frame", "stats"))
    assert call(world, 1, None) == [("p0", 1)]
    world.plugins.register(_First("late", log), name="late")
    call = world.plugins.all_results("navcore_frame_end", ("world", "frame", "stats"))
    assert call(world, 2, None) == [("late", 2), ("p0", 2)]
