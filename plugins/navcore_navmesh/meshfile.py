"""Navigation mesh files: Polyanya ``.mesh`` (read v2 and v3, write v2)
and navcore's own baked ``.npz``.

A mesh here is three flat arrays (``MeshArrays``), the layout of
``NavMeshGraph``: float64 ``vertices`` ``(V, 2)``, int32 ``poly_start``
``(P + 1,)`` and int32 ``poly_verts`` ``(E,)``; polygon ``p`` is
``poly_verts[poly_start[p]:poly_start[p + 1]]``, convex and
counter-clockwise (positive signed area in ``(x, y)``). Every reader
checks all of that before a graph is built (``check_mesh``), so no kernel
meets an id out of range or a polygon of the wrong shape.

Polyanya ``.mesh`` (Cui, Harabor & Grastien 2017; the format of
Polyanya's ``meshes/v2/format.txt`` and vleue/polyanya's
``meshes/v3/format.txt``):

* v2: ``mesh`` / ``2`` / ``V P``; V vertex lines ``x y n p1..pn`` (the
  polygons around the vertex, ``-1`` for an obstacle); P polygon lines
  ``n v1..vn p1..pn`` (0-based vertex ids, ``pj`` the polygon across the
  edge from ``v(j-1)`` to ``vj``, ``-1`` a wall).
* v3: ``mesh`` / ``3`` / ``V F``; V lines ``x y``; F face lines
  ``trav n v1..vn nb1..nbn`` with 1-based ids; ``nbj > 0`` a traversable
  neighbour across the edge from ``v(j-1)`` to ``vj``, ``< 0`` one that
  cannot be crossed, ``0`` none. Only traversable faces (``trav = 1``)
  are kept; vertex ids become 0-based (``id - 1``), vertices only
  non-traversable faces use stay (unused).

Reading rules (``read_polyanya_mesh``):

* One vertex or polygon per line, as Polyanya's files and writers have it
  (the v2 text allows any whitespace; reading by lines lets an error name
  its line). Blank lines are skipped, CRLF is fine.
* **Winding.** Polyanya's files give their polygons one way round in
  their own frame: ``arena.mesh`` (x right, y down, the grid's frame) and
  the v3 Iron Harvest mesh (y up) both have positive signed area in
  ``(x, y)``, navcore's counter-clockwise, and are used as they are. A
  file whose polygons are *all* clockwise is reversed as a whole (each
  polygon's vertex order), so a file written in the other handedness
  reads; a file that mixes both windings is an error.
* The neighbour lists must agree with the shared edges: navcore joins two
  kept polygons exactly when they share an edge (both end vertices;
  polygons that meet at one vertex only are not neighbours, so no path
  squeezes through a pinch), and a file that says otherwise is an error.
  v2 vertex lines are checked for their shape and ids only: navcore
  derives corners from the polygons.
* Anything else wrong (a bad header, a wrong count, a truncated file, a
  token that is not a number, a NaN or infinite coordinate, a vertex id
  out of range, a polygon with fewer than 3 corners, a repeated vertex,
  two vertices at one point, a face that is not convex or has no area,
  an edge of three polygons) is a ``navcore.MeshFormatError`` naming the
  file and line. Not checked: polygons overlapping in their interiors and
  T-junctions (a vertex inside another polygon's edge).

``write_polyanya_mesh(path, graph)`` writes v2 for Polyanya's C++ (its
``scenariorunner``): unused vertices are dropped (Polyanya wants two
neighbours or more at each vertex), and each vertex lists its polygons in
the same rotational sense as the polygons list their vertices (after a
polygon comes the one across its edge that ends at the vertex), one
``-1`` per gap of obstacle between two fans of polygons, as in Polyanya's
own ``arena.mesh``; Polyanya counts those ``-1`` to find corners (one or
more) and ambiguous pinch vertices (two or more).

``save_mesh(path, graph)`` / ``load_mesh(path)``: a baked mesh, ``.npz``
with ``format`` (``"navcore-navmesh"``), ``version`` (1), ``vertices``,
``poly_start``, ``poly_verts``, and of the graph ``snap_distance``,
``agent_radius`` (what the mesh was shrunk by) and ``ground`` (the free
space before that, as WKB bytes; empty when unknown): a graph built from
it is the one that was saved (same ids, same adjacency, same answers;
positions, costs and the free space follow from the polygons). A bake holds the geometry only:
walkable flags and costs changed by updates are not part of it. Loading never
unpickles (``allow_pickle=False``) and checks each array's dtype, shape,
values and the polygons before anything uses them. ``navcore bake``
(``cli``) writes either file from a scene, a ``.map`` or a ``.mesh``.

``add_graph(gid, type="navmesh", mesh=PATH)`` reads either kind of file
(told apart by content), ``vertices=``/``polygons=`` take arrays
(``mesh_arrays``: the same checks, errors naming ``polygons[p]``), and
``agent_radius=r > 0`` shrinks the union of the given polygons by ``r``
and triangulates it again (``given_mesh``). A given mesh keeps its
polygons (``merge=True`` merges them); a mesh triangulated again for the
agent radius is merged like any other (unless ``merge=False``).

>>> import navcore, tempfile, os
>>> w = navcore.World(autoload=False)
>>> room = w.add_graph("room", type="navmesh", bounds=(0, 0, 4, 2), merge=False)
>>> folder = tempfile.mkdtemp()
>>> write_polyanya_mesh(os.path.join(folder, "room.mesh"), room)
>>> print(open(os.path.join(folder, "room.mesh")).read(), end="")
mesh
2
4 2
0 0 2 0 -1
0 2 3 0 1 -1
4 0 3 1 0 -1
4 2 2 1 -1
3 2 1 0 -1 1 -1
3 1 2 3 -1 0 -1
>>> again = w.add_graph("again", type="navmesh", mesh=os.path.join(folder, "room.mesh"))
>>> again.num_polygons, w.find_path("again", (0.5, 0.5), (3.5, 1.5)).cost == \\
...     w.find_path("room", (0.5, 0.5), (3.5, 1.5)).cost
(2, True)
"""
from __future__ import annotations

