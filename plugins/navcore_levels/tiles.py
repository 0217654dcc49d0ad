"""Tiled builds: a level's grid cut into square tiles, each built on its
own as Recast's tile mesh does (RecastDemo's Sample_TileMesh), and the
tiles' polygons stitched into one mesh.

A tile is ``config.tile_size`` cells a side. Its build rasterizes the
triangles overlapping the tile grown by ``border_size = walkable_radius +
3`` cells on each side, runs the solo stages on that padded grid with
the padding given to border regions, keeps the polygons inside the
tile and builds their detail height mesh over the padded heightfield.
Polygon edges on the tile's sides are portals (``-2 - direction`` in
``PolyMesh.neighbors``). The padding lets a tile see the walls and floors
its neighbours see near their common side, so the two meet there.

Tiles are independent: they are built on ``workers`` threads and one
tile can be rebuilt after the geometry under it changed
(:func:`rebuild_tiles`). The level's triangles, areas and settings are
checked once; each tile then runs as two kernels
(``_tile_pipeline.voxelize_tile`` and ``mesh_tile``: the same stage
kernels the stage functions call, in the same order), which hold no GIL
from the tile's triangles to its detail mesh, so tiles on two threads
run side by side.

Stitching (:meth:`TiledLevel.stitch`) puts every tile's polygons in one
:class:`~navcore_levels.heightfield.PolyMesh` over the level's grid:

* vertices on tile sides at the same cell corner and within two cell
  heights (the polygon stage's own welding rule, chained from the lowest)
  become one vertex;
* each tile chooses its portal edges' ends from its own regions, so two
  tiles' edges along a common side may overlap only in part (Detour's
  ``connectExtLinks`` links such pieces by their overlap). The stitch
  splits every portal edge at the ends of the edges across from it on
  the same floor (within ``walkable_climb`` of the edge's height), which
  puts collinear vertices into polygons (still convex; the stitched
  mesh's ``nvp`` grows to the longest polygon), and then links the pieces
  that share both ends. On RecastDemo's three levels (tiles of 32 and
  48 cells) no split is needed: both tiles end their portal edges at the
  same corners;
* a portal piece with no edge across it (the tile beyond has no polygon
  there: its regions kept a wall or dropped a sliver the near tile kept)
  becomes a wall (-1); :attr:`Stitched.unlinked` lists those pieces
  (6..17 on those levels, each with nothing of another tile along it).

Each tile equals the tile C++ Recast builds (regions, polygons, portal
edges; checked against Recast's dumps). The stitched mesh is not the solo
mesh: region and wall outlines follow the tiles, so walls are simplified
from other anchors and a floor cut by a tile side can lose slivers the
tile across drops; where the tiles reach past the solo grid (its last
part-cell is cut off, a tile's is not) the mesh reaches one cell
further. Against Recast's solo mesh the walkable area differs by 0.6 to
3.2% on RecastDemo's levels.

``build_navmesh_arrays`` stays the solo build (``tile_size`` is ignored
there): its answer holds one compact heightfield, a tiled build one per
tile.
"""
from __future__ import annotations

import dataclasses
import time
import threading
from dataclasses import dataclass, field

import numpy as np

from navcore import limits, validate
from navcore.errors import CapacityError, GraphError, UpdateError

from . import _geometry as _geometry_kernels, _tile_pipeline
from .build import checked_timings
from .config import LevelConfig
from .contours import CONTOUR_TESS_WALL_EDGES, contour_warning
from .detail import DetailMesh
from .heightfield import BORDER_REGION, CompactHeightfield, PolyMesh
from .obstacles import Obstacle, obstacle
from .polymesh import polymesh_warning
from .regions import MAX_REGIONS, MONOTONE_BYTES, WATERSHED_BYTES, too_many_regions
from .voxels import (BYTES_PER_COLUMN, BYTES_PER_OPEN_SPAN, BYTES_PER_SPAN, AreaBox,
                     AreaCylinder, _geometry, checked_grid, checked_volumes, grid_size,
                     too_many_spans, walkable_checked)

__all__ = ["TiledLevel", "Stitched", "build_tiled", "rebuild_tiles", "rebuild_obstacles",
           "obstacle_tiles", "changed_tiles", "checked_obstacles", "tile_border"]

#: the extra cells a tile's build reads beyond each of its sides, over the
#: erosion radius (Recast's ``borderSize = walkableRadius + 3``)
BORDER_EXTRA = 3


def tile_border(config: LevelConfig) -> int:
    """Cells of padding round a tile: ``walkable_radius + 3``."""
    return config.walkable_radius + BORDER_EXTRA


@dataclass
class Stitched:
    """The stitched mesh and what the stitch could not link.

    ``mesh``: one :class:`PolyMesh` over the level's grid (vertices in
    cells from the level's ``bmin``; ``border_size`` 0; no portal codes
    left). ``tile_of``: int32 (P,), the tile index (``tz * tiles_x + tx``)
    each polygon came from. ``unlinked``: int32 (K, 2) rows ``(polygon,
    edge)`` of portal pieces with no polygon across (now walls).
    ``detail``: the tiles' detail meshes joined, polygon for polygon with
    ``mesh`` (each tile's detail is built over its own heightfield, as
    Recast's tiles are); None when the stitch split a portal edge (the
    split polygons' detail would lack the new corners) or a tile has no
    detail."""
    mesh: PolyMesh
    tile_of: np.ndarray
    unlinked: np.ndarray
    detail: DetailMesh | None = None


