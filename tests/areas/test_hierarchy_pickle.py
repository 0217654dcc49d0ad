"""A graph pickled with its areas (a Dask snapshot) and adopted by another
world keeps its areas following updates: the hierarchy's rows are views
of its blocks again after loading, not copies of their own."""
import pickle

import numpy as np
import pytest

import navcore

pytest.importorskip("dask.distributed")
from navcore_dask import snapshot  # noqa: E402


@pytest.mark.parametrize("rows", [None, ["..#..", "..#..", "....."]])
def test_an_adopted_graphs_areas_follow_updates(rows):
    rng = np.random.default_rng(7)
    free = rng.random((24, 30)) >= 0.3 if rows is None else None
    params = {"array": free} if rows is None else {"rows": rows}
    here, there = navcore.World(), navcore.World()
    g = here.add_graph("g", type="grid", **params)
    there.adopt_graph(pickle.loads(snapshot.dumps(g)))
    h, w = g.height, g.width
    for step in range(40):
        cells = [(int(rng.integers(w)), int(rng.integers(h))) for _ in range(6)]
        walkable = bool(step % 2)
        for world in (here, there):
            world.update("g", cells=cells, walkable=walkable)
            world.tick()
        a, b = (int(rng.integers(w)), int(rng.integers(h))), (int(rng.integers(w)),
                                                                int(rng.integers(h)))
        for world in (here, there):
            found = world.find_path("g", a, b).status is navcore.PathStatus.FOUND
            assert world.reachable("g", a, b) == found, (step, a, b)
        assert np.array_equal(here.graph("g").walkable, there.graph("g").walkable)
