"""Crowds: RVO2's circle scenario, navcore's whole crowd step against
pyrvo's ``do_step`` (RVO2's C++ through its binding), same agents, same
parameters, same machine, in one run.

    flock /tmp/navcore-cpu.lock .venv/bin/python bench/crowd.py [--quick | --order | --jam]

N agents stand on concentric rings (2.5 radii apart, the outer ring at
least RVO2's 200 m) and each walks to the opposite point: RVO2's
``Circle`` example, packed so the crowd is dense from the first step
(``circle``), with its parameters (neighbour distance 15, 10
neighbours, horizons 10 s, radius 1.5, top speed 2, step 0.25 s). navcore
runs the crowd on an open navmesh square around the circle (one polygon: every goal is in it, so the
crowd walks one flow field, read in each step; then ORCA against agents
and the square's walls, the moves kept on the mesh, separation)
with ``World(workers=0)`` and ``workers=1`` (two threads); pyrvo's time
is ``do_step`` alone, without the Python loop that must set every
agent's preferred velocity first (reported beside it). Steps are timed
after the first ten, interleaved between the libraries.

An RTS order (``order``): 300 units standing together on a MovingAI city
map (Berlin, 256 x 256), as a grid and as a navmesh made from it, sent to
one point across the map. A crowd serves it with one flow field
(``navcore_flow_field``: made, then read for all 300 units once) instead
of 300 path requests (``request_path``, served by ``tick``, as a crowd
asks for them) or 300 ``find_path`` calls; medians of interleaved rounds.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import (fmt_ratio, fmt_s, interleaved, log, machine, median,  # noqa: E402
                     print_table, versions, write_json)

# ../shared beside the repository, as in CI; NAVCORE_MOVINGAI overrides it
DATA = Path(os.environ.get("NAVCORE_MOVINGAI",
                           Path(__file__).resolve().parents[2] / "shared/data/movingai"))
#: the order: this many units on this map, from around one point to another
ORDER_MAP, ORDER_UNITS = "Berlin_0_256.map", 300
ORDER_FROM, ORDER_TO, ORDER_SPREAD = (30.0, 30.0), (225.0, 225.0), 15.0

RADIUS, SPEED, DT = 1.5, 2.0, 0.25
PARAMS = dict(radius=RADIUS, max_speed=SPEED, neighbour_dist=15.0, max_neighbours=10,
              time_horizon=10.0, time_horizon_obstacles=10.0)


def circle(n):
    """RVO2's circle, packed: ``n`` agents on concentric rings 2.5 radii
    apart (2.5 radii between neighbours on a ring, the outer ring at least
    RVO2's 200 m), each heading for the point opposite. The crowd is
    dense from the first step, so the steps timed are the crossing's
    crowded ones without simulating the long walk in from one thin ring."""
    gap = 2.5 * RADIUS
    pts, ring = [], 0
    outer = max(200.0, np.sqrt(n * gap * gap / np.pi) * 1.05)
    while len(pts) < n:
        r = outer - ring * gap
        if r <= gap:
            break
        k = min(int(2 * np.pi * r / gap), n - len(pts))
        a = 2 * np.pi * np.arange(k) / k + ring * 0.5
        pts.extend(zip(r * np.cos(a), r * np.sin(a)))
        ring += 1
    start = np.array(pts[:n])
    return start, -start, outer


def prefs(pos, goal):
    g = goal - pos
    d2 = (g * g).sum(1)
    return g * np.where(d2 > 1.0, 1.0 / np.sqrt(np.maximum(d2, 1e-300)), 1.0)[:, None]


def navcore_crowd(n, workers):
    import navcore
    start, goal, r = circle(n)
    world = navcore.World(workers=workers)
    half = r + 10.0
    world.add_graph("open", type="navmesh", bounds=(-half, -half, half, half))
    crowd = world.add_crowd("c", graph="open", **PARAMS)
    crowd.add(start, goals=goal)
    serve(world, crowd)
    return world, crowd


def serve(world, crowd):
    """Serve the crowd's path requests before timing. Agents whose goals
    share a polygon (here: the one square) walk one flow field instead,
    read in their first step; they wait until then."""
    before = -1
    while (crowd.state == 1).sum() != before:
        before = int((crowd.state == 1).sum())
        world.tick(0.0, budget_ms=1000.0)


def memory_per_agent(n):
    """Bytes a crowd holds per agent once on its way (its path served, or
    its field read): its arrays, corridors, path requests and fields
    (tracemalloc, Python and numpy)."""
    import tracemalloc
    import navcore
    start, goal, r = circle(n)
    world = navcore.World()
    half = r + 10.0
    world.add_graph("open", type="navmesh", bounds=(-half, -half, half, half))
    crowd = world.add_crowd("c", graph="open", **PARAMS)
    crowd.step(DT)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    crowd.add(start, goals=goal)
    serve(world, crowd)
    crowd.step(DT)
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    world.close()
    return used / n


def pyrvo_sim(n):
    import pyrvo
    start, goal, _ = circle(n)
    sim = pyrvo.RVOSimulator()
    sim.set_time_step(DT)
    sim.set_agent_defaults(15.0, 10, 10.0, 10.0, RADIUS, SPEED)
    for p in start.tolist():
        sim.add_agent(tuple(p))
    return sim, goal


def rvo_prefs(sim, goal):
    n = goal.shape[0]
    pos = np.array([sim.get_agent_position(i).to_tuple() for i in range(n)])
    t = time.perf_counter()
    for i, v in enumerate(prefs(pos, goal).tolist()):
        sim.set_agent_pref_velocity(i, tuple(v))
    return time.perf_counter() - t


def run(n, steps, skip):
    log(f"circle of {n}")
    crowds = {w: navcore_crowd(n, w) for w in (0, 1)}
    sim, goal = pyrvo_sim(n)
    times = {"navcore workers=0": [], "navcore workers=1": [], "pyrvo do_step": [],
             "pyrvo set prefs": []}
    for k in range(skip + steps):
        for w, (world, crowd) in crowds.items():
            t = time.perf_counter()
            crowd.step(DT)
            if k >= skip:
                times[f"navcore workers={w}"].append(time.perf_counter() - t)
        tp = rvo_prefs(sim, goal)
        t = time.perf_counter()
        sim.do_step()
        if k >= skip:
            times["pyrvo do_step"].append(time.perf_counter() - t)
            times["pyrvo set prefs"].append(tp)
    for world, _ in crowds.values():
        world.close()
    med = {k: float(np.median(v)) for k, v in times.items()}
    return {"agents": n, "ms": {k: v * 1e3 for k, v in med.items()},
            "ratio_w0": med["navcore workers=0"] / med["pyrvo do_step"],
            "ratio_w1": med["navcore workers=1"] / med["pyrvo do_step"]}


def jam(n, first, steps):
    """The crossing's middle: ``n`` agents of the circle stepped ``first``
    steps (both libraries, interleaved), then ``steps`` more timed, when
    the rings meet in a jam (navcore on two threads). Per library the
    median and the slowest step (ms), and the largest overlap of two discs
    at the end (brute force over the pairs a k-d tree lists)."""
    from scipy.spatial import cKDTree
    log(f"jam of {n}: {first} steps, then {steps} timed")
    world, crowd = navcore_crowd(n, 1)
    sim, goal = pyrvo_sim(n)
    times = {"navcore workers=1": [], "pyrvo do_step": []}
    for k in range(first + steps):
        t = time.perf_counter()
        crowd.step(DT)
        if k >= first:
            times["navcore workers=1"].append(time.perf_counter() - t)
        rvo_prefs(sim, goal)
        t = time.perf_counter()
        sim.do_step()
        if k >= first:
            times["pyrvo do_step"].append(time.perf_counter() - t)

    def overlap(pos):
        pairs = cKDTree(pos).query_pairs(2 * RADIUS, output_type="ndarray")
        if len(pairs) == 0:
            return 0.0
        return float(2 * RADIUS - np.hypot(*(pos[pairs[:, 0]] - pos[pairs[:, 1]]).T).min())
    rvo_pos = np.array([sim.get_agent_position(i).to_tuple() for i in range(n)])
    out = {"agents": n, "first": first, "steps": steps,
           "ms": {k: {"median": median(v) * 1e3, "max": max(v) * 1e3} for k, v in times.items()},
           "overlap": {"navcore": overlap(crowd.positions), "pyrvo": overlap(rvo_pos)}}
    world.close()
    return out


def order_world(kind):
    """``(world, graph, units, goal)``: the map as a ``kind`` graph, the
    units' points (reachable from the goal) and the goal point."""
    import navcore
    world = navcore.World()
    graph = world.add_graph("o", type=kind, map=str(DATA / ORDER_MAP))
    rng = np.random.default_rng(7)

    def walkable_near(centre, k):
        pts = np.asarray(centre) + rng.uniform(-ORDER_SPREAD, ORDER_SPREAD, (40 * k, 2))
        nodes = graph.locate_many(pts)
        pts = pts[nodes >= 0]
        return pts[graph.walkable[nodes[nodes >= 0]]]

    goal = walkable_near(ORDER_TO, 1)[0]
    units = [p for p in walkable_near(ORDER_FROM, ORDER_UNITS)
             if world.reachable("o", tuple(p), tuple(goal))][:ORDER_UNITS]
    assert len(units) == ORDER_UNITS
    return world, graph, np.array(units), np.asarray(goal, dtype=np.float64)


def order(kind, rounds):
    """The order's times on a ``kind`` graph: the flow field (made and read
    for every unit once), the unit reading alone (each later step), 300
    path requests served, 300 ``find_path`` calls."""
    log(f"order of {ORDER_UNITS} on {ORDER_MAP} ({kind})")
    world, graph, units, goal = order_world(kind)
    make = world.plugins.caller("navcore_flow_field", type(graph))
    nodes = graph.locate_many(units).astype(np.int32)
    goals = np.repeat(goal[None], len(units), axis=0)
    radii = np.full(len(units), 0.3)
    goal_node = int(graph.locate_many(goal[None])[0])
    field = make(world, graph, goal_node, goal)

    def one_field():
        f = make(world, graph, goal_node, goal)
        return f.steer(units, nodes, goals, radii)

    def requests():
        hs = [world.request_path("o", tuple(p), tuple(goal)) for p in units.tolist()]
        while not all(h.done for h in hs):
            world.tick(0.0, budget_ms=1e6)
        return hs

    def find_paths():
        return [world.find_path("o", tuple(p), tuple(goal)) for p in units.tolist()]

    times = interleaved({"field": one_field, "read": lambda: field.steer(units, nodes, goals,
                                                                         radii),
                         "requests": requests, "find_path": find_paths}, rounds)
    world.close()
    med = {k: median(v) for k, v in times.items()}
    return {"graph": kind, "map": ORDER_MAP, "units": ORDER_UNITS, "nodes": graph.num_nodes,
            "seconds": med, "field_vs_requests": med["field"] / med["requests"],
            "field_vs_find_path": med["field"] / med["find_path"]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="1,000 and 5,000 agents, fewer steps")
    ap.add_argument("--order", action="store_true", help="the order of 300 units alone")
    ap.add_argument("--jam", action="store_true",
                    help="10,000 agents where the rings meet (steps 100-160) alone")
    args = ap.parse_args(argv)
    if args.jam:
        res = jam(10000, 100, 60)
        print_table("RVO2 circle of 10,000, steps 100-160 (the jam): ms per step",
                    ["library", "median", "slowest", "largest overlap at the end"],
                    [[k, f"{v['median']:.1f}", f"{v['max']:.1f}",
                      f"{res['overlap']['navcore' if 'navcore' in k else 'pyrvo']:.3f}"]
                     for k, v in res["ms"].items()])
        write_json("crowd-jam", {"machine": machine(), "versions": versions("numpy", "numba",
                                                                            "pyrvo"),
                                 "results": res})
        return
    if args.order:
        orders = [order(kind, 7) for kind in ("grid", "navmesh")]
        for o in orders:
            print(o)
        return
    sizes = (1000, 5000) if args.quick else (1000, 5000, 10000, 50000)
    rows, out = [], []
    for n in sizes:
        res = run(n, 20 if args.quick else 40, 10)
        out.append(res)
        ms = res["ms"]
        rows.append([f"{n:,}", f"{ms['navcore workers=0']:.2f}", f"{ms['navcore workers=1']:.2f}",
                     f"{ms['pyrvo do_step']:.2f}", f"{ms['pyrvo set prefs']:.2f}",
                     fmt_ratio(res["ratio_w0"]), fmt_ratio(res["ratio_w1"])])
    print_table("RVO2 circle: ms per step (medians)",
                ["agents", "navcore w0", "navcore w1", "pyrvo do_step", "pyrvo prefs loop",
                 "ratio w0", "ratio w1"], rows)
    per = memory_per_agent(5000)
    print(f"\nmemory per agent (5,000 agents, on their way): {per:.0f} bytes")
    orders = [order(kind, 3 if args.quick else 7) for kind in ("grid", "navmesh")]
    print_table(f"An order of {ORDER_UNITS} units to one point ({ORDER_MAP}): medians",
                ["graph", "nodes", "flow field (made + read)", "read alone",
                 f"{ORDER_UNITS} requests", f"{ORDER_UNITS} find_path", "field / requests",
                 "field / find_path"],
                [[o["graph"], f"{o['nodes']:,}", fmt_s(o["seconds"]["field"]),
                  fmt_s(o["seconds"]["read"]), fmt_s(o["seconds"]["requests"]),
                  fmt_s(o["seconds"]["find_path"]), fmt_ratio(o["field_vs_requests"]),
                  fmt_ratio(o["field_vs_find_path"])] for o in orders])
    write_json("crowd-quick" if args.quick else "crowd",
               {"machine": machine(), "versions": versions("numpy", "numba", "pyrvo"),
                "results": out, "bytes_per_agent": per, "orders": orders})


if __name__ == "__main__":
    main()
