"""Level geometry: triangles in Recast's y-up frame, read from a file or
given as arrays, checked once here so every later stage can trust them.

``load_level(path, up="y")`` reads:

* ``.obj`` with RecastDemo's meaning (``Mesh::readFromObj``): ``v x y z``
  and ``f a b c ...`` lines, an index may be ``a/t/n`` and a negative
  index counts back from the vertices read so far; a face of ``n``
  vertices is cut into the fan ``(0, i-1, i)``. Other lines (``vn``,
  ``vt``, ``mtllib``, ``s``, comments) are skipped. Unlike RecastDemo, a
  face naming a vertex that does not exist is an error, not a dropped
  triangle. The reader is navcore's own (not trimesh's): trimesh does not
  say on which line a file is wrong, re-triangulates polygons its own way
  and merges or drops vertices, while a level must rasterize exactly as
  RecastDemo's would.
* ``.gltf``, ``.glb``, ``.ply``, ``.stl`` through trimesh; glTF is y-up by
  its specification, the others carry no up axis (pass ``up``).

Tags: each triangle gets the name of the ``usemtl`` material in force
where its face is, or, in a file with no ``usemtl``, of its ``g``/``o``
group (``""`` before the first one); in a glTF scene, the name of its
node's mesh. A level keeps the names once (``tags``) and an index into
them per triangle (``triangle_tags``); mapping names to area ids is the
caller's choice.

``up="z"`` turns z-up input into y-up: ``(x, y, z) -> (x, z, -y)``, a
rotation, so the faces that looked up still do.

>>> level = level_from_arrays([(0, 0, 0), (0, 0, 1), (1, 0, 0)], [(0, 1, 2)])
>>> level.vertices.shape, level.triangles.tolist(), level.tags
((3, 3), [[0, 1, 2]], ('',))
>>> level_from_arrays([(0, 0, 0), (1, 0, 0), (2, 0, 0)], [(0, 1, 2)])
Traceback (most recent call last):
navcore.errors.GraphError: every triangle of the level has no area (3 vertices, 1 triangles)
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from navcore import limits, validate
from navcore.errors import GraphError, MeshFormatError, NavError

from ._geometry import first_bad_index, first_bad_vertex

#: file suffixes read through trimesh
TRIMESH_SUFFIXES = (".gltf", ".glb", ".ply", ".stl")
SUFFIXES = (".obj",) + TRIMESH_SUFFIXES


@dataclass(frozen=True)
class Level:
    """Triangles of a level, y up.

    vertices: float64 (N, 3), finite.
    triangles: int32 (M, 3), indices into ``vertices``; M >= 1 and at
        least one triangle has an area (a triangle of no area is kept:
        Recast rasterizes it too, into the cells its segment crosses).
    tags: the distinct tag names, in order of first use.
    triangle_tags: int32 (M,), each triangle's index into ``tags``.
    source: where the level came from (a path, or ``"arrays"``).
    """
    vertices: np.ndarray
    triangles: np.ndarray
    tags: tuple
    triangle_tags: np.ndarray
    source: str = "arrays"

    @property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(bmin, bmax)``: the vertices' smallest and largest x, y, z."""
        return self.vertices.min(axis=0), self.vertices.max(axis=0)

    def tag_mask(self, name: str) -> np.ndarray:
        """bool (M,): the triangles tagged ``name``."""
        if not isinstance(name, str):
            raise GraphError(f"tag_mask: name must be a tag name (str), got "
                             f"{validate.describe(name)}")
        if name not in self.tags:
            return np.zeros(self.triangles.shape[0], dtype=bool)
        return self.triangle_tags == self.tags.index(name)


def _check_up(up) -> str:
    if not isinstance(up, str) or up not in ("y", "z"):
        raise GraphError(f"up must be 'y' or 'z' (the axis that points up in the input), "
                         f"got {up!r}")
    return up


def _up_to_y(vertices: np.ndarray, up: str) -> np.ndarray:
    if up == "z":
        return np.column_stack([vertices[:, 0], vertices[:, 2], -vertices[:, 1]])
    return vertices


