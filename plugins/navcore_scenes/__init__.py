"""navcore_scenes: YAML scene files (graphs, agents, crowds, moving
obstacles, timed events) checked with ``file:line:column`` errors, played
headless through ``World.tick`` and drawn with Pillow; and the ``navcore
run``, ``validate`` and ``render`` commands."""
from .events import EventKind
from .scene import Scene, parse_scene, read_scene
from .sim import Simulation

__all__ = ["Simulation", "Scene", "read_scene", "parse_scene", "EventKind"]
