"""numba kernels both partitions share: the border regions of a tile's
padding, the split of a region that covers a cell twice, and Recast's
clean-up of raw regions (``mergeAndFilterRegions``): regions too small
to keep are dropped, small ones merged into a neighbour, ids compacted.

While regions are built, ids are int32 and a border region carries
``BORDER_FLAG`` (bit 30) rather than the heightfield's ``BORDER_REGION``
(bit 15), so that more than 32767 raw regions never read as border
regions; ``merge_and_filter`` rewrites the flag at the end.

Private: ``regions.py`` validates and calls them."""
from __future__ import annotations

import numpy as np
from numba import njit

from .heightfield import BORDER_REGION

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


# --- int lists kept in one pool array -------------------------------------------------
# List k holds pool[first[k] : first[k] + size[k]] with room for room[k]
# items; a list that outgrows its room moves to the pool's end. (numba's
# lists of arrays count references on every access, which made the merge
# loop several times slower than Recast's.)

@njit(cache=True, nogil=True)
def _new_lists(count, room_per_list):
    pool = np.empty(max(16, count * room_per_list), np.int32)
    first = np.zeros(count, np.int64)
    size = np.zeros(count, np.int64)
    room = np.zeros(count, np.int64)
    top = np.zeros(1, np.int64)
    return pool, first, size, room, top


@njit(cache=True, nogil=True)
def _reserve(pool, first, size, room, top, k, need):
    """``pool`` (reallocated when full) with room for ``need`` items in list ``k``."""
    if need <= room[k]:
        return pool
    new_room = max(4, 2 * need)
    end = top[0]
    if end + new_room > pool.shape[0]:
        bigger = np.empty(max(2 * pool.shape[0], end + new_room), np.int32)
        bigger[:end] = pool[:end]
        pool = bigger
    pool[end:end + size[k]] = pool[first[k]:first[k] + size[k]]
    first[k] = end
    room[k] = new_room
    top[0] = end + new_room
    return pool


@njit(cache=True, nogil=True)
def _push(pool, first, size, room, top, k, value):
    pool = _reserve(pool, first, size, room, top, k, size[k] + 1)
    pool[first[k] + size[k]] = value
    size[k] += 1
    return pool


@njit(cache=True, nogil=True)
def _count(pool, first, size, k, value):
    n = 0
    for j in range(first[k], first[k] + size[k]):
        if pool[j] == value:
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


