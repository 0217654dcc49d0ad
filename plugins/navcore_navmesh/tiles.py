"""A navmesh built in square tiles, so that obstacles can come and go.

The idea is DetourTileCache's (Recast/Detour): cut the world into square
tiles, triangulate each tile on its own, and when something changes build
again only the tiles it touches and link their borders to the neighbours.

**Tiles.** A ``TileGrid`` of square tiles of side ``tile_size`` on the
lines ``x = k * tile_size``, ``y = k * tile_size``. The walkable space,
shrunk by the agent radius, is clipped to each tile (its *base* piece,
kept for the graph's life); the grown obstacles that reach a tile (those
of the build and those added since, grown as one where they overlap) and
the blocked regions are cut from it, and the pieces are cut into
constrained Delaunay triangles by shapely (GEOS), one call for all of
them. An update cuts a tile's base piece again and triangulates that.

**Borders match exactly.** Two tiles meet along a grid line, and a
triangle edge on that line must have the same two vertices in both tiles
(vertices are identified by exact coordinates), or the tiles are not
neighbours there. So every geometry that enters a tile (the free space,
each grown obstacle, the blocked regions) is first *noded* with the grid
(``node_with_grid``): wherever one of its edges crosses a grid line a
vertex is inserted whose coordinate on the line is exactly the line's
(``x == xs[i]``), the other computed once, from the edge's endpoints in a
fixed order. GEOS clipping and differences then meet the line only at
existing vertices, which it keeps bit for bit (a vertex on a segment is an
exact intersection), so both tiles see the same border vertices. A
crossing within ``TileGrid.snap`` (``1e-9`` tile sizes) of a tile corner
is put on the corner, so no ring slips past a corner by a rounding error,
and a vertex that close to a line is put on it (else it makes a sliver
triangle with the crossing one rounding error beside it). Pieces are
clipped with ``shapely.intersection`` (``clip_by_rect`` is faster but
drops the vertices of walls that run along a border, so its tiles would
not match). The tests check that a mesh built in tiles has the free
space's boundary as its walls and nothing more, and the same connectivity
and shortest lengths as one built whole.

**Merged within tiles.** Each tile's triangles are merged into convex
polygons of at most ``merge.MAX_SIDES`` corners (Hertel-Mehlhorn, as a
static mesh: ``_tiles.merge_tiles`` over ``_merge.merge_loops``), at build
and whenever an update re-triangulates the tile: only diagonals between
two triangles of the same tile go, so every edge on a tile border, and
every vertex, stays as the triangles had it and the borders keep matching
exactly. One numba call merges all the new triangles of a batch.
``merge=False`` keeps the triangles (slots of 3 corners).

**Node ids.** A node is a *slot*: one convex polygon. Slots of tiles an
update does not touch keep their ids and their polygons. A
re-triangulated tile's slots retire: they become empty polygons, not
walkable, without edges (so a stored path through one costs ``inf`` and
is planned again), and join the free list after the batch; new polygons
take free slots retired by *earlier* batches (lowest first) and append
after the last slot otherwise, so ``num_nodes`` may grow. Never reusing a
slot in the batch that retired it means that after any batch an id in a
stored path names either its old polygon or a retired slot, never
silently another polygon. Vertices are counted per tile that uses them
and their ids are reused as soon as no tile does.

**Dirty nodes** of a batch: the retired slots, the new ones, and the
slots of untouched neighbour tiles whose edges were linked anew.

**Tile size.** ``tile_size=None`` picks a power of two holding about
``TILE_VERTICES`` free-space vertices per tile (``choose_tile_size``; see
that constant for the measurement); pass a number (world units) to
choose; a size larger than the map makes one tile.

**Queries.** Tiling adds polygons along tile borders, where no merge
may cross: on the 10,000-vertex benchmark scene at the default size
7,483 merged polygons against 5,297 when the whole map is one tile
(+41%; triangles: 13,208, +13% over one tile). An exact search finds the
same lengths on a tiled mesh (its walls are the free space's boundary),
nearly as fast as on the static mesh: ``path_lengths`` over the shared
any-angle benchmark maps takes about 1.1 us a query on ``arena`` (65
polygons; static 53, 1.0 us; tiled triangles 234, 1.8 us) and 5.2 us on
``den312d`` (164; static 147, 4.4 us; tiled triangles 670, 12.5 us)
(bench/navmesh_tiles.py, BENCHMARKS.md). The funnel (A* over centroids, then string
pulling) picks other corridors on other polygons: its mean excess over
the exact length stays about the same (1.1% against 1.0% whole on
``arena``, 0.2% against 0.1% on ``den312d``); its worst cases differ from
map to map and size to size (``arena``: 32% against 32% whole;
``den312d``: 7% against 4%, 14% on tiled triangles).
"""
from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry import MultiPolygon, Polygon, box

import navcore
from navcore import limits
from navcore.errors import GraphError
from navcore.graph import build_storage

from . import _tiles as K
from .build import check_vertices, geos_triangles, split_flat
from .merge import MAX_SIDES
from .mesh import (LOCATE_KEY, NavMeshGraph, index_points, index_radius, index_xy, match_edges,
                   size_scale)

#: Free-space vertices per tile that ``tile_size=None`` aims at (the side
#: is then rounded down to a power of two, so a tile holds 1/4 to all of
#: it). Measured with bench/navmesh_tiles.py on a 10,000-vertex room of
#: convex obstacles (sizes 8 / 16 / 32 / one tile): triangles +39% / +13%
#: / +5% / 0 over the whole mesh; an obstacle added or removed 1.5 / 1.5
#: / 2.1 / 147 ms; the 1,000-vertex build slowest with the smallest
#: tiles. Targets 32 to 96 all give 16 there; 48 sits in the middle.
#: With the tiles merged into convex polygons (sizes 8 / 16 / 32 / one
#: tile): polygons +89% / +41% / +17% / 0 over the merged whole mesh; an
#: update 1.6 / 1.4 to 2.2 (load) / 2.9 / 170 ms: 16 stays.
TILE_VERTICES = 48
#: crossings this close to a tile corner (in tile sizes) are put on it
CORNER_SNAP = 1e-9


# -- the grid ------------------------------------------------------------------

