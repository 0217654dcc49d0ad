"""Baked levels: a level's navmesh saved once (``save_level_mesh``) and
loaded without building it again (``load_level_mesh``, ``add_graph(...,
type="level", mesh=PATH)``), and exported as OBJ for Blender
(``export_obj``).

A bake is an ``.npz`` (written and read with ``allow_pickle=False``) of:

* ``format`` (``"navcore-level"``), ``version`` (1), ``config`` (the
  ``LevelConfig`` as JSON), ``up`` (``"y"`` or ``"z"``, the input's up
  axis), ``source`` (the level file's name, or ``"arrays"``),
  ``area_names`` (the area names and their ids as JSON: ``graph.area_names``);
* the polygon mesh (Recast's ``rcPolyMesh``): ``cell_verts`` int32
  ``(V, 3)`` in cells from ``bmin`` float64 ``(3,)``, ``cell`` float64
  ``(2,)`` (cell size, cell height), ``border_size`` int64, ``polys`` and
  ``neighbors`` int32 ``(P, nvp)``, ``regions`` int32 ``(P,)``, ``areas``
  uint8 ``(P,)``; and ``vertices`` float64 ``(V, 3)``, the same vertices
  in world coordinates on the input's axes, for readers of the file (a
  load checks that they are the cells' positions);
* the detail height mesh (``DetailMesh``, Recast's y-up world
  coordinates): ``detail_verts``, ``detail_tris``, ``detail_tri_flags``,
  ``detail_vert_offsets``, ``detail_tri_offsets``; all empty for a level
  built without one (a tiled level whose tiles split polygons);
* ``checksum``, over all of them (``navcore.files``).

A level graph built from a bake is the graph that was baked: the same
polygons, vertex for vertex, the same heights and the same paths.
Loading checks every array (dtype, shape, finite values, indices in
range, offsets increasing) before anything uses it: a bad file is a
``MeshFormatError`` naming the file and the array.
"""
from __future__ import annotations

import functools
import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np

from navcore import files, validate
from navcore.errors import GraphError, MeshFormatError, NavError

from .areas import BUILT_IN
from .config import LevelConfig
from .heightfield import WALKABLE_AREA as MAX_AREA
from .detail import DetailMesh
from .heightfield import PolyMesh

#: the ``format`` entry of a baked level, and the version this code writes
BAKE_FORMAT = "navcore-level"
BAKE_VERSION = 1

#: each array of a bake: dtype ("U": a string) and shape (None: any length)
_SPEC = {
    "format": ("U", ()), "version": (np.int64, ()), "config": ("U", ()), "up": ("U", ()),
    "source": ("U", ()), "area_names": ("U", ()), "bmin": (np.float64, (3,)), "cell": (np.float64, (2,)),
    "border_size": (np.int64, ()), "cell_verts": (np.int32, (None, 3)),
    "vertices": (np.float64, (None, 3)), "polys": (np.int32, (None, None)),
    "neighbors": (np.int32, (None, None)), "regions": (np.int32, (None,)),
    "areas": (np.uint8, (None,)), "detail_verts": (np.float64, (None, 3)),
    "detail_tris": (np.int32, (None, 3)), "detail_tri_flags": (np.uint8, (None,)),
    "detail_vert_offsets": (np.int64, (None,)), "detail_tri_offsets": (np.int64, (None,)),
}

#: the ``add_graph`` keywords that may come with ``mesh=``: everything
#: else is fixed by the bake (off-mesh links are not baked: they are
#: attached to the loaded polygons)
WITH_MESH = frozenset({"mesh", "extents", "links"})


@dataclass(frozen=True)
class BakedLevel:
    """What a bake holds: the settings, the polygon mesh, the detail mesh
    (None when the level has none), the input's up axis, its source and
    the names of its area ids (``graph.area_names``)."""
    config: LevelConfig
    polymesh: PolyMesh
    detail: DetailMesh | None
    up: str
    source: str
    area_names: dict = field(default_factory=lambda: dict(BUILT_IN))


def user_axes(v: np.ndarray, up: str) -> np.ndarray:
    """Recast's y-up world points ``(n, 3)`` on the input's axes: for
    ``up="z"``, ``(x, y, z) -> (x, -z, y)`` (the inverse of the rotation
    ``load_level`` applies)."""
    if up == "z":
        return np.column_stack([v[:, 0], -v[:, 2], v[:, 1]])
    return v


