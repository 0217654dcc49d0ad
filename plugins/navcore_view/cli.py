"""``navcore view SCENE.yaml``: play a scene and watch it in a browser.

It prints the address (with the run's token) and opens it unless
``--no-browser``; the scene starts when the first page connects and the
command ends, status 0, when the scene ends; Ctrl-C ends it at once,
status 130. An invalid scene exits with status 2 and its
``path:line:column: message``, before anything listens."""
from __future__ import annotations

import importlib
import sys

from navcore.errors import NavError, PluginError


def add_command(sub) -> None:
    p = sub.add_parser("view", help="play a scene and watch it live in a browser "
                                    "(pause, step, click two points for a path)")
    p.add_argument("scene", help="a scene file (YAML)")
    p.add_argument("--port", type=int, metavar="P",
                   help="TCP port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-browser", action="store_true",
                   help="print the address only; do not open a browser")
    p.add_argument("--graph", metavar="ID", help="the graph shown first (default: the "
                                                 "first one that can be drawn)")
    p.add_argument("--frames", type=int, metavar="N",
                   help="frames to play (default: the scene's settings.frames)")
    p.add_argument("--paused", action="store_true",
                   help="wait for play in the page instead of starting on the first page")
    p.add_argument("--plugin", action="append", metavar="MODULE",
                   help="also load the plugin in this importable module; repeat for several")
    p.set_defaults(func=_cmd_view)


def _cmd_view(args) -> int:
    import navcore
    from .viewer import view_scene
    if args.frames is not None and args.frames < 0:
        raise NavError(f"--frames must be >= 0, got {args.frames}")
    modules = []
    for name in args.plugin or ():
        try:
            modules.append(importlib.import_module(name))
        except Exception as exc:
            raise PluginError(f"--plugin {name}: cannot import it: "
                              f"{type(exc).__name__}: {exc}") from None
    with navcore.load_scene(args.scene, plugins=modules) as sim:
        viewer = view_scene(sim, args.graph, args.port, not args.no_browser, args.frames,
                            autoplay=not args.paused)
        try:
            print(f"navcore view: {sim.scene.name} at {viewer.url}", flush=True)
            print("Ctrl-C stops it", file=sys.stderr, flush=True)
            while not viewer.wait(0.2):
                pass
        except KeyboardInterrupt:
            viewer.close()
            print(f"interrupted after {sim.frame} frames", file=sys.stderr)
            return 130
        viewer.close()
        if viewer.driver.error is not None:
            raise viewer.driver.error
        print(f"{sim.scene.name}: ended after {sim.frame} frames")
    return 0
