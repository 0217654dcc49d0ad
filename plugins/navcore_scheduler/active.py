"""The found paths of one graph's re-planning requests, in one flat index.

After every applied batch the scheduler must find the active paths that
hold a dirty node. With hundreds of agents a Python loop over handles
(gathering and concatenating their paths) cost milliseconds per update, so
the paths live here already concatenated: ``nodes`` holds every live path
one after another and ``owner`` the slot of each entry. A new result
appends its path under a new slot and kills the old slot; dead entries are
dropped in one compaction when they outnumber the live ones, so appending
is amortised O(path length) and a lookup is a handful of numpy operations
over the live entries, whatever the number of requests.

>>> import numpy as np
>>> idx = ActivePaths()
>>> idx.put("a", np.array([1, 2, 3]), 2.0, 10); idx.put("b", np.array([7, 8]), 1.0, 10)
>>> idx.put("a", np.array([1, 5, 3]), 2.0, 10)      # a re-plan replaces a's path
>>> mask = np.zeros(10, bool); mask[[2, 8]] = True
>>> sorted(idx.near([2, 8], mask)[0])
['b']
"""
from __future__ import annotations

import numpy as np
from numba import njit


class ActivePaths:
    """Slots of live paths: ``put`` a handle's newest path, ``drop`` it,
    ask ``near(mask)`` which paths hold a masked node."""

    def __init__(self):
        self.nodes = np.empty(1024, dtype=np.int32)
        self.owner = np.empty(1024, dtype=np.int32)
        self.used = 0                       # entries in nodes/owner, live or dead
        self.live_entries = 0
        self.slot_of = {}                   # handle -> its live slot
        self.handles = []                   # slot -> handle (None when dead)
        self.start = np.empty(64, dtype=np.int64)    # slot -> first entry
        self.length = np.empty(64, dtype=np.int64)
        self.cost = np.empty(64, dtype=np.float64)   # slot -> the result's cost
        self.alive = np.zeros(64, dtype=np.bool_)
        self.blocks = np.zeros(64, dtype=np.uint64)  # slot -> which 64ths of the ids it crosses
        # the footprint's divisor, fixed by the first path: a graph may grow
        # (a navmesh's new polygons) and every footprint must keep meaning
        # the same ids; ids beyond it share the last bit
        self.num_nodes = 0

    def __len__(self) -> int:
        return len(self.slot_of)

    def put(self, handle, nodes, cost, num_nodes) -> None:
        """``handle``'s path is now ``nodes`` (int array of ids below
        ``num_nodes``) costing ``cost``."""
        if self.num_nodes == 0:
            self.num_nodes = max(int(num_nodes), 1)
        self.drop(handle)
        k = len(nodes)
        if self.used + k > self.nodes.size:
            self._compact(extra=k)
        if len(self.handles) >= self.alive.size:
            self._grow_slots()                  # may compact: slots renumbered
        slot = len(self.handles)
        self.nodes[self.used:self.used + k] = nodes
        self.owner[self.used:self.used + k] = slot
        self.handles.append(handle)
        self.start[slot] = self.used
        self.length[slot] = k
        self.cost[slot] = cost
        self.blocks[slot] = _block_mask(nodes, self.num_nodes)
        self.alive[slot] = True
        self.slot_of[handle] = slot
        self.used += k
        self.live_entries += k

    def put_many(self, handles, paths, costs, num_nodes) -> None:
        """``put`` for many handles at once (a frame's results): their
        paths (int arrays) copied, their footprints and every per-slot
        field written in one kernel call; Python runs only for the
        handles' dict and list (the numpy bookkeeping per call was ~100 us
        for a battlefield frame of 40 results, now ~20)."""
        k = len(handles)
        if k == 0:
            return
        lens = np.fromiter(map(len, paths), dtype=np.int64, count=k)
        flat = np.concatenate(paths) if k > 1 else np.asarray(paths[0])
        self.put_flat(handles, flat, lens, costs, num_nodes)

    def put_flat(self, handles, flat, lens, costs, num_nodes) -> None:
        """``put_many`` with the paths already one after another: path
        ``i`` is the next ``lens[i]`` entries of ``flat`` (int32), as a
        ``PathBatch`` holds its answers (no array per path)."""
        k = len(handles)
        if k == 0:
            return
        if self.num_nodes == 0:
            self.num_nodes = max(int(num_nodes), 1)
        pop, slot_handles, old = self.slot_of.pop, self.handles, []
        for h in handles:
            slot = pop(h, None)
            if slot is not None:
                slot_handles[slot] = None
                old.append(slot)
        if old:
            self.live_entries -= _drop_slots(np.array(old, dtype=np.int64), self.alive,
                                             self.length)
        lens = np.asarray(lens, dtype=np.int64)
        total = flat.size
        if self.used + total > self.nodes.size:
            self._compact(extra=total)
        while len(self.handles) + k > self.alive.size:
            self._grow_slots()                  # may compact: slots renumbered
        slot0 = len(self.handles)
        _put_paths(self.nodes, self.owner, self.start, self.length, self.cost, self.alive,
                   self.blocks, self.used, slot0, flat, lens,
                   np.asarray(costs, dtype=np.float64), self.num_nodes)
        self.handles.extend(handles)
        self.slot_of.update(zip(handles, range(slot0, slot0 + k)))
        self.used += total
        self.live_entries += total

    def drop(self, handle) -> None:
        """Forget ``handle``'s path (no-op if it has none)."""
        slot = self.slot_of.pop(handle, None)
        if slot is not None:
            self.alive[slot] = False
            self.handles[slot] = None
            self.live_entries -= int(self.length[slot])

    def near(self, dirty, mask):
        """``(handles, (nodes, starts), costs)`` of the live paths that hold
        a ``dirty`` node (``mask`` is true exactly there): their nodes
        concatenated (path ``i`` is ``nodes[starts[i]:starts[i+1]]``) and
        their results' costs."""
        want = np.uint64(_block_mask(np.asarray(dirty), max(self.num_nodes, 1)))
        slots, count = _slots_near(self.nodes, self.owner, self.start, self.length,
                                   len(self.handles), mask, want, self.alive, self.blocks)
        if count == 0:
            return [], (np.empty(0, np.int32), np.zeros(1, np.int64)), np.empty(0)
        slots = slots[:count]
        nodes, starts = _gather(self.nodes, self.start, self.length, slots)
        handles = [self.handles[s] for s in slots.tolist()]
        return handles, (nodes, starts), self.cost[slots]

    def _compact(self, extra: int) -> None:
        """Drop dead entries and renumber slots densely (one numba pass);
        grow to four times the live size plus ``extra`` when that is more
        than there is (re-plans replace whole paths, so the live entries
        are copied once per three times as many appended)."""
        nslots = len(self.handles)
        size = max(self.nodes.size, 4 * (self.live_entries + extra))
        nodes = np.empty(size, dtype=np.int32)
        owner = np.empty(size, dtype=np.int32)
        live = _compact(self.nodes, self.owner, self.used, self.alive, nslots, self.start,
                        self.length, self.cost, self.blocks, nodes, owner)
        self.handles = [h for h in self.handles if h is not None]
        self.slot_of = {h: i for i, h in enumerate(self.handles)}
        self.nodes, self.owner = nodes, owner
        self.used = self.live_entries = int(live)

    def _grow_slots(self) -> None:
        if 2 * len(self.slot_of) < len(self.handles):   # mostly dead: compact first
            self._compact(extra=0)
            if len(self.handles) < self.alive.size:
                return
        size = 2 * self.alive.size
        for name in ("start", "length", "cost", "alive", "blocks"):
            old = getattr(self, name)
            new = np.zeros(size, dtype=old.dtype)
            new[:old.size] = old
            setattr(self, name, new)


