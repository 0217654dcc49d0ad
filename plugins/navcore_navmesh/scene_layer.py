"""Navmeshes in scenes: regions are rectangles and polygons in world units.

``NavMeshSceneLayer`` is what the navmesh plugin's ``navcore_scene_layer``
returns for a navmesh of a scene (the contract: ``navcore/scene_layer.py``);
``draw`` is its ``navcore_draw_graph``. A scene writes a region as a
rectangle ``[x, y, w, h]`` (a corner and a width and height, as on grids
and in ``world.update(..., rect=)``) or as a polygon ring
``[[x, y], [x, y], [x, y], ...]``; its nodes are the polygons of the mesh
whose inside overlaps the region's inside.

On a grid a change flips cells; on a navmesh it changes the geometry, so
the layer keeps what a scene did as geometry and queues it with the
navmesh's own updates, which re-carve the mesh (the polygons and their ids
change, so nothing here is kept per node):

* ``block``, a closed door: ``world.update(gid, region=polygon, walkable=False)``;
* ``unblock``: ``region=polygon, walkable=True``; an opened door: the same
  with the door's region cut to the ground as drawn, so walls beside the
  passage stay walls;
* a moving obstacle: ``add_obstacle=polygon, obstacle_id=ID`` where it
  arrives, ``remove_obstacle=ID`` where it leaves; its box snaps to
  ``OBSTACLE_STEP`` so the mesh is carved again only when it moved that far;
* ``cost``: ``.inf`` blocks like ``block``; a finite cost weighs the edges
  of the polygons the region overlaps (the generic ``edges=``, ``cost=``:
  a mesh has no finer cost than its polygons). Re-carving builds new
  polygons at the plain centroid distance, so the layer keeps the costs
  (``mud``) and lays them on the new polygons at the next flush, a frame
  after the change (their ids are known once the tick made them). Costs
  weigh the searches over the polygon graph (``polygon_astar``, ``funnel``);
  ``polyanya``, the exact search agents use by default, measures length.

Regions and obstacles are given in world coordinates, as the map is drawn;
the navmesh applies its own agent radius. Numpy and shapely only: the
scenes plugin brings YAML and Pillow, this module receives plain values
and arrays.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry import Polygon, box

from navcore.errors import SceneError
from navcore.scene_layer import SceneLayer
from navcore.validate import describe

from .build import geos_triangles
from .mesh import size_scale

#: where a navmesh keeps the scene layer that plays on it (``graph.extensions``):
#: pictures draw the crates and walls it dropped
SCENE_KEY = "navcore_navmesh.scene"
#: a moving obstacle's box snaps to this grid (world units)
OBSTACLE_STEP = 0.25
#: how far (world units, beyond the agent radius) an agent whose ground
#: was blocked or carved away looks for walkable ground to start from
STEP_OUT = 3.0
#: polygons at least this many pixels in area on average get thin outlines
EDGE_PIXELS = 150
EDGE_DARKEN = 0.8
#: floor of the map that the mesh leaves out: within the agent radius of a wall
MARGIN = (78, 80, 92)
#: pixels whose polygon tests run at once when a picture is rasterised
CHUNK = 1 << 21


@dataclass(frozen=True)
class MeshRegion:
    """A region of a navmesh: ``ring``, its corners as a tuple of ``(x, y)``
    float pairs (compared with ``==``: moving obstacles compare regions),
    ``shown``, how messages print it, and ``polygon``, the shapely one."""

    ring: tuple
    shown: str = field(compare=False)
    polygon: Polygon = field(compare=False, repr=False)

    @classmethod
    def rect(cls, x, y, w, h) -> "MeshRegion":
        """The rectangle with corner ``(x, y)``, ``w`` wide and ``h`` high."""
        x, y, w, h = (float(c) for c in (x, y, w, h))
        x1, y1 = x + w, y + h
        return cls(((x, y), (x1, y), (x1, y1), (x, y1)),
                   f"[{x:g}, {y:g}, {w:g}, {h:g}]", box(x, y, x1, y1))


def _number(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)


class NavMeshSceneLayer(SceneLayer):
    """Scene state of one navmesh (see the module docstring)."""

    node_word = "polygon"

    def __init__(self, world, graph_id, graph):
        super().__init__(world, graph_id, graph)
        ground = graph.ground if graph.ground is not None else graph.free_space
        if ground is None:                    # a mesh from arrays: its polygons
            ground = shapely.union_all(self._geometries()[0])
        self.ground = ground
        x0, y0, x1, y1 = (float(c) for c in ground.bounds)
        self._bounds = (x0, y0, x1, y1)
        self._box = box(x0, y0, x1, y1).buffer(1e-9 * max(x1 - x0, y1 - y0, 1.0),
                                               join_style="mitre")
        #: what the scene walled (block events, closed doors), for pictures
        self.walled = Polygon()
        #: obstacle id -> polygon of the moving obstacles placed now
        self.placed: dict = {}
        self._pending: list = []        # (polygon, walkable) in the order they came
        self._cover: dict = {}          # region -> how many obstacles cover it
        self._ids: dict = {}            # region -> obstacle id queued for it
        self._changed: set = set()      # regions whose cover changed since the flush
        self._serial = 0
        self._cache = None              # (vertices, poly_verts, geometries, tree)
        #: finite costs set, ``(region, value)`` in order: laid again on
        #: the polygons re-carving makes
        self.mud: list = []
        self._mud_on = None             # the poly_verts the mud was laid on

    def _shown(self) -> None:
        """Pictures of the graph draw this layer's walls and obstacles from
        now on. Set when the layer first walls or places something, not
        when it is made: a layer that ``navcore.draw`` makes only to frame
        a picture must not hide a running scene's."""
        self.graph.extensions[SCENE_KEY] = self

    # -- geometry ---------------------------------------------------------------
    def region(self, value) -> MeshRegion:
        if isinstance(value, list) and len(value) == 4 and all(_number(c) for c in value):
            x, y, w, h = value
            if not (w > 0 and h > 0):
                raise SceneError(f"must be a rectangle [x, y, width, height] with width "
                                 f"and height > 0, got {describe(value)}")
            reg = MeshRegion.rect(x, y, w, h)
        elif isinstance(value, list) and len(value) >= 3 and all(
                isinstance(p, list) and len(p) == 2 and all(_number(c) for c in p)
                for p in value):
            poly = Polygon(value)
            if not poly.is_valid or poly.area <= 0:
                why = shapely.is_valid_reason(poly) if not poly.is_valid else "no area"
                raise SceneError(f"must be a simple polygon ring, got {describe(value)} "
                                 f"({why})")
            ring = tuple((float(x), float(y)) for x, y in value)
            reg = MeshRegion(ring, "[" + ", ".join(f"[{x:g}, {y:g}]" for x, y in ring) + "]",
                             poly)
        else:
            raise SceneError(f"must be a rectangle [x, y, width, height] or a polygon ring "
                             f"[[x, y], [x, y], [x, y], ...] in world units, got "
                             f"{describe(value)}")
        if not self._box.covers(reg.polygon):
            raise SceneError(f"{reg.shown} does not fit in graph {self.graph_id!r} "
                             f"(bounds {self._show_bounds()})")
        return reg

    def nodes_in(self, region) -> np.ndarray:
        """The polygons whose inside overlaps the region's inside (sharing
        only an edge or a corner does not count), by id."""
        polys, tree = self._geometries()
        idx = tree.query(region.polygon, predicate="intersects")
        idx = idx[~shapely.touches(polys[idx], region.polygon)]
        return np.sort(idx).astype(np.int64)

    def bounds(self) -> tuple:
        """The box of the ground as drawn (before the agent radius took its
        margin from the walls): navmeshes of one place for agents of
        different sizes share it, so their pictures line up."""
        return self._bounds

    def box_region(self, box_) -> MeshRegion:
        x, y, w, h = box_
        x0 = round(x / OBSTACLE_STEP) * OBSTACLE_STEP
        y0 = round(y / OBSTACLE_STEP) * OBSTACLE_STEP
        return MeshRegion.rect(x0, y0, w, h)

    def region_box(self, region) -> tuple:
        x0, y0, x1, y1 = region.polygon.bounds
        return (x0, y0, x1 - x0, y1 - y0)

    def sample_points(self, region, count, rng, usable):
        """Points spread evenly (by area) over the part of ``region`` that
        the usable polygons cover: the region cut to each polygon,
        triangulated, a triangle drawn by area, a point in it."""
        nodes = self.nodes_in(region)
        nodes = nodes[usable[nodes]]
        if nodes.size == 0:
            return None
        pieces = shapely.intersection(self._geometries()[0][nodes], region.polygon)
        pieces = shapely.get_parts(pieces)
        pieces = pieces[shapely.get_type_id(pieces) == 3]          # polygons only
        pieces = pieces[shapely.area(pieces) > 0]
        if pieces.size == 0:
            return None
        tris = shapely.get_parts(geos_triangles(pieces, "a point is drawn elsewhere"))
        corners = shapely.get_coordinates(tris).reshape(-1, 4, 2)[:, :3]
        a, b, c = corners[:, 0], corners[:, 1], corners[:, 2]
        area = np.abs((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1])
                      - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0]))
        pick = rng.choice(len(area), size=count, p=area / area.sum())
        u, v = rng.random((2, count))
        fold = u + v > 1                     # the far half of the parallelogram
        u, v = np.where(fold, 1 - u, u), np.where(fold, 1 - v, v)
        return a[pick] + u[:, None] * (b[pick] - a[pick]) + v[:, None] * (c[pick] - a[pick])

    def _geometries(self):
        """Shapely polygons of the mesh as it is now and an STRtree over
        them, made again when an update replaced the mesh's arrays."""
        g = self.graph
        c = self._cache
        if c is None or c[0] is not g.vertices or c[1] is not g.poly_verts:
            # slots that re-carving retired have no corners: empty polygons
            deg = np.diff(g.poly_start)
            live = np.flatnonzero(deg > 0)
            polys = np.full(g.num_polygons, Polygon(), dtype=object)
            if live.size:
                rings = shapely.linearrings(g.vertices[g.poly_verts],
                                            indices=np.repeat(np.arange(live.size),
                                                              deg[live]))
                polys[live] = shapely.polygons(rings)
            c = self._cache = (g.vertices, g.poly_verts, polys, shapely.STRtree(polys))
        return c[2], c[3]

    # -- what a scene does to the mesh: queued as navmesh updates ----------------
    def set_walkable(self, region, walkable) -> None:
        self._shown()
        self._pending.append((region.polygon, bool(walkable)))
        self.walled = (self.walled.difference(region.polygon) if walkable
                       else self.walled.union(region.polygon))

    def restore(self, region) -> None:
        """The region as the map was built: unblocked where it is ground."""
        self._shown()
        self.walled = self.walled.difference(region.polygon)
        # where the region runs along a wall, the cut also has segments
        # and points (a GeometryCollection): the update takes polygons
        parts = shapely.get_parts(region.polygon.intersection(self.ground))
        parts = parts[(shapely.get_type_id(parts) == 3) & (shapely.area(parts) > 0)]
        if parts.size:
            self._pending.append((parts[0] if parts.size == 1 else shapely.union_all(parts),
                                  True))

    def cover(self, region, amount) -> None:
        n = self._cover.get(region, 0) + amount
        if n:
            self._cover[region] = n
        else:
            self._cover.pop(region, None)
        self._changed.add(region)

    def set_cost(self, region, value) -> None:
        """``.inf`` walls the region; a finite ``value`` makes every edge
        of the polygons it overlaps cost ``value`` times the distance
        between their centroids (what a navmesh edge costs when built).
        The layer keeps the finite costs (``mud``) and lays them again on
        the polygons re-carving makes (``flush``)."""
        if math.isinf(value):
            self.set_walkable(region, False)
            return
        self.mud.append((region, float(value)))
        self._lay_mud()

    def _lay_mud(self) -> int:
        """Queue the edge costs the ``mud`` gives (the last region that
        overlaps either polygon of an edge sets it) where the mesh's
        differ: every edge after a cost event, the edges of new polygons
        after re-carving (which builds them at the centroid distance)."""
        g = self.graph
        self._mud_on = g.poly_verts
        csr = g.csr
        src = np.repeat(np.arange(csr.num_nodes), np.diff(csr.offsets))
        value = np.full(csr.targets.size, np.nan)
        for region, v in self.mud:
            idx = self.nodes_in(region)
            value[np.isin(csr.targets, idx) | np.isin(src, idx)] = v
        hit = np.flatnonzero(~np.isnan(value))
        pos = g.positions
        cost = value[hit] * np.hypot(*(pos[src[hit]] - pos[csr.targets[hit]]).T)
        new = ~np.isclose(cost, csr.cost[hit], rtol=1e-12, atol=0.0)
        if new.any():
            hit = hit[new]
            self.world.update(self.graph_id,
                              edges=np.column_stack((src[hit], csr.targets[hit])),
                              cost=cost[new])
        return int(new.sum())

    def flush(self) -> int:
        """Queue what changed since the last flush: regions walled or
        cleared in order, then obstacles that left, then those that came.
        When the mesh was re-carved since the mud was laid, first the mud
        on its new polygons (their ids are known only now, so a frame
        after the change that made them)."""
        n = 0
        if self.mud and self._mud_on is not self.graph.poly_verts:
            self._lay_mud()
        pending, self._pending = self._pending, []
        for polygon, walkable in pending:
            self.world.update(self.graph_id, region=polygon, walkable=walkable)
            n += 1
        changed, self._changed = self._changed, set()
        arrived = [r for r in changed if r in self._cover and r not in self._ids]
        left = [r for r in changed if r not in self._cover and r in self._ids]
        if arrived or left:
            self._shown()
        for r in left:
            oid = self._ids.pop(r)
            del self.placed[oid]
            self.world.update(self.graph_id, remove_obstacle=oid)
        for r in arrived:
            self._serial += 1
            oid = self._ids[r] = f"scene-{self._serial}"
            self.placed[oid] = r.polygon
            self.world.update(self.graph_id, add_obstacle=r.polygon, obstacle_id=oid)
        return n + len(left) + len(arrived)

    def obstacle_nodes(self) -> np.ndarray:
        """No polygon lies under an obstacle: the mesh is carved round it
        (pictures draw ``placed`` instead)."""
        return np.zeros(self.graph.num_nodes, dtype=bool)

    # -- words and agents ---------------------------------------------------------
    def agent_radius(self):
        return float(self.graph.agent_radius)

    def describe(self) -> str:
        return f"{self.graph.num_polygons} polygons for radius {self.graph.agent_radius:g}"

    def extent(self) -> str:
        r = self.graph.agent_radius
        near = f" or within its agent radius {r:g} of one" if r > 0 else ""
        return f"off its mesh: in a wall{near}; bounds {self._show_bounds()}"

    def show(self, region) -> str:
        return region.shown if isinstance(region, MeshRegion) else super().show(region)

    def _show_bounds(self) -> str:
        return "[" + ", ".join(f"{c:g}" for c in self._bounds) + "]"

    def buried(self, point, node) -> bool:
        """Off the mesh or on a blocked polygon, placed exactly: ``node``
        comes from ``locate``, which snaps points up to the agent radius
        off the mesh onto it."""
        g = self.graph
        p = g.locate_index().locate_point(float(point[0]), float(point[1]))
        return p < 0 or not g.walkable[p]

    def step_out(self, point, node):
        """The nearest point of a walkable polygon at most ``STEP_OUT``
        plus the agent radius away, a hair inside it (``None`` when there
        is none: the request says invalid_start and the agent waits)."""
        g = self.graph
        walk = np.repeat(g.walkable, np.diff(g.poly_start))
        edges = np.flatnonzero(walk)
        if edges.size == 0:
            return None
        a = g.vertices[g.poly_verts[edges]]
        b = g.vertices[g.poly_verts[g.poly_next[edges]]]
        p = np.asarray(point, dtype=np.float64)[:2]
        ab = b - a
        t = np.clip(((p - a) * ab).sum(axis=1) / np.maximum((ab * ab).sum(axis=1), 1e-300),
                    0.0, 1.0)
        q = a + t[:, None] * ab
        d = np.hypot(*(q - p).T)
        k = int(np.argmin(d))
        if d[k] > STEP_OUT + g.agent_radius:
            return None
        owner = int(np.searchsorted(g.poly_start, edges[k], side="right") - 1)
        inward = g.positions[owner] - q[k]
        out = q[k] + inward * min(1.0, 1e-6 / max(float(np.hypot(*inward)), 1e-300))
        return (float(out[0]), float(out[1]))

    def entering_walls(self, at, now) -> np.ndarray:
        """A step that leaves its polygon for a blocked one, or for no
        polygon at all (ground carved away under the path), and a step of
        an agent already off the mesh (a crate fell on it, or within its
        radius) that takes it further from the mesh: it steps out, it
        does not walk on under the crate. Points are placed exactly: the
        graph's ``locate`` snaps points up to the agent radius off the
        mesh onto it, which would let agents walk that far into a crate
        dropped in their way."""
        g = self.graph
        index = g.locate_index()
        to, here = index.locate_many(at), index.locate_many(now)
        blocked = (to < 0) | ~g.walkable[np.maximum(to, 0)]
        held = blocked & (to != here)
        reach = STEP_OUT + g.agent_radius
        for i in np.flatnonzero((to < 0) & (here < 0)):     # the few a crate fell on
            held[i] = _off_mesh(index, at[i], reach) > _off_mesh(index, now[i], reach) + 1e-9
        return held


