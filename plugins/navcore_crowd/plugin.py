"""The crowd plugin's hooks: ``World.add_crowd`` makes a ``Crowd``, and
every ``World.tick`` moves the world's crowds."""
from __future__ import annotations

import navcore

from .crowd import Crowd


@navcore.hookimpl
def navcore_make_crowd(world, crowd_id, graph_id, params):
    return Crowd(world, crowd_id, graph_id, **params)


@navcore.hookimpl
def navcore_frame_move(world, stats):
    for crowd in list(world.crowds.values()):
        stats.agents_moved += crowd.step(stats.dt)
