"""Layered navmeshes (3D levels) in scenes.

A level's scene points are 3D, ``[x, y, z]`` in the level's axes
(``dims = 3``), as its queries take them; regions, bounds and pictures
stay on the ground plane, so a region is written as on a 2D navmesh, in
ground coordinates (``[x, z, width, depth]`` or a ring of ``[x, z]`` when
y is up), and holds the polygons of every floor under it. To take one
floor, give the region as a mapping with the heights it spans:
``{rect: [x, z, w, d], height: [low, high]}`` (or ``ring:``): the
polygons whose corners reach into that band.

The mesh's polygons do not change at run time, so what a scene does to it
(doors, ``block`` events, moving obstacles) walls and frees polygons with
the generic node updates (``nodes=``, ``walkable=``), as on a graph with
positions. Crowds are drawn evenly by area over the region's polygons
and lifted onto the surface.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely

from navcore.errors import SceneError
from navcore.scene_layer import SceneLayer
from navcore.validate import describe

from .build import geos_triangles
from .scene_layer import MeshRegion, NavMeshSceneLayer


@dataclass(frozen=True)
class FloorRegion:
    """A ground region with a height band: the polygons under ``ground``
    that reach into ``low``..``high``."""

    ground: MeshRegion
    low: float
    high: float
    shown: str = field(compare=False)

    @property
    def polygon(self):
        return self.ground.polygon


def scene_layer(world, graph_id, graph):
    """The navmesh plugin's scene layer for ``graph``: layered meshes
    (``heights`` set) take 3D points, the others 2D."""
    if graph.heights is not None:
        return LayeredSceneLayer(world, graph_id, graph)
    return NavMeshSceneLayer(world, graph_id, graph)


class LayeredSceneLayer(NavMeshSceneLayer):
    """Scene state of a layered navmesh (see the module docstring)."""

    dims = 3

    def on_ground(self, points) -> np.ndarray:
        return self.graph.to_ground(points)

    def region(self, value):
        if isinstance(value, dict):
            keys = set(value)
            shape = keys & {"rect", "ring"}
            if len(shape) != 1 or keys - {"rect", "ring", "height"} or "height" not in keys:
                why = ("has no 'height: [low, high]'" if len(shape) == 1 and keys == shape
                       else f"has keys {sorted(map(str, keys))}")
                raise SceneError(f"must be a ground region [x, y, w, h] or ring, or a "
                                 f"mapping {{rect: [x, y, w, h] (or ring: [[x, y], ...]), "
                                 f"height: [low, high]}}; this mapping {why}")
            band = value["height"]
            if not (isinstance(band, list) and len(band) == 2
                    and all(isinstance(c, (int, float)) and not isinstance(c, bool)
                            and math.isfinite(c) for c in band) and band[0] <= band[1]):
                raise SceneError(f"height must be [low, high] with low <= high, got "
                                 f"{describe(band)}")
            ground = super().region(value[shape.pop()])
            return FloorRegion(ground, float(band[0]), float(band[1]),
                               f"{ground.shown} at heights {band[0]:g}..{band[1]:g}")
        return super().region(value)

    def nodes_in(self, region) -> np.ndarray:
        if isinstance(region, FloorRegion):
            nodes = super().nodes_in(region.ground)
            g = self.graph
            h = g.heights[g.poly_verts]
            start = g.poly_start[:-1]
            lo, hi = np.minimum.reduceat(h, start), np.maximum.reduceat(h, start)
            keep = (hi[nodes] >= region.low) & (lo[nodes] <= region.high)
            return nodes[keep]
        return super().nodes_in(region)

    def show(self, region) -> str:
        return region.shown if isinstance(region, FloorRegion) else super().show(region)

    def region_box(self, region) -> tuple:
        return super().region_box(region.ground if isinstance(region, FloorRegion)
                                  else region)

    def sample_points(self, region, count, rng, usable):
        """3D points spread evenly (by ground area) over the usable
        polygons of ``region``, each lifted onto its polygon's surface."""
        nodes = self.nodes_in(region)
        nodes = nodes[usable[nodes]]
        if nodes.size == 0:
            return None
        cut = shapely.intersection(self._geometries()[0][nodes], region.polygon)
        corners, owner = [], []
        for node, piece in zip(nodes.tolist(), cut):     # scene setup: once per crowd
            parts = shapely.get_parts(piece)
            parts = parts[(shapely.get_type_id(parts) == 3) & (shapely.area(parts) > 0)]
            if not parts.size:
                continue
            tris = shapely.get_parts(geos_triangles(parts, "a point is drawn elsewhere"))
            c = shapely.get_coordinates(tris).reshape(-1, 4, 2)[:, :3]
            corners.append(c)
            owner.append(np.full(len(c), node, dtype=np.int64))
        if not corners:
            return None
        corners, owner = np.concatenate(corners), np.concatenate(owner)
        a, b, c = corners[:, 0], corners[:, 1], corners[:, 2]
        area = np.abs((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1])
                      - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0]))
        pick = rng.choice(len(area), size=count, p=area / area.sum())
        u, v = rng.random((2, count))
        fold = u + v > 1
        u, v = np.where(fold, 1 - u, u), np.where(fold, 1 - v, v)
        ground = a[pick] + u[:, None] * (b[pick] - a[pick]) + v[:, None] * (c[pick] - a[pick])
        return self.graph.points_on(owner[pick], ground)

    # -- what a scene does: the polygons stay, walled and freed by id --------
    def set_walkable(self, region, walkable) -> None:
        self._shown()
        SceneLayer.set_walkable(self, region, walkable)

    def restore(self, region) -> None:
        SceneLayer.restore(self, region)

    def cover(self, region, amount) -> None:
        SceneLayer.cover(self, region, amount)

    def set_cost(self, region, value) -> None:
        SceneLayer.set_cost(self, region, value)

    def flush(self) -> int:
        return SceneLayer.flush(self)

    def obstacle_nodes(self) -> np.ndarray:
        return SceneLayer.obstacle_nodes(self)

    # -- agents: points are 3D, placed on a floor as queries place them ------
    def buried(self, point, node) -> bool:
        return node < 0 or not self.graph.walkable[node]

    def step_out(self, point, node):
        """None: an agent on a walled polygon waits where it stands (the
        request says invalid_start) until the polygon is freed."""
        return None

    def entering_walls(self, at, now) -> np.ndarray:
        g = self.graph
        to, here = g.locate_many(at), g.locate_many(now)
        blocked = (to < 0) | ~g.walkable[np.maximum(to, 0)]
        return blocked & (to != here)
