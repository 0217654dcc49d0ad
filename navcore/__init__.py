"""navcore: grids, navmeshes and road networks behind one plugin API.

Plugin authors import the markers from here::

    import navcore

    @navcore.hookimpl
    def navcore_graph_types():
        return {"ring": build_ring}
"""
from .errors import (CapacityError, GraphError, MapFormatError, NavError, NodeError,
                     PluginError, QueryError, SceneError, UnknownGraphError,
                     UnknownGraphTypeError, UpdateError)
from .graph import NavGraph
from .plugins import PluginRegistry, for_graphs, hookimpl, hookspec
from .scene import Scene, read_scene
from .scene_events import EventKind
from .sim import Simulation
from .views import DerivedView
from .types import FrameStats, PathRequest, PathResult, PathStatus, Update
from .world import World

__version__ = "0.1.0"

__all__ = [
    "World", "NavGraph", "DerivedView", "PathRequest", "PathResult", "PathStatus", "Update",
    "FrameStats", "PluginRegistry", "hookimpl", "hookspec", "for_graphs",
    "Simulation", "Scene", "read_scene", "EventKind",
    "NavError", "PluginError", "GraphError", "UnknownGraphTypeError",
    "UnknownGraphError", "NodeError", "CapacityError", "MapFormatError",
    "SceneError", "QueryError", "UpdateError",
]
