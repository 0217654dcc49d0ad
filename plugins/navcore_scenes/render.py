"""Pictures of a simulation with Pillow: every connected area in its own
colour, walls dark, moving obstacles dark red, agents as dots coloured by
what they are doing, their remaining paths as thin lines, and optionally
the borders of the hierarchy's nodes. ``GifRecorder`` animates a run.

Area ids are stable while an area exists, and a colour is a function of
the id, so an area keeps its colour from frame to frame of an animation.
"""
from __future__ import annotations

import colorsys

import numpy as np

from navcore.errors import NavError, QueryError

from .agents import ARRIVED, MOVING, RETRY, STUCK, WAITING

__all__ = ["draw", "save", "GifRecorder", "cell_colours", "area_colour", "pick_graph",
           "check_scale", "default_scale", "WALL", "COVERED", "BORDER_DARKEN", "AGENT",
           "PATH", "TARGET_PX", "MAX_SIDE"]

WALL = (32, 32, 38)
COVERED = (150, 45, 40)           # cells under a moving obstacle
BORDER_DARKEN = 0.6               # hierarchical node borders: floor colour times this
AGENT = {MOVING: (255, 255, 255), WAITING: (255, 214, 10), RETRY: (255, 214, 10),
         ARRIVED: (60, 220, 90), STUCK: (255, 40, 40)}
PATH = (255, 255, 255, 90)
#: pictures aim at about this many pixels on their long side
TARGET_PX = 1024


def area_colour(area_id: int) -> tuple:
    """A light colour for an area id; neighbouring ids get distant hues."""
    hue = (area_id * 0.6180339887) % 1.0
    r, g, b = colorsys.hsv_to_rgb(hue, 0.45, 0.92)
    return (int(r * 255), int(g * 255), int(b * 255))


def pick_graph(sim, graph_id=None):
    """The grid graph to draw: ``graph_id``, or the scene's first grid."""
    if graph_id is None:
        grids = [g.id for g in sim.scene.graphs if g.id in sim.layers]
        if not grids:
            raise NavError("pictures draw grids, and this scene has no grid graph")
        return grids[0]
    if graph_id not in sim.layers:
        raise NavError(f"graph {graph_id!r} is not a grid of this scene; grids: "
                       f"{', '.join(map(repr, sim.layers)) or 'none'}")
    return graph_id