class TileGrid:
    """Square tiles of side ``size`` over the box ``bounds``, on the lines
    ``x = k * size`` and ``y = k * size`` (integer ``k``): round
    coordinates, so a grid map's walls (on integer coordinates) never run
    a fraction of a unit beside a tile border, which would leave a thin
    band of long triangles there.

    Tile ``(i, j)`` (id ``j * nx + i``) covers ``[xs[i], xs[i + 1]] x
    [ys[j], ys[j + 1]]``; the line coordinates are computed once and used
    everywhere, so two tiles agree on their common border bit for bit."""

    def __init__(self, bounds, size):
        x0, y0, x1, y1 = (float(b) for b in bounds)
        # a tile as large as the map is the map: one tile, as wide as it
        if max(x1 - x0, y1 - y0) > 0 and float(size) >= max(x1 - x0, y1 - y0):
            size = max(x1 - x0, y1 - y0)
            self.xs = np.array([x0, x0 + size])
            self.ys = np.array([y0, y0 + size])
        else:
            size = float(size)
            self.xs = self._lines(x0, x1, size)
            self.ys = self._lines(y0, y1, size)
        self.size = float(size)
        self.x1, self.y1 = x1, y1
        self.bounds = (x0, y0, x1, y1)
        self.nx, self.ny = len(self.xs) - 1, len(self.ys) - 1
        self.x0, self.y0 = float(self.xs[0]), float(self.ys[0])
        #: how close to a line a vertex or crossing is put on it: rounding
        #: errors, relative to the tiles (or the map, when one tile holds
        #: it), never less than a few units in the last place
        far = max(abs(self.xs[0]), abs(self.xs[-1]), abs(self.ys[0]), abs(self.ys[-1]))
        self.snap = max(CORNER_SNAP * min(size, max(x1 - x0, y1 - y0)),
                        8 * float(np.spacing(far)))

    @staticmethod
    def _lines(lo, hi, size):
        k0 = math.floor(lo / size)
        k1 = max(math.ceil(hi / size), k0 + 1)
        lines = size * np.arange(k0, k1 + 1, dtype=np.float64)
        while lines[0] > lo:                             # rounding
            k0 -= 1
            lines = size * np.arange(k0, k1 + 1, dtype=np.float64)
        while lines[-1] < hi:
            k1 += 1
            lines = size * np.arange(k0, k1 + 1, dtype=np.float64)
        return lines

    @property
    def count(self) -> int:
        return self.nx * self.ny

    def block(self, bounds):
        """``(i0, i1, j0, j1)``, inclusive: the tiles whose closed square
        meets the closed box ``bounds``; ``None`` when none does."""
        bx0, by0, bx1, by1 = bounds
        xs, ys = self.xs, self.ys
        if not (bx1 >= xs[0] and bx0 <= xs[-1] and by1 >= ys[0] and by0 <= ys[-1]):
            return None
        i0 = max(int(np.searchsorted(xs, bx0, side="left")) - 1, 0)
        i1 = min(int(np.searchsorted(xs, bx1, side="right")) - 1, self.nx - 1)
        j0 = max(int(np.searchsorted(ys, by0, side="left")) - 1, 0)
        j1 = min(int(np.searchsorted(ys, by1, side="right")) - 1, self.ny - 1)
        return i0, i1, j0, j1

    def tiles(self, bounds) -> np.ndarray:
        """int64 ids of the tiles ``block(bounds)`` names."""
        b = self.block(bounds)
        if b is None:
            return np.empty(0, dtype=np.int64)
        i0, i1, j0, j1 = b
        jj, ii = np.mgrid[j0:j1 + 1, i0:i1 + 1]
        return (jj * self.nx + ii).ravel().astype(np.int64)

    def boxes(self, ids) -> tuple:
        """``(x0, y0, x1, y1)`` arrays of the tiles ``ids``, cut off at the
        grid's ``bounds`` (the last tiles may reach past them: a clip box
        far larger than the geometry makes GEOS fall back to snapping with
        a tolerance that scales with the box)."""
        ids = np.asarray(ids, dtype=np.int64)
        i, j = ids % self.nx, ids // self.nx
        x0, y0, x1, y1 = self.bounds
        return (np.maximum(self.xs[i], x0), np.maximum(self.ys[j], y0),
                np.minimum(self.xs[i + 1], x1), np.minimum(self.ys[j + 1], y1))

    def ring(self, ids) -> np.ndarray:
        """The tiles that touch ``ids`` (sides or corners) but are not in it."""
        ids = [int(t) for t in ids]
        inside = set(ids)
        nx, ny = self.nx, self.ny
        near = set()
        for t in ids:
            i, j = t % nx, t // nx
            for b in range(max(j - 1, 0), min(j + 2, ny)):
                for a in range(max(i - 1, 0), min(i + 2, nx)):
                    near.add(b * nx + a)
        return np.array(sorted(near - inside), dtype=np.int64)


def choose_tile_size(free, target=None, extra: int = 0) -> float:
    """The tile side ``tile_size=None`` means: the power of two (``... 0.5,
    1, 2, 4 ...``) at or just below the side of a square holding about
    ``target`` (``TILE_VERTICES``) of the free space's vertices on
    average; the whole free space when it has fewer. Powers of two are
    exact in binary and, from 1 up, whole numbers, so tile lines fall on
    a grid map's cell lines, never a fraction of a cell beside a wall."""
    target = TILE_VERTICES if target is None else target
    x0, y0, x1, y1 = free.bounds
    w, h = x1 - x0, y1 - y0
    count = int(shapely.get_num_coordinates(free)) + int(extra)   # + obstacles' vertices
    whole = max(w, h)
    if count <= target or whole <= 0:
        return float(whole) if whole > 0 else 1.0
    side = math.sqrt(w * h * target / count)
    return float(min(2.0 ** math.floor(math.log2(side)), whole))


# -- geometry: noding, clipping, triangles ---------------------------------------

def _crossings(p, q, lines, axis, other_lines, snap):
    """Points where segments ``p[i] -> q[i]`` cross the lines
    ``coordinate[axis] == lines[k]`` strictly between their ends: (segment
    index, point). The point's ``axis`` coordinate is the line's exactly;
    the other is computed from the segment's endpoints in lexicographic
    order, so the same segment in any ring gives the same bits. A crossing
    within ``snap`` of a line of the other family is put on the corner."""
    lo = np.minimum(p[:, axis], q[:, axis])
    hi = np.maximum(p[:, axis], q[:, axis])
    first = np.searchsorted(lines, lo, side="right")
    count = np.maximum(np.searchsorted(lines, hi, side="left") - first, 0)
    total = int(count.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64), np.empty((0, 2))
    seg = np.repeat(np.arange(len(p)), count)
    k = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
    c = lines[first[seg] + k]
    a, b = p[seg], q[seg]
    swap = (a[:, 0] > b[:, 0]) | ((a[:, 0] == b[:, 0]) & (a[:, 1] > b[:, 1]))
    a, b = np.where(swap[:, None], b, a), np.where(swap[:, None], a, b)
    o = 1 - axis
    v = a[:, o] + (c - a[:, axis]) * (b[:, o] - a[:, o]) / (b[:, axis] - a[:, axis])
    if other_lines.size:
        near = np.clip(np.searchsorted(other_lines, v), 1, other_lines.size - 1)
        cand = np.where(np.abs(other_lines[near - 1] - v) <= np.abs(other_lines[near] - v),
                        other_lines[near - 1], other_lines[near])
        v = np.where(np.abs(cand - v) <= snap, cand, v)
    pt = np.empty((total, 2))
    pt[:, axis] = c
    pt[:, o] = v
    return seg, pt


