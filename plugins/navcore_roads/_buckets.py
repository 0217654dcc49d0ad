"""A counting sort shared by the roads kernels (private)."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def group_by(keys, count):
    """Items ``0..len(keys)-1`` grouped by key (keys in ``0..count-1``), in
    item order within a group: ``(first, items)``, the items of key ``k``
    being ``items[first[k]:first[k + 1]]``. One counting pass, one fill."""
    n = keys.shape[0]
    first = np.zeros(count + 1, dtype=np.int64)
    for x in range(n):
        first[keys[x] + 1] += 1
    for k in range(count):
        first[k + 1] += first[k]
    fill = first[:count].copy()
    items = np.empty(n, dtype=np.int32)
    for x in range(n):
        items[fill[keys[x]]] = x
        fill[keys[x]] += 1
    return first, items
