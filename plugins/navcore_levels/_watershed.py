"""numba kernel of the watershed partition (Recast's ``rcBuildRegions``
before its clean-up): the distance field is flooded from its ridges down,
two distance units a level; at each level the existing regions grow first
into the newly uncovered spans, then whatever is left seeds new regions.

Spans waiting for their level are kept in ``NUM_STACKS`` stacks, refilled
by one scan every ``NUM_STACKS`` levels; the stacks, their order and the
growth rules follow Recast so that the regions come out the same.

Private: ``regions.py`` validates and calls it."""
from __future__ import annotations

import numpy as np
from numba import njit

from ._distance import UNREACHED
from ._region_filter import BORDER_FLAG, paint_border_regions

#: levels sorted into stacks by one scan
NUM_STACKS = 8
#: growth steps allowed per level (Recast's ``expandIters``); the final
#: growth at level 0 runs until nothing changes
GROW_STEPS = 8


@njit(cache=True, nogil=True)
def _grow_regions(waiting, num_waiting, max_steps, level, neighbors, area, region, seed_dist,
                  dirty_span, dirty_region, dirty_dist):
    """Give each span in ``waiting[:num_waiting]`` (-1 entries are done) the
    region of its 4-neighbour of the same area closest to that region's
    seeds, a step at a time: every step decides from the regions as they
    were before it. Taken spans become -1. At most ``max_steps`` steps
    when ``level`` > 0."""
    for j in range(num_waiting):
        span = waiting[j]
        if span >= 0 and region[span] != 0:
            waiting[j] = -1
    steps = 0
    while num_waiting > 0:
        failed = 0
        num_dirty = 0
        for j in range(num_waiting):
            span = waiting[j]
            if span < 0:
                failed += 1
                continue
            best_region = region[span]
            best_dist = UNREACHED
            own_area = area[span]
            for direction in range(4):
                other = neighbors[span, direction]
                if other < 0 or area[other] != own_area:
                    continue
                r = region[other]
                if r > 0 and not r & BORDER_FLAG and int(seed_dist[other]) + 2 < best_dist:
                    best_region = r
                    best_dist = int(seed_dist[other]) + 2
            if best_region != 0:
                waiting[j] = -1
                dirty_span[num_dirty] = span
                dirty_region[num_dirty] = best_region
                dirty_dist[num_dirty] = best_dist
                num_dirty += 1
            else:
                failed += 1
        for k in range(num_dirty):
            region[dirty_span[k]] = dirty_region[k]
            seed_dist[dirty_span[k]] = dirty_dist[k]
        if failed == num_waiting:
            break
        if level > 0:
            steps += 1
            if steps >= max_steps:
                break


@njit(cache=True, nogil=True)
def _flood_region(seed, level, new_region, neighbors, area, dist, region, seed_dist, stack):
    """Flood ``new_region`` from ``seed`` over spans of its area with a
    distance of at least ``level - 2``, stopping at spans that touch
    another region (through a 4-neighbour or the diagonal beyond it):
    those are left for the regions to grow into. Whether any span was
    kept."""
    own_area = area[seed]
    stack[0] = seed
    top = 1
    region[seed] = new_region
    seed_dist[seed] = 0
    floor_level = level - 2 if level >= 2 else 0
    kept = 0
    while top > 0:
        top -= 1
        span = stack[top]
        touches_other = False
        for direction in range(4):
            other = neighbors[span, direction]
            if other < 0 or area[other] != own_area:
                continue
            r = region[other]
            if r & BORDER_FLAG:
                continue
            if r != 0 and r != new_region:
                touches_other = True
                break
            diagonal = neighbors[other, (direction + 1) & 3]
            if diagonal >= 0:
                if area[diagonal] != own_area:
                    continue
                r = region[diagonal]
                if r != 0 and r != new_region:
                    touches_other = True
                    break
        if touches_other:
            region[span] = 0
            continue
        kept += 1
        for direction in range(4):
            other = neighbors[span, direction]
            if other < 0 or area[other] != own_area:
                continue
            if dist[other] >= floor_level and region[other] == 0:
                region[other] = new_region
                seed_dist[other] = 0
                stack[top] = other
                top += 1
    return kept > 0


@njit(cache=True, nogil=True)
def _sort_by_level(level, cell_index, cell_count, area, dist, region, stacks, stack_len):
    """Put each unassigned walkable span in the stack of its level: stack
    ``k`` holds distances ``level - 2k`` and ``level - 2k + 1``, stack 0
    also everything higher; distances below the last stack wait for the
    next sort."""
    top_level = level >> 1
    stack_len[:] = 0
    for cell in range(cell_index.shape[0]):
        for span in range(cell_index[cell], cell_index[cell] + cell_count[cell]):
            if area[span] == 0 or region[span] != 0:
                continue
            k = top_level - (dist[span] >> 1)
            if k >= NUM_STACKS:
                continue
            if k < 0:
                k = 0
            stacks[k, stack_len[k]] = span
            stack_len[k] += 1


@njit(cache=True, nogil=True)
def watershed(cell_index, cell_count, width, height, border_size, neighbors, area, dist,
              max_distance, region):
    """Raw watershed regions into ``region`` (zeroed first); returns the
    next unused region id."""
    num_spans = region.shape[0]
    region[:] = 0
    seed_dist = np.zeros(num_spans, np.uint16)
    stacks = np.empty((NUM_STACKS, num_spans), np.int32)
    stack_len = np.zeros(NUM_STACKS, np.int64)
    flood_stack = np.empty(num_spans, np.int32)
    dirty_span = np.empty(num_spans, np.int32)
    dirty_region = np.empty(num_spans, np.int32)
    dirty_dist = np.empty(num_spans, np.uint16)

    next_id = 1
    if border_size > 0:
        next_id = paint_border_regions(cell_index, cell_count, width, height, border_size,
                                       area, region)
    # Recast starts at (max_distance + 1) & ~1, which is 0 when every span
    # lies on an edge (a level of narrow corridors) and then floods nothing;
    # starting at 2 floods such a level at level 0 and changes nothing else.
    level = max((max_distance + 1) & ~1, 2)
    k = -1
    while level > 0:
        level = level - 2 if level >= 2 else 0
        k = (k + 1) & (NUM_STACKS - 1)
        if k == 0:
            _sort_by_level(level, cell_index, cell_count, area, dist, region, stacks,
                           stack_len)
        else:
            # What the previous level left unassigned waits in this one.
            n = stack_len[k]
            for j in range(stack_len[k - 1]):
                span = stacks[k - 1, j]
                if span >= 0 and region[span] == 0:
                    stacks[k, n] = span
                    n += 1
            stack_len[k] = n
        waiting = stacks[k]
        _grow_regions(waiting, stack_len[k], GROW_STEPS, level, neighbors, area, region,
                      seed_dist, dirty_span, dirty_region, dirty_dist)
        for j in range(stack_len[k]):
            span = waiting[j]
            if span >= 0 and region[span] == 0:
                if _flood_region(span, level, next_id, neighbors, area, dist, region,
                                 seed_dist, flood_stack):
                    next_id += 1

    # Grow the regions over whatever is still unassigned, with no limit.
    n = 0
    for cell in range(cell_index.shape[0]):
        for span in range(cell_index[cell], cell_index[cell] + cell_count[cell]):
            if region[span] == 0 and area[span] != 0:
                flood_stack[n] = span
                n += 1
    _grow_regions(flood_stack, n, GROW_STEPS * 8, 0, neighbors, area, region, seed_dist,
                  dirty_span, dirty_region, dirty_dist)
    return next_id
