"""``NavGraph.read_consistent``: a view built on another thread reads the
arrays of one version, never half an update batch (a sequence lock)."""
import threading

import numpy as np
import pytest

import navcore


def _grid_world():
    world = navcore.World()
    g = world.add_graph("g", type="grid", rows=["....", "....", "...."])
    return world, g


@pytest.mark.nojit
def test_a_read_waits_for_the_batch_being_applied():
    _, g = _grid_world()
    g.begin_write()                       # as World.tick does around a batch
    done = threading.Event()
    out = []
    reader = threading.Thread(target=lambda: (out.append(g.read_consistent(
        lambda: g.walkable.copy())), done.set()))
    reader.start()
    assert not done.wait(0.2)             # never returns while the batch is open
    g.walkable[5] = False                 # the batch's write
    g.end_write()
    reader.join(5)
    assert done.is_set() and not out[0][5]


@pytest.mark.nojit
def test_a_read_that_overlapped_a_batch_is_taken_again():
    _, g = _grid_world()
    calls = []

    def read():
        calls.append(g.walkable.copy())
        if len(calls) == 1:               # a whole batch runs during the first read
            g.begin_write()
            g.walkable[0] = False
            g.end_write()
        return calls[-1]
    got = g.read_consistent(read)
    assert len(calls) == 2 and not got[0]


class _FailingApply:
    @navcore.hookimpl(tryfirst=True)
    def navcore_apply_updates(self, world, graph, batch):
        assert graph._writes % 2 == 1     # the batch is marked while it is applied
        raise RuntimeError("backend failed mid-batch")


@pytest.mark.nojit
def test_world_update_marks_its_batch_and_closes_it_when_it_fails():
    world, g = _grid_world()
    world.update("g", rect=(0, 0, 2, 1), walkable=False)
    world.tick()
    assert g._writes == 2 and not g.walkable[:2].any()
    world.plugins.register(_FailingApply())
    world.update("g", rect=(2, 0, 1, 1), walkable=False)
    with pytest.raises(navcore.UpdateError, match="RuntimeError: backend failed mid-batch"):
        world.tick()
    assert g._writes == 4                 # a failed batch does not leave readers spinning
    assert g.read_consistent(lambda: 1) == 1


@pytest.mark.nojit
def test_a_slow_reader_finishes_while_every_tick_applies_a_batch():
    """A game that updates every frame: each try of a slow read overlaps a
    batch. After ``READ_TRIES`` spoiled tries (or ``READ_PATIENCE_S`` of
    batches back to back) the reader holds the batches off for one read,
    so it finishes and reads one version."""
    import time

    from navcore.graph import READ_TRIES
    world, g = _grid_world()
    tries, out = [], []

    def slow_read():
        tries.append(1)
        before, seen = g.walkable.copy(), g._writes
        waited = time.monotonic() + 0.5       # until a batch runs meanwhile, at most 0.5 s
        while g._writes == seen and time.monotonic() < waited:
            time.sleep(0.001)
        return before, g.walkable.copy()

    reader = threading.Thread(target=lambda: out.append(g.read_consistent(slow_read)))
    reader.start()
    ticks, flip = 0, False
    deadline = time.monotonic() + 20
    while reader.is_alive() and time.monotonic() < deadline:
        flip = not flip
        world.update("g", cells=[(1, 1)], walkable=flip)
        world.tick()
        ticks += 1
    reader.join(1)
    assert not reader.is_alive(), f"the reader starved ({len(tries)} tries, {ticks} ticks)"
    # each spoiled read is a try, and batches back to back end the waiting
    # early: at most READ_TRIES spoiled reads, then one with batches held off
    assert 2 <= len(tries) <= READ_TRIES + 1 and ticks > 0
    before, after = out[0]
    np.testing.assert_array_equal(before, after)     # no batch ran during the read