@njit(cache=True, nogil=True)
def _block_mask(nodes, n):
    """Bit b set when a node lies in the b-th 64th of the ids ``0..n-1``
    (ids from ``n`` on, which a grown graph has, in the last one): a
    coarse footprint that lets ``_slots_near`` skip most paths."""
    m = np.uint64(0)
    inv = 64.0 / n
    for i in range(nodes.shape[0]):
        # b = nodes[i] * 64 // n, without a division per node (3x faster
        # on long paths): the float product is off by at most one, fixed
        v = np.int64(nodes[i])
        b = np.int64(v * inv)
        if b * n > v * 64:
            b -= 1
        elif (b + 1) * n <= v * 64:
            b += 1
        m |= np.uint64(1) << np.uint64(b if b < 63 else 63)
    return m


def batch_paths(batch, entries):
    """``(nodes, lengths, costs)``: the found paths of ``PathBatch``
    entries ``entries`` (a list of ints) one after another, for
    ``put_flat``; one kernel call for the usual batch (one answer)."""
    one = batch.one_answer()
    if one is None:
        return batch.paths(entries)
    nodes, offsets, cost, slot = one
    return _gather_answers(np.asarray(nodes), offsets, cost, slot,
                           np.array(entries, dtype=np.int64))


@njit(cache=True, nogil=True)
def _gather_answers(nodes, offsets, cost, slot, entries):
    """The paths of ``entries`` (see ``PathBatch.one_answer``) as int32
    nodes one after another, their lengths and costs."""
    k = entries.shape[0]
    lens = np.empty(k, dtype=np.int64)
    costs = np.empty(k, dtype=np.float64)
    total = 0
    for i in range(k):
        j = slot[entries[i]]
        lens[i] = offsets[j + 1] - offsets[j]
        costs[i] = cost[j]
        total += lens[i]
    flat = np.empty(total, dtype=np.int32)
    at = 0
    for i in range(k):
        j = slot[entries[i]]
        a = offsets[j]
        for m in range(lens[i]):
            flat[at + m] = nodes[a + m]
        at += lens[i]
    return flat, lens, costs


