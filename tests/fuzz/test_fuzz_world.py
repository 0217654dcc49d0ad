"""Raw exceptions the fuzzing found in World and the scheduler
(World settings, add_graph ids and types, tick numbers, pending updates,
request_path), each a minimal reproducer that now raises a NavError and
leaves the world unchanged."""
import pytest

import navcore


pytestmark = pytest.mark.nojit


def _world():
    w = navcore.World()
    w.add_graph("g", type="grid", rows=["...", "..."])
    return w


@pytest.mark.parametrize("kwargs", [dict(workers=None), dict(workers="two"),
                                    dict(frame_budget_ms="fast"), dict(plugins=5)])
def test_world_numbers_are_checked(kwargs):
    with pytest.raises(navcore.NavError, match="workers|frame_budget_ms|plugins"):
        navcore.World(**kwargs)


@pytest.mark.parametrize("kwargs", [dict(frame_budget_ms=float("nan")), dict(seed="x")])
def test_world_nan_budget_and_text_seed_are_refused(kwargs):
    with pytest.raises(navcore.NavError):
        navcore.World(**kwargs)


@pytest.mark.parametrize("graph_id, type_", [([1], "grid"), ("x", []), ("x", {"a": 1})])
def test_add_graph_unhashable_id_or_type(graph_id, type_):
    w = _world()
    with pytest.raises((navcore.GraphError, navcore.UnknownGraphTypeError)):
        w.add_graph(graph_id, type=type_, rows=[".."])
    assert list(w.graphs) == ["g"]


@pytest.mark.parametrize("args, kwargs", [((10 ** 400,), {}), ((0.0,), {"budget_ms": 10 ** 400})])
def test_tick_with_an_int_too_large_for_a_float(args, kwargs):
    w = _world()
    with pytest.raises(navcore.FrameError):
        w.tick(*args, **kwargs)
    assert w.frame == 0


@pytest.mark.parametrize("method", ["pending_updates", "queued_updates"])
def test_pending_updates_of_an_unhashable_id(method):
    with pytest.raises(navcore.UnknownGraphError):
        getattr(_world(), method)([1])


@pytest.mark.parametrize("args, kwargs", [
    (("g", "abc", 0), {}), (("g", 0, 1), {"algorithm": "nope"}),
    (("g", (float("inf"), 0), 1), {}), (("g", 0, 1), {"repath": "yes"})])
def test_request_path_validates_at_the_call(args, kwargs):
    w = _world()
    with pytest.raises(navcore.NavError):
        w.request_path(*args, **kwargs)
    assert w.scheduler.requests.waiting == 0
