"""MovingAI scenario runner: ``navcore scen FILE.map.scen``.

Solves every query of a scenario file through ``World.find_path`` and
compares each cost with the file's optimal length (1e-6 relative for files
with 8 decimals, the printed precision for older ones).
"""
from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import numpy as np

from navcore import progress, validate
from navcore.errors import GraphError, MapFormatError, QueryError

from .mapfile import read_scen, tolerance


def find_map(scen_path: Path, map_name: str, maps_dir=None) -> Path:
    """The map file a scenario names: next to the scenario or in ``maps_dir``."""
    base = Path(map_name).name
    candidates = [scen_path.parent / base, scen_path.parent / map_name]
    if maps_dir is not None:
        candidates[:0] = [Path(maps_dir) / base, Path(maps_dir) / map_name]
    for c in candidates:
        try:
            if c.is_file():
                return c
        except OSError:              # a path too long for the file system: not there
            continue
    raise MapFormatError(f"map {map_name!r} not found next to the scenario file"
                         + (f" or in {maps_dir}" if maps_dir else "")
                         + " (use --maps DIR)", path=scen_path)


def run_scenarios(scen_file, maps_dir=None, algorithm="auto", world=None, limit=None,
                  landmarks=None):
    """Solve a scenario file; return a dict report (see ``navcore scen``).
    ``landmarks=k`` measures k landmarks on each map first, and
    ``algorithm="ch"`` builds each map's contraction hierarchy first (both
    not timed; the hierarchy's build time is ``build_s``)."""
    import navcore
    scen_path = validate.file_path(scen_file, "scenario file", MapFormatError)
    if maps_dir is not None:
        maps_dir = validate.file_path(maps_dir, "maps_dir", MapFormatError)
    if type(algorithm) is not str:
        raise QueryError(f"algorithm must be a name (a str), got {algorithm!r}")
    if world is not None and not isinstance(world, navcore.World):
        raise GraphError(f"world must be a navcore.World or None, got {world!r}")
    scen = read_scen(scen_path)
    world = world or navcore.World()
    if limit is not None and (not validate.is_int(limit) or limit < 0):
        raise MapFormatError(f"limit must be a whole number >= 0, got {limit!r}",
                             path=scen_path)
    n = len(scen) if limit is None else min(int(limit), len(scen))
    costs = np.full(n, np.inf)
    times = np.empty(n)
    graphs = {}
    build_s = 0.0
    with progress.stage(f"solving {n} scenario queries of {scen_path.name}"):
        for i in range(n):
            name = scen.maps[i]
            if name not in graphs:
                path = find_map(scen_path, name, maps_dir)
                gid = f"scen:{path}"
                if gid not in world.graphs:
                    g = world.add_graph(gid, type="grid", map=str(path), landmarks=landmarks)
                    if (g.width, g.height) != tuple(scen.size[i]):
                        raise MapFormatError(f"map {path} is {g.width} x {g.height} but the "
                                             f"scenario says {tuple(scen.size[i])}",
                                             path=scen_path, line=int(scen.line[i]))
                graphs[name] = gid
                if algorithm == "ch":        # queries never build one: build it, untimed
                    from navcore_csr import contract
                    t0 = time.perf_counter()
                    contract(world.graph(gid))
                    build_s += time.perf_counter() - t0
            s, t = tuple(scen.start[i]), tuple(scen.goal[i])
            t0 = time.perf_counter()
            r = world.find_path(graphs[name], s, t, algorithm=algorithm)
            times[i] = time.perf_counter() - t0
            costs[i] = r.cost
    tol = tolerance(scen.optimal[:n], scen.decimals[:n])
    bad = np.flatnonzero(~(np.abs(costs - scen.optimal[:n]) <= tol))
    return {
        "scenario": str(scen_path),
        "algorithm": algorithm,
        "landmarks": landmarks,
        "queries": int(n),
        "mismatches": int(bad.size),
        "mismatch_examples": [
            {"line": int(scen.line[i]), "start": scen.start[i].tolist(),
             "goal": scen.goal[i].tolist(), "optimal": float(scen.optimal[i]),
             "found": float(costs[i])} for i in bad[:10]],
        "mean_ms": float(times.mean() * 1e3) if n else 0.0,
        "median_ms": float(statistics.median(times) * 1e3) if n else 0.0,
        "total_s": float(times.sum()),
        "build_s": build_s,
    }


def _count(text):
    """``--limit N``: a whole number >= 0 (argparse prints the message)."""
    import argparse
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {text!r}")
    return value


def add_command(subparsers) -> None:
    p = subparsers.add_parser("scen", help="solve a MovingAI scenario file and check "
                                           "every cost against its optimal length")
    p.add_argument("scen", help="the .scen file")
    p.add_argument("--maps", help="folder holding the maps (default: next to the file)")
    p.add_argument("--algorithm", default="auto",
                   choices=["auto", "astar", "jps", "dijkstra", "ch"],
                   help="ch: build each map's contraction hierarchy first (not timed)")
    p.add_argument("--json", metavar="OUT", help="write the report as JSON to OUT")
    p.add_argument("--limit", type=_count, metavar="N", help="solve only the first N queries")
    p.add_argument("--landmarks", type=int, metavar="K",
                   help="measure K landmarks per map first (a stronger heuristic)")
    p.set_defaults(func=_cmd_scen)


def _cmd_scen(args) -> int:
    from navcore.cli import output_path
    out = output_path(args.json, "--json") if args.json else None   # before the long run
    report = run_scenarios(args.scen, args.maps, args.algorithm, limit=args.limit,
                           landmarks=args.landmarks)
    lm = f" with {args.landmarks} landmarks" if args.landmarks else ""
    if args.algorithm == "ch":
        lm += f" (hierarchies built in {report['build_s']:.1f} s)"
    print(f"{report['scenario']}: {report['queries']} queries, algorithm "
          f"{report['algorithm']}{lm}, {report['mismatches']} mismatches; "
          f"mean {report['mean_ms']:.3f} ms, median {report['median_ms']:.3f} ms "
          f"per query")
    for m in report["mismatch_examples"]:
        print(f"  line {m['line']}: {m['start']} -> {m['goal']}: optimal "
              f"{m['optimal']}, found {m['found']}")
    if out is not None:
        out.write_text(json.dumps(report, indent=2))
    return 1 if report["mismatches"] else 0