def _triangle_areas2(vertices: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    a = vertices[triangles[:, 0]]
    e0 = vertices[triangles[:, 1]] - a
    e1 = vertices[triangles[:, 2]] - a
    return np.linalg.norm(np.cross(e0, e1), axis=1)


def _finish(vertices, triangles, tags, triangle_tags, source, error, where) -> Level:
    """Checks shared by files and arrays: finite coordinates, triangles
    present, not all of them without area."""
    bad = ~np.isfinite(vertices).all(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise error(f"vertex {i} {vertices[i].tolist()} is not finite", **where(i, "vertex"))
    too_far = np.abs(vertices).max(axis=1) > limits.MAX_COORDINATE if len(vertices) else bad
    if too_far.any():
        i = int(np.flatnonzero(too_far)[0])
        raise error(f"vertex {i} {vertices[i].tolist()} is farther than "
                    f"{limits.MAX_COORDINATE:g} from the origin", **where(i, "vertex"))
    if triangles.shape[0] == 0:
        raise error("the level has no triangles", **where(None, None))
    areas = _triangle_areas2(vertices, triangles)
    if not (areas > 0).any():
        raise error(f"every triangle of the level has no area ({len(vertices)} vertices, "
                    f"{len(triangles)} triangles)", **where(None, None))
    return Level(vertices=np.ascontiguousarray(vertices, dtype=np.float64),
                 triangles=np.ascontiguousarray(triangles, dtype=np.int32),
                 tags=tuple(tags), triangle_tags=np.asarray(triangle_tags, dtype=np.int32),
                 source=source)


def checked_arrays(vertices, triangles) -> tuple[np.ndarray, np.ndarray]:
    """``vertices`` as float64 (N, 3) finite coordinates (within
    ``limits.MAX_COORDINATE``) and ``triangles`` as int32 (M, 3) indices of
    them (M may be 0), or a ``GraphError`` naming the first bad row."""
    verts = validate.array(vertices, "vertices", GraphError, dtype=np.float64)
    if verts.ndim != 2 or verts.shape[1] != 3:
        raise GraphError(f"vertices must be (N, 3) x, y, z numbers, got shape {verts.shape}")
    i = first_bad_vertex(np.ascontiguousarray(verts), float(limits.MAX_COORDINATE))
    if i >= 0:
        raise GraphError(f"vertex {i} {verts[i].tolist()} is not finite or farther than "
                         f"{limits.MAX_COORDINATE:g} from the origin")
    tris = validate.array(triangles, "triangles", GraphError)
    if tris.size == 0 and tris.ndim <= 2:
        tris = tris.reshape(0, 3)
    if tris.ndim != 2 or tris.shape[1] != 3 or (tris.size and not validate.int_dtype(tris.dtype)):
        raise GraphError(f"triangles must be (M, 3) integer vertex indices, got "
                         f"{tris.dtype} of shape {tris.shape}")
    if not tris.dtype.isnative:       # numba reads native byte order only
        tris = tris.astype(tris.dtype.newbyteorder("="))
    i, j = first_bad_index(tris, len(verts)) if tris.size else (-1, -1)
    if i >= 0:
        raise GraphError(f"triangle {i} names vertex {int(tris[i, j])}, but there are "
                         f"{len(verts)} vertices")
    return np.ascontiguousarray(verts), tris.astype(np.int32)


def level_from_arrays(vertices, triangles, up: str = "y", tags=None) -> Level:
    """A level from ``vertices`` (N, 3) numbers and ``triangles`` (M, 3)
    vertex indices; ``tags`` is None (every triangle tagged ``""``) or a
    sequence of M tag names. Bad input is a ``GraphError``."""
    _check_up(up)
    verts, tris = checked_arrays(vertices, triangles)
    if tags is None:
        names, index = ("",), np.zeros(len(tris), np.int32)
    else:
        if isinstance(tags, str) or not hasattr(tags, "__len__") or len(tags) != len(tris) \
                or not all(isinstance(t, str) for t in tags):
            raise GraphError(f"tags must be one tag name (str) per triangle ({len(tris)}), got "
                             f"{validate.describe(tags) if not hasattr(tags, 'shape') else tags!r}")
        lookup: dict[str, int] = {}
        index = np.array([lookup.setdefault(t, len(lookup)) for t in tags], np.int32)
        names = tuple(lookup)
    verts = _up_to_y(verts, up)

    def where(i, kind):
        return {}
    return _finish(verts, tris, names, index, "arrays", GraphError, where)


def load_level(path, up: str = "y") -> Level:
    """The level in the file at ``path`` (``.obj``, ``.gltf``, ``.glb``,
    ``.ply``, ``.stl``). A missing, unreadable or malformed file is a
    ``MeshFormatError`` naming the file (and the line, for OBJ)."""
    p = validate.file_path(path, "level", MeshFormatError)
    _check_up(up)
    suffix = p.suffix.lower()
    if suffix not in SUFFIXES:
        raise MeshFormatError(f"unknown level format {suffix or '(no suffix)'!r}; "
                              f"read are: {', '.join(SUFFIXES)}", path=p)
    try:
        with open(p, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise MeshFormatError("level file not found", path=p) from None
    except OSError as exc:
        raise MeshFormatError(f"cannot read level file: {exc.strerror or exc}", path=p) from None
    if suffix == ".obj":
        return _read_obj(data, p, up)
    return _read_trimesh(p, suffix, up)


def _obj_index(token: bytes, count: int, path, line: int) -> int:
    """A face's vertex token (``a``, ``a/t``, ``a//n``, ``a/t/n``) as a
    0-based index into the ``count`` vertices read so far."""
    head = token.split(b"/", 1)[0]
    try:
        k = int(head)
    except ValueError:
        raise MeshFormatError(f"face vertex {token.decode('utf-8', 'replace')!r} is not an "
                              f"index", path=path, line=line) from None
    i = k - 1 if k > 0 else count + k
    if k == 0 or not 0 <= i < count:
        raise MeshFormatError(f"face names vertex {k}, but only {count} vertices are read "
                              f"so far", path=path, line=line)
    return i


def _read_obj(data: bytes, path: Path, up: str) -> Level:
    coords: list[bytes] = []      # the x y z tokens of every vertex line, joined later
    vertex_lines: list[int] = []
    tris: list[tuple[int, int, int]] = []
    tri_lines: list[int] = []
    tri_material: list[int] = []
    tri_group: list[int] = []
    materials: dict[str, int] = {"": 0}
    groups: dict[str, int] = {"": 0}
    material = group = 0
    for number, raw in enumerate(data.splitlines(), start=1):
        parts = raw.split()
        if not parts:
            continue
        key = parts[0]
        if key == b"v":
            if len(parts) < 4:
                raise MeshFormatError(f"vertex line has {len(parts) - 1} numbers, expected "
                                      f"x y z", path=path, line=number)
            coords.append(b" ".join(parts[1:4]))
            vertex_lines.append(number)
        elif key == b"f":
            if len(parts) < 4:
                raise MeshFormatError(f"face has {len(parts) - 1} vertices, at least 3 are "
                                      f"needed", path=path, line=number)
            count = len(vertex_lines)
            ids = [_obj_index(t, count, path, number) for t in parts[1:]]
            for i in range(2, len(ids)):
                tris.append((ids[0], ids[i - 1], ids[i]))
                tri_lines.append(number)
                tri_material.append(material)
                tri_group.append(group)
        elif key == b"usemtl":
            name = b" ".join(parts[1:]).decode("utf-8", "replace")
            material = materials.setdefault(name, len(materials))
        elif key in (b"g", b"o"):
            name = b" ".join(parts[1:]).decode("utf-8", "replace")
            group = groups.setdefault(name, len(groups))
    try:
        verts = np.array(b" ".join(coords).split(), dtype=np.float64).reshape(-1, 3)
    except ValueError:
        for number, text in zip(vertex_lines, coords):
            try:
                [float(t) for t in text.split()]
            except ValueError:
                raise MeshFormatError(f"vertex line holds {text.decode('utf-8', 'replace')!r}, "
                                      f"not three numbers", path=path, line=number) from None
        raise   # every line parsed alone: cannot happen
    # usemtl names when the file has any, else g/o group names
    names, index = (materials, tri_material) if len(materials) > 1 else (groups, tri_group)
    index = np.asarray(index, np.int32)
    used = np.unique(index)
    all_names = list(names)
    remap = np.zeros(len(all_names), np.int32)
    remap[used] = np.arange(len(used), dtype=np.int32)
    tags = tuple(all_names[i] for i in used)
    triangles = np.asarray(tris, np.int32).reshape(-1, 3)
    verts = _up_to_y(verts, up)

    def where(i, kind):
        if kind == "vertex":
            return {"path": path, "line": vertex_lines[i]}
        return {"path": path}
    return _finish(verts, triangles, tags, remap[index] if len(index) else index,
                   str(path), MeshFormatError, where)


def _read_trimesh(path: Path, suffix: str, up: str) -> Level:
    import trimesh
    try:
        loaded = trimesh.load(str(path), force="scene" if suffix in (".gltf", ".glb") else None,
                              process=False)
    except NavError:
        raise
    except Exception as exc:     # trimesh raises many kinds for a bad file
        raise MeshFormatError(f"cannot read level file: {exc}", path=path) from None
    pieces = []
    if isinstance(loaded, trimesh.Scene):
        for node in loaded.graph.nodes_geometry:
            transform, geometry_name = loaded.graph[node]
            geometry = loaded.geometry.get(geometry_name)
            if not isinstance(geometry, trimesh.Trimesh):
                continue
            verts = trimesh.transform_points(np.asarray(geometry.vertices, np.float64),
                                             transform)
            pieces.append((geometry_name, verts, np.asarray(geometry.faces)))
    elif isinstance(loaded, trimesh.Trimesh):
        pieces.append(("", np.asarray(loaded.vertices, np.float64), np.asarray(loaded.faces)))
    if not pieces:
        raise MeshFormatError("the level has no triangles", path=path)
    lookup: dict[str, int] = {}
    all_verts, all_tris, all_tags = [], [], []
    offset = 0
    for name, verts, faces in pieces:
        faces = faces.reshape(-1, 3)
        all_verts.append(verts.reshape(-1, 3))
        all_tris.append(faces.astype(np.int64) + offset)
        all_tags.append(np.full(len(faces), lookup.setdefault(name, len(lookup)), np.int32))
        offset += len(verts)
    verts = _up_to_y(np.concatenate(all_verts), up)

    def where(i, kind):
        return {"path": path}
    return _finish(verts, np.concatenate(all_tris).astype(np.int32), tuple(lookup),
                   np.concatenate(all_tags), str(path), MeshFormatError, where)