@dataclass
class TiledLevel:
    """A level built tile by tile.

    ``bmin``/``bmax``: the level grid's bounds (float32 values, as the solo
    build's); ``tiles_x``/``tiles_z``: tiles along x and z; tile
    ``(tx, tz)`` has index ``tz * tiles_x + tx``. ``meshes[i]``: tile
    ``i``'s PolyMesh (vertices in cells from the tile's corner, portals
    marked), ``heightfields[i]``: its compact heightfield (padding
    included, regions filled); ``details[i]``: its detail height mesh
    (world coordinates); ``compacts[i]``: its compact heightfield as
    compacted, before obstacles and erosion (what an obstacle rebuild
    starts from, :func:`rebuild_obstacles`); None for a tile with no
    triangles (mesh and detail also for a tile with no polygons).
    ``volumes``: the convex area volumes of the build; ``obstacles``: the
    :class:`~navcore_levels.obstacles.Obstacle` values marked in the
    tiles; ``rebuilt``: int64 ids of the tiles the build that made this
    level ran (every tile for ``build_tiled``).
    """
    config: LevelConfig
    bmin: np.ndarray
    bmax: np.ndarray
    tiles_x: int
    tiles_z: int
    meshes: list = field(default_factory=list)
    heightfields: list = field(default_factory=list)
    details: list = field(default_factory=list)
    compacts: list = field(default_factory=list)
    volumes: list = field(default_factory=list)
    obstacles: tuple = ()
    rebuilt: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    _stitched: Stitched | None = None

    @property
    def tile_count(self) -> int:
        return self.tiles_x * self.tiles_z

    def tile_bounds(self, tile: int) -> tuple[np.ndarray, np.ndarray]:
        """World x-z corners ``(lo, hi)`` of tile ``tile`` (without padding)."""
        if not validate.is_int(tile) or not 0 <= tile < self.tile_count:
            raise GraphError(f"tile must be a tile index in 0..{self.tile_count - 1} (the "
                             f"level has {self.tile_count} tiles), got {tile!r}")
        tile = int(tile)
        tx, tz = tile % self.tiles_x, tile // self.tiles_x
        size = np.float32(self.config.tile_size) * np.float32(self.config.cell_size)
        lo = np.array([self.bmin[0] + np.float32(tx) * size, self.bmin[2] + np.float32(tz) * size])
        return lo, lo + size

    def tiles_touching(self, lo, hi) -> np.ndarray:
        """Indices of the tiles whose build reads world x-z box ``lo..hi``
        (each a pair ``(x, z)``): the tiles to rebuild after changing the
        geometry there."""
        lo = validate.point(lo, 2, "tiles_touching: lo (x, z)", GraphError)
        hi = validate.point(hi, 2, "tiles_touching: hi (x, z)", GraphError)
        pad = tile_border(self.config) * self.config.cell_size
        size = self.config.tile_size * self.config.cell_size
        base = np.array([self.bmin[0], self.bmin[2]])
        # tile t reads [t*size - pad, (t+1)*size + pad], ends included
        top = np.array([self.tiles_x - 1, self.tiles_z - 1], dtype=float)
        # clipped to the grid as floats: a far corner (1e30) would overflow the cast
        first = np.clip(np.ceil((np.asarray(lo, float) - pad - base) / size - 1), 0, top + 1)
        last = np.clip(np.floor((np.asarray(hi, float) + pad - base) / size), -1, top)
        first, last = first.astype(np.int64), last.astype(np.int64)
        xs, zs = np.arange(first[0], last[0] + 1), np.arange(first[1], last[1] + 1)
        return (zs[:, None] * self.tiles_x + xs[None, :]).ravel().astype(np.int64)

    def stitch(self) -> Stitched:
        """All tiles' polygons as one mesh (cached until a rebuild)."""
        if self._stitched is None:
            self._stitched = _stitch(self)
        return self._stitched


def _check_tiling(cfg: LevelConfig, where: str) -> int:
    if not isinstance(cfg, LevelConfig):
        raise GraphError(f"{where}: config must be a LevelConfig, got {type(cfg).__name__}")
    size = int(cfg.tile_size)
    border = tile_border(cfg)
    if size <= 0:
        raise GraphError(f"{where}: config.tile_size is {cfg.tile_size}: a tiled build needs "
                         f"tiles of at least one cell (tile_size 0 is the solo build, "
                         f"build_navmesh_arrays)")
    if size < border:
        raise GraphError(f"{where}: config.tile_size {size} cells is narrower than the tile "
                         f"border ({border} cells: walkable_radius {cfg.walkable_radius} + "
                         f"{BORDER_EXTRA}); a tile's build would read past its neighbours")
    return size


