"""The binary heap of navcore's search kernels (``navcore/_kernels.py``):
four ways to write it, timed on the two searches that use it most, in one
run, interleaved.

    .venv/bin/python bench/heap.py            # full run (about 1-2 minutes)
    .venv/bin/python bench/heap.py --quick    # small sizes, a smoke run

Ways (the search around the heap is the same code in every kernel):

* ``written``: pop and sift-up written out in the kernel by hand;
* ``inline``: ``navcore._kernels.heap_push/heap_decrease/heap_pop``,
  ``@njit(inline="always")`` helpers (what the kernels use);
* ``called``: the same helpers compiled as plain ``@njit`` functions, a
  call per push and pop;
* ``lazy``: no decrease-key: an improved node is pushed again and the
  stale entry skipped when it is popped (no ``hpos`` array).

Searches:

* ``csr dijkstra``: one-to-all Dijkstra on a ``side x side`` 4-neighbour
  grid as CSR arrays, costs U[1, 2) (as ``bench/csr.py``), from ``sources``
  random nodes;
* ``grid astar``: A* with the octile heuristic on the MovingAI map
  brc202d (8-connected, no corner cutting), ``pairs`` pairs of its
  scenario file spread over the buckets (a random 512x512 grid with 30%
  walls when the map is not there).

Reported: the median time of each way, and its ratio to ``written``
(below 1: faster than the hand-written heap). All ways must expand the
same number of nodes with the same costs (checked). Results:
``bench/results/heap.json``.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import interleaved, log, median, write_json  # noqa: E402

from navcore import _kernels as K  # noqa: E402

INF = np.inf
SEED = 20261128
DATA = Path(os.environ.get("NAVCORE_MOVINGAI",
                           Path(__file__).resolve().parents[2] / "shared/data/movingai"))
FULL = dict(side=1000, sources=8, pairs=200, rounds=7)
QUICK = dict(side=200, sources=3, pairs=30, rounds=3)

_place_called = njit(nogil=True)(K.heap_place.py_func)
_pop_called = njit(nogil=True)(K.heap_pop.py_func)


# -- csr dijkstra ------------------------------------------------------------
@njit(nogil=True)
def dij_written(offsets, targets, cost, source, g, stamp, hnode, hkey, hpos, gen):
    om = 2 * gen
    cm = om + 1
    g[source] = 0.0
    stamp[source] = om
    hnode[0] = source
    hkey[0] = 0.0
    hpos[source] = 0
    size = 1
    n = 0
    while size > 0:
        u = hnode[0]
        size -= 1
        if size > 0:
            last = hnode[size]
            lk = hkey[size]
            i = 0
            while True:
                c = 2 * i + 1
                if c >= size:
                    break
                if c + 1 < size and hkey[c + 1] < hkey[c]:
                    c += 1
                if hkey[c] >= lk:
                    break
                hnode[i] = hnode[c]
                hkey[i] = hkey[c]
                hpos[hnode[i]] = i
                i = c
            hnode[i] = last
            hkey[i] = lk
            hpos[last] = i
        stamp[u] = cm
        n += 1
        gu = g[u]
        for e in range(offsets[u], offsets[u + 1]):
            v = targets[e]
            sv = stamp[v]
            if sv == cm:
                continue
            ng = gu + cost[e]
            if sv == om:
                if ng >= g[v]:
                    continue
                i = hpos[v]
            else:
                stamp[v] = om
                i = size
                size += 1
            g[v] = ng
            while i > 0:
                p = (i - 1) >> 1
                if hkey[p] <= ng:
                    break
                hnode[i] = hnode[p]
                hkey[i] = hkey[p]
                hpos[hnode[i]] = i
                i = p
            hnode[i] = v
            hkey[i] = ng
            hpos[v] = i
    return n


@njit(nogil=True)
def dij_inline(offsets, targets, cost, source, g, stamp, hnode, hkey, hpos, gen):
    om = 2 * gen
    cm = om + 1
    g[source] = 0.0
    stamp[source] = om
    size = K.heap_push(hnode, hkey, hpos, 0, source, 0.0)
    n = 0
    while size > 0:
        u, size = K.heap_pop(hnode, hkey, hpos, size)
        stamp[u] = cm
        n += 1
        gu = g[u]
        for e in range(offsets[u], offsets[u + 1]):
            v = targets[e]
            sv = stamp[v]
            if sv == cm:
                continue
            ng = gu + cost[e]
            if sv == om:
                if ng >= g[v]:
                    continue
                i = hpos[v]
            else:
                stamp[v] = om
                i = size
                size += 1
            g[v] = ng
            K.heap_place(hnode, hkey, hpos, i, v, ng)
    return n


@njit(nogil=True)
def dij_called(offsets, targets, cost, source, g, stamp, hnode, hkey, hpos, gen):
    om = 2 * gen
    cm = om + 1
    g[source] = 0.0
    stamp[source] = om
    _place_called(hnode, hkey, hpos, 0, source, 0.0, False)
    size = 1
    n = 0
    while size > 0:
        u, size = _pop_called(hnode, hkey, hpos, size, False)
        stamp[u] = cm
        n += 1
        gu = g[u]
        for e in range(offsets[u], offsets[u + 1]):
            v = targets[e]
            sv = stamp[v]
            if sv == cm:
                continue
            ng = gu + cost[e]
            if sv == om:
                if ng >= g[v]:
                    continue
                i = hpos[v]
            else:
                stamp[v] = om
                i = size
                size += 1
            g[v] = ng
            _place_called(hnode, hkey, hpos, i, v, ng, False)
    return n


@njit(nogil=True, inline="always")
def _lazy_push(hk, hn, size, key, node):
    i = size
    while i > 0:
        p = (i - 1) >> 1
        if hk[p] <= key:
            break
        hk[i] = hk[p]
        hn[i] = hn[p]
        i = p
    hk[i] = key
    hn[i] = node
    return size + 1


@njit(nogil=True, inline="always")
def _lazy_pop(hk, hn, size):
    u = hn[0]
    size -= 1
    key = hk[size]
    node = hn[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and hk[c + 1] < hk[c]:
            c += 1
        if hk[c] >= key:
            break
        hk[i] = hk[c]
        hn[i] = hn[c]
        i = c
    hk[i] = key
    hn[i] = node
    return u, size


@njit(nogil=True)
def dij_lazy(offsets, targets, cost, source, g, stamp, hnode, hkey, hpos, gen):
    # hnode/hkey hold up to one entry per edge here (the caller sizes them)
    om = 2 * gen
    cm = om + 1
    g[source] = 0.0
    stamp[source] = om
    size = _lazy_push(hkey, hnode, 0, 0.0, source)
    n = 0
    while size > 0:
        u, size = _lazy_pop(hkey, hnode, size)
        if stamp[u] == cm:
            continue
        stamp[u] = cm
        n += 1
        gu = g[u]
        for e in range(offsets[u], offsets[u + 1]):
            v = targets[e]
            sv = stamp[v]
            if sv == cm:
                continue
            ng = gu + cost[e]
            if sv == om and ng >= g[v]:
                continue
            stamp[v] = om
            g[v] = ng
            size = _lazy_push(hkey, hnode, size, ng, v)
    return n


# -- grid A* (8-connected, no corner cutting, octile) ---------------------------
_DX = np.array([1, -1, 0, 0, 1, -1, 1, -1], dtype=np.int64)
_DY = np.array([0, 0, 1, -1, 1, 1, -1, -1], dtype=np.int64)
_NEED = np.array([0, 0, 0, 0, 5, 6, 9, 10], dtype=np.int64)   # straight bits a diagonal needs
_LEN = np.array([1.0] * 4 + [math.sqrt(2.0)] * 4)


def _astar(way):
    """A grid A* kernel with heap ``way`` (one source, the ways differ only
    in the heap lines)."""
    @njit(nogil=True)
    def astar(free, Wp, start, goal, g, stamp, hnode, hkey, hpos, gen, dxs, dys, need,
              lens):
        om = 2 * gen
        cm = om + 1
        gx = goal % Wp
        gy = goal // Wp
        hb = math.sqrt(2.0) - 1.0
        g[start] = 0.0
        stamp[start] = om
        size = 0
        if way == 0 or way == 2:
            size = K.heap_push(hnode, hkey, hpos, 0, start, 0.0)
        else:
            size = _lazy_push(hkey, hnode, 0, 0.0, start)
        n = 0
        while size > 0:
            if way == 0:
                u, size = K.heap_pop(hnode, hkey, hpos, size)
            elif way == 2:
                u, size = _pop_called(hnode, hkey, hpos, size, False)
            else:
                u, size = _lazy_pop(hkey, hnode, size)
                if stamp[u] == cm:
                    continue
            stamp[u] = cm
            n += 1
            if u == goal:
                return g[u], n
            gu = g[u]
            bits = 0
            for k in range(8):
                if k >= 4 and (bits & need[k]) != need[k]:
                    continue
                v = u + dxs[k] + dys[k] * Wp
                if not free[v]:
                    continue
                if k < 4:
                    bits |= 1 << k
                sv = stamp[v]
                if sv == cm:
                    continue
                ng = gu + lens[k]
                if sv == om and ng >= g[v]:
                    continue
                hx = abs(v % Wp - gx)
                hy = abs(v // Wp - gy)
                key = ng + max(hx, hy) + hb * min(hx, hy)
                g[v] = ng
                if way == 0 or way == 2:
                    if sv == om:
                        i = hpos[v]
                    else:
                        stamp[v] = om
                        i = size
                        size += 1
                    if way == 0:
                        K.heap_place(hnode, hkey, hpos, i, v, key)
                    else:
                        _place_called(hnode, hkey, hpos, i, v, key, False)
                else:
                    stamp[v] = om
                    size = _lazy_push(hkey, hnode, size, key, v)
        return INF, n
    return astar


@njit(nogil=True)
def astar_written(free, Wp, start, goal, g, stamp, hnode, hkey, hpos, gen, dxs, dys, need,
                  lens):
    om = 2 * gen
    cm = om + 1
    gx = goal % Wp
    gy = goal // Wp
    hb = math.sqrt(2.0) - 1.0
    g[start] = 0.0
    stamp[start] = om
    hnode[0] = start
    hkey[0] = 0.0
    hpos[start] = 0
    size = 1
    n = 0
    while size > 0:
        u = hnode[0]
        size -= 1
        if size > 0:
            last = hnode[size]
            lk = hkey[size]
            i = 0
            while True:
                c = 2 * i + 1
                if c >= size:
                    break
                if c + 1 < size and hkey[c + 1] < hkey[c]:
                    c += 1
                if hkey[c] >= lk:
                    break
                hnode[i] = hnode[c]
                hkey[i] = hkey[c]
                hpos[hnode[i]] = i
                i = c
            hnode[i] = last
            hkey[i] = lk
            hpos[last] = i
        stamp[u] = cm
        n += 1
        if u == goal:
            return g[u], n
        gu = g[u]
        bits = 0
        for k in range(8):
            if k >= 4 and (bits & need[k]) != need[k]:
                continue
            v = u + dxs[k] + dys[k] * Wp
            if not free[v]:
                continue
            if k < 4:
                bits |= 1 << k
            sv = stamp[v]
            if sv == cm:
                continue
            ng = gu + lens[k]
            if sv == om:
                if ng >= g[v]:
                    continue
                i = hpos[v]
            else:
                stamp[v] = om
                i = size
                size += 1
            hx = abs(v % Wp - gx)
            hy = abs(v // Wp - gy)
            key = ng + max(hx, hy) + hb * min(hx, hy)
            g[v] = ng
            while i > 0:
                p = (i - 1) >> 1
                if hkey[p] <= key:
                    break
                hnode[i] = hnode[p]
                hkey[i] = hkey[p]
                hpos[hnode[i]] = i
                i = p
            hnode[i] = v
            hkey[i] = key
            hpos[v] = i
    return INF, n


ASTAR = {"written": astar_written, "inline": _astar(0), "called": _astar(2),
         "lazy": _astar(1)}
DIJKSTRA = {"written": dij_written, "inline": dij_inline, "called": dij_called,
            "lazy": dij_lazy}


def grid_csr(side, rng):
    """4-neighbour grid as CSR (both directions), costs U[1, 2)."""
    idx = np.arange(side * side).reshape(side, side)
    a = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    b = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    src = np.concatenate([a, b])
    dst = np.concatenate([b, a])
    w = rng.uniform(1.0, 2.0, a.size)
    cost = np.concatenate([w, w])
    order = np.lexsort((dst, src))
    offsets = np.zeros(side * side + 1, dtype=np.int64)
    np.add.at(offsets, src + 1, 1)
    return np.cumsum(offsets), dst[order].astype(np.int32), cost[order]


def padded_map(rng, pairs):
    """``(free (padded, flat), Wp, [(start, goal)] padded ids, name)``."""
    path = DATA / "brc202d.map"
    if path.exists():
        from navcore_grid import read_map, read_scen
        walk = read_map(path)
        sc = read_scen(DATA / "brc202d.map.scen")
        idx = np.unique(np.linspace(0, len(sc) - 1, pairs).round().astype(int))
        pts = [(tuple(sc.start[i]), tuple(sc.goal[i])) for i in idx]
        name = "brc202d"
    else:
        walk = rng.random((512, 512)) >= 0.3
        free_ids = np.flatnonzero(walk.ravel())
        pts = []
        for _ in range(pairs):
            s, t = rng.choice(free_ids, 2, replace=False)
            pts.append(((s % 512, s // 512), (t % 512, t // 512)))
        name = "random512-30"
    H, W = walk.shape
    Wp = W + 2
    free = np.zeros((H + 2, Wp), dtype=np.bool_)
    free[1:-1, 1:-1] = walk
    ids = [((int(sy) + 1) * Wp + int(sx) + 1, (int(gy) + 1) * Wp + int(gx) + 1)
           for (sx, sy), (gx, gy) in pts]
    return free.ravel(), Wp, ids, name


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (smoke run)")
    ap.add_argument("--rounds", type=int, help="timing rounds")
    args = ap.parse_args(argv)
    cfg = dict(QUICK if args.quick else FULL)
    if args.rounds:
        cfg["rounds"] = args.rounds
    rng = np.random.default_rng(SEED)
    results = {}

    offsets, targets, cost = grid_csr(cfg["side"], rng)
    n = offsets.size - 1
    sources = rng.choice(n, cfg["sources"], replace=False)
    big = targets.size + 1                       # room for the lazy heap's duplicates
    state = dict(g=np.empty(n), stamp=np.zeros(n, np.int32), hnode=np.empty(big, np.int32),
                 hkey=np.empty(big), hpos=np.empty(n, np.int32), gen=[0])

    def dij(fn):
        def run():
            out = []
            for s in sources:
                state["gen"][0] += 1
                out.append(fn(offsets, targets, cost, s, state["g"], state["stamp"],
                              state["hnode"], state["hkey"], state["hpos"], state["gen"][0]))
            return out
        return run

    log(f"csr dijkstra: {cfg['side']}x{cfg['side']} grid, {len(sources)} sources")
    check = {name: dij(fn)() for name, fn in DIJKSTRA.items()}     # compile + check
    assert len({tuple(v) for v in check.values()}) == 1, check
    times = interleaved({name: dij(fn) for name, fn in DIJKSTRA.items()}, cfg["rounds"])
    results["csr dijkstra"] = times

    free, Wp, ids, name = padded_map(rng, cfg["pairs"])
    n = free.size
    st = dict(g=np.empty(n), stamp=np.where(free, 0, K.BLOCKED).astype(np.int32),
              hnode=np.empty(8 * n, np.int32), hkey=np.empty(8 * n),
              hpos=np.empty(n, np.int32), gen=[0])

    def ast(fn):
        def run():
            out = []
            for s, t in ids:
                st["gen"][0] += 1
                c, e = fn(free, Wp, s, t, st["g"], st["stamp"], st["hnode"], st["hkey"],
                          st["hpos"], st["gen"][0], _DX, _DY, _NEED, _LEN)
                out.append((round(c, 6), e))
            return out
        return run

    log(f"grid astar: {name}, {len(ids)} pairs")
    check = {k: ast(fn)() for k, fn in ASTAR.items()}
    costs = {k: [c for c, _ in v] for k, v in check.items()}
    assert len({tuple(v) for v in costs.values()}) == 1, "costs differ"
    times_a = interleaved({k: ast(fn) for k, fn in ASTAR.items()}, cfg["rounds"])
    results[f"grid astar ({name})"] = times_a
    expanded = {k: sum(e for _, e in v) for k, v in check.items()}

    # the least of the rounds as well as the median: on a shared machine
    # other processes only ever add time to a round of a deterministic search
    print(f"{'search':28s} {'way':8s} {'median':>10s} {'/ written':>10s} {'least':>10s} "
          f"{'/ written':>10s}")
    summary = {}
    for search, ts in results.items():
        base = median(ts["written"])
        base_min = min(ts["written"])
        for way, t in ts.items():
            m = median(t)
            lo = min(t)
            summary[f"{search} {way}"] = {"median_s": m, "ratio": m / base, "least_s": lo,
                                         "ratio_least": lo / base_min}
            print(f"{search:28s} {way:8s} {m * 1e3:8.2f}ms {m / base:9.3f}x {lo * 1e3:8.2f}ms "
                  f"{lo / base_min:9.3f}x")
    print("grid astar expansions per way:", expanded)
    write_json("heap-quick" if args.quick else "heap",
                  {"config": cfg, "summary": summary, "expanded": expanded,
                   "rounds": {k: v for k, v in results.items()}})


if __name__ == "__main__":
    main()