def _no_line_between(lines, lo, hi) -> bool:
    """Whether no value of the sorted ``lines`` lies in ``[lo, hi]``."""
    i = int(np.searchsorted(lines, lo, side="left"))
    return i == len(lines) or lines[i] > hi


def _snap_to_lines(coords, grid, snap) -> bool:
    """Put the coordinates within ``snap`` of a tile line on it (in place):
    a vertex a rounding error off a border would make a sliver triangle
    between it and the border crossing next to it. Whether any moved."""
    moved = False
    for axis, lines in ((0, grid.xs), (1, grid.ys)):
        v = coords[:, axis]
        i = np.clip(np.searchsorted(lines, v), 1, lines.size - 1)
        near = np.where(np.abs(lines[i - 1] - v) <= np.abs(lines[i] - v), lines[i - 1], lines[i])
        fix = (np.abs(near - v) <= snap) & (near != v)
        if fix.any():
            v[fix] = near[fix]
            moved = True
    return moved


def node_with_grid(geom, grid):
    """``geom`` (polygonal) with a vertex wherever an edge crosses a tile
    line (see the module docs); its polygons otherwise unchanged."""
    x0, y0, x1, y1 = shapely.bounds(geom)
    snap = grid.snap
    if _no_line_between(grid.xs, x0 - snap, x1 + snap) and \
            _no_line_between(grid.ys, y0 - snap, y1 + snap):
        return geom                     # inside one tile, away from its border
    parts = shapely.get_parts(geom)
    parts = parts[shapely.get_type_id(parts) == 3]          # polygons
    if parts.size == 0:
        return geom
    polys = _noded_parts(parts, grid)
    if polys is None:
        return geom
    return polys[0] if len(polys) == 1 else MultiPolygon(list(polys))


def node_many(geoms, grid) -> np.ndarray:
    """``node_with_grid`` of each of ``geoms`` (polygonal), in one pass
    over all their vertices: an object array, one geometry per input."""
    parts, owner = shapely.get_parts(np.asarray(geoms, dtype=object), return_index=True)
    keep = shapely.get_type_id(parts) == 3
    parts, owner = parts[keep], owner[keep]
    out = np.empty(len(geoms), dtype=object)
    out[:] = list(geoms)
    if parts.size == 0:
        return out
    polys = _noded_parts(parts, grid)
    if polys is None:
        return out
    for i in np.unique(owner).tolist():
        mine = polys[owner == i]
        out[i] = mine[0] if len(mine) == 1 else MultiPolygon(list(mine))
    return out


def _noded_parts(parts, grid):
    """The polygons ``parts`` with a vertex wherever an edge crosses a tile
    line (and corners within ``grid.snap`` of a line moved onto it), one
    per part; None when none changes."""
    snap = grid.snap
    rings, pidx = shapely.get_rings(parts, return_index=True)
    coords, ridx = shapely.get_coordinates(rings, return_index=True)
    moved = _snap_to_lines(coords, grid, snap)
    seg = np.flatnonzero(ridx[1:] == ridx[:-1])             # coords[s] -> coords[s + 1]
    p, q = coords[seg], coords[seg + 1]
    s1, pt1 = _crossings(p, q, grid.xs, 0, grid.ys, snap)
    s2, pt2 = _crossings(p, q, grid.ys, 1, grid.xs, snap)
    if s1.size + s2.size == 0 and not moved:
        return None
    s = np.concatenate([s1, s2])
    pt = np.concatenate([pt1, pt2])
    d = q[s] - p[s]
    t = ((pt - p[s]) * d).sum(axis=1) / (d * d).sum(axis=1)
    # every original point (t = -1, before its segment's crossings), then
    # the crossings, by position and by distance along the segment
    where = np.concatenate([np.arange(len(coords)), seg[s]])
    along = np.concatenate([np.full(len(coords), -1.0), t])
    order = np.lexsort((along, where))
    pts = np.concatenate([coords, pt])[order]
    ring_of = np.concatenate([ridx, ridx[seg[s]]])[order]
    keep = np.ones(len(pts), dtype=bool)          # corner snaps can repeat a point
    keep[1:] = ~((pts[1:] == pts[:-1]).all(axis=1) & (ring_of[1:] == ring_of[:-1]))
    new_rings = shapely.linearrings(pts[keep], indices=ring_of[keep])
    return shapely.polygons(new_rings, indices=pidx)


def _polygonal(geoms):
    """The polygons of each geometry (an overlay may leave lines or
    points where things touch), as one geometry each; ``None`` where
    none is left."""
    out = np.empty(len(geoms), dtype=object)
    parts, idx = shapely.get_parts(geoms, return_index=True)
    ok = (shapely.get_type_id(parts) == 3) & (shapely.area(parts) > 0)
    parts, idx = parts[ok], idx[ok]
    for i in np.unique(idx).tolist():
        sel = parts[idx == i]
        out[i] = sel[0] if sel.size == 1 else MultiPolygon(list(sel))
    return out


#: vertices x tiles of one shell beyond which ``clip_to_tiles`` halves it
HALVING_FROM = 1 << 16


def _halve(geom, grid, block, out: dict) -> None:
    """The polygonal part of ``geom`` in each tile of ``block`` (``(i0,
    i1, j0, j1)``, inclusive) into ``out[tile]``: cut in two across the
    longer side of the block, each half in turn, down to single tiles."""
    i0, i1, j0, j1 = block
    if i0 == i1 and j0 == j1:
        out[j0 * grid.nx + i0] = geom
        return
    if i1 - i0 >= j1 - j0:
        m = (i0 + i1) // 2
        halves = ((i0, m, j0, j1), (m + 1, i1, j0, j1))
    else:
        m = (j0 + j1) // 2
        halves = ((i0, i1, j0, m), (i0, i1, m + 1, j1))
    bx0, by0, bx1, by1 = grid.bounds
    for a0, a1, b0, b1 in halves:
        x0, x1 = max(grid.xs[a0], bx0), min(grid.xs[a1 + 1], bx1)
        y0, y1 = max(grid.ys[b0], by0), min(grid.ys[b1 + 1], by1)
        part = _polygonal(np.array([shapely.intersection(geom, box(x0, y0, x1, y1))],
                                   dtype=object))[0]
        if part is not None:
            _halve(part, grid, (a0, a1, b0, b1), out)


