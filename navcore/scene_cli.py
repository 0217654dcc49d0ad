"""``navcore run``, ``navcore validate`` and ``navcore render``: scenes
from the command line. An invalid scene exits with status 2 and its
``path:line:column: message`` on stderr."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from .errors import NavError
from .sim import Simulation
from .summary import format_summary


def add_commands(sub) -> None:
    p = sub.add_parser("run", help="play a scene headless through world.tick and "
                                   "print what happened")
    p.add_argument("scene", help="a scene file (YAML)")
    p.add_argument("--frames", type=int, metavar="N",
                   help="frames to play (default: the scene's settings.frames)")
    p.add_argument("--json", metavar="OUT", help="also write the summary as JSON to OUT")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (it shows only on a terminal anyway)")
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("validate", help="check scene files without running them")
    p.add_argument("scenes", nargs="+", metavar="SCENE")
    p.set_defaults(func=_cmd_validate)


def _frames(value):
    if value is not None and value < 0:
        raise NavError(f"--frames must be >= 0, got {value}")
    return value


def _cmd_run(args) -> int:
    frames = _frames(args.frames)
    with Simulation.from_file(args.scene) as sim:
        summary = sim.run(frames, progress=None if not args.no_progress else False)
    print(format_summary(summary))
    if args.json:
        _write(args.json, json.dumps(summary, indent=2))
    return 0


def _cmd_validate(args) -> int:
    status = 0
    for path in args.scenes:
        try:
            with Simulation.from_file(path) as sim:
                print(f"{path}: ok: {describe_scene(sim)}")
        except NavError as exc:
            print(f"navcore: error: {exc}", file=sys.stderr)
            status = 2
    return status


def describe_scene(sim) -> str:
    """``'keep': 1 graph (grid 40x20), 3 agents, 2 obstacles, 5 events``."""
    sc = sim.scene
    graphs = []
    for g in sc.graphs:
        graph = sim.world.graph(g.id)
        size = f" {graph.width}x{graph.height}" if g.id in sim.layers else ""
        graphs.append(f"{g.type}{size}")
    n = len(sim.agents.ids)
    return (f"{sc.name!r}: {len(sc.graphs)} graph{'s' * (len(sc.graphs) != 1)} "
            f"({', '.join(graphs)}), {n} agent{'s' * (n != 1)}, {len(sc.obstacles)} "
            f"moving obstacles, {len(sc.events)} events, {sc.settings.frames} frames "
            f"of {sc.settings.dt:g} s, budget {sc.settings.frame_budget_ms:g} ms")


def _write(path, text) -> None:
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text)
    except OSError as exc:
        raise NavError(f"cannot write {path}: {exc.strerror}") from None
