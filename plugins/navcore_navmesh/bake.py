"""Baked navmeshes: navcore's own ``.npz`` (``save_mesh`` / ``load_mesh``).

A bake is an ``.npz`` with ``format`` (``"navcore-navmesh"``), ``version``
(1), ``vertices``, ``poly_start``, ``poly_verts``, and of the graph
``snap_distance``, ``agent_radius`` (what the mesh was shrunk by) and
``ground`` (the free space before that, as WKB bytes; empty when
unknown): a graph built from it is the one that was saved (same ids, same
adjacency, same answers; positions, costs and the free space follow from
the polygons). A bake holds the geometry only: walkable flags and costs
changed by updates are not part of it. Loading never unpickles
(``allow_pickle=False``) and checks each array's dtype, shape, values and
the polygons before anything uses them. ``navcore bake`` (``cli``) writes
either file from a scene, a ``.map`` or a ``.mesh``.
"""
from __future__ import annotations

import math

import numpy as np

import shapely

from navcore import limits, validate
from navcore.errors import MeshFormatError
from navcore.files import npz_bytes, read_npz, verify

from .fileio import mesh_to_write, readable, write_atomic
from .mesh import default_snap_distance
from .meshcheck import MeshArrays, Where, check_mesh

#: the ``format`` entry of a baked mesh, and the version this code writes
NPZ_FORMAT = "navcore-navmesh"
NPZ_VERSION = 1
NPZ_ARRAYS = ("format", "version", "vertices", "poly_start", "poly_verts", "snap_distance",
              "agent_radius", "ground")


def save_mesh(path, graph=None) -> None:
    """Bake ``graph`` (a ``NavMeshGraph`` or ``MeshArrays``) into an
    ``.npz`` file that ``load_mesh`` (and ``add_graph(...,
    mesh=path)``) reads back exactly; ``NavError`` if it cannot be
    written, or ``graph`` is missing or not a mesh."""
    graph = mesh_to_write(graph, "save_mesh(path, graph)")
    write_atomic(path, npz_bytes(
        format=np.array(NPZ_FORMAT), version=np.array(NPZ_VERSION, dtype=np.int64),
        vertices=np.ascontiguousarray(graph.vertices, dtype=np.float64),
        poly_start=np.ascontiguousarray(graph.poly_start, dtype=np.int32),
        poly_verts=np.ascontiguousarray(graph.poly_verts, dtype=np.int32),
        snap_distance=np.array(_snap_of(graph), dtype=np.float64),
        agent_radius=np.array(float(getattr(graph, "agent_radius", 0.0)), dtype=np.float64),
        ground=_wkb(getattr(graph, "ground", None))))


def _wkb(geometry) -> np.ndarray:
    """uint8 WKB bytes of ``geometry`` (none for None)."""
    if geometry is None:
        return np.zeros(0, dtype=np.uint8)
    return np.frombuffer(shapely.to_wkb(geometry), dtype=np.uint8)


def _snap_of(mesh) -> float:
    """The snap distance a bake records: the graph's own, or for bare
    arrays the default (``mesh.default_snap_distance``)."""
    snap = getattr(mesh, "snap_distance", None)
    if snap is None:
        snap = default_snap_distance(mesh.vertices)
    return float(snap)


#: what each array of a baked mesh must be: dtype, number of dimensions
_NPZ_SPEC = {"format": (np.dtype("<U15"), 0), "version": (np.dtype(np.int64), 0),
             "vertices": (np.dtype(np.float64), 2), "poly_start": (np.dtype(np.int32), 1),
             "poly_verts": (np.dtype(np.int32), 1),
             "snap_distance": (np.dtype(np.float64), 0),
             "agent_radius": (np.dtype(np.float64), 0), "ground": (np.dtype(np.uint8), 1)}