def _off_mesh(index, point, reach) -> float:
    """How far ``point`` lies from the nearest walkable polygon (``inf``
    when none is within ``reach``)."""
    x, y = float(point[0]), float(point[1])
    p, px, py = index.nearest(x, y, reach)
    return math.hypot(px - x, py - y) if p >= 0 else math.inf


# -- pictures -------------------------------------------------------------------

#: how dark a tile border is drawn (times the colour under it): darker
#: than a polygon's outline
TILE_DARKEN = 0.3


def draw(graph, canvas) -> bool:
    """Paint ``graph`` into ``canvas``: the ground the mesh leaves out (the
    margin its agent radius keeps from walls) in a dim grey, every polygon
    in its node's colour with thin outlines when polygons are large enough
    to show them, what a scene walled dark, its moving obstacles in the
    canvas's obstacle colour, and with ``canvas.tiles`` a tiled mesh's tile
    borders dark. Walls and static obstacles stay the canvas's wall
    colour."""
    ground, node_at, edges = _raster(graph, canvas)
    canvas.rgb[ground] = MARGIN
    canvas.paint(node_at)
    if edges is not None:
        canvas.rgb[edges] = (canvas.rgb[edges] * EDGE_DARKEN).astype(np.uint8)
    scene = graph.extensions.get(SCENE_KEY)
    if scene is not None:
        _fill(canvas, scene.walled.intersection(scene.ground), canvas.wall)
        for polygon in scene.placed.values():
            _fill(canvas, polygon, canvas.covered)
    if getattr(canvas, "tiles", False) and graph.tiles is not None:
        # where the polygons of one tile meet another's (retired slots: -1)
        canvas.outline(graph.tiles.tile_of, TILE_DARKEN)
    return True


