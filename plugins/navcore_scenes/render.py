"""Pictures of a simulation with Pillow: the graph's map as its backend
draws it (``navcore_draw_graph``: every connected area in its own colour,
walls dark, moving obstacles dark red), extras from other plugins
(``navcore_draw_overlay``: the hierarchy's node borders with
``borders=True``), then agents as discs coloured by what they are doing,
each with a short tick toward where it is going (as long as its radius at
its full speed), and the remaining paths of those that walk as points as
thin lines. ``GifRecorder`` animates a run.

The agents drawn are the graph's and those of the graphs that share its
``space`` (maps of one place, e.g. a navmesh per agent size); an agent is
as wide as its radius (``Agents.radius``: its own, else its graph's agent
radius, ``SceneLayer.agent_radius``, else ``AGENT_RADIUS`` map units), at
least 1.5 pixels. Agents that left the map are not drawn.

Any graph whose backend lends it a scene layer (its ``bounds`` frame the
picture) and draws it can be pictured. The map, the canvas backends draw
into (``navcore_draw.canvas.Canvas``) and the drawing of lines and discs
are the draw plugin's (``navcore_draw.picture``, which answers
``navcore.draw`` for a world without a scene); this module adds what a
scene knows: its obstacles, its agents and their states.
"""
from __future__ import annotations

import numpy as np

from navcore.errors import NavError, QueryError

from navcore_draw import picture as P
from navcore_draw.canvas import BORDER_DARKEN, COVERED, WALL, Canvas, area_colour
from navcore_draw.picture import AGENT_RADIUS, MAX_SIDE, TARGET_PX, default_scale

from .agents import ARRIVED, MOVING, RETRY, STUCK, WAITING

__all__ = ["draw", "picture", "save", "GifRecorder", "Canvas", "area_colour", "pick_graph",
           "map_size", "check_scale", "default_scale", "WALL", "COVERED", "BORDER_DARKEN",
           "AGENT", "PATH", "AGENT_RADIUS", "TARGET_PX", "MAX_SIDE", "shown_graphs"]

AGENT = {MOVING: (255, 255, 255), WAITING: (255, 214, 10), RETRY: (255, 214, 10),
         ARRIVED: (60, 220, 90), STUCK: (255, 40, 40)}
PATH = (255, 255, 255, 90)
#: the velocity tick, drawn from an agent's rim outward
TICK = (0, 0, 0)
#: an agent at its full speed has a tick as long as its radius (at least
#: ``TICK_MIN_PX``); a faster one (pushed) at most this many radii
TICK_MAX = 1.5
TICK_MIN_PX = 2.0


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


def map_size(sim, graph_id) -> tuple:
    """``(width, height)`` of the graph's ``bounds``, in map units (the
    scene layer's ``unit``: world units, or degrees for a road map)."""
    return P.map_size(sim.layers[graph_id])


def check_scale(width, height, scale) -> int:
    """``scale`` (whole pixels per map unit; ``None``: about 1024 pixels
    wide) as an int, or ``NavError`` when it is not a whole number, below
    1, or makes a side longer than ``MAX_SIDE`` pixels."""
    return P.check_scale(width, height, scale, NavError)


def node_colours(sim, graph_id) -> np.ndarray:
    """``(num_nodes, 3)`` uint8: each node's area colour, walls dark,
    floor under a moving obstacle dark red."""
    colours = P.node_colours(sim.world, graph_id, sim.world.graph(graph_id))
    colours[sim.layers[graph_id].obstacle_nodes()] = COVERED
    return colours


def picture(sim, graph_id, scale: int, borders: bool = False) -> Canvas:
    """The graph's map and overlays, drawn by its plugins into a canvas."""
    canvas = P.map_canvas(sim.world, graph_id, sim.world.graph(graph_id),
                          sim.layers[graph_id], scale, node_colours(sim, graph_id), borders)
    if borders and not canvas.outlined:
        raise NavError(f"graph {graph_id!r} has no hierarchical nodes to draw (is the "
                       f"areas plugin loaded?)")
    return canvas


