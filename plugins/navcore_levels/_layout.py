"""numba kernel that checks the span layout of a compact heightfield
before a stage indexes it (see ``heightfield.py``): cells cover the spans
exactly once, and each neighbour is a span of the adjacent cell in its
direction. A kernel, not numpy, because it runs before every stage and
numpy's version cost as much as the distance field itself.

Private: ``regions.py`` formats the problem it reports."""
from __future__ import annotations

import numpy as np
from numba import njit

OK = 0
NEGATIVE_COUNT = 1      # cell_count[a] < 0
OUTSIDE_SPANS = 2       # cell a's spans run past the span arrays
SHARED_SPAN = 3         # span b belongs to cell a and to an earlier one
ORPHAN_SPAN = 4         # span a belongs to no cell
BAD_INDEX = 5           # neighbors[a, b] is neither -1 nor a span index
WRONG_CELL = 6          # neighbors[a, b] is a span of another cell

@njit(cache=True, nogil=True)
def layout_problem(cell_index, cell_count, width, neighbors):
    """``(problem, a, b)``: the first problem found (codes above) and where,
    ``(OK, 0, 0)`` when there is none."""
    num_spans = neighbors.shape[0]
    span_cell = np.full(num_spans, -1, np.int64)
    for cell in range(cell_index.shape[0]):
        count = cell_count[cell]
        if count < 0:
            return NEGATIVE_COUNT, cell, 0
        if count == 0:
            continue
        first = cell_index[cell]
        if first < 0 or first + count > num_spans:
            return OUTSIDE_SPANS, cell, 0
        for span in range(first, first + count):
            if span_cell[span] >= 0:
                return SHARED_SPAN, cell, span
            span_cell[span] = cell
    for span in range(num_spans):
        if span_cell[span] < 0:
            return ORPHAN_SPAN, span, 0
    height = cell_index.shape[0] // width if width > 0 else 0
    for z in range(height):
        for x in range(width):
            cell = x + z * width
            for span in range(cell_index[cell], cell_index[cell] + cell_count[cell]):
                for direction in range(4):
                    other = neighbors[span, direction]
                    if other == -1:
                        continue
                    if other < -1 or other >= num_spans:
                        return BAD_INDEX, span, direction
                    nx = x + (direction == 2) - (direction == 0)
                    nz = z + (direction == 1) - (direction == 3)
                    if nx < 0 or nx >= width or nz < 0 or nz >= height \
                            or span_cell[other] != nx + nz * width:
                        return WRONG_CELL, span, direction
    return OK, 0, 0
