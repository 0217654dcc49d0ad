"""Navmesh tiles: build time, obstacle updates, mesh size and funnel
quality against the tile size, in one run.

    .venv/bin/python bench/navmesh_tiles.py            # full run (a few minutes)
    .venv/bin/python bench/navmesh_tiles.py --quick    # smaller scenes, fewer rounds

Scenes (seeded, made here):

* ``rooms-1k``: a 100 x 100 room with 130 convex obstacles, about 1,000
  obstacle vertices (the build goal: under 20 ms);
* ``rooms-10k``: a 320 x 320 room with 1,300 obstacles, a mesh of about
  10,000 vertices (the update goal: under 2 ms per obstacle added or
  removed, ``World.update`` + ``World.tick`` with the hierarchy).

Per tile size (``TILE_VERTICES``, the free-space vertices per tile the
automatic size aims at, and one tile for the whole map):

* ``build``: ``World.add_graph`` of ``rooms-1k`` (free space, tiles,
  triangles, adjacency, CSR view, locate index, hierarchy);
* ``update``: on ``rooms-10k``, an 8-sided obstacle of radius 1 added at a
  random point, then removed: ``World.update`` + ``World.tick`` per
  update, and the ``tick`` phases (apply: re-triangulating and re-linking;
  observers: the hierarchy and the scheduler);
* ``polygons`` of ``rooms-10k`` (live slots) and a funnel query's time
  there;
* the funnel's excess over the exact length on the shared any-angle
  benchmark maps ``arena`` and ``den312d`` (mean and worst of 200);
* the exact search there: ``navcore_navmesh.path_lengths`` over the 200
  pairs in one call (time per query, median of rounds), its worst error
  against the maps' exact lengths, and the mesh's polygons; the same for
  the static mesh (``tile_size=0``) once, to compare.

``--no-merge`` builds the tiled meshes with ``merge=False`` (triangles).

Results: ``bench/results/navmesh_tiles.json``.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import Point

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (fmt_s, log, machine, median, now, print_table, timed,  # noqa: E402
                     versions, write_json)

import navcore  # noqa: E402
from navcore_navmesh import path_lengths, tiles  # noqa: E402

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "navmesh"


def obstacles(count, size, seed=0):
    """``count`` convex obstacles (4 to 11 corners, 0.5 to 2.5 across)
    scattered over a ``size`` square."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        c = rng.uniform(0, size, 2)
        r = rng.uniform(0.5, 2.5)
        k = int(rng.integers(4, 12))
        ang = rng.uniform(0, 2 * np.pi, k)
        pts = np.column_stack([c[0] + r * np.cos(ang), c[1] + r * np.sin(ang)])
        hull = shapely.MultiPoint(pts).convex_hull
        if hull.geom_type == "Polygon":
            out.append(hull)
    return out


def build_times(obs, size, tile_size, rounds, **kw):
    out = []
    for _ in range(rounds):
        world = navcore.World(autoload=False)
        t, g = timed(world.add_graph, "m", type="navmesh", bounds=(0, 0, size, size),
                     obstacles=obs, tile_size=tile_size, **kw)
        out.append(t)
    return out, g


def update_times(world, graph, size, count, seed=1):
    rng = np.random.default_rng(seed)
    per, apply_ms, observe_ms = [], [], []
    for i in range(count):
        c = rng.uniform(3, size - 3, 2)
        poly = Point(*c).buffer(1.0, 2)
        for params in ({"add_obstacle": poly, "obstacle_id": i}, {"remove_obstacle": i}):
            def step(params=params):
                world.update("m", **params)
                return world.tick()
            t, stats = timed(step)
            per.append(t)
            apply_ms.append(stats.time_updates_ms / 1e3)
            observe_ms.append(stats.time_observers_ms / 1e3)
    return per, apply_ms, observe_ms


def query_time(world, graph, size, count=200, seed=2):
    rng = np.random.default_rng(seed)
    free = graph.free_space
    shapely.prepare(free)
    pts = []
    while len(pts) < 2 * count:
        p = rng.uniform(0, size, 2)
        if free.contains(Point(*p)):
            pts.append(tuple(p))
    times = []
    for s, g in zip(pts[::2], pts[1::2]):
        t, _ = timed(world.find_path, "m", s, g)
        times.append(t)
    return times


def _pairs(name):
    with open(DATA / f"{name}.anyangle.csv") as f:
        return np.array([[float(v) for v in r[:5]] for r in list(csv.reader(f))[1:]])


def funnel_excess(name, tile_size, **kw):
    path = DATA / f"{name}.map"
    if not path.exists():
        return None
    world = navcore.World(autoload=False)
    world.add_graph(name, type="navmesh", map=str(path), tile_size=tile_size, **kw)
    rows = _pairs(name)
    ex = np.array([world.find_path(name, (a, b), (c, d), algorithm="funnel").cost / e - 1
                   for a, b, c, d, e in rows])
    return float(ex.mean()), float(ex.max())


