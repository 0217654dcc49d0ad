"""The polygon stage (navcore_levels.polymesh) on contours of hand-made
compact heightfields, checked against independent geometry (shapely)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import shapely
from shapely.geometry import Point, Polygon

from levelkit import chf_from_floors
from navcore.errors import GraphError
from navcore_levels.contours import CONTOUR_BORDER_VERTEX, build_contours
from navcore_levels.heightfield import BORDER_REGION, CompactHeightfield, PolyMesh
from navcore_levels.polymesh import build_polymesh
from recastkit import TILES, load as recast_tile
from regionkit import (label_cells, label_components, span_cells,
                       two_regions_in_a_tile)


def poly_rings(mesh):
    return [row[row >= 0] for row in mesh.polys]


def xz_polygon(mesh, ids):
    return Polygon([(float(mesh.verts[v, 0]), float(mesh.verts[v, 2])) for v in ids])


def check_mesh(mesh):
    """The PolyMesh contract: convex polygons of <= nvp distinct vertices
    with Recast's winding, -1 padding after the last vertex, no repeated
    vertex rows, symmetric neighbour links across the same edge."""
    nvp = mesh.nvp
    assert mesh.polys.shape == (mesh.poly_count, nvp)
    assert mesh.neighbors.shape == (mesh.poly_count, nvp)
    assert mesh.regions.shape == (mesh.poly_count,) and mesh.areas.shape == (mesh.poly_count,)
    assert len(np.unique(mesh.verts, axis=0)) == len(mesh.verts)
    edges = {}
    for p, row in enumerate(mesh.polys):
        n = int((row >= 0).sum())
        assert 3 <= n <= nvp and (row[n:] == -1).all() and (mesh.neighbors[p, n:] == -1).all()
        ids = row[:n]
        assert len(set(ids.tolist())) == n
        xz = mesh.verts[ids][:, [0, 2]].astype(np.int64)
        nxt = np.roll(xz, -1, axis=0)
        assert int((xz[:, 0] * nxt[:, 1] - nxt[:, 0] * xz[:, 1]).sum()) < 0       # winding
        for j in range(n):
            a, b, c = xz[j - 1], xz[j], xz[(j + 1) % n]
            cross = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])
            assert cross <= 0                                                   # convex
            edges[(int(ids[j]), int(ids[(j + 1) % n]))] = (p, j)
    for (u, v), (p, j) in edges.items():
        q = mesh.neighbors[p, j]
        if q >= 0:
            assert (v, u) in edges and edges[(v, u)][0] == q
            assert mesh.neighbors[q, edges[(v, u)][1]] == p
        elif q == -1:
            # a wall: nobody else walks this edge the other way
            assert (v, u) not in edges


def ring_area(ring):
    x = ring[:, 0].astype(float)
    z = ring[:, 2].astype(float)
    return 0.5 * abs(np.dot(x, np.roll(z, -1)) - np.dot(np.roll(x, -1), z))


def check_regions_filled(mesh, contours, chf, max_error):
    """The polygons of each region tile its contour exactly (same area,
    no overlap), and every walkable cell's centre is within max_error of
    some polygon of its floor's mesh."""
    polys = [xz_polygon(mesh, ids) for ids in poly_rings(mesh)]
    for i in range(contours.count):
        if contours.vert_count[i] == 0:
            continue
        r = contours.regions[i]
        mine = [pg for pg, reg in zip(polys, mesh.regions) if reg == r]
        union = shapely.union_all(mine)
        assert abs(union.area - sum(pg.area for pg in mine)) < 1e-9          # no overlap
        assert abs(union.area - ring_area(contours.ring(i))) < 1e-9
    everything = shapely.union_all(polys)
    x, z = span_cells(chf)
    for s in np.flatnonzero(chf.region > 0):
        centre = Point(x[s] + 0.5, z[s] + 0.5)
        assert everything.distance(centre) <= max_error + 1e-9


def build(floors, nvp=6, max_error=1.3, max_edge_len=12, cells=None, **kw):
    chf = chf_from_floors(floors, **kw)
    chf = label_components(chf) if cells is None else label_cells(chf, cells)
    cs = build_contours(chf, max_error, max_edge_len)
    return chf, cs, build_polymesh(cs, nvp)


@pytest.mark.nojit
def test_rectangle_is_one_quad():
    chf, cs, mesh = build(np.zeros((4, 6), int), max_edge_len=0)
    check_mesh(mesh)
    assert isinstance(mesh, PolyMesh) and mesh.poly_count == 1
    assert {(int(v[0]), int(v[2])) for v in mesh.verts} == {(0, 0), (6, 0), (6, 4), (0, 4)}
    assert (mesh.neighbors == -1).all() and mesh.regions.tolist() == [1]
    assert mesh.areas.dtype == np.uint8 and mesh.verts.dtype == np.int32
    assert mesh.polys.dtype == np.int32 and mesh.neighbors.dtype == np.int32