def default_scale(width: int, height: int) -> int:
    return max(1, min(16, TARGET_PX // max(width, height)))


#: the longest side of a picture, in pixels
MAX_SIDE = 16384


def check_scale(width: int, height: int, scale) -> int:
    """``scale`` (pixels per cell; ``None``: about 1024 pixels wide) as an
    int, or ``NavError`` when it is below 1 or makes a side longer than
    ``MAX_SIDE`` pixels."""
    scale = default_scale(width, height) if scale is None else int(scale)
    if scale < 1:
        raise NavError(f"scale must be >= 1, got {scale}")
    if max(width, height) * scale > MAX_SIDE:
        raise NavError(f"scale {scale} makes a {width * scale} x {height * scale} pixel "
                       f"picture; at most {MAX_SIDE} pixels a side, so scale <= "
                       f"{max(1, MAX_SIDE // max(width, height))} for this "
                       f"{width} x {height} map")
    return scale


def cell_colours(sim, graph_id, borders: bool = False, scale: int = 1) -> np.ndarray:
    """``(height*scale, width*scale, 3)`` uint8: areas, walls, obstacles,
    and hierarchical node borders drawn along the cell edges."""
    lay = sim.layers[graph_id]
    h, w = lay.height, lay.width
    try:
        areas = sim.world.areas(graph_id)
    except QueryError:                      # no hierarchy plugin: walkable or not
        areas = np.where(sim.world.graph(graph_id).walkable, 0, -1).astype(np.int32)
    ids = np.unique(areas[areas >= 0])
    palette = np.array([WALL] + [area_colour(int(a)) for a in ids], dtype=np.uint8)
    index = np.zeros(areas.shape, dtype=np.int64)
    index[areas >= 0] = np.searchsorted(ids, areas[areas >= 0]) + 1
    rgb = palette[index]
    rgb[(lay.covered > 0) & lay.static] = COVERED
    img = rgb.reshape(h, w, 3).repeat(scale, axis=0).repeat(scale, axis=1)
    if borders:
        _draw_borders(img, _hierarchical_nodes(sim, graph_id).reshape(h, w), scale)
    return img


def _hierarchical_nodes(sim, graph_id) -> np.ndarray:
    # the hierarchy plugin keeps its state as the graph's "navcore_hierarchy" view
    h = sim.world.graph(graph_id).view("navcore_hierarchy")
    if callable(getattr(h, "hierarchical_nodes", None)):
        return h.hierarchical_nodes()
    raise NavError(f"graph {graph_id!r} has no hierarchical nodes to draw (is the "
                   f"hierarchy plugin loaded?)")


def _draw_borders(img, hnode, scale: int) -> None:
    """Darken the first pixel row/column of a cell whose hierarchical node
    differs from its upper/left neighbour's (both walkable)."""
    left = (hnode[:, 1:] != hnode[:, :-1]) & (hnode[:, 1:] >= 0) & (hnode[:, :-1] >= 0)
    up = (hnode[1:, :] != hnode[:-1, :]) & (hnode[1:, :] >= 0) & (hnode[:-1, :] >= 0)
    ys, xs = np.nonzero(left)
    cols = (xs + 1) * scale
    for dy in range(scale):                 # a scale-pixel line per border edge
        rows = ys * scale + dy
        img[rows, cols] = (img[rows, cols] * BORDER_DARKEN).astype(np.uint8)
    ys, xs = np.nonzero(up)
    rows = (ys + 1) * scale
    for dx in range(scale):
        cols = xs * scale + dx
        img[rows, cols] = (img[rows, cols] * BORDER_DARKEN).astype(np.uint8)


def draw(sim, graph_id=None, scale: int | None = None, borders: bool = False,
         paths: bool = True):
    """The picture of ``sim`` now, as a ``PIL.Image`` (RGB)."""
    from PIL import Image, ImageDraw
    graph_id = pick_graph(sim, graph_id)
    lay = sim.layers[graph_id]
    scale = check_scale(lay.width, lay.height, scale)
    base = Image.fromarray(cell_colours(sim, graph_id, borders, scale), "RGB")
    agents = sim.agents
    mine = [i for i, g in enumerate(agents.graph_ids) if g == graph_id]
    if paths and mine:
        overlay = Image.new("RGBA", base.size, (0, 0, 0, 0))
        pen = ImageDraw.Draw(overlay)
        remaining = agents.remaining_paths()
        for i in mine:
            if agents.state[i] == MOVING and len(remaining[i]) > 1:
                pen.line([tuple(p) for p in remaining[i] * scale], fill=PATH,
                         width=max(1, scale // 6))
        base = Image.alpha_composite(base.convert("RGBA"), overlay).convert("RGB")
    pen = ImageDraw.Draw(base)
    r = max(1.5, scale * 0.35)
    for i in mine:
        x, y = agents.pos[i] * scale
        pen.ellipse((x - r, y - r, x + r, y + r), fill=AGENT[int(agents.state[i])],
                    outline=(0, 0, 0) if r >= 3 else None)
    return base


def save(image, path) -> None:
    """Write ``image``; a bad path or format is a ``NavError``."""
    try:
        image.save(path)
    except (OSError, ValueError, KeyError) as exc:
        raise NavError(f"cannot write picture {path}: {exc}") from None


class GifRecorder:
    """``on_frame`` for ``Simulation.run``: keeps every ``every``-th frame
    (small pictures) and writes them as an animated GIF with ``save``."""

    def __init__(self, sim, every: int = 1, graph_id=None, scale: int | None = None,
                 borders: bool = False):
        self.graph_id = pick_graph(sim, graph_id)
        lay = sim.layers[self.graph_id]
        self.every = max(1, int(every))
        # half the picture's size: an animation of 100 frames stays small
        self.scale = scale or max(1, default_scale(lay.width, lay.height) // 2)
        self.borders = borders
        self.frames: list = []
        self.dt = sim.scene.settings.dt

    def __call__(self, sim) -> None:
        from PIL import Image
        if sim.frame % self.every == 0 or sim.frame == 1:
            img = draw(sim, self.graph_id, self.scale, self.borders)
            self.frames.append(img.convert("P", palette=Image.Palette.ADAPTIVE, colors=64))

    def save(self, path) -> None:
        if not self.frames:
            raise NavError("no frames to animate: run the scene for at least one frame")
        ms = max(20, int(round(1000 * self.dt * self.every)))
        try:
            self.frames[0].save(path, save_all=True, append_images=self.frames[1:],
                                duration=ms, loop=0, optimize=True)
        except (OSError, ValueError, KeyError) as exc:
            raise NavError(f"cannot write animation {path}: {exc}") from None