class _Geometry:
    """The level's triangles, their areas and x-z boxes, shared by the tiles."""

    def __init__(self, vertices, triangles, cfg, triangle_areas, volumes):
        self.verts, self.tris = _geometry(vertices, triangles)
        self.areas = walkable_checked(self.verts, self.tris, cfg, triangle_areas)
        self.lo, self.hi = _geometry_kernels.triangle_boxes(self.verts, self.tris)
        self.volumes = checked_volumes(volumes)
        self.packed = _tile_pipeline.pack_volumes(self.volumes)
        self.by_tile = None

    def bucket(self, bmin, tiles_x, tiles_z, size, border, cs):
        """Per tile, the triangles whose x-z box may reach its padded grid
        (a superset: a cell of slack either side; ``_build_tile`` keeps
        the exact overlaps), as Recast's chunky mesh narrows the search."""
        tris, start = _geometry_kernels.bucket_by_tile(
            self.lo, self.hi, float(bmin[0]), float(bmin[2]), tiles_x, tiles_z, size * cs,
            (border + 1) * cs)
        self.by_tile = [tris[start[i]:start[i + 1]] for i in range(tiles_x * tiles_z)]


def _tile_box(bmin, tx, tz, size, border, cs):
    """The padded grid of tile (tx, tz), in float32 as Recast computes it."""
    c = np.float32(cs)
    tcs = np.float32(size) * c
    pad = np.float32(border) * c
    lo = np.array(bmin, np.float32)
    lo[0] = lo[0] + np.float32(tx) * tcs - pad
    lo[2] = lo[2] + np.float32(tz) * tcs - pad
    hi = lo.copy()
    hi[0] = lo[0] + pad + tcs + pad
    hi[2] = lo[2] + pad + tcs + pad
    return lo, hi


def _build_tile(geo: _Geometry, cfg: LevelConfig, bmin, bmax, tiles_x, index, timings,
                obstacles, available):
    """Tile ``index`` built from the triangles: ``(mesh, chf, detail,
    compact)`` (``compact``: its compact heightfield before obstacles).
    ``geo`` was checked once for the level; ``obstacles`` are
    ``pack_volumes``'s, ``available`` the bytes of memory the stages'
    checks compare with."""
    tx, tz = index % tiles_x, index // tiles_x
    size, border = int(cfg.tile_size), tile_border(cfg)
    lo, hi = _tile_box(bmin, tx, tz, size, border, cfg.cell_size)
    lo[1], hi[1] = np.float32(bmin[1]), np.float32(bmax[1])
    near = geo.by_tile[index]
    if not len(near):
        return None, None, None, None
    width, height = checked_grid(lo, hi, cfg)
    start = time.perf_counter()
    status, value, *arrays = _tile_pipeline.voxelize_tile(
        geo.verts, geo.tris, geo.areas, near, geo.lo, geo.hi, lo, hi,
        np.float32(cfg.cell_size), np.float32(cfg.cell_height), width, height,
        cfg.walkable_climb, cfg.walkable_height, BYTES_PER_COLUMN, BYTES_PER_SPAN,
        BYTES_PER_OPEN_SPAN, limits.MAX_NODES, limits.memory_limit(available))
    timings["voxelize"] = time.perf_counter() - start
    if status == _tile_pipeline.EMPTY:
        return None, None, None, None
    if status == _tile_pipeline.TOO_MANY_SPANS:
        raise too_many_spans(len(near), width, height, value)
    _raise_for(status, value, {_tile_pipeline.HEIGHTFIELD_MEMORY:
                               f"a heightfield of {width} x {height} cells",
                               _tile_pipeline.COMPACT_MEMORY: "a compact heightfield"},
               available)
    cell_index, cell_count, y, h, area, neighbors = arrays
    compact = CompactHeightfield(
        width=width, height=height, border_size=0, walkable_height=cfg.walkable_height,
        walkable_climb=cfg.walkable_climb, bmin=lo.astype(np.float64), cs=cfg.cell_size,
        ch=cfg.cell_height, cell_index=cell_index, cell_count=cell_count, y=y, h=h,
        neighbors=neighbors, area=area, dist=np.zeros(len(y), np.uint16),
        region=np.zeros(len(y), np.int32))
    return (*_finish_tile(compact, cfg, geo.packed, obstacles, timings, available), compact)


def _raise_for(status, value, what: dict, available) -> None:
    """The ``CapacityError`` a stage raises for a tile kernel's memory
    ``status`` (``what``: status -> what the buffers were for)."""
    if status != _tile_pipeline.OK:
        raise limits.memory_error(what[status], value, available)