@pytest.mark.parametrize("nvp", [3, 4, 6, 12])
def test_l_shape(nvp):
    floors = np.zeros((20, 20), int)
    floors[8:, 8:] = -1
    chf, cs, mesh = build(floors, nvp=nvp)
    check_mesh(mesh)
    check_regions_filled(mesh, cs, chf, 1.3)
    assert (mesh.polys >= 0).sum(axis=1).max() <= nvp
    if nvp == 3:
        assert ((mesh.polys >= 0).sum(axis=1) == 3).all()
    xz = mesh.world_vertices()
    assert np.allclose(xz[:, 0], mesh.verts[:, 0] * 0.3)


def test_ring_shaped_region_has_no_polygon_over_its_hole():
    floors = np.zeros((16, 18), int)
    floors[5:11, 6:12] = -1
    chf, cs, mesh = build(floors)
    check_mesh(mesh)
    check_regions_filled(mesh, cs, chf, 1.3)
    hole = Polygon([(6, 5), (12, 5), (12, 11), (6, 11)])
    for ids in poly_rings(mesh):
        assert xz_polygon(mesh, ids).intersection(hole).area < 1e-9
    total = sum(xz_polygon(mesh, ids).area for ids in poly_rings(mesh))
    assert abs(total - (16 * 18 - 36)) < 1e-9
    # every polygon reaches every other through neighbour links (one piece)
    seen, todo = {0}, [0]
    while todo:
        p = todo.pop()
        for q in mesh.neighbors[p]:
            if q >= 0 and q not in seen:
                seen.add(int(q))
                todo.append(int(q))
    assert len(seen) == mesh.poly_count


def test_regions_share_edges_and_link_across_them():
    cells = np.ones((12, 16), int)
    for z in range(12):
        cells[z, 7 + (z % 3):] = 2
    cells[:3, :] = 3
    chf, cs, mesh = build(np.zeros((12, 16), int), cells=cells)
    check_mesh(mesh)
    check_regions_filled(mesh, cs, chf, 1.3)
    assert set(mesh.regions.tolist()) == {1, 2, 3}
    pairs = {(int(mesh.regions[p]), int(mesh.regions[q]))
             for p in range(mesh.poly_count) for q in mesh.neighbors[p] if q >= 0}
    assert {(1, 2), (2, 1), (1, 3), (3, 1), (2, 3), (3, 2)} <= pairs


def test_blob_with_areas_keeps_areas_and_fills_cells():
    zz, xx = np.mgrid[0:26, 0:30]
    floors = np.where((xx - 14) ** 2 / 196 + (zz - 12) ** 2 / 121 <= 1, 0, -1)
    areas = np.where(xx < 12, 5, 63)[None]
    chf, cs, mesh = build(floors, areas=areas)
    check_mesh(mesh)
    check_regions_filled(mesh, cs, chf, 1.3)
    assert set(mesh.areas.tolist()) == {5, 63}
    for p in range(mesh.poly_count):
        cx = mesh.verts[mesh.polys[p][mesh.polys[p] >= 0], 0].mean()
        assert (mesh.areas[p] == 5) == (cx < 12)


def test_bridge_over_a_floor_never_links_the_floors():
    ground = np.zeros((14, 14), int)
    bridge = np.full((14, 14), -1)
    bridge[:, 5:9] = 30                    # a deck across the level, 30 cell heights up
    chf, cs, mesh = build(np.stack([ground, bridge]))
    check_mesh(mesh)
    high = np.array([mesh.verts[ids, 1].min() >= 30 for ids in poly_rings(mesh)])
    low = np.array([mesh.verts[ids, 1].max() <= 2 for ids in poly_rings(mesh)])
    assert (high | low).all() and high.any() and low.any()
    for p in range(mesh.poly_count):
        for q in mesh.neighbors[p]:
            if q >= 0:
                assert high[p] == high[q]
    # Each floor's polygons cover that floor: the deck's area, the ground's.
    area = lambda sel: sum(xz_polygon(mesh, ids).area
                           for ids, s in zip(poly_rings(mesh), sel) if s)
    assert abs(area(high) - 14 * 4) < 1e-9 and abs(area(low) - 14 * 14) < 1e-9
    # The deck's corners above the ground's vertices are separate vertices.
    assert len(mesh.verts) == len({(int(v[0]), int(v[1]), int(v[2])) for v in mesh.verts})


