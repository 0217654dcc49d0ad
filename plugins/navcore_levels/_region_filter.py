"""numba kernels both partitions share: the border regions of a tile's
padding, the split of a region that covers a cell twice, and Recast's
clean-up of raw regions (``mergeAndFilterRegions``): regions too small
to keep are dropped, small ones merged into a neighbour, ids compacted.

While regions are built, ids are int32 and a border region carries
``BORDER_FLAG`` (bit 30) rather than the heightfield's ``BORDER_REGION``
(bit 15), so that more than 32767 raw regions never read as border
regions; ``regions.py`` rewrites the flag at the end.

Private: ``regions.py`` validates and calls them."""
from __future__ import annotations

import numpy as np
from numba import njit

BORDER_FLAG = 1 << 30
#: larger than any span count: "no neighbour chosen yet" when merging
_NO_SIZE = 0xFFFFFFF


@njit(cache=True, nogil=True)
def paint_border_regions(cell_index, cell_count, width, height, border_size, area, region):
    """Give the walkable spans of the ``border_size`` padding on each side
    their own border region (ids 1..4, flagged); returns the next free id.
    The four strips overlap at the corners, the later one winning."""
    strip_w = min(width, border_size)
    strip_h = min(height, border_size)
    rects = ((0, strip_w, 0, height), (width - strip_w, width, 0, height),
             (0, width, 0, strip_h), (0, width, height - strip_h, height))
    next_id = 1
    for x0, x1, z0, z1 in rects:
        for z in range(z0, z1):
            for x in range(x0, x1):
                cell = x + z * width
                for span in range(cell_index[cell], cell_index[cell] + cell_count[cell]):
                    if area[span] != 0:
                        region[span] = next_id | BORDER_FLAG
        next_id += 1
    return next_id


@njit(cache=True, nogil=True)
def split_self_overlaps(cell_index, cell_count, neighbors, region, next_id):
    """Split every region that holds two spans of one cell (a flood that
    climbed a ramp and came back above itself) into pieces that each hold
    at most one span per cell, grown breadth-first through ``neighbors``;
    the first piece keeps the id, the others get new ones. Returns the
    next free id. Recast only reports such regions; left whole, the
    polygons of one region would lie on two floors."""
    num_cells = cell_index.shape[0]
    num_spans = region.shape[0]
    overlapping = np.zeros(next_id, np.bool_)
    found = False
    for cell in range(num_cells):
        end = cell_index[cell] + cell_count[cell]
        for span in range(cell_index[cell], end):
            r = region[span]
            if r == 0 or r & BORDER_FLAG:
                continue
            for other in range(span + 1, end):
                if region[other] == r:
                    overlapping[r] = True
                    found = True
    if not found:
        return next_id
    span_cell = np.empty(num_spans, np.int32)
    for cell in range(num_cells):
        for span in range(cell_index[cell], cell_index[cell] + cell_count[cell]):
            span_cell[span] = cell
    cell_piece = np.full(num_cells, -1, np.int32)
    placed = np.zeros(num_spans, np.bool_)
    kept_id = np.zeros(next_id, np.bool_)
    queue = np.empty(num_spans, np.int32)
    for cell in range(num_cells):
        for seed in range(cell_index[cell], cell_index[cell] + cell_count[cell]):
            if placed[seed]:        # relabelled already: its id may be a new one
                continue
            r = region[seed]
            if r == 0 or r & BORDER_FLAG or not overlapping[r]:
                continue
            if kept_id[r]:
                piece = next_id
                next_id += 1
            else:
                piece = r
                kept_id[r] = True
            head = 0
            tail = 1
            queue[0] = seed
            placed[seed] = True
            cell_piece[span_cell[seed]] = piece
            while head < tail:
                span = queue[head]
                head += 1
                region[span] = piece
                for direction in range(4):
                    other = neighbors[span, direction]
                    if other < 0 or placed[other] or region[other] != r \
                            or cell_piece[span_cell[other]] == piece:
                        continue
                    placed[other] = True
                    cell_piece[span_cell[other]] = piece
                    queue[tail] = other
                    tail += 1
    return next_id


# --- growable int lists: one int32 array per region plus its used length ---

@njit(cache=True, nogil=True, inline="always")
def _push(lists, lengths, k, value):
    n = lengths[k]
    items = lists[k]
    if n == items.shape[0]:
        grown = np.empty(max(4, 2 * n), np.int32)
        grown[:n] = items[:n]
        lists[k] = grown
        items = grown
    items[n] = value
    lengths[k] = n + 1


@njit(cache=True, nogil=True, inline="always")
def _contains(lists, lengths, k, value):
    items = lists[k]
    for j in range(lengths[k]):
        if items[j] == value:
            return True
    return False


@njit(cache=True, nogil=True, inline="always")
def _count(lists, lengths, k, value):
    items = lists[k]
    n = 0
    for j in range(lengths[k]):
        if items[j] == value:
            n += 1
    return n


