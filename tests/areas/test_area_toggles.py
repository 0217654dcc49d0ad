"""Areas through thousands of seeded block toggles against a full labelling
at every step: the same partition as ``scipy.ndimage.label`` (4-neighbour
structure for grids that forbid corner cutting, 8-neighbour for those that
cut corners), the changed ids reported exactly, and ids stable."""
import numpy as np
import pytest
from scipy import ndimage

import navcore
from navcore_areas import hierarchy_of

from reference import same_partition

FOUR = ndimage.generate_binary_structure(2, 1)
EIGHT = np.ones((3, 3), dtype=bool)
RULES = {"no-corner-cutting": ({}, FOUR), "corner-cutting": ({"corner_cutting": True}, EIGHT),
         "4-connected": ({"connectivity": 4}, FOUR)}


class ChangeLog:
    def __init__(self):
        self.calls = []
        self.arrays = []            # (the array as handed over, its values then)

    @navcore.hookimpl
    def navcore_components_changed(self, changed_areas):
        ids = changed_areas.tolist()
        # the hookspec's promise: sorted, distinct, int32 (the kernel sorts them)
        assert changed_areas.dtype == np.int32 and ids == sorted(set(ids)), ids
        self.calls.append(set(ids))
        self.arrays.append((changed_areas, ids))

    def check_kept(self):
        """Each array handed over still holds its ids (a copy, not a view
        of a buffer the next update writes)."""
        for arr, ids in self.arrays:
            assert arr.tolist() == ids


def expected_changes(before, after):
    """Area ids that split, merged, appeared or vanished between two
    labellings (-1: blocked), judged on the nodes walkable in both; and a
    check that ids are stable: an area that neither split nor merged keeps
    its id, and a merge of unsplit parts takes one of their ids."""
    both = (before >= 0) & (after >= 0)
    a, b = before[both].astype(np.int64), after[both].astype(np.int64)
    span = int(b.max()) + 1 if b.size else 1
    key = np.unique(a * span + b)      # distinct (old, new) pairs, one int64 each
    old, new = key // span, key % span
    _, io, co = np.unique(old, return_inverse=True, return_counts=True)
    un, inn, cn = np.unique(new, return_inverse=True, return_counts=True)
    split = co[io] > 1                 # per (old, new) pair: old split
    merged = cn[inn] > 1               # new is a merge
    moved = split | merged
    renamed = ~moved & (old != new)
    assert not renamed.any(), f"areas {old[renamed]} renamed {new[renamed]}"
    has_split_part = np.bincount(inn, weights=split, minlength=un.size) > 0
    keeps_a_part = np.bincount(inn, weights=old == new, minlength=un.size) > 0
    bad = (cn > 1) & ~has_split_part & ~keeps_a_part
    assert not bad.any(), f"merged areas {un[bad]} took none of their parts' ids"
    changed = set(old[moved].tolist()) | set(new[moved].tolist())
    changed |= set(np.setdiff1d(before[before >= 0], old).tolist())      # vanished
    changed |= set(np.setdiff1d(after[after >= 0], new).tolist())        # appeared
    return changed


def run_toggles(side, density, rule, steps, seed, max_block=8):
    params, structure = RULES[rule]
    rng = np.random.default_rng(seed)
    H, W = side
    walk = rng.random((H, W)) >= density
    log = ChangeLog()
    world = navcore.World(autoload=False, plugins=[log])
    g = world.add_graph("g", type="grid", array=walk, **params)
    assert hierarchy_of(g).lattice is not None
    before = world.areas("g")
    assert same_partition(before, ndimage.label(walk, structure=structure)[0], walk)
    for step in range(steps):
        w, h = (int(v) for v in rng.integers(1, max_block + 1, size=2))
        x, y = int(rng.integers(W - min(w, W) + 1)), int(rng.integers(H - min(h, H) + 1))
        free = bool(rng.random() < 0.5)
        world.update("g", rect=(x, y, min(w, W - x), min(h, H - y)), walkable=free)
        walk[y:y + h, x:x + w] = free
        n_calls = len(log.calls)
        world.tick()
        after = world.areas("g")
        labels = ndimage.label(walk, structure=structure)[0]
        assert same_partition(after, labels, walk), (rule, step)
        got = log.calls[-1] if len(log.calls) > n_calls else set()
        assert got == expected_changes(before, after), (rule, step)
        before = after
    log.check_kept()
    return hierarchy_of(g)


@pytest.mark.parametrize("rule", sorted(RULES))
@pytest.mark.parametrize("side,density", [((48, 64), 0.3), ((97, 83), 0.42), ((64, 64), 0.2)])
def test_toggles_match_ndimage_label_at_every_step(side, density, rule):
    seed = side[0] * 1000 + side[1] + sorted(RULES).index(rule)
    h = run_toggles(side, density, rule, steps=400, seed=seed)
    assert h.updates > 300 and h.builds == 1
    assert h.local_updates < h.updates        # some updates needed a split search


@pytest.mark.nojit
@pytest.mark.parametrize("rule", sorted(RULES))
def test_toggles_match_ndimage_label_small(rule):
    run_toggles((20, 37), 0.35, rule, steps=60, seed=5, max_block=5)


@pytest.mark.slow
@pytest.mark.parametrize("rule", sorted(RULES))
@pytest.mark.parametrize("density", [0.25, 0.35, 0.45])
def test_toggles_match_ndimage_label_long(density, rule):
    run_toggles((300, 260), density, rule, steps=2000, seed=int(density * 100), max_block=24)


def grid_edges(H, W):
    ids = np.arange(H * W).reshape(H, W)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return src, dst


@pytest.mark.parametrize("directed", [False, True])
def test_generic_graph_toggles_match_ndimage_label(directed):
    # the same toggles on a graph that is no lattice: BFS grouping over its
    # CSR view (one-way edges both ways round: weak components)
    H, W = 40, 45
    rng = np.random.default_rng(11)
    src, dst = grid_edges(H, W)
    if directed:
        flip = rng.random(src.size) < 0.5
        src, dst = np.where(flip, dst, src), np.where(flip, src, dst)
    walk = rng.random((H, W)) >= 0.35
    log = ChangeLog()
    world = navcore.World(autoload=False, plugins=[log])
    g = world.add_graph("g", type="csr", src=src, dst=dst, num_nodes=H * W,
                        directed=directed)
    world.update("g", nodes=np.flatnonzero(~walk.ravel()).tolist(), walkable=False)
    world.tick()
    assert hierarchy_of(g).lattice is None
    before = world.areas("g")
    for step in range(300):
        w, h = (int(v) for v in rng.integers(1, 7, size=2))
        x, y = int(rng.integers(W - w + 1)), int(rng.integers(H - h + 1))
        free = bool(rng.random() < 0.5)
        cells = (np.arange(y, y + h)[:, None] * W + np.arange(x, x + w)).ravel()
        world.update("g", nodes=cells.tolist(), walkable=free)
        walk[y:y + h, x:x + w] = free
        n_calls = len(log.calls)
        world.tick()
        after = world.areas("g")
        assert same_partition(after, ndimage.label(walk, structure=FOUR)[0], walk), step
        got = log.calls[-1] if len(log.calls) > n_calls else set()
        assert got == expected_changes(before, after), step
        before = after
