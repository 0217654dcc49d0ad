"""The crowd plugin's hooks: ``World.add_crowd`` makes a ``Crowd``,
every ``World.tick`` moves the world's crowds, and grids get flow fields
(``flowfield.GridFlow``)."""
from __future__ import annotations

import navcore
from navcore.plugins import forward

from . import flowfield
from .crowd import Crowd


@navcore.hookimpl
def navcore_make_crowd(world, crowd_id, graph_id, params):
    return Crowd(world, crowd_id, graph_id, **params)


@navcore.hookimpl
def navcore_frame_move(world, stats):
    for crowd in list(world.crowds.values()):
        stats.agents_moved += crowd.step(stats.dt)


# trylast: a grid plugin's own flow field, if one answers, comes first
navcore_flow_field = forward(flowfield.grid_flow, trylast=True)
