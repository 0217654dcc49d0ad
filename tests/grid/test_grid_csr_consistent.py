"""The grid's CSR view is made on first use, maybe on a worker thread (a
hierarchy built as a job) while the ticking thread applies updates. An
update batch that began while the view was being made found no view to
patch, so the view is made again: it always matches the cells (this once
left a view with a blocked cell's edges open one way, and ``contract``
refused the graph as asymmetric)."""
import threading

import numpy as np
import pytest

import navcore
from navcore_grid import GridGraph
from navcore_grid import _kernels as K


def _truth(walk):
    csr = GridGraph(walk).csr
    return csr.offsets.copy(), csr.targets.copy(), np.array(csr.cost)


def test_a_csr_made_while_a_batch_is_applied_is_made_again(monkeypatch):
    rng = np.random.default_rng(5)
    walk = rng.random((30, 40)) >= 0.2
    world = navcore.World()
    g = world.add_graph("g", type="grid", array=walk)
    assert not g.csr_built
    real = K.grid_csr
    read, go = threading.Event(), threading.Event()
    calls = []

    def slow_grid_csr(*args):
        out = real(*args)         # the cells as they are now...
        calls.append(1)
        if len(calls) == 1:       # ...then a batch is applied before it is stored
            read.set()
            assert go.wait(30)
        return out

    monkeypatch.setattr(K, "grid_csr", slow_grid_csr)
    got = []
    builder = threading.Thread(target=lambda: got.append(g.csr))
    builder.start()
    assert read.wait(30)
    walk[10:14, 10:20] = False
    world.update("g", rect=(10, 10, 10, 4), walkable=False)
    world.tick()
    go.set()
    builder.join(30)
    assert not builder.is_alive() and len(calls) == 2
    offsets, targets, cost = _truth(walk)
    csr = got[0]
    assert csr is g.csr
    np.testing.assert_array_equal(csr.offsets, offsets)
    np.testing.assert_array_equal(csr.targets, targets)
    np.testing.assert_array_equal(np.asarray(csr.cost), cost)


@pytest.mark.nojit
def test_a_csr_made_by_the_thread_applying_a_batch_does_not_wait_for_itself():
    g = GridGraph(np.ones((4, 5), bool))
    g.begin_write()
    try:
        assert g.writing_here()
        csr = g.csr               # built from the batch's own state, at once
    finally:
        g.end_write()
    assert not g.writing_here() and csr is g.csr
    np.testing.assert_array_equal(np.asarray(csr.cost), _truth(np.ones((4, 5), bool))[2])
