"""A round's batch answers stay arrays until a handle's result is read
(``PathBatch.one_answer``/``paths``, ``ActivePaths.put_flat``)."""
import numpy as np
import pytest

import navcore
from navcore.types import PathBatch, PathStatus
from navcore_scheduler.active import ActivePaths, batch_paths


def _batch(two_parts):
    b = PathBatch("g", "auto", np.array([0, 1, 2, 3], np.int32), np.array([5, 6, 7, 8], np.int32))
    if two_parts:       # answers in two calls and one status: paths() joins them
        b.answer([3], cost=[4.0], expanded=[9], nodes=np.array([3, 4], np.int32),
                 offsets=[0, 2], points=np.zeros((2, 2)), algorithm="astar")
        b.answer_status([1], PathStatus.UNREACHABLE, "astar", expanded=2)
        b.answer([0, 2], cost=[1.0, 2.0], expanded=[5, 6],
                 nodes=np.array([0, 9, 2, 8, 7], np.int32), offsets=[0, 2, 5],
                 points=np.zeros((5, 2)), algorithm="astar")
    else:               # one answer: entry 1 unreachable (an empty path)
        b.answer([0, 1, 2, 3], cost=[1.0, np.inf, 2.0, 4.0], expanded=[5, 2, 6, 9],
                 nodes=np.array([0, 9, 2, 8, 7, 3, 4], np.int32), offsets=[0, 2, 2, 5, 7],
                 points=np.zeros((7, 2)), algorithm="astar")
    return b


@pytest.mark.nojit
@pytest.mark.parametrize("two_parts", [False, True])
def test_batch_paths_are_the_results_paths_one_after_another(two_parts):
    b = _batch(two_parts)
    assert (b.one_answer() is None) == two_parts
    entries = [3, 0, 2]
    flat, lens, costs = batch_paths(b, entries)
    want = [b.result(i) for i in entries]           # the PathResults, made one by one
    assert flat.dtype == np.int32
    assert flat.tolist() == [n for r in want for n in r.nodes.tolist()]
    assert lens.tolist() == [len(r.nodes) for r in want]
    assert costs.tolist() == [r.cost for r in want]
    assert b.result(1).status is PathStatus.UNREACHABLE and b.result(1).expanded == 2
    assert [r.expanded for r in want] == [9, 5, 6]


@pytest.mark.nojit
def test_put_flat_keeps_the_same_index_as_put_many():
    paths = [np.array([1, 2, 3], np.int32), np.array([7, 8], np.int32),
             np.array([4, 2], np.int32)]
    a, b = ActivePaths(), ActivePaths()
    a.put_many(["x", "y", "z"], paths, [1.0, 2.0, 3.0], 10)
    b.put_flat(["x", "y", "z"], np.concatenate(paths), [3, 2, 2], [1.0, 2.0, 3.0], 10)
    a.put_many(["y"], [np.array([2, 5], np.int32)], [5.0], 10)       # a re-plan
    b.put_flat(["y"], np.array([2, 5], np.int32), [2], [5.0], 10)
    mask = np.zeros(10, bool)
    mask[[2]] = True
    ha, (na, sa), ca = a.near([2], mask)
    hb, (nb, sb), cb = b.near([2], mask)
    assert ha == hb == ["x", "z", "y"]
    assert na.tolist() == nb.tolist() and sa.tolist() == sb.tolist()
    assert ca.tolist() == cb.tolist() == [1.0, 3.0, 5.0]


def test_a_served_handle_reads_like_find_path_and_keeps_its_result():
    world = navcore.World()
    world.add_graph("g", type="grid", rows=["....#....", ".##.#.##.", "........."])
    ends = [((0, 0), (8, 0)), ((0, 0), (4, 0)), ((2, 2), (6, 1))]
    handles = [world.request_path("g", s, t, repath=True) for s, t in ends]
    world.tick()
    for h, (s, t) in zip(handles, ends):
        assert h.done and not h.cancelled
        want = world.find_path("g", s, t)
        r = h.result()
        assert r is h.result()                  # made once, then kept
        assert (r.status, r.cost, r.expanded, r.nodes.tolist()) == \
            (want.status, want.cost, want.expanded, want.nodes.tolist())
        assert want.status.value in repr(h)
    # a wall across the first path re-plans it; the new result replaces the old
    old = handles[0].result()
    world.update("g", cells=[(4, 2)], walkable=False)
    world.tick()
    assert handles[0].repaths == 1 and handles[0].result() is not old
    assert handles[0].result().status is PathStatus.UNREACHABLE
    assert handles[0].result().status == world.find_path("g", (0, 0), (8, 0)).status