import math
import os
import re
import tempfile
import zipfile
from pathlib import Path
from typing import NamedTuple

import numpy as np

import shapely

from navcore import validate
from navcore.errors import GraphError, MeshFormatError, NavError

from .mesh import match_edges, next_edge, polygons_union

#: the ``format`` entry of a baked mesh, and the version this code writes
NPZ_FORMAT = "navcore-navmesh"
NPZ_VERSION = 1
NPZ_ARRAYS = ("format", "version", "vertices", "poly_start", "poly_verts", "snap_distance",
              "agent_radius", "ground")

#: a corner may turn clockwise by this much (sine of the angle) and still
#: count as convex: merged polygons have collinear corners, and a file's
#: rounded coordinates may bend them by a hair
CONVEX_TOLERANCE = 1e-9


class MeshArrays(NamedTuple):
    """A checked convex-polygon mesh (see the module docstring)."""
    vertices: np.ndarray          # float64 (V, 2)
    poly_start: np.ndarray        # int32 (P + 1,)
    poly_verts: np.ndarray        # int32 (E,), counter-clockwise polygons
    #: what a bake brings along of its graph (``NavMeshGraph``): the
    #: ``snap_distance`` (None: the default for the mesh), the
    #: ``agent_radius`` the mesh was shrunk by and the ``ground`` before
    #: that (a shapely geometry, or None)
    snap_distance: float | None = None
    agent_radius: float = 0.0
    ground: object = None


# -- where an error is ---------------------------------------------------------

class _Where:
    """How errors name a vertex or a polygon: a file's line (text files),
    an array entry (``vertices=``/``polygons=``) or an array of a baked
    file. ``vertex_id``/``poly_id`` turn an index into the number the
    source uses (v3 files count from 1, and skip faces they do not keep)."""

    def __init__(self, error, path=None, vertex_line=None, poly_line=None,
                 vertex_name="vertex {}", poly_name="polygon {}", vertex_id=None,
                 poly_id=None):
        self.error, self.path = error, path
        self.vertex_line, self.poly_line = vertex_line, poly_line
        self.vertex_name, self.poly_name = vertex_name, poly_name
        self.vertex_id = vertex_id or (lambda i: i)
        self.poly_id = poly_id or (lambda p: p)

    def _raise(self, text, line):
        if self.path is None:
            raise self.error(text)
        raise self.error(text, path=self.path, line=line)

    def vid(self, i) -> int:
        """Vertex ``i`` as the source numbers it."""
        return self.vertex_id(int(i))

    def vertex(self, i, message):
        i = int(i)
        line = None if self.vertex_line is None else self.vertex_line[i]
        self._raise(f"{self.vertex_name.format(self.vid(i))} {message}", line)

    def polygon(self, p, message):
        p = int(p)
        line = None if self.poly_line is None else self.poly_line[p]
        self._raise(f"{self.poly_name.format(self.poly_id(p))} {message}", line)

    def whole(self, message):
        self._raise(message, None)


# -- the checks every mesh passes ------------------------------------------------

