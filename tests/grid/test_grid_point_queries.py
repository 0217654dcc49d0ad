"""``World.raycast``, ``random_point`` and ``nearest_point`` on grids,
against shapely truths on the union of the walkable cells' squares (the
first point where the segment leaves it) and brute force over cells."""
from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point, box

import navcore

pytestmark = pytest.mark.nojit


def _grid(seed):
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(6, 12)), int(rng.integers(6, 14))
    free = rng.random((h, w)) > 0.25
    rows = ["".join("." if f else "#" for f in row) for row in free]
    world = navcore.World()
    graph = world.add_graph("g", type="grid", rows=rows)
    cells = [box(x, y, x + 1, y + 1) for y, x in zip(*np.nonzero(free))]
    return world, graph, rng, free, shapely.union_all(cells)


def _first_exit(free, s, e):
    seg = LineString([s, e])
    inside = shapely.line_merge(seg.intersection(free))
    for part in getattr(inside, "geoms", [inside]):
        a, b = part.coords[0], part.coords[-1]
        for near, far in ((a, b), (b, a)):
            if math.dist(near, s) <= 1e-9:
                t = math.dist(s, far) / seg.length
                return math.inf if t >= 1 - 1e-12 else t
    raise AssertionError("the start is not in the free space")


@pytest.mark.parametrize("seed", range(4))
def test_grid_raycast_stops_where_the_segment_leaves_the_walkable_cells(seed):
    world, graph, rng, free_cells, free = _grid(seed)
    h, w = free_cells.shape
    hits = misses = 0
    for _ in range(60):
        y, x = map(int, rng.choice(np.argwhere(free_cells)))
        s = (x + float(rng.random()), y + float(rng.random()))
        e = (float(rng.uniform(-2, w + 2)), float(rng.uniform(-2, h + 2)))
        want = _first_exit(free, s, e)
        r = world.raycast("g", s, e)
        assert r.status is navcore.PathStatus.FOUND
        assert r.hit == (want != math.inf), (s, e, want, r)
        if r.hit:
            hits += 1
            assert r.t == pytest.approx(want, abs=1e-9)
            assert np.dot(r.normal, np.subtract(e, s)) < 0
            assert not free.contains(Point(r.point - 1e-6 * r.normal))
        else:
            misses += 1
            assert tuple(r.point) == e
        # the cells crossed: side by side (or corner to corner), all walkable
        xy = np.column_stack(np.divmod(r.nodes, w))[:, ::-1]
        assert graph.walkable[r.nodes].all() and tuple(xy[0]) == (int(s[0]), int(s[1]))
        assert (np.abs(np.diff(xy, axis=0)).max(axis=1) == 1).all()
    assert hits and misses
    # a start in a blocked cell or off the grid
    y, x = map(int, np.argwhere(~free_cells)[0])
    for start in ((x + 0.5, y + 0.5), (-1.0, 0.5)):
        r = world.raycast("g", start, (0.5, 0.5))
        assert r.status is navcore.PathStatus.INVALID_START and r.nodes.size == 0


@pytest.mark.parametrize("seed", range(3))
def test_grid_nearest_point_is_the_brute_force_nearest(seed):
    world, graph, rng, free_cells, free = _grid(seed)
    h, w = free_cells.shape
    for _ in range(60):
        q = (float(rng.uniform(-3, w + 3)), float(rng.uniform(-3, h + 3)))
        node, p = world.nearest_point("g", q)
        assert free.distance(Point(q)) == pytest.approx(math.dist(q, p), abs=1e-9)
        assert graph.walkable[node] and graph.locate(tuple(p)) == node


def test_grid_random_points_are_uniform_over_the_walkable_cells():
    world = navcore.World()
    world.add_graph("g", type="grid", rows=[".#.", "#.#"])
    rng = np.random.default_rng(5)
    draws = [world.random_point("g", rng) for _ in range(3000)]
    nodes = np.array([d.node for d in draws])
    pts = np.array([d.point for d in draws])
    assert set(nodes.tolist()) == {0, 2, 4}
    for c in (0, 2, 4):
        assert abs((nodes == c).mean() - 1 / 3) < 0.04
    assert [world.graph("g").locate(tuple(p)) for p in pts[:50]] == nodes[:50].tolist()
    assert abs((pts[:, 0] % 1 < 0.5).mean() - 0.5) < 0.04
    assert world.random_point("g", 9).point.tolist() == world.random_point("g", 9).point.tolist()
    world.update("g", nodes=[0, 2, 4], walkable=False)
    world.tick()
    assert world.random_point("g", 1) == (-1, None)
    assert world.nearest_point("g", (0.5, 0.5)) == (-1, None)


@pytest.mark.parametrize("bad", [(float("nan"), 1.0), (1.0,), "x", None])
def test_grid_point_queries_check_their_points(bad):
    world = navcore.World()
    world.add_graph("g", type="grid", rows=["...", "..."])
    for call in (lambda: world.raycast("g", bad, (1.0, 1.0)),
                 lambda: world.raycast("g", (1.0, 1.0), bad),
                 lambda: world.nearest_point("g", bad)):
        with pytest.raises(navcore.NavError):
            call()
