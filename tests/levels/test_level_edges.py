"""Edge cases of 3D levels, each once a wrong answer in silence or a raw
exception: a closed polygon on the upper floor is not traded for the
floor below, a level too tall for a heightfield is refused instead of
flattened, malformed volumes, timings and tile indices are NavErrors, a
far corner finds every tile, and a path never repeats a point."""
import numpy as np
import pytest

import navcore
from navcore import PathStatus
from navcore.errors import CapacityError, GraphError
from navcore_levels import (LevelConfig, build_level_graph, build_navmesh_arrays, build_tiled,
                            level_from_arrays)
from navcore_levels.graph import sample_graph

FLOOR = np.array([[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10]], float)
TRIS = np.array([[0, 2, 1], [0, 3, 2]])


def test_closed_polygon_above_is_not_traded_for_the_floor_below():
    """The sample level: a ground floor, a ramp and an upper floor over
    it. A goal standing on the upper floor's polygon is that polygon's,
    closed or not: closed, the answer is invalid_goal (as on a 2D
    navmesh), never a path to the ground 3.8 below."""
    w = navcore.World()
    g = sample_graph(w, "L")
    ground, upper = (2.0, 0.0, 2.0), (2.0, 4.0, 2.0)
    above = g.locate(upper)
    assert w.find_path("L", ground, upper).status is PathStatus.FOUND
    w.update("L", nodes=[above], walkable=False)
    w.tick(1 / 60)
    assert g.locate(upper) == above
    r = w.find_path("L", ground, upper)
    assert r.status is PathStatus.INVALID_GOAL
    assert w.find_path("L", upper, ground).status is PathStatus.INVALID_START


def test_paths_never_repeat_a_point():
    w = navcore.World()
    sample_graph(w, "L")
    r = w.find_path("L", (2.0, 0.0, 2.0), (2.0, 4.0, 2.0))
    assert r.found
    assert np.linalg.norm(np.diff(r.points, axis=0), axis=1).min() > 1e-9


def test_level_taller_than_a_heightfield_is_refused():
    two = np.concatenate([FLOOR, FLOOR + [0, 5000.0, 0]])
    tris = np.concatenate([TRIS, TRIS + 4])
    with pytest.raises(CapacityError, match=r"5000 units tall.*cell_height >= 0\.61"):
        build_navmesh_arrays(two, tris)
    w = navcore.World()
    with pytest.raises(CapacityError):
        w.add_graph("t", type="level", vertices=two, triangles=tris)
    assert not w.graphs


@pytest.mark.parametrize("volumes, match", [
    ([1], r"volumes\[0\] must be \(polygon_xz, ymin, ymax, area\)"),
    ([([[0, 0], [1, 0], [1, 1]], 0, 1)], r"volumes\[0\] must be"),
    ([([[0, 0], [1, 0]], 0, 1, 5)], "3 or more points"),
    ([([[0, 0], [1, 0], [1, 1]], 0, 1, "water")], r"volumes\[0\] area"),
    ([([[0, 0], [1, 0], [1, 1]], float("nan"), 1, 5)], r"volumes\[0\] ymin"),
    ("abc", "volumes must be a list"),
    (np.array(3), "volumes must be a list"),
])
def test_bad_volumes(volumes, match):
    with pytest.raises(GraphError, match=match):
        build_navmesh_arrays(FLOOR, TRIS, volumes=volumes)
    with pytest.raises(GraphError, match=match):
        build_tiled(FLOOR, TRIS, LevelConfig(tile_size=16), volumes=volumes)


def test_bad_timings_and_config():
    with pytest.raises(GraphError, match="timings must be a dict"):
        build_navmesh_arrays(FLOOR, TRIS, timings=[])
    with pytest.raises(GraphError, match="config must be a navcore_levels.LevelConfig"):
        build_navmesh_arrays(FLOOR, TRIS, {"cell_size": 0.3})


def test_tile_indices_and_far_corners():
    t = build_tiled(FLOOR, TRIS, LevelConfig(tile_size=16))
    assert t.tile_count == 9
    for bad in (-1, 9, "a", 1.0):
        with pytest.raises(GraphError, match=r"tile index in 0\.\.8"):
            t.tile_bounds(bad)
    every = list(range(9))
    assert t.tiles_touching((0, 0), (1e30, 1e30)).tolist() == every
    assert t.tiles_touching((-1e30, -1e30), (1e30, 1e30)).tolist() == every
    assert t.tiles_touching((1e30, 1e30), (2e30, 2e30)).tolist() == []


@pytest.mark.parametrize("settings, match", [
    ({"agent_radius": 1e300, "cell_size": 1e-300}, r"agent_radius=1e\+300 makes inf cells"),
    ({"agent_height": 1e12, "cell_height": 1e-3}, "agent_height=.* makes 1e\\+15 cells"),
    ({"region_min_size": 1e6}, "region_min_size=1000000.0 makes 1e\\+12 cells"),
])
def test_settings_that_come_to_more_cells_than_the_stages_count(settings, match):
    with pytest.raises(GraphError, match=match):
        LevelConfig(**settings)


def test_bad_area_id_tag_name_and_world():
    with pytest.raises(GraphError, match="is area id 64; area ids are 0..63"):
        build_navmesh_arrays(FLOOR, TRIS, triangle_areas=64)
    with pytest.raises(GraphError, match="tag_mask: name must be a tag name"):
        level_from_arrays(FLOOR, TRIS, tags=["a", "b"]).tag_mask(["a"])
    with pytest.raises(GraphError, match="world must be a navcore.World"):
        build_level_graph(None, "l", vertices=FLOOR, triangles=TRIS)