@njit(cache=True, nogil=True)
def _walk_contour(span, direction, neighbors, region, contour, max_steps):
    """Walk the boundary of ``span``'s region clockwise from its edge in
    ``direction``; ``contour`` gets the regions met beyond it in order (0
    for no region). Returns how many."""
    start_span = span
    start_direction = direction
    own = region[span]
    other = neighbors[span, direction]
    current = region[other] if other >= 0 else 0
    contour[0] = current
    n = 1
    for _ in range(max_steps):
        other = neighbors[span, direction]
        across = region[other] if other >= 0 else 0
        if across != own:
            if across != current:
                current = across
                contour[n] = current
                n += 1
            direction = (direction + 1) & 3
        else:
            span = other
            direction = (direction + 3) & 3
        if span == start_span and direction == start_direction:
            break
    if n > 1:
        n = _drop_repeats(contour, n, False)
    return n


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

    Rewrites ``region`` (border regions get ``BORDER_REGION`` in place of
    ``BORDER_FLAG``) and returns the highest id (as in Recast, an id or a
    few may be unused), or -1, changing nothing, when a region holds two
    spans of one cell: ``split_self_overlaps`` first, then again."""
    num_cells = cell_index.shape[0]
    num_spans = region.shape[0]
    nreg = next_id + 1
    ids = np.arange(nreg).astype(np.int32)
    span_total = np.zeros(nreg, np.int64)
    area_of = np.zeros(nreg, np.int32)
    overlap = np.zeros(nreg, np.bool_)
    rings, ring_first, ring_size, ring_room, ring_top = _new_lists(nreg, 8)
    floors, floor_first, floor_size, floor_room, floor_top = _new_lists(nreg, 2)
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
                # Neighbouring cells mostly repeat the pair just seen.
                if floor != last_floor[r] \
                        and _count(floors, floor_first, floor_size, r, floor) == 0:
                    floors = _push(floors, floor_first, floor_size, floor_room, floor_top, r,
                                   floor)
                last_floor[r] = floor
            if ring_size[r] > 0:
                continue
            area_of[r] = area[span]
            edge = -1
            for direction in range(4):
                other = neighbors[span, direction]
                if other < 0 or region[other] != r:
                    edge = direction
                    break
            if edge >= 0:
                n = _walk_contour(span, edge, neighbors, region, contour, max_steps)
                rings = _reserve(rings, ring_first, ring_size, ring_room, ring_top, r, n)
                rings[ring_first[r]:ring_first[r] + n] = contour[:n]
                ring_size[r] = n

    for r in range(nreg):
        if overlap[r]:
            return -1

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
            for j in range(ring_first[r], ring_first[r] + ring_size[r]):
                other = rings[j]
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
                    and _count(rings, ring_first, ring_size, r, 0) > 0:
                continue
            smallest = _NO_SIZE
            merge_id = ids[r]
            for j in range(ring_first[r], ring_first[r] + ring_size[r]):
                other = rings[j]
                if other & BORDER_FLAG:
                    continue
                if ids[other] == 0 or ids[other] & BORDER_FLAG or overlap[other]:
                    continue
                if span_total[other] >= smallest:
                    continue
                # Either way: same area, the rings meet once (else the merged
                # region would enclose a hole), and not on each other's floors.
                if area_of[r] != area_of[other] \
                        or _count(rings, ring_first, ring_size, r, ids[other]) > 1 \
                        or _count(floors, floor_first, floor_size, r, ids[other]) > 0 \
                        or _count(rings, ring_first, ring_size, other, ids[r]) > 1 \
                        or _count(floors, floor_first, floor_size, other, ids[r]) > 0:
                    continue
                smallest = span_total[other]
                merge_id = ids[other]
            if merge_id == ids[r]:
                continue
            old_id = ids[r]
            target = merge_id
            # Splice the rings where each names the other.
            at_target = -1
            for j in range(ring_size[target]):
                if rings[ring_first[target] + j] == old_id:
                    at_target = j
                    break
            at_source = -1
            for j in range(ring_size[r]):
                if rings[ring_first[r] + j] == ids[target]:
                    at_source = j
                    break
            if at_target < 0 or at_source < 0:
                continue
            target_ring = rings[ring_first[target]:ring_first[target] + ring_size[target]].copy()
            source_ring = rings[ring_first[r]:ring_first[r] + ring_size[r]].copy()
            n_target = target_ring.shape[0]
            n_source = source_ring.shape[0]
            rings = _reserve(rings, ring_first, ring_size, ring_room, ring_top, target,
                             n_target + n_source)
            base = ring_first[target]
            n = 0
            for j in range(n_target - 1):
                rings[base + n] = target_ring[(at_target + 1 + j) % n_target]
                n += 1
            for j in range(n_source - 1):
                rings[base + n] = source_ring[(at_source + 1 + j) % n_source]
                n += 1
            ring_size[target] = _drop_repeats(rings[base:base + n], n, True)
            for j in range(floor_first[r], floor_first[r] + floor_size[r]):
                floor = floors[j]
                if _count(floors, floor_first, floor_size, target, floor) == 0:
                    floors = _push(floors, floor_first, floor_size, floor_room, floor_top,
                                   target, floor)
            span_total[target] += span_total[r]
            span_total[r] = 0
            ring_size[r] = 0
            # Everything that named the merged region names its target now.
            for k in range(nreg):
                if ids[k] == 0 or ids[k] & BORDER_FLAG:
                    continue
                if ids[k] == old_id:
                    ids[k] = merge_id
                renamed = False
                for j in range(ring_first[k], ring_first[k] + ring_size[k]):
                    if rings[j] == old_id:
                        rings[j] = merge_id
                        renamed = True
                for j in range(floor_first[k], floor_first[k] + floor_size[k]):
                    if floors[j] == old_id:
                        floors[j] = merge_id
                if renamed:
                    ring_size[k] = _drop_repeats(
                        rings[ring_first[k]:ring_first[k] + ring_size[k]], ring_size[k], True)
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
        if r & BORDER_FLAG:
            region[span] = (r & ~BORDER_FLAG) | BORDER_REGION
        else:
            region[span] = ids[r]
    return count
