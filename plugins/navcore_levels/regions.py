"""The partition stage: the walkable spans of a compact heightfield are
split into regions, each a connected piece of one area on one floor,
that the contour stage traces into simple polygons (Recast's
``rcBuildDistanceField``, ``rcBuildRegions`` and
``rcBuildRegionsMonotone``).

Two partitions, as in Recast:

* watershed (the default): a distance field to the walkable edge is
  flooded from its ridges down; regions are compact and few.
* monotone: rows are swept in order; fastest, but regions are long and
  thin.

Both drop groups of connected regions smaller than ``min_region_area``
spans (unless they touch a tile border) and merge regions of at most
``merge_region_area`` spans into a neighbour of the same area. Unlike
Recast, a raw region that covers one cell twice (flooded up a ramp and
back above itself) is split into single-floor pieces before the merge;
Recast keeps it whole and only reports it. And where every span lies on
an edge (nothing but corridors one or two cells wide) the watershed still
floods; Recast's gives no regions there. Region ids are at most ``chf.max_region``,
0 for none, numbered as Recast numbers them, so a few ids are unused (the
last one; with tile borders also 1..4). The spans of a tile's padding
(``border_size`` cells on each side) get border regions
``BORDER_REGION | 1..4``.

>>> from navcore_levels.regions import build_regions_watershed
>>> build_regions_watershed("chf", 8, 20)
Traceback (most recent call last):
navcore.errors.GraphError: build_regions_watershed: chf must be a CompactHeightfield, got str
"""
from __future__ import annotations

import numpy as np

from navcore import validate
from navcore.errors import CapacityError, GraphError
from navcore.limits import check_memory

from ._distance import box_blur, chamfer_distance
from ._layout import (BAD_INDEX, NEGATIVE_COUNT, OK, ORPHAN_SPAN, OUTSIDE_SPANS, SHARED_SPAN,
                      layout_problem)
from ._monotone import monotone
from ._region_filter import merge_and_filter, split_self_overlaps
from ._watershed import watershed
from .config import LevelConfig
from .heightfield import BORDER_REGION, CompactHeightfield

__all__ = ["build_distance_field", "build_regions_watershed", "build_regions_monotone",
           "build_regions"]

#: the most regions a partition may give: ids must stay below ``BORDER_REGION``
MAX_REGIONS = BORDER_REGION - 1
#: scratch bytes per span: the watershed's level stacks (8 x int32), flood
#: stack, pending growth and region copy, then the clean-up's outline walk
#: buffer (4 x int32); the monotone sweep needs the last two and a count per id
WATERSHED_BYTES = 80
MONOTONE_BYTES = 32


def build_distance_field(chf: CompactHeightfield) -> int:
    """Fill ``chf.dist`` with each span's distance to the edge of its
    walkable area (2 per straight step, 3 per diagonal, then blurred over
    3x3 spans), as Recast's ``rcBuildDistanceField``; returns the largest
    distance before the blur (Recast's ``maxDistance``, where the
    watershed starts)."""
    _check_chf(chf, "build_distance_field")
    return _distance_field(chf)


def build_regions_watershed(chf: CompactHeightfield, min_region_area: int,
                            merge_region_area: int, border_size: int | None = None, *,
                            max_distance: int | None = None) -> int:
    """Watershed regions (Recast's ``rcBuildRegions``) from ``chf.dist``,
    which :func:`build_distance_field` fills first (all zeros: every
    connected piece floods as one region); fills ``chf.region`` and
    ``chf.max_region`` and returns ``max_region``.

    ``border_size``: cells of tile padding on each side (default
    ``chf.border_size``; stored there, as Recast does). ``max_distance``:
    what :func:`build_distance_field` returned, where the flooding starts;
    when not given it is computed again from the heightfield."""
    where = "build_regions_watershed"
    _check_chf(chf, where)
    sizes = _check_sizes(chf, min_region_area, merge_region_area, border_size, where)
    if max_distance is None:
        max_distance = chamfer_distance(chf.cell_index, chf.cell_count, chf.neighbors,
                                        chf.area, np.empty(chf.span_count, np.uint16))
    elif not validate.is_int(max_distance) or not 0 <= max_distance <= 0xFFFF:
        raise GraphError(f"{where}: max_distance must be an integer in 0..65535 (what "
                         f"build_distance_field returned), got {max_distance!r}")
    return _watershed_regions(chf, *sizes, int(max_distance), where)