def draw(sim, graph_id=None, scale: int | None = None, borders: bool = False,
         paths: bool = True, ticks: bool = True):
    """The picture of ``sim`` now, as a ``PIL.Image`` (RGB); ``ticks``:
    each moving agent's velocity tick."""
    from PIL import Image
    if not hasattr(sim, "layers") or not hasattr(sim, "agents"):
        raise QueryError(f"navcore_scenes.render.draw pictures a scene (a navcore.Simulation), "
                         f"got {type(sim).__name__}; for a World use "
                         f"navcore.draw(world, graph_id) (an RGB array; out= writes a PNG)")
    graph_id = pick_graph(sim, graph_id)
    scale = check_scale(*map_size(sim, graph_id), scale)
    canvas = picture(sim, graph_id, scale, borders)
    base = Image.fromarray(canvas.rgb, "RGB")
    agents = sim.agents
    shown = shown_graphs(sim, graph_id)
    rank = {g: k for k, g in enumerate(shown)}
    # the drawn graph's agents last, on top; the others by scene order
    mine = sorted((i for i, g in enumerate(agents.graph_ids) if g in rank
                   and not agents.gone[i]), key=lambda i: -rank[agents.graph_ids[i]])
    ground = _on_ground(sim, agents)
    if paths and mine:
        remaining = agents.remaining_paths()
        lines = [ground(i, remaining[i]) for i in mine
                 if agents.state[i] == MOVING and len(remaining[i]) > 1]
        if lines:
            base = P.draw_lines(base, canvas, lines, [PATH] * len(lines),
                                max(1, scale // 6))
    at = np.array([ground(i, agents.pos[i:i + 1])[0] for i in mine]) if mine \
        else np.empty((0, 2))
    px = _radius_pixels(sim, mine, scale)
    P.draw_discs(base, canvas, at, px.tolist(), [AGENT[int(agents.state[i])] for i in mine])
    if ticks:
        _draw_ticks(base, canvas, at, agents, mine, px)
    return base


def _radius_pixels(sim, rows, scale) -> np.ndarray:
    """Pixels of the radius of agents ``rows`` (at least 1.5)."""
    a = sim.agents
    unit = np.array([getattr(sim.layers.get(a.graph_ids[i]), "unit", 1.0) for i in rows],
                    dtype=np.float64)
    return np.maximum(1.5, scale * a.radius[np.asarray(rows, dtype=np.int64)] / unit) \
        if rows else np.zeros(0)


def _draw_ticks(image, canvas, at, agents, rows, px) -> None:
    """Each moving agent's tick: from its rim outward along its velocity,
    its radius long at its full speed (``TICK_MIN_PX`` at least)."""
    if not rows:
        return
    from PIL import ImageDraw
    rows = np.asarray(rows, dtype=np.int64)
    vel = agents.vel[rows]
    speed = np.hypot(vel[:, 0], vel[:, 1])
    share = np.minimum(TICK_MAX, speed / np.maximum(agents.speed[rows], 1e-12))
    moving = share > 0.02
    if not moving.any():
        return
    centre = canvas.to_pixels(at[moving])
    step = canvas.to_pixels(at[moving] + vel[moving]) - centre    # the map's axes, in pixels
    norm = np.hypot(step[:, 0], step[:, 1])
    ok = norm > 0
    direction = np.zeros_like(step)
    direction[ok] = step[ok] / norm[ok, None]
    r = px[moving]
    length = np.maximum(TICK_MIN_PX, r) * share[moving]
    start = centre + direction * r[:, None]
    end = centre + direction * (r + length)[:, None]
    pen = ImageDraw.Draw(image)
    for (x0, y0), (x1, y1), w in zip(start.tolist(), end.tolist(),
                                     np.maximum(1, np.round(r / 3)).astype(int).tolist()):
        pen.line((x0, y0, x1, y1), fill=TICK, width=w)


def _on_ground(sim, agents):
    """``ground(i, points)``: agent ``i``'s points (``(k, dims)``) on the
    map's plane, as its graph's scene layer puts them (a 3D level's
    ``(x, y, z)`` on its ground)."""
    layers = sim.layers

    def ground(i, points):
        lay = layers.get(agents.graph_ids[i])
        if lay is None or lay.dims == 2:
            return points[:, :2]
        return lay.on_ground(points[:, :lay.dims])
    return ground


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
