"""The partition stage of the level pipeline (navcore_levels.regions):
distance field, watershed and monotone regions, checked against
brute-force references and the invariants the contour stage relies on."""
from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from levelkit import chf_from_floors
from navcore.errors import CapacityError, GraphError
from navcore_levels import BORDER_REGION, CompactHeightfield, LevelConfig, WALKABLE_AREA
from navcore_levels._distance import chamfer_distance
from navcore_levels._region_filter import split_self_overlaps
from navcore_levels._watershed import watershed
from navcore_levels.heightfield import OPEN_TOP
from navcore_levels.regions import (build_distance_field, build_regions, build_regions_monotone,
                                    build_regions_watershed)

PARTITIONS = {"watershed": build_regions_watershed, "monotone": build_regions_monotone}


# --- inputs -------------------------------------------------------------------------------

def random_mask_floors(rng, height, width, keep=0.8, areas=False):
    """One floor at height 0 where a random (blobby) mask is set; with
    ``areas`` some cells get area ids 0 (unwalkable), 1 or 2."""
    mask = rng.random((height, width)) < keep
    # Blobs rather than salt: a cell stays open if most of its 3x3 block is.
    padded = np.pad(mask, 1)
    votes = sum(padded[1 + dz:1 + dz + height, 1 + dx:1 + dx + width]
                for dz in (-1, 0, 1) for dx in (-1, 0, 1))
    mask = votes >= 5
    floors = np.where(mask, 0, -1)
    area = np.full((height, width), WALKABLE_AREA)
    if areas:
        patch = rng.random((height, width))
        area[patch < 0.08] = 0
        area[(patch >= 0.08) & (patch < 0.2)] = 1
        area[(patch >= 0.2) & (patch < 0.3)] = 2
    return floors, area


def ramp_to_upper_floor():
    """Ground (height 0) over 16 x 30 cells; a floor at height 24 above the
    ground's west half (x 0..14, z 8..11), reached by a ramp climbing 4 a
    cell from the ground at x 21 to it at x 15."""
    floors = -np.ones((2, 16, 30), int)
    floors[0] = 0
    for x in range(15, 21):
        floors[0, 8:12, x] = 4 * (21 - x)
    floors[1, 8:12, 0:15] = 24
    return floors


def bridge_over_floor():
    """Ground over 16 x 30 cells and a bridge at height 20 over it (x 6..23,
    z 6..9) with a ramp down to the ground at each end."""
    floors = -np.ones((2, 16, 30), int)
    floors[0] = 0
    for x in range(1, 6):
        floors[0, 6:10, x] = 4 * x
    for x in range(24, 29):
        floors[0, 6:10, x] = 4 * (29 - x)
    floors[1, 6:10, 6:24] = 20
    return floors


def random_levels(rng, count):
    """Rough ground with holes plus one or two raised floors (flat or
    ramps climbing along x) placed at random, some over the ground."""
    for _ in range(count):
        height, width = rng.integers(8, 30, 2)
        layers = int(rng.integers(1, 4))
        floors = -np.ones((layers, height, width), int)
        ground = rng.random((height, width)) < rng.uniform(0.7, 0.95)
        rough = np.cumsum(rng.integers(-1, 2, (height, width)), axis=1) // 2 + 10
        floors[0][ground] = np.clip(rough[ground], 0, 100)
        for layer in range(1, layers):
            z0, z1 = sorted(rng.integers(0, height, 2))
            x0, x1 = sorted(rng.integers(0, width, 2))
            climb = int(rng.integers(2, 4)) if rng.random() < 0.5 else 0
            for x in range(x0, x1 + 1):
                floors[layer, z0:z1 + 1, x] = 10 + 12 * layer + (x - x0) * climb
        yield floors


def chf_of(floors, areas=None, **options):
    """``chf_from_floors`` with 2-d ``areas`` (one floor) allowed."""
    if areas is not None and np.ndim(areas) == 2:
        areas = np.asarray(areas)[None]
    return chf_from_floors(floors, areas=areas, **options)


# --- references and invariants --------------------------------------------------------------

