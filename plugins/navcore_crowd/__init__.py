"""Crowds: many agents that follow paths and avoid each other (ORCA).

``World.add_crowd`` makes a :class:`Crowd`; every ``World.tick`` moves
it. ``STATES`` names the values of ``Crowd.state``."""
from .crowd import DEFAULTS, STATES, Crowd

__all__ = ["Crowd", "DEFAULTS", "STATES"]
