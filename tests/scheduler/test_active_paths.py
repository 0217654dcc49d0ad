"""The scheduler's flat index of active paths against a plain dict of
paths: same answers for ``near`` through random puts (one at a time and
many at once), drops and the compactions they trigger."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from navcore_scheduler.active import ActivePaths

N = 300


@pytest.mark.nojit
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_near_matches_a_dict_of_paths(seed):
    rng = np.random.default_rng(seed)
    idx, truth = ActivePaths(), {}
    for step in range(int(rng.integers(1, 400))):
        h = int(rng.integers(0, 40))
        if rng.random() < 0.2:
            idx.drop(h)
            truth.pop(h, None)
        elif rng.random() < 0.7:
            nodes = rng.integers(0, N, int(rng.integers(1, 120))).astype(np.int32)
            cost = float(rng.random())
            idx.put(h, nodes, cost, N)
            truth[h] = (nodes, cost)
        else:                     # a frame's results at once (distinct handles)
            hs = [int(x) for x in rng.choice(40, int(rng.integers(1, 12)), replace=False)]
            paths = [rng.integers(0, N, int(rng.integers(1, 120))).astype(np.int32)
                     for _ in hs]
            costs = rng.random(len(hs))
            idx.put_many(hs, paths, costs, N)
            truth.update((k, (p, float(c))) for k, p, c in zip(hs, paths, costs))
        if step % 7 == 0:
            dirty = np.unique(rng.integers(0, N, int(rng.integers(1, 12))))
            mask = np.zeros(N, bool)
            mask[dirty] = True
            handles, (nodes, starts), costs = idx.near(dirty, mask)
            want = sorted(k for k, (p, _) in truth.items() if mask[p].any())
            assert sorted(handles) == want
            for i, k in enumerate(handles):
                assert nodes[starts[i]:starts[i + 1]].tolist() == truth[k][0].tolist()
                assert costs[i] == truth[k][1]
    assert len(idx) == len(truth)