def brute_force_chamfer(walk_area):
    """Chamfer distance (2 straight, 3 diagonal) from every walkable cell of
    ``walk_area`` (area id, -1 where no span is) to the nearest edge cell:
    one whose 4 neighbours are not all present with its own area id."""
    height, width = walk_area.shape
    cells = np.argwhere(walk_area >= 0)
    edge = []
    for z, x in cells:
        for dz, dx in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            nz, nx = z + dz, x + dx
            if not (0 <= nz < height and 0 <= nx < width) or walk_area[nz, nx] != walk_area[z, x]:
                edge.append((z, x))
                break
    edge = np.array(edge)
    d = np.abs(cells[:, None, :] - edge[None, :, :])
    return (2 * d.max(axis=2) + d.min(axis=2)).min(axis=1)


def reference_blur(chf, field):
    """Recast's 3x3 box blur, spelled out: spans within 2 of the edge keep
    their distance; a missing neighbour counts as the span itself."""
    out = field.astype(np.int64).copy()
    for s in range(chf.span_count):
        own = int(field[s])
        if own <= 2:
            continue
        total = own
        for d in range(4):
            t = chf.neighbors[s, d]
            if t < 0:
                total += 2 * own
                continue
            total += int(field[t])
            u = chf.neighbors[t, (d + 1) % 4]
            total += own if u < 0 else int(field[u])
        out[s] = (total + 5) // 9
    return out


def span_cells(chf):
    cell = np.repeat(np.arange(chf.width * chf.height), chf.cell_count)
    order = np.repeat(chf.cell_index, chf.cell_count) + (
        np.arange(chf.span_count) - np.repeat(np.cumsum(chf.cell_count) - chf.cell_count,
                                              chf.cell_count))
    out = np.empty(chf.span_count, np.int64)
    out[order] = cell
    return out


def components(chf, spans, same):
    """Connected pieces of ``spans`` (bool per span) through ``neighbors``
    (either direction) where ``same(s, t)`` holds."""
    parent = np.arange(chf.span_count)

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for s in np.flatnonzero(spans):
        for t in chf.neighbors[s]:
            if t >= 0 and spans[t] and same(s, t):
                parent[find(s)] = find(t)
    pieces = defaultdict(list)
    for s in np.flatnonzero(spans):
        pieces[find(s)].append(s)
    return list(pieces.values())


def check_invariants(chf, min_region_area):
    region, area = chf.region, chf.area
    walkable = area != 0
    inner = (region & BORDER_REGION) == 0
    assert (region[~walkable] == 0).all(), "an unwalkable span got a region"
    assert region[inner].max(initial=0) <= chf.max_region
    # A walkable piece smaller than min_region_area is dropped; one of a
    # single area at least that big is covered. (Recast counts a group's
    # size through the regions met around each region's outline, so a
    # small patch of another area inside a region may go either way.)
    for piece in components(chf, walkable, lambda s, t: True):
        if len(piece) < min_region_area:
            assert (region[piece] == 0).all(), f"a piece of {len(piece)} spans kept a region"
    for piece in components(chf, walkable, lambda s, t: area[s] == area[t]):
        if len(piece) >= min_region_area:
            assert (region[piece] > 0).all(), f"a piece of {len(piece)} spans lost spans"
    # Each region: one area, 4-connected, at most one span per cell.
    cells = span_cells(chf)
    labelled = (region > 0) & inner
    for r in np.unique(region[labelled]):
        members = region == r
        assert len(np.unique(area[members])) == 1, f"region {r} mixes area ids"
        assert len(components(chf, members, lambda s, t: True)) == 1, \
            f"region {r} is not 4-connected"
        assert len(np.unique(cells[members])) == members.sum(), \
            f"region {r} holds two spans of one cell"


def regions_of(chf, partition, min_area, merge_area):
    if partition == "watershed":
        build_regions_watershed(chf, min_area, merge_area, max_distance=build_distance_field(chf))
    else:
        build_regions_monotone(chf, min_area, merge_area)
    return chf.region


