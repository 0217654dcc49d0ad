"""The shared numba primitives (``navcore._kernels``): the indexed binary
heap against Python's ``heapq`` with lazy deletion as the independent
truth, and the generation wrap-around test."""
from __future__ import annotations

import heapq

import numpy as np
import pytest
from numba import njit

from navcore import _kernels as K

pytestmark = pytest.mark.nojit


@njit(cache=True, nogil=True)
def _run(ops, nodes, keys, hnode, hkey, hpos, inheap, ties):
    """Apply ``ops`` (0: push or decrease ``nodes[i]`` to ``keys[i]``, 1:
    pop); returns the popped ``(node, key)`` pairs in order."""
    size = 0
    out_n = np.empty(ops.shape[0], dtype=np.int64)
    out_k = np.empty(ops.shape[0], dtype=np.float64)
    m = 0
    for i in range(ops.shape[0]):
        if ops[i] == 1:
            if size == 0:
                continue
            k = hkey[0]
            u, size = K.heap_pop(hnode, hkey, hpos, size, ties)
            inheap[u] = False
            out_n[m] = u
            out_k[m] = k
            m += 1
        else:
            v = nodes[i]
            if inheap[v]:
                if keys[i] < hkey[hpos[v]]:
                    K.heap_decrease(hnode, hkey, hpos, v, keys[i], ties)
            else:
                inheap[v] = True
                size = K.heap_push(hnode, hkey, hpos, size, v, keys[i], ties)
    while size > 0:
        k = hkey[0]
        u, size = K.heap_pop(hnode, hkey, hpos, size, ties)
        out_n[m] = u
        out_k[m] = k
        m += 1
    return out_n[:m], out_k[:m]


def _reference(ops, nodes, keys):
    """The same operations on ``heapq`` (an improved node pushed again,
    stale entries skipped): pops in key order, ties by node id."""
    heap, best, inheap, out = [], {}, set(), []

    def pop():
        while heap:
            k, v = heapq.heappop(heap)
            if v in inheap and best[v] == k:
                inheap.discard(v)
                return v, k
        return None

    for op, v, k in zip(ops, nodes, keys):
        if op == 1:
            got = pop()
            if got is not None:
                out.append(got)
        elif v not in inheap:
            inheap.add(v)
            best[v] = k
            heapq.heappush(heap, (k, v))
        elif k < best[v]:
            best[v] = k
            heapq.heappush(heap, (k, v))
    while (got := pop()) is not None:
        out.append(got)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_heap_pops_in_key_order_with_decrease_key(seed):
    rng = np.random.default_rng(seed)
    n, m = 40, 400
    ops = (rng.random(m) < 0.35).astype(np.int64)
    nodes = rng.integers(0, n, m)
    keys = rng.integers(0, 12, m).astype(np.float64)     # many equal keys
    hnode = np.empty(n, np.int32)
    hkey = np.empty(n, np.float64)
    hpos = np.empty(n, np.int32)
    got_n, got_k = _run(ops, nodes, keys, hnode, hkey, hpos, np.zeros(n, np.bool_), True)
    want = _reference(ops.tolist(), nodes.tolist(), keys.tolist())
    assert list(zip(got_n.tolist(), got_k.tolist())) == want
    # without the tie rule, which of equal keys pops first is open (and so,
    # with pops in between, what the heap holds later): pushes and
    # decreases first, then every pop, must give the keys in order
    pushes = np.zeros_like(ops)
    got_n2, got_k2 = _run(pushes, nodes, keys, hnode, hkey, hpos, np.zeros(n, np.bool_), False)
    want2 = _reference(pushes.tolist(), nodes.tolist(), keys.tolist())
    assert got_k2.tolist() == [k for _, k in want2]
    assert sorted(zip(got_k2.tolist(), got_n2.tolist())) == sorted((k, v) for v, k in want2)

def test_wraps_before_a_closed_mark_reaches_blocked():
    last = (K.BLOCKED - 1) // 2 - 1     # the last generation whose closed mark is below BLOCKED
    assert 2 * last + 1 < K.BLOCKED
    assert not K.wraps(last - 1)
    assert K.wraps(last)
    assert K.wraps(last - 3, 4) and not K.wraps(last - 4, 4)
