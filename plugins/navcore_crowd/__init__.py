"""Crowds: many agents that follow paths and avoid each other (ORCA).

``World.add_crowd`` makes a :class:`Crowd`; every ``World.tick`` moves
it. ``STATES`` names the values of ``Crowd.state``. On grids, agents
sharing a goal walk one :class:`FlowField`."""
from .crowd import DEFAULTS, STATES, Crowd
from .flowfield import FlowField

__all__ = ["Crowd", "DEFAULTS", "FlowField", "STATES"]
