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
nor Pillow; a scene's picture is ``navcore_scenes.render.draw(sim)``.
``navcore.draw(world, graph_id)`` pictures any graph without a scene
(Pillow loads then), ``navcore.plot`` shows it on matplotlib axes: both
ask the draw plugin, ``navcore_draw``, through ``navcore_picture``.
``navcore.Isochrone`` (what ``World.isochrone`` answers) is the csr
plugin's ``navcore_csr.isochrone.Isochrone``, also loaded on first use.
"""
from .errors import (CapacityError, CrowdError, FrameError, GraphError, MapFormatError, MeshFormatError, NavError,
                     NodeError, PluginError, QueryError, SceneError, UnknownGraphError,
                     UnknownGraphTypeError, UpdateError)
from .graph import NavGraph
from .plugins import PluginRegistry, PluginWarning, for_graphs, hookimpl, hookspec, precheck
from .scene_layer import SceneLayer
from .search import Search
from .views import DerivedView
from .types import (FrameStats, GraphVersion, MeshPoint, PathBatch, PathRequest, PathResult,
                    PathStatus, RaycastHit, SearchIntervals, Update)
from .world import World
from .warmup import warm_up

__version__ = "0.1.0"

__all__ = [
    "World", "warm_up", "NavGraph", "draw", "plot", "view", "PluginWarning", "DerivedView", "PathRequest", "PathResult",
    "GraphVersion", "MeshPoint", "RaycastHit", "SearchIntervals", "Isochrone", "PathBatch", "PathStatus", "Update", "Search",
    "FrameStats", "PluginRegistry", "hookimpl", "hookspec", "for_graphs", "precheck",
    "SceneLayer",
    "Simulation", "Scene", "read_scene", "EventKind", "load_scene",
    "NavError", "PluginError", "GraphError", "UnknownGraphTypeError",
    "UnknownGraphError", "NodeError", "CapacityError", "MapFormatError", "MeshFormatError",
    "SceneError", "QueryError", "UpdateError", "FrameError", "CrowdError",
]

#: public names of plugins that ``navcore`` offers too, and their modules:
#: the scenes plugin's, and the isochrone the csr plugin makes for any graph
_PLUGIN_NAMES = {"Simulation": "navcore_scenes", "Scene": "navcore_scenes",
                 "read_scene": "navcore_scenes", "EventKind": "navcore_scenes",
                 "Isochrone": "navcore_csr.isochrone"}


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


def draw(world, graph_id, *, paths=(), agents=(), areas=True, out=None,
         scale=None) -> "np.ndarray":
    """A picture of graph ``graph_id`` of ``world`` as it is now: an
    ``(H, W, 3)`` uint8 RGB array (row 0 at the top), also written as a PNG
    to ``out`` when given.

    Any graph type whose plugin draws it (``navcore_draw_graph``): grids,
    navmeshes, road networks (north up), csr graphs with node positions
    (nodes and open edges), third-party types such as the hexgrid example.
    With ``areas`` each connected area has its own colour (when the
    areas plugin answers; otherwise all floor is one colour); walls are
    dark. ``paths``: ``PathResult``s (found ones) or ``(k, 2)`` point
    arrays in world coordinates, drawn as lines in
    ``navcore_draw.picture.PATH_COLOURS`` in turn, each on a thin white
    halo; ``agents``: ``(k, 2)`` points, drawn as white discs as wide as
    the graph's agent radius (a navmesh's), else 0.35 map units. ``scale``:
    whole pixels per map unit (a grid cell, a navmesh unit, a 256th of a
    road map); ``None`` makes the picture about 1024 pixels on its long
    side. Mistakes are ``navcore.NavError``s: an unknown graph
    (``UnknownGraphError``), and a ``QueryError`` for a graph no plugin
    draws, a bad scale, a path or point outside the picture, an ``out``
    that cannot be written, or a world without the draw plugin.
    """
    return _ask_plugin("draw", "navcore_picture", "draw", _SCENE_PICTURE,
                       world, graph_id, "draw", None, paths, agents, areas, scale, out)


def plot(ax, world, graph_id, *, paths=(), agents=(), areas=True, scale=None):
    """Show ``draw(world, graph_id, ...)`` on the matplotlib axes ``ax``
    in world coordinates (``imshow`` with the picture's ``extent``), so
    your own artists (``ax.plot(xs, ys)``) land where they are in the
    world. Returns the ``AxesImage``. Needs matplotlib (not a navcore
    dependency): a ``QueryError`` says to install it when it is missing.
    """
    return _ask_plugin("plot", "navcore_picture", "draw", _SCENE_PICTURE,
                       world, graph_id, "plot", ax, paths, agents, areas, scale, None)


def view(world, graph_id=None, *, port=None, open_browser=True):
    """Watch ``world`` live in a browser while your game ticks it: a
    small web server on 127.0.0.1 (its own thread) serving one page that
    draws graph ``graph_id`` (``None``: the first one that can be drawn)
    as ``navcore.draw`` does, with the world's crowds moving on it, a
    frame-time chart, and paths asked for by clicking two points.
    Returns the viewer: ``viewer.url`` (with its per-run token; a
    request without it is refused), ``viewer.close()``. The world is read
    at the end of each ``world.tick`` on the ticking thread; pausing in
    the page holds ``tick`` there until play, step or the last page
    closing. ``port``: a TCP
    port (``None``: a free one); ``open_browser``: open the address in
    the user's browser. Needs the view plugin (``navcore_view``) and its
    web server, aiohttp (``pip install navcore[view]``); a ``QueryError``
    says which is missing.
    """
    return _ask_plugin("view", "navcore_view", "view",
                       "pass sim.world, or run `navcore view SCENE.yaml` for a scene",
                       world, graph_id, port, open_browser)


#: what ``navcore.draw`` and ``plot`` tell a caller who passed a scene
_SCENE_PICTURE = "a scene's picture is navcore_scenes.render.draw(sim), or draw sim.world"


def _ask_plugin(call, hook, plugin, scene_hint, world, *args):
    """The answer of ``hook``, which plugin ``plugin`` gives, to
    ``navcore.<call>(world, ...)``: the kernel draws and serves nothing
    itself. ``scene_hint`` says what to pass when ``world`` is a scene's
    simulation."""
    if not isinstance(world, World):
        hint = (f": {scene_hint}" if hasattr(world, "world") and isinstance(world.world, World)
                else "")
        raise QueryError(f"navcore.{call} needs a navcore.World, got "
                         f"{type(world).__name__}{hint}")
    answer = world.plugins.caller(hook)(world, *args)
    if answer is None:
        raise QueryError(f"navcore.{call} needs the {plugin} plugin (navcore_{plugin}, entry "
                         f"point '{plugin}'), and no plugin of this world answered {hook}")
    return answer


def __getattr__(name):
    # PEP 562: only called for names not found above, i.e. on first use of
    # a plugin's name; its plugin (the scenes': YAML with it) loads then
    if name in _PLUGIN_NAMES:
        import importlib
        value = getattr(importlib.import_module(_PLUGIN_NAMES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'navcore' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_PLUGIN_NAMES))
