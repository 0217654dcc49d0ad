"""Tiled builds (navcore_levels.tiles): each tile equals C++ Recast's own
tile build (dumps in tests/levels/data), the stitched tiles cover what
Recast's solo mesh covers, are linked across tile sides both ways, and
rebuilding tiles gives what a fresh tiled build gives."""
import numpy as np
import pytest

from navcore.errors import CapacityError, GraphError
from navcore_levels import LevelConfig, build_navmesh_arrays
from navcore_levels.levelfile import load_level
from navcore_levels.tiles import build_tiled, rebuild_tiles, tile_border

import recastkit
import recastpeer as rp

LEVELS = {p.stem: p for p in rp.LEVELS.glob("*.obj")}
needs_levels = pytest.mark.skipif(not {"nav_test", "dungeon", "undulating"} <= set(LEVELS),
                                  reason="RecastDemo levels missing in ../shared/data/levels")

_cache = {}


def _level(name):
    if name not in _cache:
        _cache[name] = load_level(LEVELS[name])
    return _cache[name]


def _tiled(name, tile_size, **kw):
    lvl = _level(name)
    return build_tiled(lvl.vertices, lvl.triangles, LevelConfig(tile_size=tile_size), **kw)


def _same_mesh(a, b):
    for f in ("verts", "polys", "neighbors", "regions", "areas"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    assert a.nvp == b.nvp


def _same_detail(a, b):
    for f in ("verts", "tris", "tri_flags", "vert_offsets", "tri_offsets"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f


# ------------------------------------------------------------- one tile

@needs_levels
@pytest.mark.parametrize("dump", recastkit.TILES)
def test_a_tile_is_recasts_tile(dump):
    """The tile RecastDemo's Sample_TileMesh would build (recast_dump.cpp
    with the same tile size and border): same regions, same polygon mesh
    vertex for vertex, same portal edges."""
    d = np.load(recastkit.DATA / f"{dump}.npz")
    name = "nav_test" if "nav_test" in dump else "undulating"
    cs = 0.1 if "cs01" in dump else 0.3
    tx, tz = (int(v) for v in dump.split("_")[-2:])
    size = int(d["header"][0]) - 2 * int(d["header"][2])
    lvl = _level(name)
    cfg = LevelConfig(cell_size=cs, tile_size=size)
    assert tile_border(cfg) == int(d["header"][2])
    tiled = build_tiled(lvl.vertices, lvl.triangles, cfg)
    i = tz * tiled.tiles_x + tx
    chf, mesh = tiled.heightfields[i], tiled.meshes[i]
    assert np.array_equal(chf.region, d["span_region"])
    assert np.array_equal(mesh.verts, d["mesh_verts"])
    assert np.array_equal(mesh.polys, d["mesh_polys"])
    theirs = d["mesh_neighbors"]
    theirs = np.where(theirs >= 0x8000, -2 - (theirs & 0xF), theirs)
    assert np.array_equal(mesh.neighbors, theirs)
    assert (mesh.neighbors <= -2).any()


# ------------------------------------------------------- the stitched mesh

# Heights compared within 1.9 (below agent_height 2.0: two floors an agent
# can stand on one above the other are further apart than that, so they
# stay apart). Undulating is compared in projection only: its solo
# polygons span whole hills, and the metric's least-squares plane through
# such a polygon's vertices misses the ground by metres (11% "differs" at
# 1.9 where the x-z difference is 0.75%).
TOLERANCE = {"nav_test": 1.9, "dungeon": 1.9, "undulating": 1e9}


@needs_levels
@pytest.mark.parametrize("tile_size, partition", [(32, "watershed"), (48, "watershed"),
                                                  (48, "monotone")])
@pytest.mark.parametrize("name", ["nav_test", "dungeon", "undulating"])
def test_stitched_covers_recasts_solo_mesh(name, tile_size, partition):
    """Against C++ Recast's solo mesh: within 3% of its area overall (3.5%
    for nav_test in 32-cell tiles: 3.2%, of which 0.7% are tile polygons on
    stairs and slopes whose fitted planes miss the solo polygons' by more
    than 1.9; 2.1% in projection). Floor by floor the tiles differ more
    than the solo builds do: a tile's regions end at its sides, so its
    walls are simplified from other anchors, and a floor cut by a tile
    side loses slivers the tile beyond drops (each tile here equals
    Recast's own, test_a_tile_is_recasts_tile, so Recast's tiles do the
    same). Measured at most 5.7% of a floor of 50 m^2 or more (nav_test's
    stairs, 32-cell tiles) and 1.6 m^2 of a smaller one (a box top cut by
    a tile side); the bound is 6% or 5 m^2. Where tiles do not divide the
    grid, the last tiles also rasterize the part-cell the solo grid cuts
    off (test_tiles_reach_the_partial_last_cell): tile polygons over no
    solo polygon stay under 1% of the area."""
    lvl = _level(name)
    cfg = LevelConfig(tile_size=tile_size, partition=partition)
    mesh = build_tiled(lvl.vertices, lvl.triangles, cfg).stitch().mesh
    theirs = rp.run_recast(LEVELS[name], LevelConfig(partition=partition))
    diff = rp.mesh_area_difference(mesh.world_vertices(), mesh.polys, theirs.world_verts,
                                   theirs.mesh.polys, height_tolerance=TOLERANCE[name])
    limit = 0.035 if (name, tile_size) == ("nav_test", 32) else 0.03
    assert diff.relative <= limit, f"{diff.relative:.2%}"
    for floor, d in diff.per_floor.items():
        if floor == -1:
            assert d["extra"] <= 0.01 * diff.area_b, d
        else:
            assert d["missing"] + d["extra"] <= max(0.06 * d["area"], 5.0), (floor, d)


def _area(mesh, p):
    """Polygon ``p``'s area in x-z (shoelace)."""
    v = mesh.world_vertices()
    r = mesh.polys[p][mesh.polys[p] >= 0]
    x, z = v[r, 0], v[r, 2]
    return 0.5 * abs(np.dot(x, np.roll(z, -1)) - np.dot(z, np.roll(x, -1)))


def _components(mesh, min_area):
    labels = rp.floors(mesh.polys, mesh.neighbors)
    sizes = {}
    for p, lab in enumerate(labels):
        sizes[lab] = sizes.get(lab, 0.0) + _area(mesh, p)
    return sorted(round(s) for s in sizes.values() if s >= min_area)


@needs_levels
@pytest.mark.parametrize("tile_size", [32, 48])
@pytest.mark.parametrize("name", ["nav_test", "dungeon", "undulating"])
def test_stitched_is_connected_where_solo_is(name, tile_size):
    """The pieces of the mesh joined through neighbours: as many of 20 m^2
    or more as the solo build has, of about the same sizes."""
    lvl = _level(name)
    solo = build_navmesh_arrays(lvl.vertices, lvl.triangles).polymesh
    ours = _components(_tiled(name, tile_size).stitch().mesh, 20.0)
    ref = _components(solo, 20.0)
    assert len(ours) == len(ref), (ours, ref)
    assert np.allclose(ours, ref, rtol=0.05, atol=2), (ours, ref)


def _edges(mesh, p):
    r = mesh.polys[p][mesh.polys[p] >= 0]
    return [(int(r[j]), int(r[(j + 1) % len(r)])) for j in range(len(r))]


@needs_levels
@pytest.mark.parametrize("name", ["nav_test", "dungeon", "undulating"])
def test_stitch_links_both_ways_and_welds(name):
    tiled = _tiled(name, 32)
    st = tiled.stitch()
    mesh, size = st.mesh, 32
    assert not (mesh.neighbors <= -2).any()
    for p in range(mesh.poly_count):
        edges = _edges(mesh, p)
        for j, (u, v) in enumerate(edges):
            q = int(mesh.neighbors[p, j])
            if q >= 0:
                back = _edges(mesh, q)
                k = back.index((v, u))
                assert mesh.neighbors[q, k] == p
    # a polygon is one tile's, listed once
    keys = {tuple(sorted(r[r >= 0])) for r in mesh.polys}
    assert len(keys) == mesh.poly_count
    # welded: no two vertices on a tile side at one corner within two cell heights
    v = mesh.verts
    side = v[(v[:, 0] % size == 0) | (v[:, 2] % size == 0)]
    order = np.lexsort((side[:, 1], side[:, 2], side[:, 0]))
    s = side[order]
    same = (s[1:, 0] == s[:-1, 0]) & (s[1:, 2] == s[:-1, 2]) & (s[1:, 1] - s[:-1, 1] <= 2)
    assert not same.any()
    assert len(np.unique(mesh.polys[mesh.polys >= 0])) == len(v)
    # portal pieces left unlinked: nothing of another tile lies along them
    climb = tiled.config.walkable_climb
    for p, j in st.unlinked:
        u, w = _edges(mesh, p)[j]
        a, b = v[u], v[w]
        fixed = 0 if a[0] == b[0] else 2
        along = 2 - fixed
        lo, hi = sorted((a[along], b[along]))
        for q in np.flatnonzero(st.tile_of != st.tile_of[p]):
            for x, y in _edges(mesh, q):
                c, d = v[x], v[y]
                if c[fixed] != a[fixed] or d[fixed] != a[fixed]:
                    continue
                clo, chi = sorted((c[along], d[along]))
                overlap = min(hi, chi) - max(lo, clo)
                near = abs((c[1] + d[1]) / 2 - (a[1] + b[1]) / 2) <= 2 * climb
                assert overlap <= 0 or not near, (p, j, q)


@needs_levels
@pytest.mark.parametrize("name", ["nav_test", "undulating"])
def test_stitched_detail_follows_the_polygons(name):
    """The tiles' detail meshes joined: one per stitched polygon, each
    starting with the polygon's own corners; its triangles cover the
    polygon (areas equal) and its heights stay within the solo detail's
    range over the same place (heights from the same floors)."""
    from navcore_levels import surface_heights
    lvl = _level(name)
    st = _tiled(name, 48).stitch()
    mesh, det = st.mesh, st.detail
    assert det is not None and det.poly_count == mesh.poly_count
    wv = mesh.world_vertices()
    tri_area = 0.0
    for p in range(mesh.poly_count):
        r = mesh.polys[p][mesh.polys[p] >= 0]
        v0 = det.vert_offsets[p]
        # (a tile's detail is placed from the tile's own float32 corner:
        # undulating lies near x = 5000, where a float32 step is 0.0005)
        assert np.allclose(det.verts[v0:v0 + len(r)], wv[r], rtol=0, atol=0.005)
        t = det.tris[det.tri_offsets[p]:det.tri_offsets[p + 1]]
        a, b, c = det.verts[t[:, 0]], det.verts[t[:, 1]], det.verts[t[:, 2]]
        tri_area += 0.5 * np.abs((b[:, 0] - a[:, 0]) * (c[:, 2] - a[:, 2])
                                 - (c[:, 0] - a[:, 0]) * (b[:, 2] - a[:, 2])).sum()
    assert tri_area == pytest.approx(sum(_area(mesh, p) for p in range(mesh.poly_count)))
    # a point inside each polygon: the mean of its corners
    centres = np.array([wv[r[r >= 0]].mean(axis=0) for r in mesh.polys])
    ours = surface_heights(det, np.arange(mesh.poly_count), centres[:, [0, 2]])
    assert np.isfinite(ours).all()
    # the solo build's detail height at the same place, on the solo
    # polygon there nearest in height (floors stay apart by agent_height)
    import shapely
    solo = build_navmesh_arrays(lvl.vertices, lvl.triangles)
    sv = solo.polymesh.world_vertices()
    shapes = [shapely.Polygon(sv[r[r >= 0]][:, [0, 2]]) for r in solo.polymesh.polys]
    tree = shapely.STRtree(shapes)
    pts = shapely.points(centres[:, [0, 2]])
    pi, si = tree.query(pts, predicate="intersects")
    theirs = surface_heights(solo.detail, si, centres[pi][:, [0, 2]])
    best = np.full(len(centres), np.inf)
    np.minimum.at(best, pi, np.abs(theirs - ours[pi]))
    # over 2.0 (agent_height) apart: the solo polygon there is another
    # floor, its own having a gap there (tile slivers)
    seen = best < 2.0
    assert seen.mean() > 0.95
    # each detail mesh keeps within sample_max_error (0.2) of its height
    # samples, 1.8 apart; between them two meshes may differ more on hills
    assert np.quantile(best[seen], 0.95) <= 0.4, np.quantile(best[seen], [0.5, 0.95, 1])
    assert best[seen].max() <= 1.0, np.sort(best[seen])[-5:]


@needs_levels
@pytest.mark.parametrize("name, partition", [("dungeon", "watershed"),
                                             ("nav_test", "monotone")])
def test_tiles_equal_the_public_stages_run_on_each_tile(name, partition):
    """build_tiled runs each tile as two kernels over the level checked
    once: every tile equals the validating public stages (rasterize ..
    build_detail_mesh) run one by one on the same padded grid with all of
    the level's triangles."""
    from navcore_levels.contours import build_contours
    from navcore_levels.detail import build_detail_mesh
    from navcore_levels.polymesh import build_polymesh
    from navcore_levels.regions import build_regions
    from navcore_levels.tiles import _tile_box
    from navcore_levels.voxels import compact, erode, filter_walkable, mark_walkable, rasterize

    lvl = _level(name)
    cfg = LevelConfig(tile_size=48, partition=partition)
    tiled = build_tiled(lvl.vertices, lvl.triangles, cfg)
    areas = mark_walkable(lvl.vertices, lvl.triangles, cfg)
    border = tile_border(cfg)
    checked = 0
    for i in range(tiled.tile_count):
        if tiled.compacts[i] is None:
            continue
        lo, hi = _tile_box(tiled.bmin, i % tiled.tiles_x, i // tiled.tiles_x, 48, border,
                           cfg.cell_size)
        lo[1], hi[1] = tiled.bmin[1], tiled.bmax[1]
        voxels = compact(filter_walkable(rasterize(lvl.vertices, lvl.triangles, areas, cfg,
                                                   bmin=lo, bmax=hi), cfg), cfg)
        for f in ("cell_index", "cell_count", "y", "h", "neighbors", "area"):
            assert np.array_equal(getattr(voxels, f), getattr(tiled.compacts[i], f)), (i, f)
        chf = erode(voxels, cfg.walkable_radius)
        chf.border_size = border
        build_regions(chf, cfg)
        mine = tiled.heightfields[i]
        assert np.array_equal(chf.region, mine.region) and np.array_equal(chf.dist, mine.dist)
        assert chf.max_region == mine.max_region
        mesh = build_polymesh(build_contours(chf, cfg.edge_max_error, cfg.max_edge_len_cells),
                              cfg.verts_per_poly)
        if mesh.poly_count == 0:
            assert tiled.meshes[i] is None
            continue
        _same_mesh(mesh, tiled.meshes[i])
        _same_detail(build_detail_mesh(mesh, chf, cfg.detail_sample_distance,
                                       cfg.detail_sample_error,
                                       edge_max_error=cfg.edge_max_error), tiled.details[i])
        checked += 1
    assert checked >= 20


@needs_levels
def test_workers_give_the_same_mesh():
    a = _tiled("nav_test", 32).stitch()
    b = _tiled("nav_test", 32, workers=2).stitch()
    _same_mesh(a.mesh, b.mesh)
    _same_detail(a.detail, b.detail)
    assert np.array_equal(a.unlinked, b.unlinked)


def test_a_world_builds_tiles_on_its_workers(monkeypatch):
    """A tiled level graph in a ``World(workers=2)`` builds its tiles on
    two threads, and its polygons are the one-thread world's."""
    import navcore
    from navcore_levels import tiles
    threads = []
    real = tiles._pool
    monkeypatch.setattr(tiles, "_pool", lambda one, ids, workers, timings, cost=None:
                        threads.append(workers) or real(one, ids, workers, timings, cost))
    floor = np.array([[0, 0, 0], [20, 0, 0], [20, 0, 14], [0, 0, 14]], float)
    tris = np.array([[0, 2, 1], [0, 3, 2]])
    meshes = []
    for workers in (0, 2):
        with navcore.World(workers=workers) as world:
            g = world.add_graph("l", type="level", vertices=floor, triangles=tris,
                                tile_size=16)
            meshes.append(g.level_mesh)
    assert threads == [0, 2]
    _same_mesh(*meshes)


# ---------------------------------------------------------------- rebuilds

def _box(lo, hi):
    x0, y0, z0 = lo
    x1, y1, z1 = hi
    v = np.array([[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)], float)
    f = [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]]
    t = [[a, b, c] for a, b, c, d in f] + [[a, c, d] for a, b, c, d in f]
    return v, np.array(t)


@needs_levels
def test_rebuild_without_change_is_the_same():
    lvl = _level("dungeon")
    tiled = _tiled("dungeon", 48)
    before = tiled.stitch()
    after = rebuild_tiles(tiled, [3, 4, 10], lvl.vertices, lvl.triangles)
    _same_mesh(before.mesh, after.mesh)
    _same_detail(before.detail, after.detail)
    assert np.array_equal(before.tile_of, after.tile_of)


@needs_levels
def test_rebuild_after_a_box_changes_one_tile():
    lvl = _level("dungeon")
    tiled = _tiled("dungeon", 48)
    st = tiled.stitch()
    # the tile with the most polygons; a box in its middle, clear of its border
    tile = int(np.bincount(st.tile_of).argmax())
    lo, hi = tiled.tile_bounds(tile)
    mid = (lo + hi) / 2
    y = st.mesh.world_vertices()[:, 1][np.isin(np.arange(len(st.mesh.verts)),
                                                st.mesh.polys[st.tile_of == tile])].min()
    box_v, box_t = _box((mid[0] - 1, y - 0.5, mid[1] - 1), (mid[0] + 1, y + 1.5, mid[1] + 1))
    verts = np.concatenate([lvl.vertices, box_v])
    tris = np.concatenate([lvl.triangles, box_t + len(lvl.vertices)])
    assert list(tiled.tiles_touching(mid - 1, mid + 1)) == [tile]
    old_meshes = list(tiled.meshes)
    new = rebuild_tiles(tiled, [tile], verts, tris)
    for i, (a, b) in enumerate(zip(old_meshes, tiled.meshes)):
        if i != tile:
            assert a is b
    assert not np.array_equal(old_meshes[tile].polys.shape, tiled.meshes[tile].polys.shape) \
        or not np.array_equal(old_meshes[tile].polys, tiled.meshes[tile].polys)
    # polygons of the other tiles: the same vertices in the same places
    wv_old, wv_new = st.mesh.world_vertices(), new.mesh.world_vertices()

    def shapes(s, wv, keep):
        return sorted(tuple(map(tuple, np.round(wv[r[r >= 0]], 6)))
                      for r, t in zip(s.mesh.polys, s.tile_of) if keep(t))
    assert shapes(st, wv_old, lambda t: t != tile) == shapes(new, wv_new, lambda t: t != tile)
    fresh = build_tiled(verts, tris, tiled.config).stitch()
    _same_mesh(fresh.mesh, new.mesh)
    _same_detail(fresh.detail, new.detail)


# ------------------------------------------------------------- bad input

def test_bad_tile_sizes():
    floor = np.array([[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10]], float)
    tris = np.array([[0, 2, 1], [0, 3, 2]])
    with pytest.raises(GraphError, match="tile_size"):
        build_tiled(floor, tris, LevelConfig(tile_size=-8))
    with pytest.raises(GraphError, match="solo build"):
        build_tiled(floor, tris, LevelConfig(tile_size=0))
    with pytest.raises(GraphError, match="narrower than the tile border"):
        build_tiled(floor, tris, LevelConfig(tile_size=4))
    with pytest.raises(GraphError, match="workers"):
        build_tiled(floor, tris, LevelConfig(tile_size=16), workers=-1)
    with pytest.raises(CapacityError, match="workers=100000"):
        build_tiled(floor, tris, LevelConfig(tile_size=16), workers=100000)
    tiled = build_tiled(floor, tris, LevelConfig(tile_size=16))
    with pytest.raises(GraphError, match="not a tile"):
        rebuild_tiles(tiled, [99], floor, tris)
    with pytest.raises(GraphError, match="config differs"):
        rebuild_tiles(tiled, [0], floor, tris, LevelConfig(tile_size=32))
    with pytest.raises(GraphError, match="tile_ids must be a sequence"):
        rebuild_tiles(tiled, [0.5], floor, tris)
    with pytest.raises(GraphError, match="tile_ids must be an array"):
        rebuild_tiles(tiled, ["a"], floor, tris)
    with pytest.raises(GraphError, match="expected a TiledLevel"):
        rebuild_tiles("tiles", [0], floor, tris)
    with pytest.raises(GraphError, match="lo"):
        tiled.tiles_touching((1, 2, 3, 4), (5, 5))
    before = tiled.stitch()
    with pytest.raises(GraphError):
        rebuild_tiles(tiled, [0], floor, np.array([[0, 1, 9]]))
    assert tiled.stitch() is before                 # a failed rebuild changes nothing
    assert list(tiled.tiles_touching((0, 0), (0.1, 0.1))) == [0]
    assert sorted(tiled.tiles_touching((0, 0), (10, 10))) == list(range(tiled.tile_count))


@pytest.mark.nojit
def test_tile_kernels_check_memory_as_the_stages_do(monkeypatch):
    """A tile's two kernels check their first buffers against the memory
    before allocating, as the stage functions do, and the error names the
    stage; a failed rebuild leaves the level as it was."""
    import navcore.limits
    from navcore_levels.tiles import rebuild_obstacles
    floor = np.array([[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10]], float)
    tris = np.array([[0, 2, 1], [0, 3, 2]])
    cfg = LevelConfig(tile_size=16)
    tiled = build_tiled(floor, tris, cfg)
    before = tiled.stitch()
    monkeypatch.setattr(navcore.limits, "available_memory", lambda: 1000)
    for workers in (0, 2):          # raised in the calling thread either way
        with pytest.raises(CapacityError, match="a heightfield of 26 x 26 cells needs about"):
            build_tiled(floor, tris, cfg, workers=workers)
    # a rebuild starts from the kept compact heightfield: the regions check
    spans = tiled.compacts[0].span_count
    with pytest.raises(CapacityError, match=f"build_regions of {spans} spans needs about"):
        rebuild_obstacles(tiled, [{"box": [[1, -1, 1], [2, 1, 2]]}], workers=2)
    assert tiled.stitch() is before and tiled.obstacles == ()


def test_tiles_reach_the_partial_last_cell():
    """A 10 x 10 floor: the solo grid has 33 cells of 0.3 (9.9) and cuts
    off the last 0.1, so its mesh runs 0.9..9.0; 16-cell tiles cover 0..14.4
    and rasterize the floor to 10.0, whose last (partial) cell is kept, so
    the stitched mesh runs 0.9..9.3 on both axes, as Recast's tiles do, in
    one connected piece."""
    floor = np.array([[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10]], float)
    tris = np.array([[0, 2, 1], [0, 3, 2]])
    st = build_tiled(floor, tris, LevelConfig(tile_size=16)).stitch()
    v = st.mesh.world_vertices()
    assert np.allclose(v[:, [0, 2]].min(axis=0), 0.9) and np.allclose(v[:, [0, 2]].max(axis=0), 9.3)
    solo = build_navmesh_arrays(floor, tris).polymesh.world_vertices()
    assert np.allclose(solo[:, [0, 2]].max(axis=0), 9.0)
    areas = [_area(st.mesh, p) for p in range(st.mesh.poly_count)]
    assert sum(areas) == pytest.approx(8.4 * 8.4)
    assert len(set(rp.floors(st.mesh.polys, st.mesh.neighbors))) == 1


def _poly_mesh(polys, neighbors, nvp):
    from navcore_levels import PolyMesh
    verts = sorted({v for p in polys for v in p})
    index = {v: i for i, v in enumerate(verts)}
    rows = np.full((len(polys), nvp), -1, np.int32)
    links = np.full((len(polys), nvp), -1, np.int32)
    for i, (p, n) in enumerate(zip(polys, neighbors)):
        rows[i, :len(p)] = [index[v] for v in p]
        links[i, :len(n)] = n
    return PolyMesh(verts=np.array([(x, 1, z) for x, z in verts], np.int32), polys=rows,
                    neighbors=links, regions=np.arange(1, len(polys) + 1, dtype=np.int32),
                    areas=np.full(len(polys), 63, np.uint8), nvp=nvp, bmin=np.zeros(3),
                    cs=0.3, ch=0.2, border_size=tile_border(LevelConfig()))


def test_stitch_splits_portal_edges_that_overlap_in_part():
    """Recast's tiles on the RecastDemo levels always end their portal
    edges at the same corners from both sides (no split happens there);
    when they do not, the longer edge is split at the other side's ends:
    here tile 0's square meets tile 1's two halves, its side gets the
    middle vertex (5 vertices with verts_per_poly 4: the stitched nvp grows)
    and each piece links to its half."""
    from navcore_levels.tiles import TiledLevel
    cfg = LevelConfig(tile_size=32, verts_per_poly=4)
    # Recast's winding; tile 0's edge 2 runs down x = 32 (a portal to +x,
    # -2 - 2), tile 1's edges 0 run up x = 0 (a portal to -x, -2 - 0)
    left = _poly_mesh([[(0, 0), (0, 32), (32, 32), (32, 0)]], [[-1, -1, -4, -1]], 4)
    right = _poly_mesh([[(0, 0), (0, 16), (32, 16), (32, 0)],
                        [(0, 16), (0, 32), (32, 32), (32, 16)]],
                       [[-2, 1, -1, -1], [-2, -1, -1, 0]], 4)
    level = TiledLevel(cfg, np.zeros(3), np.array([19.2, 1.0, 9.6]), 2, 1, [left, right],
                       [None, None])
    st = level.stitch()
    mesh = st.mesh
    assert mesh.nvp == 5 and len(st.unlinked) == 0
    assert st.detail is None                 # the square's detail lacks its new corner
    v = mesh.verts
    square = [tuple(v[i][[0, 2]]) for i in mesh.polys[0] if i >= 0]
    assert square == [(0, 0), (0, 32), (32, 32), (32, 16), (32, 0)]
    assert list(mesh.neighbors[0]) == [-1, -1, 2, 1, -1]
    assert mesh.neighbors[1, 0] == 0 and mesh.neighbors[2, 0] == 0
    assert len(v) == 8                       # 4 + 6 corners, two welded on x = 32


def test_stitch_keeps_floors_apart_across_a_tile_side():
    """A portal end of another floor (further than walkable_climb above
    the edge) is not put into the edge, and the pieces that find no edge
    across are walls, listed in ``unlinked``."""
    from navcore_levels.tiles import TiledLevel
    cfg = LevelConfig(tile_size=32, verts_per_poly=4)
    left = _poly_mesh([[(0, 0), (0, 32), (32, 32), (32, 0)]], [[-1, -1, -4, -1]], 4)
    high = _poly_mesh([[(0, 8), (0, 16), (32, 16), (32, 8)]], [[-2, -1, -1, -1]], 4)
    high.verts[:, 1] = 40                    # 40 cell heights up: another floor
    level = TiledLevel(cfg, np.zeros(3), np.array([19.2, 9.0, 9.6]), 2, 1, [left, high],
                       [None, None])
    st = level.stitch()
    assert (st.mesh.polys[0] >= 0).sum() == 4
    assert sorted(map(tuple, st.unlinked)) == [(0, 2), (1, 0)]
    assert (st.mesh.neighbors == -1).all()


@needs_levels
def test_tile_buckets_hold_every_overlapping_triangle():
    """The per-tile triangle buckets are a superset of the triangles whose
    x-z box overlaps the padded tile (the exact test each tile applies)."""
    from navcore_levels import tiles as T
    from navcore_levels.voxels import grid_size
    lvl = _level("dungeon")
    for cs, ts in ((0.3, 16), (0.1, 64)):
        cfg = LevelConfig(cell_size=cs, tile_size=ts)
        geo = T._Geometry(lvl.vertices, lvl.triangles, cfg, None, ())
        bmin, bmax = geo.verts.min(0), geo.verts.max(0)
        gw, gh = grid_size(bmin, bmax, cs)
        nx, nz = -(-gw // ts), -(-gh // ts)
        geo.bucket(bmin.astype(np.float64), nx, nz, ts, tile_border(cfg), cs)
        for i in range(nx * nz):
            lo, hi = T._tile_box(bmin, i % nx, i // nx, ts, tile_border(cfg), cs)
            full = np.flatnonzero((geo.hi[:, 0] >= lo[0]) & (geo.lo[:, 0] <= hi[0])
                                  & (geo.hi[:, 2] >= lo[2]) & (geo.lo[:, 2] <= hi[2]))
            assert np.isin(full, geo.by_tile[i]).all(), i


def test_volumes_and_triangle_areas_reach_every_tile():
    """A convex volume's area id and a triangle's area id, in 16-cell
    tiles: the stitched polygons of each area cover what the solo build's
    cover (within 10%: regions, so simplified outlines, follow the tiles)."""
    floor = np.array([[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10],
                      [10, 0, 0], [14, 0, 0], [14, 0, 10], [10, 0, 10]], float)
    tris = np.array([[0, 2, 1], [0, 3, 2], [4, 6, 5], [4, 7, 6]])
    tags = np.array([63, 63, 7, 7])              # a 4 x 10 strip of area 7 beside the floor
    volume = (np.array([[2.0, 2.0], [2.0, 8.0], [8.0, 8.0], [8.0, 2.0]]), -1.0, 1.0, 5)
    kw = dict(triangle_areas=tags, volumes=[volume])
    solo = build_navmesh_arrays(floor, tris, **kw).polymesh
    st = build_tiled(floor, tris, LevelConfig(tile_size=16), **kw).stitch()
    for area in (5, 7, 63):
        ours = sum(_area(st.mesh, p) for p in np.flatnonzero(st.mesh.areas == area))
        ref = sum(_area(solo, p) for p in np.flatnonzero(solo.areas == area))
        assert ref > 0 and ours == pytest.approx(ref, rel=0.1), (area, ours, ref)


# ------------------------------------------------- the per-tile C++ timing peer

@needs_levels
def test_recast_tiles_driver_builds_the_tiles_build_tiled_builds():
    """bench/recast_tiles.cpp (C++ Recast's per-tile build times, for
    bench/level_obstacles.py) builds dungeon's 48-cell tiles: the same
    grid of tiles, and polygons in the same tiles as build_tiled."""
    peer = rp.run_recast_tiles(LEVELS["dungeon"], 48, rounds=1)
    tiled = _tiled("dungeon", 48)
    assert (peer.tiles_x, peer.tiles_z) == (tiled.tiles_x, tiled.tiles_z)
    ours = [i for i, m in enumerate(tiled.meshes) if m is not None]
    assert peer.with_polys == len(ours)
    assert peer.tile[peer.polys > 0].tolist() == ours
    assert peer.built == sum(k is not None for k in tiled.compacts)
    assert (peer.post_ms > 0).all() and (peer.pre_ms > 0).all()
