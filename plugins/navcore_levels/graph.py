"""The ``level`` graph type: a level's Recast navmesh as a layered navmesh.

``world.add_graph("lvl", type="level", level="path.obj")`` reads the
level (``load_level``; or ``vertices=``/``triangles=``, ``up=`` their up
axis), builds its polygon mesh with the settings given as keywords (every
``LevelConfig`` field) and hands the polygons to the navmesh plugin's
public ``LayeredMeshGraph.from_layers``: the searches (``polyanya``, the
default, ``funnel``, ``polygon_astar``/``polygon_dijkstra``) run on the
polygons' projection on the ground, joined only along shared edges, so
storeys and bridges never mix; query ends are 3D points placed as
Detour's ``findNearestPoly`` places them; paths come back in 3D (see
``navcore_navmesh.layered``), their heights those of the level's detail
height mesh (``surface_heights``, Detour's ``getPolyHeight``).

>>> import numpy as np, navcore
>>> w = navcore.World()
>>> floor = [[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10]]
>>> g = w.add_graph("yard", type="level", vertices=floor, triangles=[[0, 2, 1], [0, 3, 2]])
>>> r = w.find_path("yard", (1, 0, 1), (8, 0, 8))
>>> r.points.round(3).tolist(), round(r.cost, 3)
([[1.0, 0.2, 1.0], [8.0, 0.2, 8.0]], 9.899)

The path runs 0.2 (one ``cell_height``) above the floor: Recast's voxels
round a surface up to the next cell height, and Detour's paths there are
that high too.
"""
from __future__ import annotations

import dataclasses
import hashlib
import math

import numpy as np

from navcore import World, limits, validate
from navcore.errors import GraphError

from .areas import area_table
from .bake import load_level_mesh, mesh_settings_checked
from .build import mesh_from_voxels, voxel_key, voxelize
from ._detail_kernels import surface_heights_kernel
from .tiles import build_tiled, tile_border
from .config import LevelConfig
from .levelfile import level_from_arrays, load_level
from .voxels import grid_size, mark_walkable

#: the tile width (cells) of a level graph given no ``tile_size``, when the
#: level is wider than one tile: Unity's default tile size, large enough
#: that a tile's border (``walkable_radius + 3`` cells each side) adds
#: under 10% of work, small enough to build the tiles on several threads
DEFAULT_TILE_SIZE = 256

def length_3d(points) -> float:
    """The 3D length of a level path's ``(k, 3)`` points (``cost`` is the
    length on the ground plane)."""
    from navcore_navmesh import length_3d as measure
    return measure(points)