def mesh_settings_checked(build):
    """``build`` (the ``level`` graph builder) refusing build settings
    given together with ``mesh=``: a bake fixes them, and a setting that
    was silently ignored would look applied."""
    @functools.wraps(build)
    def checked(world, graph_id, **params):
        if params.get("mesh") is not None:
            extra = sorted(k for k in params if k not in WITH_MESH)
            if extra:
                # area types are marked in the voxels: baked with the graph
                again = ("save_level_mesh(PATH, graph) a level graph built with them"
                         if extra[0] in ("areas", "tag_areas") else
                         f"`navcore bake LEVEL --{extra[0].replace('_', '-')} ...`")
                raise GraphError(
                    f"mesh= loads a baked level, whose geometry and settings are fixed; "
                    f"{', '.join(extra)} cannot be given with it (bake again: {again}; "
                    f"or build with level=)")
        return build(world, graph_id, **params)
    return checked


# -- writing ---------------------------------------------------------------------------

def _level_of(graph) -> BakedLevel:
    """A level graph's bake (``GraphError`` for anything else)."""
    if not isinstance(graph, BakedLevel):
        need = ("level_config", "level_mesh", "level_detail", "level_source", "up")
        if not all(hasattr(graph, k) for k in need):
            raise GraphError(f"a level bake is made from a level graph (add_graph(..., "
                             f"type='level')) or a BakedLevel, got {validate.describe(graph)}")
        graph = BakedLevel(graph.level_config, graph.level_mesh, graph.level_detail, graph.up,
                           graph.level_source, dict(getattr(graph, "area_names", BUILT_IN)))
    kinds = (("config", LevelConfig), ("polymesh", PolyMesh), ("detail", (DetailMesh,
                                                                            type(None))),
             ("source", str), ("area_names", dict))
    for name, kind in kinds:
        if not isinstance(getattr(graph, name), kind):
            shown = getattr(kind, "__name__", "DetailMesh or None")
            raise GraphError(f"BakedLevel.{name} must be a {shown}, got "
                             f"{validate.describe(getattr(graph, name))}")
    return graph


def bake_arrays(graph) -> dict:
    """The arrays a bake of ``graph`` (a level graph or a ``BakedLevel``)
    holds, by name (see the module), checked as a load checks them
    (``GraphError`` naming the array otherwise)."""
    return _checked(graph)[0]


def _checked(graph) -> tuple:
    """``(arrays, BakedLevel)`` of ``graph``, checked (``bake_arrays``)."""
    b = _level_of(graph)

    def fail(message):
        raise GraphError(f"cannot bake this level: {message}")
    try:
        arrays = _arrays_of(b)
    except NavError:
        raise
    except (TypeError, ValueError, AttributeError, OverflowError) as exc:
        fail(f"{type(exc).__name__}: {exc}")
    for name, (dtype, _) in _SPEC.items():
        if arrays[name].dtype.hasobject or (dtype == "U" and arrays[name].dtype.kind != "U"):
            fail(f"array {name!r} must be {'a string' if dtype == 'U' else np.dtype(dtype).name}")
    return arrays, check_arrays(arrays, fail)


def _arrays_of(b: BakedLevel) -> dict:
    m, d = b.polymesh, b.detail
    source = b.source if b.source == "arrays" else Path(str(b.source)).name
    if d is None:
        d = DetailMesh(np.zeros((0, 3)), np.zeros((0, 3), np.int32), np.zeros(0, np.uint8),
                       np.zeros(0, np.int64), np.zeros(0, np.int64))
    arrays = {
        "format": np.array(BAKE_FORMAT), "version": np.array(BAKE_VERSION, np.int64),
        "config": np.array(json.dumps(asdict(b.config), sort_keys=True)),
        "up": np.array(b.up), "source": np.array(source),
        "area_names": np.array(json.dumps(b.area_names, sort_keys=True)),
        "bmin": m.bmin, "cell": [m.cs, m.ch], "border_size": m.border_size,
        "cell_verts": m.verts, "vertices": user_axes(m.world_vertices(), b.up),
        "polys": m.polys, "neighbors": m.neighbors, "regions": m.regions, "areas": m.areas,
        "detail_verts": d.verts, "detail_tris": d.tris, "detail_tri_flags": d.tri_flags,
        "detail_vert_offsets": d.vert_offsets, "detail_tri_offsets": d.tri_offsets}
    return {k: _as(k, v) for k, v in arrays.items()}