def build_regions_monotone(chf: CompactHeightfield, min_region_area: int,
                           merge_region_area: int, border_size: int | None = None) -> int:
    """Monotone regions (Recast's ``rcBuildRegionsMonotone``): no distance
    field needed; fills ``chf.region`` and ``chf.max_region`` and returns
    ``max_region``. ``border_size`` as for :func:`build_regions_watershed`."""
    where = "build_regions_monotone"
    _check_chf(chf, where)
    sizes = _check_sizes(chf, min_region_area, merge_region_area, border_size, where)
    return _monotone_regions(chf, *sizes, where)


def build_regions(chf: CompactHeightfield, config: LevelConfig) -> int:
    """The partition ``config.partition`` names, with its region sizes and
    ``chf.border_size``; the watershed computes the distance field first.
    Returns ``chf.max_region``."""
    where = "build_regions"
    if not isinstance(config, LevelConfig):
        raise GraphError(f"{where}: config must be a LevelConfig, got {_what(config)}")
    _check_chf(chf, where)
    sizes = _check_sizes(chf, config.min_region_area, config.merge_region_area,
                         chf.border_size, where)
    if config.partition == "monotone":
        return _monotone_regions(chf, *sizes, where)
    return _watershed_regions(chf, *sizes, _distance_field(chf), where)


# The steps after validation.

def partition_checked(chf: CompactHeightfield, config: LevelConfig, border_size: int,
                      lap) -> int:
    """``build_regions`` of a compact heightfield the pipeline made (its
    layout is not checked again) with ``border_size``; ``lap`` is called
    after the distance field (also for the monotone partition, which has
    none) and after the regions."""
    where = "build_regions"
    sizes = _check_sizes(chf, config.min_region_area, config.merge_region_area, border_size,
                         where)
    if config.partition == "monotone":
        lap("distance_field")
        count = _monotone_regions(chf, *sizes, where)
    else:
        top = _distance_field(chf)
        lap("distance_field")
        count = _watershed_regions(chf, *sizes, top, where)
    lap("regions")
    return count


def _distance_field(chf) -> int:
    raw = np.empty(chf.span_count, np.uint16)
    largest = chamfer_distance(chf.cell_index, chf.cell_count, chf.neighbors, chf.area, raw)
    box_blur(chf.neighbors, raw, chf.dist, 1)
    return int(largest)


def _watershed_regions(chf, min_area, merge_area, border, max_distance, where) -> int:
    check_memory(f"{where} of {chf.span_count} spans", chf.span_count * WATERSHED_BYTES)
    region = np.empty(chf.span_count, np.int32)
    next_id = watershed(chf.cell_index, chf.cell_count, chf.width, chf.height, border,
                        chf.neighbors, chf.area, chf.dist, max_distance, region)
    return _finish(chf, region, next_id, min_area, merge_area, border, where)


def _monotone_regions(chf, min_area, merge_area, border, where) -> int:
    check_memory(f"{where} of {chf.span_count} spans", chf.span_count * MONOTONE_BYTES)
    region = np.empty(chf.span_count, np.int32)
    next_id = monotone(chf.cell_index, chf.cell_count, chf.width, chf.height, border,
                       chf.neighbors, chf.area, region)
    return _finish(chf, region, next_id, min_area, merge_area, border, where)


def _finish(chf, region, next_id, min_area, merge_area, border, where) -> int:
    """Split self-overlapping regions, clean up (drop, merge, renumber) and
    store the result in ``chf`` (untouched when the ids do not fit)."""
    count = merge_and_filter(chf.cell_index, chf.cell_count, chf.neighbors, chf.area, region,
                             next_id, min_area, merge_area)
    if count < 0:       # a region covers a cell twice: split it, then clean up
        next_id = split_self_overlaps(chf.cell_index, chf.cell_count, chf.neighbors, region,
                                      next_id)
        count = merge_and_filter(chf.cell_index, chf.cell_count, chf.neighbors, chf.area,
                                 region, next_id, min_area, merge_area)
    if count > MAX_REGIONS:
        raise too_many_regions(where, count)
    chf.region[:] = region
    chf.max_region = int(count)
    chf.border_size = border
    return int(count)


def too_many_regions(where: str, count: int) -> CapacityError:
    return CapacityError(f"{where}: the partition gave {count} regions; region ids must "
                         f"stay below BORDER_REGION ({BORDER_REGION}), so at most "
                         f"{MAX_REGIONS} fit (build the level in tiles)")


