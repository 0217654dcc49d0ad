"""Contraction-hierarchy sizes and search spaces, navcore against
RoutingKit's ch-router, on hop-weight city graphs (``citygen``) and on the
shared DIMACS extracts: counts first (they do not depend on machine load),
build and query times second.

    python bench/ch_counts.py city20k city250k monaco.gr helsinki.gr
    python bench/ch_counts.py --no-time city20k     # counts only
    python bench/ch_counts.py city20kd gen20kd      # distance weights

Per graph: the upward arcs of each hierarchy (forward + backward; ch-router's
read from the header of its saved file), navcore's shortcuts, rounds and
shortcut depth, navcore's settled nodes per query (mean and max over random
pairs), contraction seconds of both and the mean query time of both
(navcore ``HierarchyQuery.path``, the path unpacked; ch-router's distance
query). Run timings under ``flock /tmp/navcore-cpu.lock``.
"""
from __future__ import annotations

import os
import struct
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
SHARED = Path(os.environ.get("NAVCORE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
DATA = SHARED / "data" / "roads"


def load(name):
    """``(n, src, dst, w)`` of a named graph: cityNk (``citygen``), genNk
    (``roadgen``, seconds), cityNkd and genNkd (the same with integer
    distance weights: Euclidean lengths, decimetres), X.gr (DIMACS)."""
    if name.startswith("chains") and name.endswith("k"):  # California-like
        from citygen import make_chains
        n = int(name[6:-1]) * 1000
        g = make_chains(nodes=n)
        return n, g["src"], g["dst"], g["w"]
    dist = name.endswith("kd")                       # distance weights
    base = name[:-1] if dist else name
    if base.startswith("city") and base.endswith("k"):
        from citygen import make_city
        n = int(base[4:-1]) * 1000
        g = make_city(nodes=n, weight="distance" if dist else "hop")
        return n, g["src"], g["dst"], g["w"]
    if base.startswith("gen") and base.endswith("k"):    # roadgen: motorway hierarchy
        from roadgen import make_roads
        net = make_roads(seed=20261125, nodes=int(base[3:-1]) * 1000)
        if dist:                                         # decimetres, as DIMACS .gr
            w = np.maximum(np.rint(net["length_m"] * 10.0), 1.0)
            return net["lon"].size, net["src"], net["dst"], w
        return net["lon"].size, net["src"], net["dst"], net["time_s"]
    from roads import read_gr
    src, dst, w = read_gr(DATA / name)
    n = int(max(src.max(), dst.max())) + 1
    with open(DATA / name, "rb") as f:
        for ln in f:
            if ln.startswith(b"p "):
                n = int(ln.split()[2])
                break
    return n, src, dst, w


def csr(n, src, dst, w):
    o = np.lexsort((dst, src))
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.add.at(offsets, src[o] + 1, 1)
    return np.cumsum(offsets), dst[o].astype(np.int32), w[o].astype(np.float64)


def chrouter_arcs(ch):
    """(forward, backward) upward arcs of a ch-router hierarchy, from the
    header of RoutingKit's file format (magic, nodes, forward, backward)."""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "h.ch")
        ch.save(p)
        with open(p, "rb") as f:
            head = f.read(20)
    _, _, fa, ba = struct.unpack("<QIII", head)
    return fa, ba


def run(name, pairs=2000, timing=True, seed=7):
    import ch_router
    from navcore_csr.hierarchy import DirectedHierarchy
    n, src, dst, w = load(name)
    off, tgt, ww = csr(n, src, dst, w)
    t = time.perf_counter()
    h = DirectedHierarchy.build(off, tgt, ww)
    nav_build = time.perf_counter() - t
    st = h.stats()
    scale = 1000 if name.startswith("gen") and not name.endswith("kd") else 1
    iw = np.rint(w * scale).astype(np.uint32)
    t = time.perf_counter()
    ch = ch_router.ContractionHierarchy.build(n, src.astype(np.uint32), dst.astype(np.uint32), iw)
    rk_build = time.perf_counter() - t
    fa, ba = chrouter_arcs(ch)
    rng = np.random.default_rng(seed)
    s = rng.integers(0, n, pairs)
    tt = rng.integers(0, n, pairs)
    q = h.query()
    settled = np.empty(pairs, dtype=np.int64)
    for i in range(pairs):
        q.path(int(s[i]), int(tt[i]))
        settled[i] = q.settled
    out = {"graph": name, "nodes": n, "arcs": int(src.size),
           "nav_up_arcs": st["forward_edges"] + st["backward_edges"],
           "rk_up_arcs": fa + ba, "nav_shortcuts": st["shortcuts"],
           "nav_rounds": st["rounds"], "nav_depth": st["shortcut_depth"],
           "nav_settled_mean": float(settled.mean()), "nav_settled_max": int(settled.max())}
    if timing:
        rq = ch_router.CHQuery(ch)
        for _ in range(2):                     # warm, then time
            t = time.perf_counter()
            for i in range(pairs):
                q.path(int(s[i]), int(tt[i]))
            nav_q = (time.perf_counter() - t) / pairs
            t = time.perf_counter()
            for i in range(pairs):
                rq.reset().add_source(int(s[i])).add_target(int(tt[i])).run()
                rq.get_distance()
            rk_q = (time.perf_counter() - t) / pairs
        out.update(nav_build_s=round(nav_build, 3), rk_build_s=round(rk_build, 3),
                   build_ratio=round(nav_build / rk_build, 2),
                   nav_query_us=round(nav_q * 1e6, 1), rk_query_us=round(rk_q * 1e6, 1),
                   query_ratio=round(nav_q / rk_q, 2))
    return out


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    timing = "--no-time" not in sys.argv
    from navcore_csr.hierarchy import DirectedHierarchy
    DirectedHierarchy.build(*csr(3, np.array([0, 1, 2]), np.array([1, 2, 0]),
                                 np.ones(3))).query().path(0, 2)     # compiled before timing
    for name in args or ["city20k"]:
        print(run(name, timing=timing), flush=True)