def clip_to_tiles(geom, grid):
    """Object array, one entry per tile: the part of ``geom`` (noded with
    the grid) inside the tile, ``None`` where it has none.

    For each polygon of ``geom`` and tile its box meets: the tile's box cut
    from the polygon's outer ring, minus those of its holes that reach the
    tile (STRtrees find both pairs). Clipping the whole polygon to every
    tile would walk all its holes once per tile. Holes are subtracted per
    polygon: an island may lie in another polygon's hole."""
    out = np.empty(grid.count, dtype=object)
    parts = shapely.get_parts(geom)
    parts = parts[shapely.get_type_id(parts) == 3]
    if parts.size == 0:
        return out
    rings, owner = shapely.get_rings(parts, return_index=True)
    first = np.ones(len(rings), dtype=bool)
    first[1:] = owner[1:] != owner[:-1]
    shells = shapely.polygons(rings[first])
    holes, hole_of = shapely.polygons(rings[~first]), owner[~first]
    boxes = shapely.box(*grid.boxes(np.arange(grid.count)))
    t_s, s_i = shapely.STRtree(shells).query(boxes, predicate="intersects")
    if t_s.size == 0:
        return out
    order = np.lexsort((s_i, t_s))
    t_s, s_i = t_s[order], s_i[order]
    # a shell of many vertices over many tiles is cut by halving (one pass
    # over its vertices per halving): cut per tile it costs vertices x tiles
    # (a strip of 16k tiles took 43 s)
    work = shapely.get_num_coordinates(shells)[s_i] * np.bincount(s_i, minlength=len(shells))[s_i]
    halve = work > HALVING_FROM
    cut = np.empty(len(t_s), dtype=object)
    cut[~halve] = _polygonal(shapely.intersection(shells[s_i[~halve]], boxes[t_s[~halve]]))
    for i in np.unique(s_i[halve]).tolist():
        pieces = {}
        _halve(shells[i], grid, grid.block(shells[i].bounds), pieces)
        k = np.flatnonzero(s_i == i)
        cut[k] = [pieces.get(t) for t in t_s[k].tolist()]
    if holes.size:
        # the holes of the pair's polygon that reach the pair's tile
        t_h, h_i = shapely.STRtree(holes).query(boxes, predicate="intersects")
        key = t_s * parts.size + s_i                        # sorted
        hkey = t_h * parts.size + hole_of[h_i]
        pos = np.searchsorted(key, hkey)
        ok = pos < key.size
        ok[ok] = key[pos[ok]] == hkey[ok]
        pos, h_i = pos[ok], h_i[ok]
        has = np.unique(pos)
        has = has[np.array([cut[i] is not None for i in has], dtype=bool)]
        sel = np.isin(pos, has)
        if has.size:
            cutters = shapely.multipolygons(holes[h_i[sel]],
                                            indices=np.searchsorted(has, pos[sel]))
            cut[has] = _polygonal(shapely.difference(cut[has], cutters))
    # the pieces of each tile, from polygons that are disjoint: one geometry
    for t in np.unique(t_s).tolist():
        lo, hi = np.searchsorted(t_s, [t, t + 1])
        got = [g for g in cut[lo:hi] if g is not None]
        if len(got) == 1:
            out[t] = got[0]
        elif got:
            out[t] = MultiPolygon([p for g in got for p in shapely.get_parts(g)])
    return out


def triangulate_pieces(pieces):
    """``(coords, owner)``: float64 ``(T, 3, 2)`` counter-clockwise
    triangles of the constrained Delaunay triangulation of each piece
    (GEOS, one call) and the index of the piece each came from. A triangle
    without area in floating point is replaced by splitting its neighbour
    (``build.split_flat``), so the mesh is not cut along it. A piece GEOS
    cannot triangulate is a ``GraphError`` naming where it lies
    (``build.geos_triangles``)."""
    if len(pieces) == 0:
        return np.empty((0, 3, 2)), np.empty(0, dtype=np.int64)
    try:
        tris, owner = shapely.get_parts(shapely.constrained_delaunay_triangles(pieces),
                                        return_index=True)
    except shapely.errors.GEOSException:   # some piece GEOS cannot take: one by one
        each = [shapely.get_parts(geos_triangles(
            p, "another tile_size cuts the free space elsewhere")) for p in pieces]
        tris = np.concatenate(each)
        owner = np.repeat(np.arange(len(each)), [len(t) for t in each])
    coords = shapely.get_coordinates(tris).reshape(-1, 4, 2)[:, :3, :]
    a, b, c = coords[:, 0], coords[:, 1], coords[:, 2]
    area2 = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
    flip = area2 < 0
    coords[flip] = coords[flip][:, [0, 2, 1]]
    owner = owner.astype(np.int64)
    if area2.all():
        return np.ascontiguousarray(coords), owner
    # GEOS saw three corners where the arithmetic here sees a line: split
    # the neighbour across the flat one's long edge (build.split_flat)
    # rather than cut the mesh there; pieces never share a triangle edge
    vertices, inverse = np.unique(coords.reshape(-1, 2), axis=0, return_inverse=True)
    tri, origin = split_flat(vertices, inverse.reshape(-1, 3), area2 == 0)
    return np.ascontiguousarray(vertices[tri]), owner[origin]


# -- the tiled mesh --------------------------------------------------------------

def _split(values, groups, ngroups):
    """``values`` grouped by ``groups`` (ids below ``ngroups``), each group
    in ascending order of value: a list of int32 arrays."""
    order = np.lexsort((values, groups))
    counts = np.bincount(groups, minlength=ngroups)
    return np.split(values[order].astype(np.int32), np.cumsum(counts)[:-1])


