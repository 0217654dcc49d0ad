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
7 ms (DetourTileCache rebuilds from compressed layers). The C++ peer here
is ``bench/recast_tiles.cpp`` (``recastpeer.run_recast_tiles``): C++
Recast building every tile of the same level as RecastDemo's
Sample_TileMesh does, each tile's median ms split into the part before
the compact heightfield (rasterize, filters, compact) and after it
(erode, distance field, regions, contours, polygons, detail: what a
rebuild from a cached compact heightfield re-runs). The last table puts
navcore's per-tile times beside it as ratios (below 1: navcore faster):

* ``build_tiled`` on this thread, per tile with triangles: the whole
  call's tile wall time, and its stage times before and after the
  compact heightfield, against C++'s means over the same tiles;
* ``rebuild_obstacles`` per rebuilt tile against C++'s after-compact
  time of the same tiles (median over the adds or removes of the ratio).

Results: ``bench/results/level_obstacles.json``.
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


PRE = ("voxelize",)      # build_tiled's timings: rasterize .. compact
POST = ("mesh",)         # erosion .. detail


def peer_table(path, vertices, triangles, cfg, rows, quick):
    """Per-tile ms of C++ Recast's tile builds beside navcore's whole tile
    builds and obstacle rebuilds (the last table); its numbers as a dict."""
    from navcore_levels.tiles import build_tiled

    rounds = 3 if quick else 7
    peer = rp.run_recast_tiles(path, TILE, rounds=rounds, cell_size=cfg.cell_size)
    post_of = dict(zip(peer.tile.tolist(), peer.post_ms.tolist()))
    whole, pre, post = [], [], []
    for _ in range(rounds):
        spent = {}
        tiled = build_tiled(vertices, triangles, cfg, timings=spent)
        built = sum(k is not None for k in tiled.compacts)
        whole.append(spent["tiles"] / built * 1e3)
        pre.append(sum(spent.get(k, 0.0) for k in PRE) / built * 1e3)
        post.append(sum(spent.get(k, 0.0) for k in POST) / built * 1e3)
    c_whole, c_pre, c_post = (float(np.mean(a)) for a in (peer.total_ms, peer.pre_ms,
                                                          peer.post_ms))
    table = [["whole tile (build_tiled, w0)", f"{median(whole):.3f}", f"{c_whole:.3f}",
              f"{median(whole) / c_whole:.2f}"],
             ["  before compact (rasterize .. compact)", f"{median(pre):.3f}", f"{c_pre:.3f}",
              f"{median(pre) / c_pre:.2f}"],
             ["  after compact (erode .. detail)", f"{median(post):.3f}", f"{c_post:.3f}",
              f"{median(post) / c_post:.2f}"]]
    out = {"rounds": rounds, "tiles": peer.built, "tiles_with_polys": peer.with_polys,
           "recast_ms": {"whole": c_whole, "pre": c_pre, "post": c_post},
           "navcore_ms": {"whole": median(whole), "pre": median(pre), "post": median(post)},
           "rebuild": {}}
    for kind in ("add", "remove"):
        ours = [r["per_tile_s"] * 1e3 for r in rows[kind] if r["tiles"]]
        theirs = [float(np.mean([post_of.get(i, 0.0) for i in r["tile_ids"]]))
                  for r in rows[kind] if r["tiles"]]
        ratios = [a / b for a, b in zip(ours, theirs) if b > 0]
        table.append([f"obstacle {kind} (rebuild_obstacles, per tile)", f"{median(ours):.3f}",
                      f"{median(theirs):.3f} (after compact)", f"{median(ratios):.2f}"])
        out["rebuild"][kind] = {"navcore_ms": median(ours), "recast_post_ms": median(theirs),
                                "ratio": median(ratios)}
    print_table(f"per tile against C++ Recast's tile builds (bench/recast_tiles.cpp, "
                f"{peer.built} tiles with triangles, ms; ratio below 1: navcore faster)",
                ["", "navcore ms", "C++ Recast ms", "navcore / Recast"], table)
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
            rows[kind].append({"tiles": n, "tile_ids": out.rebuilt.tolist(),
                               "changed": bool(changed), "total_s": total, "tiles_s": spent["tiles"],
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
    peer = peer_table(path, vertices, triangles, cfg, rows, args.quick)
    out = write_json("level_obstacles-quick" if args.quick else "level_obstacles",
                     {"machine": machine(),
                      "versions": versions("numpy", "numba"), "tile_size": TILE,
                      "rebuild": rows, "world": world_rows, "recast_tiles": peer})
    log(f"wrote {out}")


if __name__ == "__main__":
    main()
