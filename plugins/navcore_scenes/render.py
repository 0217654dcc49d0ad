"""Pictures of a simulation with Pillow: the graph's map as its backend
draws it (``navcore_draw_graph``: every connected area in its own colour,
walls dark, moving obstacles dark red), extras from other plugins
(``navcore_draw_overlay``: the hierarchy's node borders with
``borders=True``), then agents as discs coloured by what they are doing
and their remaining paths as thin lines. ``GifRecorder`` animates a run.

The agents drawn are the graph's and those of the graphs that share its
``space`` (maps of one place, e.g. a navmesh per agent size); an agent is
as wide as its graph's scene layer says (``SceneLayer.agent_radius``), or
``AGENT_RADIUS`` when the layer gives no size.

Any graph whose backend lends it a scene layer (its ``bounds`` frame the
picture) and draws it can be pictured; the canvas backends draw into is
``navcore_scenes.canvas.Canvas``.
"""
from __future__ import annotations

import numpy as np

from navcore.errors import NavError, QueryError

from .agents import ARRIVED, MOVING, RETRY, STUCK, WAITING
from .canvas import BORDER_DARKEN, COVERED, WALL, Canvas, area_colour, pixel_size

__all__ = ["draw", "picture", "save", "GifRecorder", "Canvas", "area_colour", "pick_graph",
           "map_size", "check_scale", "default_scale", "WALL", "COVERED", "BORDER_DARKEN",
           "AGENT", "PATH", "AGENT_RADIUS", "TARGET_PX", "MAX_SIDE", "shown_graphs"]

AGENT = {MOVING: (255, 255, 255), WAITING: (255, 214, 10), RETRY: (255, 214, 10),
         ARRIVED: (60, 220, 90), STUCK: (255, 40, 40)}
PATH = (255, 255, 255, 90)
#: the radius (map units) of agents whose graph gives them no size
AGENT_RADIUS = 0.35
#: pictures aim at about this many pixels on their long side
TARGET_PX = 1024
#: the longest side of a picture, in pixels
MAX_SIDE = 16384


def pick_graph(sim, graph_id=None):
    """The graph to draw: ``graph_id``, or the scene's first graph with a
    scene layer (the layer's ``bounds`` frame the picture)."""
    if graph_id is None:
        drawable = [g.id for g in sim.scene.graphs if g.id in sim.layers]
        if not drawable:
            raise NavError("pictures draw graphs with a scene layer, and no graph of this "
                           "scene has one")
        return drawable[0]
    if graph_id not in sim.layers:
        raise NavError(f"graph {graph_id!r} of this scene cannot be drawn: it has no scene "
                       f"layer; graphs that have one: "
                       f"{', '.join(map(repr, sim.layers)) or 'none'}")
    return graph_id


def shown_graphs(sim, graph_id) -> list:
    """The graphs whose agents a picture of ``graph_id`` shows: itself,
    then the others of its ``space`` in scene order."""
    space = sim.scene.graph_spec(graph_id).space
    if space is None:
        return [graph_id]
    return [graph_id] + [g.id for g in sim.scene.graphs
                         if g.space == space and g.id != graph_id]


def agent_radii(sim, graph_ids, scale) -> dict:
    """Pixels of an agent's radius, by graph id (at least 1.5)."""
    out = {}
    for g in graph_ids:
        lay = sim.layers.get(g)
        r = lay.agent_radius() if lay is not None else None
        unit = lay.unit if lay is not None else 1.0
        out[g] = max(1.5, scale * (AGENT_RADIUS if r is None or r <= 0 else float(r) / unit))
    return out


def map_size(sim, graph_id) -> tuple:
    """``(width, height)`` of the graph's ``bounds``, in map units (the
    scene layer's ``unit``: world units, or degrees for a road map)."""
    layer = sim.layers[graph_id]
    x0, y0, x1, y1 = layer.bounds()
    return (x1 - x0) * layer.aspect / layer.unit, (y1 - y0) / layer.unit


