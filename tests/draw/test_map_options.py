"""The map's optional overlays (``navcore_draw.Canvas``'s ``tiles`` and
``traffic``, the viewer's layers): a tiled navmesh's tile borders lie on
its tile lines, roads are coloured by their slowdown, closed ones stay
the covered colour."""
from __future__ import annotations

import numpy as np

import navcore
from navcore_draw import picture as P
from navcore_draw.canvas import COVERED


def _map(world, gid, **options):
    graph = world.graph(gid)
    layer = P.frame_of(world, gid, graph)
    scale = P.check_scale(*P.map_size(layer), None)
    colours = P.node_colours(world, gid, graph)
    return P.map_canvas(world, gid, graph, layer, scale, colours, **options)


def test_tile_borders_lie_on_the_tile_lines():
    world = navcore.World()
    try:
        world.add_graph("m", type="navmesh", bounds=(0, 0, 40, 20), tile_size=10,
                        obstacles=[[(12, 4), (16, 4), (16, 9), (12, 9)]])
        plain, tiled = _map(world, "m"), _map(world, "m", tiles=True)
        changed = np.argwhere((plain.rgb != tiled.rgb).any(axis=2))
        assert len(changed) > 0, "no tile border was drawn"
        # a border pixel is the first right of or below a tile line x or y = 10k
        xy = (changed[:, ::-1] + 0.5) / tiled.scale + np.array(tiled.origin)
        off = np.minimum(*(np.abs(xy - np.round(xy / 10) * 10).T))
        assert (off <= 1.0 / tiled.scale).all()
        # three inner lines each way: the borders cross the map
        assert {int(round(x / 10)) for x in xy[:, 0][np.abs(xy[:, 0] % 10) < 0.5]} >= {1, 2, 3}
    finally:
        world.close()


def test_roads_are_coloured_by_their_slowdown():
    from navcore_roads.scene_layer import FREE, traffic_colours
    world = navcore.World()
    try:
        lon = np.linspace(7.40, 7.44, 5)
        pos = np.column_stack([lon, np.full(5, 43.73)])
        src = np.arange(4)
        world.add_graph("r", type="roads", src=np.r_[src, src + 1], dst=np.r_[src + 1, src],
                        length=np.full(8, 800.0), speed=np.full(8, 50.0), positions=pos)
        world.update("r", edges=[[1, 2], [2, 1]], factor=3.0)
        world.update("r", edges=[[3, 4], [4, 3]], cost=np.inf)
        world.tick(0.0)
        c = _map(world, "r", traffic=True)
        colours = {tuple(v) for v in c.rgb[c.node_at >= 0]}
        assert tuple(FREE) in colours
        assert tuple(traffic_colours([3.0])[0]) in colours
        assert tuple(COVERED) in {tuple(v) for v in c.rgb.reshape(-1, 3)}
        # off: the areas' colours, no traffic ramp
        plain = _map(world, "r")
        assert tuple(traffic_colours([3.0])[0]) not in {tuple(v) for v in plain.rgb.reshape(-1, 3)}
    finally:
        world.close()


def test_the_traffic_ramp():
    from navcore_roads.scene_layer import FREE, JAMMED, SLOW, traffic_colours
    got = traffic_colours([1.0, 2.0, 4.0, 9.0, np.inf, 0.5])
    assert got.tolist() == [list(FREE), list(SLOW), list(JAMMED), list(JAMMED),
                            list(JAMMED), list(FREE)]
