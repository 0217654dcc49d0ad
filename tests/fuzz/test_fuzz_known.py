"""Raw exceptions the fuzzing of issue 19 found in code this harness does not
change (navcore/world.py and the scheduler, being reworked alongside):
each is a minimal reproducer, xfail until its fix lands there, and is
listed in fuzzkit.KNOWN so the fuzz tests count it instead of failing."""
import pytest

import navcore

import fuzzkit as kit

pytestmark = pytest.mark.nojit


def _world():
    w = navcore.World()
    w.add_graph("g", type="grid", rows=["...", "..."])
    return w


# TODO(world.py): World.__init__ converts with int(workers) and
# float(frame_budget_ms) before any check
@pytest.mark.xfail(strict=False, raises=(TypeError, ValueError),
                   reason="TODO(world.py): World(workers=None) is a raw TypeError")
@pytest.mark.parametrize("kwargs", [dict(workers=None), dict(workers="two"),
                                    dict(frame_budget_ms="fast"), dict(plugins=5)])
def test_world_numbers_are_checked(kwargs):
    with pytest.raises(navcore.NavError, match="workers|frame_budget_ms|plugins"):
        navcore.World(**kwargs)


# TODO(world.py): NaN passes float(); a NaN budget would make every frame
# serve nothing, a string seed is kept as it is
@pytest.mark.xfail(strict=False, reason="TODO(world.py): World(frame_budget_ms=nan) accepted")
@pytest.mark.parametrize("kwargs", [dict(frame_budget_ms=float("nan")), dict(seed="x")])
def test_world_nan_budget_and_text_seed_are_refused(kwargs):
    with pytest.raises(navcore.NavError):
        navcore.World(**kwargs)


# TODO(world.py): add_graph runs `graph_id in self.graphs` before its hash()
# check, and `type not in types` on an unhashable type
@pytest.mark.xfail(strict=False, raises=TypeError,
                   reason="TODO(world.py): add_graph with an unhashable id or type")
@pytest.mark.parametrize("graph_id, type_", [([1], "grid"), ("x", []), ("x", {"a": 1})])
def test_add_graph_unhashable_id_or_type(graph_id, type_):
    w = _world()
    with pytest.raises((navcore.GraphError, navcore.UnknownGraphTypeError)):
        w.add_graph(graph_id, type=type_, rows=[".."])
    assert list(w.graphs) == ["g"]


# TODO(world.py): _frame_number converts with float(): an int past a float's
# range is an OverflowError
@pytest.mark.xfail(strict=False, raises=OverflowError,
                   reason="TODO(world.py): tick(10**400) is a raw OverflowError")
@pytest.mark.parametrize("args, kwargs", [((10 ** 400,), {}), ((0.0,), {"budget_ms": 10 ** 400})])
def test_tick_with_an_int_too_large_for_a_float(args, kwargs):
    w = _world()
    with pytest.raises(navcore.FrameError):
        w.tick(*args, **kwargs)
    assert w.frame == 0


# TODO(world.py): pending_updates / queued_updates look the id up directly
@pytest.mark.xfail(strict=False, raises=TypeError,
                   reason="TODO(world.py): pending_updates([1]) is a raw TypeError")
@pytest.mark.parametrize("method", ["pending_updates", "queued_updates"])
def test_pending_updates_of_an_unhashable_id(method):
    with pytest.raises(navcore.UnknownGraphError):
        getattr(_world(), method)([1])


# TODO(scheduler): request_path checks only the graph id and callbacks; a
# malformed start, goal, algorithm or repath is queued (the waiting count
# grows) and fails frames later, at the tick that serves it
@pytest.mark.xfail(strict=False, reason="TODO(scheduler/world.py): request_path does not "
                                        "validate start, goal, algorithm, repath at the call")
@pytest.mark.parametrize("args, kwargs", [
    (("g", "abc", 0), {}), (("g", 0, 1), {"algorithm": "nope"}),
    (("g", (float("inf"), 0), 1), {}), (("g", 0, 1), {"repath": "yes"})])
def test_request_path_validates_at_the_call(args, kwargs):
    w = _world()
    with pytest.raises(navcore.NavError):
        w.request_path(*args, **kwargs)
    assert w.scheduler.requests.waiting == 0


def test_every_known_entry_names_where_its_fix_belongs():
    for key, (text, matches) in kit.KNOWN.items():
        assert text and callable(matches), key
