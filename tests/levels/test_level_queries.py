"""``raycast``, ``random_point``, ``nearest_point`` and distance matrices
on 3D levels (layered navmeshes): a ray on the upper floor stops at its
edge and never goes on over the floor below; random and nearest points
lie on the surface; matrix entries are ``find_path``'s costs."""
from __future__ import annotations

import math

import numpy as np
import pytest

import navcore

from tests.levels.test_level_graph import bridge_over_road, two_storeys


@pytest.fixture(scope="module")
def house():
    w = navcore.World()
    v, t = two_storeys()
    g = w.add_graph("house", type="level", vertices=v, triangles=t)
    return w, g


def _floor(g, p):
    """0 or 4: the height of polygon ``p``'s corners (the floors are flat)."""
    h = g.heights[g.polygon(p)]
    return float(np.round(h.mean()))


def test_raycast_on_the_upper_floor_stops_at_its_edge(house):
    w, g = house
    # along z = 3 the upper floor (y = 4, x < 10) ends in a drop; the
    # ground floor (y = 0) goes on below it to x = 24
    r = w.raycast("house", (3.0, 4.0, 3.0), (15.0, 4.0, 3.0))
    assert r.status is navcore.PathStatus.FOUND and r.hit
    assert 8.5 < r.point[0] <= 10.0 and r.point[1] == pytest.approx(4.0, abs=0.3)
    assert r.t == pytest.approx((r.point[0] - 3.0) / 12.0)
    assert all(_floor(g, p) == 4 for p in r.nodes)           # never the floor below
    assert r.normal[1] == 0.0 and r.normal[0] < 0 and np.linalg.norm(r.normal) == \
        pytest.approx(1.0)
    # the same ray on the ground floor goes through
    r = w.raycast("house", (3.0, 0.0, 3.0), (15.0, 0.0, 3.0))
    assert not r.hit and r.t == math.inf
    assert all(_floor(g, p) == 0 for p in r.nodes)
    assert r.point[[0, 2]].tolist() == [15.0, 3.0] and abs(r.point[1]) < 0.3
    # the end's height does not matter, only where it is on the ground
    r2 = w.raycast("house", (3.0, 0.0, 3.0), (15.0, 7.0, 3.0))
    assert r2.nodes.tolist() == r.nodes.tolist() and not r2.hit


def test_raycast_follows_the_ramp_down(house):
    w, g = house
    # along the back lane (z = 8) the upper floor runs into the ramp to x = 20
    r = w.raycast("house", (3.0, 4.0, 8.0), (19.0, 4.0, 8.0))
    assert not r.hit
    assert r.point[1] == pytest.approx(4.0 * (20 - 19) / 10, abs=0.5)    # on the ramp
    # a start 9 m above everything: Detour's invalid start
    r = w.raycast("house", (3.0, 13.0, 3.0), (15.0, 13.0, 3.0))
    assert r.status is navcore.PathStatus.INVALID_START and r.nodes.size == 0


def test_bridge_ray_stays_on_the_bridge():
    w = navcore.World()
    v, t = bridge_over_road()
    g = w.add_graph("x", type="level", vertices=v, triangles=t)
    # along the bridge: across the road below, to the bridge's far end
    r = w.raycast("x", (15.0, 4.0, 2.0), (15.0, 4.0, 18.0))
    assert not r.hit and all(_floor(g, p) == 4 for p in r.nodes)
    # across the bridge: its side is a wall though the road lies below
    r = w.raycast("x", (15.0, 4.0, 10.0), (25.0, 4.0, 10.0))
    assert r.hit and r.point[0] <= 18.0 and all(_floor(g, p) == 4 for p in r.nodes)
    r = w.raycast("x", (15.0, 0.0, 10.0), (25.0, 0.0, 10.0))
    assert not r.hit and all(_floor(g, p) == 0 for p in r.nodes)


def test_random_points_lie_on_the_surface(house):
    w, g = house
    rng = np.random.default_rng(1)
    floors = []
    for _ in range(300):
        node, p = w.random_point("house", rng)
        assert p.shape == (3,) and g.walkable[node]
        assert w.locate("house", tuple(p)) == node
        x, y, z = p
        heights = [0.0, 4.0] + ([4.0 * (20 - x) / 10] if 10 <= x <= 20 and z >= 6 else [])
        assert min(abs(y - h) for h in heights) < 0.5, p
        floors.append(y > 3.5)
    # the upper floor is about a third of the walkable area: both are drawn
    assert 0.15 < np.mean(floors) < 0.5


