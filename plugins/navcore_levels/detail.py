"""The detail height mesh: each polygon of a :class:`PolyMesh` covered by
small triangles that follow the floor's heights (Recast's
``rcBuildPolyMeshDetail``, Detour's ``getPolyHeight``).

A navmesh polygon is flat only between its corners; the floor under it
may rise and fall (a terrain, a ramp that bends). :func:`build_detail_mesh`
samples the compact heightfield under every polygon and triangulates the
samples until the surface is within ``sample_max_error`` of them;
:func:`surface_height` / :func:`surface_heights` read that surface, which
is what lifts path points onto the floor.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from navcore import validate
from navcore.errors import GraphError, QueryError
from navcore.limits import check_memory

from ._detail_kernels import build_detail, surface_heights_kernel
from .contours import check_heightfield
from .heightfield import CompactHeightfield, PolyMesh

#: Flag of a detail triangle's edge ``k`` (bit ``2 * k``) lying on its
#: polygon's outline (Detour's ``DT_DETAIL_EDGE_BOUNDARY``).
EDGE_ON_OUTLINE = 1


@dataclass
class DetailMesh:
    """Triangles over each polygon that follow the floor's heights (Recast's
    ``rcPolyMeshDetail``).

    verts: float64 (V, 3), world ``(x, y, z)``. Polygon ``p``'s vertices
        are ``verts[vert_offsets[p]:vert_offsets[p + 1]]``: first its own
        corners, in the polygon's order (at the polygon mesh's heights,
        exactly ``PolyMesh.world_vertices()`` of them), then points sampled
        on its edges, then interior samples. Heights are floor tops,
        ``bmin.y + y * ch`` (Recast's detail vertices are one cell height
        higher than this).
    tris: int32 (T, 3), indices into ``verts`` (global, not per polygon).
        Polygon ``p``'s triangles are ``tris[tri_offsets[p]:tri_offsets[p + 1]]``;
        they cover the polygon exactly and have its winding (a polygon
        past Recast's 255 triangles keeps its first 255, as Recast).
    tri_flags: uint8 (T,), bit ``2 * k`` (:data:`EDGE_ON_OUTLINE`) set when
        the triangle's edge ``k`` (vertex ``k`` to ``k + 1``) lies on the
        polygon's outline, as Detour's ``detailTris`` flags.
    vert_offsets, tri_offsets: int64 (P + 1,), where each polygon's
        vertices and triangles start (Recast's ``meshes`` as offsets).
    """
    verts: np.ndarray
    tris: np.ndarray
    tri_flags: np.ndarray
    vert_offsets: np.ndarray
    tri_offsets: np.ndarray

    @property
    def poly_count(self) -> int:
        return int(self.vert_offsets.shape[0]) - 1

    @property
    def vert_count(self) -> int:
        return int(self.verts.shape[0])

    @property
    def tri_count(self) -> int:
        return int(self.tris.shape[0])

    def poly_triangles(self, poly: int) -> np.ndarray:
        """float64 (n, 3, 3): polygon ``poly``'s triangles as world points."""
        if not validate.is_int(poly) or not 0 <= poly < self.poly_count:
            raise QueryError(f"poly must be a polygon id in 0..{self.poly_count - 1}, "
                             f"got {poly!r}")
        p = int(poly)
        return self.verts[self.tris[self.tri_offsets[p]:self.tri_offsets[p + 1]]]


def _int_array(value, what, ndim, columns=None) -> np.ndarray:
    a = validate.array(value, what)
    if a.ndim != ndim or (columns is not None and a.shape[1] != columns) \
            or not (a.dtype.kind in "iu" or (a.size == 0 and a.dtype.kind == "f")):
        shape = "(n,)" if ndim == 1 else f"(n, {columns if columns is not None else 'k'})"
        raise GraphError(f"{what} must be an integer array of shape {shape}, got "
                         f"{a.dtype} {a.shape}")
    if a.size and (a.min() < np.iinfo(np.int32).min or a.max() > np.iinfo(np.int32).max):
        raise GraphError(f"{what} holds values outside int32")
    return a.astype(np.int32)


def _check_polymesh(polymesh, chf) -> tuple:
    if not isinstance(polymesh, PolyMesh):
        raise GraphError(f"polymesh must be a PolyMesh, got {type(polymesh).__name__}")
    verts = _int_array(polymesh.verts, "polymesh.verts", 2, 3)
    polys = _int_array(polymesh.polys, "polymesh.polys", 2)
    nv = verts.shape[0]
    npolys, nvp = polys.shape
    if nvp != polymesh.nvp or not 3 <= nvp <= 12:
        raise GraphError(f"polymesh.polys must have nvp = {polymesh.nvp!r} columns (3..12), "
                         f"got {nvp}")
    regions = _int_array(polymesh.regions, "polymesh.regions", 1)
    if regions.shape[0] != npolys:
        raise GraphError(f"polymesh.regions must hold one region per polygon ({npolys}), "
                         f"got {regions.shape[0]}")
    if npolys:
        if polys.min() < -1 or polys.max() >= nv:
            bad = int(np.argmax((polys < -1) | (polys >= nv)) // nvp)
            raise GraphError(f"polygon {bad} has a vertex index outside 0..{nv - 1}: "
                             f"{polys[bad].tolist()}")
        used = polys >= 0
        counts = used.sum(axis=1)
        # -1 only after the last vertex: the used columns are a prefix.
        prefix = used == (np.arange(nvp)[None, :] < counts[:, None])
        bad_rows = np.flatnonzero((counts < 3) | ~prefix.all(axis=1))
        if bad_rows.size:
            bad = int(bad_rows[0])
            raise GraphError(f"polygon {bad} must list 3..{nvp} vertices followed only by -1, "
                             f"got {polys[bad].tolist()}")
    for name in ("cs", "ch"):
        mine = getattr(polymesh, name)
        theirs = getattr(chf, name)
        if not (isinstance(mine, (int, float, np.number)) and math.isfinite(mine) and mine > 0):
            raise GraphError(f"polymesh.{name} must be a finite number > 0, got {mine!r}")
        if not math.isclose(float(mine), float(theirs), rel_tol=1e-9):
            raise GraphError(f"polymesh.{name} ({mine!r}) differs from chf.{name} ({theirs!r}): "
                             "the polygon mesh must come from this heightfield")
    if polymesh.border_size != chf.border_size:
        raise GraphError(f"polymesh.border_size ({polymesh.border_size!r}) differs from "
                         f"chf.border_size ({chf.border_size!r})")
    bmin = validate.array(polymesh.bmin, "polymesh.bmin", dtype=np.float64)
    if bmin.shape != (3,) or not np.isfinite(bmin).all():
        raise GraphError(f"polymesh.bmin must be 3 finite numbers, got {polymesh.bmin!r}")
    # Corners are in cells from the inner grid's corner; a region traced
    # inside a tile's border may reach into the border (bs cells).
    bs = chf.border_size
    lo, hi_x, hi_z = -bs, chf.width - bs, chf.height - bs
    if nv:
        bad_rows = np.flatnonzero((verts[:, 0] < lo) | (verts[:, 0] > hi_x) | (verts[:, 2] < lo)
                                  | (verts[:, 2] > hi_z) | (verts[:, 1] < 0))
        if bad_rows.size:
            bad = int(bad_rows[0])
            raise GraphError(f"polymesh vertex {bad} {verts[bad].tolist()} lies outside the "
                             f"heightfield's {chf.width} x {chf.height} cells (x {lo}..{hi_x}, "
                             f"z {lo}..{hi_z} with border {bs}, y >= 0)")
    return verts, polys, regions, bmin


def build_detail_mesh(polymesh: PolyMesh, chf: CompactHeightfield, sample_distance: float,
                      sample_max_error: float, *, edge_max_error: float = 1.3) -> DetailMesh:
    """The detail height mesh of ``polymesh`` over the floors of ``chf``
    (the compact heightfield it was built from, regions filled).

    ``sample_distance`` (world units; ``LevelConfig.detail_sample_distance``):
    spacing of the height samples on polygon edges and inside polygons; 0
    samples nothing, each polygon is then its corners, triangulated.
    ``sample_max_error`` (world units; ``LevelConfig.detail_sample_error``):
    samples are added while one is farther than this from the surface.
    ``edge_max_error`` (cells; ``LevelConfig.edge_max_error``): how far the
    polygon outlines may stray from the floor's cells, which sets how many
    rings of cells a sample without height data searches (``max(1,
    ceil(edge_max_error))``, as Recast).

    A polygon's heights come only from spans reached over walkable
    connections from its region's spans, so a polygon on an upper floor
    never reads the floor below. A sample with no height data within its
    search rings is skipped (on an edge, the edge's straight line is
    kept). As Recast, a polygon gets at most 127 detail vertices, an edge
    at most 30 new points and a polygon at most 255 triangles.

    Which samples are kept and how they are triangulated is decided in
    float32, as Recast decides it (heights are whole cell heights, so
    errors fall exactly on the limit often); on RecastDemo's levels the
    vertex and triangle counts equal C++ Recast's. Output coordinates are
    float64.
    """
    sample_distance = validate.distance(sample_distance, "sample_distance")
    sample_max_error = validate.distance(sample_max_error, "sample_max_error")
    edge_max_error = validate.distance(edge_max_error, "edge_max_error")
    (_, _, _, cell_index, cell_count, span_y, neighbors, _, region,
     _) = check_heightfield(chf)
    verts, polys, regions, bmin = _check_polymesh(polymesh, chf)
    return _detail(polymesh, chf, verts, polys, regions, bmin, cell_index, cell_count, span_y,
                   neighbors, region, sample_distance, sample_max_error, edge_max_error)


def detail_checked(polymesh: PolyMesh, chf: CompactHeightfield, sample_distance: float,
                   sample_max_error: float, edge_max_error: float) -> DetailMesh:
    """``build_detail_mesh`` of a polygon mesh and compact heightfield the
    pipeline made (not checked again), settings from a checked
    ``LevelConfig``."""
    i32 = np.int32
    return _detail(polymesh, chf, np.ascontiguousarray(polymesh.verts, i32),
                   np.ascontiguousarray(polymesh.polys, i32),
                   np.ascontiguousarray(polymesh.regions, i32),
                   np.asarray(polymesh.bmin, np.float64), chf.cell_index, chf.cell_count, chf.y,
                   chf.neighbors, chf.region, float(sample_distance), float(sample_max_error),
                   float(edge_max_error))


def _detail(polymesh, chf, verts, polys, regions, bmin, cell_index, cell_count, span_y,
            neighbors, region, sample_distance, sample_max_error, edge_max_error
            ) -> DetailMesh:
    npolys = polys.shape[0]
    # The kernel's first output buffers (they grow as needed) and scratch.
    check_memory(f"a detail mesh of {npolys} polygons",
                 48 * verts.shape[0] + 32 * polys.size + 16 * chf.width * chf.height)
    # cells searched round an edge: more than the grid's size finds nothing more
    radius = max(1, int(math.ceil(min(edge_max_error, chf.width + chf.height))))
    out = build_detail(verts, polys, regions, bmin, float(polymesh.cs), float(polymesh.ch),
                       int(chf.border_size), int(chf.width), int(chf.height), cell_index,
                       cell_count, span_y, neighbors, region, sample_distance, sample_max_error,
                       radius)
    return DetailMesh(*out)


def _check_detail(detail) -> None:
    if not isinstance(detail, DetailMesh):
        raise QueryError(f"detail must be a DetailMesh, got {type(detail).__name__}")


def _poly_ids(values, count: int) -> np.ndarray:
    arr = validate.array(values, "polys", error=QueryError)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1 or not (arr.size == 0 or validate.int_dtype(arr.dtype)):
        raise QueryError(f"polys must be a 1-d sequence of integer polygon ids, got "
                         f"{validate.describe(values) if not isinstance(values, np.ndarray) else arr.dtype}")
    if arr.size and (arr.min() < 0 or arr.max() >= count):
        i = int(np.flatnonzero((arr < 0) | (arr >= count))[0])
        raise QueryError(f"polys holds polygon {int(arr[i])} (index {i}), out of range for "
                         f"a detail mesh of {count} polygons")
    return arr.astype(np.int64)


def surface_heights(detail: DetailMesh, polys, points) -> np.ndarray:
    """float64 (n,): the height of the detail surface of ``polys[i]`` at
    ``points[i]`` (Detour's ``getPolyHeight``). ``points``: (n, 2) as
    ``(x, z)`` or (n, 3) as ``(x, y, z)`` (``y`` ignored), world units.

    A point off its polygon (a path point rounded just past an edge) gets
    the height of the nearest point of the polygon's outline, as Detour's
    ``closestPointOnPoly``; a polygon without triangles gives NaN.
    """
    _check_detail(detail)
    pts = validate.array(points, "points", error=QueryError, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[1] not in (2, 3):
        raise QueryError(f"points must be an (n, 2) array of (x, z) or (n, 3) of (x, y, z), "
                         f"got shape {pts.shape}")
    if not np.isfinite(pts).all():
        raise QueryError("points must be finite")
    ids = _poly_ids(polys, detail.poly_count)
    if ids.shape != (pts.shape[0],):
        raise QueryError(f"polys must give one polygon per point ({pts.shape[0]}), got "
                         f"{ids.shape[0]}")
    xs = np.ascontiguousarray(pts[:, 0])
    zs = np.ascontiguousarray(pts[:, 1] if pts.shape[1] == 2 else pts[:, 2])
    return surface_heights_kernel(detail.verts, detail.tris, detail.tri_offsets, ids, xs, zs)


def surface_height(detail: DetailMesh, poly: int, x: float, z: float) -> float:
    """The height of the detail surface of polygon ``poly`` at world
    ``(x, z)``; see :func:`surface_heights`."""
    _check_detail(detail)
    if not validate.is_int(poly):
        raise QueryError(f"poly must be an integer polygon id, got {poly!r}")
    p = int(_poly_ids(np.array([int(poly)]), detail.poly_count)[0])
    for value, name in ((x, "x"), (z, "z")):
        if isinstance(value, (bool, np.bool_)) or not isinstance(
                value, (int, float, np.integer, np.floating)) or not math.isfinite(value):
            raise QueryError(f"{name} must be a finite number, got {value!r}")
    return float(surface_heights_kernel(
        detail.verts, detail.tris, detail.tri_offsets, np.array([p], np.int64),
        np.array([float(x)]), np.array([float(z)]))[0])
