"""The level plugin's hooks: the ``level`` graph type (``graph``) and its
sample graph for warm-ups."""
from __future__ import annotations

import navcore
from navcore.plugins import sample_hook

from .graph import build_level_graph, sample_graph


@navcore.hookimpl
def navcore_graph_types():
    return {"level": build_level_graph}


navcore_sample_graph = sample_hook("level", sample_graph)
