"""The level plugin's hooks: the ``level`` graph type (``graph``), its
run-time obstacles and area volumes (``updates``), sample graph for warm-ups, pictures of
layered navmeshes (``draw``: a hue per floor, shaded by height; before the
navmesh plugin's flat drawing) and the level options of ``navcore bake``
(``cli``)."""
from __future__ import annotations

import navcore
from navcore.plugins import forward, sample_hook
from navcore_navmesh import LayeredMeshGraph

from . import draw, updates
from .graph import build_level_graph, sample_graph


@navcore.hookimpl
def navcore_graph_types():
    return {"level": build_level_graph}


navcore_sample_graph = sample_hook("level", sample_graph)


navcore_draw_graph = forward(draw.draw, LayeredMeshGraph, tryfirst=True)


@navcore.hookimpl(trylast=True)
def navcore_add_commands(subparsers):
    # after the navmesh plugin's: its ``bake`` command gets the level options
    from . import cli              # loads with the command line only
    cli.add_options(subparsers)
    cli.add_render(subparsers)


# tryfirst: before the navmesh plugin's, which refuses obstacles on layered
# meshes; both pass (None) on anything but a level graph's obstacles
navcore_make_update = forward(updates.make_update, LayeredMeshGraph, tryfirst=True)
navcore_apply_updates = forward(updates.apply_updates, LayeredMeshGraph, tryfirst=True)


# a background rebuild that finished is swapped in by an update queued here,
# at the start of a tick (before the frame's batches are taken)
@navcore.hookimpl
def navcore_frame_start(world):
    updates.frame_start(world)