def _as(name, value) -> np.ndarray:
    """``value`` as array ``name`` of a bake: its dtype, without casting a
    float to an integer (a NaN would become a valid-looking id)."""
    dtype = _SPEC[name][0]
    a = np.asarray(value)           # not ascontiguousarray: that makes a 0-d array 1-d
    if dtype == "U":
        return a
    want = np.dtype(dtype).kind
    if a.dtype.kind not in ("iu" if want in "iu" else "iuf"):
        raise GraphError(f"cannot bake this level: array {name!r} must hold "
                         f"{'integers' if want in 'iu' else 'numbers'}, got {a.dtype}")
    if want in "iu" and a.size and (a.min() < np.iinfo(dtype).min or a.max() > np.iinfo(dtype).max):
        raise GraphError(f"cannot bake this level: array {name!r} holds values outside "
                         f"{np.dtype(dtype).name}")
    return np.asarray(a, dtype=dtype, order="C")


def save_level_mesh(path, graph) -> None:
    """Bake ``graph`` (a level graph, or a ``BakedLevel``) into the
    ``.npz`` at ``path``, whole or not at all (``navcore.files.write_atomic``);
    ``NavError`` when it cannot be written."""
    data = files.npz_bytes(**bake_arrays(graph))        # checked before anything is written
    files.write_atomic(path, data, NavError)


# -- reading ---------------------------------------------------------------------------

def load_level_mesh(path) -> BakedLevel:
    """The bake at ``path``, every array checked first (see the module);
    ``MeshFormatError`` naming the file and what is wrong otherwise."""
    if not isinstance(path, (str, os.PathLike)):
        raise GraphError(f"mesh must be the path of a baked level (.npz), got "
                         f"{validate.describe(path)}")
    path = validate.file_path(path, "mesh", MeshFormatError)

    def fail(message):
        raise MeshFormatError(message, path=path)

    arrays = files.read_npz(path, fail, {k: dt for k, (dt, _) in _SPEC.items()})
    baked = check_arrays(arrays, fail)
    files.verify(arrays, fail)          # last: the checks above name what they can
    return baked


def check_arrays(arrays: dict, fail) -> BakedLevel:
    """The bake ``arrays`` hold, each checked (see the module);
    ``fail(message)`` raises the caller's error otherwise."""
    names = sorted(arrays)
    if "format" in arrays and arrays["format"].dtype.kind == "U" \
            and str(arrays["format"]) != BAKE_FORMAT:
        fail(f"array 'format' is {str(arrays['format'])!r}, not {BAKE_FORMAT!r}: not a baked "
             f"level" + (" (a 2D navmesh bake loads with type='navmesh')"
                         if str(arrays["format"]) == "navcore-navmesh" else ""))
    missing = [k for k in _SPEC if k not in arrays]
    extra = [k for k in names if k not in _SPEC and k != "checksum"]
    if missing or extra:
        fail(f"not a baked level of this version: "
             + "; ".join(x for x in (f"missing arrays {missing}" if missing else "",
                                     f"unknown arrays {extra}" if extra else "") if x))
    version = int(arrays["version"]) if arrays["version"].shape == () else None
    if version != BAKE_VERSION:
        fail(f"array 'version' is {arrays['version'].tolist()!r}; this navcore reads baked "
             f"levels of version {BAKE_VERSION}"
             + (" (the file is newer: bake it again)" if version and version > BAKE_VERSION
                else ""))
    for name, (_, shape) in _SPEC.items():
        got = arrays[name].shape
        if len(got) != len(shape) or any(s is not None and s != g for s, g in zip(shape, got)):
            fail(f"array {name!r} must have shape "
                 f"({', '.join('n' if s is None else str(s) for s in shape)}"
                 f"{',' if len(shape) == 1 else ''}), got {got}")
    config = _config(str(arrays["config"]), fail)
    up = str(arrays["up"])
    if up not in ("y", "z"):
        fail(f"array 'up' is {up!r}, expected 'y' or 'z'")
    names = _area_names(str(arrays["area_names"]), fail)
    mesh = _polymesh(arrays, config, up, fail)
    detail = _detail(arrays, mesh.poly_count, fail)
    return BakedLevel(config, mesh, detail, up, str(arrays["source"]), names)