def _finish_tile(compact, cfg: LevelConfig, volumes, obstacles, timings, available):
    """``(mesh, chf, detail)`` of a tile from its compact heightfield: the
    obstacles whose box reaches its grid marked, then erosion .. detail
    (``volumes`` and ``obstacles`` as ``pack_volumes`` gives them)."""
    border = tile_border(cfg)
    start = time.perf_counter()
    (status, value, area, dist, region, count, loose, mesh, bad,
     detail) = _tile_pipeline.mesh_tile(
        compact.cell_index, compact.cell_count, compact.y, compact.neighbors, compact.area,
        compact.width, compact.height, compact.bmin, float(compact.cs), float(compact.ch),
        border, cfg.walkable_radius, volumes, obstacles, cfg.partition == "monotone",
        int(cfg.min_region_area), int(cfg.merge_region_area), MAX_REGIONS,
        BORDER_REGION - 1, MONOTONE_BYTES if cfg.partition == "monotone" else WATERSHED_BYTES,
        np.float32(cfg.edge_max_error), int(cfg.max_edge_len_cells), CONTOUR_TESS_WALL_EDGES,
        int(cfg.verts_per_poly), float(cfg.detail_sample_distance),
        float(cfg.detail_sample_error), limits.memory_limit(available))
    timings["mesh"] = time.perf_counter() - start
    if status == _tile_pipeline.TOO_MANY_REGIONS:
        raise too_many_regions("build_regions", value)
    _raise_for(status, value, {_tile_pipeline.REGIONS_MEMORY:
                               f"build_regions of {compact.span_count} spans",
                               _tile_pipeline.DETAIL_MEMORY:
                               f"a detail mesh of {len(mesh[1])} polygons"}, available)
    if loose:
        contour_warning(loose, cfg.edge_max_error)
    if bad:
        polymesh_warning(bad)
    chf = dataclasses.replace(compact, area=area, dist=dist, region=region, border_size=border,
                              max_region=int(count))
    if mesh[1].shape[0] == 0:
        return None, chf, None
    origin = np.array(compact.bmin, np.float64)
    origin[[0, 2]] += border * compact.cs
    polymesh = PolyMesh(*mesh, nvp=int(cfg.verts_per_poly), bmin=origin, cs=float(compact.cs),
                        ch=float(compact.ch), border_size=border)
    return polymesh, chf, DetailMesh(*detail)


def _workers(value) -> int:
    if not validate.is_int(value) or int(value) < 0:
        raise GraphError(f"workers must be a whole number >= 0 (0: build tiles in this "
                         f"thread), got {validate.describe(value)}")
    most = limits.max_workers()
    if int(value) > most:
        raise CapacityError(f"workers={value} is more threads than this machine can use; at "
                            f"most {most}")
    return int(value)


def _run(geo, cfg, bmin, bmax, tiles_x, ids, workers, timings, obstacles=()):
    """Build tiles ``ids``; their (mesh, chf, detail, compact) in that order."""
    # the memory checks of every tile's stages compare with one reading
    available = limits.available_memory()
    packed = _packed_obstacles(obstacles)

    def one(i):
        spent = {}
        out = _build_tile(geo, cfg, bmin, bmax, tiles_x, i, spent, packed, available)
        return out, spent
    return _pool(one, ids, workers, timings, cost=lambda i: len(geo.by_tile[i]))


def _packed_obstacles(obstacles) -> tuple:
    """Obstacles as ``_tile_pipeline.mesh_tile`` reads them."""
    return _tile_pipeline.pack_volumes([ob.volume for ob in obstacles])


def _pool(one, ids, workers, timings, cost=None):
    """``one(i)`` (a result and its stage times) for each of ``ids`` on
    ``workers`` threads, this one among them; the results in ``ids``'
    order, the times summed into ``timings``. ``cost(i)``: a tile's
    expected work; the costliest start first, so no thread is left with
    a large tile at the end."""
    ids = list(ids)
    if workers <= 1 or len(ids) <= 1:
        results = [one(i) for i in ids]
    else:
        order = sorted(range(len(ids)), key=lambda k: -cost(ids[k])) if cost else \
            list(range(len(ids)))
        results = [None] * len(ids)
        failed = []
        queue = iter(order)
        lock = threading.Lock()

        def drain():
            while not failed:
                with lock:
                    k = next(queue, None)
                if k is None:
                    return
                try:
                    results[k] = one(ids[k])
                except BaseException as exc:        # re-raised in the calling thread
                    failed.append(exc)
        helpers = [threading.Thread(target=drain, daemon=True) for _ in range(workers - 1)]
        for t in helpers:
            t.start()
        drain()
        for t in helpers:
            t.join()
        if failed:
            raise failed[0]
    for _, spent in results:
        for k, v in spent.items():
            timings[k] = timings.get(k, 0.0) + v
    return [r for r, _ in results]


