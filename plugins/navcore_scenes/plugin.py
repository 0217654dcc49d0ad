"""The scenes plugin's hooks: the ``navcore run``, ``validate`` and
``render`` subcommands, and the built-in scene event kinds (block,
unblock, open, close, cost, goal)."""
from __future__ import annotations

import navcore

# the scene modules (and YAML with them) load when a scene or the command
# line needs them, not with every World that registers this plugin


@navcore.hookimpl
def navcore_add_commands(subparsers):
    from . import cli
    cli.add_commands(subparsers)


# trylast puts this implementation first in get_hookimpls(), so the
# built-in names are claimed before any other plugin's: a clash names the
# built-in owner first, as it did when these kinds were hard-wired
@navcore.hookimpl(trylast=True)
def navcore_scene_event_kinds():
    from .events import BUILTIN_KINDS
    return dict(BUILTIN_KINDS)
