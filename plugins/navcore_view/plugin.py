"""The view plugin's hooks: the ``navcore view`` subcommand and
``navcore.view(world)``."""
from __future__ import annotations

import navcore

# aiohttp and the scene modules load when a viewer starts, not with every World


@navcore.hookimpl
def navcore_add_commands(subparsers):
    from . import cli
    cli.add_command(subparsers)


@navcore.hookimpl
def navcore_view(world, graph_id, port, open_browser):
    from . import viewer
    return viewer.view_world(world, graph_id, port, open_browser)
