"""``navcore run``, ``navcore validate`` and ``navcore render``: scenes
from the command line (pictures with Pillow, in ``navcore_scenes.render``).
The scenes plugin adds them through ``navcore_add_commands``. An invalid
scene exits with status 2 and its ``path:line:column: message`` on stderr."""
from __future__ import annotations

import gc
import importlib
import json
import sys
from pathlib import Path

from navcore.cli import output_path
from navcore.errors import NavError, PluginError

from .scene import MAX_FRAMES
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
    _plugin_option(p)
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("render", help="draw a scene: areas in colours, walls, agents "
                                      "and their paths")
    p.add_argument("scene", help="a scene file (YAML)")
    _picture_options(p, "-o", "the picture to write (PNG)", required=True)
    p.add_argument("--frames", type=int, metavar="N",
                   help="frames to play before drawing (default: 1, so agents have "
                        "paths; with --gif: the scene's settings.frames)")
    _plugin_option(p)
    p.set_defaults(func=_cmd_render)

    p = sub.add_parser("validate", help="check scene files without running them")
    p.add_argument("scenes", nargs="+", metavar="SCENE")
    _plugin_option(p)
    p.set_defaults(func=_cmd_validate)


def _plugin_option(p) -> None:
    p.add_argument("--plugin", action="append", metavar="MODULE",
                   help="also load the plugin in this importable module (graph types "
                        "and event kinds the scene uses); repeat for several")


def _picture_options(p, flag, help_text, required=False) -> None:
    p.add_argument(flag, dest="png", metavar="OUT.png", required=required, help=help_text)
    p.add_argument("--gif", metavar="OUT.gif", help="animate the run (every k-th frame, "
                                                    "about 100 pictures)")
    p.add_argument("--borders", action="store_true",
                   help="draw the borders of the hierarchy's nodes")
    p.add_argument("--graph", metavar="ID", help="the graph to draw (default: the first "
                                                 "one that can be drawn)")
    p.add_argument("--scale", type=int, metavar="PX",
                   help="pixels per map unit, e.g. per grid cell (default: about 1024 "
                        "pixels wide)")


def _frames(value):
    if value is not None and not 0 <= value <= MAX_FRAMES:
        raise NavError(f"--frames must be between 0 and {MAX_FRAMES}, got {value}")
    return value


def _simulation(args) -> Simulation:
    """The scene of ``args`` with the ``--plugin`` modules loaded."""
    modules = []
    for name in getattr(args, "plugin", None) or ():
        try:
            modules.append(importlib.import_module(name))
        except Exception as exc:
            raise PluginError(f"--plugin {name}: cannot import it: "
                              f"{type(exc).__name__}: {exc}") from None
    return Simulation.from_file(args.scene, plugins=modules)


def _play(sim, frames, progress, on_frame):
    """Run; on Ctrl-C stop and summarise what was played so far.

    The loaded scene is moved out of the garbage collector's sight first
    (``gc.freeze``, as games do after loading a level): a full collection
    over it costs tens of milliseconds and would land in some frame."""
    gc.collect()
    gc.freeze()
    try:
        return sim.run(frames, progress=progress, on_frame=on_frame), False
    except KeyboardInterrupt:
        from .summary import summarize
        return summarize(sim, sim.wall_s), True


def _cmd_run(args) -> int:
    frames = _frames(args.frames)
    with _simulation(args) as sim:
        outputs = _check_outputs(args)        # before the run, not after it
        gif = _recorder(sim, args, frames)
        summary, stopped = _play(sim, frames, None if not args.no_progress else False, gif)
        print(format_summary(summary))
        if stopped:
            print(f"interrupted after {sim.frame} frames", file=sys.stderr)
        if args.json:
            _write(outputs["json"], json.dumps(summary, indent=2))
        _pictures(sim, args, gif, outputs)
    return 130 if stopped else 0


def _cmd_render(args) -> int:
    frames = _frames(args.frames)
    if frames is None:
        frames = None if args.gif else 1
    with _simulation(args) as sim:
        outputs = _check_outputs(args)
        gif = _recorder(sim, args, frames)
        _, stopped = _play(sim, frames, None, gif)
        _pictures(sim, args, gif, outputs)
    print(f"{args.png}: {sim.scene.name} after {sim.frame} frames"
          + (f"; {args.gif}: {len(gif.frames)} pictures" if gif else ""))
    return 130 if stopped else 0


def _check_outputs(args) -> dict:
    """Every output file can be written: checked before a long run."""
    out = {}
    for key, option, path in (("json", "--json", getattr(args, "json", None)),
                              ("png", "--render/-o", args.png), ("gif", "--gif", args.gif)):
        if path:
            out[key] = output_path(path, option)
    return out


def _recorder(sim, args, frames):
    """A GIF recorder when ``--gif`` asks for one (checked before running)."""
    from .render import GifRecorder, check_scale, map_size, pick_graph
    if args.png or args.gif:
        gid = pick_graph(sim, args.graph)    # nothing to draw: fail now, not after the run
        check_scale(*map_size(sim, gid), args.scale)
    if not args.gif:
        return None
    total = sim.scene.settings.frames if frames is None else frames
    return GifRecorder(sim, every=max(1, total // 100), graph_id=args.graph,
                       scale=args.scale, borders=args.borders)


def _pictures(sim, args, gif, outputs) -> None:
    from .render import draw, save
    try:
        if args.png:
            save(draw(sim, args.graph, args.scale, args.borders), outputs["png"])
        if gif is not None:
            gif.save(outputs["gif"])
    except OSError as exc:
        raise NavError(f"cannot write a picture: {exc.strerror or exc}") from None


def _cmd_validate(args) -> int:
    status = 0
    for path in args.scenes:
        args.scene = path
        try:
            with _simulation(args) as sim:
                print(f"{path}: ok: {describe_scene(sim)}")
        except NavError as exc:
            print(f"navcore: error: {exc}", file=sys.stderr)
            status = 2
    return status


def describe_scene(sim) -> str:
    """``'keep': 1 graph (grid 40x20), 3 agents, 2 obstacles, 5 events``
    (a graph's size as its scene layer describes it)."""
    sc = sim.scene
    graphs = []
    for g in sc.graphs:
        lay = sim.layers.get(g.id)
        size = lay.describe() if lay is not None else ""
        graphs.append(f"{g.type} {size}" if size else g.type)
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
