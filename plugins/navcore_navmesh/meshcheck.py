"""Mesh arrays and the checks every mesh passes, however it is given.

A mesh here is three flat arrays (``MeshArrays``), the layout of
``NavMeshGraph``: float64 ``vertices`` ``(V, 2)``, int32 ``poly_start``
``(P + 1,)`` and int32 ``poly_verts`` ``(E,)``; polygon ``p`` is
``poly_verts[poly_start[p]:poly_start[p + 1]]``, convex and
counter-clockwise (positive signed area in ``(x, y)``). Every reader (a
Polyanya ``.mesh``, ``polyanya_format``; a baked ``.npz``, ``bake``;
arrays, ``mesh_arrays``) checks all of that before a graph is built
(``check_mesh``), so no kernel meets an id out of range or a polygon of
the wrong shape.

``check_mesh`` finds a repeated vertex in a polygon, two vertices at one
point, a polygon with no area, one that is not convex (a corner turning
clockwise by more than ``CONVEX_TOLERANCE``, or a boundary that winds
round more than once), a mesh that mixes both windings and two polygons
on the same side of one edge (overlapping; so an edge of three polygons).
A mesh whose polygons are *all* clockwise is reversed as a whole (each
polygon's vertex order), unless the caller forbids it (bakes). A
T-junction (a vertex inside another polygon's wall edge, where two
polygons meet along part of an edge) is mended by putting the vertex into
that edge (``t_junctions``, ``split_edges``): the vertex is collinear, so
the polygon stays convex, and the part of the edge the two polygons share
becomes a shared edge that joins them, as Recast-like tools do; without
it the whole edge would be a wall. Polygon and vertex ids stay. A reader
whose format cannot hold the split (Polyanya files list one neighbour per
edge) refuses T-junctions instead. Not checked: polygons overlapping in
their interiors. Errors go through ``Where``, which
names the place as the source does: a file's line, an array entry
(``polygons[p]``) or an array of a baked file.

``mesh_arrays`` checks ``add_graph(..., vertices=, polygons=)``: vertices
``(V, 2)`` numbers, polygons a list of vertex-id lists or a ``(P, k)``
integer array padded with ``-1``; ``GraphError`` naming ``vertices[i]`` or
``polygons[p]``.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import shapely

from navcore import limits, validate
from navcore.errors import GraphError

from .mesh import next_edge

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

class Where:
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

    def polygon_name(self, p) -> str:
        """Polygon ``p`` as the source names it."""
        return self.poly_name.format(self.poly_id(int(p)))

    def polygon(self, p, message):
        p = int(p)
        line = None if self.poly_line is None else self.poly_line[p]
        self._raise(f"{self.polygon_name(p)} {message}", line)

    def whole(self, message):
        self._raise(message, None)


# -- the checks every mesh passes ------------------------------------------------

def check_mesh(vertices, poly_start, poly_verts, where: Where, may_reverse=True,
               split=True):
    """Check a mesh given as flat arrays (float64 finite vertices, int64
    or int32 polygon arrays with ids in range and at least 3 corners per
    polygon, which the callers check first) and return it as
    ``MeshArrays``: polygons all clockwise are reversed when
    ``may_reverse``; an edge with another polygon's vertex inside it (a
    T-junction) is split there when ``split`` (``t_junctions``), else
    refused; anything else wrong raises through ``where``."""
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
                        f"({number_text(vertices[b, 0])}, {number_text(vertices[b, 1])})")

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
                               f"{where.polygon_name(other)} is "
                               f"{turn_of[usual]}: a mesh winds all its polygons one way")
        poly_verts = _reverse_polygons(poly_start, poly_verts)  # same sizes, same nxt

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

    # T-junctions: a vertex inside another polygon's edge, where two
    # polygons meet along part of an edge without sharing it
    inside = t_junctions(vertices, poly_start, poly_verts)
    if inside[0].size:
        if not split:
            j, v = inside[0][0], inside[1][0]
            where.polygon(owner[j], f"has vertex {where.vid(v)} inside its edge from vertex "
                                    f"{where.vid(poly_verts[j])} to vertex "
                                    f"{where.vid(poly_verts[nxt[j]])} (a T-junction): "
                                    f"polygons must meet at whole edges, so that edge must "
                                    f"be split at vertex {where.vid(v)}")
        poly_start, poly_verts = split_edges(poly_start, poly_verts, inside[0], inside[1])
        n_poly, e = len(poly_start) - 1, len(poly_verts)
        owner = np.repeat(np.arange(n_poly), np.diff(poly_start))
        nxt = next_edge(poly_start, e).astype(np.int64)

    # an edge is shared by at most two polygons, which run along it in
    # opposite directions: two running the same way lie on the same side of
    # it and overlap (and of three polygons on an edge, two do)
    v_from, v_to = poly_verts, poly_verts[nxt]
    directed = v_from * len(vertices) + v_to
    order = np.argsort(directed, kind="stable")
    dup = np.flatnonzero(directed[order][1:] == directed[order][:-1])
    if dup.size:
        j, k = order[dup[0]], order[dup[0] + 1]
        where.polygon(owner[k], f"overlaps {where.polygon_name(owner[j])}:"
                                f" both run along the edge from vertex "
                                f"{where.vid(v_from[k])} to vertex {where.vid(v_to[k])}"
                                f" on the same side")
    return MeshArrays(vertices, poly_start.astype(np.int32), poly_verts.astype(np.int32))


def t_junctions(vertices, poly_start, poly_verts):
    """``(edges, inside, t)``: each wall edge (an edge no other polygon
    shares; by its position in ``poly_verts``) with a vertex of the mesh
    strictly inside it, that vertex, and where along the edge it lies
    (``0 < t < 1``), sorted by edge and ``t``. Such a vertex ends a wall
    of another polygon that runs along part of the edge: the two polygons
    meet there but, sharing no edge, would not be joined. A vertex counts
    as inside when the corner the edge would turn at it is straight
    within ``CONVEX_TOLERANCE`` (the sine of the turn), so that splitting
    the edge there keeps a convex polygon convex; the polygon's own
    vertices never count (a convex polygon has none inside its edges)."""
    e = len(poly_verts)
    none = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    nxt = next_edge(poly_start, e).astype(np.int64)
    a, b = poly_verts, poly_verts[nxt]
    key = np.minimum(a, b) * len(vertices) + np.maximum(a, b)
    _, inverse, count = np.unique(key, return_inverse=True, return_counts=True)
    wall = np.flatnonzero(count[inverse] == 1)
    if wall.size == 0:
        return none
    # a vertex inside a wall edge ends walls of its own: only those vertices
    ends = np.unique(np.concatenate([a[wall], b[wall]]))
    pa, pb = vertices[a[wall]], vertices[b[wall]]
    lo, hi = np.minimum(pa, pb), np.maximum(pa, pb)
    pad = 1e-9 * (hi - lo).max(axis=1, keepdims=True)
    tree = shapely.STRtree(shapely.points(vertices[ends]))
    w, k = tree.query(shapely.box(*(lo - pad).T, *(hi + pad).T))
    j, v = wall[w], ends[k]
    keep = (v != a[j]) & (v != b[j])
    j, v = j[keep], v[keep]
    d = vertices[b[j]] - vertices[a[j]]
    p = vertices[v] - vertices[a[j]]
    q = vertices[b[j]] - vertices[v]
    t = (p * d).sum(axis=1) / (d * d).sum(axis=1)
    lp, lq = np.hypot(p[:, 0], p[:, 1]), np.hypot(q[:, 0], q[:, 1])
    with np.errstate(invalid="ignore", divide="ignore"):
        sine = (p[:, 0] * q[:, 1] - p[:, 1] * q[:, 0]) / (lp * lq)
    keep = (t > 0) & (t < 1) & (np.abs(sine) <= CONVEX_TOLERANCE) & (lp > 0) & (lq > 0)
    j, v, t = j[keep], v[keep], t[keep]
    if j.size:
        owner = np.repeat(np.arange(len(poly_start) - 1), np.diff(poly_start))
        own = np.isin(owner[j] * len(vertices) + v, owner * len(vertices) + poly_verts)
        j, v, t = j[~own], v[~own], t[~own]
    order = np.lexsort((t, j))
    return j[order], v[order], t[order]


def split_edges(poly_start, poly_verts, edges, inside):
    """``(poly_start, poly_verts)`` with vertex ``inside[i]`` put into
    edge ``edges[i]`` (a position in ``poly_verts``: after that corner),
    in the order given (``t_junctions``: along each edge). Polygon ids,
    vertex ids and each polygon's first vertex stay."""
    e = len(poly_verts)
    position = np.concatenate([np.arange(e), np.asarray(edges, dtype=np.int64)])
    rank = np.concatenate([np.full(e, -1), np.arange(len(edges))])
    order = np.lexsort((rank, position))
    verts = np.concatenate([poly_verts, np.asarray(inside, dtype=poly_verts.dtype)])[order]
    owner = np.repeat(np.arange(len(poly_start) - 1), np.diff(poly_start))
    sizes = np.diff(poly_start) + np.bincount(owner[edges], minlength=len(poly_start) - 1)
    return poly_start_of(sizes), verts


