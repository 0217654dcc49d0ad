"""The voxel stages against independent truths: a per-cell clipping
reference for rasterization, hand-made levels for slope, climb, clearance
and erosion (a brute-force chamfer distance), ``chf_from_floors`` for
compaction, Recast's own counts on nav_test.obj, and every bad input as
a NavError."""
import math
from pathlib import Path

import numpy as np
import pytest

from levelkit import chf_from_floors
from navcore import limits
from navcore.errors import CapacityError, GraphError
from navcore_levels import LevelConfig
from navcore_levels.heightfield import OPEN_TOP, WALKABLE_AREA
from navcore_levels.levelfile import load_level
from navcore_levels.voxels import (Heightfield, compact, erode, filter_walkable, grid_size,
                                   mark_box_area, mark_convex_area, mark_cylinder_area,
                                   mark_walkable, rasterize)

LEVELS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "levels"


# ---------------------------------------------------------------- helpers

def quad(x0, z0, x1, z1, y0, y1=None, up=True):
    """Two triangles over [x0, x1] x [z0, z1], rising from y0 at x0 to y1
    at x1; wound to face up (or down)."""
    y1 = y0 if y1 is None else y1
    v = [(x0, y0, z0), (x0, y0, z1), (x1, y1, z1), (x1, y1, z0)]
    t = [(0, 1, 2), (0, 2, 3)] if up else [(0, 2, 1), (0, 3, 2)]
    return v, t


def join(*parts):
    verts, tris = [], []
    for v, t in parts:
        tris += [tuple(i + len(verts) for i in tri) for tri in t]
        verts += v
    return np.array(verts, float), np.array(tris, np.int32)


def build(verts, tris, cfg, radius=None):
    areas = mark_walkable(verts, tris, cfg)
    hf = filter_walkable(rasterize(verts, tris, areas, cfg), cfg)
    chf = compact(hf, cfg)
    return chf if radius is None else erode(chf, radius)


def cell_spans(chf, x, z):
    c = x + z * chf.width
    return range(chf.cell_index[c], chf.cell_index[c] + chf.cell_count[c])


# ------------------------------------------- rasterization vs a reference

def clip_to_cell(poly, x0, x1, z0, z1):
    """Sutherland-Hodgman clip of a polygon (list of (x, y, z)) to the
    closed square [x0, x1] x [z0, z1]."""
    for axis, bound, keep_low in ((0, x1, True), (0, x0, False), (2, z1, True),
                                  (2, z0, False)):
        out = []
        for i, cur in enumerate(poly):
            prev = poly[i - 1]
            cur_in = cur[axis] <= bound if keep_low else cur[axis] >= bound
            prev_in = prev[axis] <= bound if keep_low else prev[axis] >= bound
            if cur_in != prev_in:
                s = (bound - prev[axis]) / (cur[axis] - prev[axis])
                out.append(tuple(p + (c - p) * s for p, c in zip(prev, cur)))
            if cur_in:
                out.append(cur)
        poly = out
        if not poly:
            break
    return poly


def reference_columns(verts, tris, cs, ch):
    """{cell: set of occupied voxel heights}: each triangle clipped to each
    cell's square; the piece's lowest and highest y, floored and ceiled
    to cell heights, fill the voxels between."""
    v32 = np.asarray(verts, np.float32).astype(np.float64)
    lo, hi = v32.min(axis=0), v32.max(axis=0)
    width, height = grid_size(lo, hi, cs)
    cells = {}
    for tri in tris:
        poly = [tuple(v32[i]) for i in tri]
        for z in range(height):
            for x in range(width):
                x0, z0 = lo[0] + x * cs, lo[2] + z * cs
                piece = clip_to_cell(poly, x0, x0 + cs, z0, z0 + cs)
                if len(piece) < 3:
                    continue
                ys = [p[1] - lo[1] for p in piece]
                bottom = math.floor(min(ys) / ch)
                top = max(math.ceil(max(ys) / ch), bottom + 1)
                cells.setdefault(x + z * width, set()).update(range(bottom, top))
    return width, height, cells


