"""navcore_draw: pictures of a graph, the built-in plugin that answers
``navcore.draw`` and ``navcore.plot`` (hook ``navcore_picture``).

It frames a picture by the graph's scene layer (or its node positions),
asks the graph's backend to paint its map into a ``Canvas``
(``navcore_draw_graph``) and other plugins for overlays
(``navcore_draw_overlay``), then draws paths and agents with Pillow,
imported only when a picture is made. The scenes plugin draws its
pictures with the same pieces: ``navcore_draw.canvas`` (the canvas, its
colours) and ``navcore_draw.picture`` (framing, scale, lines and discs).
"""
from .canvas import BORDER_DARKEN, COVERED, WALL, Canvas, area_colour, pixel_size

__all__ = ["Canvas", "area_colour", "pixel_size", "WALL", "COVERED", "BORDER_DARKEN"]
