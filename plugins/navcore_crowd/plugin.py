"""The crowd plugin's hooks: ``World.add_crowd`` makes a ``Crowd`` (a
``LevelCrowd`` on a 3D level, whose points are 3D), every ``World.tick``
moves the world's crowds, and grids get flow fields
(``flowfield.GridFlow``)."""
from __future__ import annotations

import navcore
from navcore.plugins import forward

from . import flowfield
from .crowd import Crowd
from .levels import LevelCrowd


@navcore.hookimpl
def navcore_make_crowd(world, crowd_id, graph_id, graph, params):
    kind = LevelCrowd if getattr(graph, "point_dims", 2) == 3 else Crowd
    return kind(world, crowd_id, graph_id, **params)


@navcore.hookimpl
def navcore_frame_move(world, stats):
    for crowd in list(world.crowds.values()):
        stats.agents_moved += crowd.step(stats.dt)


# trylast: a grid plugin's own flow field, if one answers, comes first
navcore_flow_field = forward(flowfield.grid_flow, trylast=True)
