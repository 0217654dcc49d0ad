"""The detail height mesh (navcore_levels.detail) on hand-made polygon
meshes over hand-made compact heightfields (tests/levelkit.py), checked
against the floors they were made from."""
from __future__ import annotations

import numpy as np
import pytest

from navcore.errors import GraphError, QueryError
from navcore_levels.detail import (EDGE_ON_OUTLINE, DetailMesh, build_detail_mesh,
                                   surface_height, surface_heights)
from navcore_levels.heightfield import PolyMesh
from tests.levelkit import chf_from_floors

CS = 0.3
CH = 0.2
SQUARE = [(2, 2), (2, 20), (20, 20), (20, 2)]                # Recast winding
HEXAGON = [(4, 2), (2, 10), (6, 18), (14, 18), (18, 10), (14, 2)]


def polymesh(polys, heights, regions=None, nvp=6):
    """A PolyMesh of polygons given as (x, z) corners in cells; a corner's
    height is ``heights(x, z)`` (cell heights)."""
    verts, rows = [], []
    index = {}
    for poly in polys:
        row = []
        for x, z in poly:
            if (x, z) not in index:
                index[(x, z)] = len(verts)
                verts.append((x, heights(x, z), z))
            row.append(index[(x, z)])
        rows.append(row + [-1] * (nvp - len(row)))
    n = len(rows)
    return PolyMesh(verts=np.array(verts, np.int32), polys=np.array(rows, np.int32),
                    neighbors=np.full((n, nvp), -1, np.int32),
                    regions=np.array(regions if regions is not None else [1] * n, np.int32),
                    areas=np.full(n, 63, np.uint8), nvp=nvp, bmin=np.zeros(3), cs=CS, ch=CH)


def flat_chf(size=24, y=5, region=1):
    chf = chf_from_floors(np.full((size, size), y))
    chf.region[:] = region
    return chf


def corners_xz(pm, p):
    return pm.world_vertices()[pm.polys[p][pm.polys[p] >= 0]][:, [0, 2]]


def signed_area(xz):
    x, z = xz[:, 0], xz[:, 1]
    return 0.5 * float(np.sum(x * np.roll(z, -1) - np.roll(x, -1) * z))


def inside_points(pm, p, n=200, seed=0):
    """Points strictly inside convex polygon ``p``: random convex
    combinations of its corners."""
    rng = np.random.default_rng(seed)
    xz = corners_xz(pm, p)
    w = rng.random((n, len(xz))) ** 3
    return (w / w.sum(axis=1, keepdims=True)) @ xz


def check_cover(pm, detail):
    """Each polygon's triangles have its winding, lie inside it and their
    areas sum to its area (so they cover it without overlap)."""
    for p in range(pm.poly_count):
        # relative to the first corner: areas of far-off level coordinates
        # in world units would lose digits to the offset
        origin = corners_xz(pm, p)[0]
        xz = corners_xz(pm, p) - origin
        area = signed_area(xz)
        tris = detail.poly_triangles(p)[:, :, [0, 2]] - origin
        tri_areas = np.array([signed_area(t) for t in tris])
        assert np.all(tri_areas * area > 0)
        assert abs(tri_areas.sum() - area) <= 1e-9
        # inside: on the polygon's side of every edge (x-z cross product)
        edges = np.roll(xz, -1, axis=0) - xz
        for v in tris.reshape(-1, 2):
            rel = v - xz
            cross = edges[:, 0] * rel[:, 1] - edges[:, 1] * rel[:, 0]
            assert np.all(cross * np.sign(area) >= -1e-9)


@pytest.mark.nojit
def test_flat_floor_is_the_polygons_corners_with_exact_heights():
    pm = polymesh([SQUARE], lambda x, z: 5)
    detail = build_detail_mesh(pm, flat_chf(), 6 * CS, CH)
    assert isinstance(detail, DetailMesh)
    assert detail.vert_count == 4 and detail.tri_count == 2
    np.testing.assert_array_equal(detail.verts, pm.world_vertices())
    pts = inside_points(pm, 0, 20)
    np.testing.assert_array_equal(surface_heights(detail, np.zeros(20, int), pts), 5 * CH)
    assert surface_height(detail, 0, 2.0, 3.0) == 5 * CH
    check_cover(pm, detail)
    # every outline edge is flagged once, the diagonal not
    flags = detail.tri_flags
    bits = [(flags >> (2 * k)) & 3 for k in range(3)]
    assert sum(int(np.sum(b == EDGE_ON_OUTLINE)) for b in bits) == 4