def _area_names(text, fail) -> dict:
    """``{name: id}`` of a bake's ``area_names`` (ids 0..63)."""
    try:
        values = json.loads(text)
    except ValueError as exc:
        fail(f"array 'area_names' is not JSON: {exc}")
    if not isinstance(values, dict) or not all(
            isinstance(k, str) and type(v) is int and 0 <= v <= MAX_AREA
            for k, v in values.items()):
        fail(f"array 'area_names' must map area names to ids 0..{MAX_AREA}, got "
             f"{text[:200]!r}")
    return values


def _config(text, fail) -> LevelConfig:
    try:
        values = json.loads(text)
    except ValueError as exc:
        fail(f"array 'config' is not JSON: {exc}")
    names = {f.name for f in fields(LevelConfig)}
    if not isinstance(values, dict) or set(values) != names:
        fail(f"array 'config' must give every LevelConfig setting ({', '.join(sorted(names))}),"
             f" got {text[:200]!r}")
    try:
        return LevelConfig(**values)
    except GraphError as exc:
        fail(f"array 'config': {exc.message}")


def _nonfinite(name, a, fail) -> None:
    bad = np.flatnonzero(~np.isfinite(a).all(axis=-1) if a.ndim > 1 else ~np.isfinite(a))
    if bad.size:
        fail(f"array {name!r}: entry {bad[0]} is not finite: {a[bad[0]].tolist()}")


def _polymesh(a, config, up, fail) -> PolyMesh:
    for name in ("bmin", "cell", "vertices"):
        _nonfinite(name, a[name], fail)
    cs, ch = (float(x) for x in a["cell"])
    if (cs, ch) != (config.cell_size, config.cell_height):
        fail(f"array 'cell' is {[cs, ch]}, but the config's cell size and height are "
             f"{[config.cell_size, config.cell_height]}")
    border = int(a["border_size"])
    if border < 0:
        fail(f"array 'border_size' is {border}; it must be >= 0")
    cells, polys, nbrs = a["cell_verts"], a["polys"], a["neighbors"]
    nv, (npolys, nvp) = len(cells), polys.shape
    if npolys == 0:
        fail("array 'polys' holds no polygon: a bake has at least one")
    if not 3 <= nvp <= 12:
        fail(f"array 'polys' has {nvp} columns; polygons have 3..12 corners")
    for name in ("neighbors", "regions", "areas"):
        want = (npolys, nvp) if name == "neighbors" else (npolys,)
        if a[name].shape != want:
            fail(f"array {name!r} must have shape {want} (one row per polygon of 'polys'), "
                 f"got {a[name].shape}")
    if len(a["vertices"]) != nv:
        fail(f"array 'vertices' holds {len(a['vertices'])} vertices, 'cell_verts' {nv}")
    bad = np.flatnonzero((polys < -1) | (polys >= nv))
    if bad.size:
        p, j = divmod(int(bad[0]), nvp)
        fail(f"array 'polys': polygon {p} corner {j} is vertex {polys[p, j]}, out of range "
             f"for {nv} vertices")
    used = polys >= 0
    count = used.sum(axis=1)
    # corners first, then -1 only; at least a triangle
    shape_bad = np.flatnonzero((count < 3) | (used != (np.arange(nvp) < count[:, None])).any(1))
    if shape_bad.size:
        p = int(shape_bad[0])
        fail(f"array 'polys': polygon {p} must list 3..{nvp} vertices followed only by -1, "
             f"got {polys[p].tolist()}")
    bad = np.flatnonzero((nbrs < -5) | (nbrs >= npolys))
    if bad.size:
        p, j = divmod(int(bad[0]), nvp)
        fail(f"array 'neighbors': polygon {p} edge {j} is {nbrs[p, j]}, out of range for "
             f"{npolys} polygons")
    bad = np.flatnonzero(a["areas"] > 63)
    if bad.size:
        fail(f"array 'areas': polygon {bad[0]} has area id {a['areas'][bad[0]]}; ids are 0..63")
    mesh = PolyMesh(cells, polys, nbrs, a["regions"], a["areas"], nvp, a["bmin"], cs, ch,
                    border)
    world = user_axes(mesh.world_vertices(), up)
    bad = np.flatnonzero((world != a["vertices"]).any(axis=1))
    if bad.size:
        i = int(bad[0])
        fail(f"array 'vertices': vertex {i} is {a['vertices'][i].tolist()}, but its cell "
             f"{cells[i].tolist()} lies at {world[i].tolist()}")
    return mesh


