"""Tile rebuilds after run-time obstacles on a 3D level (DetourTileCache's
use case): RecastDemo's ``dungeon.obj`` built in 48 x 48-cell tiles
(RecastDemo's defaults otherwise), then obstacles added and removed one at
a time.

    .venv/bin/python bench/level_obstacles.py            # 40 obstacles
    .venv/bin/python bench/level_obstacles.py --quick    # 10

Each obstacle is a 1.5 x 1.5 box reaching 1 below and 2 above the floor
at the centre of a walkable polygon (seeded choice), or an upright
cylinder of radius 0.8 there, alternately. Measured per add and per
remove:

* ``rebuild_obstacles`` (``navcore_levels.tiles``): the tiles the change
  reaches re-run obstacle marking, erosion, regions, contours, polygons
  and detail from their cached compact heightfields (the tiles' stage
  times summed: ``ms per tile``), then the stitch of all tiles;
* ``World.update`` + ``World.tick`` on the level graph: the same rebuild,
  the layered graph made from the stitched mesh and swapped in, dirty
  polygons, the areas plugin following.

The figure Recast users quote for a 48 x 48-cell tile rebuild is about
7 ms (DetourTileCache rebuilds from compressed layers; no C++ peer is run
here). Results: ``bench/results/level_obstacles.json``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from _common import log, machine, median, print_table, versions, write_json  # noqa: E402

import recastpeer as rp  # noqa: E402

TILE = 48


def specs(graph, count, rng):
    """``count`` obstacle specs at walkable polygons' centroids."""
    polys = rng.choice(np.flatnonzero(graph.walkable), size=count, replace=False)
    out = []
    for k, p in enumerate(polys.tolist()):
        x, z = graph.positions[p]
        y = float(graph.heights[graph.polygon(p)].mean())
        if k % 2 == 0:
            out.append({"box": [[x - 0.75, y - 1, z - 0.75], [x + 0.75, y + 2, z + 0.75]]})
        else:
            out.append({"cylinder": {"center": (x, y - 1, z), "radius": 0.8, "height": 3.0}})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    count = 10 if args.quick else 40

    import navcore
    from navcore_levels import obstacle
    from navcore_levels.tiles import build_tiled, rebuild_obstacles

    path = rp.LEVELS / "dungeon.obj"
    vertices, triangles = rp.read_obj(path)
    w = navcore.World()
    t0 = time.perf_counter()
    g = w.add_graph("dungeon", type="level", vertices=vertices, triangles=triangles,
                    tile_size=TILE)
    log(f"dungeon: {g.level_tiles.tiles_x} x {g.level_tiles.tiles_z} tiles of {TILE} cells, "
        f"{int(g.walkable.sum())} polygons, built in {time.perf_counter() - t0:.1f} s")
    cfg = g.level_config
    tiled = build_tiled(vertices, triangles, cfg)
    rng = np.random.default_rng(3)
    obs = [obstacle(s) for s in specs(g, count, rng)]
    rebuild_obstacles(tiled, obs[:1])                  # compile or load the kernels

    rows = {"add": [], "remove": []}
    for ob in obs:
        for kind, before, after in (("add", [], [ob]), ("remove", [ob], [])):
            start = rebuild_obstacles(tiled, before) if before else tiled
            spent = {}
            t = time.perf_counter()
            out = rebuild_obstacles(start, after, timings=spent)
            total = time.perf_counter() - t
            n = len(out.rebuilt)
            a, b = start.stitch().mesh, out.stitch().mesh
            changed = a.poly_count != b.poly_count or not np.array_equal(a.verts, b.verts)
            rows[kind].append({"tiles": n, "changed": bool(changed), "total_s": total, "tiles_s": spent["tiles"],
                               "stitch_s": spent["stitch"],
                               "per_tile_s": spent["tiles"] / max(n, 1),
                               "stages": {k: v for k, v in spent.items()
                                          if k not in ("tiles", "stitch")}})
    world_rows = {"add": [], "remove": []}
    for k, spec in enumerate(specs(g, count, np.random.default_rng(3))):
        for kind in ("add", "remove"):
            if kind == "add":
                w.update("dungeon", add_obstacle=spec, obstacle_id=k)
            else:
                w.update("dungeon", remove_obstacle=k)
            t = time.perf_counter()
            stats = w.tick()
            world_rows[kind].append({"tick_s": time.perf_counter() - t,
                                     "updates_ms": stats.time_updates_ms,
                                     "observers_ms": stats.time_observers_ms,
                                     "tiles": len(g.level_tiles.rebuilt)})
    table = []
    for kind in ("add", "remove"):
        r, wr = rows[kind], world_rows[kind]
        per_tile = [x["per_tile_s"] for x in r]
        table.append([kind, f"{median([x['tiles'] for x in r]):.1f}",
                      f"{median(per_tile) * 1e3:.2f}",
                      f"{np.percentile(per_tile, 90) * 1e3:.2f}",
                      f"{median([x['stitch_s'] for x in r]) * 1e3:.2f}",
                      f"{median([x['total_s'] for x in r]) * 1e3:.2f}",
                      f"{median([x['tick_s'] for x in wr]) * 1e3:.2f}",
                      f"{sum(x['changed'] for x in r)}/{len(r)}"])
    print_table(f"dungeon, {TILE} x {TILE}-cell tiles, {count} obstacles (medians)",
                ["change", "tiles rebuilt", "ms per tile", "p90 ms/tile", "stitch ms",
                 "rebuild ms", "tick ms", "mesh changed"], table)
    stages = {}
    for x in rows["add"] + rows["remove"]:
        for k, v in x["stages"].items():
            stages.setdefault(k, []).append(v / max(x["tiles"], 1))
    print_table("per tile, by stage (median ms)", ["stage", "ms"],
                [[k, f"{median(v) * 1e3:.3f}"] for k, v in stages.items()])
    out = write_json("level_obstacles-quick" if args.quick else "level_obstacles",
                     {"machine": machine(),
                      "versions": versions("numpy", "numba"), "tile_size": TILE,
                      "rebuild": rows, "world": world_rows})
    log(f"wrote {out}")


if __name__ == "__main__":
    main()
