"""The canvas backends draw into is the draw plugin's,
``navcore_draw.canvas`` (``navcore.draw`` pictures a world without a
scene); its names stay importable from here."""
from navcore_draw.canvas import BORDER_DARKEN, COVERED, WALL, Canvas, area_colour, pixel_size

__all__ = ["Canvas", "area_colour", "pixel_size", "WALL", "COVERED", "BORDER_DARKEN"]