def build_tiled(vertices, triangles, config: LevelConfig, *, workers: int = 0,
                triangle_areas=None, volumes=(), obstacles=(),
                timings: dict | None = None) -> TiledLevel:
    """Build the level tile by tile (``config.tile_size`` cells a side,
    > 0 and at least the tile border ``walkable_radius + 3``) on
    ``workers`` threads (0 or 1: this thread). Arguments as
    :func:`navcore_levels.build.build_navmesh_arrays`'s; ``timings``
    receives the seconds of the tiles' two kernels summed over tiles,
    ``"voxelize"`` (rasterize .. compact) and ``"mesh"`` (erosion ..
    detail), ``"tiles"`` (the tile builds' wall time) and ``"stitch"``. The answer's
    :meth:`TiledLevel.stitch` is already computed. ``obstacles``: run-time
    obstacles (specs as :func:`navcore_levels.obstacles.obstacle` reads
    them, y up, or its ``Obstacle`` values) marked unwalkable before the
    erosion, as :func:`rebuild_obstacles` marks them."""
    cfg = config
    _check_tiling(cfg, "build_tiled")
    workers = _workers(workers)
    obstacles = checked_obstacles(obstacles, GraphError)
    spent = checked_timings(timings)
    t0 = time.perf_counter()
    geo = _Geometry(vertices, triangles, cfg, triangle_areas, volumes)
    if len(geo.verts):
        bmin, bmax = geo.verts.min(axis=0), geo.verts.max(axis=0)
    else:
        bmin = bmax = np.zeros(3, np.float32)
    gw, gh = grid_size(bmin, bmax, cfg.cell_size)
    if gw < 1 or gh < 1:
        raise GraphError(f"build_tiled: the level's bounds {bmin.tolist()} .. {bmax.tolist()} "
                         f"make a grid of {gw} x {gh} cells of {cfg.cell_size}: nothing to build")
    size = int(cfg.tile_size)
    tiles_x, tiles_z = (gw + size - 1) // size, (gh + size - 1) // size
    level = TiledLevel(cfg, bmin.astype(np.float64), bmax.astype(np.float64), tiles_x, tiles_z)
    geo.bucket(bmin.astype(np.float64), tiles_x, tiles_z, size, tile_border(cfg), cfg.cell_size)
    built = _run(geo, cfg, bmin, bmax, tiles_x, range(tiles_x * tiles_z), workers, spent,
                 obstacles)
    level.meshes = [m for m, _, _, _ in built]
    level.heightfields = [c for _, c, _, _ in built]
    level.details = [d for _, _, d, _ in built]
    level.compacts = [k for _, _, _, k in built]
    level.volumes, level.obstacles = geo.volumes, obstacles
    level.rebuilt = np.arange(tiles_x * tiles_z, dtype=np.int64)
    t1 = time.perf_counter()
    spent["tiles"] = t1 - t0
    level.stitch()
    spent["stitch"] = time.perf_counter() - t1
    return level


def rebuild_tiles(tiled: TiledLevel, tile_ids, vertices, triangles, config: LevelConfig | None
                  = None, *, workers: int = 0, triangle_areas=None, volumes=()) -> Stitched:
    """Rebuild tiles ``tile_ids`` of ``tiled`` from the level's (changed)
    triangles over the same grid (geometry beyond ``tiled``'s bounds is
    cut off), replace them and re-stitch. ``config`` must be ``tiled``'s
    (None: it). Returns the new stitch; other tiles are kept as they
    were. See :meth:`TiledLevel.tiles_touching` for which tiles a change
    reaches."""
    if not isinstance(tiled, TiledLevel):
        raise GraphError(f"rebuild_tiles: expected a TiledLevel (build_tiled gives one), got "
                         f"{type(tiled).__name__}")
    cfg = tiled.config if config is None else config
    if cfg != tiled.config:
        raise GraphError("rebuild_tiles: config differs from the one the tiles were built with; "
                         "build the level again with build_tiled")
    workers = _workers(workers)
    ids = validate.array(tile_ids, "rebuild_tiles: tile_ids", dtype=np.float64)
    if ids.ndim != 1 or not np.isfinite(ids).all() or (ids != np.round(ids)).any():
        raise GraphError(f"rebuild_tiles: tile_ids must be a sequence of tile indices, got "
                         f"{validate.describe(tile_ids)}")
    ids = ids.astype(np.int64)
    bad = (ids < 0) | (ids >= tiled.tile_count)
    if bad.any():
        raise GraphError(f"rebuild_tiles: tile id {int(ids[bad][0])} is not a tile of this level "
                         f"(0..{tiled.tile_count - 1})")
    ids = [int(i) for i in np.unique(ids)]
    geo = _Geometry(vertices, triangles, cfg, triangle_areas, volumes)
    bmin, bmax = tiled.bmin.astype(np.float32), tiled.bmax.astype(np.float32)
    geo.bucket(tiled.bmin, tiled.tiles_x, tiled.tiles_z, int(cfg.tile_size), tile_border(cfg),
               cfg.cell_size)
    built = _run(geo, cfg, bmin, bmax, tiled.tiles_x, ids, workers, {}, tiled.obstacles)
    for i, (m, c, d, k) in zip(ids, built):
        tiled.meshes[i] = m
        tiled.heightfields[i] = c
        tiled.details[i] = d
        tiled.compacts[i] = k
    tiled.volumes = geo.volumes
    tiled.rebuilt = np.asarray(ids, dtype=np.int64)
    tiled._stitched = None
    return tiled.stitch()


def checked_obstacles(obstacles, error=GraphError) -> tuple:
    """``obstacles`` (specs, y up, or ``Obstacle`` values) as a tuple of
    ``Obstacle``; ``error`` saying which is wrong."""
    if isinstance(obstacles, (str, bytes, dict)) or not hasattr(obstacles, "__iter__") \
            or isinstance(obstacles, np.ndarray) and obstacles.ndim == 0:
        raise error(f"obstacles must be a list of obstacles, got "
                    f"{validate.describe(obstacles)}")
    out = []
    for i, ob in enumerate(obstacles):
        if not isinstance(ob, Obstacle):
            try:
                ob = obstacle(ob)
            except UpdateError as exc:
                raise error(f"obstacles[{i}]: {exc}") from None
        out.append(ob)
    return tuple(out)