# --- distance field ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_distance_field_is_the_chamfer_distance_to_the_edge(seed):
    rng = np.random.default_rng(seed)
    floors, area = random_mask_floors(rng, 14, 19, areas=seed % 2 == 1)
    chf = chf_of(floors, area)
    walk_area = np.where(floors >= 0, area, -1)
    expected = brute_force_chamfer(walk_area)      # spans are in cell order: one per cell
    raw = np.empty(chf.span_count, np.uint16)
    largest = chamfer_distance(chf.cell_index, chf.cell_count, chf.neighbors, chf.area, raw)
    np.testing.assert_array_equal(raw, expected)
    assert largest == expected.max()
    # The public call blurs it and returns the largest distance before the blur.
    assert build_distance_field(chf) == expected.max()
    np.testing.assert_array_equal(chf.dist, reference_blur(chf, expected))


# --- invariants of both partitions ------------------------------------------------------------

@pytest.mark.parametrize("partition", ["watershed", "monotone"])
@pytest.mark.parametrize("seed", range(4))
def test_regions_on_random_single_floor_masks(partition, seed):
    rng = np.random.default_rng(100 + seed)
    floors, area = random_mask_floors(rng, 24, 30, keep=0.75, areas=seed >= 2)
    chf = chf_of(floors, area)
    regions_of(chf, partition, 6, 20)
    check_invariants(chf, 6)


@pytest.mark.parametrize("partition", ["watershed", "monotone"])
@pytest.mark.parametrize("level", [ramp_to_upper_floor, bridge_over_floor])
def test_regions_stay_on_one_floor(partition, level):
    chf = chf_from_floors(level())
    for min_area, merge_area in ((0, 0), (8, 20), (64, 400)):
        regions_of(chf, partition, min_area, merge_area)
        check_invariants(chf, min_area)
    # Both floors are walkable above the same cells, in different regions.
    assert chf.max_region >= 2


@pytest.mark.parametrize("partition", ["watershed", "monotone"])
def test_regions_on_random_multi_floor_levels(partition):
    rng = np.random.default_rng(7)
    for floors in random_levels(rng, 12):
        chf = chf_from_floors(floors)
        regions_of(chf, partition, 4, 30)
        check_invariants(chf, 4)


def test_watershed_splits_a_region_that_covers_a_cell_twice():
    """On this level the raw flood climbs a ramp and comes back above
    itself (Recast would report an overlapping region and keep it); the
    regions handed on hold one span per cell."""
    floors = next(random_levels(np.random.default_rng(24), 1))
    chf = chf_from_floors(floors)
    largest = build_distance_field(chf)
    raw = np.empty(chf.span_count, np.int32)
    watershed(chf.cell_index, chf.cell_count, chf.width, chf.height, 0, chf.neighbors,
              chf.area, chf.dist, largest, raw)
    cells = span_cells(chf)
    assert any(len(np.unique(cells[raw == r])) < (raw == r).sum()
               for r in np.unique(raw[raw > 0])), "the raw flood no longer overlaps itself"
    for min_area, merge_area in ((0, 0), (4, 30), (64, 400)):
        build_regions_watershed(chf, min_area, merge_area, max_distance=largest)
        check_invariants(chf, min_area)


@pytest.mark.nojit
def test_split_gives_single_floor_pieces():
    """A raw region that took a ramp up and came back above itself is cut
    into pieces that each hold one span per cell and stay connected."""
    chf = chf_from_floors(ramp_to_upper_floor())
    region = np.ones(chf.span_count, np.int32)
    next_id = split_self_overlaps(chf.cell_index, chf.cell_count, chf.neighbors, region, 2)
    assert next_id > 2
    cells = span_cells(chf)
    assert sorted(np.unique(region)) == list(range(1, next_id))
    for r in range(1, next_id):
        members = region == r
        assert len(np.unique(cells[members])) == members.sum()
        assert len(components(chf, members, lambda s, t: True)) == 1
    # A labelling with no overlap is left alone.
    flat = chf_from_floors(np.zeros((5, 6), int))
    single = np.ones(flat.span_count, np.int32)
    assert split_self_overlaps(flat.cell_index, flat.cell_count, flat.neighbors, single, 2) == 2
    assert (single == 1).all()


@pytest.mark.parametrize("partition", ["watershed", "monotone"])
def test_areas_never_share_a_region(partition):
    floors = np.zeros((12, 16), int)
    area = np.full(floors.shape, WALKABLE_AREA)
    area[4:8, 5:9] = 3                       # a patch of another area inside the room
    chf = chf_of(floors, area)
    regions_of(chf, partition, 0, 1000)      # merging everything that may merge
    patch = chf.area == 3
    assert len(np.unique(chf.region[patch])) == 1
    assert not np.isin(chf.region[~patch], chf.region[patch]).any()
    check_invariants(chf, 0)