def _edges(node_at):
    """Bool ``(H, W)``: the first pixel right of and below a change of
    polygon (both sides on the mesh), or ``None`` when the polygons are
    too small in the picture for outlines to help."""
    shown = node_at >= 0
    if not shown.any() or shown.sum() < EDGE_PIXELS * np.unique(node_at[shown]).size:
        return None
    edge = np.zeros(node_at.shape, dtype=bool)
    for now, before, out in ((node_at[:, 1:], node_at[:, :-1], edge[:, 1:]),
                             (node_at[1:], node_at[:-1], edge[1:])):
        out |= (now != before) & (now >= 0) & (before >= 0)
    return edge


def _fill(canvas, geometry, colour) -> None:
    """Paint the pixels whose centres ``geometry`` covers (within its
    bounding box only) in ``colour``; they show no node."""
    if geometry.is_empty:
        return
    h, w = canvas.node_at.shape
    s, (ox, oy) = canvas.scale, canvas.origin
    x0, y0, x1, y1 = geometry.bounds
    c0, c1 = max(0, math.ceil((x0 - ox) * s - 0.5)), min(w - 1, math.floor((x1 - ox) * s - 0.5))
    r0, r1 = max(0, math.ceil((y0 - oy) * s - 0.5)), min(h - 1, math.floor((y1 - oy) * s - 0.5))
    if c0 > c1 or r0 > r1:
        return
    xs = ox + (np.arange(c0, c1 + 1) + 0.5) / s
    ys = oy + (np.arange(r0, r1 + 1) + 0.5) / s
    inside = shapely.contains_xy(geometry, *np.meshgrid(xs, ys))
    canvas.rgb[r0:r1 + 1, c0:c1 + 1][inside] = colour
    canvas.node_at[r0:r1 + 1, c0:c1 + 1][inside] = -1


