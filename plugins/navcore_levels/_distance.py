"""numba kernels of the distance field the watershed partition floods
(Recast's ``rcBuildDistanceField``): a two-pass chamfer distance from every
span to the edge of its area, then a 3x3 box blur.

Distances count 2 per straight step and 3 per diagonal step (a cheap
integer stand-in for 1 and sqrt(2)). Spans are visited cell by cell in the
grid's order (rows of ``z``, then ``x``), bottom-up within a cell: the
chamfer passes update in place, so the order is part of the result.

Private: ``regions.py`` validates and calls them."""
from __future__ import annotations

from numba import njit

#: distance of a span the chamfer passes have not reached yet
UNREACHED = 0xFFFF


@njit(cache=True, nogil=True, inline="always")
def _relax(field, span, neighbors, step, turn):
    """Lower ``field[span]`` through the neighbour in direction ``step``
    (cost 2) and the diagonal reached from it by turning to ``turn``
    (cost 3)."""
    straight = neighbors[span, step]
    if straight < 0:
        return
    if int(field[straight]) + 2 < int(field[span]):
        field[span] = int(field[straight]) + 2
    diagonal = neighbors[straight, turn]
    if diagonal >= 0 and int(field[diagonal]) + 3 < int(field[span]):
        field[span] = int(field[diagonal]) + 3


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
    for cell in range(num_cells):
        for span in range(cell_index[cell], cell_index[cell] + cell_count[cell]):
            _relax(field, span, neighbors, 0, 3)
            _relax(field, span, neighbors, 3, 2)
    # Backward pass: from +x, from +z, and the diagonals (1,1) and (-1,1).
    for cell in range(num_cells - 1, -1, -1):
        for span in range(cell_index[cell], cell_index[cell] + cell_count[cell]):
            _relax(field, span, neighbors, 2, 1)
            _relax(field, span, neighbors, 1, 0)
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