def _offsets(name, off, size, count, fail) -> None:
    """``off`` must run from 0 to ``size`` without decreasing, ``count + 1``
    entries."""
    if len(off) != count + 1:
        fail(f"array {name!r} must hold {count + 1} offsets (one per polygon and the end), "
             f"got {len(off)}")
    if off[0] != 0 or off[-1] != size:
        fail(f"array {name!r} must run from 0 to {size}, got {off[0]}..{off[-1]}")
    down = np.flatnonzero(np.diff(off) < 0)
    if down.size:
        fail(f"array {name!r} decreases at polygon {down[0]}: {off[down[0]]} then "
             f"{off[down[0] + 1]}")


def _detail(a, npolys, fail) -> DetailMesh | None:
    names = ("detail_verts", "detail_tris", "detail_tri_flags", "detail_vert_offsets",
             "detail_tri_offsets")
    verts, tris, flags, voff, toff = (a[k] for k in names)
    if all(a[k].size == 0 for k in names):
        return None
    _nonfinite("detail_verts", verts, fail)
    if len(flags) != len(tris):
        fail(f"array 'detail_tri_flags' holds {len(flags)} flags for {len(tris)} triangles")
    _offsets("detail_vert_offsets", voff, len(verts), npolys, fail)
    _offsets("detail_tri_offsets", toff, len(tris), npolys, fail)
    # each triangle names vertices of its own polygon (Detour reads them so)
    owner = np.repeat(np.arange(npolys), np.diff(toff))
    lo, hi = voff[owner][:, None], voff[owner + 1][:, None]
    bad = np.flatnonzero(((tris < lo) | (tris >= hi)).any(axis=1))
    if bad.size:
        t = int(bad[0])
        fail(f"array 'detail_tris': triangle {t} {tris[t].tolist()} of polygon {owner[t]} "
             f"names a vertex outside its polygon's {lo[t, 0]}..{hi[t, 0] - 1}")
    return DetailMesh(verts, tris, flags, voff, toff)


# -- OBJ -------------------------------------------------------------------------------

def obj_text(graph, groups=None) -> str:
    """Wavefront OBJ of a level's navmesh polygons: ``v`` lines of the
    world vertices on the input's axes, one ``f`` line per polygon (its
    corners in order, 1-based; the winding makes its normal point up),
    and with ``groups`` (an int per polygon) a ``g floor_K`` group before
    each group's polygons."""
    b = _checked(graph)[1]
    m = b.polymesh
    v = user_axes(m.world_vertices(), b.up)
    if groups is not None:
        groups = validate.array(groups, "groups", GraphError)
        if groups.shape != (m.poly_count,) or groups.dtype.kind not in "iu":
            raise GraphError(f"groups must give an integer group per polygon "
                             f"({m.poly_count}), got {groups.dtype} with shape {groups.shape}")
    lines = [f"# navcore navmesh of {b.source}: {len(v)} vertices, {m.poly_count} polygons",
             "o navmesh"]
    lines += [f"v {x!r} {y!r} {z!r}" for x, y, z in v.tolist()]
    order = np.arange(m.poly_count) if groups is None else np.argsort(groups, kind="stable")
    last = None
    for p in order.tolist():
        if groups is not None and groups[p] != last:
            last = groups[p]
            lines.append(f"g floor_{int(last)}")
        row = m.polys[p]
        lines.append("f " + " ".join(str(int(i) + 1) for i in row[row >= 0]))
    return "\n".join(lines) + "\n"


def export_obj(path, graph, groups=None) -> None:
    """Write ``obj_text(graph, groups)`` to ``path``, whole or not at all."""
    files.write_atomic(path, obj_text(graph, groups).encode(), NavError)
