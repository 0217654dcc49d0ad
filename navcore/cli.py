"""The ``navcore`` command line: one entry point, one subcommand per job.

    navcore plugins          list plugins, their source, hooks and graph types
    navcore types [TYPE]     each graph type's parameters, defaults and meanings
    navcore warm-up [TYPE]   compile or load every kernel into numba's cache
    navcore run SCENE        play a scene file headless and summarise it (scenes plugin)
    navcore validate SCENE   check scene files without running them (scenes plugin)
    navcore render SCENE -o OUT.png   draw a scene: areas, agents, paths; --gif (scenes plugin)
    navcore scen FILE.scen   solve a MovingAI scenario file (grid plugin)
    navcore areas FILE.map   connected areas and how updates change them (areas plugin)
    navcore bake SCENE|--map|--mesh -o OUT.npz   build a navmesh once, save it (navmesh plugin)
    navcore bake LEVEL.obj -o OUT.npz [--obj OUT.obj]   a 3D level's navmesh (levels plugin)

``plugins``, ``types`` and ``warm-up`` are the kernel's own; plugins add the other subcommands
through the ``navcore_add_commands`` hook.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .errors import NavError

#: exit status when output was lost to a closed pipe (128 + SIGPIPE, as a
#: shell reports a command killed by it)
EXIT_BROKEN_PIPE = 141


def output_path(value, option: str) -> Path:
    """``value`` as a path a command can write its output to, checked
    before the command's long work: its folder exists (made if need be)
    and is writable, and it is not a folder. A ``NavError`` naming
    ``option`` otherwise. Every subcommand's output options go through it.

    >>> output_path("/proc/no/such/out.json", "--json")
    Traceback (most recent call last):
    navcore.errors.NavError: --json /proc/no/such/out.json: cannot make its folder '/proc/no/such': No such file or directory
    """
    p = Path(value)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise NavError(f"{option} {value}: cannot make its folder {str(p.parent)!r}: "
                       f"{exc.strerror or exc}") from None
    if p.is_dir():
        raise NavError(f"{option} {value}: is a folder, not a file")
    if not os.access(p.parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise NavError(f"{option} {value}: permission denied")
    return p


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


def _cmd_types(args) -> int:
    from .world import World
    world = World(autoload=False if args.builtin_only else None, warm_up=False)
    print(world.graph_type_help(args.type))          # every type when None
    return 0


def _cmd_warm_up(args) -> int:
    from . import progress
    from .warmup import warm_up
    bar = None
    tty = sys.stderr.isatty()

    def show(done, total, name):
        nonlocal bar
        if tty:
            if bar is None:
                from tqdm import tqdm
                progress._compiling.set()          # the heartbeat stays quiet
                bar = tqdm(total=total, desc="navcore: warming up", unit=" types",
                           file=sys.stderr, leave=False)
            bar.n = done
            bar.set_postfix_str(name, refresh=False)
            bar.refresh()
        elif not name.startswith("compiling "):
            print(f"navcore: warmed up {name} ({done}/{total})", file=sys.stderr, flush=True)
    try:
        took = warm_up(args.types or None, progress=show,
                       autoload=False if args.builtin_only else None)
    finally:
        if bar is not None:
            bar.close()
            progress._compiling.clear()
    for name, seconds in took.items():
        print(f"{name}: {seconds:.2f} s" if seconds is not None else
              f"{name}: skipped (its plugin makes no sample graph)")
    return 0


def build_parser(plugins=None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="navcore", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    builtin = argparse.ArgumentParser(add_help=False)
    builtin.add_argument("--builtin-only", action="store_true",
                         help="ignore third-party entry points")
    p = sub.add_parser("plugins", parents=[builtin], help="list plugins, where they came "
                                                          "from, their hooks and graph types")
    p.set_defaults(func=_cmd_plugins)
    p = sub.add_parser("types", parents=[builtin], help="each graph type's add_graph "
                                                        "parameters, with defaults and meanings")
    p.add_argument("type", nargs="?", help="one graph type (default: all)")
    p.set_defaults(func=_cmd_types)
    p = sub.add_parser("warm-up", parents=[builtin],
                       help="compile (first run) or load the kernels of every graph type, or "
                            "of the types named, into numba's cache, with a progress bar")
    p.add_argument("types", nargs="*", metavar="TYPE", help="graph types (default: all)")
    p.set_defaults(func=_cmd_warm_up, own_compile_bar=True)
    if plugins is None:
        from .plugins import PluginRegistry
        plugins = PluginRegistry()
    plugins.hook.navcore_add_commands(subparsers=sub)
    return parser


def main(argv=None) -> int:
    from .progress import compile_progress, heartbeat
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        # a first run compiles for a while, large input loads for a while: say so
        if getattr(args, "own_compile_bar", False):
            with heartbeat():
                return args.func(args)
        with compile_progress(), heartbeat():
            return args.func(args)
    except NavError as exc:
        print(f"navcore: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (| head, | true): output was lost, so not 0;
        # quietly, and stdout pointed at devnull so Python's flush at exit
        # does not print a second error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