def runs(voxels):
    """Maximal runs [a, b) of a set of voxel heights."""
    out, start, prev = [], None, None
    for v in sorted(voxels):
        if start is None:
            start = v
        elif v != prev + 1:
            out.append((start, prev + 1))
            start = v
        prev = v
    if start is not None:
        out.append((start, prev + 1))
    return out


def check_against_reference(seed, count, size):
    rng = np.random.default_rng(seed)
    verts = rng.uniform(0, size, (3 * count, 3))
    tris = np.arange(3 * count, dtype=np.int32).reshape(count, 3)
    cfg = LevelConfig(cell_size=0.3, cell_height=0.2)
    hf = rasterize(verts, tris, np.full(count, WALKABLE_AREA, np.uint8), cfg)
    width, height, cells = reference_columns(verts, tris, 0.3, 0.2)
    assert (hf.width, hf.height) == (width, height)
    for c in range(width * height):
        mine = hf.column(c % width, c // width)
        assert [tuple(r) for r in mine[:, :2].tolist()] == runs(cells.get(c, ())), c
        assert (mine[:, 2] == WALKABLE_AREA).all()


@pytest.mark.nojit
def test_rasterize_small_soup_equals_per_cell_clipping():
    check_against_reference(seed=0, count=3, size=1.2)


@pytest.mark.parametrize("seed", range(4))
def test_rasterize_random_soups_equal_per_cell_clipping(seed):
    check_against_reference(seed=seed + 1, count=12, size=3.0)


def test_flag_merge_keeps_the_walkable_top_of_a_merged_span():
    cfg = LevelConfig()
    # a floor at y=1 and a steep wall from y=0 to y=1.05 in the same cells:
    # their spans merge; the wall's top is within walkable_climb of the
    # floor's, so the merged span keeps the floor's walkable area
    floor_v, floor_t = quad(0, 0, 3, 3, 1.0)
    wall_v = [(1.5, 0.0, 0.0), (1.5, 1.05, 0.0), (1.5, 1.05, 3.0), (1.5, 0.0, 3.0)]
    verts, tris = join((floor_v, floor_t), (wall_v, [(0, 1, 2), (0, 2, 3)]))
    areas = mark_walkable(verts, tris, cfg)
    assert areas.tolist() == [WALKABLE_AREA, WALKABLE_AREA, 0, 0]
    hf = rasterize(verts, tris, areas, cfg)
    x = int((1.5 - 0.0) / 0.3)
    column = hf.column(x, 5)
    assert len(column) == 1 and column[0, 2] == WALKABLE_AREA


# ------------------------------------------------------ hand-made levels

@pytest.mark.parametrize("degrees, walkable", [(30, True), (44, True), (46, False), (60, False)])
def test_ramp_walkable_below_max_slope_only(degrees, walkable):
    rise = 3 * math.tan(math.radians(degrees))
    verts, tris = join(quad(0, 0, 3, 3, 0.0, rise))
    cfg = LevelConfig(agent_radius=0)
    areas = mark_walkable(verts, tris, cfg)
    assert (areas == (WALKABLE_AREA if walkable else 0)).all()
    chf = build(verts, tris, cfg)
    # the ramp's middle cells stand on walkable spans only when it is gentle
    middle = [s for z in range(3, 7) for x in range(3, 7) for s in cell_spans(chf, x, z)]
    assert (len(middle) > 0) == walkable


def test_downward_faces_are_not_walkable():
    verts, tris = join(quad(0, 0, 3, 3, 0.0, up=False))
    assert (mark_walkable(verts, tris, LevelConfig()) == 0).all()


@pytest.mark.parametrize("step, linked", [(0.4, True), (0.8, True), (1.6, False)])
def test_step_within_agent_climb_keeps_the_link(step, linked):
    # a floor at y=0 for x in [0, 3], another at y=step for x in [3, 6]
    cfg = LevelConfig(agent_radius=0)
    verts, tris = join(quad(0, 0, 3, 3, 0.0), quad(3, 0, 6, 3, step))
    chf = build(verts, tris, cfg)
    assert chf.width == 20
    crossings = 0
    for z in range(2, 8):
        for x in range(chf.width - 1):
            for s in cell_spans(chf, x, z):
                t = chf.neighbors[s, 2]
                if t >= 0 and chf.y[t] != chf.y[s]:
                    crossings += 1
                    assert abs(int(chf.y[t]) - int(chf.y[s])) <= cfg.walkable_climb
    assert (crossings > 0) == linked


def test_low_ceiling_removes_the_floor_under_it():
    cfg = LevelConfig(agent_radius=0)
    floor = quad(0, 0, 6, 3, 0.0)
    low = quad(0.9, 0, 2.7, 3, 1.0, up=False)        # 5 cells high: less than 10
    high = quad(3.3, 0, 5.1, 3, 2.4, up=False)       # 12 cells high: room
    chf = build(*join(floor, low, high), cfg)
    for z in range(2, 8):
        for x in range(4, 8):        # cells wholly under the low ceiling
            assert len(cell_spans(chf, x, z)) == 0
        for x in range(12, 16):      # under the high one: one floor, 12 high
            spans = list(cell_spans(chf, x, z))
            assert len(spans) == 1 and chf.h[spans[0]] >= cfg.walkable_height


def test_filter_flags_and_inputs_unchanged():
    cfg = LevelConfig()
    verts, tris = join(quad(0, 0, 3, 3, 0.0))
    hf = rasterize(verts, tris, mark_walkable(verts, tris, cfg), cfg)
    before = hf.area.copy()
    kept = filter_walkable(hf, cfg, ledges=False)
    assert (kept.area == before).all()                  # a flat floor: only ledges go
    edged = filter_walkable(hf, cfg)
    assert (hf.area == before).all()
    assert (edged.area == 0).sum() == 36                # the ring at the grid's edge


def chamfer_reference(walkable):
    """Per cell of a one-floor level: the chamfer distance (2 straight, 3
    diagonal) to the nearest boundary cell (walkable, with a 4-neighbour
    outside the walkable set), by brute force."""
    height, width = walkable.shape
    boundary = []
    for z in range(height):
        for x in range(width):
            if not walkable[z, x]:
                continue
            for dx, dz in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                nx, nz = x + dx, z + dz
                if not (0 <= nx < width and 0 <= nz < height) or not walkable[nz, nx]:
                    boundary.append((x, z))
                    break
    b = np.array(boundary)
    dist = np.full(walkable.shape, -1)
    for z in range(height):
        for x in range(width):
            if walkable[z, x]:
                dx, dz = np.abs(b[:, 0] - x), np.abs(b[:, 1] - z)
                dist[z, x] = (2 * np.maximum(dx, dz) + np.minimum(dx, dz)).min()
    return dist


@pytest.mark.parametrize("seed, radius", [(0, 1), (1, 2), (2, 3)])
def test_erosion_keeps_spans_radius_cells_from_the_edge(seed, radius):
    rng = np.random.default_rng(seed)
    cfg = LevelConfig(agent_radius=0)
    parts = [quad(0, 0, 9, 9, 0.0)]
    for _ in range(4):
        # a slab 0.5 above the floor: no room under it, so the floor gets a
        # hole there (the slab's top, another floor, is set aside below)
        x0, z0 = rng.uniform(1, 7, 2)
        w, d = rng.uniform(0.4, 1.5, 2)
        parts.append(quad(x0, z0, x0 + w, z0 + d, 0.5))
    chf = build(*join(*parts), cfg)
    walkable = np.zeros((chf.height, chf.width), bool)
    for z in range(chf.height):
        for x in range(chf.width):
            spans = list(cell_spans(chf, x, z))
            assert len(spans) <= 1
            walkable[z, x] = bool(spans) and chf.area[spans[0]] != 0 and chf.y[spans[0]] == 1
    # the slabs' tops are walkable too; keep the floor only
    floor_only = chf
    for z in range(chf.height):
        for x in range(chf.width):
            for s in cell_spans(chf, x, z):
                if chf.y[s] != 1:
                    floor_only.area[s] = 0
    eroded = erode(floor_only, radius)
    dist = chamfer_reference(walkable)
    for z in range(chf.height):
        for x in range(chf.width):
            spans = list(cell_spans(eroded, x, z))
            kept = bool(spans) and eroded.area[spans[0]] != 0
            assert kept == (walkable[z, x] and dist[z, x] >= 2 * radius), (x, z)
    assert walkable.sum() > (eroded.area != 0).sum() > 0


def test_erode_zero_radius_changes_nothing():
    chf = build(*join(quad(0, 0, 3, 3, 0.0)), LevelConfig())
    assert (erode(chf, 0).area == chf.area).all()


# ----------------------------------------------- compaction vs levelkit

def stacked_heightfield(floors, areas):
    """A Heightfield whose cells hold one solid span [y-1, y) per floor."""
    layers, height, width = floors.shape
    start, smin, smax, area = [0], [], [], []
    for z in range(height):
        for x in range(width):
            for k in range(layers):
                if floors[k, z, x] >= 0:
                    smin.append(floors[k, z, x] - 1)
                    smax.append(floors[k, z, x])
                    area.append(areas[k, z, x])
            start.append(len(smin))
    return Heightfield(width=width, height=height, bmin=np.zeros(3), bmax=np.ones(3),
                       cs=0.3, ch=0.2, column_start=np.array(start, np.int32),
                       smin=np.array(smin, np.int32), smax=np.array(smax, np.int32),
                       area=np.array(area, np.uint8))


def random_floors(rng, layers, height, width):
    """Floor heights bottom-up per cell, gaps of 2..24, some missing."""
    gaps = rng.integers(2, 25, (layers, height, width))
    floors = np.cumsum(gaps, axis=0)
    floors[rng.random(floors.shape) < 0.3] = -1
    return np.sort(np.where(floors < 0, 10 ** 6, floors), axis=0).__array__()


def check_compact(seed, layers, height, width):
    rng = np.random.default_rng(seed)
    floors = random_floors(rng, layers, height, width)
    floors[floors == 10 ** 6] = -1
    # sorted with the missing ones last: each cell's floors stay bottom-up
    areas = rng.integers(1, 64, floors.shape)
    cfg = LevelConfig(agent_height=1.2, agent_climb=0.8)      # 6 high, 4 climb
    chf = compact(stacked_heightfield(floors, areas), cfg)
    # a solid span is one cell thick, so the open space above a floor is one
    # less than the distance to the next floor that chf_from_floors sees;
    # ask it for one more cell of room and the links are the same
    ref = chf_from_floors(floors, walkable_height=cfg.walkable_height + 1,
                          walkable_climb=cfg.walkable_climb, areas=areas)
    assert (chf.cell_index == ref.cell_index).all() and (chf.cell_count == ref.cell_count).all()
    assert (chf.y == ref.y).all() and (chf.area == ref.area).all()
    assert (chf.h == np.where(ref.h == OPEN_TOP, OPEN_TOP, ref.h - 1)).all()
    assert (chf.neighbors == ref.neighbors).all()
    assert chf.walkable_height == cfg.walkable_height and chf.span_count == ref.span_count


@pytest.mark.nojit
def test_compact_small_stack_equals_chf_from_floors():
    check_compact(0, layers=2, height=3, width=4)


@pytest.mark.parametrize("seed", range(3))
def test_compact_stacked_floors_equal_chf_from_floors(seed):
    check_compact(seed + 1, layers=4, height=9, width=11)


# ------------------------------------------------------------ area marks

def flat_chf():
    return build(*join(quad(0, 0, 6, 6, 0.0)), LevelConfig(agent_radius=0))


def centres(chf):
    """(x, z) world centre of every span's cell."""
    cols = np.repeat(np.arange(chf.width * chf.height), chf.cell_count)
    return (chf.bmin[0] + (cols % chf.width + 0.5) * chf.cs,
            chf.bmin[2] + (cols // chf.width + 0.5) * chf.cs)


def test_mark_convex_area_marks_cells_whose_centre_is_inside():
    chf = flat_chf()
    tri = [(1.0, 1.0), (5.0, 1.5), (2.0, 4.5)]
    out = mark_convex_area(chf, tri, -1.0, 1.0, 7)
    px, pz = centres(chf)

    def side(a, b):
        return (b[0] - a[0]) * (pz - a[1]) - (b[1] - a[1]) * (px - a[0])
    inside = (side(tri[0], tri[1]) > 0) & (side(tri[1], tri[2]) > 0) & (side(tri[2], tri[0]) > 0)
    walk = chf.area != 0
    assert ((out.area == 7) == (inside & walk)).all()
    assert (out.area[~inside] == chf.area[~inside]).all()
    # above the floor's height range: nothing changes
    assert (mark_convex_area(chf, tri, 0.5, 2.0, 7).area == chf.area).all()


def test_mark_box_and_cylinder():
    chf = flat_chf()
    px, pz = centres(chf)
    walk = chf.area != 0
    box = mark_box_area(chf, (1.2, -1, 2.1), (2.9, 1, 3.3), 5)
    cols = np.repeat(np.arange(chf.width * chf.height), chf.cell_count)
    x, z = cols % chf.width, cols // chf.width
    in_box = (x >= int(1.2 / 0.3)) & (x <= int(2.9 / 0.3)) & (z >= int(2.1 / 0.3)) \
        & (z <= int(3.3 / 0.3))
    assert ((box.area == 5) == (in_box & walk)).all()
    cyl = mark_cylinder_area(chf, (3.0, -0.5, 3.0), 1.4, 2.0, 9)
    near = (px - 3.0) ** 2 + (pz - 3.0) ** 2 < 1.4 ** 2
    assert ((cyl.area == 9) == (near & walk)).all()


# -------------------------------------------------------- nav_test.obj

@pytest.mark.skipif(not (LEVELS / "nav_test.obj").exists(), reason="shared levels absent")
def test_nav_test_matches_recast_counts():
    level = load_level(LEVELS / "nav_test.obj")
    cfg = LevelConfig()
    areas = mark_walkable(level.vertices, level.triangles, cfg)
    hf = rasterize(level.vertices, level.triangles, areas, cfg)
    assert (hf.width, hf.height) == (305, 258)        # Recast's README figure
    # span counts from Recast's own build of the level (a C++ run of
    # rcRasterizeTriangles .. rcErodeWalkableArea with RecastDemo's defaults)
    assert hf.span_count == 120183 and int(np.count_nonzero(hf.area)) == 63036
    assert (int(hf.smin.sum()), int(hf.smax.sum())) == (2600072, 2817222)
    filtered = filter_walkable(hf, cfg)
    assert int(np.count_nonzero(filtered.area)) == 56795
    chf = compact(filtered, cfg)
    assert chf.span_count == 56795
    assert int(chf.y.sum()) == 1503860 and int((chf.neighbors >= 0).sum()) == 220370
    eroded = erode(chf, cfg.walkable_radius)
    assert int(np.count_nonzero(eroded.area)) == 45117
    # every link is symmetric: stepping back returns to the same span
    s, d = np.nonzero(chf.neighbors >= 0)
    assert (chf.neighbors[chf.neighbors[s, d], (d + 2) % 4] == s).all()


# ------------------------------------------------------------ bad input

def small():
    verts, tris = join(quad(0, 0, 3, 3, 0.0))
    return verts, tris


@pytest.mark.parametrize("call, error, fragment", [
    (lambda v, t, c: mark_walkable(v, t, None), GraphError, "config must be a LevelConfig"),
    (lambda v, t, c: mark_walkable(v, t, c, tri_area=64), GraphError, "area ids are 0..63"),
    (lambda v, t, c: mark_walkable(v, t, c, tri_area=[1, 2, 3]), GraphError, "or 2 of them"),
    (lambda v, t, c: mark_walkable(v[:, :2], t, c), GraphError, "(N, 3)"),
    (lambda v, t, c: mark_walkable(np.where(v == 3, np.inf, v), t, c), GraphError,
     "is not finite"),
    (lambda v, t, c: mark_walkable(v, t + 2, c), GraphError, "names vertex 4, but there are 4"),
    (lambda v, t, c: mark_walkable(v, t * 1.0, c), GraphError, "integer vertex indices"),
    (lambda v, t, c: rasterize(v, t, [63, 64], c), GraphError, "area id 64 (index 1)"),
    (lambda v, t, c: rasterize(v, t, [63], c), GraphError, "or 2 of them"),
    (lambda v, t, c: rasterize(v, t, [63, 63], c, bmin=(0, 0, 0), bmax=(3, -1, 3)), GraphError,
     "bmax >= bmin"),
    (lambda v, t, c: rasterize(v, t, [63, 63], c, bmin=(0, 0, 0), bmax=(0.1, 1, 0.1)),
     GraphError, "nothing to rasterize"),
    (lambda v, t, c: rasterize(v, t, [63, 63], c, bmin=(0, 0, 0), bmax=(1e9, 1, 1e9)),
     CapacityError, "int32 cell limit"),
    (lambda v, t, c: rasterize(v, t, [63, 63], c, bmin=(0, 0, 0), bmax=(3, np.nan, 3)),
     GraphError, "not finite"),
    (lambda v, t, c: filter_walkable("hf", c), GraphError, "expected a Heightfield"),
    (lambda v, t, c: rasterize(v, t, [63, 63], c).column(10, 0), GraphError,
     "cell (10, 0) is not in the 10 x 10 grid"),
    (lambda v, t, c: compact(None, c), GraphError, "expected a Heightfield"),
    (lambda v, t, c: erode("chf", 2), GraphError, "expected a CompactHeightfield"),
])
def test_bad_input_is_a_nav_error(call, error, fragment):
    verts, tris = small()
    with pytest.raises(error) as err:
        call(verts, tris, LevelConfig())
    assert fragment in str(err.value)


def test_bad_input_on_compact_heightfields():
    chf = flat_chf()
    before = chf.area.copy()
    for call, fragment in [
        (lambda: erode(chf, -1), "radius must be a whole number"),
        (lambda: erode(chf, 1.5), "radius must be a whole number"),
        (lambda: mark_convex_area(chf, [(0, 0), (1, 1)], 0, 1, 3), "3 or more points"),
        (lambda: mark_convex_area(chf, [(0, 0), (1, 1), (0, np.nan)], 0, 1, 3), "not finite"),
        (lambda: mark_convex_area(chf, [(0, 0), (1, 1), (0, 1)], 0, "1", 3), "ymax must be"),
        (lambda: mark_convex_area(chf, [(0, 0), (1, 1), (0, 1)], 0, 1, 64), "area id in 0..63"),
        (lambda: mark_box_area(chf, (0, 0), (1, 1, 1), 3), "bmin"),
        (lambda: mark_cylinder_area(chf, (0, 0, 0), -1, 1, 3), "radius must be"),
        (lambda: filter_walkable(rasterize(*small(), [63, 63], LevelConfig()), LevelConfig(),
                                 ledges="no"), "ledges"),
    ]:
        with pytest.raises(GraphError) as err:
            call()
        assert fragment in str(err.value)
    assert (chf.area == before).all()


def test_heightfield_too_large_for_memory(monkeypatch):
    monkeypatch.setattr(limits, "available_memory", lambda: 10 ** 6)
    verts, tris = small()
    with pytest.raises(CapacityError, match="a heightfield of 333 x 333 cells needs about"):
        rasterize(verts, tris, [63, 63], LevelConfig(cell_size=0.009))
