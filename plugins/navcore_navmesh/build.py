"""Walkable free space -> constrained Delaunay triangle mesh.

The free space is a shapely (multi)polygon built from any of:

* ``walkable=``: shapely polygons (holes allowed) or plain rings
  (``[[x, y], ...]``, or a list of such rings, each an area one may walk);
* ``bounds=(xmin, ymin, xmax, ymax)``: a rectangle (intersected with
  ``walkable`` when both are given);
* ``map=PATH.map``: a MovingAI grid map, read with the grid plugin's public
  ``navcore_grid.read_map``; cell ``(x, y)`` covers ``[x, x+1] x [y, y+1]``
  with y growing down (the row index), as in the file. ``passable=``: the
  map characters that are floor, by default MovingAI's ``".GS"``;
  ``passable=".G"`` is Polyanya's rule (its gridmap2poly, and the shared
  any-angle benchmark data, block swamp ``S`` and water ``W``);
* ``obstacles=``: polygons or rings subtracted from all of the above.

``agent_radius=r`` erodes the free space by ``r`` before triangulating.

A navmesh can also be given whole, instead of all of the above
(``meshfile``; giving both is a GraphError):

* ``mesh=PATH``: a Polyanya ``.mesh`` (v2 or v3, traversable faces) or an
  ``.npz`` baked by ``bake.save_mesh`` / ``navcore bake``, told apart
  by content; errors are ``MeshFormatError`` at the file's line (or array);
* ``vertices=`` ``(V, 2)`` with ``polygons=``: a list of vertex-id lists,
  or a ``(P, k)`` integer array padded at the end of rows with ``-1``;
  errors name ``polygons[p]`` or ``vertices[i]``.

Its convex polygons become the graph's nodes as they are (clockwise as a
whole is reversed; ids kept; not merged unless ``merge=True``), and
``free_space`` is their union. With ``agent_radius=r > 0`` that union is
shrunk by ``r`` and triangulated again here, as any free space is (and
merged unless ``merge=False``): a given mesh is not shrunk polygon by
polygon, so its own polygons are not kept then (``agent_radius`` and
``ground`` on the graph: the radius and the union before shrinking). A
baked ``.npz`` brings its graph's ``snap_distance``, ``agent_radius`` and
``ground`` along; shrinking it further adds to its radius.

The triangulation is shapely's ``constrained_delaunay_triangles`` (GEOS),
no hand-written triangulator. GEOS fails on some valid polygons (holes that
touch each other or the outline at a corner: blocked map cells meeting
diagonally); such a polygon is ear-clipped by mapbox_earcut instead, and
the triangles are checked to cover it exactly (``geos_triangles``).
Vertices are deduplicated by exact coordinates, so two triangles are
neighbours exactly when they share an edge (both its end vertices).
Triangles that share only a vertex are not neighbours: where two obstacles
touch diagonally the mesh is pinched there, and no path squeezes through.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import MultiPolygon, Polygon, box
from shapely.geometry.base import BaseGeometry

from navcore import limits
from navcore.errors import GraphError

#: GEOS's mitre ratio limit, the one free spaces are shrunk and obstacles
#: grown with: an obstacle grown by ``r`` reaches at most this many ``r``
#: past a corner
MITRE_LIMIT = 5.0


# -- free space ---------------------------------------------------------------

def _ring_points(value, what) -> np.ndarray:
    """float64 ``(k, 2)``: one plain ring ``[[x, y], ...]``, checked."""
    try:
        pts = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise GraphError(f"{what} must be a ring of [x, y] points, got {value!r}") from None
    if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) < 3:
        raise GraphError(f"{what} must be a ring of at least 3 [x, y] points, "
                         f"got shape {pts.shape}")
    bad = ~(np.abs(pts) <= limits.MAX_COORDINATE).all(axis=1)     # NaN fails too
    if bad.any():
        raise GraphError(f"{what} has a coordinate that is NaN, infinite or beyond "
                         f"±{limits.MAX_COORDINATE:g}: {pts[bad][0].tolist()}")
    return pts


def _ring(value, what) -> Polygon:
    """A polygon from one plain ring ``[[x, y], ...]``."""
    return Polygon(_ring_points(value, what))


def _rings(values, what) -> list:
    """Polygons from a list of plain rings and shapely geometries: the
    rings made in one shapely call (one ``Polygon`` each costs ~20 us, a
    scene's 200 obstacles 4 ms)."""
    items = list(values)
    plain = [i for i, v in enumerate(items) if not isinstance(v, BaseGeometry)]
    if plain:
        pts = [_ring_points(items[i], f"{what}[{i}]") for i in plain]
        rings = shapely.linearrings(np.concatenate(pts),
                                    indices=np.repeat(np.arange(len(pts)),
                                                      [len(q) for q in pts]))
        for i, poly in zip(plain, shapely.polygons(rings)):
            items[i] = poly
    return items


def _is_ring(value) -> bool:
    """Whether ``value`` is one ring (a list of number pairs), not a list
    of rings: its first item is a pair of numbers."""
    try:
        first = value[0]
        return len(first) == 2 and all(np.isscalar(c) for c in first)
    except (TypeError, IndexError, KeyError):
        return False


def polygons(value, what) -> list:
    """``value`` (a shapely geometry, a ring, or a list of geometries and
    rings) as a list of checked shapely polygons."""
    if isinstance(value, BaseGeometry):
        items = [value]
    elif isinstance(value, (list, tuple)) and not value:
        return []                                      # no obstacles
    elif _is_ring(value):
        items = [_ring(value, what)]
    elif isinstance(value, (list, tuple)) and value:
        items = _rings(value, what)
    else:
        raise GraphError(f"{what} must be shapely polygons or lists of [x, y] rings, "
                         f"got {value!r}")
    # the checks run on all items at once (one GEOS call each); the first
    # item that fails one is named
    def name(i):
        return what if len(items) == 1 else f"{what}[{i}]"
    for i, geom in enumerate(items):
        if not isinstance(geom, (Polygon, MultiPolygon)):
            raise GraphError(f"{name(i)} must be a polygon, got a {geom.geom_type}")
    arr = np.empty(len(items), dtype=object)
    arr[:] = items
    coords, index = shapely.get_coordinates(arr, return_index=True)
    bad = index[~np.isfinite(coords).all(axis=1)]
    if bad.size:
        raise GraphError(f"{name(int(bad[0]))} has a coordinate that is NaN or infinite")
    valid = shapely.is_valid(arr)
    if not valid.all():
        # self-intersecting rings, holes outside their shell, ...
        i = int(np.flatnonzero(~valid)[0])
        raise GraphError(f"{name(i)} is not a valid polygon: "
                         f"{shapely.is_valid_reason(items[i])}")
    return list(items)


def meeting_groups(geoms) -> np.ndarray:
    """int64 label of each of ``geoms`` (an object array): geometries that
    meet, directly or through others, share a label (the least index of
    their group): connected components of the pairs an STRtree finds, by
    union-find."""
    a, b = shapely.STRtree(geoms).query(geoms, predicate="intersects")
    keep = a < b
    root = np.arange(len(geoms))

    def find(i):
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i
    for i, j in zip(a[keep].tolist(), b[keep].tolist()):
        ri, rj = find(i), find(j)
        if ri != rj:
            root[max(ri, rj)] = min(ri, rj)
    return np.array([find(i) for i in range(len(geoms))], dtype=np.int64)


def union(polys):
    """The union of the polygons ``polys``, as one valid geometry. Only
    those that meet are merged (by groups an STRtree finds): obstacles are
    mostly apart, and merging them all costs several times more."""
    arr = np.empty(len(polys), dtype=object)
    arr[:] = polys
    parts = shapely.get_parts(arr)
    if parts.size <= 1:
        return shapely.union_all(parts)
    group = meeting_groups(parts)
    alone = np.bincount(group, minlength=parts.size)[group] == 1
    merged = [shapely.union_all(parts[group == g]) for g in np.unique(group[~alone])]
    pieces = shapely.get_parts(np.array(list(parts[alone]) + merged, dtype=object))
    return MultiPolygon(list(pieces)) if len(pieces) != 1 else pieces[0]


def check_vertices(what: str, num_vertices: int) -> None:
    """``CapacityError`` when a navmesh of ``num_vertices`` free-space
    vertices (``limits.BYTES_PER_VERTEX`` each) would not fit in memory,
    before it is built."""
    limits.check_memory(f"{what}: a navmesh of about {num_vertices} vertices",
                        int(num_vertices) * limits.BYTES_PER_VERTEX)


def _bounds_box(bounds):
    try:
        b = np.asarray(bounds, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise GraphError(f"bounds must be (xmin, ymin, xmax, ymax), got {bounds!r}") from None
    if b.shape != (4,) or not (np.abs(b) <= limits.MAX_COORDINATE).all() \
            or b[0] >= b[2] or b[1] >= b[3]:
        raise GraphError(f"bounds must be finite (xmin, ymin, xmax, ymax) within "
                         f"±{limits.MAX_COORDINATE:g}, with xmin < xmax and ymin < ymax, "
                         f"got {bounds!r}")
    return box(*b.tolist())


def map_free_space(path, passable=None):
    """Free space of a MovingAI ``.map``: the map rectangle minus its
    blocked cells (``passable``: the floor characters, ``read_map``'s). Blocked cells are merged into row runs first (one box
    per run, not per cell), then unioned, so GEOS sees few, large boxes."""
    import navcore_grid          # public API of the grid plugin: its map reader
    if not isinstance(path, (str, os.PathLike)):
        raise GraphError(f"map must be the path of a .map file, got {path!r}")
    walkable = navcore_grid.read_map(Path(path), passable=passable)   # errors with file:line
    h, w = walkable.shape
    blocked = ~walkable
    # run starts/ends per row, vectorised: pad with free cells on both sides
    pad = np.zeros((h, w + 2), dtype=np.int8)
    pad[:, 1:-1] = blocked
    d = np.diff(pad, axis=1)
    rs, xs = np.nonzero(d == 1)
    _, xe = np.nonzero(d == -1)          # same row order as the starts
    rect = box(0.0, 0.0, float(w), float(h))
    if rs.size == 0:
        return rect
    # each run is a box of 4 corners in the free space and the mesh after
    check_vertices(f"the free space of {path} ({w} x {h} cells, {rs.size} runs of "
                   f"blocked cells)", 4 * rs.size)
    runs = shapely.box(xs, rs, xe, rs + 1)
    return rect.difference(shapely.union_all(runs))


def free_space(*, walkable=None, obstacles=None, bounds=None, map=None, passable=None,
               agent_radius=0.0):
    """The free space the parameters describe, as one valid shapely
    geometry (polygon or multipolygon), eroded by ``agent_radius``
    (``spaces``)."""
    return spaces(walkable=walkable, obstacles=obstacles, bounds=bounds, map=map,
                  passable=passable, agent_radius=agent_radius)[1]


def spaces(*, walkable=None, obstacles=None, bounds=None, map=None, passable=None,
           agent_radius=0.0):
    """``(ground, free)``: the space the parameters describe (the walkable
    space minus the obstacles: the place as a map draws it) and the free
    space an agent's centre may take, ``ground`` eroded by
    ``agent_radius``. The walkable space is shrunk (``shrink``) and the
    union of the obstacles grown by the radius (``grow``) and cut from it,
    exactly as obstacles added at run time are (``obstacles.Cluster``),
    so that a mesh built with obstacles and one given them later have the
    same free space. (Shrinking ``ground`` as a whole is the same shape in
    exact arithmetic, but GEOS simplifies a buffer's input by 1% of the
    distance, on the other side of the outline for an erosion, so the two
    would differ by that much where obstacles overlap.)"""
    free, obs = walkable_space(walkable=walkable, obstacles=obstacles, bounds=bounds,
                               map=map, passable=passable)
    r = check_radius(agent_radius)
    if not obs or free.is_empty:
        return free, shrink(free, r)
    cut = union(obs)
    ground = _overlay(free.difference, cut)
    if r == 0:
        return ground, shrink(ground)
    return ground, shrink(_overlay(shrink(free, r).difference, grow(cut, r)))


def spaces_apart(*, walkable=None, obstacles=None, bounds=None, map=None, passable=None,
                 agent_radius=0.0):
    """``(ground, free, obstacles)``: ``spaces``' ground, the free space
    before the obstacles are cut from it (the walkable space shrunk by
    ``agent_radius``) and the obstacles, for a mesh that cuts them itself
    as it cuts obstacles added later (``TiledMesh.build``)."""
    space, obs = walkable_space(walkable=walkable, obstacles=obstacles, bounds=bounds,
                                map=map, passable=passable)
    r = check_radius(agent_radius)
    ground = _overlay(space.difference, union(obs)) if obs and not space.is_empty else space
    return ground, shrink(space, r), obs


def walkable_space(*, walkable=None, obstacles=None, bounds=None, map=None, passable=None):
    """``(space, obstacles)``: the walkable space the parameters describe
    before any obstacle is cut from it, and the ``obstacles=`` as a list
    of polygons (``spaces`` takes the one from the other; a tiled mesh
    cuts them as it cuts obstacles added later)."""
    parts = []
    if map is not None:
        if not isinstance(map, (str, Path)):
            raise GraphError(f"map must be the path of a .map file, got {map!r}")
        parts.append(map_free_space(map, passable))
    elif passable is not None:
        raise GraphError(f"passable={passable!r} names the passable characters of a "
                         f"MovingAI map: it goes with map=")
    if bounds is not None:
        parts.append(_bounds_box(bounds))
    if walkable is not None:
        parts.append(union(polygons(walkable, "walkable")))
    if not parts:
        raise GraphError("a navmesh needs its free space: walkable=, bounds= or map=")
    free = parts[0]
    for p in parts[1:]:
        # an empty part (walkable=[]) empties the whole: GEOS cannot tell
        # the dimension of an overlay with an empty collection and asserts
        free = Polygon() if p.is_empty or free.is_empty else _overlay(free.intersection, p)
    return free, (polygons(obstacles, "obstacles") if obstacles is not None else [])


def grow(geom, agent_radius):
    """``geom`` (obstacles) grown by ``agent_radius`` with the mitre joins
    ``shrink`` erodes with (an obstacle's outline is never closer than the
    radius to it; GEOS's mitre limit, 5 radii, cuts off sharper corners)."""
    r = check_radius(agent_radius)
    if r > 0:
        return shapely.buffer(geom, r, join_style="mitre", mitre_limit=MITRE_LIMIT)
    return geom


def _overlay(operation, other):
    try:
        return operation(other)
    except shapely.errors.GEOSException as exc:
        raise GraphError(f"the free space cannot be made from these shapes: {exc}") from None


def check_radius(agent_radius) -> float:
    """``agent_radius`` as a float: a finite number >= 0, else GraphError."""
    try:
        r = float(agent_radius)
    except (TypeError, ValueError, OverflowError):
        raise GraphError(f"agent_radius must be a number, got {agent_radius!r}") from None
    if not np.isfinite(r) or r < 0:
        raise GraphError(f"agent_radius must be finite and >= 0, got {agent_radius!r}")
    return r


def shrink(free, agent_radius=0.0):
    """``free`` eroded by ``agent_radius`` (checked: a finite number >= 0),
    as one valid polygon or multipolygon with the lines and points an
    intersection may leave behind dropped; ``GraphError`` when nothing is
    left. ``free_space`` ends with it; the ``navmesh`` builder calls it
    itself to keep the space before erosion (``NavMeshGraph.ground``)."""
    r = check_radius(agent_radius)
    if r > 0:
        # mitre joins: the eroded space is never closer than r to a wall
        # (round joins approximate the arc by chords that cut inside it)
        # and obstacle corners add no arc vertices (fewer slivers)
        free = shapely.buffer(free, -r, join_style="mitre", mitre_limit=MITRE_LIMIT)
    # keep polygons only (an intersection may leave lines or points behind)
    polys = [g for g in shapely.get_parts(free) if isinstance(g, Polygon) and g.area > 0]
    if not polys:
        raise GraphError("the free space is empty" + (f" after shrinking by the agent "
                                                      f"radius {r}" if r > 0 else ""))
    return polys[0] if len(polys) == 1 else MultiPolygon(polys)


# -- triangles -----------------------------------------------------------------

def geos_triangles(geom, hint):
    """Triangles covering ``geom`` (a polygon or a collection of them), as
    a geometry collection: GEOS's constrained Delaunay triangles. GEOS
    fails on some valid polygons, such as holes that touch at a corner
    (blocked cells of a map meeting diagonally: "Unable to find a convex
    corner"); each polygon it fails on is ear-clipped instead
    (``ear_clipped``). Only when that fails too is it a ``GraphError``
    naming the box of the polygon and ``hint`` (what may get round it)."""
    try:
        return shapely.constrained_delaunay_triangles(geom)
    except shapely.errors.GEOSException:
        pass
    parts = [p for p in shapely.get_parts(geom) if isinstance(p, Polygon) and p.area > 0]
    triangles = []
    for part in parts:
        try:
            triangles.extend(shapely.get_parts(shapely.constrained_delaunay_triangles(part)))
        except shapely.errors.GEOSException as exc:
            triangles.extend(ear_clipped(part, f"{exc}; {hint}"))
    return shapely.GeometryCollection(triangles)


def _split_at_corners(triangles: list, corners: np.ndarray) -> np.ndarray:
    """``(T, 3, 2)`` triangles: those given, each split at every one of
    ``corners`` that lies inside one of its edges (within rounding)."""
    done = []
    while triangles:
        t = triangles.pop()
        for e in range(3):
            a, b, c = t[e], t[(e + 1) % 3], t[(e + 2) % 3]
            ab, d = b - a, corners - a
            length2 = float(ab @ ab)
            along = d @ ab
            across = np.abs(ab[0] * d[:, 1] - ab[1] * d[:, 0])
            inside = (across <= 1e-12 * length2) & (along > 0) & (along < length2)
            if inside.any():
                p = corners[np.flatnonzero(inside)[0]]
                triangles += [np.array([a, p, c]), np.array([p, b, c])]
                break
        else:
            done.append(t)
    return np.array(done, dtype=np.float64).reshape(-1, 3, 2)


def ear_clipped(polygon: Polygon, hint: str) -> list:
    """Triangles (shapely polygons) covering ``polygon`` exactly, from
    mapbox_earcut's ear clipping, which bridges holes to the outline and
    takes rings that touch at a point. Earcut's own documentation does not
    promise a correct result on every degenerate input, so the triangles
    are checked: their areas must add up to the polygon's and their union
    must be the polygon, else a ``GraphError`` naming where and ``hint``."""
    import mapbox_earcut

    rings = [np.asarray(polygon.exterior.coords, dtype=np.float64)[:-1]]
    rings += [np.asarray(r.coords, dtype=np.float64)[:-1] for r in polygon.interiors]
    corners = np.vstack(rings)
    ends = np.cumsum([len(r) for r in rings]).astype(np.uint32)
    tri = np.asarray(mapbox_earcut.triangulate_float64(corners, ends),
                     dtype=np.int64).reshape(-1, 3)
    # earcut drops corners that lie straight between their neighbours; a
    # triangle edge across one would meet the triangles beside it (in this
    # piece or the next tile) in a T, not at an edge: split it there
    triangles = shapely.polygons(_split_at_corners(list(corners[tri]), corners))
    area = polygon.area
    tolerance = 1e-9 * max(area, float(np.finfo(float).tiny))
    if len(tri) == 0 or abs(float(shapely.area(triangles).sum()) - area) > tolerance \
            or shapely.union_all(triangles).symmetric_difference(polygon).area > tolerance:
        x0, y0, x1, y1 = polygon.bounds
        raise GraphError(f"the free space within x {x0:g}..{x1:g}, y {y0:g}..{y1:g} cannot "
                         f"be triangulated ({hint})")
    return list(triangles)


def triangulate(free):
    """``(vertices, triangles)``: float64 ``(V, 2)`` unique vertices and
    int32 ``(T, 3)`` counter-clockwise (positive signed area in (x, y))
    vertex ids of the constrained Delaunay triangles of ``free``."""
    if not isinstance(free, shapely.Geometry):
        raise GraphError(f"triangulate needs a shapely geometry (free space), got {free!r}")
    tris = shapely.get_parts(geos_triangles(free, "a mesh built in tiles (tile_size=None) "
                                                  "cuts it elsewhere"))
    # each triangle is a closed 4-point ring: keep its first three corners
    coords = shapely.get_coordinates(tris).reshape(-1, 4, 2)[:, :3, :]
    vertices, inverse = np.unique(coords.reshape(-1, 2), axis=0, return_inverse=True)
    triangles = inverse.reshape(-1, 3).astype(np.int32)
    a, b, c = (vertices[triangles[:, k]] for k in range(3))
    area2 = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
    flip = area2 < 0
    triangles[flip] = triangles[flip][:, [0, 2, 1]]
    if not area2.all():
        # GEOS saw three corners where the arithmetic here sees a line
        triangles, _ = split_flat(vertices, triangles, area2 == 0)
    if len(triangles) == 0:
        raise GraphError("the free space has no area to triangulate")
    return vertices.astype(np.float64), np.ascontiguousarray(triangles)


def _area2(vertices, t):
    """Twice the signed area of triangle ``t`` (three vertex ids)."""
    a, b, c = vertices[t[0]], vertices[t[1]], vertices[t[2]]
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def split_flat(vertices, triangles, flat):
    """``(triangles, origin)``: ``triangles`` without the ones ``flat``
    marks, and for each triangle kept the index of the one it came from
    (itself, or the neighbour it split). Flat triangles have no area in floating
    point, though GEOS saw three corners: nearly collinear points, e.g.
    collinear ones rotated). Dropping one alone would cut the mesh along
    its long edge (a wall inside the free space: no path crosses it);
    instead the triangle across that edge is split at the flat one's middle
    corner, which lies on the edge, so the polygons still meet there. A flat
    triangle on the border (nothing across its long edge) just goes."""
    # a Python loop, but only when GEOS made a flat triangle (rare)
    tris = [list(map(int, t)) for t in triangles]
    alive = [not f for f in flat]
    root = list(range(len(tris)))          # the input triangle each came from
    todo = [i for i in range(len(tris)) if flat[i]]
    by_edge = {}
    for i, t in enumerate(tris):
        if alive[i]:
            for k in range(3):
                by_edge[(t[k], t[(k + 1) % 3])] = i
    while todo:
        i = todo.pop()
        t = tris[i]
        # the middle corner c faces the longest edge (p, q)
        sq = [float(((vertices[t[(k + 1) % 3]] - vertices[t[(k + 2) % 3]]) ** 2).sum())
              for k in range(3)]
        k = int(np.argmax(sq))
        c, p, q = t[k], t[(k + 1) % 3], t[(k + 2) % 3]
        j = by_edge.get((q, p), by_edge.get((p, q)))
        if j is None or not alive[j]:
            continue                                 # on the border: nothing to split
        n = tris[j]
        # n runs ... u -> w ... with {u, w} = {p, q}; d is its third corner
        for s in range(3):
            u, w, d = n[s], n[(s + 1) % 3], n[(s + 2) % 3]
            if {u, w} == {p, q}:
                break
        alive[j] = False
        for k in range(3):
            by_edge.pop((n[k], n[(k + 1) % 3]), None)
        for new in ([u, c, d], [c, w, d]):
            tris.append(new)
            alive.append(True)
            root.append(root[j])
            a2 = _area2(vertices, new)
            if a2 > 0:
                for k in range(3):
                    by_edge[(new[k], new[(k + 1) % 3])] = len(tris) - 1
            else:
                alive[-1] = False            # flat again: split its neighbour in turn
                todo.append(len(tris) - 1)
    kept = [i for i, a in enumerate(alive) if a]
    origin = np.array([root[i] for i in kept], dtype=np.int64)
    return np.array([tris[i] for i in kept], dtype=np.int32).reshape(-1, 3), origin
