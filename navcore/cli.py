"""The ``navcore`` command line: one entry point, one subcommand per job.

    navcore plugins          list plugins, their source, hooks and graph types
    navcore run SCENE        play a scene file headless and summarise it (scenes plugin)
    navcore validate SCENE   check scene files without running them (scenes plugin)
    navcore render SCENE -o OUT.png   draw a scene: areas, agents, paths; --gif (scenes plugin)
    navcore scen FILE.scen   solve a MovingAI scenario file (grid plugin)
    navcore areas FILE.map   connected areas and how updates change them (hierarchy plugin)
    navcore bake SCENE|--map|--mesh -o OUT.npz   build a navmesh once, save it (navmesh plugin)

Only ``plugins`` is the kernel's own; plugins add the other subcommands
through the ``navcore_add_commands`` hook.
"""
from __future__ import annotations

import argparse
import sys

from .errors import NavError


def _cmd_plugins(args) -> int:
    from .world import World
    # --builtin-only forces the built-ins; otherwise the environment decides
    # (NAVCORE_DISABLE_PLUGIN_AUTOLOAD), as for every World
    world = World(autoload=False if args.builtin_only else None)
    for info in world.plugins.info():
        print(f"{info.name}  [{info.source}]  {info.origin}")
        print(f"    graph types: {', '.join(info.graph_types) or '-'}")
        print(f"    hooks: {', '.join(h.removeprefix('navcore_') for h in info.hooks) or '-'}")
    for skipped in world.plugins.skipped:
        state = "failed" if skipped.failed else "not loaded"
        print(f"{skipped.name}  [{skipped.source}, {state}]  {skipped.origin}")
        print(f"    {skipped.reason}")
    return 0


def build_parser(plugins=None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="navcore", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plugins", help="list plugins, where they came from, "
                                       "their hooks and graph types")
    p.add_argument("--builtin-only", action="store_true",
                   help="ignore third-party entry points")
    p.set_defaults(func=_cmd_plugins)
    if plugins is None:
        from .plugins import PluginRegistry
        plugins = PluginRegistry()
    plugins.hook.navcore_add_commands(subparsers=sub)
    return parser


def main(argv=None) -> int:
    from .progress import compile_progress
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        with compile_progress():      # a first run compiles for a while: say so
            return args.func(args)
    except NavError as exc:
        print(f"navcore: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:       # output piped into head & co.
        return 0


if __name__ == "__main__":
    sys.exit(main())