def teeth_level(tooth_area=WALKABLE_AREA):
    """A bar 4 x 21 cells with two teeth of 3 x 3 cells on its far side:
    the monotone sweep gives the bar one region and each tooth its own
    (a run touching a region that another run touches too starts anew)."""
    floors = -np.ones((7, 21), int)
    floors[0:4, :] = 0
    floors[4:7, 0:3] = 0
    floors[4:7, 10:13] = 0
    area = np.full(floors.shape, WALKABLE_AREA)
    area[4:7, 10:13] = tooth_area
    return chf_of(floors, area)


@pytest.mark.nojit
def test_small_regions_merge_into_their_neighbour():
    chf = teeth_level()
    # Teeth of 9 spans: kept apart when 9 exceeds the merge size ...
    build_regions_monotone(chf, 0, 8)
    assert len(np.unique(chf.region)) == 3
    # ... merged into the bar when it does not.
    build_regions_monotone(chf, 0, 9)
    assert len(np.unique(chf.region)) == 1
    # A tooth of another area cannot merge.
    chf = teeth_level(tooth_area=5)
    build_regions_monotone(chf, 0, 9)
    assert len(np.unique(chf.region)) == 2
    check_invariants(chf, 0)
    # Too small in all (84 + 9 + 9 spans < 103): dropped.
    build_regions_monotone(chf, 103, 0)
    assert (chf.region == 0).all()


def test_monotone_regions_are_runs_along_x():
    """Before any merge (merge area 0, one area: every run ends at a wall,
    so no region merges) each region meets each row in one run of spans
    linked along -x."""
    rng = np.random.default_rng(3)
    levels = [random_mask_floors(rng, 20, 26, keep=0.7)[0] for _ in range(3)]
    for floors in levels + [ramp_to_upper_floor(), bridge_over_floor()]:
        chf = chf_from_floors(floors)
        build_regions_monotone(chf, 0, 0)
        cells = span_cells(chf)
        x, z = cells % chf.width, cells // chf.width
        for r in np.unique(chf.region[chf.region > 0]):
            for row in np.unique(z[chf.region == r]):
                spans = np.flatnonzero((chf.region == r) & (z == row))
                spans = spans[np.argsort(x[spans])]
                assert (np.diff(x[spans]) == 1).all(), f"region {r} breaks row {row}"
                assert (chf.neighbors[spans[1:], 0] == spans[:-1]).all()


def test_corridor_splits_two_rooms():
    """Two 24 x 24 rooms joined by a 1-cell corridor: the watershed floods
    each room from its own ridge, with RecastDemo's settings."""
    floors = -np.ones((24, 56), int)
    floors[:, 0:24] = 0
    floors[:, 32:56] = 0
    floors[11, 24:32] = 0
    chf = chf_from_floors(floors)
    assert build_regions(chf, LevelConfig()) >= 2
    left = chf.region[span_cells(chf) % 56 < 24]
    right = chf.region[span_cells(chf) % 56 >= 32]
    assert not np.isin(left, right).any()
    check_invariants(chf, LevelConfig().min_region_area)


@pytest.mark.parametrize("partition", ["watershed", "monotone"])
def test_narrow_corridors_get_regions(partition):
    """A straight corridor two cells wide and a bent one a cell wide:
    every span is on an edge (distance 0 everywhere), where Recast's
    watershed would flood nothing."""
    floors = -np.ones((12, 14), int)
    floors[2:4, 1:13] = 0
    floors[6, 1:13] = 0
    floors[7:11, 12] = 0
    chf = chf_from_floors(floors)
    assert build_distance_field(chf) == 0
    regions_of(chf, partition, 8, 20)
    assert (chf.region > 0).all()
    check_invariants(chf, 8)


