"""Pictures of a graph: what answers ``navcore.draw`` and ``navcore.plot``
(through ``navcore_picture``), and what the scenes plugin's pictures are
made of.

A picture is framed by the graph's scene layer (``navcore_scene_layer``:
its ``bounds``, ``unit``, ``y_up`` and ``aspect``), or, for a graph whose
backend lends none (csr), by its node positions (``PositionFrame``). The
backend paints the map into a ``navcore_draw.canvas.Canvas`` through
``navcore_draw_graph``, other plugins add overlays through
``navcore_draw_overlay``, and paths and agents are drawn over it with
Pillow, which is imported only when a picture is made. This plugin knows
no geometry either: everything graph-specific goes through those hooks.

``navcore.draw`` draws the world as it is; a scene's picture
(``navcore_scenes.render.draw(sim)``) is the same map with the scene's own state
on top: floor under a moving obstacle in dark red (``draw`` shows those
nodes as the walls the obstacle made them) and agents coloured by what
they are doing (``draw`` paints every agent it is given as a scene paints
a walking one).
"""
from __future__ import annotations

import io

import numpy as np

from navcore import files, validate
from navcore.errors import NavError, PluginError, QueryError
from navcore.scene_layer import SceneLayer
from navcore.types import PathResult

from .canvas import Canvas, pixel_size

__all__ = ["picture", "plot", "PositionFrame", "frame_of", "map_size", "default_scale",
           "check_scale", "node_colours", "map_canvas", "draw_lines", "draw_discs",
           "agent_pixels", "extent", "TARGET_PX", "MAX_SIDE", "AGENT_RADIUS", "AGENT",
           "PATH_COLOURS", "PATH_HALO"]

#: pictures aim at about this many pixels on their long side
TARGET_PX = 1024
#: the longest side of a picture, in pixels
MAX_SIDE = 16384
#: the radius (map units) of agents whose graph gives them no size
AGENT_RADIUS = 0.35
#: ``draw``'s agents: white with a black rim, as a scene draws a walking agent
AGENT = (255, 255, 255)
#: ``draw``'s paths, one colour after another: dark, so they stand out on
#: every (light) area colour
PATH_COLOURS = ((20, 30, 150), (170, 0, 30), (0, 100, 40), (100, 0, 140),
                (120, 60, 0), (0, 0, 0))
#: ``draw``'s paths lie on a white line two pixels wider than they are
PATH_HALO = (255, 255, 255)
#: a frame from node positions keeps a unit of the positions as its map
#: unit while they span 1 to this many units, else takes 1/256th of the span
POSITION_SPAN = TARGET_PX - 2


class PositionFrame:
    """The frame of a graph with node positions whose backend lends no
    scene layer: the positions' box with one map unit to spare, y growing
    downwards as in map files. A map unit is a unit of the positions when
    they span 1 to 1022 of them, else a 256th of their larger side
    (positions in metres or in thousandths draw at a sensible size)."""

    y_up = False
    aspect = 1.0

    def __init__(self, graph):
        pos = np.asarray(graph.positions, dtype=np.float64)[:, :2]
        lo, hi = pos.min(axis=0), pos.max(axis=0)
        side = float((hi - lo).max())
        self.unit = 1.0 if side == 0 or 1 <= side <= POSITION_SPAN else side / 256
        self._bounds = (*(lo - self.unit).tolist(), *(hi + self.unit).tolist())

    def bounds(self) -> tuple:
        return self._bounds

    def agent_radius(self):
        return None


