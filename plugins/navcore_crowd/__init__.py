"""Crowds: many agents that follow paths and avoid each other (ORCA).

``World.add_crowd`` makes a :class:`Crowd` (a :class:`LevelCrowd` on a
3D level: points ``(x, y, z)``); every ``World.tick`` moves it.
``STATES`` names the values of ``Crowd.state``. On grids, agents sharing
a goal walk one :class:`FlowField`."""
from .crowd import DEFAULTS, STATES, Crowd
from .flowfield import FlowField
from .levels import LevelCrowd

__all__ = ["Crowd", "DEFAULTS", "FlowField", "LevelCrowd", "STATES"]