def obstacle_tiles(tiled: TiledLevel, obstacles) -> np.ndarray:
    """Sorted int64 ids of the tiles whose padded grid ``obstacles``
    (``Obstacle`` values) reach: the tiles to rebuild when they come or
    go (a cell of slack each side: the marking rounds to cells)."""
    ids = [_reach(tiled, ob.lo, ob.hi) for ob in obstacles]
    return np.unique(np.concatenate(ids)) if ids else np.zeros(0, np.int64)


def _reach(tiled: TiledLevel, lo, hi) -> np.ndarray:
    """The tiles whose padded grid the x-z box ``lo..hi`` reaches, with a
    cell of slack each side (the marking rounds to cells)."""
    c = float(tiled.config.cell_size)
    return tiled.tiles_touching(np.asarray(lo, float) - c, np.asarray(hi, float) + c)


def volume_key(volume) -> tuple:
    """A volume of ``checked_volumes`` as a hashable value: two volumes
    with equal keys mark the same spans with the same area."""
    if isinstance(volume, AreaBox):
        parts = ("box", volume.bmin, volume.bmax)
    elif isinstance(volume, AreaCylinder):
        parts = ("cylinder", volume.center, volume.radius, volume.height)
    else:
        parts = ("convex", volume[0], volume[1], volume[2])
    return tuple(np.asarray(p, np.float64).tobytes() if not isinstance(p, str) else p
                 for p in parts) + (int(volume[-1]),)


def _volume_tiles(tiled: TiledLevel, before, after) -> np.ndarray:
    """Sorted int64 ids of the tiles whose marking changes when the area
    volumes ``before`` become ``after``: a tile's marking is the sequence
    of volumes (later over earlier) that reach its padded grid, so a tile
    is rebuilt when that sequence differs, and a tile only volumes equal
    in both reach (in the same order) is kept."""
    def reached(volumes):
        seq = {}
        boxes = _tile_pipeline.pack_volumes(volumes)[-1]          # x-z lo, hi per volume
        for vol, box in zip(volumes, boxes):
            key = volume_key(vol)
            for t in _reach(tiled, box[:2], box[2:]).tolist():
                seq.setdefault(t, []).append(key)
        return seq
    a, b = reached(before), reached(after)
    return np.array(sorted(t for t in a.keys() | b.keys() if a.get(t) != b.get(t)), np.int64)


def changed_tiles(tiled: TiledLevel, obstacles, volumes=None) -> np.ndarray:
    """Sorted int64 ids of the tiles :func:`rebuild_obstacles` rebuilds
    going from ``tiled``'s obstacles and area volumes to ``obstacles``
    (``Obstacle`` values, all of them) and ``volumes`` (checked volumes,
    all of them; None: ``tiled``'s): those an obstacle added or removed
    reaches (``obstacle_tiles``) and those whose volumes differ."""
    before = {id(ob) for ob in tiled.obstacles}
    after = {id(ob) for ob in obstacles}
    changed = [ob for ob in tiled.obstacles if id(ob) not in after] + \
        [ob for ob in obstacles if id(ob) not in before]
    ids = obstacle_tiles(tiled, changed)
    if volumes is not None:
        ids = np.union1d(ids, _volume_tiles(tiled, tiled.volumes, volumes)).astype(np.int64)
    return ids


def rebuild_obstacles(tiled: TiledLevel, obstacles, *, volumes=None, workers: int = 0,
                      timings: dict | None = None) -> TiledLevel:
    """``tiled`` with run-time ``obstacles`` (all of them, as
    :func:`checked_obstacles` takes them) instead of its own, and area
    ``volumes`` (as ``build_tiled`` takes them; None: ``tiled``'s): a new
    ``TiledLevel`` (``tiled`` is left as it was; untouched tiles are
    shared) whose tiles reached by an obstacle added or removed, or whose
    area volumes change (``changed_tiles``; ``rebuilt`` lists them), are
    made again from their cached compact heightfields: obstacles marked,
    erosion, area volumes, regions, contours, polygons, detail
    (DetourTileCache's rebuild). The answer is stitched, and equals
    ``build_tiled`` of the same geometry with these obstacles and
    volumes. ``timings`` receives ``"mesh"`` (the tiles' erosion ..
    detail, summed over the tiles), ``"tiles"`` and ``"stitch"``."""
    if not isinstance(tiled, TiledLevel):
        raise GraphError(f"rebuild_obstacles: expected a TiledLevel (build_tiled gives one), "
                         f"got {type(tiled).__name__}")
    workers = _workers(workers)
    spent = checked_timings(timings)
    obstacles = checked_obstacles(obstacles, GraphError)
    volumes = tiled.volumes if volumes is None else checked_volumes(volumes)
    ids = changed_tiles(tiled, obstacles, volumes)
    cfg = tiled.config
    t0 = time.perf_counter()
    available = limits.available_memory()
    packed_volumes, packed = _tile_pipeline.pack_volumes(volumes), _packed_obstacles(obstacles)

    def one(i):
        spent_here = {}
        if tiled.compacts[i] is None:
            return (None, None, None), spent_here
        return _finish_tile(tiled.compacts[i], cfg, packed_volumes, packed, spent_here,
                            available), spent_here
    built = _pool(one, ids.tolist(), workers, spent, cost=lambda i: 0 if tiled.compacts[i] is None
                  else tiled.compacts[i].span_count)
    new = TiledLevel(cfg, tiled.bmin, tiled.bmax, tiled.tiles_x, tiled.tiles_z,
                     list(tiled.meshes), list(tiled.heightfields), list(tiled.details),
                     list(tiled.compacts), volumes, obstacles, ids)
    for i, (m, c, d) in zip(ids.tolist(), built):
        new.meshes[i], new.heightfields[i], new.details[i] = m, c, d
    t1 = time.perf_counter()
    spent["tiles"] = t1 - t0
    new.stitch()
    spent["stitch"] = time.perf_counter() - t1
    return new