def frame_of(world, graph_id, graph):
    """What frames a picture of ``graph``: the scene layer its backend
    lends (``navcore_scene_layer``), else a ``PositionFrame``; a
    ``QueryError`` when it has neither a layer nor node positions."""
    refused = None
    try:
        lay = world.plugins.hook.navcore_scene_layer(world=world, graph_id=graph_id,
                                                     graph=graph)
    except NavError as exc:               # a layer that cannot serve this graph
        lay, refused = None, exc.message
    except Exception as exc:              # a plugin's layer that did not check
        raise PluginError(f"the scene layer of {graph.kind!r} graphs failed: "
                          f"{type(exc).__name__}: {exc}") from None
    if lay is not None:
        if not isinstance(lay, SceneLayer):
            raise PluginError(f"navcore_scene_layer must return a navcore.SceneLayer for "
                              f"{graph.kind!r} graphs, got {type(lay).__name__}")
        return lay
    if graph.has_positions() and graph.num_nodes:
        return PositionFrame(graph)
    why = refused or ("it has no node positions and no plugin lends it a scene layer "
                      "(navcore_scene_layer) to frame a picture")
    raise QueryError(f"{graph.kind!r} graph {graph_id!r} cannot be drawn: {why}")


def map_size(layer) -> tuple:
    """``(width, height)`` of the frame's ``bounds``, in map units (the
    layer's ``unit``: world units, or degrees for a road map)."""
    try:
        x0, y0, x1, y1 = layer.bounds()
    except NavError as exc:
        raise QueryError(f"cannot frame a picture: {exc.message}") from None
    return (x1 - x0) * layer.aspect / layer.unit, (y1 - y0) / layer.unit


