"""How a round's searches are split between threads (``rounds.chunk_plan``):
every search in exactly one chunk, few chunks, and chunks of about equal
expected work, so two threads end together."""
import numpy as np
import pytest

from navcore_scheduler.rounds import chunk_plan


def _partition(chunks, n):
    got = np.concatenate(chunks) if chunks else np.empty(0, int)
    assert sorted(got.tolist()) == list(range(n))          # each search once
    for c in chunks:
        assert c.tolist() == sorted(c.tolist())             # in queue order


@pytest.mark.nojit
@pytest.mark.parametrize("n", [0, 1, 2, 7, 100, 1001])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_every_search_is_in_exactly_one_chunk(n, threads):
    for per in (None, 1e-6, 1e-4, 1e-2):
        chunks = chunk_plan(n, threads, per, 0.0005)
        _partition(chunks, n)
        if threads == 1 or n < 2 or (per is not None and n * per < 0.001):
            assert len(chunks) == 1                         # not worth a hand-over
        else:
            assert min(threads, n) <= len(chunks) <= 4 * threads


@pytest.mark.nojit
def test_no_least_work_makes_each_search_a_chunk():
    chunks = chunk_plan(5, 2, 1e-3, 0.0)
    assert [c.tolist() for c in chunks] == [[0], [1], [2], [3], [4]]


@pytest.mark.nojit
@pytest.mark.parametrize("seed", range(5))
def test_chunks_hold_about_equal_work(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    weight = rng.pareto(1.5, n) + 0.1                        # heavy-tailed, like searches
    weight[: n // 3] *= 10                                   # one crowd far from its goal
    chunks = chunk_plan(n, 2, 1e-4, 0.0005, weight)
    _partition(chunks, n)
    work = [weight[c].sum() for c in chunks]
    # dealt heaviest first in snake order: no chunk holds more than one
    # search's worth beyond another
    assert max(work) - min(work) <= weight.max() + 1e-9
    # a split into runs of the queue would put the far crowd in one chunk
    runs = np.array_split(np.arange(n), len(chunks))
    assert max(work) - min(work) <= max(weight[r].sum() for r in runs) - \
        min(weight[r].sum() for r in runs) + 1e-9


@pytest.mark.nojit
def test_weights_without_geometry_fall_back_to_dealing_in_queue_order():
    chunks = chunk_plan(6, 2, None, 0.0005, np.array([1, np.nan, 2, 3, 4, 5]))
    assert [c.tolist() for c in chunks] == [[0, 3, 4], [1, 2, 5]]
