"""``Canvas``: what backends draw a graph's picture into, with numpy only.

A picture (``navcore.draw``, or a scene's through the scenes plugin) is
one canvas covering the graph's frame (its scene layer's ``bounds``),
handed to ``navcore_draw_graph`` (the backend paints its map: cells,
triangles, roads) and then to ``navcore_draw_overlay`` (extras: the
areas plugin's node borders); paths and agents are drawn over the
result with Pillow (``navcore_draw.picture``). A backend needs nothing
from this module: everything it uses is an attribute or method of the
canvas it is given.

Colours: every connected area in its own light colour, a function of the
area id, so an area keeps its colour from frame to frame of an animation;
walls dark, floor under a moving obstacle dark red.

>>> c = Canvas((0, 0, 2, 1), 2, Canvas.area_colours(np.array([0, -1])))
>>> c.rgb.shape, c.to_pixels([[1.0, 0.5]]).tolist()
((2, 4, 3), [[2.0, 1.0]])
>>> c.paint([[0, 0, 1, 1], [0, 0, 1, 1]])
>>> c.rgb[0, 0].tolist() == list(area_colour(0)), c.rgb[0, 3].tolist() == list(WALL)
(True, True)
"""
from __future__ import annotations

import colorsys
import math

import numpy as np

WALL = (32, 32, 38)
COVERED = (150, 45, 40)           # floor under a moving obstacle
BORDER_DARKEN = 0.6               # outlines: the colour under them times this


def area_colour(area_id: int) -> tuple:
    """A light colour for an area id; neighbouring ids get distant hues."""
    hue = (area_id * 0.6180339887) % 1.0
    r, g, b = colorsys.hsv_to_rgb(hue, 0.45, 0.92)
    return (int(r * 255), int(g * 255), int(b * 255))


class Canvas:
    """A picture of one graph being drawn.

    ``rgb``: ``(H, W, 3)`` uint8, the pixels (wall-coloured where nothing
    is drawn). ``node_at``: ``(H, W)`` int32, the node each pixel shows
    (``-1``: none); the base map fills it, overlays read it. ``colours``:
    ``(num_nodes, 3)`` uint8, each node's colour. ``origin``: the world
    point at the top-left corner of pixel ``(0, 0)``; ``scale``: pixels
    per world unit (an int >= 1 unless the scene layer's ``unit`` is not
    1); y grows downwards, as in map files, unless ``y_up`` (latitudes:
    then ``origin`` is the top-left corner with the largest y).
    ``borders``: whether outlines were asked for (``--borders``);
    ``tiles``: whether a tiled graph's tile borders were (the navmesh
    plugin outlines its tiles); ``traffic``: whether roads are coloured by
    how much slower than free flow they are now (the roads plugin).
    ``wall`` and ``covered``: the colours of walls and of floor under a
    moving obstacle, for backends that draw those as shapes.
    """

    wall = WALL
    covered = COVERED

    def __init__(self, bounds, scale, colours: np.ndarray, borders: bool = False,
                 y_up: bool = False, aspect: float = 1.0, tiles: bool = False,
                 traffic: bool = False):
        x0, y0, x1, y1 = bounds
        self.y_up = bool(y_up)
        #: pixels of a unit of x against a unit of y (a scene layer's ``aspect``)
        self.aspect = float(aspect)
        self.origin = (x0, y1) if self.y_up else (x0, y0)
        self.scale = int(scale) if float(scale).is_integer() else float(scale)
        width, height = pixel_size((x1 - x0) * self.aspect, y1 - y0, self.scale)
        self.rgb = np.empty((height, width, 3), dtype=np.uint8)
        self.rgb[:] = WALL
        self.node_at = np.full((height, width), -1, dtype=np.int32)
        self.colours = colours
        self.borders = bool(borders)
        self.tiles = bool(tiles)
        self.traffic = bool(traffic)
        #: set by ``outline``: some overlay drew borders
        self.outlined = False

    def to_pixels(self, points) -> np.ndarray:
        """World points ``(..., 2)`` as float pixel coordinates ``(x, y)``."""
        p = (np.asarray(points, dtype=np.float64)[..., :2] - self.origin) * self.scale
        if self.y_up:
            p[..., 1] = -p[..., 1]
        if self.aspect != 1.0:
            p[..., 0] *= self.aspect
        return p

    def pixel_centres(self) -> np.ndarray:
        """``(H, W, 2)``: the world point at the centre of every pixel
        (to find the node each pixel shows with a vectorised locate)."""
        h, w = self.node_at.shape
        xs = self.origin[0] + (np.arange(w) + 0.5) / (self.scale * self.aspect)
        ys = self.origin[1] + (np.arange(h) + 0.5) / self.scale * (-1 if self.y_up else 1)
        return np.stack(np.meshgrid(xs, ys), axis=-1)

    def paint(self, node_at) -> None:
        """Show node ``node_at[y, x]`` at each pixel (``-1``: leave it),
        in the node's colour; ``node_at`` is kept for overlays."""
        node_at = np.asarray(node_at)
        shown = node_at >= 0
        self.node_at[shown] = node_at[shown]
        self.rgb[shown] = self.colours[node_at[shown]]

    @staticmethod
    def area_colours(area_ids) -> np.ndarray:
        """``(..., 3)`` uint8: the colour of each area id (``-1``: wall)."""
        ids, inverse = np.unique(np.asarray(area_ids), return_inverse=True)
        palette = np.array([WALL if a < 0 else area_colour(int(a)) for a in ids],
                           dtype=np.uint8).reshape(-1, 3)
        return palette[inverse.reshape(np.shape(area_ids))]

    def outline(self, labels, factor: float = BORDER_DARKEN) -> None:
        """Darken the pixels where the per-node ``labels`` change (both
        sides labelled ``>= 0``): the first pixel column right of a change
        and the first pixel row below one. On a grid these are the edges
        between cells of different labels."""
        labels = np.asarray(labels)
        lab = np.where(self.node_at >= 0, labels[np.maximum(self.node_at, 0)], -1)
        for now, before, img in ((lab[:, 1:], lab[:, :-1], self.rgb[:, 1:]),
                                 (lab[1:], lab[:-1], self.rgb[1:])):
            edge = (now != before) & (now >= 0) & (before >= 0)
            img[edge] = (img[edge] * factor).astype(np.uint8)
        self.outlined = True


def pixel_size(width, height, scale: int) -> tuple:
    """Pixels ``(W, H)`` a ``width`` x ``height`` map takes at ``scale``."""
    return max(1, math.ceil(width * scale)), max(1, math.ceil(height * scale))