def check_mesh(vertices, poly_start, poly_verts, where: _Where, may_reverse=True):
    """Check a mesh given as flat arrays (float64 finite vertices, int64
    or int32 polygon arrays with ids in range and at least 3 corners per
    polygon, which the callers check first) and return it as
    ``MeshArrays``: polygons all clockwise are reversed when
    ``may_reverse``; anything else wrong raises through ``where``."""
    vertices = np.ascontiguousarray(vertices, dtype=np.float64)
    poly_start = np.asarray(poly_start, dtype=np.int64)
    poly_verts = np.asarray(poly_verts, dtype=np.int64)
    n_poly = len(poly_start) - 1
    e = len(poly_verts)
    if n_poly < 1:
        where.whole("the mesh has no polygon")
    sizes = np.diff(poly_start)
    owner = np.repeat(np.arange(n_poly), sizes)

    # a vertex named twice by one polygon
    key = owner * len(vertices) + poly_verts
    order = np.argsort(key, kind="stable")
    twice = np.flatnonzero(key[order][1:] == key[order][:-1])
    if twice.size:
        j = order[twice[0] + 1]
        where.polygon(owner[j], f"names vertex {where.vid(poly_verts[j])} twice")

    # two vertices at one point (of those the polygons use): an edge of no
    # length, or two polygons that touch without sharing their vertex ids
    used = np.unique(poly_verts)
    pts = vertices[used]
    order = np.lexsort((pts[:, 1], pts[:, 0]))
    same = np.flatnonzero((pts[order][1:] == pts[order][:-1]).all(axis=1))
    if same.size:
        a, b = sorted((used[order[same[0]]], used[order[same[0] + 1]]))
        where.vertex(b, f"lies at the same point as vertex {where.vid(a)} "
                        f"({_num(vertices[b, 0])}, {_num(vertices[b, 1])})")

    # winding: the signed area of each polygon, relative to its first corner
    nxt = next_edge(poly_start, e).astype(np.int64)
    first = np.repeat(vertices[poly_verts[poly_start[:-1]]], sizes, axis=0)
    p = vertices[poly_verts] - first
    q = vertices[poly_verts[nxt]] - first
    area2 = np.add.reduceat(p[:, 0] * q[:, 1] - q[:, 0] * p[:, 1], poly_start[:-1])
    flat = np.flatnonzero(area2 == 0)
    if flat.size:
        where.polygon(flat[0], "has no area (its corners lie on one line)")
    ccw = area2 > 0
    if not ccw.all():
        if not may_reverse:
            where.polygon(np.flatnonzero(~ccw)[0], "is clockwise (negative signed area); "
                                                   "polygons must be counter-clockwise")
        if ccw.any():
            usual = bool(ccw.sum() * 2 >= n_poly)          # the majority's winding
            odd, other = np.flatnonzero(ccw != usual)[0], np.flatnonzero(ccw == usual)[0]
            turn_of = {True: "counter-clockwise", False: "clockwise"}
            where.polygon(odd, f"is {turn_of[not usual]} but "
                               f"{where.poly_name.format(where.poly_id(other))} is "
                               f"{turn_of[usual]}: a mesh winds all its polygons one way")
        poly_verts = _reverse_polygons(poly_start, poly_verts)
        nxt = next_edge(poly_start, e).astype(np.int64)

    # convex: every corner turns left (or goes straight on), and the turns
    # add up to one full turn (not two: a star has all left turns too)
    edge = vertices[poly_verts[nxt]] - vertices[poly_verts]
    length = np.hypot(edge[:, 0], edge[:, 1])
    a, b = edge, edge[nxt]
    sine = (a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]) / (length * length[nxt])
    cosine = (a[:, 0] * b[:, 0] + a[:, 1] * b[:, 1]) / (length * length[nxt])
    turn = np.arctan2(sine, cosine)
    bad = np.flatnonzero((sine < -CONVEX_TOLERANCE) | ((sine <= CONVEX_TOLERANCE)
                                                      & (cosine < 0)))
    if bad.size:
        j = bad[0]
        how = "back" if cosine[j] < 0 and sine[j] >= -CONVEX_TOLERANCE else "clockwise"
        where.polygon(owner[j], f"is not convex: it turns {how} at vertex "
                                f"{where.vid(poly_verts[nxt[j]])}")
    total = np.add.reduceat(turn, poly_start[:-1])
    loops = np.flatnonzero(total > 2 * math.pi + 1e-6)
    if loops.size:
        where.polygon(loops[0], "is not convex: its boundary winds around more than once "
                                "(it crosses itself)")

    # an edge is shared by at most two polygons, which run along it in
    # opposite directions: two running the same way lie on the same side of
    # it and overlap (and of three polygons on an edge, two do)
    v_from, v_to = poly_verts, poly_verts[nxt]
    directed = v_from * len(vertices) + v_to
    order = np.argsort(directed, kind="stable")
    dup = np.flatnonzero(directed[order][1:] == directed[order][:-1])
    if dup.size:
        j, k = order[dup[0]], order[dup[0] + 1]
        where.polygon(owner[k], f"overlaps {where.poly_name.format(where.poly_id(owner[j]))}:"
                                f" both run along the edge from vertex "
                                f"{where.vid(v_from[k])} to vertex {where.vid(v_to[k])}"
                                f" on the same side")
    return MeshArrays(vertices, poly_start.astype(np.int32), poly_verts.astype(np.int32))