def load_mesh(path) -> MeshArrays:
    """The mesh a ``save_mesh`` file holds, every array checked (dtype,
    shape, finite values, ids in range, starts increasing by 3 or more,
    convex counter-clockwise polygons) before anything uses it;
    ``MeshFormatError`` naming the file and the array otherwise."""
    path = readable(path)

    def fail(message):
        raise MeshFormatError(message, path=path)

    arrays = read_npz(path, fail, {name: "U" if name == "format" else dtype
                                   for name, (dtype, _) in _NPZ_SPEC.items()})
    names = sorted(arrays)
    unknown = [n for n in names if n not in _NPZ_SPEC and n != "checksum"]
    missing = [n for n in NPZ_ARRAYS if n not in names]
    if "format" in arrays and arrays["format"].shape == () \
            and str(arrays["format"]) == "navcore-level":
        fail("a baked 3D level, not a 2D navmesh: it loads with add_graph(..., type='level', "
             "mesh=...)")
    if unknown or missing:
        fail(f"not a baked navcore mesh: it holds the arrays {names}, expected "
             f"{list(NPZ_ARRAYS)}")
    for name in NPZ_ARRAYS:
        dtype, ndim = _NPZ_SPEC[name]
        got = arrays[name]
        if (got.dtype != dtype and not (name == "format" and got.dtype.kind == "U")) \
                or got.ndim != ndim:
            fail(f"array {name!r} must be {dtype.name if name != 'format' else 'a string'} "
                 f"with {ndim} dimension{'s' * (ndim != 1)}, got {got.dtype} with shape "
                 f"{got.shape}")
    if str(arrays["format"]) != NPZ_FORMAT:
        fail(f"array 'format' is {str(arrays['format'])!r}, expected {NPZ_FORMAT!r}")
    version = int(arrays["version"])
    if version != NPZ_VERSION:
        fail(f"array 'version' is {version}; this navcore reads version {NPZ_VERSION}"
             + (" (the file is newer: bake it again)" if version > NPZ_VERSION else ""))
    snap, radius = float(arrays["snap_distance"]), float(arrays["agent_radius"])
    for name, value in (("snap_distance", snap), ("agent_radius", radius)):
        if not (math.isfinite(value) and value >= 0):
            fail(f"array {name!r} is {value}; it must be finite and >= 0")
    ground = _ground(arrays["ground"], fail)
    vertices, poly_start, poly_verts = (arrays[k] for k in NPZ_ARRAYS[2:5])
    if vertices.shape[1:] != (2,) or len(vertices) < 3:
        fail(f"array 'vertices' must have shape (V, 2) with V >= 3, got {vertices.shape}")
    # the bound vertices= has (meshcheck.mesh_arrays): coordinates near the
    # float limit overflowed to NaN in the polygons' centres, a GraphError
    # that did not name the file
    bad = ~(np.abs(vertices) <= limits.MAX_COORDINATE).all(axis=1)     # NaN fails too
    if bad.any():
        i = np.flatnonzero(bad)[0]
        fail(f"array 'vertices': vertex {i} is not finite or lies beyond "
             f"±{limits.MAX_COORDINATE:g}: {vertices[i].tolist()}")
    if len(poly_start) < 2 or poly_start[0] != 0:
        fail(f"array 'poly_start' must start at 0 and hold P + 1 >= 2 entries, got "
             f"{poly_start[:3].tolist()}{'...' if len(poly_start) > 3 else ''}")
    sizes = np.diff(poly_start.astype(np.int64))
    small = np.flatnonzero(sizes < 3)
    if small.size:
        fail(f"array 'poly_start': polygon {small[0]} has {sizes[small[0]]} vertices "
             f"(at least 3, and the starts must increase)")
    if poly_start[-1] != len(poly_verts):
        fail(f"array 'poly_start' ends at {poly_start[-1]}, but 'poly_verts' holds "
             f"{len(poly_verts)} vertex ids")
    out = np.flatnonzero((poly_verts < 0) | (poly_verts >= len(vertices)))
    if out.size:
        fail(f"array 'poly_verts': entry {out[0]} is vertex {poly_verts[out[0]]}, out of "
             f"range for {len(vertices)} vertices")
    where = Where(MeshFormatError, path, vertex_name="array 'vertices': vertex {}",
                   poly_name="array 'poly_verts': polygon {}")
    mesh = check_mesh(vertices, poly_start, poly_verts, where, may_reverse=False)
    # last: what the checks above can name, they name; the rest of any damage
    verify(arrays, fail)
    return mesh._replace(snap_distance=snap, agent_radius=radius, ground=ground)


def _ground(data, fail):
    """The ``ground`` geometry of a bake (None when it has none), checked:
    a valid, finite polygon or multipolygon."""
    if data.size == 0:
        return None
    try:
        geom = shapely.from_wkb(data.tobytes())
    except (shapely.errors.ShapelyError, ValueError, TypeError) as exc:
        fail(f"array 'ground' is not WKB geometry: {exc}")
    if geom is None or geom.geom_type not in ("Polygon", "MultiPolygon") or geom.is_empty:
        fail(f"array 'ground' must be a polygon or multipolygon, got "
             f"{'nothing' if geom is None else geom.geom_type}")
    if not np.isfinite(shapely.get_coordinates(geom)).all():
        fail("array 'ground' has a coordinate that is NaN or infinite")
    if not geom.is_valid:
        fail(f"array 'ground' is not a valid polygon: {shapely.is_valid_reason(geom)}")
    return geom
