"""``navcore bake LEVEL``: a 3D level's navmesh built once and saved.

    navcore bake level.obj -o level.npz [--obj OUT.obj] [--up y|z]
        [--cell-size CS] [--agent-radius R] [--agent-height H] [--agent-climb C]
        [--max-slope DEG] [--tile-size CELLS] [... every LevelConfig setting]

A source ending in ``.obj``, ``.gltf``, ``.glb``, ``.ply`` or ``.stl`` is a
level: it is built as ``add_graph(..., type="level", level=SOURCE, ...)``
builds it, with the settings given (RecastDemo's defaults otherwise), and
saved as a baked level (``navcore_levels.bake``) that ``add_graph(...,
type="level", mesh="level.npz")`` loads without building again; ``--obj``
also writes the polygons as a Wavefront OBJ (world coordinates, one
face per polygon, a group per floor as pictures colour them) for Blender.

The navmesh plugin owns ``navcore bake`` (scenes, ``.map``, ``.mesh``);
this plugin's ``navcore_add_commands`` runs after it (``trylast``), adds
the level options to that command and hands it level sources, every
other source to the navmesh plugin as before. Settings, the source and
both outputs are checked before the build: a mistake is one
``navcore: error: ...`` line, exit status 2, and nothing written.
"""
from __future__ import annotations

import argparse
from dataclasses import fields
from pathlib import Path

import navcore
from navcore.cli import output_path
from navcore.errors import NavError

from .bake import export_obj, save_level_mesh
from .config import LevelConfig
from .levelfile import SUFFIXES

#: the settings of ``LevelConfig`` given as whole numbers on the command line
_INTS = ("verts_per_poly", "tile_size")
#: where the level options keep their values (``args.level_<name>``)
PREFIX = "level_"


def is_level(source) -> bool:
    """Whether ``source`` (a path) names a level file by its suffix."""
    return source is not None and Path(str(source)).suffix.lower() in SUFFIXES


def add_options(subparsers) -> None:
    """Add the level options to ``navcore bake`` (made here when the
    navmesh plugin made none) and route level sources to ``bake_level``."""
    bake = subparsers.choices.get("bake")
    if bake is None:
        bake = subparsers.add_parser("bake", help="build a 3D level's navmesh once and save it")
        bake.add_argument("scene", metavar="LEVEL", help="a level file")
        bake.add_argument("-o", "--output", required=True, metavar="OUT.npz")
        bake.set_defaults(func=None)
    group = bake.add_argument_group(
        f"3D levels (a source ending in {', '.join(SUFFIXES)}): Recast's settings, "
        f"RecastDemo's defaults")
    group.add_argument("--up", choices=("y", "z"), dest=PREFIX + "up",
                       help="the level's up axis (default y)")
    group.add_argument("--obj", metavar="OUT.obj", dest=PREFIX + "obj",
                       help="also write the navmesh polygons as OBJ (for Blender)")
    doc = _setting_help()
    for f in fields(LevelConfig):
        kind = int if f.name in _INTS else str if f.name == "partition" else float
        try:
            group.add_argument("--" + f.name.replace("_", "-"), type=kind,
                               metavar=f.name.upper(), dest=PREFIX + f.name,
                               help=f"{doc.get(f.name, '')} (default {f.default})")
        except argparse.ArgumentError:
            pass          # the navmesh bake's --agent-radius: one option serves both
    other = bake.get_default("func")

    def run(args):
        if is_level(args.scene):
            return bake_level(args)
        used = [o for o in _level_flags(args) if o != "--agent-radius"]
        if used:
            raise NavError(f"{', '.join(used)}: level options, for a source ending in "
                           f"{', '.join(SUFFIXES)}; got {args.scene or 'no level'}")
        if other is None:
            raise NavError(f"bake needs a level file ({', '.join(SUFFIXES)}), got "
                           f"{args.scene!r}")
        return other(args)
    bake.set_defaults(func=run)


def add_render(subparsers) -> None:
    """Let ``navcore render`` (the scenes plugin's) draw a level file or a
    baked level (``.npz``) directly: top down, a hue per floor, brighter
    higher up (``navcore_levels.draw``); scenes go to the scenes plugin."""
    render = subparsers.choices.get("render")
    if render is None:                  # no scenes plugin: no render command
        return
    for action in render._actions:
        if action.dest == "scene":
            action.help = (f"a scene file (YAML), or a 3D level ({', '.join(SUFFIXES)}, or "
                           f"a level baked to .npz) to draw as built")
    other = render.get_default("func")

    def run(args):
        if is_level(args.scene) or Path(str(args.scene)).suffix.lower() == ".npz":
            return render_level(args)
        return other(args)
    render.set_defaults(func=run)