def _reverse_polygons(poly_start, poly_verts):
    """Each polygon's vertex order reversed (its first vertex stays first)."""
    sizes = np.diff(poly_start)
    start = np.repeat(poly_start[:-1], sizes)
    k = np.arange(len(poly_verts)) - start                 # position in its polygon
    src = start + (sizes.repeat(sizes) - k) % sizes.repeat(sizes)
    return poly_verts[src]


def _num(x) -> str:
    """A coordinate as written in messages and v2 files: the shortest text
    that reads back as the same float, integers without ``.0``."""
    r = repr(float(x))
    return r[:-2] if r.endswith(".0") else r


# -- Polyanya .mesh: reading -----------------------------------------------------

_INT = re.compile(rb"[+-]?[0-9]+")


class _Lines:
    """The non-blank lines of a text file as (line number, tokens)."""

    def __init__(self, data: bytes, path):
        self.path = path
        self.items = [(n, parts) for n, line in enumerate(data.split(b"\n"), 1)
                      if (parts := line.split())]
        self.pos = 0
        # where a missing line would be: after the last one with text
        self.end_line = self.items[-1][0] + 1 if self.items else 1

    def fail(self, message, line):
        raise MeshFormatError(message, path=self.path, line=line)

    def next(self, what, expected):
        if self.pos >= len(self.items):
            self.fail(f"the file ends early: expected {what}{expected}", self.end_line)
        item = self.items[self.pos]
        self.pos += 1
        return item

    def int(self, tok, line, what, lo=None, hi=None):
        if not _INT.fullmatch(tok):
            self.fail(f"{what} must be an integer, got {_show(tok)}", line)
        v = int(tok)
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            rng = (f"from {lo} to {hi}" if lo is not None and hi is not None
                   else f"at least {lo}" if lo is not None else f"at most {hi}")
            self.fail(f"{what} is {v}; it must be {rng}", line)
        return v

    def float(self, tok, line, what):
        try:
            if b"_" in tok:
                raise ValueError
            v = float(tok)
        except ValueError:
            self.fail(f"{what} must be a number, got {_show(tok)}", line)
        if not math.isfinite(v):
            self.fail(f"{what} is not finite ({_show(tok)})", line)
        return v


def _show(tok: bytes) -> str:
    return repr(tok.decode("utf-8", "replace"))


def read_polyanya_mesh(path) -> MeshArrays:
    """The traversable polygons of a Polyanya ``.mesh`` file (v2 or v3),
    checked and counter-clockwise; ``MeshFormatError`` with the file and
    line for anything wrong (see the module docstring)."""
    return parse_polyanya_mesh(_read_bytes(path), path=path)


def _readable(path) -> Path:
    """``path`` as a Path once it is known to open for reading."""
    _read_bytes(path, 0)
    return Path(path)


def _read_bytes(path, size=-1) -> bytes:
    """The file's bytes (the first ``size`` only, when given)."""
    if not isinstance(path, (str, os.PathLike)):
        raise GraphError(f"mesh must be the path of a .mesh or .npz file, got {path!r}")
    try:
        with open(path, "rb") as f:
            return f.read(size)
    except FileNotFoundError:
        raise MeshFormatError("mesh file not found", path=path) from None
    except OSError as exc:
        raise MeshFormatError(f"cannot read mesh file: {exc.strerror or exc}",
                              path=path) from None


def parse_polyanya_mesh(data, path="<mesh>") -> MeshArrays:
    """``read_polyanya_mesh`` for the bytes (or text) of a file; ``path``
    names it in errors."""
    if isinstance(data, str):
        data = data.encode()
    src = _Lines(data, path)
    n, toks = src.next("", "'mesh' on the first line")
    if toks != [b"mesh"]:
        src.fail(f"expected 'mesh' on the first line (a Polyanya mesh), got "
                 f"{_show(b' '.join(toks))}", n)
    n, toks = src.next("", "the format version (2 or 3) after 'mesh'")
    if toks not in ([b"2"], [b"3"]):
        src.fail(f"expected the format version 2 or 3, got {_show(b' '.join(toks))}", n)
    version = int(toks[0])
    header_line, toks = src.next("", "the vertex and polygon counts")
    what = "faces" if version == 3 else "polygons"
    if len(toks) != 2:
        src.fail(f"expected two counts (vertices, {what}), got {len(toks)} values",
                 header_line)
    nv = src.int(toks[0], header_line, "the vertex count", lo=1)
    nf = src.int(toks[1], header_line, f"the {what[:-1]} count", lo=1)
    counts = f" (the header on line {header_line} declares {nv} vertices and {nf} {what})"
    read = _read_v3 if version == 3 else _read_v2
    coords, vline, sizes, verts, nbs, pline, label = read(src, nv, nf, counts)
    if src.pos < len(src.items):
        src.fail(f"unexpected line after the last {what[:-1]}{counts}",
                 src.items[src.pos][0])
    if not sizes:
        src.fail("the mesh has no traversable face", header_line)

    vertices = np.array(coords, dtype=np.float64).reshape(-1, 2)
    poly_start = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=poly_start[1:])
    poly_verts = np.array(verts, dtype=np.int64)
    one = 1 if version == 3 else 0
    where = _Where(MeshFormatError, path, vline, pline,
                   "vertex {}", "face {}" if version == 3 else "polygon {}",
                   vertex_id=lambda i: i + one, poly_id=lambda p: label[p])
    mesh = check_mesh(vertices, poly_start, poly_verts, where)
    _check_neighbours(poly_start, poly_verts, np.array(nbs, dtype=np.int64), len(vertices),
                      version, label, where)
    return mesh