def isolated_spans(width, height):
    """A chequerboard of single walkable cells, none joined to another."""
    open_cells = ((np.arange(width)[None, :] + np.arange(height)[:, None]) % 2 == 0).ravel()
    count = open_cells.astype(np.int32)
    spans = int(count.sum())
    return CompactHeightfield(
        width=width, height=height, border_size=0, walkable_height=10, walkable_climb=4,
        bmin=np.zeros(3), cs=0.3, ch=0.2, cell_index=(np.cumsum(count) - count).astype(np.int32),
        cell_count=count, y=np.zeros(spans, np.int32), h=np.full(spans, OPEN_TOP, np.int32),
        neighbors=np.full((spans, 4), -1, np.int32),
        area=np.full(spans, WALKABLE_AREA, np.uint8), dist=np.zeros(spans, np.uint16),
        region=np.zeros(spans, np.int32))


@pytest.mark.parametrize("partition", ["watershed", "monotone"])
def test_more_regions_than_ids_is_a_capacity_error(partition):
    """Region ids must stay below BORDER_REGION (32768): 32768 lone spans
    kept as regions do not fit, and the heightfield is left as it was."""
    chf = isolated_spans(256, 256)
    with pytest.raises(CapacityError, match="at most 32767 fit"):
        regions_of(chf, partition, 0, 0)
    assert (chf.region == 0).all() and chf.max_region == 0
    # With fewer, each lone span is its own region.
    small = isolated_spans(40, 30)
    regions_of(small, partition, 0, 0)
    assert len(np.unique(small.region)) == small.span_count


@pytest.mark.parametrize("partition", ["watershed", "monotone"])
def test_empty_and_single_cell_levels(partition):
    for floors in (-np.ones((3, 4), int), np.zeros((0, 0), int)):
        chf = chf_from_floors(floors)
        regions_of(chf, partition, 0, 0)
        assert chf.region.shape == (0,)
    chf = chf_from_floors(np.zeros((1, 1), int))
    regions_of(chf, partition, 0, 0)
    assert chf.region.tolist() == [1]
    regions_of(chf, partition, 2, 0)
    assert chf.region.tolist() == [0]


@pytest.mark.parametrize("partition", ["watershed", "monotone"])
def test_scratch_beyond_memory_is_a_capacity_error(partition, monkeypatch):
    import navcore.limits
    chf = chf_from_floors(np.zeros((6, 6), int))
    monkeypatch.setattr(navcore.limits, "available_memory", lambda: 1000)
    with pytest.raises(CapacityError, match="of 36 spans needs about"):
        regions_of(chf, partition, 0, 0)
    assert (chf.region == 0).all()


def test_build_regions_dispatches_on_the_partition():
    rng = np.random.default_rng(5)
    chf = chf_from_floors(random_mask_floors(rng, 16, 18)[0])
    config = LevelConfig(partition="monotone", region_min_size=2, region_merge_size=3)
    count = build_regions(chf, config)
    expected = chf.region.copy()
    assert build_regions_monotone(chf, 4, 9, 0) == count
    np.testing.assert_array_equal(chf.region, expected)
    count = build_regions(chf, LevelConfig(region_min_size=2, region_merge_size=3))
    expected = chf.region.copy()
    build_distance_field(chf)
    assert build_regions_watershed(chf, 4, 9) == count      # max distance computed again
    np.testing.assert_array_equal(chf.region, expected)


@pytest.mark.parametrize("partition", ["watershed", "monotone"])
def test_tile_border_regions(partition):
    """Spans in a tile's padding get border regions; a small piece that
    touches the padding is kept (it may go on in the next tile), one
    inside the tile is dropped."""
    floors = -np.ones((20, 20), int)
    floors[:, 0:12] = 0                      # touches the padding on three sides
    floors[5:7, 15:17] = 0                   # 4 spans, inside the tile
    floors[0:3, 18:20] = 0                   # 6 spans, inside the padding
    floors[10:12, 15:18] = 0                 # 4 spans inside, 2 in the padding
    chf = chf_from_floors(floors, border_size=3)
    regions_of(chf, partition, 20, 0)
    cells = span_cells(chf)
    x, z = cells % 20, cells // 20
    padding = (x < 3) | (x >= 17) | (z < 3) | (z >= 17)
    assert (chf.region[padding] & BORDER_REGION).all()
    assert set(np.unique(chf.region[padding] & ~BORDER_REGION)) <= {1, 2, 3, 4}
    inside = ~padding
    assert (chf.region[inside & (x < 12)] > 0).all()
    assert not (chf.region[inside & (x < 12)] & BORDER_REGION).any()
    assert (chf.region[(x >= 15) & (x < 17) & (z >= 5) & (z < 7)] == 0).all()
    kept = (x >= 15) & (x < 17) & (z >= 10) & (z < 12)
    assert kept.sum() == 4 and (chf.region[kept] > 0).all()
    assert not (chf.region[kept] & BORDER_REGION).any()
    assert chf.border_size == 3