@njit(cache=True, nogil=True)
def _drop_repeats(items, n, keep_one):
    """Remove entries equal to the next one, cyclically (the last compares
    with the first), as Recast does; with ``keep_one`` False a list of one
    entry compares it with itself and empties (Recast's contour walk does
    that; its neighbour lists keep one). Returns the new length."""
    j = 0
    while j < n and (n > 1 or not keep_one):
        following = (j + 1) % n
        if items[j] == items[following]:
            for k in range(j, n - 1):
                items[k] = items[k + 1]
            n -= 1
        else:
            j += 1
    return n


@njit(cache=True, nogil=True, inline="always")
def _region_across(neighbors, region, span, direction):
    other = neighbors[span, direction]
    return region[other] if other >= 0 else 0


@njit(cache=True, nogil=True)
def _walk_contour(span, direction, neighbors, region, contour, max_steps):
    """Walk the boundary of ``span``'s region clockwise from its edge in
    ``direction``; ``contour`` gets the regions met beyond it in order (0
    for no region). Returns how many."""
    start_span = span
    start_direction = direction
    current = _region_across(neighbors, region, span, direction)
    contour[0] = current
    n = 1
    own = region[span]
    for _ in range(max_steps):
        across = _region_across(neighbors, region, span, direction)
        if across != own:
            if across != current:
                current = across
                contour[n] = current
                n += 1
            direction = (direction + 1) & 3
        else:
            span = neighbors[span, direction]
            direction = (direction + 3) & 3
        if span == start_span and direction == start_direction:
            break
    if n > 1:
        n = _drop_repeats(contour, n, False)
    return n


@njit(cache=True, nogil=True)
def _merge_into(target, source, ids, neighbours, num_neighbours, floors, num_floors,
                span_total):
    """Merge region ``source`` into ``target``: their neighbour rings are
    spliced where each names the other. False (nothing changed) when one
    ring does not name the other."""
    target_ring = neighbours[target][:num_neighbours[target]].copy()
    source_ring = neighbours[source]
    n_target = target_ring.shape[0]
    n_source = num_neighbours[source]
    at_target = -1
    for j in range(n_target):
        if target_ring[j] == ids[source]:
            at_target = j
            break
    if at_target < 0:
        return False
    at_source = -1
    for j in range(n_source):
        if source_ring[j] == ids[target]:
            at_source = j
            break
    if at_source < 0:
        return False
    spliced = np.empty(max(4, n_target + n_source), np.int32)
    n = 0
    for j in range(n_target - 1):
        spliced[n] = target_ring[(at_target + 1 + j) % n_target]
        n += 1
    for j in range(n_source - 1):
        spliced[n] = source_ring[(at_source + 1 + j) % n_source]
        n += 1
    neighbours[target] = spliced
    num_neighbours[target] = _drop_repeats(spliced, n, True)
    for j in range(num_floors[source]):
        floor = floors[source][j]
        if not _contains(floors, num_floors, target, floor):
            _push(floors, num_floors, target, floor)
    span_total[target] += span_total[source]
    span_total[source] = 0
    num_neighbours[source] = 0
    return True


@njit(cache=True, nogil=True)
def _can_merge(a, b, ids, area_of, neighbours, num_neighbours, floors, num_floors):
    """Whether region ``b`` may be merged into ``a`` as seen from ``a``:
    same area, ``a``'s ring meets ``b`` once (else the merged region
    would enclose a hole), and ``b`` lies on no floor above or below ``a``."""
    if area_of[a] != area_of[b]:
        return False
    if _count(neighbours, num_neighbours, a, ids[b]) > 1:
        return False
    return not _contains(floors, num_floors, a, ids[b])


