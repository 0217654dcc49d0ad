"""Pictures of 3D levels: top-down, a hue per floor, shaded by height.

``draw`` is the levels plugin's ``navcore_draw_graph`` for layered
navmeshes (``LayeredMeshGraph``: ``navcore.draw``, ``navcore.plot`` and
``navcore render`` of a scene with a level graph):

* floors (``floors``): a polygon's floor is 0 when no polygon lies under
  it, else one more than the highest floor of the polygons under it; "under"
  means overlapping it in the ground plane (sharing more than an edge)
  with a lower mean corner height. A bridge is floor 1 over a road of
  floor 0, a second storey floor 1 over the ground floor and the stairs
  between them floor 0 where nothing lies under them;
* each pixel shows the top polygon there (highest floor, then highest),
  so upper floors are drawn over lower ones;
* its colour is its floor's hue (``FLOOR_COLOURS``, in turn) times a
  brightness from 0.45 (the level's lowest vertex) to 1.0 (its highest)
  of the surface height at the pixel (the graph's ``surface``: a level's
  detail height mesh; the polygon's mean corner height where it has
  none), so a ramp darkens as it goes down;
* polygons that are not walkable are wall-coloured, and pixels where the
  floor changes are darkened (``BORDER``) so the outline of each floor
  shows.

Connected areas are not coloured here (they are on a 2D navmesh): on a
level the colours say which floor is which.
"""
from __future__ import annotations

import numpy as np
import shapely

#: one colour per floor, in turn (floor ``k`` gets ``FLOOR_COLOURS[k % 6]``)
FLOOR_COLOURS = np.array([(90, 170, 255), (255, 150, 60), (110, 220, 110),
                          (230, 110, 230), (240, 220, 80), (90, 225, 215)], dtype=np.float64)
#: brightness of the lowest and the highest point of a level
DARKEST, BRIGHTEST = 0.45, 1.0
#: pixels where the floor changes are darkened by this factor
BORDER = 0.6
_KEY = "navcore_levels.floors"


def _polygons(graph) -> np.ndarray:
    """Shapely polygons of the graph's ground-plane projection, by id."""
    deg = np.diff(graph.poly_start)
    rings = shapely.linearrings(graph.vertices[graph.poly_verts],
                                indices=np.repeat(np.arange(deg.size), deg))
    return shapely.polygons(rings)


def mean_heights(graph) -> np.ndarray:
    """float64 ``(P,)``: each polygon's mean corner height."""
    deg = np.diff(graph.poly_start)
    return np.add.reduceat(graph.heights[graph.poly_verts], graph.poly_start[:-1]) / deg


def floors(graph) -> np.ndarray:
    """int64 ``(P,)``: each polygon's floor (see the module), kept on the
    graph while its polygons are the same."""
    kept = graph.extensions.get(_KEY)
    if kept is not None and kept[0] is graph.poly_verts:
        return kept[1]
    polys = _polygons(graph)
    a, b = shapely.STRtree(polys).query(polys, predicate="intersects")
    h = mean_heights(graph)
    below = h[b] < h[a]
    a, b = a[below], b[below]
    span = float(np.ptp(graph.vertices, axis=0).max()) or 1.0
    area = shapely.area(shapely.intersection(polys[a], polys[b]))
    a, b = a[area > 1e-9 * span * span], b[area > 1e-9 * span * span]
    floor = np.zeros(len(polys), dtype=np.int64)
    # longest chain of polygons under each: heights strictly fall along it,
    # so at most P rounds, in practice as many as there are storeys
    for _ in range(len(polys)):
        new = floor.copy()
        np.maximum.at(new, a, floor[b] + 1)
        if np.array_equal(new, floor):
            break
        floor = new
    graph.extensions[_KEY] = (graph.poly_verts, floor)
    return floor


def draw(graph, canvas) -> bool:
    """Paint the layered navmesh ``graph`` into ``canvas`` (see the module)."""
    from navcore_navmesh.scene_layer import rasterise
    floor = floors(graph)
    h = mean_heights(graph)
    top_first = np.lexsort((-h, -floor))      # highest floor, then highest, first
    deg = np.diff(graph.poly_start)[top_first]
    start = np.concatenate([[0], np.cumsum(deg)]).astype(graph.poly_start.dtype)
    old = np.repeat(graph.poly_start[top_first] - start[:-1], deg)
    verts = graph.poly_verts[np.arange(start[-1]) + old]
    # rasterise keeps the lowest id at a pixel: the first in top_first
    ranked = rasterise(graph.vertices, start, verts, canvas.origin, canvas.scale,
                       canvas.node_at.shape)
    shown = ranked >= 0
    node = top_first[ranked[shown]]
    height = h[node]
    if graph.surface is not None and node.size:
        at = graph.surface(node, canvas.pixel_centres()[shown])
        height = np.where(np.isfinite(at), at, height)
    lo, hi = float(graph.heights.min()), float(graph.heights.max())
    t = (height - lo) / (hi - lo) if hi > lo else np.ones_like(height)
    shade = DARKEST + (BRIGHTEST - DARKEST) * np.clip(t, 0.0, 1.0)
    rgb = FLOOR_COLOURS[floor[node] % len(FLOOR_COLOURS)] * shade[:, None]
    rgb[~graph.walkable[node]] = canvas.wall
    canvas.rgb[shown] = rgb.astype(np.uint8)
    canvas.node_at[shown] = node
    # floor borders are part of the map, not the overlay --borders asks for
    asked = canvas.outlined
    canvas.outline(floor, BORDER)
    canvas.outlined = asked
    return True
