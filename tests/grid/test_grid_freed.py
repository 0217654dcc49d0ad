"""A grid that was searched is freed by reference counting alone once the
world lets it go: nothing it derived keeps it (or its arrays) alive until
Python's cycle collector happens to run."""
import gc
import weakref

import numpy as np

import navcore


def test_a_searched_grid_goes_with_its_last_reference():
    gc.disable()
    try:
        world = navcore.World()
        walk = np.ones((12, 16), dtype=bool)
        walk[5, 2:14] = False
        graph = world.add_graph("g", type="grid", array=walk)
        for algorithm in ("astar", "dijkstra", "jps"):
            assert world.find_path("g", 0, walk.size - 1, algorithm=algorithm).found
        gone = weakref.ref(graph)
        world.remove_graph("g")
        del graph
        assert gone() is None
    finally:
        gc.enable()
