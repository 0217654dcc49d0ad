"""Navigation mesh files, the entry points: ``read_mesh`` and ``given_mesh``.

``add_graph(gid, type="navmesh", mesh=PATH)`` reads either kind of file
(told apart by content), ``vertices=``/``polygons=`` take arrays
(``mesh_arrays``: the same checks, errors naming ``polygons[p]``), and
``agent_radius=r > 0`` shrinks the union of the given polygons by ``r``
and triangulates it again (``given_mesh``). A given mesh keeps its
polygons (``merge=True`` merges them); a mesh triangulated again for the
agent radius is merged like any other (unless ``merge=False``).

The files and checks have modules of their own: ``meshcheck``
(``MeshArrays``, ``check_mesh``, ``mesh_arrays``), ``polyanya_format``
(Polyanya ``.mesh``: ``read_polyanya_mesh``, ``write_polyanya_mesh``) and
``bake`` (``.npz``: ``save_mesh``, ``load_mesh``); their public names are
here too (``meshfile.save_mesh``).
"""
from __future__ import annotations

import numpy as np

from navcore.errors import GraphError

from . import build
from .bake import NPZ_ARRAYS, NPZ_FORMAT, NPZ_VERSION, load_mesh, save_mesh
from .fileio import read_bytes
from .mesh import polygons_union
from .meshcheck import CONVEX_TOLERANCE, MeshArrays, check_mesh, mesh_arrays
from .polyanya_format import (parse_polyanya_mesh, polyanya_v2_text, read_polyanya_mesh,
                              vertex_polygons, write_polyanya_mesh)

__all__ = ["MeshArrays", "CONVEX_TOLERANCE", "check_mesh", "mesh_arrays",
           "read_polyanya_mesh", "parse_polyanya_mesh", "write_polyanya_mesh",
           "polyanya_v2_text", "vertex_polygons", "NPZ_FORMAT", "NPZ_VERSION", "NPZ_ARRAYS",
           "save_mesh", "load_mesh", "read_mesh", "union", "given_mesh"]


def read_mesh(path) -> MeshArrays:
    """A Polyanya ``.mesh`` or a baked ``.npz``, told apart by content (an
    ``.npz`` is a zip archive), whatever the file is called."""
    head = read_bytes(path, 4)
    if head == b"PK\x03\x04":
        return load_mesh(path)
    return read_polyanya_mesh(path)


def union(mesh):
    """The free space ``mesh`` covers: the shapely union of its polygons."""
    return polygons_union(mesh.vertices, mesh.poly_start, mesh.poly_verts)


def given_mesh(*, mesh=None, vertices=None, polygons=None, agent_radius=0.0,
               others=None):
    """``(MeshArrays, free)`` for ``add_graph(..., type="navmesh",
    mesh=PATH)`` (a Polyanya ``.mesh`` or a baked ``.npz``) or
    ``vertices=``, ``polygons=``: the given polygons as they are (``free``
    None: the graph's free space is their union), or, with
    ``agent_radius=r > 0``, the triangles of their union shrunk by ``r``
    (``build.shrink`` and ``build.triangulate``: a mesh is not shrunk
    polygon by polygon) and that shrunk free space; then the arrays'
    ``agent_radius`` adds ``r`` to what a bake was shrunk by already and
    their ``ground`` is the space before shrinking (the bake's, else the
    union). ``others``: the free-space parameters, which a given mesh
    replaces (giving one of them too is a GraphError)."""
    given = sorted(k for k, v in (others or {}).items() if v is not None)
    if given:
        raise GraphError(f"a given mesh is its own free space: "
                         f"{', '.join(k + '=' for k in given)} cannot come with "
                         f"{'mesh=' if mesh is not None else 'vertices=/polygons='}")
    if mesh is not None:
        if vertices is not None or polygons is not None:
            raise GraphError("give the mesh either as mesh=PATH or as vertices= and "
                             "polygons=, not both")
        arrays = read_mesh(mesh)
    elif vertices is None or polygons is None:
        raise GraphError(f"vertices= and polygons= come together; "
                         f"{'polygons' if polygons is None else 'vertices'}= is missing")
    else:
        arrays = mesh_arrays(vertices, polygons)
    r = build.check_radius(agent_radius)
    if r == 0:
        return arrays, None
    free = build.shrink(union(arrays), r)
    v, triangles = build.triangulate(free)
    start = np.arange(0, triangles.size + 1, 3, dtype=np.int32)
    ground = arrays.ground if arrays.ground is not None else union(arrays)
    return MeshArrays(v, start, triangles.ravel(), arrays.snap_distance,
                      arrays.agent_radius + r, ground), free
