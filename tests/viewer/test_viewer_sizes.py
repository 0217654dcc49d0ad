"""The sizes that must stay interactive in ``navcore.view``: a 1000x1000
grid with a crowd of 200, a 3,860-polygon navmesh (the Iron Harvest
map) with a crowd of 50 and a 15,129-junction road graph. Counted, not timed: the map goes
to the page once, compressed; every frame after it is the agents alone
(a few bytes an agent, whatever the map's size); a changed cell sends
again only the tile it lies in."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import navcore
from viewkit import Page

MESH = Path("/work/shared/data/navmesh/scene_mp_2p_01.mesh")
#: a frame's fixed part (its JSON header: the frame's times) and, per
#: agent, position (8), state (1), radius (4), path offset and point (12)
FRAME_FIXED, FRAME_PER_AGENT = 1024, 32


def _grid():
    rng = np.random.default_rng(7)
    walkable = np.ones((1000, 1000), bool)
    for x, y, w, h in rng.integers(0, 1000, (300, 4)):
        walkable[y:y + 2 + h % 60, x:x + 2 + w % 60] = False
    walkable[:, :40] = True                              # the crowd's start, clear
    walkable[590:613, 590:613] = True                    # open floor, shut in the test
    world = navcore.World()
    world.add_graph("field", type="grid", array=walkable)
    crowd = world.add_crowd("army", graph="field", radius=0.4)
    crowd.add([(10.5, 5.5 + 4 * k) for k in range(200)])
    crowd.set_goals(crowd.ids, [(30.5, 990.5)])
    return world, "field", 1000 * 1000


def _navmesh():
    if not MESH.exists():
        pytest.skip(f"{MESH} not available")
    world = navcore.World()
    mesh = world.add_graph("harvest", type="navmesh", mesh=str(MESH))
    # polygon centres: 50 on one side of the map walk to 50 on the other
    centres = np.asarray(mesh.positions)[:, :2]
    order = np.argsort(centres[:, 0])
    crowd = world.add_crowd("squad", graph="harvest", radius=0.5)
    crowd.add(centres[order[:50]], goals=centres[order[-50:]])
    return world, "harvest", 3860


def _roads():
    # a jittered 123 x 123 street lattice in Helsinki's (lon, lat)
    rng = np.random.default_rng(3)
    side = 123
    gx, gy = np.meshgrid(np.arange(side), np.arange(side))
    node = gy * side + gx
    src = np.concatenate([node[:, :-1].ravel(), node[:-1, :].ravel()])
    dst = np.concatenate([node[:, 1:].ravel(), node[1:, :].ravel()])
    lon = 24.9 + gx.ravel() * 1e-3 + rng.uniform(-3e-4, 3e-4, side * side)
    lat = 60.15 + gy.ravel() * 5e-4 + rng.uniform(-1.5e-4, 1.5e-4, side * side)
    world = navcore.World()
    world.add_graph("city", type="roads", src=src, dst=dst, oneway=False,
                    length=np.full(src.size, 60.0), speed=np.full(src.size, 40.0),
                    positions=np.column_stack((lon, lat)))
    return world, "city", side * side


def _tick_until(world, page, expr, limit=200):
    for _ in range(limit):
        world.tick(0.1)
        time.sleep(0.01)
        if page.js(expr):
            return
    page.wait(expr, timeout=5.0)


@pytest.mark.parametrize("make", [_grid, _navmesh, _roads], ids=["grid", "navmesh", "roads"])
def test_the_map_goes_once_and_frames_are_the_agents_alone(make, browser, record_property):
    world, gid, nodes = make()
    assert world.graph(gid).num_nodes == nodes
    viewer = navcore.view(world, open_browser=False)
    page = Page(browser, viewer)
    try:
        s = viewer.session
        w, h = s.map_info["width"], s.map_info["height"]
        first = page.js("V.mapBytes")
        assert page.js("V.tiles") == len(s.tiles) == -(-w // 128) * -(-h // 128)
        # the whole map once, compressed: RGB and the int32 node of each pixel
        # are 7 bytes a pixel raw
        # and the message's table of tiles: a line of JSON and padding a tile
        assert s.map_bytes < first < s.map_bytes + 1024 + 160 * len(s.tiles)
        assert first < 0.35 * 7 * w * h, f"the first load is {first} bytes for {w}x{h} px"

        _tick_until(world, page, "V.frameBytes.length >= 30")
        agents = page.js("V.agents")
        assert agents == sum(len(c) for c in world.crowds.values())
        sizes = page.js("V.frameBytes")
        assert max(sizes) <= FRAME_FIXED + FRAME_PER_AGENT * agents, sizes[-5:]
        # nothing changed on the map: no tile was sent again
        assert page.js("V.mapBytes") == first and page.js("V.tiles") == len(s.tiles)
        assert page.js("V.messages") == len(sizes) + 1, "a map message besides the first"

        if world.graph(gid).kind == "grid":
            # nine cells shut in open floor: only the tile they lie in is sent again
            world.update(gid, rect=(600, 600, 3, 3), walkable=False)
            tiles = page.js("V.tiles")
            _tick_until(world, page, f"V.tiles > {tiles}")
            _tick_until(world, page, f"V.serial === {s.serial}", limit=10)
            assert page.js("V.tiles") == tiles + 1
            delta = page.js("V.mapBytes") - first
            assert delta < 0.02 * first
            print(f"\nviewer {gid}: 9 cells shut, {delta} B sent again")
        draw = sorted(page.js("V.drawMs"))
        record_property("viewer", {"graph": gid, "nodes": nodes, "px": (w, h),
                                   "first_load_bytes": first, "frame_bytes": max(sizes),
                                   "agents": agents, "frames": len(sizes),
                                   "draw_ms_median": draw[len(draw) // 2],
                                   "draw_ms_max": draw[-1]})
        print(f"\nviewer {gid}: {nodes} nodes, {w}x{h} px, first load {first} B, "
              f"frame {max(sizes)} B ({agents} agents), draw+handle median "
              f"{draw[len(draw) // 2]:.2f} ms max {draw[-1]:.2f} ms over {len(draw)}")
        assert not page.errors, page.errors
    finally:
        page.close()
        viewer.close()
        world.close()
