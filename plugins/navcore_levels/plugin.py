"""The level plugin's hooks: the ``level`` graph type (``graph``)."""
from __future__ import annotations

import navcore

from .graph import build_level_graph


@navcore.hookimpl
def navcore_graph_types():
    return {"level": build_level_graph}
