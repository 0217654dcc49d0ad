"""navcore.parallel: parallel kernels from several Python threads hold one
process-wide lock unless numba's threading layer is thread-safe."""
import threading

import pytest

import navcore.parallel as par


@pytest.mark.nojit
@pytest.mark.parametrize("layer, held", [("workqueue", True), (None, True), ("omp", False),
                                         ("tbb", False)])
def test_the_lock_is_held_only_under_a_layer_that_is_not_thread_safe(monkeypatch, layer, held,
                                                                    section_held_elsewhere):
    monkeypatch.setattr(par, "_layer", [layer])
    monkeypatch.setattr(par.numba, "threading_layer", lambda: (_ for _ in ()).throw(ValueError))
    with par.parallel_section() as may_run:
        assert may_run
        assert section_held_elsewhere() == held
        with par.parallel_section() as again:         # re-entrant on this thread
            assert again
    assert not section_held_elsewhere()


@pytest.mark.nojit
def test_non_blocking_gives_false_while_another_thread_is_inside(monkeypatch):
    monkeypatch.setattr(par, "_layer", ["workqueue"])
    inside, leave = threading.Event(), threading.Event()

    def other():
        with par.parallel_section():
            inside.set()
            leave.wait(30)
    th = threading.Thread(target=other)
    th.start()
    try:
        assert inside.wait(30)
        with par.parallel_section(blocking=False) as may_run:
            assert may_run is False
    finally:
        leave.set()
        th.join()
    with par.parallel_section(blocking=False) as may_run:
        assert may_run is True
