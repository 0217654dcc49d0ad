"""navcore_dask against navcore in one process.

    flock /tmp/navcore-cpu.lock .venv/bin/python bench/dask.py [--quick]
        [--nodes 50000] [--n 1000] [--rounds 3]

On a seeded road network (``bench/roadgen.py``, ``--nodes`` junctions,
weights in seconds, no hierarchy):

* overhead: an n x n matrix on a LocalCluster of 2 worker processes (one
  thread each), for several tile sizes (sources per tile), against
  ``world.distance_matrix`` in this process (which uses both cores); the
  smallest tile size whose overhead is under 10%;
* scaling: a 2n x 2n matrix on 1 and on 2 worker processes (automatic
  tiles, and 4 times as many), with the CPU time the client process
  (client and LocalCluster scheduler) spends per job; against it, the
  machine's own ceiling: the same tiles' kernels in 1 and in 2 plain
  spawned processes, no Dask at all (``bare1``, ``bare2``);
* an estimate of a 100,000 x 100,000 matrix on 32 workers from the
  measured cost per search and per tile.

Rounds interleave the variants; figures are medians. Results go to
bench/results/dask.json. Both clusters are closed whatever happens.
"""
from __future__ import annotations

import argparse
import importlib.util
import logging
import math
import multiprocessing
import sys
import time
from pathlib import Path

# This file is named dask.py: with its folder on sys.path (Python puts it
# first, and spawned Dask workers inherit the path) ``import dask`` would
# find this file. Take the folder off and load our helpers by path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, _HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_common = _load("_common")
median, now, write_json = _common.median, _common.now, _common.write_json

import numpy as np  # noqa: E402

import navcore  # noqa: E402
import navcore_dask  # noqa: E402

CHUNKS = (10, 25, 50, 125, 250)
QUICK = {"nodes": 10_000, "n": 300, "rounds": 1}


def _roads(nodes):
    """A world with the generated road network ``r`` and the nodes of its
    largest strongly connected component."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components
    net = _load("roadgen").make_roads(seed=20261125, nodes=nodes)
    world = navcore.World()
    g = world.add_graph("r", type="roads", keep="all", src=net["src"], dst=net["dst"],
                        length=net["length_m"], cost=net["time_s"],
                        positions=np.column_stack((net["lon"], net["lat"])), oneway=True)
    n = g.num_nodes
    adj = csr_matrix((np.ones(net["src"].size), (net["src"], net["dst"])), shape=(n, n))
    _, lab = connected_components(adj, directed=True, connection="strong")
    return world, g, np.flatnonzero(lab == np.argmax(np.bincount(lab))).astype(np.int32)


def _client(n_workers):
    # set_as_default=False: two clients live in this process; neither may
    # stand in for the other (the plugin waits on the client it is given)
    return navcore_dask.connect(n_workers=n_workers, threads_per_worker=1,
                                set_as_default=False, silence_logs=40)


def _timed(fn, *args, **kw):
    t0 = now()
    out = fn(*args, **kw)
    return now() - t0, out


def _cpu_timed(fn, *args, **kw):
    """``(wall seconds, CPU seconds of this process, result)``: this
    process runs the client and the LocalCluster's scheduler."""
    c0, t0 = time.process_time(), now()
    out = fn(*args, **kw)
    return now() - t0, time.process_time() - c0, out


def _bare_worker(payload, rows, cols, ready, go, done):
    """One plain process: the graph unpickled and the kernels loaded as a
    Dask worker does (``navcore_dask`` tiles), then one tile of ``rows``."""
    from navcore_dask import tiles
    from navcore_dask.snapshot import Snapshot
    snap = Snapshot("bare", payload)
    tiles.matrix_tile(snap, rows[:2], cols)
    ready.put(1)
    go.wait()
    t0 = now()
    tiles.matrix_tile(snap, rows, cols)
    done.put(now() - t0)


def _bare(payload, parts, cols) -> float:
    """Seconds until the last of ``len(parts)`` spawned processes (one per
    part of the rows, started together) has its tile: the scaling the
    machine allows two processes, with no Dask in between."""
    ctx = multiprocessing.get_context("spawn")
    ready, done, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=_bare_worker, args=(payload, p, cols, ready, go, done))
             for p in parts]
    for p in procs:
        p.start()
    try:
        for _ in procs:
            ready.get(timeout=120)
        go.set()
        return max(done.get(timeout=600) for _ in procs)
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true",
                    help=f"a smoke run: {QUICK}, tile sizes 25 and 125")
    ap.add_argument("--nodes", type=int, default=50_000)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    chunks = CHUNKS
    logging.getLogger("distributed").setLevel(logging.WARNING)   # cluster start/stop chatter
    if args.quick:
        vars(args).update(QUICK)
        chunks = (25, 125)
    t0 = now()
    world, g, scc = _roads(args.nodes)
    print(f"road network: {g.num_nodes} nodes ({now() - t0:.1f} s to build)", flush=True)
    rng = np.random.default_rng(2)
    s, t = rng.choice(scc, args.n).astype(np.int32), rng.choice(scc, args.n).astype(np.int32)
    s2 = rng.choice(scc, 2 * args.n).astype(np.int32)
    t2 = rng.choice(scc, 2 * args.n).astype(np.int32)
    world.distance_matrix("r", s[:8], t)                            # kernels loaded
    clients = {}
    times: dict = {"local": [], "local_2n": [], "w1": [], "w2": [], "w2_fine": [],
                   "bare1": [], "bare2": []}
    times.update({f"chunk{c}": [] for c in chunks})
    cpu: dict = {"w1": [], "w2": [], "w2_fine": []}
    first = {}
    payload = navcore_dask.snapshot.dumps(g)
    fine = math.ceil(2 * args.n / (2 * navcore_dask.jobs.TILES_PER_THREAD * 4))
    try:
        for k in (2, 1):
            clients[k] = _client(k)
            first[k], _ = _timed(navcore_dask.distance_matrix, clients[k], g, s[:8], t)
        for r in range(args.rounds):
            dt, want = _timed(world.distance_matrix, "r", s, t)
            times["local"].append(dt)
            k = r % len(chunks)
            for c in chunks[k:] + chunks[:k]:                # order rotates
                dt, got = _timed(navcore_dask.distance_matrix, clients[2], g, s, t, chunk=c)
                times[f"chunk{c}"].append(dt)
                assert np.array_equal(got, want), f"chunk {c}: matrix differs"
            times["local_2n"].append(_timed(world.distance_matrix, "r", s2, t2)[0])
            scaling = [("w1", clients[1], None), ("w2", clients[2], None),
                       ("w2_fine", clients[2], fine), ("bare1", None, [s2]),
                       ("bare2", None, [s2[:args.n], s2[args.n:]])]
            for name, client, arg in (scaling if r % 2 == 0 else scaling[::-1]):
                if client is None:
                    times[name].append(_bare(payload, arg, t2))
                    continue
                dt, used, _ = _cpu_timed(navcore_dask.distance_matrix, client, g, s2, t2,
                                         chunk=arg)
                times[name].append(dt)
                cpu[name].append(used)
            print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.2f}" for k, v in times.items()),
                  flush=True)
    finally:
        for c in clients.values():
            c.close()                   # closes its LocalCluster and worker processes
    report(args, g, chunks, times, first, cpu, fine)


