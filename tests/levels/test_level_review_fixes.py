"""Defects an outside review found in level graphs, each checked against
an independent truth: a search or request spanning a tile rebuild places
its ends again (the polygons are numbered afresh), and ``nearest_point``
on a level never answers a blocked polygon."""
from __future__ import annotations

import numpy as np
import pytest

import navcore

V = [[0, 0, 0], [24, 0, 0], [24, 0, 12], [0, 0, 12]]
T = [[0, 2, 1], [0, 3, 2]]
BARREL = {"cylinder": {"center": (4, -1, 4), "radius": 1.5, "height": 3}}


@pytest.mark.parametrize("algorithm", ["polyanya", "funnel", "polygon_astar"])
def test_a_search_spanning_a_tile_rebuild_places_its_ends_again(algorithm):
    w = navcore.World()
    w.add_graph("yard", type="level", vertices=V, triangles=T, tile_size=16)
    a, b = (22, 0, 2), (22, 0, 10)
    s = w.begin_search("yard", a, b, algorithm)
    w.update("yard", add_obstacle=BARREL, obstacle_id="barrel")
    w.tick()                                   # the ids of later tiles shift
    while not s.step(1000):
        pass
    r = s.result()
    truth = w.find_path("yard", a, b, algorithm)
    assert r.found and w.is_current(r)
    np.testing.assert_allclose(r.points, truth.points)
    assert r.cost == pytest.approx(truth.cost)
    # near (22, 2) and (22, 10) (the mesh keeps 0.9 from the yard's edge),
    # not on the polygons those ids named before the rebuild
    ends = r.points[[0, -1]][:, [0, 2]]
    assert np.abs(ends - [[22, 2], [22, 10]]).max() < 1.0
    s.close()


def test_a_request_stepped_across_a_rebuild_answers_on_the_new_mesh():
    w = navcore.World(deterministic=True, frame_budget_nodes=1)
    w.add_graph("yard", type="level", vertices=V, triangles=T, tile_size=16)
    a, b = (22, 0, 2), (2, 0, 10)
    h = w.request_path("yard", a, b)
    w.tick()
    assert not h.done
    w.update("yard", add_obstacle=BARREL, obstacle_id="barrel")
    for _ in range(10000):
        w.tick()
        if h.done:
            break
    r = h.result()
    truth = w.find_path("yard", a, b)
    assert r.found and r.cost == pytest.approx(truth.cost)
    np.testing.assert_allclose(r.points, truth.points)


def test_nearest_point_on_a_level_answers_walkable_polygons_only():
    w = navcore.World()
    floor = [[0, 0, 0], [24, 0, 0], [24, 0, 10], [0, 0, 10]]
    storey = [[0, 3, 0], [10, 3, 0], [10, 3, 10], [0, 3, 10]]       # within the extents' 4 up
    g = w.add_graph("t", type="level", vertices=floor + storey,
                    triangles=[[0, 2, 1], [0, 3, 2], [4, 6, 5], [4, 7, 6]])
    node, point = w.nearest_point("t", (5, 0, 5))
    assert node >= 0 and abs(point[1] - 0.2) < 1e-9            # the ground under it
    w.update("t", nodes=[node], walkable=False)
    w.tick()
    node2, point2 = w.nearest_point("t", (5, 0, 5))
    assert node2 != node and g.walkable[node2]                 # another walkable polygon
    w.update("t", nodes=list(range(g.num_nodes)), walkable=False)
    w.tick()
    assert w.nearest_point("t", (5, 0, 5)) == (-1, None)
    # query ends still stand on blocked polygons: the path is refused, not moved
    assert w.find_path("t", (5, 0, 5), (20, 0, 5)).status.value == "invalid_start"


def test_a_background_rebuild_that_leaves_nothing_drops_its_obstacles():
    from navcore_levels.updates import rebuilds_of
    w = navcore.World(workers=2, frame_budget_ms=0.001)
    g = w.add_graph("yard", type="level", vertices=V, triangles=T, tile_size=16)
    w.update("yard", add_obstacle={"box": [[10, -1, 3], [13, 2, 12.5]]}, obstacle_id="crate")
    w.tick()                                       # inline: measures the time per tile
    before = g.poly_verts.copy()
    w.update("yard", add_obstacle={"box": [[-5, -1, -5], [30, 3, 20]]}, obstacle_id="all")
    w.tick()                                       # over the budget: a job rebuilds
    assert rebuilds_of(g).wait(10)
    with pytest.raises(navcore.UpdateError, match=r"no walkable polygon; obstacles 'all' "
                                                  r"were dropped"):
        w.tick()
    assert list(g.level_obstacles) == ["crate"]
    np.testing.assert_array_equal(g.poly_verts, before)      # the mesh it had
    w.update("yard", add_obstacle={"box": [[1, -1, 1], [2, 2, 2]]}, obstacle_id="small")
    for _ in range(3):
        w.tick()
        rebuilds_of(g).wait(10)
    w.tick()
    assert sorted(g.level_obstacles) == ["crate", "small"]
    fresh = navcore.World()
    fresh.add_graph("yard", type="level", vertices=V, triangles=T, tile_size=16)
    for oid, spec in (("crate", {"box": [[10, -1, 3], [13, 2, 12.5]]}),
                      ("small", {"box": [[1, -1, 1], [2, 2, 2]]})):
        fresh.update("yard", add_obstacle=spec, obstacle_id=oid)
    fresh.tick()
    a, b = (2, 0, 10), (22, 0, 2)
    assert w.find_path("yard", a, b).cost == pytest.approx(fresh.find_path("yard", a, b).cost)
    w.close()


def test_an_area_cost_so_dear_its_sums_would_overflow_is_refused():
    w = navcore.World()
    w.add_graph("y", type="level", vertices=[[0, 0, 0], [20, 0, 0], [20, 0, 10], [0, 0, 10]],
                triangles=T, areas=[{"box": [[8, -1, -1], [12, 1, 11]], "area": "water"}])
    with pytest.raises(navcore.QueryError, match=r"area_costs\['water'\] must be a number > 0 "
                                                 r"and at most 1e\+278"):
        w.find_path("y", (1, 0, 2), (19, 0, 2), algorithm="funnel", area_costs={"water": 1e308})
    r = w.find_path("y", (1, 0, 2), (19, 0, 2), algorithm="funnel", area_costs={"water": 1e278})
    assert r.found                    # the only way crosses the water, dear as it is
