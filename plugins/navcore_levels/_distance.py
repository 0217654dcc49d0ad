"""numba kernels of the distance field the watershed partition floods
(Recast's ``rcBuildDistanceField``): a two-pass chamfer distance from every
span to the edge of its area, then a 3x3 box blur.

Distances count 2 per straight step and 3 per diagonal step (a cheap
integer stand-in for 1 and sqrt(2)). Spans are visited cell by cell in the
grid's order (rows of ``z``, then ``x``), bottom-up within a cell: the
chamfer passes update in place, so the order is part of the result.

Private: ``regions.py`` validates and calls them."""
from __future__ import annotations

import numpy as np
from numba import njit

#: distance of a span the chamfer passes have not reached yet
UNREACHED = 0xFFFF


@njit(cache=True, nogil=True)
def _chamfer_pass(cell_index, cell_count, neighbors, field, first_cell, stop, cell_step,
                  ahead, ahead_turn, side, side_turn):
    """One raster pass: each span's distance lowered through its
    neighbours in directions ``ahead`` and ``side`` (cost 2) and the
    diagonals reached from them by turning to ``ahead_turn`` and
    ``side_turn`` (cost 3), cells visited from ``first_cell`` by
    ``cell_step``. (The loop body is written out: a helper called per
    span made the pass eight times slower.)"""
    for cell in range(first_cell, stop, cell_step):
        for span in range(cell_index[cell], cell_index[cell] + cell_count[cell]):
            best = np.int32(field[span])
            for step, turn in ((ahead, ahead_turn), (side, side_turn)):
                straight = neighbors[span, step]
                if straight >= 0:
                    best = min(best, np.int32(field[straight]) + 2)
                    diagonal = neighbors[straight, turn]
                    if diagonal >= 0:
                        best = min(best, np.int32(field[diagonal]) + 3)
            field[span] = best


@njit(cache=True, nogil=True)
def chamfer_distance(cell_index, cell_count, neighbors, area, field):
    """Fill ``field`` (uint16, one per span) with the chamfer distance to
    the nearest edge span: one that lacks a neighbour of its own area in
    some direction (distance 0). Returns the largest distance."""
    num_cells = cell_index.shape[0]
    for cell in range(num_cells):
        for span in range(cell_index[cell], cell_index[cell] + cell_count[cell]):
            interior = True
            for direction in range(4):
                other = neighbors[span, direction]
                if other < 0 or area[other] != area[span]:
                    interior = False
                    break
            field[span] = UNREACHED if interior else 0
    # Forward pass: from -x, from -z, and the diagonals (-1,-1) and (1,-1).
    _chamfer_pass(cell_index, cell_count, neighbors, field, 0, num_cells, 1, 0, 3, 3, 2)
    # Backward pass: from +x, from +z, and the diagonals (1,1) and (-1,1).
    _chamfer_pass(cell_index, cell_count, neighbors, field, num_cells - 1, -1, -1, 2, 1, 1, 0)
    largest = 0
    for span in range(field.shape[0]):
        if field[span] > largest:
            largest = int(field[span])
    return largest


@njit(cache=True, nogil=True)
def box_blur(neighbors, field, blurred, threshold):
    """``blurred``: the mean of each span's 3x3 neighbourhood in ``field``,
    rounded; spans at most ``2 * threshold`` from the edge keep their
    distance, and a missing neighbour counts as the span itself."""
    keep_below = 2 * threshold
    for span in range(field.shape[0]):
        own = int(field[span])
        if own <= keep_below:
            blurred[span] = own
            continue
        total = own
        for direction in range(4):
            straight = neighbors[span, direction]
            if straight < 0:
                total += 2 * own
                continue
            total += int(field[straight])
            diagonal = neighbors[straight, (direction + 1) & 3]
            total += own if diagonal < 0 else int(field[diagonal])
        blurred[span] = (total + 5) // 9