class TiledMesh:
    """The tile state of one tiled ``NavMeshGraph`` (``graph.tiles``).

    Slots are convex polygons of at most ``width`` corners
    (``merge.MAX_SIDES`` when the tiles' triangles are merged, 3 when not),
    in rows padded with ``-1``. Per slot (node id) ``p``: ``poly[p,
    :nside[p]]`` (its polygon's vertex ids, counter-clockwise; ``nside[p]``
    is 0 for a retired slot), ``adj[p, k]`` / ``opp[p, k]`` (the slot
    across edge ``k``, from corner ``k`` to the next, and that edge's index
    there, ``-1`` for a wall), ``ecost[p, k]`` (the cost of crossing it),
    ``tile_of[p]`` (``-1``: a retired slot), ``cent[p]`` (its area
    centroid). Per tile ``t``: ``base[t]``
    (the shrunk walkable space in it), ``piece[t]`` (what is left of it now),
    ``tile_polys[t]`` and ``tile_verts[t]`` (its slots and vertex ids),
    ``tile_obs[t]`` (``{id(cluster): Cluster}`` of the obstacle clusters
    that reach it, ``obstacles.Cluster``; key ``-1``: those reaching no
    tile). ``obstacles`` maps the ids of obstacles added at run time to
    ``Obstacle``, ``static`` those of the build's ``obstacles=`` (ids
    ``obstacles.StaticId``), ``clusters`` both to the ``Cluster`` each is in. The graph's flat arrays are assembled from these after every
    batch (``mesh_arrays``, over ``_tiles.assemble``) and handed to
    ``NavMeshGraph.replace_mesh``."""

    def __init__(self, grid, radius, base, merge=True):
        self.grid = grid
        self.radius = float(radius)
        #: whether each tile's triangles are merged into convex polygons
        self.merge = bool(merge)
        #: the most corners a slot has (its rows' length)
        self.width = MAX_SIDES if self.merge else 3
        self.base = base
        self.piece = base.copy()
        self.obstacles = {}            # id -> Obstacle, added at run time
        self.static = {}               # obstacles.StaticId -> Obstacle, of the build
        self.clusters = {}             # id -> Cluster (of overlapping obstacles)
        self.tile_obs = {}             # tile -> {id(Cluster): Cluster}
        self.blocked = None            # union of walkable=False regions (not grown)
        self.blocked_grown = None      # ... grown by the radius and noded
        self.free_slots = np.empty(0, dtype=np.int32)
        self.free_verts = np.empty(0, dtype=np.int32)
        self._free_space = None

    # -- build ------------------------------------------------------------------
    @classmethod
    def build(cls, free, tile_size=None, radius=0.0, world=None, merge=True, obstacles=()):
        """A tiled ``NavMeshGraph`` of the free space ``free``; ``merge``:
        each tile's triangles merged into convex polygons (``polygons``).
        ``obstacles`` (polygons) are grown by ``radius`` and cut from the
        tiles as obstacles added later are (``obstacles.seed``): they stay
        as static obstacles that later ones may overlap and merge with."""
        if tile_size is None:
            size = choose_tile_size(free, extra=shapely.get_num_coordinates(
                np.array(list(obstacles), dtype=object)).sum() if len(obstacles) else 0)
        else:
            try:
                size = float(tile_size)
            except (TypeError, ValueError, OverflowError):
                raise GraphError(f"tile_size must be a number, got {tile_size!r}") from None
            if not math.isfinite(size) or size <= 0:
                raise GraphError(f"tile_size must be finite and > 0, got {tile_size!r}")
        # at least this many tiles, counted before the grid lines are made:
        # tile_size=1e-9 would otherwise ask for arrays of 10**10 lines first
        x0, y0, x1, y1 = free.bounds
        count = math.floor((x1 - x0) / size) * math.floor((y1 - y0) / size)
        if count <= limits.MAX_TILES:
            grid = TileGrid(free.bounds, size)
            count = grid.count
        if count > limits.MAX_TILES:
            raise GraphError(f"tile_size={size} cuts the free space into {count} "
                             f"tiles (at most {limits.MAX_TILES}); choose a larger one")
        # every tile's piece has its own corners besides the free space's
        check_vertices(f"the free space in {count} tiles",
                       shapely.get_num_coordinates(free) + 4 * count)
        base = clip_to_tiles(node_with_grid(free, grid), grid)
        tm = cls(grid, radius, base, merge)
        if len(obstacles):
            from .obstacles import seed          # the obstacles module builds on this one
            tm.piece = tm.cut(seed(tm, obstacles), np.arange(grid.count))
        full = np.flatnonzero(tm.piece != None)                   # noqa: E711
        coords, owner = triangulate_pieces(tm.piece[full])
        if len(coords) == 0:
            raise GraphError("the free space is empty" + (
                " once the obstacles are cut from it" if len(obstacles) else
                ": it has no area to triangulate"))
        vertices, inverse = np.unique(coords.reshape(-1, 2), axis=0, return_inverse=True)
        nv = len(vertices)
        tri = inverse.reshape(-1, 3).astype(np.int32)
        tri_tile = full[owner]
        pair = np.unique(tri_tile.repeat(3) * nv + tri.ravel())
        tm.tile_verts = _split(pair % nv, pair // nv, grid.count)
        tm.vertices = np.ascontiguousarray(vertices, dtype=np.float64)
        tm.vref = np.bincount(pair % nv, minlength=nv).astype(np.int32)
        poly, nside, ptile, cent = tm.polygons(tm.vertices, tri, tri_tile)
        n = len(poly)
        tile_of = ptile.astype(np.int32)
        tm.tile_polys = _split(np.arange(n), tile_of, grid.count)
        # match the edges of the flat polygons, then back to rows
        rows = np.arange(tm.width) < nside[:, None]
        poly_start = np.zeros(n + 1, dtype=np.int32)
        np.cumsum(nside, out=poly_start[1:])
        adj_flat, opposite = match_edges(poly_start, poly[rows], nv)
        adj = np.full(poly.shape, -1, dtype=np.int32)
        opp = np.full(poly.shape, -1, dtype=np.int32)
        adj[rows] = adj_flat
        opp[rows] = np.where(adj_flat >= 0, opposite - poly_start[np.maximum(adj_flat, 0)], -1)
        tm.poly, tm.nside, tm.adj, tm.opp = poly, nside, adj, opp
        tm.tile_of = tile_of
        tm.cent = cent
        tm.ecost = _edge_costs(tm.cent, np.arange(n), tm.adj)
        mesh = tm.mesh_arrays(world, np.ones(n, dtype=np.bool_))
        graph = NavMeshGraph(mesh["csr"], positions=tm.cent, heuristic="euclidean",
                             directed=False)
        graph.tiles = tm
        graph.replace_mesh(**mesh)
        graph.locate_index()              # built here, once: every query locates
        return graph

    @property
    def num_slots(self) -> int:
        return len(self.poly)

    def polygons(self, vertices, tri, owner):
        """``(poly, nside, powner, cent)``: the triangles ``tri`` (``(T, 3)``
        vertex ids, counter-clockwise, ordered by ``owner``: their tiles,
        or indices of them) as this mesh's slots: merged into convex
        polygons within each tile (``_tiles.merge_tiles``: no merge crosses
        a tile border), or left triangles; rows padded to ``width``, their
        corner counts, owners (ascending) and centroids."""
        tri = np.ascontiguousarray(tri, dtype=np.int32)
        owner = np.ascontiguousarray(owner, dtype=np.int64)
        if not self.merge:
            return (tri, np.full(len(tri), 3, dtype=np.int32), owner,
                    triangle_centroids(vertices, tri))
        return K.merge_tiles(vertices, tri, owner, self.width)

    def corners(self, slots) -> np.ndarray:
        """float64 ``(k, width, 2)``: the corners of the live ``slots``,
        rows padded with their first corner (for boxes)."""
        p = self.poly[np.asarray(slots, dtype=np.int64)]
        return self.vertices[np.where(p >= 0, p, p[:, :1])]

    def free_space(self):
        """The free space the mesh covers now (the union of the tiles'
        pieces), made on first use after each change."""
        if self._free_space is None:
            pieces = [p for p in self.piece if p is not None]
            if not pieces:
                self._free_space = Polygon()
            else:
                try:
                    self._free_space = shapely.coverage_union_all(pieces)
                except shapely.errors.GEOSException:
                    self._free_space = shapely.union_all(pieces)
        return self._free_space

    # -- an update: re-triangulate tiles --------------------------------------------
    def cut(self, cutters, tiles) -> np.ndarray:
        """The pieces of ``tiles`` (int64 ids): each one's base piece, minus
        ``cutters[t]`` (a geometry, or None) where ``cutters`` has one."""
        base = self.base[tiles]
        cut = np.empty(len(tiles), dtype=object)
        cut[:] = [cutters.get(t) for t in tiles.tolist()]
        pieces = base.copy()
        has = np.array([c is not None and b is not None for c, b in zip(cut, base)],
                       dtype=bool)
        if has.any():
            pieces[has] = _polygonal(shapely.difference(base[has], cut[has]))
        return pieces

    def prepare(self, cutters, walkable):
        """Re-triangulate the tiles of ``cutters`` (``{tile: geometry to cut
        from its base piece, or None}``) into a ``Change``, leaving this
        mesh untouched until ``commit``. ``walkable`` is the graph's
        walkable array before the batch."""
        ch = Change(self, walkable)
        tiles = np.array(sorted(t for t in cutters if self.base[t] is not None),
                         dtype=np.int64)
        ch.tiles = tiles
        if tiles.size == 0:
            return ch
        pieces = self.cut(cutters, tiles)
        ch.pieces = pieces
        live = np.flatnonzero(pieces != None)                      # noqa: E711
        coords, owner = triangulate_pieces(pieces[live])
        owner = live[owner]                       # index into tiles, ascending
        retired = (np.concatenate([self.tile_polys[t] for t in tiles.tolist()])
                   if tiles.size else np.empty(0, np.int32)).astype(np.int64)
        ring = self.grid.ring(tiles)
        ring = ring[self.base[ring] != None]                        # noqa: E711
        gid = ch.vertex_ids(coords, tiles, ring)
        ch.link(*self.polygons(ch.vertices, gid, owner), owner, gid, retired, ring)
        return ch

    def mesh_arrays(self, world, walkable) -> dict:
        """The graph's mesh for the slots now, as ``NavMeshGraph.replace_mesh``
        takes it: the slot rows flattened, the CSR view of their links
        (storage built through ``world``'s plugins), the centroids and
        ``walkable``."""
        alive = self.tile_of >= 0
        (poly_start, poly_verts, poly_adj, poly_opp, poly_next, offsets, targets, cost,
         corner) = K.assemble(self.poly, self.nside, self.adj, self.opp, self.ecost, alive,
                              len(self.vertices))
        storage = build_storage(None, targets, {"cost": cost}, self.num_slots, world=world,
                                sort=True, dedup=True, offsets=offsets)
        return dict(vertices=self.vertices, poly_start=poly_start, poly_verts=poly_verts,
                    csr=storage, positions=self.cent, walkable=walkable, poly_adj=poly_adj,
                    poly_opposite=poly_opp, poly_next=poly_next, corner=corner)

    def locate_index(self, graph) -> "TileLocateIndex":
        """A new locate index of ``graph`` (this mesh's graph)."""
        return TileLocateIndex(graph)

    def commit(self, graph, world, ch, state):
        """Make ``ch`` (with its generic writes) the graph's mesh and
        ``state`` (obstacles, blocked regions, clusters) this mesh's; bump the
        version; patch the locate index. Called once per batch, after
        everything that could fail."""
        old_index = graph.stored_view(LOCATE_KEY)
        self.poly, self.nside, self.adj, self.opp = ch.poly, ch.nside, ch.adj, ch.opp
        self.ecost = ch.ecost
        self.tile_of, self.cent = ch.tile_of, ch.cent
        self.vertices, self.vref = ch.vertices, ch.vref
        self.free_slots, self.free_verts = ch.free_slots, ch.free_verts
        for i, t in enumerate(ch.tiles.tolist()):
            self.tile_polys[t] = ch.tile_polys[i]
            self.tile_verts[t] = ch.tile_verts[i]
            self.piece[t] = ch.pieces[i]
        self.obstacles, self.blocked, self.blocked_grown = state[:3]
        self.clusters = state[4]
        self.tile_obs.update(state[3])
        for t in [t for t, obs in state[3].items() if not obs]:
            del self.tile_obs[t]
        if ch.tiles.size:
            self._free_space = None
        graph.replace_mesh(**self.mesh_arrays(world, ch.walkable))
        graph.version += 1
        if not isinstance(old_index, TileLocateIndex):
            graph.set_view(LOCATE_KEY, TileLocateIndex(graph))
        elif ch.tiles.size:
            graph.set_view(LOCATE_KEY, old_index.patched(graph, ch.tiles))
        else:
            old_index.mark_current()         # no polygon moved


def warm_up(graph) -> None:
    """Load the update kernels of a tiled mesh now (``navcore_warm_up``),
    on its own arrays; nothing changes (``link`` works on copies)."""
    tm = graph.tiles
    if tm is None:
        return
    K.assemble(tm.poly, tm.nside, tm.adj, tm.opp, tm.ecost, tm.tile_of >= 0,
               len(tm.vertices))
    none = np.empty(0, dtype=np.int64)
    K.link(tm.poly[:1].copy(), tm.nside[:1].copy(), tm.adj[:1].copy(), tm.opp[:1].copy(),
           tm.ecost[:1].copy(), tm.cent[:1].copy(), none, none, np.zeros(1, dtype=np.bool_),
           len(tm.vertices))
    if tm.merge:
        # a unit triangle of its own (a live polygon's first three corners
        # may be collinear, and the merge divides by a triangle's area)
        unit = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
        tm.polygons(unit, np.array([[0, 1, 2]], dtype=np.int32), np.zeros(1, dtype=np.int64))


def triangle_centroids(vertices, tri):
    """float64 ``(T, 2)``: the centroids of triangles ``tri`` (``(T, 3)``
    vertex ids), the mean of their corners."""
    c = vertices[tri]
    return (c[:, 0] + c[:, 1] + c[:, 2]) / 3.0


def _edge_costs(cent, slots, adj):
    """Centroid-to-centroid cost of each edge of ``slots`` (0 for walls
    and padding)."""
    a = cent[slots][:, None, :]
    b = cent[np.maximum(adj, 0)]
    d = np.sqrt(((a - b) ** 2).sum(axis=2))
    return np.where(adj >= 0, d, 0.0)


class Change:
    """One batch's new slot arrays, made by ``TiledMesh.prepare``: copies of
    the mesh's, edited for the re-triangulated tiles; the generic updates
    of the batch edit ``walkable`` and ``ecost``; ``TiledMesh.commit``
    installs them. ``dirty`` collects the changed slots."""

    def __init__(self, tm, walkable):
        self.tm = tm
        n = tm.num_slots
        # the mesh's own arrays until something writes: ``link`` makes new
        # ones, ``own`` copies for the generic writes
        self.poly, self.nside, self.adj, self.opp = tm.poly, tm.nside, tm.adj, tm.opp
        self.ecost = tm.ecost
        self.tile_of, self.cent = tm.tile_of, tm.cent
        self.vertices, self.vref = tm.vertices, tm.vref
        self.free_slots, self.free_verts = tm.free_slots, tm.free_verts
        self.walkable = walkable[:n]
        self._owned = False
        self.alive_before = tm.tile_of >= 0
        self.retired = np.zeros(n, dtype=np.bool_)
        self.tiles = np.empty(0, dtype=np.int64)
        self.tile_polys, self.tile_verts, self.pieces = [], [], []
        self.dirty = []

    def own(self):
        """Copy the arrays the generic writes edit (``walkable``, ``ecost``),
        unless ``link`` made them already."""
        if not self._owned:
            self.walkable = np.array(self.walkable, dtype=np.bool_)
            self.ecost = self.ecost.copy()
            self._owned = True

    # -- vertices ----------------------------------------------------------------
    def vertex_ids(self, coords, tiles, ring):
        """Global vertex ids of the corners ``coords`` (``(T, 3, 2)``) of
        the new triangles of ``tiles``: a corner on the border with an
        untouched tile (in ``ring``) is that tile's vertex (same
        coordinates); other vertices take ids nobody uses any more, then
        new ones. Updates the per-tile vertex lists and counts."""
        tm = self.tm
        vref = tm.vref.copy()
        old = [tm.tile_verts[t] for t in tiles.tolist()]
        old = np.concatenate(old) if old else np.empty(0, np.int32)
        np.subtract.at(vref, old, 1)
        flat = coords.reshape(-1, 2)
        # exact coordinates as one complex key (np.unique on rows is slow)
        uz, inverse = np.unique(flat[:, 0] + 1j * flat[:, 1], return_inverse=True)
        ids = np.full(len(uz), -1, dtype=np.int64)
        if ring.size and len(uz):
            cand = np.concatenate([tm.tile_verts[t] for t in ring.tolist()])
            if cand.size:
                cz = tm.vertices[cand, 0] + 1j * tm.vertices[cand, 1]
                order = np.argsort(cz)
                cz = cz[order]
                pos = np.minimum(np.searchsorted(cz, uz), cz.size - 1)
                hit = cz[pos] == uz
                ids[hit] = cand[order[pos[hit]]]
        need = np.flatnonzero(ids < 0)
        gone = np.unique(old[vref[old] == 0])          # used by no tile any more
        free = np.concatenate([tm.free_verts, gone]).astype(np.int64)
        free.sort()
        take = free[:need.size]
        extra = need.size - take.size
        nv = len(tm.vertices)
        new_ids = np.concatenate([take, np.arange(nv, nv + extra)])
        ids[need] = new_ids
        self.free_verts = free[take.size:].astype(np.int32)
        if extra:
            vertices = np.empty((nv + extra, 2))
            vertices[:nv] = tm.vertices
            vref = np.concatenate([vref, np.zeros(extra, dtype=np.int32)])
        else:
            vertices = tm.vertices.copy()
        vertices[new_ids, 0] = uz[need].real
        vertices[new_ids, 1] = uz[need].imag
        gid = ids[inverse].reshape(-1, 3)
        self.vertices = vertices
        self.vref = vref
        return gid

    # -- slots and links -------------------------------------------------------------
    def link(self, poly, nside, powner, pcent, owner, gid, retired, ring):
        """Retire the slots of the tiles, give the new polygons (``poly``,
        ``nside``, ``pcent`` as ``TiledMesh.polygons`` makes them, of the
        tiles ``powner`` indexes, ascending) slots, and link their edges to
        each other and to the untouched ring tiles'. ``owner`` and ``gid``:
        the triangles they were merged from (their vertex lists)."""
        tm = self.tm
        ntiles = len(self.tiles)
        k = len(poly)
        # slots: free ones retired by earlier batches first, then new ones
        take = tm.free_slots[:k].astype(np.int64)
        n_old = tm.num_slots
        extra = k - take.size
        slots = np.concatenate([take, np.arange(n_old, n_old + extra)])
        free = np.concatenate([tm.free_slots[take.size:], retired.astype(np.int32)])
        free.sort()
        self.free_slots = free
        n = n_old + extra

        def grown(arr, fill):
            if not extra:
                return arr.copy()
            out = np.empty((n,) + arr.shape[1:], dtype=arr.dtype)
            out[:n_old] = arr
            out[n_old:] = fill
            return out
        slot_poly, slot_nside = grown(tm.poly, -1), grown(tm.nside, 0)
        adj, opp = grown(self.adj, -1), grown(tm.opp, -1)
        ecost, tile_of, cent = grown(self.ecost, 0.0), grown(tm.tile_of, -1), grown(tm.cent, 0.0)
        walkable = grown(self.walkable, False)
        dead = np.zeros(n, dtype=np.bool_)
        dead[retired] = True
        self.retired = dead[:n_old]
        tile_of[retired] = -1
        slot_poly[retired] = -1
        slot_nside[retired] = 0
        adj[retired] = -1
        opp[retired] = -1
        ecost[retired] = 0.0
        walkable[retired] = False
        slot_poly[slots] = poly
        slot_nside[slots] = nside
        tile_of[slots] = self.tiles[powner]
        walkable[slots] = True
        cent[slots] = pcent
        rs = (np.concatenate([tm.tile_polys[t] for t in ring.tolist()]).astype(np.int64)
              if ring.size else np.empty(0, np.int64))
        changed, bad_s, bad_k = K.link(slot_poly, slot_nside, adj, opp, ecost, cent, slots, rs,
                                       dead, len(self.vertices))
        if bad_s >= 0:
            a = slot_poly[bad_s, bad_k]
            b = slot_poly[bad_s, (bad_k + 1) % slot_nside[bad_s]]
            raise GraphError(f"the mesh edge between vertices {a} and {b} belongs to more "
                             f"than two polygons after re-tiling")
        self.poly, self.nside, self.adj, self.opp = slot_poly, slot_nside, adj, opp
        self.ecost, self.tile_of, self.cent, self.walkable = ecost, tile_of, cent, walkable
        self._owned = True
        self.dirty += [retired, slots, rs[changed]]
        # per tile lists (powner ascends: pieces were triangulated in order,
        # and a merged polygon comes where its first triangle did)
        cuts = np.searchsorted(powner, np.arange(1, ntiles))
        self.tile_polys = [a.astype(np.int32) for a in np.split(slots, cuts)]
        nv = len(self.vertices)
        pair = np.unique(owner.repeat(3) * nv + gid.ravel())
        verts = (pair % nv).astype(np.int32)
        self.tile_verts = np.split(verts, np.searchsorted(pair // nv, np.arange(1, ntiles)))
        np.add.at(self.vref, verts, 1)

    def dirty_nodes(self) -> np.ndarray:
        if not self.dirty:
            return np.empty(0, dtype=np.int32)
        return np.unique(np.concatenate([np.asarray(d, dtype=np.int64)
                                         for d in self.dirty])).astype(np.int32)


# -- locate ----------------------------------------------------------------------

#: a point this close to a tile border (in cells) is looked up on both sides
BORDER_EPS = 1e-6


class TileLocateIndex(navcore.DerivedView):
    """The locate index of a tiled mesh: ``k`` by ``k`` bucket cells per
    tile, numbered tile by tile, each listing (by ascending id) the live
    polygons of its own tile whose box meets it. Re-triangulating a tile
    rewrites only its block of lists (``patched``). Cells are about the
    mean polygon size; a point near a tile border also looks across it
    (see ``_tiles.locate_points``)."""

    def __init__(self, graph, k=None):
        super().__init__(graph)
        tm = graph.tiles
        grid = tm.grid
        if k is None:
            live = np.flatnonzero(tm.tile_of >= 0)
            if live.size:
                c = tm.corners(live)
                size = float(np.sqrt(np.mean((c.max(axis=1) - c.min(axis=1)).prod(axis=1))))
            else:
                size = grid.size
            k = int(min(max(round(grid.size / max(size, 1e-12)), 1), 32))
        self.k = k
        self.inv = k / grid.size
        # orientation tests within this of zero count as on the edge (as in
        # LocateIndex), relative to the mesh's size
        self.tol = 1e-12 * size_scale(tm.vertices) ** 2
        slots = np.flatnonzero(tm.tile_of >= 0)
        cell, pid = self._entries(tm, slots)
        order = np.lexsort((pid, cell))
        self.cell_polys = pid[order].astype(np.int32)
        ncell = grid.count * k * k
        self.cell_start = np.zeros(ncell + 1, dtype=np.int64)
        np.cumsum(np.bincount(cell, minlength=ncell), out=self.cell_start[1:])

    def _entries(self, tm, slots):
        """(cell, slot) of every cell each slot's box meets in its tile."""
        grid, k = tm.grid, self.k
        slots = np.asarray(slots, dtype=np.int64)
        c = tm.corners(slots)
        lo, hi = c.min(axis=1), c.max(axis=1)
        t = tm.tile_of[slots].astype(np.int64)
        ti, tj = t % grid.nx, t // grid.nx
        g0x = np.clip(np.floor((lo[:, 0] - grid.x0) * self.inv).astype(np.int64), ti * k, ti * k + k - 1)
        g1x = np.clip(np.floor((hi[:, 0] - grid.x0) * self.inv).astype(np.int64), ti * k, ti * k + k - 1)
        g0y = np.clip(np.floor((lo[:, 1] - grid.y0) * self.inv).astype(np.int64), tj * k, tj * k + k - 1)
        g1y = np.clip(np.floor((hi[:, 1] - grid.y0) * self.inv).astype(np.int64), tj * k, tj * k + k - 1)
        wx, wy = g1x - g0x + 1, g1y - g0y + 1
        count = wx * wy
        idx = np.repeat(np.arange(slots.size), count)
        m = np.arange(idx.size) - np.repeat(np.cumsum(count) - count, count)
        gx = g0x[idx] + m % wx[idx]
        gy = g0y[idx] + m // wx[idx]
        cell = t[idx] * k * k + (gy % k) * k + gx % k
        return cell, slots[idx]

    def patched(self, graph, tiles):
        """A copy for ``graph``'s current version in which the lists of
        ``tiles`` are made again from their polygons now."""
        tm = graph.tiles
        new = object.__new__(TileLocateIndex)
        navcore.DerivedView.__init__(new, graph)
        new.k, new.inv, new.tol = self.k, self.inv, self.tol
        kk = self.k * self.k
        tiles = np.asarray(tiles, dtype=np.int64)
        if tiles.size == 0:
            new.cell_start, new.cell_polys = self.cell_start, self.cell_polys
            return new
        slots = np.concatenate([tm.tile_polys[t] for t in tiles.tolist()])
        cell, pid = self._entries(tm, slots)
        order = np.lexsort((pid, cell))
        cell, pid = cell[order], pid[order].astype(np.int32)
        counts = np.diff(self.cell_start)
        for t in tiles.tolist():
            sel = cell[(cell >= t * kk) & (cell < (t + 1) * kk)] - t * kk
            counts[t * kk:(t + 1) * kk] = np.bincount(sel, minlength=kk)
        start = np.zeros_like(self.cell_start)
        np.cumsum(counts, out=start[1:])
        polys = np.empty(int(start[-1]), dtype=np.int32)
        # untouched runs of cells keep their lists (one copy per run), the
        # tiles' blocks get theirs
        prev = 0
        cs_old, cs_new = self.cell_start, start
        for t in tiles.tolist():
            a, b = t * kk, (t + 1) * kk
            polys[cs_new[prev]:cs_new[a]] = self.cell_polys[cs_old[prev]:cs_old[a]]
            sel = (cell >= a) & (cell < b)
            polys[cs_new[a]:cs_new[b]] = pid[sel]
            prev = b
        polys[cs_new[prev]:] = self.cell_polys[cs_old[prev]:]
        new.cell_start, new.cell_polys = start, polys
        return new

    def locate_point(self, x: float, y: float) -> int:
        x, y = index_xy(x, y)
        return self._locate_xy(x, y)

    def _locate_xy(self, x: float, y: float) -> int:
        """``locate_point`` of two finite Python floats (unchecked)."""
        g = self.graph
        grid = g.tiles.grid
        return K.locate_one(x, y, g.vertices, g.poly_start, g.poly_verts, g.walkable,
                            self.cell_start, self.cell_polys, grid.x0, grid.y0, self.inv,
                            self.k, grid.nx, grid.ny, self.tol, BORDER_EPS)

    def _locate_pair(self, ax: float, ay: float, bx: float, by: float, snap: float):
        """``LocateIndex._locate_pair`` over the tiled cells."""
        g = self.graph
        grid = g.tiles.grid
        return K.locate_pair(ax, ay, bx, by, snap, g.vertices, g.poly_start, g.poly_verts,
                             g.walkable, self.cell_start, self.cell_polys, grid.x0, grid.y0,
                             self.inv, self.k, grid.nx, grid.ny, self.tol, BORDER_EPS)

    def locate_many(self, points) -> np.ndarray:
        p = index_points(points)
        out = np.empty(len(p), dtype=np.int32)
        g = self.graph
        grid = g.tiles.grid
        K.locate_points(np.ascontiguousarray(p[:, 0]), np.ascontiguousarray(p[:, 1]),
                        g.vertices, g.poly_start, g.poly_verts, g.walkable,
                        self.cell_start, self.cell_polys, grid.x0, grid.y0, self.inv,
                        self.k, grid.nx, grid.ny, self.tol, BORDER_EPS, out)
        return out

    def nearest(self, x: float, y: float, radius: float):
        """``(polygon, px, py)``: the nearest walkable polygon within
        ``radius`` and its point nearest ``(x, y)``; ``(-1, x, y)``."""
        x, y = index_xy(x, y)
        radius = index_radius(radius)
        g = self.graph
        grid = g.tiles.grid
        return K.nearest_point(x, y, radius, g.vertices, g.poly_start, g.poly_verts,
                               g.walkable, self.cell_start, self.cell_polys, grid.x0,
                               grid.y0, self.inv, self.k, grid.nx, grid.ny)