def _raster(graph, canvas):
    """``(ground, node_at, edges)`` for this canvas: a bool ``(H, W)`` of
    the pixels on the ground as drawn, the int32 polygon under each pixel
    centre (``-1``: none) and the outline pixels (``_edges``). Kept on the
    graph until its arrays or the canvas's frame change (every picture of
    an animation reuses it)."""
    key = (canvas.origin, canvas.scale, canvas.node_at.shape)
    kept = graph.extensions.get(SCENE_KEY + ".raster")
    if kept is not None and kept[0] == key and kept[1] is graph.vertices \
            and kept[2] is graph.poly_verts:
        return kept[3:]
    centres = canvas.pixel_centres()
    ground_geom = graph.ground if graph.ground is not None else graph.free_space
    if ground_geom is None:
        ground = np.zeros(canvas.node_at.shape, dtype=bool)
    else:
        ground = shapely.contains_xy(ground_geom, centres[..., 0], centres[..., 1])
    node_at = rasterise(graph.vertices, graph.poly_start, graph.poly_verts,
                        canvas.origin, canvas.scale, canvas.node_at.shape)
    edges = _edges(node_at)
    graph.extensions[SCENE_KEY + ".raster"] = (key, graph.vertices, graph.poly_verts,
                                               ground, node_at, edges)
    return ground, node_at, edges


