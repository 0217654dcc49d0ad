"""navcore_view: watch a scene or a world live in a browser.

``navcore view SCENE.yaml`` plays a scene and ``navcore.view(world)``
shows a game's own world while it ticks: a small web server (aiohttp) on
127.0.0.1 with a random per-run token serves one page (plain HTML and
JavaScript drawing on a 2D canvas) and a WebSocket. The map is the draw
plugin's picture (``navcore_draw.picture``: the same colours as
``navcore.draw`` and ``navcore render``), sent once in tiles of pixels
with the node each pixel shows; then every frame sends the agents, the
frame's times and the tiles whose pixels changed (a door shut, an
obstacle moved, areas recoloured).

Modules: ``wire`` (the binary messages), ``session`` (what is shown,
read on the thread that ticks the world), ``drivers`` (who ticks: a
scene's own thread, or the game's ``world.tick``), ``server`` (aiohttp
on its own thread), ``cli`` (``navcore view``).
"""
