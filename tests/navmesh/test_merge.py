"""Triangles merged into convex polygons: same area, convex and
counter-clockwise, at most ``MAX_SIDES`` corners, fewer of them, and the
same exact paths as on the bare triangles."""
import numpy as np
import pytest
import shapely
from shapely.geometry import box

import navcore
from navcore_navmesh.merge import MAX_SIDES

pytestmark = pytest.mark.nojit


def _scene(seed):
    rng = np.random.default_rng(seed)
    obstacles = [shapely.affinity.rotate(box(x, y, x + w, y + h), float(a))
                 for x, y, w, h, a in zip(rng.uniform(1, 17, 8), rng.uniform(1, 17, 8),
                                          rng.uniform(0.5, 3, 8), rng.uniform(0.5, 3, 8),
                                          rng.uniform(0, 90, 8))]
    return dict(bounds=(0, 0, 20, 20), obstacles=obstacles)


@pytest.mark.parametrize("seed", range(4))
def test_merged_polygons_are_convex_and_cover_the_triangles(seed):
    world = navcore.World(autoload=False)
    merged = world.add_graph("m", type="navmesh", tile_size=0, **_scene(seed))
    tris = world.add_graph("t", type="navmesh", tile_size=0, merge=False, **_scene(seed))
    assert merged.num_polygons < tris.num_polygons
    polys = [shapely.Polygon(merged.polygon_points(p)) for p in range(merged.num_polygons)]
    for p, poly in enumerate(polys):
        pts = merged.polygon_points(p)
        assert 3 <= len(pts) <= MAX_SIDES
        d1 = np.roll(pts, -1, axis=0) - pts
        d2 = np.roll(d1, -1, axis=0)
        turns = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
        assert (turns >= 0).all(), f"polygon {p} has a reflex corner"
        assert poly.is_valid and poly.area > 0            # counter-clockwise, simple
    total = sum(poly.area for poly in polys)
    assert total == pytest.approx(merged.free_space.area, rel=1e-9)
    assert shapely.union_all(polys).symmetric_difference(merged.free_space).area < 1e-9
    # same exact lengths on both meshes
    rng = np.random.default_rng(seed)
    pts = []
    while len(pts) < 16:
        p = tuple(rng.uniform(0, 20, 2))
        if tris.locate(p) >= 0:
            pts.append(p)
    for s, g in zip(pts[::2], pts[1::2]):
        a = world.find_path("m", s, g)
        b = world.find_path("t", s, g)
        assert a.status == b.status
        if a.found:
            assert a.cost == pytest.approx(b.cost, rel=1e-9)
