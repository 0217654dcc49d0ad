"""The draw plugin's hook: ``navcore.draw`` and ``navcore.plot`` ask
``navcore_picture``, answered by ``navcore_draw.picture``."""
from __future__ import annotations

import navcore

from .picture import picture, plot


@navcore.hookimpl
def navcore_picture(world, graph_id, call, ax, paths, agents, areas, scale, out):
    if call == "draw":
        return picture(world, graph_id, paths, agents, areas, out, scale)[0]
    if call == "plot":
        return plot(ax, world, graph_id, paths, agents, areas, scale)
    return None