@njit(cache=True, nogil=True)
def _drop_slots(slots, alive, length):
    """Mark ``slots`` dead; return how many entries they held."""
    gone = 0
    for s in slots:
        alive[s] = False
        gone += length[s]
    return gone


@njit(cache=True, nogil=True)
def _put_paths(nodes, owner, start, length, cost, alive, blocks, used, slot0, flat, lens,
               costs, n):
    """Append the paths ``flat`` (path ``i`` has ``lens[i]`` nodes) at entry
    ``used`` as slots ``slot0, slot0 + 1, ...`` with their costs and
    footprints (what ``put`` does for one path)."""
    at = used
    for i in range(lens.shape[0]):
        s = slot0 + i
        k = lens[i]
        for j in range(k):
            nodes[at + j] = flat[at - used + j]
            owner[at + j] = s
        start[s] = at
        length[s] = k
        cost[s] = costs[i]
        blocks[s] = _block_mask(flat[at - used:at - used + k], n)
        alive[s] = True
        at += k


@njit(cache=True, nogil=True)
def _slots_near(nodes, owner, start, length, nslots, mask, want, alive, blocks):
    """Live slots (ascending) with a node where ``mask`` is true, and how
    many. Only slots whose footprint meets ``want`` (the masked nodes'
    footprint) have their entries scanned."""
    out = np.empty(nslots, dtype=np.int64)
    count = 0
    for s in range(nslots):
        if not alive[s] or (blocks[s] & want) == 0:
            continue
        for i in range(start[s], start[s] + length[s]):
            if mask[nodes[i]]:
                out[count] = s
                count += 1
                break
    return out, count


@njit(cache=True, nogil=True)
def _gather(nodes, start, length, slots):
    """The entries of ``slots`` one path after another, with offsets."""
    starts = np.zeros(slots.shape[0] + 1, dtype=np.int64)
    for i in range(slots.shape[0]):
        starts[i + 1] = starts[i] + length[slots[i]]
    out = np.empty(starts[-1], dtype=np.int32)
    for i in range(slots.shape[0]):
        b = start[slots[i]]
        for j in range(length[slots[i]]):
            out[starts[i] + j] = nodes[b + j]
    return out, starts


@njit(cache=True, nogil=True)
def _compact(nodes, owner, used, alive, nslots, start, length, cost, blocks, out_nodes,
             out_owner):
    """Copy the live entries into ``out_*`` with slots renumbered densely in
    their old order; rewrite the per-slot arrays to match. Returns the
    number of live entries."""
    new_id = np.empty(nslots, dtype=np.int32)
    k = 0
    for s in range(nslots):
        if alive[s]:
            new_id[s] = k
            start[k] = start[s]
            length[k] = length[s]
            cost[k] = cost[s]
            blocks[k] = blocks[s]
            k += 1
        else:
            new_id[s] = -1
    for s in range(k, nslots):
        alive[s] = False
    for s in range(k):
        alive[s] = True
        start[s] = -1          # filled below from the first entry copied
    m = 0
    for i in range(used):
        s = owner[i]
        t = new_id[s] if s < nslots else -1
        if t >= 0:
            if start[t] < 0:
                start[t] = m
            out_nodes[m] = nodes[i]
            out_owner[m] = t
            m += 1
    return m


_WARM = False


def warm_up() -> None:
    """Load the kernels from numba's cache now (a few ms each), so the
    first frame that needs one does not pay for it. Once per process."""
    global _WARM
    if _WARM:
        return
    _WARM = True
    idx = ActivePaths()
    for k in range(3):
        idx.put(k, np.arange(400, dtype=np.int32), 1.0, 400)
    idx.put_many([3, 4], [np.arange(400, dtype=np.int32)] * 2, [1.0, 1.0], 400)
    idx.put_many([3, 5], [np.arange(400, dtype=np.int32)] * 2, [1.0, 1.0], 400)   # a re-plan
    idx.put_flat([4, 6], np.tile(np.arange(400, dtype=np.int32), 2), np.array([400, 400]),
                 np.array([1.0, 1.0]), 400)
    _gather_answers(np.arange(8, dtype=np.int32), np.array([0, 3, 8]), np.ones(2),
                    np.array([1, 0]), np.array([0, 1]))
    idx.near(np.arange(400, dtype=np.int32), np.ones(400, dtype=np.bool_))
    idx._compact(extra=0)