def _read_v2(src, nv, nf, counts):
    coords, vline = [], []
    for i in range(nv):
        n, toks = src.next(f"vertex {i}", counts)
        if len(toks) < 3:
            src.fail(f"vertex {i} needs 'x y n' and n polygon ids, got {len(toks)} "
                     f"values{counts}", n)
        k = src.int(toks[2], n, f"the polygon count of vertex {i}", lo=0)
        if len(toks) != 3 + k:
            src.fail(f"vertex {i} has {len(toks)} values, expected {3 + k} (x, y, {k} and "
                     f"{k} polygon ids){counts}", n)
        coords += (src.float(toks[0], n, f"x of vertex {i}"),
                   src.float(toks[1], n, f"y of vertex {i}"))
        for t in toks[3:]:
            src.int(t, n, f"a polygon id of vertex {i}", lo=-1, hi=nf - 1)
        vline.append(n)
    sizes, verts, nbs, pline = [], [], [], []
    for p in range(nf):
        n, toks = src.next(f"polygon {p}", counts)
        k = src.int(toks[0], n, f"the vertex count of polygon {p}", lo=3)
        if len(toks) != 1 + 2 * k:
            src.fail(f"polygon {p} has {len(toks)} values, expected {1 + 2 * k} ({k}, then "
                     f"{k} vertex ids and {k} neighbours){counts}", n)
        verts += [src.int(t, n, f"a vertex id of polygon {p}", lo=0, hi=nv - 1)
                  for t in toks[1:1 + k]]
        nbs += [src.int(t, n, f"a neighbour of polygon {p}", lo=-1, hi=nf - 1)
                for t in toks[1 + k:]]
        sizes.append(k)
        pline.append(n)
    return coords, vline, sizes, verts, nbs, pline, list(range(nf))


def _read_v3(src, nv, nf, counts):
    coords, vline = [], []
    for i in range(1, nv + 1):
        n, toks = src.next(f"vertex {i}", counts)
        if len(toks) != 2:
            src.fail(f"vertex {i} has {len(toks)} values, expected 2 (x y){counts}", n)
        coords += (src.float(toks[0], n, f"x of vertex {i}"),
                   src.float(toks[1], n, f"y of vertex {i}"))
        vline.append(n)
    sizes, verts, nbs, pline, label = [], [], [], [], []
    for f in range(1, nf + 1):
        n, toks = src.next(f"face {f}", counts)
        if len(toks) < 2:
            src.fail(f"face {f} needs 'trav n', n vertex ids and n neighbours, got "
                     f"{len(toks)} values{counts}", n)
        trav = src.int(toks[0], n, f"the traversable flag of face {f}", lo=0, hi=1)
        k = src.int(toks[1], n, f"the vertex count of face {f}", lo=3)
        if len(toks) != 2 + 2 * k:
            src.fail(f"face {f} has {len(toks)} values, expected {2 + 2 * k} (trav, {k}, "
                     f"then {k} vertex ids and {k} neighbours){counts}", n)
        vs = [src.int(t, n, f"a vertex id of face {f}", lo=1, hi=nv) - 1
              for t in toks[2:2 + k]]
        ns = [src.int(t, n, f"a neighbour of face {f}", lo=-nf, hi=nf)
              for t in toks[2 + k:]]
        if trav:
            verts += vs
            nbs += ns
            sizes.append(k)
            pline.append(n)
            label.append(f)
    return coords, vline, sizes, verts, nbs, pline, label


