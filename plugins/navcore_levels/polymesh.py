"""Convex polygons from region contours: the polygon stage of the level
pipeline (Recast's ``rcBuildPolyMesh``).

Each contour is cut into triangles by ear clipping (always the ear with
the shortest new diagonal, as Recast does, so the mesh matches Recast's),
the triangles of a contour are merged into convex polygons of at most
``nvp`` vertices (the pair sharing the longest edge first), vertices at
the same cell corner within two cell heights are welded across contours,
vertices a tile border left in the middle of a straight edge are removed
(their polygons re-cut), and every polygon edge is linked to the polygon
across it.
"""
from __future__ import annotations

import logging

import numpy as np

from navcore import validate
from navcore.errors import GraphError

from ._polymesh import build_polymesh_kernel
from .contours import ContourSet
from .heightfield import PolyMesh

__all__ = ["build_polymesh"]

_log = logging.getLogger("navcore")


def _contour_array(cset, name, ndim, dtype, cols=None):
    arr = validate.array(getattr(cset, name, None), f"contour set {name}")
    if arr.ndim != ndim or (cols is not None and arr.shape[1] != cols) or \
            not (arr.size == 0 or validate.int_dtype(arr.dtype)):
        want = f"(n, {cols})" if cols is not None else "(n,)"
        raise GraphError(f"contour set {name} must be an integer array of shape {want}, "
                         f"got {arr.dtype} of shape {arr.shape}")
    info = np.iinfo(dtype)
    if arr.dtype != dtype and arr.size and (arr.min() < info.min or arr.max() > info.max):
        raise GraphError(f"contour set {name} holds {arr.min()}..{arr.max()}, outside "
                         f"{np.dtype(dtype).name}")
    return np.ascontiguousarray(arr, dtype=dtype)


def build_polymesh(contours: ContourSet, nvp: int = 6) -> PolyMesh:
    """Convex polygons of at most ``nvp`` vertices (3..12,
    ``LevelConfig.verts_per_poly``) covering every contour of
    ``contours`` (from :func:`navcore_levels.contours.build_contours`),
    with their neighbours linked. Polygons keep their contour's region
    and area (a polygon re-cut around a removed border vertex from pieces
    of several regions gets region 0). Edges on a tile's outer side (when
    the heightfield had a border) are marked ``-2 - direction``."""
    if not isinstance(contours, ContourSet):
        raise GraphError(f"expected a ContourSet (build_contours gives one), got "
                         f"{type(contours).__name__}")
    if not validate.is_int(nvp) or not 3 <= int(nvp) <= 12:
        raise GraphError(f"nvp (vertices per polygon) must be an integer in 3..12, got "
                         f"{validate.describe(nvp)}")
    nvp = int(nvp)
    verts = _contour_array(contours, "verts", 2, np.int32, cols=4)
    vstart = _contour_array(contours, "vert_start", 1, np.int64)
    vcount = _contour_array(contours, "vert_count", 1, np.int64)
    regions = _contour_array(contours, "regions", 1, np.int32)
    areas = _contour_array(contours, "areas", 1, np.uint8)
    n = vcount.shape[0]
    for name, arr in (("vert_start", vstart), ("regions", regions), ("areas", areas)):
        if arr.shape[0] != n:
            raise GraphError(f"contour set {name} has {arr.shape[0]} entries for {n} contours "
                             f"(len(vert_count))")
    bad = (vcount < 0) | (vstart < 0) | (vstart + vcount > verts.shape[0])
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise GraphError(f"contour {i} lists vertices {vstart[i]}..{vstart[i] + vcount[i] - 1}, "
                         f"outside the {verts.shape[0]} rows of verts")
    # (A region in a tile's border, unmarked, gives corners below 0: allowed.)
    if verts.size and np.abs(verts[:, :3]).max() >= 1 << 24:
        raise GraphError(f"contour set verts hold coordinates {verts[:, :3].min()}.."
                         f"{verts[:, :3].max()}; cell corners and heights must stay "
                         f"within +-2**24")
    for name in ("width", "height", "border_size"):
        value = getattr(contours, name, None)
        if not validate.is_int(value) or not 0 <= value < 2 ** 31:
            raise GraphError(f"contour set {name} must be an integer >= 0 (below 2**31), got "
                             f"{validate.describe(value)}")
    bmin = validate.array(contours.bmin, "contour set bmin", dtype=np.float64)
    if bmin.shape != (3,) or not np.isfinite(bmin).all():
        raise GraphError(f"contour set bmin must be 3 finite numbers, got {contours.bmin!r}")
    for name in ("cs", "ch"):
        if validate.distance(getattr(contours, name), f"contour set {name}") == 0:
            raise GraphError(f"contour set {name} must be a finite number > 0, got 0")
    out_verts, polys, neighbors, regs, pareas, bad = build_polymesh_kernel(
        verts, vstart, vcount, regions, areas, nvp, int(contours.border_size),
        int(contours.width), int(contours.height))
    if bad:
        _log.warning("build_polymesh: %d contour(s) could not be fully triangulated "
                     "(self-overlapping after simplification); their polygons cover only "
                     "part of them", bad)
    return PolyMesh(verts=out_verts, polys=polys, neighbors=neighbors, regions=regs,
                    areas=pareas, nvp=nvp, bmin=bmin.copy(),
                    cs=float(contours.cs), ch=float(contours.ch),
                    border_size=int(contours.border_size))
