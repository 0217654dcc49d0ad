"""Argument checks of the world and its scheduler raise ``NavError``
subclasses that name the argument, never a raw ``TypeError``,
``OverflowError`` or ``MemoryError``."""
import numpy as np
import pytest

import navcore

pytestmark = pytest.mark.nojit


@pytest.fixture
def w():
    world = navcore.World(workers=1)
    world.add_graph("g", type="grid", rows=["....", "...."])
    yield world
    world.close()


@pytest.mark.parametrize("bad", ["1", float("nan"), True, [1]])
def test_ready_timeout(w, bad):
    with pytest.raises(navcore.FrameError, match="timeout"):
        w.ready(timeout=bad)


def test_ready_with_a_huge_or_infinite_timeout_waits_as_none_does(w):
    assert w.ready(timeout=1e300) and w.ready(timeout=float("inf"))
    assert w.ready(timeout=10 ** 400)


@pytest.mark.parametrize("bad", [5, "job", object()])
def test_schedule_depends_on(w, bad):
    with pytest.raises(navcore.NavError, match="depends_on"):
        w.scheduler.schedule(lambda: 1, depends_on=bad)


def test_schedule_depends_on_one_handle(w):
    first = w.scheduler.schedule(lambda: 1)
    assert w.scheduler.schedule(lambda: 2, depends_on=first).complete() == 2


@pytest.mark.parametrize("bad", [10 ** 400, float("inf"), -1, "1", True],
                         ids=["10**400", "inf", "-1", "str", "bool"])
def test_min_chunk_ms(w, bad):
    with pytest.raises(navcore.NavError, match="min_chunk_ms"):
        w.scheduler.min_chunk_ms = bad


@pytest.mark.parametrize("kind", [["grid"], None, 3])
def test_adopt_graph_of_a_kind_that_is_not_a_name(w, kind):
    g = navcore.World().add_graph("h", type="grid", rows=["..."])
    g.kind = kind
    with pytest.raises(navcore.UnknownGraphTypeError):
        w.adopt_graph(g)
    assert "h" not in w.graphs


def test_a_matrix_larger_than_memory_is_a_capacity_error(w):
    big = np.zeros(10 ** 6, dtype=np.int64)
    with pytest.raises(navcore.CapacityError, match="1000000 x 1000000 distance matrix"):
        w.distance_matrix("g", big, big)
