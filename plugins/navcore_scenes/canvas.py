"""The canvas backends draw into lives in the kernel, ``navcore.canvas``
(``navcore.draw`` pictures a world without a scene); its names stay
importable from here."""
from navcore.canvas import BORDER_DARKEN, COVERED, WALL, Canvas, area_colour, pixel_size

__all__ = ["Canvas", "area_colour", "pixel_size", "WALL", "COVERED", "BORDER_DARKEN"]