def default_scale(width, height) -> int:
    """Pixels per map unit for a picture about ``TARGET_PX`` wide (1..16)."""
    return max(1, min(16, int(TARGET_PX // max(width, height))))


def check_scale(width, height, scale, error=QueryError) -> int:
    """``scale`` (a whole number of pixels per map unit; ``None``: about
    ``TARGET_PX`` pixels on the long side) as an int; ``error`` when it is
    not a whole number, below 1, or makes a side longer than ``MAX_SIDE``."""
    if scale is None:
        scale = default_scale(width, height)
    elif validate.is_int(scale) or (isinstance(scale, (float, np.floating))
                                    and float(scale).is_integer()):
        scale = int(scale)
    else:
        raise error(f"scale must be a whole number of pixels per map unit, got {scale!r}")
    if scale < 1:
        raise error(f"scale must be >= 1, got {scale}")
    w, h = pixel_size(width, height, scale)
    if max(w, h) > MAX_SIDE:
        raise error(f"scale {scale} makes a {w} x {h} pixel picture; at most "
                    f"{MAX_SIDE} pixels a side, so scale <= "
                    f"{max(1, int(MAX_SIDE // max(width, height)))} for this "
                    f"{width:g} x {height:g} map")
    return scale


def node_colours(world, graph_id, graph, areas: bool = True) -> np.ndarray:
    """``(num_nodes, 3)`` uint8: with ``areas``, each node in its connected
    area's colour when a plugin answers ``navcore_areas`` (the hierarchy
    plugin); otherwise every walkable node in one colour. Walls dark."""
    ids = None
    if areas:
        try:
            ids = world.areas(graph_id)
        except QueryError:                  # no plugin answers areas
            ids = None
    if ids is None:
        ids = np.where(graph.walkable, 0, -1).astype(np.int32)
    return Canvas.area_colours(ids)


def map_canvas(world, graph_id, graph, layer, scale: int, colours,
               borders: bool = False, tiles: bool = False, traffic: bool = False) -> Canvas:
    """The graph's map and overlays at ``scale`` pixels per map unit,
    drawn by its plugins into a canvas covering ``layer.bounds()``
    (``borders``, ``tiles``, ``traffic``: the optional overlays, see
    ``Canvas``)."""
    canvas = Canvas(layer.bounds(), scale / layer.unit, colours, borders, layer.y_up,
                    layer.aspect, tiles, traffic)
    hook = world.plugins.hook
    if not hook.navcore_draw_graph(graph=graph, canvas=canvas):
        raise QueryError(f"no plugin draws {graph.kind!r} graphs (navcore_draw_graph), so "
                         f"graph {graph_id!r} cannot be pictured")
    hook.navcore_draw_overlay(graph=graph, canvas=canvas)
    return canvas


def agent_pixels(layer, scale) -> float:
    """Pixels of an agent's radius on ``layer``'s graph (``None``: a graph
    without a layer) at ``scale`` pixels per map unit: the layer's
    ``agent_radius``, else ``AGENT_RADIUS`` map units; at least 1.5."""
    r = layer.agent_radius() if layer is not None else None
    unit = layer.unit if layer is not None else 1.0
    return max(1.5, scale * (AGENT_RADIUS if r is None or r <= 0 else float(r) / unit))


def draw_lines(image, canvas, lines, fills, width: int, joint=None):
    """``image`` (``PIL.Image``, RGB) with the polylines ``lines`` (world
    points, each ``(k, 2)``) drawn ``width`` pixels wide in ``fills``
    (RGB, or RGBA blended over the picture); a one-point line is a dot."""
    from PIL import Image, ImageDraw
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    pen = ImageDraw.Draw(overlay)
    for points, fill in zip(lines, fills):
        px = canvas.to_pixels(points)
        if len(px) == 1:
            (x, y), r = px[0], max(1.0, width / 2)
            pen.ellipse((x - r, y - r, x + r, y + r), fill=fill)
        else:
            pen.line([tuple(p) for p in px], fill=fill, width=width, joint=joint)
    return Image.alpha_composite(image.convert("RGBA"), overlay).convert("RGB")


def draw_discs(image, canvas, points, radii, fills) -> None:
    """Discs at world ``points`` (``(k, 2)``) of ``radii`` pixels in
    ``fills``, onto ``image``; discs of 3 pixels or more get a black rim."""
    from PIL import ImageDraw
    pen = ImageDraw.Draw(image)
    for (x, y), r, fill in zip(canvas.to_pixels(points), radii, fills):
        pen.ellipse((x - r, y - r, x + r, y + r), fill=fill,
                    outline=(0, 0, 0) if r >= 3 else None)


def extent(canvas) -> tuple:
    """``(left, right, bottom, top)`` in world coordinates of the picture
    ``canvas`` makes: matplotlib's ``imshow(extent=...)`` with
    ``origin="upper"`` puts each pixel where it belongs in the world (on a
    y-down map bottom > top, so the y axis grows downwards)."""
    h, w = canvas.rgb.shape[:2]
    x0, top = canvas.origin
    bottom = top + h / canvas.scale * (-1 if canvas.y_up else 1)
    return (float(x0), float(x0 + w / (canvas.scale * canvas.aspect)), float(bottom),
            float(top))


def picture(world, graph_id, paths=(), agents=(), areas=True, out=None,
            scale=None) -> tuple:
    """``navcore.draw``'s picture of graph ``graph_id`` of ``world`` (a
    ``navcore.World``; ``navcore.draw`` checked that): ``(rgb, canvas)``,
    the ``(H, W, 3)`` uint8 RGB array, also written as a PNG to ``out``
    when given, and the ``Canvas`` its map was drawn into (whose frame
    ``extent`` gives). The arguments and the mistakes (``QueryError``s,
    ``UnknownGraphError``) are ``navcore.draw``'s: paths are drawn in
    ``PATH_COLOURS`` in turn, each on a ``PATH_HALO``, agents as ``AGENT``
    discs."""
    graph = world.graph(graph_id)
    areas = validate.boolean(areas, "areas", QueryError)
    target = _check_out(out)
    layer = frame_of(world, graph_id, graph)
    scale = check_scale(*map_size(layer), scale)
    box = layer.bounds()
    lines = _lines(paths, box, graph_id)
    spots = _points(agents, "agents", box, graph_id)
    canvas = map_canvas(world, graph_id, graph, layer, scale,
                        node_colours(world, graph_id, graph, areas))
    from PIL import Image
    image = Image.fromarray(canvas.rgb, "RGB")
    if lines:
        # a white halo under each line: it shows on dark walls and road maps too
        width = max(2, scale // 4)
        image = draw_lines(image, canvas, lines, [PATH_HALO] * len(lines), width + 2,
                           joint="curve")
        fills = [PATH_COLOURS[i % len(PATH_COLOURS)] for i in range(len(lines))]
        image = draw_lines(image, canvas, lines, fills, width, joint="curve")
    if len(spots):
        r = agent_pixels(layer, scale)
        draw_discs(image, canvas, spots, [r] * len(spots), [AGENT] * len(spots))
    if target is not None:        # whole or not at all, over a regular file only
        png = io.BytesIO()
        image.save(png, format="PNG")
        files.write_atomic(target, png.getvalue(), QueryError)
    return np.array(image), canvas


def plot(ax, world, graph_id, paths=(), agents=(), areas=True, scale=None):
    """``navcore.plot``: ``picture(world, graph_id, ...)`` shown on the
    matplotlib axes ``ax`` in world coordinates (``imshow`` with the
    picture's ``extent``); the ``AxesImage``. A ``QueryError`` when
    matplotlib is not installed or ``ax`` is not axes."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise QueryError("navcore.plot draws with matplotlib, which is not installed: "
                         "pip install matplotlib (navcore.draw needs only Pillow)") from None
    if not callable(getattr(ax, "imshow", None)):
        raise QueryError(f"ax must be matplotlib axes (fig, ax = plt.subplots()), got "
                         f"{type(ax).__name__}")
    rgb, canvas = picture(world, graph_id, paths, agents, areas, None, scale)
    return ax.imshow(rgb, extent=extent(canvas), origin="upper", interpolation="nearest",
                     aspect=1.0 / canvas.aspect)


def _check_out(out):
    if out is None:
        return None
    path = validate.file_path(out, "out", QueryError)
    if path.suffix.lower() != ".png":
        raise QueryError(f"out must name a .png file (draw writes PNG), got {str(path)!r}")
    if path.is_dir():
        raise QueryError(f"cannot write picture {path}: it is a folder")
    if not path.parent.is_dir():
        raise QueryError(f"cannot write picture {path}: folder {path.parent} does not exist")
    return path


def _lines(paths, box, graph_id) -> list:
    """``paths`` as a list of ``(k, 2)`` float arrays inside ``box``."""
    if isinstance(paths, PathResult) or (isinstance(paths, np.ndarray) and paths.ndim == 2):
        paths = [paths]
    try:
        items = list(paths)
    except TypeError:
        raise QueryError(f"paths must be a list of PathResults or (k, 2) point arrays, got "
                         f"{validate.describe(paths)}") from None
    out = []
    for i, p in enumerate(items):
        what = f"paths[{i}]"
        if isinstance(p, PathResult):
            if not p.found:
                raise QueryError(f"{what} is a PathResult with status {p.status.value!r}: "
                                 f"it has no points to draw (draw its ends as agents=)")
            pts = np.asarray(p.points, dtype=np.float64).reshape(len(p.points), -1)[:, :2]
            if len(pts) == 0:
                raise QueryError(f"{what} has no points to draw: its graph has no node "
                                 f"positions")
            pts = _inside(pts, what, box, graph_id)
        else:
            pts = _points(p, what, box, graph_id)
            if len(pts) == 0:
                raise QueryError(f"{what} holds no points")
        out.append(pts)
    return out


def _points(value, what, box, graph_id) -> np.ndarray:
    """``value`` as float ``(k, 2)`` points inside ``box`` (one point
    ``(x, y)`` is one row; an empty sequence is none)."""
    arr = validate.array(value, what, QueryError)
    if arr.size == 0:
        return np.empty((0, 2))
    if arr.ndim == 1 and arr.shape[0] == 2:
        value = arr.reshape(1, 2)
    return _inside(validate.points(value, what, QueryError), what, box, graph_id)


def _inside(pts, what, box, graph_id) -> np.ndarray:
    x0, y0, x1, y1 = box
    out = (pts[:, 0] < x0) | (pts[:, 0] > x1) | (pts[:, 1] < y0) | (pts[:, 1] > y1)
    if out.any():
        i = int(np.flatnonzero(out)[0])
        x, y = pts[i].tolist()
        swapped = x0 <= y <= x1 and y0 <= x <= y1
        raise QueryError(f"{what} point {i} ({x:g}, {y:g}) lies outside the picture of "
                         f"graph {graph_id!r} (x {x0:g}..{x1:g}, y {y0:g}..{y1:g})"
                         + ("; are x and y swapped?" if swapped else ""))
    return pts
