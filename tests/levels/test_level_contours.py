"""The contour stage (navcore_levels.contours) on hand-made compact
heightfields with regions assigned by the tests themselves."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from levelkit import chf_from_floors
from navcore.errors import GraphError
from navcore_levels.contours import (CONTOUR_AREA_BORDER, CONTOUR_BORDER_VERTEX,
                                     CONTOUR_REGION_MASK, CONTOUR_TESS_WALL_EDGES, ContourSet,
                                     build_contours)
from navcore_levels.heightfield import WALKABLE_AREA
from recastkit import TILES, load as recast_tile
from regionkit import (label_cells, label_components,
                       two_regions_in_a_tile)


def shoelace(ring):
    """The pipeline's winding measure: sum of x_j*z_{j+1} - x_{j+1}*z_j
    (negative for an outline)."""
    x = ring[:, 0].astype(np.int64)
    z = ring[:, 2].astype(np.int64)
    return int(np.dot(x, np.roll(z, -1)) - np.dot(np.roll(x, -1), z))


def seg_dist(p, a, b):
    p, a, b = (np.asarray(v, float) for v in (p, a, b))
    ab = b - a
    t = 0.0 if not ab.any() else min(1.0, max(0.0, float(np.dot(p - a, ab) / np.dot(ab, ab))))
    return float(np.linalg.norm(a + t * ab - p))


def rings_of(cs, region):
    return [i for i in range(cs.count) if cs.regions[i] == region and cs.vert_count[i] > 0]


def disc(n, r):
    zz, xx = np.mgrid[0:n, 0:n]
    c = (n - 1) / 2
    return np.where((xx - c) ** 2 + (zz - c) ** 2 <= r * r, 0, -1)


@pytest.mark.nojit
def test_rectangle_region_gives_its_four_cell_corners():
    chf = label_components(chf_from_floors(np.zeros((5, 8), int)))
    cs = build_contours(chf, max_error=1.3, max_edge_len=0)
    assert cs.count == 1 and cs.regions[0] == 1 and cs.areas[0] == WALKABLE_AREA
    ring = cs.ring(0)
    assert {(int(v[0]), int(v[2])) for v in ring} == {(0, 0), (8, 0), (8, 5), (0, 5)}
    assert len(ring) == 4
    assert shoelace(ring) == -2 * 8 * 5             # Recast's winding, the cells' area
    assert (ring[:, 3] == 0).all()                   # walls all round
    # The traced ring has one vertex per boundary cell edge: the perimeter.
    assert cs.raw_count[0] == 2 * (8 + 5)


def test_corner_heights_are_the_highest_floor_around_the_corner():
    floors = np.add.outer(np.arange(6), np.arange(7)) // 2          # a gentle ramp
    chf = label_components(chf_from_floors(floors, walkable_climb=4))
    cs = build_contours(chf, 1.3, 0)
    raw = cs.raw_ring(0)
    h, w = floors.shape
    for x, y, z, _ in raw:
        around = [floors[cz, cx] for cz in (z - 1, z) for cx in (x - 1, x)
                  if 0 <= cz < h and 0 <= cx < w]
        assert y == max(around)


def test_region_with_a_hole_gives_one_ring():
    floors = np.zeros((10, 12), int)
    floors[3:6, 4:8] = -1                               # a pillar: no floor
    chf = label_components(chf_from_floors(floors))
    cs = build_contours(chf, 1.3, 0)
    assert cs.count == 2                                # outline and hole, both traced
    assert list(cs.vert_count > 0).count(True) == 1     # the hole joined to the outline
    hole = int(np.flatnonzero(cs.vert_count == 0)[0])
    assert shoelace(cs.raw_ring(hole)) > 0              # traced the other way round
    ring = cs.ring(rings_of(cs, 1)[0])
    # Outline area minus the hole: the diagonal there and back adds nothing.
    assert shoelace(ring) == -2 * (12 * 10 - 3 * 4)
    corners = {(int(v[0]), int(v[2])) for v in ring}
    assert {(4, 3), (8, 3), (8, 6), (4, 6)} <= corners


@pytest.mark.parametrize("max_error", [0.5, 1.3, 3.0])
def test_simplified_outline_stays_within_max_error_of_the_traced_one(max_error):
    chf = label_components(chf_from_floors(disc(30, 13)))
    cs = build_contours(chf, max_error=max_error, max_edge_len=0)
    assert cs.count == 1
    ring = cs.ring(0)
    raw = cs.raw_ring(0)
    segs = [(ring[i, [0, 2]], ring[(i + 1) % len(ring), [0, 2]]) for i in range(len(ring))]
    for v in raw:
        assert min(seg_dist(v[[0, 2]], a, b) for a, b in segs) <= max_error + 1e-6
    # and it is a real simplification of the 100+ traced vertices
    assert len(ring) < len(raw) / 2
    # every simplified vertex is a traced one
    assert {tuple(v[:3]) for v in ring} <= {tuple(v[:3]) for v in raw}


@pytest.mark.parametrize("max_edge_len", [2, 5, 8])
def test_no_wall_edge_is_longer_than_max_edge_len(max_edge_len):
    floors = np.zeros((7, 30), int)
    floors[4:, 10:20] = -1                            # a notch: not a plain rectangle
    chf = label_components(chf_from_floors(floors))
    cs = build_contours(chf, 1.3, max_edge_len, CONTOUR_TESS_WALL_EDGES)
    ring = cs.ring(0)
    lengths = np.hypot(*(np.roll(ring[:, [0, 2]], -1, axis=0) - ring[:, [0, 2]]).T)
    assert lengths.max() <= max_edge_len
    unsplit = build_contours(chf, 1.3, 0).ring(0)
    assert len(unsplit) < len(ring)
    # with the flag off nothing is split
    assert len(build_contours(chf, 1.3, max_edge_len, 0).ring(0)) == len(unsplit)


def test_vertices_where_the_neighbour_region_changes_are_kept():
    # Three regions: a jagged border between 1 and 2, and region 3 along
    # the top of both.
    cells = np.ones((12, 16), int)
    for z in range(12):
        cells[z, 7 + (z % 3):] = 2
    cells[:3, :] = 3
    chf = label_cells(chf_from_floors(np.zeros((12, 16), int)), cells)
    cs = build_contours(chf, 1.3, 0)
    assert sorted(cs.regions.tolist()) == [1, 2, 3]
    by_region = {int(r): i for i, r in enumerate(cs.regions)}
    for i in range(cs.count):
        raw = cs.raw_ring(i)
        kept = {tuple(v[:3]) for v in cs.ring(i)}
        nbr = raw[:, 3] & CONTOUR_REGION_MASK
        changes = np.flatnonzero(nbr != np.roll(nbr, -1))
        assert len(changes) >= 2
        for k in changes:
            assert tuple(raw[k, :3]) in kept
    ring1 = {(int(v[0]), int(v[2])) for v in cs.ring(by_region[1])}
    ring2 = {(int(v[0]), int(v[2])) for v in cs.ring(by_region[2])}
    # Regions 1 and 2 meet where the border starts and ends; the jagged
    # portal between them is not simplified further (Recast refines walls
    # and area borders only), so both rings cut it by the same straight edge.
    assert ring1 & ring2 == {(7, 3), (9, 12)}
    # A vertex's flags name the region across the edge that starts there.
    ring = cs.ring(by_region[1])
    for j, v in enumerate(ring):
        w = ring[(j + 1) % len(ring)]
        if (v[3] & CONTOUR_REGION_MASK) == 2:
            assert (int(v[0]), int(v[2])) in ring2 and (int(w[0]), int(w[2])) in ring2


def test_area_changes_are_flagged_and_kept():
    areas = np.full((1, 6, 10), WALKABLE_AREA)
    areas[0, :, 5:] = 7                                 # water on the right half
    chf = label_components(chf_from_floors(np.zeros((6, 10), int), areas=areas))
    cs = build_contours(chf, 1.3, 0)
    assert sorted(cs.areas.tolist()) == [7, WALKABLE_AREA]
    for i in range(cs.count):
        ring = cs.ring(i)
        flagged = ring[(ring[:, 3] & CONTOUR_AREA_BORDER) != 0]
        assert len(flagged) == 1                       # one edge: the shared side
        assert {int(flagged[0, 0])} == {5}


def test_tile_border_is_taken_off_and_border_vertices_flagged():
    b = 3
    chf = two_regions_in_a_tile(b)
    cs = build_contours(chf, 1.3, 0)
    assert cs.width == 10 and cs.height == 8 and cs.border_size == b
    assert np.allclose(cs.bmin, chf.bmin + [b * chf.cs, 0, b * chf.cs])
    assert cs.verts[:, 0].min() == 0 and cs.verts[:, 0].max() == 10
    assert cs.verts[:, 2].min() == 0 and cs.verts[:, 2].max() == 8
    # Where regions 1 and 2 meet the tile's side: a vertex the mesh removes.
    flagged = {(int(v[0]), int(v[2])) for v in cs.verts if v[3] & CONTOUR_BORDER_VERTEX}
    assert flagged == {(5, 0), (5, 8)}


def test_lone_cell_regions_and_no_regions_give_no_contours():
    chf = chf_from_floors(np.zeros((4, 4), int))
    cs = build_contours(chf)                                  # regions not filled
    assert cs.count == 0 and cs.verts.shape == (0, 4) and cs.raw_verts.shape == (0, 4)
    cells = np.zeros((4, 4), int)
    cells[1, 1] = 1                                           # Recast skips a region of one cell
    assert build_contours(label_cells(chf, cells)).count == 0


def test_multi_floor_regions_trace_separately():
    floors = np.stack([np.zeros((10, 10), int), np.full((10, 10), -1)])
    floors[1, 2:8, 3:7] = 40                            # a platform high above
    chf = label_components(chf_from_floors(floors))
    cs = build_contours(chf, 1.3, 0)
    assert sorted(cs.regions.tolist()) == [1, 2]
    hi = [i for i in range(cs.count) if cs.ring(i)[:, 1].min() >= 40]
    assert len(hi) == 1
    assert {(int(v[0]), int(v[2])) for v in cs.ring(hi[0])} == {(3, 2), (7, 2), (7, 8), (3, 8)}
    lo = 1 - hi[0]
    assert (cs.ring(lo)[:, 1] == 0).all() and shoelace(cs.ring(lo)) == -200


# ---------------------------------------------------------------- bad input

def _small():
    return label_components(chf_from_floors(np.zeros((3, 4), int)))


def _with(chf, **changes):
    return dataclasses.replace(chf, **changes)


@pytest.mark.nojit
@pytest.mark.parametrize("change, fragment", [
    (lambda c: "not a heightfield", "expected a CompactHeightfield"),
    (lambda c: _with(c, width=-1), "width must be an integer >= 0"),
    (lambda c: _with(c, height=10 ** 400), "height must be an integer >= 0 .below 2..31."),
    (lambda c: _with(c, bmin=None), "bmin must be"),
    (lambda c: _with(c, bmin=[0, 1]), "bmin must be 3 finite numbers"),
    (lambda c: _with(c, cs=0), "cs must be a finite number > 0"),
    (lambda c: _with(c, ch="0.2"), "ch must be a finite number >= 0"),
    (lambda c: _with(c, width=5), "cell_index has 12 entries for 5 x 3 = 15 cells"),
    (lambda c: _with(c, border_size=2), "border_size 2 leaves no cells"),
    (lambda c: _with(c, neighbors=c.neighbors[:, :3]), "neighbors must be an integer array"),
    (lambda c: _with(c, neighbors=c.neighbors.astype(float)), "neighbors must be an integer"),
    (lambda c: _with(c, neighbors=np.where(c.neighbors == 5, 99, c.neighbors)),
     "is not a span index"),
    (lambda c: _with(c, neighbors=np.where(c.neighbors == 5, 7, c.neighbors)),
     "is not a span of the cell in direction"),
    (lambda c: _with(c, region=c.region[:-1]), "region has 11 rows for 12 spans"),
    (lambda c: _with(c, region=c.region + 0x10000), "region holds"),
    (lambda c: _with(c, area=c.area.astype(np.int64) + 300), "area holds"),
    (lambda c: _with(c, area=["a"] * 12), "area must be an integer array"),
    (lambda c: _with(c, y=None), "y must be an integer array"),
    (lambda c: _with(c, cell_count=c.cell_count * 2), "cells hold 24 spans in all"),
    (lambda c: _with(c, cell_index=np.zeros(12, np.int32)), "is listed by two cells"),
    (lambda c: _with(c, cell_index=c.cell_index + 1), "outside the 12 spans"),
    (lambda c: _with(c, cell_count=np.r_[-1, 2, c.cell_count[2:]].astype(np.int32)),
     "is negative"),
])
def test_bad_heightfield_is_a_graph_error(change, fragment):
    with pytest.raises(GraphError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        build_contours(change(_small()))


@pytest.mark.nojit
@pytest.mark.parametrize("kwargs, fragment", [
    ({"max_error": -1}, "max_error must be a finite number >= 0"),
    ({"max_error": math.nan}, "max_error must be a finite number >= 0"),
    ({"max_error": "1"}, "max_error must be a finite number >= 0"),
    ({"max_edge_len": 1.5}, "max_edge_len must be an integer >= 0"),
    ({"max_edge_len": -3}, "max_edge_len must be an integer >= 0"),
    ({"max_edge_len": 10 ** 400}, "max_edge_len must be an integer >= 0"),
    ({"max_error": 10 ** 400}, "max_error must be a finite number >= 0"),
    ({"flags": 4}, "flags must be CONTOUR_TESS_WALL_EDGES"),
    ({"flags": True}, "flags must be CONTOUR_TESS_WALL_EDGES"),
])
def test_bad_settings_are_graph_errors(kwargs, fragment):
    with pytest.raises(GraphError, match=fragment):
        build_contours(_small(), **kwargs)


def test_contour_set_is_flat_arrays():
    chf = label_components(chf_from_floors(disc(12, 5)))
    cs = build_contours(chf)
    assert isinstance(cs, ContourSet)
    assert cs.verts.dtype == np.int32 and cs.verts.shape[1] == 4
    assert cs.raw_verts.dtype == np.int32 and cs.raw_verts.shape[1] == 4
    for arr in (cs.vert_start, cs.vert_count, cs.raw_start, cs.raw_count, cs.regions):
        assert arr.dtype == np.int32 and arr.shape == (cs.count,)
    assert cs.areas.dtype == np.uint8
    assert (cs.vert_start + cs.vert_count).max() == len(cs.verts)
    assert (cs.raw_start + cs.raw_count).max() == len(cs.raw_verts)


@pytest.mark.parametrize("tile", TILES)
def test_matches_recast_vertex_for_vertex(tile):
    chf, want = recast_tile(tile)
    cs = build_contours(chf, want["max_error"], want["max_edge_len"])
    counts = want["contours"]
    assert cs.count == len(counts)
    assert cs.regions.tolist() == counts[:, 2].tolist()
    assert cs.areas.tolist() == counts[:, 3].tolist()
    assert cs.vert_count.tolist() == counts[:, 0].tolist()
    assert cs.raw_count.tolist() == counts[:, 1].tolist()
    assert np.array_equal(cs.verts, want["contour_verts"])
    assert np.array_equal(cs.raw_verts, want["contour_raw_verts"])
    assert (cs.verts[:, 3] & CONTOUR_BORDER_VERTEX).any()      # tile border vertices met


def test_hole_without_outline_is_kept_apart_with_a_warning(caplog):
    # An island of three regions inside region 1: with a huge max_error the
    # outline of 1 (walls only) shrinks below 3 vertices and is dropped, but
    # its hole ring keeps the vertices where the island's regions change.
    cells = np.ones((12, 12), int)
    cells[4:8, 3:5] = 2
    cells[4:8, 5:7] = 3
    cells[4:8, 7:9] = 4
    chf = label_cells(chf_from_floors(np.zeros((12, 12), int)), cells)
    with caplog.at_level("WARNING", logger="navcore"):
        cs = build_contours(chf, 100.0, 0)
    assert "1 hole(s) could not be joined to their region's outline" in caplog.text
    ones = rings_of(cs, 1)
    assert len(ones) == 1 and shoelace(cs.ring(ones[0])) > 0      # a hole's winding
