"""The grid's scene layer: rectangles of cells as regions, the static map
under obstacles' cover, and changes queued as grid updates."""
import math

import numpy as np
import pytest

import navcore
from navcore_grid.scene_layer import GridSceneLayer

from hooktags import exercises


@pytest.fixture
def layer(world):
    world.add_graph("g", type="grid", rows=["......", "..#...", "......"])
    world.add_graph("c", type="csr", src=[0], dst=[1])
    hook = world.plugins.hook.navcore_scene_layer
    assert hook(world=world, graph_id="c", graph=world.graph("c")) is None
    lay = hook(world=world, graph_id="g", graph=world.graph("g"))
    assert isinstance(lay, GridSceneLayer) and isinstance(lay, navcore.SceneLayer)
    return lay


@pytest.mark.nojit
@exercises("navcore_scene_layer")
def test_regions_are_rectangles_that_fit(layer):
    assert layer.region([1, 0, 2, 3]) == (1, 0, 2, 3)
    assert layer.nodes_in((1, 0, 2, 2)).tolist() == [1, 2, 7, 8]
    assert layer.show((1, 0, 2, 3)) == "[1, 0, 2, 3]"
    assert (layer.bounds(), layer.describe(), layer.extent()) == \
        ((0, 0, 6, 3), "6x3", "6 x 3 cells")
    with pytest.raises(navcore.SceneError, match=r"^must be a rectangle \[x, y, width, "
                                                 r"height\] .* got \[1, 1, 0, 1\]$"):
        layer.region([1, 1, 0, 1])
    with pytest.raises(navcore.SceneError, match=r"^\[5, 0, 2, 1\] does not fit in graph "
                                                 r"'g' \(6 x 3 cells\)$"):
        layer.region([5, 0, 2, 1])
    for bad in ("1 2 3 4", [1, 2, 3], [0, 0, 1.5, 1], [True, 0, 1, 1], None):
        with pytest.raises(navcore.SceneError, match="must be a rectangle"):
            layer.region(bad)
    # an obstacle's box covers the cells under its corner, its size in cells
    assert layer.box_region((2.7, 0.2, 2.0, 1.0)) == (2, 0, 2, 1)
    assert layer.region_box((2, 0, 2, 1)) == (2.0, 0.0, 2.0, 1.0)


@pytest.mark.nojit
def test_a_door_under_an_obstacle_stays_as_the_events_left_it(layer, world):
    g = world.graph("g")
    layer.set_walkable((0, 0, 1, 3), False)           # a closed door
    layer.cover((0, 1, 2, 1), +1)                     # a cart drives onto it
    assert layer.flush() == 4
    world.tick()
    assert np.flatnonzero(~g.walkable).tolist() == [0, 6, 7, 8, 12]
    assert layer.obstacle_nodes().nonzero()[0].tolist() == [7]
    layer.restore((0, 0, 1, 3))                       # the door opens under the cart
    layer.cover((0, 1, 2, 1), -1)                     # and the cart leaves
    assert layer.flush() == 4
    world.tick()
    assert np.flatnonzero(~g.walkable).tolist() == [8]   # the drawn wall only
    assert layer.flush() == 0


@pytest.mark.nojit
def test_costs_leave_walls_walls_and_agents_step_out_of_new_walls(layer, world):
    g = world.graph("g")
    layer.set_cost((1, 1, 3, 1), 2.5)
    layer.flush()
    world.tick()
    assert g.cost[1].tolist() == [1, 2.5, 2.5, 2.5, 1, 1] and not g.walkable[8]
    layer.set_cost((0, 0, 1, 1), math.inf)
    layer.flush()
    world.tick()
    assert not g.walkable[0]
    # an agent in the new wall at (0, 0) starts from the nearest free cell centre
    assert layer.step_out((0.4, 0.1), 0) == (1.5, 0.5)
    assert layer.step_out((0.2, 0.3), 0) == (0.5, 1.5)
    at = np.array([[0.5, 0.5], [1.5, 0.5], [2.2, 1.5]])
    now = np.array([[1.5, 0.5], [1.2, 0.7], [1.5, 1.5]])
    assert layer.entering_walls(at, now).tolist() == [True, False, True]