def report(args, g, chunks, times, first, cpu, fine) -> None:
    med = {k: median(v) for k, v in times.items()}
    local = med["local"]
    overhead = {c: med[f"chunk{c}"] / local - 1 for c in chunks}
    under = [c for c in chunks if overhead[c] < 0.10]
    # cost of one search on one worker (2n searches, automatic tiles)
    per_search = med["w1"] / (2 * args.n)
    # per-tile cost: least squares of the 2-process time against the number
    # of tiles (both workers run tiles at once: a tile costs twice the slope)
    tiles = np.array([args.n / c for c in chunks])
    secs = np.array([med[f"chunk{c}"] for c in chunks])
    per_tile = max(0.0, 2 * np.polyfit(tiles, secs, 1)[0]) if len(chunks) > 1 else 0.0
    searches, workers = 100_000, 32
    tile = 4_000_000 // searches            # navcore_dask's automatic tile (32 MB)
    estimate = (searches * per_search + searches / tile * per_tile) / workers
    # a 100,000 x 100,000 matrix needs a graph of 100,000 nodes at least: a
    # search there costs about nodes * log(nodes) as much (Dijkstra)
    big = max(searches, g.num_nodes)
    grow = big * np.log(big) / (g.num_nodes * np.log(g.num_nodes))
    estimate_big = (searches * per_search * grow + searches / tile * per_tile) / workers
    print(f"\nroads {g.num_nodes} nodes, {args.n} x {args.n} matrix, {args.rounds} rounds")
    print(f"in process (2 cores): {local:.2f} s; first call on the cluster (graph sent, "
          f"kernels loaded): 2 workers {first[2]:.2f} s, 1 worker {first[1]:.2f} s")
    for c in chunks:
        print(f"  2 processes, {c:4d} sources a tile: {med[f'chunk{c}']:.2f} s "
              f"(x{med[f'chunk{c}'] / local:.2f} of in process)")
    print(f"overhead under 10% from {under[0] if under else 'none of these'} sources a tile")
    mcpu = {k: median(v) for k, v in cpu.items()}
    print(f"scaling ({2 * args.n} x {2 * args.n}): 1 worker {med['w1']:.2f} s, 2 workers "
          f"{med['w2']:.2f} s: {med['w1'] / med['w2']:.2f}x; with {fine} sources a tile "
          f"{med['w2_fine']:.2f} s: {med['w1'] / med['w2_fine']:.2f}x; in process "
          f"{med['local_2n']:.2f} s")
    print(f"  client process CPU (client + scheduler) per job: 1 worker {mcpu['w1']:.2f} s, "
          f"2 workers {mcpu['w2']:.2f} s, {fine} a tile {mcpu['w2_fine']:.2f} s")
    print(f"  without Dask, the same kernels in plain processes: 1 process "
          f"{med['bare1']:.2f} s, 2 processes {med['bare2']:.2f} s: "
          f"{med['bare1'] / med['bare2']:.2f}x (the machine's ceiling for 2 processes)")
    print(f"per search {per_search * 1e3:.2f} ms, per tile {per_tile * 1e3:.1f} ms; "
          f"100,000 x 100,000 on {workers} workers ({tile} sources a tile): about "
          f"{estimate:.0f} s on this graph, {estimate_big:.0f} s on a {big}-node one "
          f"(searches scaled by n log n); the result is 80 GB: keep it lazy=True")
    write_json("dask", {"args": vars(args), "nodes": g.num_nodes, "times": times,
                        "median": med, "overhead": overhead, "first_call": first,
                        "client_cpu_s": cpu, "fine_chunk": fine,
                        "scaling": med["w1"] / med["w2"],
                        "scaling_fine": med["w1"] / med["w2_fine"],
                        "scaling_bare": med["bare1"] / med["bare2"],
                        "per_search_s": per_search, "per_tile_s": per_tile,
                        "estimate_100k_32_s": estimate,
                        "estimate_100k_32_on_100k_nodes_s": estimate_big})


if __name__ == "__main__":
    main()