def render_level(args) -> int:
    """Draw the level (or baked level) ``args.scene`` to ``-o``."""
    for flag, name in (("--gif", "gif"), ("--frames", "frames"), ("--graph", "graph"),
                       ("--borders", "borders")):
        if getattr(args, name, None) not in (None, False):
            raise NavError(f"{flag} is for scenes; a level ({args.scene}) is drawn as built")
    out = output_path(args.png, "-o")
    world = navcore.World()
    source = {"mesh" if Path(str(args.scene)).suffix.lower() == ".npz" else "level":
              str(args.scene)}
    graph = world.add_graph("level", type="level", **source)
    navcore.draw(world, "level", out=str(out), scale=args.scale)
    from .draw import floors
    storeys = int(floors(graph).max()) + 1 if graph.num_nodes else 0
    many = "s" if graph.num_nodes != 1 else ""
    print(f"{out}: {args.scene}, {graph.num_nodes} polygon{many} on {storeys} "
          f"floor{'s' if storeys != 1 else ''}")
    return 0


def _setting_help() -> dict:
    """Each ``LevelConfig`` setting's line of its docstring."""
    out, name = {}, None
    for line in (LevelConfig.__doc__ or "").splitlines():
        head, _, rest = line.strip().partition(": ")
        if rest and head.isidentifier():
            name, out[head] = head, rest
        elif name and line.strip():
            out[name] += " " + line.strip()
        else:
            name = None
    out["tile_size"] = ("tile width in cells (0: the level in one piece; default: a level "
                        "wider than 256 cells in the fewest even tiles of at most 256 cells, "
                        "else one piece)")
    return {k: v.replace("``", "").rstrip(".").replace("%", "%%") for k, v in out.items()}


def _level_flags(args) -> list:
    """The level options given on the command line, as flags."""
    names = [f.name for f in fields(LevelConfig)] + ["up", "obj"]
    got = [n for n in names if getattr(args, PREFIX + n, None) is not None]
    if getattr(args, "agent_radius", None) is not None:
        got.append("agent_radius")
    return ["--" + n.replace("_", "-") for n in got]


def bake_level(args) -> int:
    """Build the level ``args.scene`` and write ``-o`` (and ``--obj``)."""
    for flag, value in (("--map", "map"), ("--mesh", "mesh"), ("--graph", "graph"),
                        ("--passable", "passable")):
        if getattr(args, value, None) is not None:
            raise NavError(f"{flag} is for 2D navmeshes; a level ({args.scene}) is its own "
                           f"source")
    settings = {f.name: getattr(args, PREFIX + f.name) for f in fields(LevelConfig)
                if getattr(args, PREFIX + f.name, None) is not None}
    if getattr(args, "agent_radius", None) is not None:
        settings["agent_radius"] = args.agent_radius
    LevelConfig(**settings)                        # a bad setting: before the build
    out = Path(args.output)
    if out.suffix.lower() != ".npz":
        raise NavError(f"-o {args.output}: a level bakes to a navcore .npz (OUT.npz)")
    obj = getattr(args, PREFIX + "obj", None)
    if obj is not None and Path(obj).suffix.lower() != ".obj":
        raise NavError(f"--obj {obj}: the export is a Wavefront OBJ (OUT.obj)")
    out = output_path(args.output, "-o")
    obj = None if obj is None else output_path(obj, "--obj")
    up = getattr(args, PREFIX + "up", None) or "y"
    graph = navcore.World().add_graph("bake", type="level", level=args.scene, up=up,
                                      **settings)
    save_level_mesh(out, graph)
    if obj is not None:
        from .draw import floors
        export_obj(obj, graph, floors(graph))
    storeys = ""
    if obj is not None:
        storeys = f"; {obj}: OBJ"
    print(f"{out}: {graph.num_polygons} polygons, {len(graph.vertices)} vertices "
          f"(from {args.scene}, agent radius {graph.level_config.agent_radius:g}, "
          f"cell size {graph.level_config.cell_size:g}){storeys}")
    return 0
