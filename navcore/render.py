"""Kept for compatibility: scene pictures moved to the scenes plugin, in
``navcore_scenes.render``; ``navcore.render.draw(sim)`` keeps working."""
from navcore_scenes.render import *  # noqa: F401,F403
from navcore_scenes.render import __all__  # noqa: F401
