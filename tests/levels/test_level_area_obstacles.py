"""Run-time area types on tiled levels: an obstacle with ``"area"`` gives
the floor it covers that area type (a flooded corridor) instead of cutting
it. Truths: a from-scratch ``build_tiled`` with the same obstacles, the
cells whose centre the box covers, and the same queries before the flood
and after it recedes."""
from __future__ import annotations

import numpy as np
import pytest

import navcore
from navcore import PathStatus
from navcore.errors import UpdateError
from navcore_levels import LevelConfig, obstacle
from navcore_levels.tiles import build_tiled

FLOOR = np.array([[0, 0, 0], [24, 0, 0], [24, 0, 12], [0, 0, 12]], dtype=float)
QUADS = np.array([[0, 2, 1], [0, 3, 2]])
# a strip across the floor, x 10..14, the whole depth: area 9 once it floods
FLOOD = {"box": [[10, -1, -1], [14, 1, 13]], "area": 9}
MUD = {"convex": [[2, 2], [6, 2], [6, 6], [2, 6]], "ymin": -1, "ymax": 1, "area": "mud"}
S, G = (2.0, 0.0, 6.0), (22.0, 0.0, 6.0)


def _world():
    w = navcore.World()
    g = w.add_graph("l", type="level", vertices=FLOOR, triangles=QUADS, tile_size=16,
                    areas=[MUD])                  # names "mud"
    return w, g


def _polygon_areas(g):
    """Each walkable polygon's area id by its centroid's x."""
    return {round(float(g.positions[p, 0]), 6): int(g.area_ids[p])
            for p in np.flatnonzero(g.walkable)}


def test_a_flood_gives_the_floor_an_area_type_and_recedes():
    w, g = _world()
    before = w.find_path("l", S, G)
    assert before.found and before.cost == pytest.approx(20.0)
    w.update("l", add_obstacle=FLOOD, obstacle_id="flood")
    w.tick()
    water = np.flatnonzero(np.asarray(g.area_ids) == 9)
    assert water.size                                     # the strip is water now
    xs = g.positions[water, 0]
    assert (xs > 9.5).all() and (xs < 14.5).all()
    # still walkable (not cut), but left out it splits the floor in two
    assert w.find_path("l", S, G).cost == pytest.approx(20.0)
    assert w.find_path("l", S, G, exclude_areas=[9]).status is PathStatus.UNREACHABLE
    w.update("l", remove_obstacle="flood")
    w.tick()
    assert not (np.asarray(g.area_ids) == 9).any()
    after = w.find_path("l", S, G, exclude_areas=[9])
    np.testing.assert_array_equal(after.points, before.points)


def test_the_mesh_equals_a_fresh_build_with_the_same_obstacles():
    w, g = _world()
    w.update("l", add_obstacle={**FLOOD, "area": "mud"}, obstacle_id="flood")
    w.update("l", add_obstacle={"box": [[4, -1, 8], [6, 1, 10]]}, obstacle_id="crate")
    w.tick()
    names = g.area_names
    fresh = build_tiled(FLOOR, QUADS, LevelConfig(tile_size=16),
                        volumes=[(np.array([[2, 2], [6, 2], [6, 6], [2, 6]], float), -1.0, 1.0,
                                  names["mud"])],
                        obstacles=[obstacle({**FLOOD, "area": names["mud"]}),
                                   obstacle({"box": [[4, -1, 8], [6, 1, 10]]})]).stitch().mesh
    v = fresh.world_vertices()
    want = sorted((frozenset(map(tuple, v[row[row >= 0]].round(9).tolist())), int(a))
                  for row, a in zip(fresh.polys, fresh.areas))
    pts = np.column_stack([g.vertices[:, 0], g.heights, g.vertices[:, 1]])
    got = sorted((frozenset(map(tuple, pts[g.polygon(p)].round(9).tolist())),
                  int(g.area_ids[p])) for p in np.flatnonzero(g.walkable))
    assert got == want


def test_a_run_time_area_wins_over_the_builds_volume():
    w, g = _world()
    mud = g.area_names["mud"]
    assert mud in _polygon_areas(g).values()
    w.update("l", add_obstacle={"box": [[1, -1, 1], [7, 1, 7]], "area": "walkable"},
             obstacle_id="dry")
    w.tick()
    assert mud not in _polygon_areas(g).values()         # the mud dried up


@pytest.mark.parametrize("area, fragment", [
    ("lava", "area must be an area id 0..63 or a name the level knows ('mud', "),
    (64, "area must be an area id 0..63"),
    ([1], "area must be an area id"),
])
def test_unknown_areas_are_refused_at_update(area, fragment):
    w, g = _world()
    with pytest.raises(UpdateError, match=fragment.replace("(", r"\(").replace(".", r"\.")):
        w.update("l", add_obstacle={**FLOOD, "area": area}, obstacle_id="x")
    assert w.pending_updates("l") == 0
