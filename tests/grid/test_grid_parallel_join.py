"""The parallel batch's in-kernel join (``navcore_grid._parallel``): answers
in slot order, cell centres by multiplication, the copy on one thread or
all, and the thread count the kernel sets for itself, checked against the
one-thread batch and an independent centre formula."""
import numba
import numpy as np
import pytest

from navcore.types import PathBatch
from navcore_grid import GridGraph, _parallel, parallel, search


def _answers(graph, algorithm, s, t, threads):
    b = PathBatch("g", algorithm, s, t, threads)
    search.grid_find_paths(graph, b)
    assert b.todo().size == 0
    return [(r.status, r.cost, r.expanded, r.nodes.tobytes(), r.points.tobytes(), r.algorithm)
            for r in b.results()]


def _open_grid(h, w, seed):
    rng = np.random.default_rng(seed)
    walk = rng.random((h, w)) >= 0.2
    walk[h // 2, 1:] = False                 # a wall with one gap: detours
    return walk


@pytest.mark.nojit
@pytest.mark.parametrize("algorithm", ["jps", "astar"])
def test_small_and_large_joins_answer_as_one_thread(algorithm):
    # few cells (the serial copy) and many (the copy on all threads)
    g = GridGraph(_open_grid(40, 70, 1))
    free = np.flatnonzero(g.walkable).astype(np.int32)
    rng = np.random.default_rng(2)
    for n in (3, 60):
        s, t = rng.choice(free, n).astype(np.int32), rng.choice(free, n).astype(np.int32)
        two = _answers(g, algorithm, s, t, 2)
        assert two == _answers(g, algorithm, s, t, 1)
        cells = sum(len(nodes) // 4 for _, _, _, nodes, *_ in two)
        assert (cells < _parallel.PARALLEL_COPY_CELLS) == (n == 3)


@pytest.mark.nojit
def test_centres_by_multiplication_are_exact_for_wide_rows():
    # _write_paths against integer division, cell ids up to ~2**40
    for W in (1, 3, 7, 1000, 65_537, 2**20 + 3):
        v = np.array([0, W - 1, W, 2 * W - 1, 5 * W + W // 2, 2**31 - 1, 2**40 + 12345],
                     dtype=np.int64)
        base = np.array([0, v.size], dtype=np.int64)
        nodes = np.empty(v.size, dtype=np.int64)
        points = np.empty((v.size, 2))
        _parallel._write_paths(0, v.reshape(1, -1), base, W, nodes, points)
        assert nodes.tolist() == v.tolist()
        assert points[:, 0].tolist() == [float(x % W) + 0.5 for x in v.tolist()]
        assert points[:, 1].tolist() == [float(x // W) + 0.5 for x in v.tolist()]


def test_the_kernel_keeps_the_callers_thread_mask():
    # the kernel runs its slots on its own thread count and gives the
    # calling thread its numba mask back, whatever it was
    g = GridGraph(_open_grid(30, 50, 3))
    free = np.flatnonzero(g.walkable).astype(np.int32)
    rng = np.random.default_rng(4)
    s, t = rng.choice(free, 40).astype(np.int32), rng.choice(free, 40).astype(np.int32)
    want = _answers(g, "jps", s, t, 1)
    before = numba.get_num_threads()
    try:
        for mask in (1, parallel.usable_threads(2)):
            numba.set_num_threads(mask)
            assert _answers(g, "jps", s, t, 2) == want
            assert _answers(g, "astar", s, t, 2) == _answers(g, "astar", s, t, 1)
            assert numba.get_num_threads() == mask
    finally:
        numba.set_num_threads(before)