@njit(cache=True, nogil=True)
def merge_and_filter(cell_index, cell_count, neighbors, area, region, next_id,
                     min_region_area, merge_region_area):
    """Recast's clean-up of raw regions ``1..next_id-1`` in ``region``:

    1. each region's ring of neighbours (regions met walking its outline,
       0 for none, in order) and floors (regions sharing a cell with it);
    2. groups of regions connected through their rings with fewer than
       ``min_region_area`` spans in all, touching no border region, are
       dropped;
    3. a region of at most ``merge_region_area`` spans, or one touching no
       empty space, is merged into its smallest neighbour of the same area
       that lies on none of its floors, until nothing merges;
    4. the surviving ids are renumbered ``1..`` in order of first use.

    Rewrites ``region`` (border regions keep their ids) and returns the
    highest id."""
    num_cells = cell_index.shape[0]
    num_spans = region.shape[0]
    nreg = next_id + 1
    ids = np.arange(nreg).astype(np.int32)
    span_total = np.zeros(nreg, np.int64)
    area_of = np.zeros(nreg, np.int32)
    overlap = np.zeros(nreg, np.bool_)
    neighbours = [np.empty(0, np.int32) for _ in range(nreg)]
    num_neighbours = np.zeros(nreg, np.int64)
    floors = [np.empty(0, np.int32) for _ in range(nreg)]
    num_floors = np.zeros(nreg, np.int64)
    last_floor = np.zeros(nreg, np.int64)
    max_steps = 4 * num_spans + 4     # more (span, direction) states than exist
    contour = np.empty(max_steps + 2, np.int32)

    for cell in range(num_cells):
        start = cell_index[cell]
        end = start + cell_count[cell]
        for span in range(start, end):
            r = region[span]
            if r == 0 or r >= nreg:
                continue
            span_total[r] += 1
            for other in range(start, end if end - start > 1 else start):
                if other == span:
                    continue
                floor = region[other]
                if floor == 0 or floor >= nreg:
                    continue
                if floor == r:
                    overlap[r] = True
                # Neighbouring cells mostly repeat the last pair: skip the
                # list lookup (slow on numba's lists) for it.
                if floor != last_floor[r] and not _contains(floors, num_floors, r, floor):
                    _push(floors, num_floors, r, floor)
                last_floor[r] = floor
            if num_neighbours[r] > 0:
                continue
            area_of[r] = area[span]
            edge = -1
            for direction in range(4):
                if _region_across(neighbors, region, span, direction) != r:
                    edge = direction
                    break
            if edge >= 0:
                n = _walk_contour(span, edge, neighbors, region, contour, max_steps)
                neighbours[r] = contour[:max(n, 1)].copy()
                num_neighbours[r] = n

    # Drop groups of connected regions that are too small in all.
    visited = np.zeros(nreg, np.bool_)
    stack = np.empty(nreg, np.int32)
    trace = np.empty(nreg, np.int32)
    for root in range(nreg):
        if ids[root] == 0 or ids[root] & BORDER_FLAG or span_total[root] == 0 \
                or visited[root]:
            continue
        touches_border = False
        total = 0
        top = 0
        traced = 0
        visited[root] = True
        stack[top] = root
        top += 1
        while top > 0:
            top -= 1
            r = stack[top]
            total += span_total[r]
            trace[traced] = r
            traced += 1
            ring = neighbours[r]
            for j in range(num_neighbours[r]):
                other = ring[j]
                if other & BORDER_FLAG:
                    touches_border = True
                    continue
                if visited[other] or ids[other] == 0 or ids[other] & BORDER_FLAG:
                    continue
                stack[top] = ids[other]
                top += 1
                visited[other] = True
        # A group that reaches a tile border may continue in the next tile.
        if total < min_region_area and not touches_border:
            for j in range(traced):
                span_total[trace[j]] = 0
                ids[trace[j]] = 0

    # Merge small regions into their smallest neighbour.
    while True:
        merges = 0
        for r in range(nreg):
            if ids[r] == 0 or ids[r] & BORDER_FLAG or overlap[r] or span_total[r] == 0:
                continue
            if span_total[r] > merge_region_area \
                    and _contains(neighbours, num_neighbours, r, 0):
                continue
            smallest = _NO_SIZE
            merge_id = ids[r]
            ring = neighbours[r]
            for j in range(num_neighbours[r]):
                other = ring[j]
                if other & BORDER_FLAG:
                    continue
                if ids[other] == 0 or ids[other] & BORDER_FLAG or overlap[other]:
                    continue
                if span_total[other] < smallest \
                        and _can_merge(r, other, ids, area_of, neighbours, num_neighbours,
                                       floors, num_floors) \
                        and _can_merge(other, r, ids, area_of, neighbours, num_neighbours,
                                       floors, num_floors):
                    smallest = span_total[other]
                    merge_id = ids[other]
            if merge_id == ids[r]:
                continue
            old_id = ids[r]
            if not _merge_into(merge_id, r, ids, neighbours, num_neighbours, floors,
                               num_floors, span_total):
                continue
            for k in range(nreg):
                if ids[k] == 0 or ids[k] & BORDER_FLAG:
                    continue
                if ids[k] == old_id:
                    ids[k] = merge_id
                ring = neighbours[k]
                renamed = False
                for j in range(num_neighbours[k]):
                    if ring[j] == old_id:
                        ring[j] = merge_id
                        renamed = True
                below = floors[k]
                for j in range(num_floors[k]):
                    if below[j] == old_id:
                        below[j] = merge_id
                if renamed:
                    num_neighbours[k] = _drop_repeats(ring, num_neighbours[k], True)
            merges += 1
        if merges == 0:
            break

    # Renumber the surviving regions 1.. in order of first use.
    new_id = np.zeros(nreg, np.int32)
    count = 0
    for r in range(nreg):
        old = ids[r]
        if old == 0 or old & BORDER_FLAG:
            continue
        if new_id[old] == 0:
            count += 1
            new_id[old] = count
        ids[r] = new_id[old]
    for span in range(num_spans):
        r = region[span]
        if not r & BORDER_FLAG:
            region[span] = ids[r]
    return count
