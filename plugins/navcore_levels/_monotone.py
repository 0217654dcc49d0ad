"""numba kernel of the monotone partition (Recast's
``rcBuildRegionsMonotone`` before its clean-up): rows of ``z`` are swept
in order; each run of spans linked along ``-x`` (same area) continues the
region of the row before when it touches exactly one region there and
that region touches no other run of this row, else it starts a region.

Private: ``regions.py`` validates and calls it."""
from __future__ import annotations

import numpy as np
from numba import njit

from ._region_filter import BORDER_FLAG, paint_border_regions

#: a run that touches two regions of the row before
_SEVERAL = -1


@njit(cache=True, nogil=True)
def monotone(cell_index, cell_count, width, height, border_size, neighbors, area, region):
    """Raw monotone regions into ``region`` (zeroed first); returns the next
    unused region id."""
    num_spans = region.shape[0]
    region[:] = 0
    widest_row = 0
    for z in range(height):
        in_row = 0
        for x in range(width):
            in_row += cell_count[x + z * width]
        widest_row = max(widest_row, in_row)
    # Per run of the current row (runs are numbered 1..): the one region of
    # the row before it touches (0 none, _SEVERAL), through how many spans,
    # and the id it ends with.
    run_above = np.zeros(widest_row + 2, np.int32)
    run_contacts = np.zeros(widest_row + 2, np.int32)
    run_final = np.zeros(widest_row + 2, np.int32)
    # Per region of the row before: through how many spans of this row
    # it is touched.
    touched = np.zeros(num_spans + 8, np.int32)

    next_id = 1
    if border_size > 0:
        next_id = paint_border_regions(cell_index, cell_count, width, height, border_size,
                                       area, region)
    for z in range(border_size, height - border_size):
        touched[:next_id] = 0
        next_run = 1
        for x in range(border_size, width - border_size):
            cell = x + z * width
            for span in range(cell_index[cell], cell_index[cell] + cell_count[cell]):
                own_area = area[span]
                if own_area == 0:
                    continue
                run = 0
                behind = neighbors[span, 0]
                if behind >= 0 and not region[behind] & BORDER_FLAG \
                        and area[behind] == own_area:
                    run = region[behind]
                if run == 0:
                    run = next_run
                    next_run += 1
                    run_above[run] = 0
                    run_contacts[run] = 0
                above = neighbors[span, 3]
                if above >= 0:
                    r = region[above]
                    if r != 0 and not r & BORDER_FLAG and area[above] == own_area:
                        if run_above[run] == 0 or run_above[run] == r:
                            run_above[run] = r
                            run_contacts[run] += 1
                            touched[r] += 1
                        else:
                            run_above[run] = _SEVERAL
                region[span] = run
        for run in range(1, next_run):
            r = run_above[run]
            if r > 0 and touched[r] == run_contacts[run]:
                run_final[run] = r
            else:
                run_final[run] = next_id
                next_id += 1
        for x in range(border_size, width - border_size):
            cell = x + z * width
            for span in range(cell_index[cell], cell_index[cell] + cell_count[cell]):
                if 0 < region[span] < next_run:
                    region[span] = run_final[region[span]]
    return next_id