def _check_neighbours(poly_start, poly_verts, nbs, num_vertices, version, label, where):
    """The file's neighbour lists agree with the shared edges (in the
    file's own winding: ``nbs[j]`` lies across the edge that ends at
    ``poly_verts[j]``)."""
    adj, _ = match_edges(poly_start, poly_verts, num_vertices)
    nxt = next_edge(poly_start, len(poly_verts)).astype(np.int64)
    prev = np.empty_like(nxt)
    prev[nxt] = np.arange(len(nxt))
    shared = adj[prev]                       # kept polygon across the edge ending at j
    if version == 3:
        kept = {f: p for p, f in enumerate(label)}          # file face id -> polygon
        said = np.array([kept.get(int(k), -2) if k > 0 else -1 for k in nbs.tolist()],
                        dtype=np.int64)
    else:
        said = nbs
    wrong = np.flatnonzero(said != shared)
    if not wrong.size:
        return
    j = wrong[0]
    owner = int(np.searchsorted(poly_start, j, side="right") - 1)
    a, b = where.vid(poly_verts[prev[j]]), where.vid(poly_verts[j])
    name = where.poly_name
    if version == 3 and said[j] == -2:
        where.polygon(owner, f"names face {nbs[j]} as a traversable neighbour across the "
                             f"edge from vertex {a} to vertex {b}, but face {nbs[j]} is not "
                             f"traversable")
    if shared[j] < 0:
        where.polygon(owner, f"names {name.format(label[said[j]])} as its neighbour across "
                             f"the edge from vertex {a} to vertex {b}, but they do not share "
                             f"that edge")
    other = name.format(label[shared[j]])
    if said[j] < 0:
        lists = (f"marks the edge from vertex {a} to vertex {b} as not traversable "
                 f"({nbs[j]})" if version == 3 else
                 f"lists no neighbour (-1) across the edge from vertex {a} to vertex {b}")
        where.polygon(owner, f"{lists}, but {other} shares that edge (navcore joins "
                             f"polygons that share an edge)")
    where.polygon(owner, f"names {name.format(label[said[j]])} as its neighbour across the "
                         f"edge from vertex {a} to vertex {b}, but {other} is the one "
                         f"sharing it")


# -- Polyanya .mesh: writing -----------------------------------------------------

def vertex_polygons(mesh):
    """Per used vertex, its polygons in order around it, ``-1`` for each
    gap of obstacle (see the module docstring): ``(used, lists)`` with
    ``used`` the ids of the vertices some polygon names, in order."""
    poly_start = np.asarray(mesh.poly_start, dtype=np.int64)
    poly_verts = np.asarray(mesh.poly_verts, dtype=np.int64)
    vertices = np.asarray(mesh.vertices)
    adj, opposite = match_edges(poly_start, poly_verts, len(vertices))
    nxt = next_edge(poly_start, len(poly_verts)).astype(np.int64)
    prev = np.empty_like(nxt)
    prev[nxt] = np.arange(len(nxt))
    owner = np.repeat(np.arange(len(poly_start) - 1), np.diff(poly_start))
    # corner j (vertex poly_verts[j] of polygon owner[j]): the next corner
    # round the vertex is in the polygon across the edge ending there
    after = np.where(adj[prev] >= 0, opposite[prev], -1)
    # a fan starts at a corner whose edge leaving the vertex is a wall
    starts = adj < 0
    order = np.argsort(poly_verts, kind="stable")
    used, first = np.unique(poly_verts[order], return_index=True)
    bounds = np.append(first, len(order))
    # the angle of the wall a fan starts at: fans go round counter-clockwise
    d = vertices[poly_verts[nxt]] - vertices[poly_verts]
    angle = np.arctan2(d[:, 1], d[:, 0])
    after_l, owner_l, starts_l = after.tolist(), owner.tolist(), starts.tolist()
    lists = []
    for u in range(len(used)):
        corners = order[bounds[u]:bounds[u + 1]]
        fan_starts = sorted((c for c in corners.tolist() if starts_l[c]),
                            key=lambda c: angle[c])
        seen = set()
        out = []
        for s in fan_starts:
            c = s
            while c >= 0 and c not in seen:
                seen.add(c)
                out.append(owner_l[c])
                c = after_l[c]
            out.append(-1)
        for s in corners.tolist():            # inner vertex: one cycle, no wall
            c = s
            while c >= 0 and c not in seen:
                seen.add(c)
                out.append(owner_l[c])
                c = after_l[c]
        lists.append(out)
    return used, lists


def polyanya_v2_text(mesh) -> str:
    """The Polyanya v2 text of ``mesh`` (a ``NavMeshGraph`` or
    ``MeshArrays``); see ``write_polyanya_mesh``."""
    poly_start = np.asarray(mesh.poly_start, dtype=np.int64)
    poly_verts = np.asarray(mesh.poly_verts, dtype=np.int64)
    vertices = np.asarray(mesh.vertices, dtype=np.float64)
    used, lists = vertex_polygons(mesh)
    renumber = np.full(len(vertices), -1, dtype=np.int64)
    renumber[used] = np.arange(len(used))
    adj, _ = match_edges(poly_start, poly_verts, len(vertices))
    nxt = next_edge(poly_start, len(poly_verts)).astype(np.int64)
    prev = np.empty_like(nxt)
    prev[nxt] = np.arange(len(nxt))
    nb = adj[prev]                        # Polyanya: across the edge ending at vertex j
    out = ["mesh", "2", f"{len(used)} {len(poly_start) - 1}"]
    for v, polys in zip(used.tolist(), lists):
        x, y = vertices[v]
        out.append(f"{_num(x)} {_num(y)} {len(polys)} {' '.join(map(str, polys))}")
    ids = renumber[poly_verts].tolist()
    nb = nb.tolist()
    for a, b in zip(poly_start[:-1].tolist(), poly_start[1:].tolist()):
        out.append(f"{b - a} {' '.join(map(str, ids[a:b]))} {' '.join(map(str, nb[a:b]))}")
    return "\n".join(out) + "\n"