def poly_start_of(sizes) -> np.ndarray:
    """int64 ``poly_start`` of polygons with ``sizes`` corners each."""
    poly_start = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=poly_start[1:])
    return poly_start


def _reverse_polygons(poly_start, poly_verts):
    """Each polygon's vertex order reversed (its first vertex stays first)."""
    sizes = np.diff(poly_start)
    start = np.repeat(poly_start[:-1], sizes)
    k = np.arange(len(poly_verts)) - start                 # position in its polygon
    src = start + (sizes.repeat(sizes) - k) % sizes.repeat(sizes)
    return poly_verts[src]


def number_text(x) -> str:
    """A coordinate as written in messages and v2 files: the shortest text
    that reads back as the same float, integers without ``.0``."""
    r = repr(float(x))
    return r[:-2] if r.endswith(".0") else r


# -- vertices= / polygons= -------------------------------------------------------

def mesh_arrays(vertices, polygons) -> MeshArrays:
    """A checked mesh from ``add_graph(..., vertices=, polygons=)``:
    ``vertices`` ``(V, 2)`` numbers, ``polygons`` a list of vertex-id
    lists or a ``(P, k)`` integer array padded at the end of rows with
    ``-1``. ``GraphError`` naming ``vertices[i]`` or ``polygons[p]``."""
    try:
        v = np.array(vertices, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise GraphError(f"vertices must be (V, 2) numbers, got {vertices!r}") from None
    if v.ndim != 2 or v.shape[1] != 2 or len(v) < 3:
        raise GraphError(f"vertices must have shape (V, 2) with V >= 3, got {v.shape}")
    bad = ~(np.abs(v) <= limits.MAX_COORDINATE).all(axis=1)       # NaN fails too
    if bad.any():
        i = np.flatnonzero(bad)[0]
        raise GraphError(f"vertices[{i}] is not finite or lies beyond "
                         f"±{limits.MAX_COORDINATE:g}: {v[i].tolist()}")
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
    poly_start = poly_start_of(sizes)
    where = Where(GraphError, vertex_name="vertices[{}]", poly_name="polygons[{}]")
    return check_mesh(v, poly_start, np.concatenate(flat), where)


def _polygon_rows(polygons) -> list:
    """``polygons`` as a list of int64 rows (an array's rows, or each item
    of a list), integers only."""
    if isinstance(polygons, np.ndarray):
        if polygons.ndim != 2 or not (validate.int_dtype(polygons.dtype)
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
        huge = next((i for i in row if not -2 ** 62 < int(i) < 2 ** 62), None)
        if huge is not None:                 # numpy: "too large to convert to C long"
            raise GraphError(f"polygons[{p}] names vertex {huge}, beyond any vertex id")
        rows.append(np.array([int(i) for i in row], dtype=np.int64))
    return rows