@mesh_settings_checked
def build_level_graph(world, graph_id, *, level=None, vertices=None, triangles=None,
                      up="y", extents=(2.0, 4.0, 2.0), cell_size=0.3, cell_height=0.2,
                      agent_height=2.0, agent_radius=0.6, agent_climb=0.9, max_slope=45.0,
                      region_min_size=8, region_merge_size=20, edge_max_len=12.0,
                      edge_max_error=1.3, verts_per_poly=6, detail_sample_dist=6.0,
                      detail_sample_max_error=1.0, partition="watershed", tile_size=None, mesh=None,
                      links=None, areas=None, tag_areas=None):
    """A navmesh of the walkable surface of a 3D level (Recast's pipeline,
    ``navcore_levels``), searched with any-angle paths in 3D.

    Parameters:
        level: path of a ``.obj``, ``.gltf``, ``.glb``, ``.ply`` or ``.stl``.
        vertices: the level's ``(N, 3)`` points, instead of a file.
        triangles: with ``vertices``, its ``(M, 3)`` triangles (vertex ids).
        up: ``"y"`` or ``"z"``: the axis that points up in the input; query
            points and paths use the same axes.
        extents: half sizes ``(across, up, across)`` of the box a query end
            looks for the polygon it stands on in (Detour's ``(2, 4, 2)``).
        cell_size: voxel size across (x and z of Recast's y-up frame).
        cell_height: voxel size up.
        agent_height: clearance an agent needs above the floor.
        agent_radius: distance the mesh keeps from walls.
        agent_climb: highest step an agent walks up.
        max_slope: steepest walkable slope, degrees.
        region_min_size: regions of fewer than its square in cells that
            touch no other are dropped.
        region_merge_size: regions of fewer than its square in cells are
            merged into a neighbour.
        edge_max_len: longest contour edge along a wall (0: no limit).
        edge_max_error: how far (cells) a simplified contour may stray.
        verts_per_poly: most corners of a polygon (3..12).
        detail_sample_dist: detail height mesh sample spacing, in cells.
        detail_sample_max_error: detail height mesh error, in cell heights.
        partition: ``"watershed"`` or ``"monotone"`` regions.
        tile_size: tile width in cells: 0 builds the level whole (Recast's
            solo mesh), more builds it in tiles stitched into one mesh
            (None, the default: ``default_tile_size``, tiles of at most
            ``DEFAULT_TILE_SIZE`` cells for a level wider than that along
            x or z, else whole)
            (``build_tiled``, on the world's ``workers`` threads), which
            takes run-time obstacles and ``areas=`` updates
            (``navcore_levels.updates``: only the tiles they reach are
            built again).
        mesh: path of a baked level (``navcore bake LEVEL -o OUT.npz``,
            ``navcore_levels.save_level_mesh``), loaded instead of built;
            its settings and up axis are the bake's (only ``extents``
            and ``links`` may be given with it).
        links: off-mesh links (jumps, ladders, doors, teleporters), a list
            of dicts: ``start`` and ``end`` (3D points), ``radius`` (how
            far across an end may lie from the mesh; default
            ``agent_radius``, as RecastDemo), ``bidirectional``
            (``True``), ``cost`` (default: the 3D distance from start to
            end) and ``kind`` (a string the path reports, ``"link"``).
            An end attaches to the polygon nearest it within ``radius``
            across and ``agent_climb`` up or down (Detour's rule);
            ``GraphError`` names a link that is malformed or has an end
            on no polygon. The exact search (``polyanya``, the default)
            takes a link where that is shorter, ``cost`` then adding the
            link's cost, and ``PathResult.links`` says which links a path
            takes and at which of its points (``navcore_navmesh.links``);
            ``funnel`` and the polygon-graph searches refuse a graph with
            links (``QueryError``).
        areas: volumes that give the surface inside them an area type:
            ``{"convex": [[x, z], ...], "ymin": lo, "ymax": hi, "area":
            "water"}``, ``{"box": [[x0, y0, z0], [x1, y1, z1]], "area":
            ...}``, ``{"cylinder": {"center": [x, y, z], "radius": r,
            "height": h}, "area": ...}``, in the input's axes (with
            ``up="z"``: convex points ``[x, y]`` and ``zmin``/``zmax``);
            ``"unwalkable"`` cuts a hole (see ``navcore_levels.areas``).
            On a level built in tiles ``world.update(graph_id,
            areas=[...])`` replaces them at run time (new names take
            the next free ids; ``navcore_levels.updates``).
        tag_areas: ``{tag: area}``: the walkable surface rasterized from
            the triangles of an OBJ material (or group, glTF mesh) gets
            that area type.

    The settings are ``LevelConfig``'s, RecastDemo's defaults. A query end
    is a 3D point (or a polygon id); ``cost`` is the path's length on the
    ground plane, ``navcore_levels.length_3d(points)`` its 3D length.

    Agents of several sizes on one level are one graph each. A solo build
    (``tile_size=0``) keeps the level's compact heightfield before erosion
    as ``graph.voxels`` (about 40 bytes a span): a level graph added to
    the same world from the same triangles with the same cell sizes,
    slope, climb and height (agents that differ in radius) starts from it
    instead of rasterizing again (and with the same triangle areas).

    Area types: ``graph.area_names`` maps each area name to its id
    (``"walkable"``: 63, Recast's plain ground), ``graph.area_ids`` holds
    each polygon's id. ``find_path`` takes ``include_areas=``,
    ``exclude_areas=`` (exact with every algorithm: other polygons are
    walls for that query) and ``area_costs=`` (honoured by ``funnel`` and
    the polygon-graph searches; see ``navcore_navmesh.areafilter``)."""
    if not isinstance(world, World):
        raise GraphError(f"build_level_graph: world must be a navcore.World, got "
                         f"{validate.describe(world)}")
    config = LevelConfig(cell_size=cell_size, cell_height=cell_height,
                         agent_height=agent_height, agent_radius=agent_radius,
                         agent_climb=agent_climb, max_slope=max_slope,
                         region_min_size=region_min_size, region_merge_size=region_merge_size,
                         edge_max_len=edge_max_len, edge_max_error=edge_max_error,
                         verts_per_poly=verts_per_poly, detail_sample_dist=detail_sample_dist,
                         detail_sample_max_error=detail_sample_max_error,
                         partition=partition, tile_size=0 if tile_size is None else tile_size)
    baked = tiled = None
    if mesh is not None:
        baked = load_level_mesh(mesh)
        config, up = baked.config, baked.up
        lvl = baked                     # its .source names the level
    elif level is not None:
        if vertices is not None or triangles is not None:
            raise GraphError("give a level file (level=) or vertices= with triangles=, not both")
        lvl = load_level(level, up=up)
    elif vertices is None or triangles is None:
        raise GraphError("a level graph needs level=PATH or vertices= with triangles=")
    else:
        lvl = level_from_arrays(vertices, triangles, up=up)
    if tile_size is None and baked is None:
        config = dataclasses.replace(config, tile_size=default_tile_size(lvl.vertices, config))
    # a baked mesh's areas are its polygons' ids and the bake's names
    table = area_table(areas, tag_areas, () if baked is not None else lvl.tags, up)
    marks = dict(volumes=table.volumes, triangle_areas=None if table.triangle_ids is None
                 else table.triangle_ids[lvl.triangle_tags])
    if baked is not None:
        mesh, detail = baked.polymesh, baked.detail
    elif config.tile_size:
        # the world's worker threads build the tiles (they are independent:
        # the mesh is the same on any number of threads)
        workers = min(int(getattr(world, "workers", 0) or 0), limits.max_workers())
        tiled = build_tiled(lvl.vertices, lvl.triangles, config, workers=workers, **marks)
        stitched = tiled.stitch()
        mesh, detail = stitched.mesh, stitched.detail
    else:
        voxels, source = _voxels(world, lvl, config, marks["triangle_areas"])
        built = mesh_from_voxels(voxels, config, table.volumes, lambda stage: None)
        mesh, detail = built.polymesh, built.detail
    if mesh.poly_count == 0:
        raise GraphError(f"the level ({lvl.source}) has no walkable polygons with these "
                         f"settings (agent_radius={config.agent_radius}, "
                         f"max_slope={config.max_slope}, ...)")
    graph = layered_graph(world, mesh, detail, config, up, extents)
    graph.level_config = config
    # Recast keeps the walkable surface this far off the walls (a crowd's
    # agents of that radius may walk right up to its boundary)
    graph.agent_radius = float(config.agent_radius)
    if baked is None and not config.tile_size:
        graph.voxels, graph.voxel_source = voxels, source
    # what a bake saves (``save_level_mesh``) and a picture draws
    graph.level_mesh, graph.level_detail, graph.level_source = mesh, detail, lvl.source
    graph.area_ids = mesh.areas.copy()      # Recast's area id per polygon
    graph.area_names = table.names if baked is None else dict(baked.area_names)
    #: the tiles (``TiledLevel``) run-time obstacles rebuild; None for a
    #: level built whole or loaded from a bake
    graph.level_tiles = tiled
    #: run-time obstacles by id (``navcore_levels.updates``)
    graph.level_obstacles = {}
    #: the area volumes (checked, Recast's frame) the mesh is marked with,
    #: or will be once a queued rebuild is in (``areas=`` updates)
    graph.level_volumes = list(tiled.volumes if tiled is not None else table.volumes)
    #: loaded from a bake (``mesh=``): no triangles to rebuild from
    graph.level_baked = baked is not None
    if links is not None:
        graph.set_links(links, radius=config.agent_radius)
    return graph


