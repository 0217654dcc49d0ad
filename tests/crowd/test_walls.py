"""``navcore_walls`` on grids and 2D navmeshes against shapely: the rings,
read as polygons by the even-odd rule, are exactly the walkable region
(the union of the walkable cells' squares or of the walkable polygons),
their lengths add up to its boundary's, and every edge has the walkable
side on its right and solid on its left; also after updates (blocked
cells and polygons, obstacles that re-triangulate tiles)."""
from functools import reduce
from pathlib import Path

import numpy as np
import pytest
import shapely

import navcore
from crowdkit import obstacle_mesh
from hooktags import exercises

DATA = Path(__file__).resolve().parents[2].parent / "shared/data/navmesh"


def walls_of(world, graph):
    return world.plugins.caller("navcore_walls")(world, graph)


def grid_region(g):
    ys, xs = np.nonzero(g.walkable_grid)
    return shapely.union_all(shapely.box(xs, ys, xs + 1, ys + 1))


def mesh_region(g):
    polys = [shapely.Polygon(g.polygon_points(p)) for p in np.flatnonzero(g.walkable)]
    return shapely.union_all(polys)


def check_rings(vertices, ring_start, region, eps, tol=1e-9):
    """The rings are ``region``'s boundary, walkable on the right."""
    assert vertices.dtype == np.float64 and vertices.ndim == 2 and vertices.shape[1] == 2
    assert ring_start.dtype == np.int64 and ring_start[0] == 0
    assert ring_start[-1] == len(vertices) and (np.diff(ring_start) >= 2).all()
    rings = [vertices[a:b] for a, b in zip(ring_start[:-1], ring_start[1:])]
    a = np.concatenate(rings) if rings else np.empty((0, 2))
    b = np.concatenate([np.roll(r, -1, axis=0) for r in rings]) if rings else a
    length = np.hypot(*(b - a).T).sum()
    assert length == pytest.approx(region.boundary.length, rel=1e-9, abs=1e-9)
    # even-odd: a point inside an odd number of rings is walkable (a ring
    # touching itself at a corner is made valid: two pieces there)
    pieces = [shapely.make_valid(shapely.Polygon(r)) for r in rings if len(r) >= 3]
    parity = reduce(shapely.symmetric_difference, pieces, shapely.Polygon())
    assert shapely.symmetric_difference(parity, region).area <= tol * max(region.area, 1.0)
    # orientation: walkable just right of every edge's midpoint, solid just left
    d = b - a
    d /= np.hypot(*d.T)[:, None]
    mid = (a + b) / 2
    right = mid + eps * np.stack([d[:, 1], -d[:, 0]], axis=1)
    left = mid - eps * np.stack([d[:, 1], -d[:, 0]], axis=1)
    assert shapely.contains_xy(region, right[:, 0], right[:, 1]).all()
    assert not shapely.intersects_xy(region, left[:, 0], left[:, 1]).any()
    return rings


@pytest.mark.nojit
def test_a_grid_with_a_hole_and_a_diagonal_pinch_by_hand():
    w = navcore.World()
    g = w.add_graph("g", type="grid", rows=["....#",
                                             ".#...",
                                             "..#..",
                                             "....."])
    v, rs = walls_of(w, g)
    rings = [v[a:b].tolist() for a, b in zip(rs[:-1], rs[1:])]
    # the border clockwise round the walkable cells (y grows down, so
    # "right" of (0,4)->(5,4) is -y: into the map), notched by cell (4, 0)
    assert rings[0] == [[0, 4], [5, 4], [5, 1], [4, 1], [4, 0], [0, 0]]
    # cells (1, 1) and (2, 2) meet at corner (2, 2): each ring turns left
    # there, round its own cell's corner (counter-clockwise round the solid)
    assert rings[1] == [[2, 1], [2, 2], [1, 2], [1, 1]]
    assert rings[2] == [[3, 2], [3, 3], [2, 3], [2, 2]]
    check_rings(v, rs, grid_region(g), 1e-6)


@pytest.mark.nojit
def test_walkable_cells_meeting_at_a_corner_share_a_ring_round_the_solid():
    w = navcore.World()
    g = w.add_graph("g", type="grid", rows=[".#", "#."])
    v, rs = walls_of(w, g)
    # one ring: it goes round the blocked cells' corners at (1, 1) twice
    assert rs.tolist() == [0, 8]
    assert v.tolist() == [[0, 1], [1, 1], [1, 2], [2, 2], [2, 1], [1, 1], [1, 0], [0, 0]]
    check_rings(v, rs, grid_region(g), 1e-6)