def write_polyanya_mesh(path, graph) -> None:
    """Write ``graph`` (a ``NavMeshGraph`` or ``MeshArrays``) as a Polyanya
    v2 ``.mesh`` file that Polyanya's C++ reads (see the module
    docstring); ``NavError`` if the file cannot be written."""
    _write_atomic(path, polyanya_v2_text(graph).encode())


def _write_atomic(path, data: bytes) -> None:
    """Write through a temporary file beside ``path``: a failed write
    leaves no half file."""
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        raise NavError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise NavError(f"cannot write {path}: {exc.strerror or exc}") from None


# -- baked .npz -----------------------------------------------------------------

def save_mesh(path, graph) -> None:
    """Bake ``graph`` (a ``NavMeshGraph`` or ``MeshArrays``) into an
    ``.npz`` file that ``load_mesh`` (and ``add_graph(...,
    mesh=path)``) reads back exactly; ``NavError`` if it cannot be
    written."""
    import io
    buf = io.BytesIO()
    np.savez(buf, format=np.array(NPZ_FORMAT), version=np.array(NPZ_VERSION, dtype=np.int64),
             vertices=np.ascontiguousarray(graph.vertices, dtype=np.float64),
             poly_start=np.ascontiguousarray(graph.poly_start, dtype=np.int32),
             poly_verts=np.ascontiguousarray(graph.poly_verts, dtype=np.int32),
             snap_distance=np.array(_snap_of(graph), dtype=np.float64),
             agent_radius=np.array(float(getattr(graph, "agent_radius", 0.0)),
                                   dtype=np.float64),
             ground=_wkb(getattr(graph, "ground", None)))
    _write_atomic(path, buf.getvalue())


def _wkb(geometry) -> np.ndarray:
    """uint8 WKB bytes of ``geometry`` (none for None)."""
    if geometry is None:
        return np.zeros(0, dtype=np.uint8)
    return np.frombuffer(shapely.to_wkb(geometry), dtype=np.uint8)


def _snap_of(mesh) -> float:
    """The snap distance a bake records: the graph's own, or for bare
    arrays the default ``NavMeshGraph.from_polygons`` gives."""
    snap = getattr(mesh, "snap_distance", None)
    if snap is None:
        snap = 1e-6 * max(float(np.ptp(np.asarray(mesh.vertices), axis=0).max()), 1.0)
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
    path = _readable(path)

    def fail(message):
        raise MeshFormatError(message, path=path)

    try:
        with zipfile.ZipFile(path) as z:
            members = {name: z.getinfo(name) for name in z.namelist()}
            names = sorted(n[:-4] if n.endswith(".npy") else n for n in members)
            unknown = [n for n in names if n not in _NPZ_SPEC]
            missing = [n for n in NPZ_ARRAYS if n not in names]
            if unknown or missing or len(names) != len(set(names)):
                fail(f"not a baked navcore mesh: it holds the arrays {names}, expected "
                     f"{list(NPZ_ARRAYS)}")
            for name in NPZ_ARRAYS:
                _check_npy_header(z, members[name + ".npy"], name, fail)
        with np.load(path, allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in NPZ_ARRAYS}
    except MeshFormatError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        fail(f"not a baked navcore mesh (.npz): {exc}")

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
    bad = ~np.isfinite(vertices).all(axis=1)
    if bad.any():
        fail(f"array 'vertices': vertex {np.flatnonzero(bad)[0]} is not finite")
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
    where = _Where(MeshFormatError, path, vertex_name="array 'vertices': vertex {}",
                   poly_name="array 'poly_verts': polygon {}")
    mesh = check_mesh(vertices, poly_start, poly_verts, where, may_reverse=False)
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