# --- bad input ------------------------------------------------------------------------------

def small_chf():
    return chf_from_floors(np.zeros((4, 5), int))


@pytest.mark.nojit
@pytest.mark.parametrize("breakage, fragment", [
    (lambda c: setattr(c, "area", np.where(np.arange(c.span_count) == 3, -1, 63)),
     "span 3 has -1"),
    (lambda c: setattr(c, "area", c.area.astype(np.int32)), "chf.area must have dtype uint8"),
    (lambda c: setattr(c, "neighbors", c.neighbors[:, :3].copy()),
     "chf.neighbors must have shape"),
    (lambda c: setattr(c, "neighbors", c.neighbors.astype(np.int64)),
     "chf.neighbors must have dtype int32"),
    (lambda c: setattr(c, "region", list(c.region)), "chf.region must be a numpy int32 array"),
    (lambda c: c.neighbors.__setitem__((3, 2), 99), "chf.neighbors[3, 2] is 99"),
    (lambda c: c.neighbors.__setitem__((3, 2), 0), "is not a span of the cell next to"),
    (lambda c: c.cell_index.__setitem__(2, 1), "belongs to cell 2 and to another cell"),
    (lambda c: c.cell_count.__setitem__(0, -1), "chf.cell_count[0] is -1"),
    (lambda c: c.cell_count.__setitem__(19, 0), "span 19 belongs to no cell"),
    (lambda c: setattr(c, "width", 4.0), "chf.width must be a whole number"),
    (lambda c: setattr(c, "y", None), "chf.y must be a 1-d array"),
    (lambda c: c.region.setflags(write=False), "chf.region is read-only"),
])
def test_bad_heightfield_is_a_graph_error(breakage, fragment):
    for call in (build_distance_field, lambda c: build_regions_watershed(c, 0, 0),
                 lambda c: build_regions_monotone(c, 0, 0),
                 lambda c: build_regions(c, LevelConfig())):
        chf = small_chf()
        breakage(chf)
        before = None if not isinstance(chf.region, np.ndarray) else chf.region.copy()
        with pytest.raises(GraphError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
            call(chf)
        if before is not None:
            np.testing.assert_array_equal(chf.region, before)   # left unchanged


@pytest.mark.parametrize("partition", ["watershed", "monotone"])
def test_region_sizes_beyond_int64_mean_everything(partition):
    chf = small_chf()
    regions_of(chf, partition, 10 ** 30, 0)
    assert (chf.region == 0).all()
    regions_of(chf, partition, 0, 10 ** 30)
    assert (chf.region == 1).all()


@pytest.mark.parametrize("call, fragment", [
    (lambda c: build_regions_watershed(c, -1, 0), "min_region_area must be a whole number"),
    (lambda c: build_regions_watershed(c, 0, 2.5), "merge_region_area must be a whole number"),
    (lambda c: build_regions_monotone(c, True, 0), "min_region_area must be a whole number"),
    (lambda c: build_regions_monotone(c, 0, 0, -2), "border_size must be a whole number"),
    (lambda c: build_regions_watershed(c, 0, 0, max_distance=-3), "max_distance must be"),
    (lambda c: build_regions_monotone(c, 0, 0, 10 ** 30), "is wider than the 5 x 4 grid"),
    (lambda c: build_regions(c, {"partition": "watershed"}), "config must be a LevelConfig"),
    (lambda c: build_distance_field("chf"), "chf must be a CompactHeightfield, got str"),
])
def test_bad_arguments_are_graph_errors(call, fragment):
    chf = small_chf()
    chf.region[:] = 7
    with pytest.raises(GraphError, match=fragment):
        call(chf)
    assert (chf.region == 7).all() and chf.max_region == 0