@pytest.mark.nojit
def test_empty_and_full_grids():
    w = navcore.World()
    g = w.add_graph("g", type="grid", array=np.zeros((3, 4), dtype=bool))
    v, rs = walls_of(w, g)
    assert v.shape == (0, 2) and rs.tolist() == [0]
    g = w.add_graph("h", type="grid", array=np.ones((3, 4), dtype=bool))
    v, rs = walls_of(w, g)
    assert v.tolist() == [[0, 3], [4, 3], [4, 0], [0, 0]] and rs.tolist() == [0, 4]


@exercises("navcore_walls")
@pytest.mark.parametrize("seed", range(6))
def test_random_grids_and_their_updates_against_shapely(seed):
    rng = np.random.default_rng(seed)
    h, wd = rng.integers(1, 24, 2)
    w = navcore.World()
    g = w.add_graph("g", type="grid", array=rng.random((h, wd)) > rng.uniform(0.2, 0.6))
    for _ in range(3):
        v, rs = walls_of(w, g)
        rings = check_rings(v, rs, grid_region(g), 1e-6)
        for r in rings:               # corners only: a run along one line is one edge
            d = np.roll(r, -1, axis=0) - r
            e = np.roll(d, 1, axis=0)
            assert (d[:, 0] * e[:, 1] - d[:, 1] * e[:, 0] != 0).all()
        x, y = int(rng.integers(0, wd)), int(rng.integers(0, h))
        rw, rh = min(int(rng.integers(1, 4)), wd - x), min(int(rng.integers(1, 4)), h - y)
        w.update("g", rect=(x, y, rw, rh),
                 walkable=bool(rng.random() < 0.5))
        w.tick(1 / 60)


def _mesh_check(w, g):
    v, rs = walls_of(w, g)
    region = mesh_region(g)
    check_rings(v, rs, region, 1e-7 * max(np.ptp(g.vertices, axis=0)))
    return v, rs


@pytest.mark.nojit
@pytest.mark.parametrize("tile_size", [None, 0])
def test_a_yard_with_a_pillar_by_hand(tile_size):
    w = navcore.World()
    g = w.add_graph("m", type="navmesh", bounds=(0, 0, 20, 10), tile_size=tile_size,
                    obstacles=[[(5, 2), (8, 2), (8, 6), (5, 6)]])
    v, rs = _mesh_check(w, g)
    rings = sorted(v[a:b].tolist() for a, b in zip(rs[:-1], rs[1:]))
    # the border clockwise, the pillar counter-clockwise (walkable on the right)
    assert len(rings) == 2
    border = [r for r in rings if [0, 0] in r][0]
    pillar = [r for r in rings if [5, 2] in r][0]
    assert len(border) == 4 and shapely.LinearRing(border).is_ccw is False
    assert len(pillar) == 4 and shapely.LinearRing(pillar).is_ccw is True


@exercises("navcore_walls")
@pytest.mark.parametrize("tile_size", [None, 0])
def test_meshes_with_obstacles_and_their_updates(tile_size):
    rng = np.random.default_rng(7)
    w, g = obstacle_mesh(rng, tile_size)
    _mesh_check(w, g)
    # blocked polygons are solid
    w.update("m", nodes=[int(g.node_of((2.0, 28.0))), int(g.node_of((38.0, 15.0)))],
             walkable=False)
    w.tick(1 / 60)
    _mesh_check(w, g)
    if tile_size is None:          # obstacles re-triangulate the tiles they touch
        w.update("m", add_obstacle=[[14, 2], [18, 2], [18, 26], [14, 26]], obstacle_id="wall")
        w.tick(1 / 60)
        _mesh_check(w, g)
        w.update("m", remove_obstacle="wall")
        w.tick(1 / 60)
        _mesh_check(w, g)


@pytest.mark.skipif(not (DATA / "arena.mesh").exists(), reason=f"{DATA} not available")
@pytest.mark.parametrize("kind", ["mesh", "map"])
def test_the_arena(kind):
    w = navcore.World()
    if kind == "mesh":
        g = w.add_graph("m", type="navmesh", mesh=str(DATA / "arena.mesh"))
    else:
        g = w.add_graph("m", type="navmesh", map=str(DATA / "arena.map"))
    _mesh_check(w, g)