def rasterise(vertices, poly_start, poly_verts, origin, scale, shape) -> np.ndarray:
    """int32 ``shape``: the lowest id of the convex polygon holding each
    pixel centre (``origin + (i + 0.5) / scale``), ``-1`` where none does:
    the answer ``locate`` gives, with its tolerance on edges. Vectorised
    over (polygon, pixel of its bounding box) pairs, in chunks; one pass
    per edge position, never a loop over pixels or polygons."""
    h, w = shape
    out = np.full(h * w, np.iinfo(np.int32).max, dtype=np.int32)
    deg = np.diff(poly_start).astype(np.int64)
    live = np.flatnonzero(deg > 0)        # slots re-carving retired have no corners
    n = live.size
    if n == 0:
        return np.full(shape, -1, dtype=np.int32)
    s, o = float(scale), np.asarray(origin, dtype=np.float64)
    starts = poly_start[live].astype(np.int64)
    deg = deg[live]
    nxt = np.arange(1, len(poly_verts) + 1, dtype=np.int64)
    nxt[starts + deg - 1] = starts
    corners = vertices[poly_verts]
    lo = np.minimum.reduceat(corners, starts, axis=0)
    hi = np.maximum.reduceat(corners, starts, axis=0)
    tol = 1e-12 * size_scale(vertices) ** 2      # LocateIndex's
    c0 = np.maximum(np.ceil((lo - o) * s - 0.5 - 1e-9), 0).astype(np.int64)
    c1 = np.minimum(np.floor((hi - o) * s - 0.5 + 1e-9), [w - 1, h - 1]).astype(np.int64)
    wx = np.maximum(c1[:, 0] - c0[:, 0] + 1, 0)
    wy = np.maximum(c1[:, 1] - c0[:, 1] + 1, 0)
    count = wx * wy
    ends = np.cumsum(count)
    first = 0
    while first < n:                       # chunks of about CHUNK pairs
        last = max(first + 1, int(np.searchsorted(ends, ends[first] - count[first] + CHUNK,
                                                  side="right")))
        last = min(last, n)
        ids = np.arange(first, last)
        cnt = count[ids]
        pid = np.repeat(ids, cnt)
        if pid.size:
            k = np.arange(pid.size) - np.repeat(np.cumsum(cnt) - cnt, cnt)
            col = c0[pid, 0] + k % wx[pid]
            row = c0[pid, 1] + k // wx[pid]
            x = o[0] + (col + 0.5) / s
            y = o[1] + (row + 0.5) / s
            inside = np.ones(pid.size, dtype=bool)
            for j in range(int(deg[ids].max())):
                has = j < deg[pid]
                e = np.where(has, starts[pid] + j, 0)
                a = vertices[poly_verts[e]]
                b = vertices[poly_verts[nxt[e]]]
                ax, ay = a[:, 0], a[:, 1]
                cross = (b[:, 0] - ax) * (y - ay) - (b[:, 1] - ay) * (x - ax)
                inside &= ~has | (cross >= -tol)
            np.minimum.at(out, (row * w + col)[inside], live[pid[inside]].astype(np.int32))
        first = last
    out[out == np.iinfo(np.int32).max] = -1
    return out.reshape(shape)