# ---------------------------------------------------------------- stitching

def _stitch(level: TiledLevel) -> Stitched:
    cfg = level.config
    size = int(cfg.tile_size)
    nvp = int(cfg.verts_per_poly)
    parts = [(i, m) for i, m in enumerate(level.meshes) if m is not None]
    if not parts:
        empty = PolyMesh(np.zeros((0, 3), np.int32), np.zeros((0, nvp), np.int32),
                         np.zeros((0, nvp), np.int32), np.zeros(0, np.int32),
                         np.zeros(0, np.uint8), nvp, level.bmin.copy(), float(cfg.cell_size),
                         float(cfg.cell_height))
        return Stitched(empty, np.zeros(0, np.int32), np.zeros((0, 2), np.int32))
    # every tile's arrays in one, each tile's ids shifted past the tiles before
    ids = np.array([i for i, _ in parts], np.int64)
    meshes = [m for _, m in parts]
    nv = np.array([len(m.verts) for m in meshes], np.int64)
    npoly = np.array([m.poly_count for m in meshes], np.int64)
    voff, poff = np.cumsum(nv) - nv, np.cumsum(npoly) - npoly
    top = np.array([int(m.regions.max(initial=0)) for m in meshes], np.int64)
    roff = np.cumsum(top) - top
    corner = np.stack([ids % level.tiles_x * size, np.zeros_like(ids), ids // level.tiles_x * size],
                      axis=1)
    verts = np.concatenate([m.verts for m in meshes]).astype(np.int64) + np.repeat(corner, nv, 0)
    polys = np.concatenate([m.polys for m in meshes]).astype(np.int64)
    polys = np.where(polys >= 0, polys + np.repeat(voff, npoly)[:, None], -1)
    nbrs = np.concatenate([m.neighbors for m in meshes]).astype(np.int64)
    nbrs = np.where(nbrs >= 0, nbrs + np.repeat(poff, npoly)[:, None], nbrs)
    regs = np.concatenate([m.regions for m in meshes])
    regs = np.where(regs > 0, regs + np.repeat(roff, npoly), regs)
    areas = np.concatenate([m.areas for m in meshes])
    tile_of = np.repeat(ids, npoly).astype(np.int32)
    remap = _weld(verts, size)
    polys = np.where(polys >= 0, remap[np.maximum(polys, 0)], -1)
    used = np.unique(polys[polys >= 0])
    compact_ids = np.full(len(verts), -1, np.int64)
    compact_ids[used] = np.arange(len(used))
    verts = verts[used]
    polys = np.where(polys >= 0, compact_ids[np.maximum(polys, 0)], -1)
    out_polys, out_nbrs, unlinked = _split_and_link(verts, polys, nbrs, nvp,
                                                    int(cfg.walkable_climb))
    split = int((out_polys >= 0).sum()) != int((polys >= 0).sum())
    details = [level.details[i] if i < len(level.details) else None for i, _ in parts]
    detail = None if split or any(d is None for d in details) else _join_details(details)
    mesh = PolyMesh(verts=verts.astype(np.int32), polys=out_polys.astype(np.int32),
                    neighbors=out_nbrs.astype(np.int32),
                    regions=regs.astype(np.int32),
                    areas=areas.astype(np.uint8), nvp=out_polys.shape[1],
                    bmin=level.bmin.copy(), cs=float(cfg.cell_size), ch=float(cfg.cell_height))
    return Stitched(mesh, tile_of, unlinked, detail)


def _join_details(details) -> DetailMesh:
    """One DetailMesh of the tiles' (polygons in the same order)."""
    verts, tris, flags, voffs, toffs = [], [], [], [np.zeros(1, np.int64)], [np.zeros(1, np.int64)]
    nv = nt = 0
    for d in details:
        verts.append(d.verts)
        tris.append(d.tris + nv)
        flags.append(d.tri_flags)
        voffs.append(d.vert_offsets[1:] + nv)
        toffs.append(d.tri_offsets[1:] + nt)
        nv += len(d.verts)
        nt += len(d.tris)
    return DetailMesh(np.concatenate(verts), np.concatenate(tris).astype(np.int32),
                      np.concatenate(flags), np.concatenate(voffs).astype(np.int64),
                      np.concatenate(toffs).astype(np.int64))


def _weld(verts, size) -> np.ndarray:
    """Index of the vertex each vertex becomes: vertices on tile sides at
    the same (x, z), each within two cell heights of the next lower one,
    are one (the lowest)."""
    n = len(verts)
    remap = np.arange(n, dtype=np.int64)
    side = np.flatnonzero((verts[:, 0] % size == 0) | (verts[:, 2] % size == 0))
    if len(side) < 2:
        return remap
    v = verts[side]
    order = np.lexsort((v[:, 1], v[:, 2], v[:, 0]))
    v, ids = v[order], side[order]
    new = np.ones(len(ids), bool)
    new[1:] = ((v[1:, 0] != v[:-1, 0]) | (v[1:, 2] != v[:-1, 2])
               | (v[1:, 1] - v[:-1, 1] > 2))
    group = np.cumsum(new) - 1
    remap[ids] = ids[np.flatnonzero(new)][group]
    return remap


def _split_and_link(verts, polys, nbrs, nvp, climb):
    count = (polys >= 0).sum(axis=1)
    rows, cols = np.nonzero(nbrs <= -2)
    if len(rows) == 0:
        return polys, nbrs, np.zeros((0, 2), np.int32)
    # every portal edge: its line (x fixed for directions 0/2, z for 1/3),
    # the coordinate along it, and its ends
    a = polys[rows, cols]
    b = polys[rows, np.where(cols + 1 < count[rows], cols + 1, 0)]
    fixed = np.where((-2 - nbrs[rows, cols]) % 2 == 0, 0, 2)
    along = 2 - fixed
    _, line = np.unique(np.stack([fixed, verts[a, fixed]], axis=1), axis=0, return_inverse=True)
    line = line.ravel()
    # every portal end on each line, ordered by line and then along it;
    # an edge needs splitting where an end lies strictly between its own
    span = int(np.abs(verts[:, [0, 2]]).max()) * 2 + 3
    end_v = np.concatenate([a, b])
    end_key = np.concatenate([line, line]) * span + verts[end_v, np.concatenate([along, along])]
    order = np.argsort(end_key, kind="stable")
    end_key, end_v = end_key[order], end_v[order]
    t_a, t_b = verts[a, along], verts[b, along]
    lo_key = line * span + np.minimum(t_a, t_b)
    hi_key = line * span + np.maximum(t_a, t_b)
    first = np.searchsorted(end_key, lo_key, "right")
    last = np.searchsorted(end_key, hi_key, "left")
    rings, links = {}, {}
    # highest column first, so insertions do not move edges yet to split
    for k in np.lexsort((-cols, rows)):
        if first[k] >= last[k]:
            continue
        cand = np.unique(end_v[first[k]:last[k]])
        p, j, ax = int(rows[k]), int(cols[k]), int(along[k])
        va, vb = verts[a[k]], verts[b[k]]
        frac = (verts[cand, ax] - va[ax]) / float(vb[ax] - va[ax])
        y = va[1] + frac * (vb[1] - va[1])
        keep = np.abs(verts[cand, 1] - y) <= climb          # the edge's own floor only
        if not keep.any():
            continue
        cand, frac = cand[keep], frac[keep]
        cand = cand[np.argsort(frac)]
        if p not in rings:
            rings[p] = list(polys[p, :count[p]])
            links[p] = list(nbrs[p, :count[p]])
        rings[p][j + 1:j + 1] = [int(c) for c in cand]
        links[p][j + 1:j + 1] = [links[p][j]] * len(cand)
    width = max([nvp] + [len(r) for r in rings.values()])
    out_polys = np.full((len(polys), width), -1, np.int64)
    out_nbrs = np.full((len(polys), width), -1, np.int64)
    out_polys[:, :polys.shape[1]] = polys
    out_nbrs[:, :nbrs.shape[1]] = nbrs
    for p, ring in rings.items():
        out_polys[p, :len(ring)] = ring
        out_nbrs[p, :len(ring)] = links[p]
    # link the portal pieces that share both ends (one polygon each way)
    cnt = (out_polys >= 0).sum(axis=1)
    pr, pc = np.nonzero(out_nbrs <= -2)
    u = out_polys[pr, pc]
    v = out_polys[pr, np.where(pc + 1 < cnt[pr], pc + 1, 0)]
    n = len(verts)
    key = u * n + v
    order = np.argsort(key)
    want = v * n + u
    at = np.minimum(np.searchsorted(key[order], want), len(key) - 1)
    found = key[order][at] == want
    out_nbrs[pr, pc] = np.where(found, pr[order][at], -1)
    unlinked = np.stack([pr[~found], pc[~found]], axis=1)
    return out_polys, out_nbrs, unlinked.astype(np.int32).reshape(-1, 2)