def test_tile_border_vertices_removed_and_portals_marked():
    b = 3
    chf = two_regions_in_a_tile(b)
    cs = build_contours(chf, 1.3, 12)
    flagged = {(int(v[0]), int(v[2])) for v in cs.verts if v[3] & CONTOUR_BORDER_VERTEX}
    assert flagged == {(5, 0), (5, 8)}
    mesh = build_polymesh(cs, 6)
    check_mesh(mesh)
    assert mesh.border_size == b and np.allclose(mesh.bmin, cs.bmin)
    kept = {(int(v[0]), int(v[2])) for v in mesh.verts}
    assert not flagged & kept                       # removed, polygons re-cut around them
    total = sum(xz_polygon(mesh, ids).area for ids in poly_rings(mesh))
    assert abs(total - 10 * 8) < 1e-9
    # Every edge on the tile's side is a portal to the tile beyond it.
    for p, ids in enumerate(poly_rings(mesh)):
        for j in range(len(ids)):
            a, c = mesh.verts[ids[j]], mesh.verts[ids[(j + 1) % len(ids)]]
            side = [a[0] == 0 and c[0] == 0, a[2] == 8 and c[2] == 8,
                    a[0] == 10 and c[0] == 10, a[2] == 0 and c[2] == 0]
            if any(side):
                assert mesh.neighbors[p, j] == -2 - side.index(True)
            else:
                assert mesh.neighbors[p, j] >= 0


def test_empty_contour_set_gives_an_empty_mesh():
    chf = chf_from_floors(np.zeros((3, 3), int))
    mesh = build_polymesh(build_contours(chf), 6)
    assert mesh.poly_count == 0 and mesh.verts.shape == (0, 3) and mesh.polys.shape == (0, 6)


# ---------------------------------------------------------------- bad input

def _cs():
    return build_contours(label_components(chf_from_floors(np.zeros((3, 4), int))), 1.3, 0)


@pytest.mark.nojit
@pytest.mark.parametrize("change, nvp, fragment", [
    (lambda c: "contours", 6, "expected a ContourSet"),
    (lambda c: c, 2, r"nvp \(vertices per polygon\) must be an integer in 3..12, got 2"),
    (lambda c: c, 13, "must be an integer in 3..12, got 13"),
    (lambda c: c, 6.0, "must be an integer in 3..12, got 6.0"),
    (lambda c: dataclasses.replace(c, verts=c.verts[:, :3]), 6, "verts must be an integer"),
    (lambda c: dataclasses.replace(c, verts=c.verts.astype(float)), 6,
     "verts must be an integer"),
    (lambda c: dataclasses.replace(c, vert_start=c.vert_start + 5), 6,
     "contour 0 lists vertices 5..8, outside the 4 rows of verts"),
    (lambda c: dataclasses.replace(c, vert_count=c.vert_count * 0 - 1), 6, "contour 0 lists"),
    (lambda c: dataclasses.replace(c, regions=np.r_[c.regions, 1]), 6,
     r"regions has 2 entries for 1 contours"),
    (lambda c: dataclasses.replace(c, areas=c.areas.astype(int) + 300), 6, "areas holds"),
    (lambda c: dataclasses.replace(c, verts=c.verts + (1 << 24)), 6,
     "verts hold coordinates 16777216..16777220; cell corners and heights must stay"),
    (lambda c: dataclasses.replace(c, width=None), 6, "width must be an integer >= 0"),
    (lambda c: dataclasses.replace(c, bmin="origin"), 6, "bmin must be"),
    (lambda c: dataclasses.replace(c, bmin=[0, 0, np.inf]), 6, "bmin must be 3 finite"),
    (lambda c: dataclasses.replace(c, cs=-0.3), 6, "cs must be a finite number >= 0"),
    (lambda c: dataclasses.replace(c, ch=0.0), 6, "ch must be a finite number > 0"),
    (lambda c: dataclasses.replace(c, verts=[[1, 2], [3]]), 6, "verts must be an array"),
])
def test_bad_contours_are_graph_errors(change, nvp, fragment):
    with pytest.raises(GraphError, match=fragment):
        build_polymesh(change(_cs()), nvp)


@pytest.mark.parametrize("tile", TILES)
def test_matches_recast_polygon_for_polygon(tile):
    chf, want = recast_tile(tile)
    cs = build_contours(chf, want["max_error"], want["max_edge_len"])
    mesh = build_polymesh(cs, want["nvp"])
    check_mesh(mesh)
    assert np.array_equal(mesh.verts, want["mesh_verts"])
    assert np.array_equal(mesh.polys, want["mesh_polys"])
    portal = want["mesh_neighbors"] >= 0x8000
    expected = np.where(portal, -2 - (want["mesh_neighbors"] & 0xF), want["mesh_neighbors"])
    assert portal.any() and np.array_equal(mesh.neighbors, expected)
    assert np.array_equal(mesh.regions, want["mesh_regions"])
    assert (mesh.regions == 0).any()           # polygons re-cut around removed border vertices
    assert np.array_equal(mesh.areas, want["mesh_areas"])