def test_nearest_point_keeps_to_the_floor_of_the_point(house):
    w, g = house
    node, p = w.nearest_point("house", (3.0, 4.2, 3.0))
    assert _floor(g, node) == 4 and np.allclose(p, (3.0, 4.0, 3.0), atol=0.3)
    node, p = w.nearest_point("house", (3.0, 0.3, 3.0))
    assert _floor(g, node) == 0 and np.allclose(p, (3.0, 0.0, 3.0), atol=0.3)
    assert node == g.locate((3.0, 0.3, 3.0))
    # beside the ground floor, within the extents: its nearest edge point
    node, p = w.nearest_point("house", (25.0, 0.0, 3.0))
    assert node >= 0 and 23.0 < p[0] <= 24.0 and p[2] == pytest.approx(3.0)
    # nothing within the extents (2 across, 4 up)
    assert w.nearest_point("house", (3.0, 13.0, 3.0)) == (-1, None)
    assert w.nearest_point("house", (40.0, 0.0, 3.0)) == (-1, None)
    with pytest.raises(navcore.QueryError, match="2D point"):
        w.nearest_point("house", (3.0, 3.0))
    with pytest.raises(navcore.NodeError, match="not a finite"):
        w.nearest_point("house", (3.0, np.nan, 3.0))


def test_distance_matrix_and_pairs_are_find_path_costs(house):
    w, g = house
    up, down = (3.0, 4.0, 3.0), (3.0, 0.0, 3.0)          # one above the other
    ends = [up, down, (22.0, 0.0, 5.0), (8.0, 4.0, 9.0), (15.0, 2.0, 8.0),
            int(g.locate((12.0, 0.0, 2.0)))]
    m = w.distance_matrix("house", ends, ends)
    want = np.array([[w.find_path("house", a, b).cost for b in ends] for a in ends])
    # the same search from the same ground points and polygons; the batch
    # kernel sums the path's length in another order than find_path's
    # (last bits), while an end on the wrong floor would be metres off
    np.testing.assert_allclose(m, want, rtol=1e-13, atol=0)
    assert m[0, 1] > 2 * 12.0                 # down the ramp and back, not 0 m straight down
    pairs = w.distance_pairs("house", ends, ends[::-1])
    np.testing.assert_allclose(pairs, [w.find_path("house", a, b).cost
                                       for a, b in zip(ends, ends[::-1])], rtol=1e-13, atol=0)
    arr = np.array(ends[:5])                                 # a (k, 3) array
    np.testing.assert_allclose(w.distance_matrix("house", arr, arr), want[:5, :5],
                               rtol=1e-13, atol=0)
    with pytest.raises(navcore.QueryError, match="2D point"):
        w.distance_matrix("house", [(3.0, 3.0)], [up])
    with pytest.raises(navcore.NodeError, match="outside"):
        w.distance_pairs("house", [(3.0, 13.0, 3.0)], [up])


def test_distance_matrix_follows_off_mesh_links():
    from tests.levels.test_level_links import HIGH, LOW, PLATFORMS, UP, level
    w = navcore.World()
    level(w, "up", PLATFORMS, [UP])
    level(w, "plain", PLATFORMS)
    ends = [LOW, HIGH, (5.0, 0.2, 5.0)]
    want = np.array([[w.find_path("up", a, b).cost if w.find_path("up", a, b).found
                      else np.inf for b in ends] for a in ends])
    assert np.isfinite(want).all()                       # up there only by the jump
    np.testing.assert_allclose(w.distance_matrix("up", ends, ends), want, rtol=1e-13, atol=0)
    np.testing.assert_allclose(w.distance_pairs("up", ends, ends[::-1]),
                               np.diag(want[:, ::-1]), rtol=1e-13, atol=0)
    m = w.distance_matrix("plain", ends, ends)
    assert np.isinf(m[0, 1]) and np.isinf(m[1, 0]) and np.isfinite(m[0, 2])
