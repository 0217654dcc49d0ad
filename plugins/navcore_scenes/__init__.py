"""navcore_scenes: YAML scene files (graphs, agents, crowds, moving
obstacles, timed events) checked with ``file:line:column`` errors, played
headless through ``World.tick`` and drawn with Pillow; and the ``navcore
run``, ``validate`` and ``render`` commands.

The names below load on first use: every ``World`` registers this plugin,
and a game that never opens a scene should not pay for YAML.
"""
import importlib

_WHERE = {"EventKind": "events", "Scene": "scene", "parse_scene": "scene",
          "read_scene": "scene", "Simulation": "sim"}

__all__ = ["Simulation", "Scene", "read_scene", "parse_scene", "EventKind"]


def __getattr__(name):
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'navcore_scenes' has no attribute {name!r}")
