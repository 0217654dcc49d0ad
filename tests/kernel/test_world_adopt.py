"""``World.adopt_graph``: a graph already built (in another world, or
unpickled there, as a Dask worker gets it) joins a world as ``add_graph`` would
have left it: the same hooks run, its kernels are loaded, queries answer
as in the world that built it; bad input is a NavError and changes
nothing."""
import numpy as np
import pytest

import navcore
from hooktags import exercises


class Observer:
    """Records the hooks a graph's arrival fires."""

    def __init__(self, fail_built=False):
        self.calls = []
        self.fail_built = fail_built

    @navcore.hookimpl
    def navcore_graph_built(self, graph_id, graph):
        self.calls.append(("built", graph_id, graph.num_nodes))
        if self.fail_built:
            raise navcore.GraphError("observer refuses this graph")

    @navcore.hookimpl
    def navcore_warm_up(self, graph):
        self.calls.append(("warm_up", graph.graph_id))


def _ring(world, gid="ring"):
    return world.add_graph(gid, type="csr", src=[0, 1, 2, 3], dst=[1, 2, 3, 0],
                           cost=[1.0, 2.0, 3.0, 4.0], directed=True)


@pytest.mark.nojit
@exercises("navcore_graph_built", "navcore_warm_up")
def test_adopted_graph_answers_as_in_the_world_that_built_it():
    home = navcore.World()
    copy = _ring(home)
    want = home.distance_matrix("ring", [0, 1, 2, 3], [0, 1, 2, 3])
    home.remove_graph("ring")                 # the graph moves, built once
    world = navcore.World()
    seen = Observer()
    world.plugins.register(seen)
    assert world.adopt_graph(copy) is copy
    assert world.graph("ring") is copy and copy.kind == "csr"
    # the hooks add_graph calls, in its order: observers first, then warm-up
    assert seen.calls == [("built", "ring", 4), ("warm_up", "ring")]
    assert np.array_equal(world.distance_matrix("ring", [0, 1, 2, 3], [0, 1, 2, 3]), want)
    assert world.find_path("ring", 3, 2).cost == 4.0 + 1.0 + 2.0
    assert world.area("ring", 0) == world.area("ring", 3)     # the areas view serves
    world.update("ring", edges=[(0, 1)], cost=10.0)            # and updates apply here
    world.tick()
    assert world.find_path("ring", 0, 1).cost == 10.0


@pytest.mark.nojit
@exercises("navcore_graph_built")
def test_warm_up_follows_the_world_setting():
    seen = Observer()
    world = navcore.World(warm_up=False)
    world.plugins.register(seen)
    home = navcore.World(warm_up=False)
    g = _ring(home)
    home.remove_graph("ring")
    world.adopt_graph(g)
    assert seen.calls == [("built", "ring", 4)]


@pytest.mark.nojit
def test_bad_graphs_are_nav_errors_and_change_nothing():
    world = navcore.World()
    mine = _ring(world)
    other = _ring(navcore.World())
    with pytest.raises(navcore.GraphError, match="already in use"):
        world.adopt_graph(other)
    assert world.graph("ring") is mine
    with pytest.raises(navcore.GraphError, match="NavGraph"):
        world.adopt_graph({"ring": other})
    loose = navcore.NavGraph.from_edges([0], [1], [1.0])      # built outside any world
    with pytest.raises(navcore.GraphError, match="no graph_id"):
        world.adopt_graph(loose)
    odd = _ring(navcore.World(), gid="odd")
    odd.kind = "hexagons"
    with pytest.raises(navcore.UnknownGraphTypeError, match="hexagons"):
        world.adopt_graph(odd)
    assert list(world.graphs) == ["ring"]


@pytest.mark.nojit
def test_an_observer_that_fails_leaves_the_world_as_it_was():
    world = navcore.World()
    world.plugins.register(Observer(fail_built=True))
    copy = _ring(navcore.World())
    with pytest.raises(navcore.GraphError, match="refuses"):
        world.adopt_graph(copy)
    assert world.graphs == {}
    with pytest.raises(navcore.UnknownGraphError):
        world.graph("ring")