def _check_sizes(chf, min_region_area, merge_region_area, border_size, where):
    values = []
    for name, value in (("min_region_area", min_region_area),
                        ("merge_region_area", merge_region_area)):
        if not validate.is_int(value) or value < 0:
            raise GraphError(f"{where}: {name} must be a whole number of spans >= 0, "
                             f"got {value!r}")
        # Beyond the span count a size means the same; numba takes int64 only.
        values.append(min(int(value), chf.span_count + 1))
    if border_size is None:
        border_size = chf.border_size
    if not validate.is_int(border_size) or border_size < 0:
        raise GraphError(f"{where}: border_size must be a whole number of cells >= 0, got "
                         f"{border_size!r}")
    if border_size > max(chf.width, chf.height):
        raise GraphError(f"{where}: border_size {border_size} is wider than the "
                         f"{chf.width} x {chf.height} grid")
    return values[0], values[1], int(border_size)


def _check_chf(chf, where: str) -> None:
    """GraphError naming the first field of ``chf`` that breaks the
    compact heightfield's layout (see ``heightfield.py``): the arrays the
    kernels index must have their dtype and shape, cells must cover the
    spans exactly once, and each neighbour must be a span of the cell next
    to it in that direction (checked by a kernel: O(spans))."""
    if not isinstance(chf, CompactHeightfield):
        raise GraphError(f"{where}: chf must be a CompactHeightfield, got {_what(chf)}")
    for name in ("width", "height", "border_size"):
        value = getattr(chf, name)
        if not validate.is_int(value) or value < 0:
            raise GraphError(f"{where}: chf.{name} must be a whole number >= 0, got {value!r}")
    width, height = int(chf.width), int(chf.height)
    if not isinstance(chf.y, np.ndarray) or chf.y.ndim != 1:
        raise GraphError(f"{where}: chf.y must be a 1-d array (one floor height per span), "
                         f"got {_what(chf.y)}")
    spans = chf.y.shape[0]
    if spans >= 2 ** 31 - 8:
        raise CapacityError(f"{where}: {spans} spans exceed the int32 span index")
    expected = (("cell_index", np.int32, (width * height,)),
                ("cell_count", np.int32, (width * height,)),
                ("neighbors", np.int32, (spans, 4)),
                ("area", np.uint8, (spans,)),
                ("dist", np.uint16, (spans,)),
                ("region", np.int32, (spans,)))
    for name, dtype, shape in expected:
        value = getattr(chf, name)
        if not isinstance(value, np.ndarray):
            raise GraphError(f"{where}: chf.{name} must be a numpy {np.dtype(dtype)} array of "
                             f"shape {shape}, got {_what(value)}")
        if value.dtype != dtype:
            extra = ""
            if name == "area" and validate.real_dtype(value.dtype) and value.size \
                    and (value.min() < 0 or value.max() > 255):
                bad = int(np.flatnonzero((value < 0) | (value > 255))[0])
                extra = f" (area ids are 0..63; span {bad} has {int(value[bad])})"
            raise GraphError(f"{where}: chf.{name} must have dtype {np.dtype(dtype)}, got "
                             f"{value.dtype}{extra}")
        if value.shape != shape:
            raise GraphError(f"{where}: chf.{name} must have shape {shape} (width*height = "
                             f"{width * height} cells, {spans} spans), got {value.shape}")
    for name in ("dist", "region"):
        if not getattr(chf, name).flags.writeable:
            raise GraphError(f"{where}: chf.{name} is read-only; the partition writes it")
    problem, a, b = layout_problem(chf.cell_index, chf.cell_count, width, chf.neighbors)
    if problem != OK:
        raise GraphError(f"{where}: {_layout_message(chf, problem, int(a), int(b))}")


def _layout_message(chf, problem, a, b) -> str:
    if problem == NEGATIVE_COUNT:
        return f"chf.cell_count[{a}] is {chf.cell_count[a]}, must be >= 0"
    if problem == OUTSIDE_SPANS:
        return (f"cell {a}'s spans (chf.cell_index {chf.cell_index[a]}, chf.cell_count "
                f"{chf.cell_count[a]}) lie outside the {chf.span_count} spans")
    if problem == SHARED_SPAN:
        return f"span {b} belongs to cell {a} and to another cell (chf.cell_index overlaps)"
    if problem == ORPHAN_SPAN:
        return f"span {a} belongs to no cell (chf.cell_index/cell_count leave a gap)"
    if problem == BAD_INDEX:
        return (f"chf.neighbors[{a}, {b}] is {chf.neighbors[a, b]}, must be -1 or a span "
                f"index in 0..{chf.span_count - 1}")
    return (f"chf.neighbors[{a}, {b}] = {chf.neighbors[a, b]} is not a span of the cell next "
            f"to span {a}'s cell in direction {b}")


def _what(value) -> str:
    if isinstance(value, np.ndarray):
        return f"a {value.dtype} array of shape {value.shape}"
    return type(value).__name__
