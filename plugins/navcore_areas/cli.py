"""``navcore areas MAP``: the connected areas of a grid map, and how they
change when rectangles are blocked or opened (each change is one tick)."""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

import navcore

from .plugin import hierarchy_of


def _rect(text: str):
    try:
        x, y, w, h = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected X,Y,W,H (four integers), got {text!r}")
    return (x, y, w, h)


class _ChangeLog:
    def __init__(self):
        self.changed = []

    @navcore.hookimpl
    def navcore_components_changed(self, changed_areas):
        self.changed = changed_areas.tolist()


def _summary(world, gid):
    areas = world.areas(gid)
    ids, sizes = np.unique(areas[areas >= 0], return_counts=True)
    h = hierarchy_of(world.graph(gid))
    return {"walkable": int((areas >= 0).sum()), "areas": int(ids.size),
            "largest": int(sizes.max()) if sizes.size else 0,
            "hierarchical_nodes": h.num_hierarchical_nodes}


def run_areas(map_path, changes) -> dict:
    """Load ``map_path`` as a grid; apply ``changes`` (``("block" | "open",
    (x, y, w, h))``) one tick each; report areas before and after each."""
    log = _ChangeLog()
    world = navcore.World(plugins=[log])
    t0 = time.perf_counter()
    g = world.add_graph("map", type="grid", map=str(map_path))
    report = {"map": str(map_path), "width": g.width, "height": g.height,
              "build_s": time.perf_counter() - t0, **_summary(world, "map"), "changes": []}
    for kind, rect in changes:
        log.changed = []
        world.update("map", rect=rect, walkable=(kind == "open"))
        stats = world.tick()
        report["changes"].append({"kind": kind, "rect": list(rect),
                                  "changed_areas": log.changed,
                                  "update_ms": stats.time_observers_ms,
                                  **_summary(world, "map")})
    return report


def add_command(subparsers) -> None:
    p = subparsers.add_parser("areas", help="connected areas of a grid map, and how "
                                            "blocking or opening rectangles changes them")
    p.add_argument("map", help="a MovingAI .map file")
    p.add_argument("--block", type=_rect, action="append", default=[], metavar="X,Y,W,H",
                   help="block a rectangle (repeatable; applied in the order given)")
    p.add_argument("--open", type=_rect, action="append", default=[], metavar="X,Y,W,H",
                   help="make a rectangle walkable (repeatable; after the blocks)")
    p.add_argument("--json", metavar="OUT", help="write the report as JSON to OUT")
    p.set_defaults(func=_cmd_areas)


def _cmd_areas(args) -> int:
    from navcore.cli import output_path
    out = output_path(args.json, "--json") if args.json else None   # before the work
    changes = [("block", r) for r in args.block] + [("open", r) for r in args.open]
    rep = run_areas(args.map, changes)
    print(f"{rep['map']}: {rep['width']}x{rep['height']}, {rep['walkable']} walkable "
          f"cells, {rep['areas']} areas (largest {rep['largest']} cells), "
          f"{rep['hierarchical_nodes']} hierarchical nodes; built in {rep['build_s']:.2f} s")
    for c in rep["changes"]:
        x, y, w, h = c["rect"]
        print(f"{c['kind']} {x},{y},{w},{h}: {c['areas']} areas (largest {c['largest']}), "
              f"changed ids {c['changed_areas']}; hierarchy update {c['update_ms']:.3f} ms")
    if out is not None:
        out.write_text(json.dumps(rep, indent=2))
    return 0
