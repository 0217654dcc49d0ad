"""Polyanya ``.mesh`` files: read v2 and v3 (``read_polyanya_mesh``), write
v2 (``write_polyanya_mesh``), checked as every mesh is (``meshcheck``).

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
  file and line, and so is a T-junction (a vertex inside another
  polygon's edge: the file's neighbour lists name one polygon across each
  edge, so polygons must meet at whole edges). Not checked: polygons
  overlapping in their interiors.

``write_polyanya_mesh(path, graph)`` writes v2 for Polyanya's C++ (its
``scenariorunner``): unused vertices are dropped (Polyanya wants two
neighbours or more at each vertex), and each vertex lists its polygons in
the same rotational sense as the polygons list their vertices (after a
polygon comes the one across its edge that ends at the vertex), one
``-1`` per gap of obstacle between two fans of polygons, as in Polyanya's
own ``arena.mesh``; Polyanya counts those ``-1`` to find corners (one or
more) and ambiguous pinch vertices (two or more).

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
import re

import numpy as np

from navcore import limits
from navcore.errors import MeshFormatError

from .fileio import mesh_to_write, read_bytes, write_atomic
from .mesh import match_edges, next_edge, prev_edge
from .meshcheck import MeshArrays, Where, check_mesh, number_text, poly_start_of

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
        if len(tok.lstrip(b"+-").lstrip(b"0")) > limits.MAX_INT_DIGITS:  # int() stops at 4300
            self.fail(f"{what} has {len(tok)} digits; a number may have at most "
                      f"{limits.MAX_INT_DIGITS}", line)
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
    return parse_polyanya_mesh(read_bytes(path), path=path)


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
    poly_start = poly_start_of(sizes)
    poly_verts = np.array(verts, dtype=np.int64)
    one = 1 if version == 3 else 0
    where = Where(MeshFormatError, path, vline, pline,
                   "vertex {}", "face {}" if version == 3 else "polygon {}",
                   vertex_id=lambda i: i + one, poly_id=lambda p: label[p])
    mesh = check_mesh(vertices, poly_start, poly_verts, where, split=False)
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
    prev = prev_edge(poly_start, len(poly_verts))
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
    if version == 3 and said[j] == -2:
        where.polygon(owner, f"names face {nbs[j]} as a traversable neighbour across the "
                             f"edge from vertex {a} to vertex {b}, but face {nbs[j]} is not "
                             f"traversable")
    if shared[j] < 0:
        where.polygon(owner, f"names {where.polygon_name(said[j])} as its neighbour across "
                             f"the edge from vertex {a} to vertex {b}, but they do not share "
                             f"that edge")
    other = where.polygon_name(shared[j])
    if said[j] < 0:
        lists = (f"marks the edge from vertex {a} to vertex {b} as not traversable "
                 f"({nbs[j]})" if version == 3 else
                 f"lists no neighbour (-1) across the edge from vertex {a} to vertex {b}")
        where.polygon(owner, f"{lists}, but {other} shares that edge (navcore joins "
                             f"polygons that share an edge)")
    where.polygon(owner, f"names {where.polygon_name(said[j])} as its neighbour across the "
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
    nxt = next_edge(poly_start, len(poly_verts))
    prev = prev_edge(poly_start, len(poly_verts))
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
            _walk_fan(s, after_l, owner_l, seen, out)
            out.append(-1)
        for s in corners.tolist():            # inner vertex: one cycle, no wall
            _walk_fan(s, after_l, owner_l, seen, out)
        lists.append(out)
    return used, lists


def _walk_fan(c, after, owner, seen, out) -> None:
    """Append to ``out`` the polygons round a vertex from corner ``c`` on,
    until a wall (``after`` is -1) or a corner already ``seen``."""
    while c >= 0 and c not in seen:
        seen.add(c)
        out.append(owner[c])
        c = after[c]


def polyanya_v2_text(mesh) -> str:
    """The Polyanya v2 text of ``mesh`` (a ``NavMeshGraph`` or
    ``MeshArrays``); see ``write_polyanya_mesh``."""
    mesh = mesh_to_write(mesh, "polyanya_v2_text(mesh)")
    poly_start = np.asarray(mesh.poly_start, dtype=np.int64)
    poly_verts = np.asarray(mesh.poly_verts, dtype=np.int64)
    vertices = np.asarray(mesh.vertices, dtype=np.float64)
    used, lists = vertex_polygons(mesh)
    renumber = np.full(len(vertices), -1, dtype=np.int64)
    renumber[used] = np.arange(len(used))
    adj, _ = match_edges(poly_start, poly_verts, len(vertices))
    prev = prev_edge(poly_start, len(poly_verts))
    nb = adj[prev]                        # Polyanya: across the edge ending at vertex j
    out = ["mesh", "2", f"{len(used)} {len(poly_start) - 1}"]
    for v, polys in zip(used.tolist(), lists):
        x, y = vertices[v]
        out.append(f"{number_text(x)} {number_text(y)} {len(polys)} {' '.join(map(str, polys))}")
    ids = renumber[poly_verts].tolist()
    nb = nb.tolist()
    for a, b in zip(poly_start[:-1].tolist(), poly_start[1:].tolist()):
        out.append(f"{b - a} {' '.join(map(str, ids[a:b]))} {' '.join(map(str, nb[a:b]))}")
    return "\n".join(out) + "\n"


def write_polyanya_mesh(path, graph=None) -> None:
    """Write ``graph`` (a ``NavMeshGraph`` or ``MeshArrays``) as a Polyanya
    v2 ``.mesh`` file that Polyanya's C++ reads (see the module
    docstring); ``NavError`` if the file cannot be written, or ``graph``
    is missing or not a mesh."""
    graph = mesh_to_write(graph, "write_polyanya_mesh(path, graph)")
    write_atomic(path, polyanya_v2_text(graph).encode())