def _check_npy_header(z, info, name, fail) -> None:
    """Dtype and dimensions of one member, from its header, before numpy
    reads it: a forged shape never turns into a huge allocation."""
    dtype, ndim = _NPZ_SPEC[name]
    with z.open(info) as f:
        try:
            major, _ = np.lib.format.read_magic(f)
            if major not in (1, 2):
                raise ValueError(f"npy format version {major} is not read here")
            read = (np.lib.format.read_array_header_1_0 if major == 1
                    else np.lib.format.read_array_header_2_0)
            shape, _, got = read(f)
        except ValueError as exc:
            fail(f"array {name!r} is not a numpy array: {exc}")
    if (got != dtype and not (name == "format" and got.kind == "U")) or len(shape) != ndim:
        fail(f"array {name!r} must be {dtype.name if name != 'format' else 'a string'} "
             f"with {ndim} dimension{'s' * (ndim != 1)}, got {got} with shape {shape}")
    if math.prod(shape) * got.itemsize > info.file_size:
        fail(f"array {name!r} declares shape {shape}, more than the file holds")


# -- vertices= / polygons= -------------------------------------------------------

def mesh_arrays(vertices, polygons) -> MeshArrays:
    """A checked mesh from ``add_graph(..., vertices=, polygons=)``:
    ``vertices`` ``(V, 2)`` numbers, ``polygons`` a list of vertex-id
    lists or a ``(P, k)`` integer array padded at the end of rows with
    ``-1``. ``GraphError`` naming ``vertices[i]`` or ``polygons[p]``."""
    try:
        v = np.array(vertices, dtype=np.float64)
    except (TypeError, ValueError):
        raise GraphError(f"vertices must be (V, 2) numbers, got {vertices!r}") from None
    if v.ndim != 2 or v.shape[1] != 2 or len(v) < 3:
        raise GraphError(f"vertices must have shape (V, 2) with V >= 3, got {v.shape}")
    bad = ~np.isfinite(v).all(axis=1)
    if bad.any():
        i = np.flatnonzero(bad)[0]
        raise GraphError(f"vertices[{i}] is not finite: {v[i].tolist()}")
    rows = _polygon_rows(polygons)
    sizes, flat = [], []
    for p, row in enumerate(rows):
        pad = np.flatnonzero(row == -1)
        k = len(row) if pad.size == 0 else int(pad[0])
        if (row[k:] != -1).any():
            raise GraphError(f"polygons[{p}] has a vertex after its -1 padding: "
                             f"{row.tolist()}")
        if k < 3:
            raise GraphError(f"polygons[{p}] has {k} vertices; a polygon needs 3 or more")
        out = np.flatnonzero((row[:k] < 0) | (row[:k] >= len(v)))
        if out.size:
            raise GraphError(f"polygons[{p}] names vertex {row[out[0]]}, out of range for "
                             f"{len(v)} vertices")
        sizes.append(k)
        flat.append(row[:k])
    if not rows:
        raise GraphError("polygons must hold at least one polygon")
    poly_start = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=poly_start[1:])
    where = _Where(GraphError, vertex_name="vertices[{}]", poly_name="polygons[{}]")
    return check_mesh(v, poly_start, np.concatenate(flat), where)


def _polygon_rows(polygons) -> list:
    """``polygons`` as a list of int64 rows (an array's rows, or each item
    of a list), integers only."""
    if isinstance(polygons, np.ndarray):
        if polygons.ndim != 2 or not (np.issubdtype(polygons.dtype, np.integer)
                                      or polygons.size == 0):
            raise GraphError(f"polygons as an array must be (P, k) integers padded with -1,"
                             f" got {polygons.dtype} with shape {polygons.shape}")
        return list(polygons.astype(np.int64))
    if isinstance(polygons, (str, bytes)) or not hasattr(polygons, "__len__"):
        raise GraphError(f"polygons must be a list of vertex-id lists or a (P, k) integer "
                         f"array, got {polygons!r}")
    rows = []
    for p, row in enumerate(polygons):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or \
                not all(validate.is_int(i) for i in row):
            raise GraphError(f"polygons[{p}] must be a list of integer vertex ids, "
                             f"got {row!r}")
        rows.append(np.array([int(i) for i in row], dtype=np.int64))
    return rows


# -- one entry point -------------------------------------------------------------

def read_mesh(path) -> MeshArrays:
    """A Polyanya ``.mesh`` or a baked ``.npz``, told apart by content (an
    ``.npz`` is a zip archive), whatever the file is called."""
    head = _read_bytes(path, 4)
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
    from . import build
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
    try:
        r = float(agent_radius)
    except (TypeError, ValueError):
        raise GraphError(f"agent_radius must be a number, got {agent_radius!r}") from None
    if not math.isfinite(r) or r < 0:
        raise GraphError(f"agent_radius must be finite and >= 0, got {agent_radius!r}")
    if r == 0:
        return arrays, None
    free = build.shrink(union(arrays), r)
    v, triangles = build.triangulate(free)
    start = np.arange(0, triangles.size + 1, 3, dtype=np.int32)
    ground = arrays.ground if arrays.ground is not None else union(arrays)
    return MeshArrays(v, start, triangles.ravel(), arrays.snap_distance,
                      arrays.agent_radius + r, ground), free