def exact_batch(name, tile_size, rounds=15, **kw):
    """``(seconds per query, worst error, polygons)``: ``path_lengths`` over
    the map's pairs in one call (median of ``rounds``), against the
    map's exact lengths."""
    path = DATA / f"{name}.map"
    if not path.exists():
        return None
    world = navcore.World(autoload=False)
    g = world.add_graph(name, type="navmesh", map=str(path), tile_size=tile_size, **kw)
    rows = _pairs(name)
    s, e = np.ascontiguousarray(rows[:, :2]), np.ascontiguousarray(rows[:, 2:4])
    got = path_lengths(g, s, e)                          # loads the kernels
    times = [timed(path_lengths, g, s, e)[0] for _ in range(rounds)]
    live = int((np.diff(g.poly_start) > 0).sum())
    return median(times) / len(rows), float(np.abs(got - rows[:, 4]).max()), live


def _exact_cell(res):
    return "-" if res is None else f"{res[0] * 1e6:.1f} us ({res[2]}, {res[1]:.0e})"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--targets", default="16,32,48,64,96,128,whole",
                    help="TILE_VERTICES values to try (whole: one tile)")
    ap.add_argument("--no-merge", action="store_true",
                    help="tiled meshes keep their triangles (merge=False)")
    args = ap.parse_args(argv)
    kw = {"merge": False} if args.no_merge else {}
    small, big = (60.0, 160.0) if args.quick else (100.0, 320.0)
    n_small, n_big = (50, 330) if args.quick else (130, 1300)
    rounds, updates = (3, 20) if args.quick else (7, 100)
    obs_small, obs_big = obstacles(n_small, small, 0), obstacles(n_big, small * 0 + big, 0)
    nv_small = sum(len(o.exterior.coords) - 1 for o in obs_small)
    default = tiles.TILE_VERTICES
    rows, payload = [], {"machine": machine(), "versions": versions("numpy", "numba", "shapely"),
                         "obstacle_vertices_build": nv_small, "merge": not args.no_merge,
                         "results": []}
    try:
        for target in args.targets.split(","):
            whole = target == "whole"
            tiles.TILE_VERTICES = 10 ** 12 if whole else int(target)
            log(f"target {target}")
            bt, g1 = build_times(obs_small, small, None, rounds, **kw)
            world = navcore.World(autoload=False, frame_budget_ms=0)
            graph = world.add_graph("m", type="navmesh", bounds=(0, 0, big, big),
                                    obstacles=obs_big, **kw)
            world.warm_up()
            update_times(world, graph, big, 5, seed=99)          # load the kernels
            per, ap_, ob_ = update_times(world, graph, big, updates)
            q = query_time(world, graph, big)
            live = int((np.diff(graph.poly_start) > 0).sum())
            arena = funnel_excess("arena", None, **kw)
            den = funnel_excess("den312d", None, **kw)
            x_arena = exact_batch("arena", None, **kw)
            x_den = exact_batch("den312d", None, **kw)
            res = {"target": target, "build_s": median(bt),
                   "build_tiles": g1.tiles.grid.count, "tile_size_10k": graph.tiles.grid.size,
                   "tiles_10k": graph.tiles.grid.count,
                   "mesh_vertices_10k": int(shapely.get_num_coordinates(graph.free_space)),
                   "polygons_10k": live, "slots_10k": graph.num_nodes,
                   "update_median_s": median(per), "update_p90_s": float(np.percentile(per, 90)),
                   "apply_median_s": median(ap_), "observers_median_s": median(ob_),
                   "query_median_s": median(q), "arena": arena, "den312d": den,
                   "exact_arena": x_arena, "exact_den312d": x_den}
            payload["results"].append(res)
            rows.append([target, res["build_tiles"], fmt_s(res["build_s"]),
                         f"{res['tiles_10k']} ({res['tile_size_10k']:g})", live,
                         fmt_s(res["update_median_s"]), fmt_s(res["update_p90_s"]),
                         fmt_s(res["apply_median_s"]), fmt_s(res["observers_median_s"]),
                         fmt_s(res["query_median_s"]),
                         "-" if arena is None else f"{arena[0]:.1%} / {arena[1]:.0%}",
                         "-" if den is None else f"{den[0]:.1%} / {den[1]:.0%}",
                         _exact_cell(x_arena), _exact_cell(x_den)])
    finally:
        tiles.TILE_VERTICES = default
    x_arena, x_den = exact_batch("arena", 0), exact_batch("den312d", 0)
    payload["static"] = {"exact_arena": x_arena, "exact_den312d": x_den}
    rows.append(["static", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-",
                 _exact_cell(x_arena), _exact_cell(x_den)])
    print_table(f"navmesh tiles (build: {nv_small} obstacle vertices; updates: "
                f"{rows and payload['results'][0]['mesh_vertices_10k']}-vertex mesh)",
                ["target", "tiles 1k", "build 1k", "tiles 10k (size)", "polygons 10k",
                 "update", "update p90", "apply", "observers", "funnel query",
                 "arena excess mean/worst", "den312d excess",
                 "exact arena (polygons, error)", "exact den312d"], rows)
    path = write_json("navmesh_tiles", payload)
    print(f"\n{path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
