"""``navcore run``, ``navcore validate`` and ``navcore render``: scenes
from the command line (pictures with Pillow, in ``navcore.render``). An invalid scene exits with status 2 and its
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
    _picture_options(p, "--render", "write a picture of the last frame to OUT.png")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (it shows only on a terminal anyway)")
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("render", help="draw a scene: areas in colours, walls, agents "
                                      "and their paths")
    p.add_argument("scene", help="a scene file (YAML)")
    _picture_options(p, "-o", "the picture to write (PNG)", required=True)
    p.add_argument("--frames", type=int, metavar="N",
                   help="frames to play before drawing (default: 1, so agents have "
                        "paths; with --gif: the scene's settings.frames)")
    p.set_defaults(func=_cmd_render)

    p = sub.add_parser("validate", help="check scene files without running them")
    p.add_argument("scenes", nargs="+", metavar="SCENE")
    p.set_defaults(func=_cmd_validate)


def _picture_options(p, flag, help_text, required=False) -> None:
    p.add_argument(flag, dest="png", metavar="OUT.png", required=required, help=help_text)
    p.add_argument("--gif", metavar="OUT.gif", help="animate the run (every k-th frame, "
                                                    "about 100 pictures)")
    p.add_argument("--borders", action="store_true",
                   help="draw the borders of the hierarchy's nodes")
    p.add_argument("--graph", metavar="ID", help="the grid to draw (default: the first)")
    p.add_argument("--scale", type=int, metavar="PX",
                   help="pixels per cell (default: about 1024 pixels wide)")


def _frames(value):
    if value is not None and value < 0:
        raise NavError(f"--frames must be >= 0, got {value}")
    return value


def _cmd_run(args) -> int:
    frames = _frames(args.frames)
    with Simulation.from_file(args.scene) as sim:
        gif = _recorder(sim, args, frames)
        summary = sim.run(frames, progress=None if not args.no_progress else False,
                          on_frame=gif)
        _pictures(sim, args, gif)
    print(format_summary(summary))
    if args.json:
        _write(args.json, json.dumps(summary, indent=2))
    return 0


def _cmd_render(args) -> int:
    frames = _frames(args.frames)
    if frames is None:
        frames = None if args.gif else 1
    with Simulation.from_file(args.scene) as sim:
        gif = _recorder(sim, args, frames)
        sim.run(frames, on_frame=gif)
        _pictures(sim, args, gif)
    print(f"{args.png}: {sim.scene.name} after {sim.frame} frames"
          + (f"; {args.gif}: {len(gif.frames)} pictures" if gif else ""))
    return 0


def _recorder(sim, args, frames):
    """A GIF recorder when ``--gif`` asks for one (checked before running)."""
    from .render import GifRecorder, pick_graph
    if args.png or args.gif:
        pick_graph(sim, args.graph)          # a scene without grids fails now, not later
    if not args.gif:
        return None
    total = sim.scene.settings.frames if frames is None else frames
    return GifRecorder(sim, every=max(1, total // 100), graph_id=args.graph,
                       scale=args.scale, borders=args.borders)


def _pictures(sim, args, gif) -> None:
    from .render import draw, save
    if args.png:
        Path(args.png).parent.mkdir(parents=True, exist_ok=True)
        save(draw(sim, args.graph, args.scale, args.borders), args.png)
    if gif is not None:
        Path(args.gif).parent.mkdir(parents=True, exist_ok=True)
        gif.save(args.gif)


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
    return (f"{sc.name!r}: {_count(len(sc.graphs), 'graph')} ({', '.join(graphs)}), "
            f"{_count(len(sim.agents.ids), 'agent')}, "
            f"{_count(len(sc.obstacles), 'moving obstacle')}, "
            f"{_count(len(sc.events), 'event')}, {sc.settings.frames} frames "
            f"of {sc.settings.dt:g} s, budget {sc.settings.frame_budget_ms:g} ms")


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _write(path, text) -> None:
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text)
    except OSError as exc:
        raise NavError(f"cannot write {path}: {exc.strerror}") from None