def default_scale(width, height) -> int:
    return max(1, min(16, int(TARGET_PX // max(width, height))))


def check_scale(width, height, scale) -> int:
    """``scale`` (pixels per map unit; ``None``: about 1024 pixels wide)
    as an int, or ``NavError`` when it is below 1 or makes a side longer
    than ``MAX_SIDE`` pixels."""
    scale = default_scale(width, height) if scale is None else int(scale)
    if scale < 1:
        raise NavError(f"scale must be >= 1, got {scale}")
    w, h = pixel_size(width, height, scale)
    if max(w, h) > MAX_SIDE:
        raise NavError(f"scale {scale} makes a {w} x {h} pixel picture; at most "
                       f"{MAX_SIDE} pixels a side, so scale <= "
                       f"{max(1, int(MAX_SIDE // max(width, height)))} for this "
                       f"{width:g} x {height:g} map")
    return scale


def node_colours(sim, graph_id) -> np.ndarray:
    """``(num_nodes, 3)`` uint8: each node's area colour, walls dark,
    floor under a moving obstacle dark red."""
    try:
        areas = sim.world.areas(graph_id)
    except QueryError:                      # no hierarchy plugin: walkable or not
        areas = np.where(sim.world.graph(graph_id).walkable, 0, -1).astype(np.int32)
    colours = Canvas.area_colours(areas)
    colours[sim.layers[graph_id].obstacle_nodes()] = COVERED
    return colours


def picture(sim, graph_id, scale: int, borders: bool = False) -> Canvas:
    """The graph's map and overlays, drawn by its plugins into a canvas."""
    graph = sim.world.graph(graph_id)
    layer = sim.layers[graph_id]
    canvas = Canvas(layer.bounds(), scale / layer.unit, node_colours(sim, graph_id),
                    borders, layer.y_up, layer.aspect)
    hook = sim.world.plugins.hook
    if not hook.navcore_draw_graph(graph=graph, canvas=canvas):
        raise NavError(f"no plugin draws {graph.kind} graphs (navcore_draw_graph), so "
                       f"graph {graph_id!r} cannot be pictured")
    hook.navcore_draw_overlay(graph=graph, canvas=canvas)
    if borders and not canvas.outlined:
        raise NavError(f"graph {graph_id!r} has no hierarchical nodes to draw (is the "
                       f"hierarchy plugin loaded?)")
    return canvas


def draw(sim, graph_id=None, scale: int | None = None, borders: bool = False,
         paths: bool = True):
    """The picture of ``sim`` now, as a ``PIL.Image`` (RGB)."""
    from PIL import Image, ImageDraw
    graph_id = pick_graph(sim, graph_id)
    scale = check_scale(*map_size(sim, graph_id), scale)
    canvas = picture(sim, graph_id, scale, borders)
    base = Image.fromarray(canvas.rgb, "RGB")
    agents = sim.agents
    shown = shown_graphs(sim, graph_id)
    rank = {g: k for k, g in enumerate(shown)}
    # the drawn graph's agents last, on top; the others by scene order
    mine = sorted((i for i, g in enumerate(agents.graph_ids) if g in rank),
                  key=lambda i: -rank[agents.graph_ids[i]])
    if paths and mine:
        overlay = Image.new("RGBA", base.size, (0, 0, 0, 0))
        pen = ImageDraw.Draw(overlay)
        remaining = agents.remaining_paths()
        for i in mine:
            if agents.state[i] == MOVING and len(remaining[i]) > 1:
                pen.line([tuple(p) for p in canvas.to_pixels(remaining[i])], fill=PATH,
                         width=max(1, scale // 6))
        base = Image.alpha_composite(base.convert("RGBA"), overlay).convert("RGB")
    pen = ImageDraw.Draw(base)
    radius = agent_radii(sim, shown, scale)
    for i in mine:
        x, y = canvas.to_pixels(agents.pos[i])
        r = radius[agents.graph_ids[i]]
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
        self.every = max(1, int(every))
        # half the picture's size: an animation of 100 frames stays small
        self.scale = scale or max(1, default_scale(*map_size(sim, self.graph_id)) // 2)
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
