"""``navcore bake``: build a navigation mesh once and save it.

    navcore bake SCENE -o OUT.npz [--graph ID] [--agent-radius R]
    navcore bake --map FILE.map -o OUT.npz [--agent-radius R] [--passable CHARS]
    navcore bake --mesh FILE.mesh -o OUT.npz [--agent-radius R]
    navcore bake LEVEL.obj -o OUT.npz [--obj OUT.obj] [--cell-size CS] ...   (levels plugin)

``OUT.npz`` is navcore's baked mesh (``bake.save_mesh``), which
``add_graph(..., type="navmesh", mesh="OUT.npz")`` loads without
triangulating again; ``-o OUT.mesh`` writes Polyanya's v2 text instead
(for Polyanya's C++). From a scene, the navmesh graph is built from the
scene's parameters (``--graph`` picks one when the scene has several);
``--agent-radius`` replaces the radius the source gives; ``--passable``
names a ``--map``'s floor characters (``.G``: Polyanya's rule). The navmesh
plugin adds the command through ``navcore_add_commands``; a mistake is a
``navcore: error: ...`` line and exit status 2. The levels plugin adds
its options to this command and bakes sources that are 3D level files
(``navcore_levels.cli``).
"""
from __future__ import annotations

from pathlib import Path

import navcore
from navcore.cli import output_path
from navcore.errors import NavError

from .bake import save_mesh
from .polyanya_format import write_polyanya_mesh

WRITERS = {".npz": save_mesh, ".mesh": write_polyanya_mesh}


def add_command(subparsers) -> None:
    p = subparsers.add_parser("bake", help="build a navmesh once and save it: .npz for "
                                           "navcore, .mesh (Polyanya v2) for Polyanya",
                              description="Build a navmesh once (from a scene's navmesh "
                                          "graph, a .map or a .mesh) and save it: OUT.npz "
                                          "loads with add_graph(..., mesh='OUT.npz'), "
                                          "OUT.mesh is Polyanya's v2 text.")
    p.add_argument("scene", nargs="?", help="a scene file (YAML) with a navmesh graph, or "
                                            "a 3D level file (levels plugin: see below)")
    p.add_argument("--map", metavar="FILE", help="a MovingAI .map file instead of a scene")
    p.add_argument("--mesh", metavar="FILE", help="a Polyanya .mesh or a baked .npz "
                                                  "instead of a scene")
    p.add_argument("-o", "--output", required=True, metavar="OUT.npz",
                   help="the file to write: OUT.npz (navcore) or OUT.mesh (Polyanya v2)")
    p.add_argument("--agent-radius", type=float, metavar="R",
                   help="shrink the free space by R (replaces the source's agent_radius)")
    p.add_argument("--passable", metavar="CHARS",
                   help="with --map: the map characters that are floor (default .GS, "
                        "MovingAI's rule; .G is Polyanya's, blocking swamp S and water W)")
    p.add_argument("--graph", metavar="ID", help="the scene's navmesh graph to bake (needed "
                                                 "when it has several)")
    p.set_defaults(func=_cmd_bake)


def _cmd_bake(args) -> int:
    sources = [s for s in (args.scene, args.map, args.mesh) if s is not None]
    if len(sources) != 1:
        raise NavError("bake needs exactly one source: a SCENE, --map FILE or --mesh FILE")
    if args.graph is not None and args.scene is None:
        raise NavError("--graph picks a graph of a scene; --map and --mesh give one mesh")
    if args.passable is not None and args.map is None:
        raise NavError("--passable names the floor characters of a --map; a scene says "
                       "passable: in its graph, a mesh has no map characters")
    out = Path(args.output)
    write = WRITERS.get(out.suffix.lower())
    if write is None:
        raise NavError(f"-o {args.output}: the output must end in .npz (a navcore baked "
                       f"mesh) or .mesh (Polyanya v2)")
    out = output_path(args.output, "-o")          # before the build, not after it
    if args.scene is not None:
        graph, source = _from_scene(args.scene, args.graph, args.agent_radius)
    else:
        params = {"map": args.map} if args.map is not None else {"mesh": args.mesh}
        if args.passable is not None:
            params["passable"] = args.passable
        if args.agent_radius is not None:
            params["agent_radius"] = args.agent_radius
        graph = navcore.World().add_graph("bake", type="navmesh", **params)
        source = args.map or args.mesh
    write(out, graph)
    radius = "" if args.agent_radius is None else f", agent radius {args.agent_radius:g}"
    print(f"{out}: {graph.num_polygons} polygons, {len(graph.vertices)} vertices "
          f"(from {source}{radius})")
    return 0


def _from_scene(path, graph_id, agent_radius):
    """The scene's navmesh graph (the one ``graph_id`` names, or its only
    one), built from the scene's parameters."""
    from navcore_scenes import read_scene
    scene = read_scene(path)
    meshes = [g for g in scene.graphs if g.type == "navmesh"]
    if graph_id is None:
        if not meshes:
            listed = ", ".join(f"{g.id} ({g.type})" for g in scene.graphs)
            raise NavError(f"{path}: the scene has no navmesh graph (its graphs: {listed})")
        if len(meshes) > 1:
            raise NavError(f"{path}: the scene has {len(meshes)} navmesh graphs "
                           f"({', '.join(g.id for g in meshes)}); choose one with --graph")
        spec = meshes[0]
    else:
        spec = next((g for g in scene.graphs if g.id == graph_id), None)
        known = f"its navmesh graphs: {', '.join(g.id for g in meshes) or 'none'}"
        if spec is None:
            raise NavError(f"{path}: --graph {graph_id}: the scene has no such graph; {known}")
        if spec.type != "navmesh":
            raise NavError(f"{path}: --graph {graph_id}: a {spec.type} graph, not a "
                           f"navmesh; {known}")
    params = dict(spec.params)
    if agent_radius is not None:
        params["agent_radius"] = agent_radius
    try:
        graph = navcore.World().add_graph(spec.id, type="navmesh", **params)
    except NavError as exc:
        if exc.path is not None:            # a map or mesh file's own line
            raise
        raise spec.where.error(f"{spec.entry.what}: {exc.message}") from None
    return graph, f"graph {spec.id!r} of {path}"