@pytest.mark.nojit
def test_sample_distance_zero_gives_the_polygons_own_vertices():
    floors = 5 + (np.arange(24)[None, :] // 4) + 0 * np.arange(24)[:, None]
    chf = chf_from_floors(floors)
    chf.region[:] = 1
    pm = polymesh([HEXAGON], lambda x, z: 5 + x // 4)
    detail = build_detail_mesh(pm, chf, 0.0, CH)
    np.testing.assert_array_equal(detail.verts, pm.world_vertices())
    assert detail.tri_count == 4
    check_cover(pm, detail)


@pytest.mark.parametrize("border", [0, 2])
def test_ramp_is_reproduced_exactly(border):
    # Two cell heights per cell along x, one along z: the floor's cells step,
    # but its cell corners lie on the plane y = 2x + z (cells); edges of 20
    # cells are cut into 4 sample segments and the interior grid is every 6
    # cells, so every sample sits on a corner and the surface is the plane.
    # With a tile border the polygon mesh's cells start ``border`` cells in.
    size = 24 + 2 * border
    xs = np.arange(size) - border
    floors = 5 + 2 * xs[None, :] + xs[:, None] + 3 * border
    chf = chf_from_floors(floors, border_size=border)
    chf.region[:] = 1
    pm = polymesh([SQUARE], lambda x, z: 5 + 2 * x + z + 3 * border)
    pm.border_size = border
    pm.bmin = chf.bmin + np.array([border * CS, 0, border * CS])
    detail = build_detail_mesh(pm, chf, 6 * CS, CH)
    pts = inside_points(pm, 0, 300)
    rel = pts - pm.bmin[[0, 2]]
    want = (5 + 2 * rel[:, 0] / CS + rel[:, 1] / CS + 3 * border) * CH
    np.testing.assert_allclose(surface_heights(detail, np.zeros(300, int), pts), want,
                               atol=1e-6, rtol=0)
    check_cover(pm, detail)


def hill_floors(size=24, top=8, centre=(10.5, 10.5), sigma=4.0):
    z, x = np.mgrid[0:size, 0:size]
    r2 = (x + 0.5 - centre[0]) ** 2 + (z + 0.5 - centre[1]) ** 2
    return 5 + np.rint(top * np.exp(-r2 / (2 * sigma ** 2))).astype(int)


@pytest.mark.parametrize("poly", [SQUARE, HEXAGON])
def test_bumpy_floor_is_within_the_error_at_every_sample(poly):
    floors = hill_floors()
    chf = chf_from_floors(floors)
    chf.region[:] = 1
    pm = polymesh([poly], lambda x, z: int(max(floors[max(z - 1, 0):z + 1,
                                                      max(x - 1, 0):x + 1].max(), 0)))
    spacing = 2 * CS
    error = CH

    def worst(detail):
        # Every interior grid sample (half a spacing inside the polygon):
        # its cell's floor against the surface at the cell's centre.
        xz = corners_xz(pm, 0)
        worst_diff = 0.0
        for gz in range(0, 25):
            for gx in range(0, 25):
                px, pz = gx * spacing, gz * spacing
                rel = np.array([px, pz]) - xz
                edges = np.roll(xz, -1, axis=0) - xz
                lengths = np.hypot(edges[:, 0], edges[:, 1])
                dist = -(edges[:, 0] * rel[:, 1] - edges[:, 1] * rel[:, 0]) / lengths
                if dist.min() <= spacing / 2:       # the polygon's inside is dist > 0
                    continue
                cx, cz = int(np.floor(px / CS + 0.01)), int(np.floor(pz / CS + 0.01))
                got = surface_height(detail, 0, (cx + 0.5) * CS, (cz + 0.5) * CS)
                worst_diff = max(worst_diff, abs(floors[cz, cx] * CH - got))
        return worst_diff

    detail = build_detail_mesh(pm, chf, spacing, error)
    assert detail.vert_count > len(poly)              # the hill was sampled
    assert worst(detail) <= error + CH + 1e-9
    # Without samples the corners alone miss the hill: the check can fail.
    assert worst(build_detail_mesh(pm, chf, 0.0, error)) > error + CH
    check_cover(pm, detail)


@pytest.mark.parametrize("region", [2, 0])
def test_polygon_on_upper_floor_never_reads_the_floor_below(region):
    # Ground at 5 everywhere, a bridge at 30 over x, z in 6..17 (no
    # connection between them: the step is far over the climb). The upper
    # polygon's patch margin has only ground under it. Region 0 (a polygon
    # merged from several regions) is seeded at a corner and walked inward.
    size = 24
    ground = np.full((size, size), 5)
    upper = np.full((size, size), -1)
    upper[6:18, 6:18] = 30
    chf = chf_from_floors(np.stack([ground, upper]))
    chf.region[:] = 1
    chf.region[chf.y == 30] = 2
    pm = polymesh([[(6, 6), (6, 18), (18, 18), (18, 6)]], lambda x, z: 30, regions=[region])
    detail = build_detail_mesh(pm, chf, 3 * CS, CH)
    np.testing.assert_array_equal(detail.verts[:, 1], 30 * CH)
    pts = inside_points(pm, 0, 100)
    np.testing.assert_array_equal(surface_heights(detail, np.zeros(100, int), pts), 30 * CH)
    # the ground polygon under it reads the ground
    low = polymesh([[(2, 2), (2, 22), (22, 22), (22, 2)]], lambda x, z: 5, regions=[1])
    d2 = build_detail_mesh(low, chf, 3 * CS, CH)
    np.testing.assert_array_equal(d2.verts[:, 1], 5 * CH)


def test_upper_floor_hill_heights_come_from_the_upper_floor():
    # A hill on the upper floor, ground below: every detail vertex's height
    # is the upper floor's at its cell (never the ground's).
    size = 24
    ground = np.full((size, size), 2)
    hill = hill_floors(size) + 25
    chf = chf_from_floors(np.stack([ground, hill]))
    chf.region[:] = np.where(chf.y >= 25, 3, 1)
    pm = polymesh([HEXAGON], lambda x, z: int(hill[max(z - 1, 0):z + 1,
                                                   max(x - 1, 0):x + 1].max()), regions=[3])
    detail = build_detail_mesh(pm, chf, 2 * CS, CH)
    assert detail.vert_count > len(HEXAGON)
    assert detail.verts[:, 1].min() >= hill.min() * CH
    check_cover(pm, detail)


def test_shared_edge_gets_the_same_points_from_both_polygons():
    floors = hill_floors()
    chf = chf_from_floors(floors)
    chf.region[:] = 1
    left = [(2, 2), (2, 20), (11, 20), (11, 2)]
    right = [(11, 2), (11, 20), (20, 20), (20, 2)]
    h = lambda x, z: int(floors[max(z - 1, 0):z + 1, max(x - 1, 0):x + 1].max())
    pm = polymesh([left, right], h)
    detail = build_detail_mesh(pm, chf, 2 * CS, CH)

    def on_edge(p):
        v = detail.verts[detail.vert_offsets[p]:detail.vert_offsets[p + 1]]
        return {tuple(np.round(r, 9)) for r in v if abs(r[0] - 11 * CS) < 1e-9}

    assert len(on_edge(0)) > 2
    assert on_edge(0) == on_edge(1)
    check_cover(pm, detail)


def test_surface_height_off_the_polygon_is_its_outline_height():
    xs = np.arange(24)
    chf = chf_from_floors(5 + xs[None, :] + 0 * xs[:, None])
    chf.region[:] = 1
    pm = polymesh([SQUARE], lambda x, z: 5 + x)
    detail = build_detail_mesh(pm, chf, 0.0, CH)
    # beyond the x = 20 edge: that edge's height (25 cell heights)
    assert surface_height(detail, 0, 20 * CS + 1.0, 10 * CS) == pytest.approx(25 * CH)
    np.testing.assert_allclose(surface_heights(detail, [0], [[10 * CS, 99.0, 10 * CS]]),
                               [15 * CH])


def test_bad_input_is_a_graph_error():
    chf = flat_chf()
    pm = polymesh([SQUARE], lambda x, z: 5)
    with pytest.raises(GraphError, match="sample_distance"):
        build_detail_mesh(pm, chf, -1.0, CH)
    with pytest.raises(GraphError, match="sample_max_error"):
        build_detail_mesh(pm, chf, 1.0, float("nan"))
    with pytest.raises(GraphError, match="expected a CompactHeightfield"):
        build_detail_mesh(pm, None, 1.0, CH)
    with pytest.raises(GraphError, match="polymesh must be a PolyMesh"):
        build_detail_mesh("mesh", chf, 1.0, CH)
    bad = polymesh([SQUARE], lambda x, z: 5)
    bad.polys[0, 1] = 9
    with pytest.raises(GraphError, match="polygon 0 has a vertex index outside 0..3"):
        build_detail_mesh(bad, chf, 1.0, CH)
    bad = polymesh([SQUARE], lambda x, z: 5)
    bad.polys[0, 1] = -1
    with pytest.raises(GraphError, match="followed only by -1"):
        build_detail_mesh(bad, chf, 1.0, CH)
    bad = polymesh([[(2, 2), (2, 30), (20, 2)]], lambda x, z: 5)
    with pytest.raises(GraphError, match="lies outside the heightfield's 24 x 24 cells"):
        build_detail_mesh(bad, chf, 1.0, CH)
    bad = polymesh([SQUARE], lambda x, z: 5)
    bad.cs = 0.5
    with pytest.raises(GraphError, match="differs from chf.cs"):
        build_detail_mesh(bad, chf, 1.0, CH)
    bad_chf = flat_chf()
    bad_chf.cs = None
    with pytest.raises(GraphError, match="compact heightfield cs must be a finite number >= 0, got None"):
        build_detail_mesh(pm, bad_chf, 1.0, CH)
    bad_chf = flat_chf()
    bad_chf.border_size = 1
    with pytest.raises(GraphError, match="border_size"):
        build_detail_mesh(pm, bad_chf, 1.0, CH)
    bad_chf = flat_chf()
    bad_chf.neighbors = bad_chf.neighbors[:, :3]
    with pytest.raises(GraphError, match=r"compact heightfield neighbors must be an integer array of shape \(n, 4\)"):
        build_detail_mesh(pm, bad_chf, 1.0, CH)
    bad_chf = flat_chf()
    bad_chf.neighbors[0, 0] = 10 ** 6
    with pytest.raises(GraphError, match="is not a span index"):
        build_detail_mesh(pm, bad_chf, 1.0, CH)


def test_bad_query_is_a_query_error():
    detail = build_detail_mesh(polymesh([SQUARE], lambda x, z: 5), flat_chf(), 0.0, CH)
    with pytest.raises(QueryError, match="out of range for a detail mesh of 1 polygons"):
        surface_height(detail, 1, 1.0, 1.0)
    with pytest.raises(QueryError, match="poly must be an integer"):
        surface_height(detail, 0.5, 1.0, 1.0)
    with pytest.raises(QueryError, match="x must be a finite number"):
        surface_height(detail, 0, float("inf"), 1.0)
    with pytest.raises(QueryError, match=r"\(n, 2\)"):
        surface_heights(detail, [0], [1.0, 2.0])
    with pytest.raises(QueryError, match="one polygon per point"):
        surface_heights(detail, [0, 0], [[1.0, 2.0]])
    with pytest.raises(QueryError, match="detail must be a DetailMesh"):
        surface_heights(None, [0], [[1.0, 2.0]])


@pytest.mark.parametrize("level", ["nav_test", "dungeon", "undulating"])
def test_detail_counts_equal_recasts_on_the_demo_levels(level):
    # The whole pipeline on a RecastDemo level at RecastDemo's settings:
    # C++ Recast's detail mesh has exactly as many vertices and triangles.
    import recastpeer as rp
    from navcore_levels import build_navmesh_arrays, load_level

    obj = rp.LEVELS / f"{level}.obj"
    want = rp.run_recast(obj).counts
    lvl = load_level(obj)
    built = build_navmesh_arrays(lvl.vertices, lvl.triangles)
    pm, detail = built.polymesh, built.detail
    assert pm.poly_count == want["polys"]
    assert (detail.vert_count, detail.tri_count) == (want["detail_verts"], want["detail_tris"])
    check_cover(pm, detail)