def default_tile_size(vertices, config: LevelConfig) -> int:
    """The tile size of a level graph given none: 0 (one piece) for a
    level whose grid (``config.cell_size`` cells over the vertices'
    bounds) is at most ``DEFAULT_TILE_SIZE`` wide along x and z, else the
    fewest tiles of at most that size that split the longer side evenly
    (a 305-cell side: two of 153), so tiles on several threads share the
    work evenly; never narrower than the tile border (``walkable_radius +
    3`` cells), which a tiled build needs.

    >>> default_tile_size(np.array([[0.0, 0, 0], [91.5, 0, 77.4]]), LevelConfig())
    153
    """
    if not len(vertices):
        return 0
    width, height = grid_size(vertices.min(axis=0), vertices.max(axis=0), config.cell_size)
    longest = max(width, height)
    if longest <= DEFAULT_TILE_SIZE:
        return 0
    tiles = math.ceil(longest / DEFAULT_TILE_SIZE)          # along the longer side
    return max(math.ceil(longest / tiles), tile_border(config))


def layered_graph(world, mesh, detail, config, up, extents, pad: int = 0):
    """A ``LayeredMeshGraph`` of a level's polygon ``mesh`` (with its
    ``detail`` mesh or None) in the caller's axes ``up``. ``pad``:
    unwalkable polygons appended (tiny isolated triangles at polygon 0),
    so a rebuilt mesh keeps the node count an update may not shrink."""
    from navcore_navmesh import LayeredMeshGraph

    v = mesh.world_vertices()
    if up == "z":                    # back from Recast's y up: (x, y, z) -> (x, -z, y)
        v = np.column_stack([v[:, 0], -v[:, 2], v[:, 1]])
    count = (mesh.polys >= 0).sum(axis=1)
    start = np.concatenate([[0], np.cumsum(count)])
    verts = mesh.polys[mesh.polys >= 0]          # row by row: each polygon's corners in order
    if pad:
        v, start, verts = _padded(v, start, verts, pad, config.cell_size, up)
    graph = LayeredMeshGraph.from_layers(v, start, verts, up=up, extents=extents,
                                         climb=config.walkable_climb * config.cell_height,
                                         surface=None if detail is None else
                                         _DetailSurface(detail, up),
                                         world=world)
    if pad:
        graph.walkable[len(start) - 1 - pad:] = False
    return graph