def test_several_holes_join_one_outline_and_stay_uncovered():
    floors = np.zeros((18, 30), int)
    pillars = [(3, 4, 3, 3), (10, 3, 2, 5), (16, 9, 4, 2), (23, 4, 3, 3), (23, 7, 1, 6)]
    for x, z, w, h in pillars:
        floors[z:z + h, x:x + w] = -1
    chf, cs, mesh = build(floors)
    assert (cs.vert_count == 0).sum() == 4          # four holes (two pillars touch: one hole)
    assert (cs.vert_count > 0).sum() == 1
    check_mesh(mesh)
    check_regions_filled(mesh, cs, chf, 1.3)
    blocked = shapely.union_all([Polygon([(x, z), (x + w, z), (x + w, z + h), (x, z + h)])
                                 for x, z, w, h in pillars])
    covered = shapely.union_all([xz_polygon(mesh, ids) for ids in poly_rings(mesh)])
    # Simplification may cut into a pillar by up to max_error (the thin leg
    # of the L-shaped one), never deeper.
    assert covered.intersection(blocked.buffer(-1.3 - 1e-9, join_style="mitre")).area < 1e-9
    assert covered.intersection(blocked).area < 0.1 * blocked.area


@pytest.mark.parametrize("seed", range(25))
def test_odd_but_valid_heightfields_give_a_well_formed_mesh(seed):
    """One-way neighbour links, random regions (some in the border bit,
    some inside a tile's border), several floors per cell: whatever the
    contours look like, the mesh's arrays stay consistent."""
    rng = np.random.default_rng(seed)
    w, h = (int(v) for v in rng.integers(6, 14, 2))
    cc = rng.integers(0, 3, w * h).astype(np.int32)
    ci = (np.cumsum(cc) - cc).astype(np.int32)
    n = int(cc.sum())
    cell_of = np.repeat(np.arange(w * h), cc)
    nb = np.full((n, 4), -1, np.int32)
    for s in range(n):
        x, z = cell_of[s] % w, cell_of[s] // w
        for d, (dx, dz) in enumerate(((-1, 0), (0, 1), (1, 0), (0, -1))):
            c = (x + dx) + (z + dz) * w
            if 0 <= x + dx < w and 0 <= z + dz < h and cc[c] and rng.random() < 0.8:
                nb[s, d] = ci[c] + rng.integers(0, cc[c])
    region = rng.integers(0, 4, n).astype(np.int32)
    region[rng.random(n) < 0.1] |= BORDER_REGION
    chf = CompactHeightfield(
        width=w, height=h, border_size=int(rng.integers(0, 3)), walkable_height=10,
        walkable_climb=4, bmin=np.zeros(3), cs=0.3, ch=0.2, cell_index=ci, cell_count=cc,
        y=rng.integers(0, 50, n).astype(np.int32), h=np.full(n, 100, np.int32), neighbors=nb,
        area=rng.choice([0, 5, 63], n).astype(np.uint8), dist=np.zeros(n, np.uint16),
        region=region)
    cs = build_contours(chf, float(rng.choice([0.0, 1.3, 5.0])), int(rng.choice([0, 2])), 3)
    nvp = int(rng.integers(3, 13))
    mesh = build_polymesh(cs, nvp)
    assert mesh.polys.shape == mesh.neighbors.shape == (mesh.poly_count, nvp)
    used = mesh.polys[mesh.polys >= 0]
    assert used.size == 0 or used.max() < len(mesh.verts)
    assert ((mesh.polys >= 0).sum(axis=1) >= 3).all()
    assert ((mesh.neighbors >= -5) & (mesh.neighbors < mesh.poly_count)).all()


def test_one_cell_hole_is_covered_with_a_warning_as_recast_does(caplog):
    # Recast takes a one-cell hole's ring for an outline (its area rounds to
    # 0); the ring, wound backwards, cannot be cut, and the region's
    # polygons cover the cell. With max_error 0.5 the hole keeps 4 vertices.
    floors = np.zeros((6, 6), int)
    floors[2, 2] = -1
    chf = label_components(chf_from_floors(floors))
    cs = build_contours(chf, 0.5, 0)
    assert cs.vert_count.tolist() == [4, 4]
    with caplog.at_level("WARNING", logger="navcore"):
        mesh = build_polymesh(cs, 6)
    assert "1 contour(s) could not be fully triangulated" in caplog.text
    check_mesh(mesh)
    assert sum(xz_polygon(mesh, ids).area for ids in poly_rings(mesh)) == 36
