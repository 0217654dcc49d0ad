"""navcore: grids, navmeshes and road networks behind one plugin API.

Plugin authors import the markers from here::

    import navcore

    @navcore.hookimpl
    def navcore_graph_types():
        return {"ring": build_ring}

Scenes (YAML files played through ``World.tick``) live in the scenes
plugin, ``navcore_scenes``; ``navcore.load_scene`` and the names
``Simulation``, ``Scene``, ``read_scene`` and ``EventKind`` reach it from
here, imported on first use so that ``import navcore`` loads neither YAML
nor Pillow; a scene's picture is ``navcore_scenes.render.draw(sim)``. ``navcore.draw(world, graph_id)`` pictures
any graph without a scene (Pillow loads then), ``navcore.plot`` shows it
on matplotlib axes.
"""
from .errors import (CapacityError, FrameError, GraphError, MapFormatError, MeshFormatError, NavError,
                     NodeError, PluginError, QueryError, SceneError, UnknownGraphError,
                     UnknownGraphTypeError, UpdateError)
from .graph import NavGraph
from .picture import draw, plot
from .plugins import PluginRegistry, PluginWarning, for_graphs, hookimpl, hookspec
from .scene_layer import SceneLayer
from .views import DerivedView
from .types import FrameStats, PathBatch, PathRequest, PathResult, PathStatus, Update
from .world import World
from .warmup import warm_up

__version__ = "0.1.0"

__all__ = [
    "World", "warm_up", "NavGraph", "draw", "plot", "PluginWarning", "DerivedView", "PathRequest", "PathResult",
    "PathBatch", "PathStatus", "Update",
    "FrameStats", "PluginRegistry", "hookimpl", "hookspec", "for_graphs", "SceneLayer",
    "Simulation", "Scene", "read_scene", "EventKind", "load_scene",
    "NavError", "PluginError", "GraphError", "UnknownGraphTypeError",
    "UnknownGraphError", "NodeError", "CapacityError", "MapFormatError", "MeshFormatError",
    "SceneError", "QueryError", "UpdateError", "FrameError",
]

#: public names of the scenes plugin that ``navcore`` offers too
_SCENE_NAMES = ("Simulation", "Scene", "read_scene", "EventKind")


def load_scene(path, world=None, **kw):
    """The scene file ``path`` ready to play: a ``navcore.Simulation``
    (``.run()``, ``.step()``, ``.world``).

    Without ``world`` a new ``navcore.World`` is made from the scene's
    settings (``plugins=[...]`` adds plugins to it); with one, the scene's
    graphs are added to it. Keyword arguments go to
    ``Simulation.from_file``. A mistake in the file is a ``SceneError``
    at its ``path:line:column``.
    """
    from navcore_scenes import Simulation
    return Simulation.from_file(path, world=world, **kw)


def __getattr__(name):
    # PEP 562: only called for names not found above, i.e. on first use of
    # a scene name; the scenes plugin (and YAML with it) loads then
    if name in _SCENE_NAMES:
        import navcore_scenes
        value = globals()[name] = getattr(navcore_scenes, name)
        return value
    raise AttributeError(f"module 'navcore' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SCENE_NAMES))