def _padded(v, start, verts, pad, cell, up):
    """``(v, start, verts)`` with ``pad`` triangles of their own vertices,
    each a hundredth of a cell across, from the middle of polygon 0's
    first edge, apart from each other (no shared edges)."""
    a, b, u = (0, 2, 1) if up == "y" else (0, 1, 2)
    p0, p1 = v[verts[0]], v[verts[1]]
    base = p0 + 0.5 * (p1 - p0)
    s = 0.01 * cell
    tri = np.zeros((3, 3))
    tri[1, a], tri[2, b] = s, s
    extra = (base[None, None, :] + tri[None, :, :]).repeat(pad, axis=0)
    extra[:, :, a] += (np.arange(pad) * 2 * s)[:, None]
    nv = len(v)
    v = np.vstack([v, extra.reshape(-1, 3)])
    verts = np.concatenate([verts, np.arange(nv, nv + 3 * pad)])
    start = np.concatenate([start, start[-1] + 3 * np.arange(1, pad + 1)])
    return v, start, verts


def _voxels(world, lvl, config, triangle_areas):
    """The level's compact heightfield before erosion (``voxelize``) and
    what it was made from (a digest of the triangles and their walkable
    areas, ``triangle_areas`` given or not, and ``voxel_key``): another
    level graph of ``world`` made from the same lends its own, so agents
    of several sizes on one level (a scene's ``agents:``) rasterize it
    once."""
    areas = mark_walkable(lvl.vertices, lvl.triangles, config, triangle_areas)
    digest = hashlib.blake2b(digest_size=16)
    for array in (lvl.vertices, lvl.triangles, areas):
        digest.update(np.ascontiguousarray(array).tobytes())
    source = (digest.hexdigest(), voxel_key(config))
    for other in world.graphs.values():
        if getattr(other, "voxel_source", None) == source:
            return other.voxels, source
    return voxelize(lvl.vertices, lvl.triangles, areas, config, lambda stage: None), source


def sample_graph(world, graph_id):
    """Two floors joined by a ramp (for ``navcore.warm_up``: the level
    pipeline's kernels and the layered mesh's)."""
    floor = np.array([[0, 0, 0], [24, 0, 0], [24, 0, 10], [0, 0, 10]], dtype=float)
    upper = np.array([[0, 4, 0], [10, 4, 0], [10, 4, 10], [0, 4, 10]], dtype=float)
    ramp = np.array([[10, 4, 6], [20, 0, 6], [20, 0, 10], [10, 4, 10]], dtype=float)
    quads = np.array([[0, 2, 1], [0, 3, 2]])
    return world.add_graph(graph_id, type="level", vertices=np.vstack([floor, upper, ramp]),
                           triangles=np.vstack([quads, quads + 4, quads + 8]))


class _DetailSurface:
    """A level graph's ``surface``: path heights from the detail mesh
    (Detour's ``getPolyHeight``), ground points turned into Recast's
    ``(x, z)`` (``up="z"``: the ground's second axis is ``-z``)."""

    def __init__(self, detail, up):
        self.detail, self.flip = detail, up == "z"

    def __call__(self, polys, ground):
        # the layered graph's own polygon ids and finite points, so the
        # kernel directly: surface_heights' checks were a third of a query
        d = self.detail
        zs = -ground[:, 1] if self.flip else np.ascontiguousarray(ground[:, 1])
        return surface_heights_kernel(d.verts, d.tris, d.tri_offsets,
                                      polys.astype(np.int64), np.ascontiguousarray(ground[:, 0]),
                                      zs)
