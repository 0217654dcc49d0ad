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
from .contours import ContourSet, _grid_frame, _int_array, _whole_number
from .heightfield import PolyMesh

__all__ = ["build_polymesh"]

_log = logging.getLogger("navcore")


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
    verts = _int_array(contours, "contour set", "verts", 2, np.int32, cols=4)
    vstart = _int_array(contours, "contour set", "vert_start", 1, np.int64)
    vcount = _int_array(contours, "contour set", "vert_count", 1, np.int64)
    regions = _int_array(contours, "contour set", "regions", 1, np.int32)
    areas = _int_array(contours, "contour set", "areas", 1, np.uint8)
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
        _whole_number(getattr(contours, name, None), f"contour set {name}")
    bmin = _grid_frame(contours, "contour set")
    return _polygons(contours, verts, vstart, vcount, regions, areas, nvp, bmin)


def polymesh_checked(contours: ContourSet, nvp: int) -> PolyMesh:
    """``build_polymesh`` of a contour set ``build_contours`` made (not
    checked again), ``nvp`` from a checked ``LevelConfig``."""
    return _polygons(contours, contours.verts, contours.vert_start, contours.vert_count,
                     contours.regions, contours.areas, int(nvp),
                     np.asarray(contours.bmin, np.float64))


def polymesh_warning(bad: int) -> None:
    """Logs the contours a polygon stage could not fully triangulate."""
    _log.warning("build_polymesh: %d contour(s) could not be fully triangulated "
                 "(self-overlapping after simplification); their polygons cover only "
                 "part of them", bad)


def _polygons(contours, verts, vstart, vcount, regions, areas, nvp, bmin) -> PolyMesh:
    out_verts, polys, neighbors, regs, pareas, bad = build_polymesh_kernel(
        verts, vstart, vcount, regions, areas, nvp, int(contours.border_size),
        int(contours.width), int(contours.height))
    if bad:
        polymesh_warning(bad)
    return PolyMesh(verts=out_verts, polys=polys, neighbors=neighbors, regions=regs,
                    areas=pareas, nvp=nvp, bmin=bmin.copy(),
                    cs=float(contours.cs), ch=float(contours.ch),
                    border_size=int(contours.border_size))
