"""``navcore.draw`` and ``navcore.plot``: a picture of any graph of a World,
without a scene.

The truth for each graph type is the scene renderer's picture of the same
world: a scene read from YAML and the same graphs built by hand give the
same pixels. What differs is defined and checked too: a scene paints the
floor under a moving obstacle dark red where ``draw`` shows the wall the
obstacle made, and only a scene colours agents by their state (``draw``
paints every agent as a scene paints a walking one). csr graphs have no
scene layer, so the scene renderer refuses them; their pictures are checked
against node positions worked out by hand.
"""
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import navcore
from navcore_draw.canvas import COVERED, WALL, area_colour
from navcore_draw.picture import PATH_COLOURS, PATH_HALO
from navcore_scenes.agents import MOVING
from navcore_scenes.render import draw as scene_draw

ROOT = Path(__file__).resolve().parents[2]
ROWS = ["....#.....", "....#.....", "....#....."]


@pytest.fixture(scope="module")
def hexgrid():
    import importlib.util
    path = ROOT / "examples" / "navcore_hexgrid" / "navcore_hexgrid.py"
    spec = importlib.util.spec_from_file_location("navcore_hexgrid", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _same_as_the_scene(sim, world, graph_id, **kw):
    """The scene's picture of ``graph_id`` equals ``draw`` of the scene's
    world and of ``world`` (the same graphs built by hand)."""
    scene = np.asarray(scene_draw(sim, graph_id, paths=False, **kw))
    assert scene.shape[0] > 8 and scene.shape[1] > 8
    assert len(np.unique(scene.reshape(-1, 3), axis=0)) >= 2     # not blank
    by_hand = navcore.draw(world, graph_id, **kw)
    assert by_hand.dtype == np.uint8 and by_hand.shape == scene.shape
    assert np.array_equal(by_hand, scene)
    assert np.array_equal(navcore.draw(sim.world, graph_id, **kw), scene)
    return by_hand


@pytest.mark.nojit
def test_a_grid_is_drawn_as_its_scene_draws_it():
    with navcore.Simulation.from_text(f"graphs: [{{id: yard, type: grid, rows: {ROWS}}}]",
                                      "yard.yaml") as sim:
        world = navcore.World()
        world.add_graph("yard", type="grid", rows=ROWS)
        pic = _same_as_the_scene(sim, world, "yard", scale=10)
    assert pic.shape == (30, 100, 3)                       # 10 x 3 cells, 10 pixels each
    left, wall, right = pic[15, 15], pic[15, 45], pic[15, 65]
    assert tuple(wall) == WALL
    assert tuple(left) != tuple(right) and WALL not in (tuple(left), tuple(right))
    # without areas every floor cell is one colour
    flat = navcore.draw(world, "yard", scale=10, areas=False)
    assert tuple(flat[15, 15]) == tuple(flat[15, 65]) == area_colour(0)
    assert tuple(flat[15, 45]) == WALL


@pytest.mark.nojit
def test_without_the_hierarchy_plugin_all_floor_is_one_colour():
    world = navcore.World()
    world.plugins.unregister("areas")                  # nobody answers areas
    world.add_graph("yard", type="grid", rows=ROWS)
    pic = navcore.draw(world, "yard", scale=10)
    assert np.array_equal(pic, navcore.draw(world, "yard", scale=10, areas=False))
    assert tuple(pic[15, 15]) == tuple(pic[15, 65]) == area_colour(0)


@pytest.mark.nojit
def test_a_navmesh_is_drawn_as_its_scene_draws_it():
    text = ("graphs: [{id: yard, type: navmesh, bounds: [0, 0, 20, 10], agent_radius: 0.5,"
            " obstacles: [[[5, 2], [8, 2], [8, 6], [5, 6]]]}]")
    with navcore.Simulation.from_text(text, "yard.yaml") as sim:
        world = navcore.World()
        world.add_graph("yard", type="navmesh", bounds=(0, 0, 20, 10), agent_radius=0.5,
                        obstacles=[[(5, 2), (8, 2), (8, 6), (5, 6)]])
        pic = _same_as_the_scene(sim, world, "yard", scale=8)
    assert pic.shape == (80, 160, 3)                       # bounds 20 x 10, 8 a unit
    assert tuple(pic[4 * 8, 6 * 8]) == WALL                # inside the obstacle
    assert tuple(pic[8 * 8, 15 * 8]) != WALL               # open ground


@pytest.mark.nojit
def test_the_hexgrid_example_is_drawn_as_its_scene_draws_it(hexgrid):
    text = "graphs: [{id: hive, type: hexgrid, width: 6, height: 4, blocked: [[2, 1], [3, 1]]}]"
    world = navcore.World(autoload=False, plugins=[hexgrid])
    with navcore.Simulation.from_text(text, "hive.yaml", world=world) as sim:
        mine = navcore.World(autoload=False, plugins=[hexgrid])
        mine.add_graph("hive", type="hexgrid", width=6, height=4, blocked=[(2, 1), (3, 1)])
        pic = _same_as_the_scene(sim, mine, "hive")
    # the frame is the centres' box with a unit to spare: centre (q + r/2, r*sqrt(3)/2)
    scale = 16
    x, y = (2 + 1 / 2 + 1) * scale, (1 * np.sqrt(3) / 2 + 1) * scale
    assert tuple(pic[int(y), int(x)]) == WALL             # blocked hex (2, 1)
    x = (0 + 1 / 2 + 1) * scale
    assert tuple(pic[int(y), int(x)]) != WALL              # open hex (0, 1)


def test_a_road_map_is_drawn_as_its_scene_draws_it(tmp_path):
    shutil.copy(ROOT / "scenes" / "maps" / "monaco.osm.gz", tmp_path)
    scene = tmp_path / "town.yaml"
    scene.write_text("graphs: [{id: streets, type: roads, osm: monaco.osm.gz, profile: car}]\n")
    with navcore.load_scene(scene) as sim:
        world = navcore.World()
        world.add_graph("streets", type="roads", osm=str(tmp_path / "monaco.osm.gz"),
                        profile="car")
        pic = _same_as_the_scene(sim, world, "streets")
    # north up: the northernmost junction is drawn above the southernmost
    g = world.graph("streets")
    route = world.find_path("streets", g.positions[g.positions[:, 1].argmin()],
                            g.positions[g.positions[:, 1].argmax()])
    assert route.found
    drawn = navcore.draw(world, "streets", paths=[route])
    changed = np.argwhere((drawn != pic).any(axis=2))
    first, last = route.points[0], route.points[-1]
    # the changed pixels run from the south end (low on the picture) to the north
    assert changed[:, 0].max() > pic.shape[0] * 0.7 and changed[:, 0].min() < pic.shape[0] * 0.3
    assert first[1] < last[1]


@pytest.mark.nojit
def test_a_csr_graph_with_positions_is_drawn_from_its_positions():
    #   0 (0, 0) -- 1 (3, 0) -- 2 (6, 0)        node 4 blocked,
    #   |                        |              edge 3 -> 4 -> 5 so cut
    #   3 (0, 3)    4 (3, 3)     5 (6, 3)
    pos = [[0, 0], [3, 0], [6, 0], [0, 3], [3, 3], [6, 3]]
    src, dst = [0, 1, 0, 2, 3, 4], [1, 2, 3, 5, 4, 5]
    world = navcore.World()
    world.add_graph("net", type="csr", src=src + dst, dst=dst + src, positions=pos,
                    directed=False, walkable=[1, 1, 1, 1, 0, 1])
    pic = navcore.draw(world, "net")
    # the positions' box (6 x 3) with a unit to spare, 16 pixels a unit
    assert pic.shape == (5 * 16, 8 * 16, 3)

    def at(x, y):
        return tuple(pic[int((y + 1) * 16), int((x + 1) * 16)])
    floor = area_colour(int(world.areas("net")[0]))
    assert all(at(*pos[n]) == floor for n in (0, 1, 2, 3, 5))
    assert at(3, 3) not in (floor, WALL)                   # blocked node: grey, shown
    assert at(1.5, 0) == floor and at(0, 1.5) == floor and at(6, 1.5) == floor   # edges
    assert at(1.5, 3) == WALL and at(4.5, 3) == WALL       # edges of the blocked node
    assert at(3, 1.5) == WALL                              # no edge there
    # the scene renderer has no frame for a csr graph: it refuses to picture it
    text = ("graphs: [{id: net, type: csr, src: [0, 1], dst: [1, 2], "
            "positions: [[0, 0], [1, 0], [2, 0]]}]")
    with navcore.Simulation.from_text(text, "net.yaml") as sim:
        with pytest.raises(navcore.NavError, match="no graph of this scene has one"):
            scene_draw(sim)
        # x 0..2 and y 0..0, a unit to spare round them
        assert navcore.draw(sim.world, "net").shape == (2 * 16, 4 * 16, 3)


def _near_polyline(shape, polyline, radius):
    """Bool ``(H, W)``: pixel centres within ``radius`` pixels of the
    polyline (pixel coordinates), worked out segment by segment."""
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w] + 0.5
    near = np.zeros((h, w), dtype=bool)
    for (ax, ay), (bx, by) in zip(polyline[:-1], polyline[1:]):
        dx, dy = bx - ax, by - ay
        t = np.clip(((xx - ax) * dx + (yy - ay) * dy) / max(dx * dx + dy * dy, 1e-12), 0, 1)
        near |= np.hypot(xx - (ax + t * dx), yy - (ay + t * dy)) <= radius
    if len(polyline) == 1:
        near |= np.hypot(xx - polyline[0][0], yy - polyline[0][1]) <= radius
    return near


@pytest.mark.nojit
def test_a_path_changes_the_pixels_along_it_and_no_others():
    world = navcore.World()
    world.add_graph("yard", type="grid", rows=["..........", "....#.....", ".........."])
    path = world.find_path("yard", (0, 0), (9, 2))
    assert path.found
    plain = navcore.draw(world, "yard", scale=16)
    drawn = navcore.draw(world, "yard", scale=16, paths=[path])
    changed = (plain != drawn).any(axis=2)
    line = path.points * 16                               # grid: a cell is 16 pixels
    width = 16 // 4
    # every pixel on the line, away from its two ends, changed
    ends = _near_polyline(changed.shape, line[:1], width) | \
        _near_polyline(changed.shape, line[-1:], width)
    assert changed[_near_polyline(changed.shape, line, width / 2 - 1) & ~ends].all()
    assert not changed[~_near_polyline(changed.shape, line, (width + 2) / 2 + 1.5)].any()
    # the line in the first path colour, on its white halo
    colours = {tuple(c) for c in drawn[changed]}
    assert PATH_COLOURS[0] in colours and PATH_HALO in colours
    # a point array draws the same line; a second path takes the next colour
    same = navcore.draw(world, "yard", scale=16, paths=[path.points.tolist()])
    assert np.array_equal(same, drawn)
    two = navcore.draw(world, "yard", scale=16, paths=[path, [(0.5, 2.5), (3.5, 2.5)]])
    assert PATH_COLOURS[1] in {tuple(c) for c in two.reshape(-1, 3)}


@pytest.mark.nojit
def test_agents_are_drawn_as_a_scene_draws_walking_agents():
    text = ("settings: {dt: 0.1, frames: 30}\n"
            "graphs: [{id: hall, type: navmesh, bounds: [0, 0, 20, 10], agent_radius: 0.5}]\n"
            "agents: [{id: a, start: [1, 1], goal: [18, 8], speed: 2},\n"
            "         {id: b, start: [1, 8], goal: [18, 1], speed: 2}]\n")
    with navcore.Simulation.from_text(text, "hall.yaml") as sim:
        sim.run(3)
        assert (sim.agents.state == MOVING).all()
        # (a scene also draws each agent's velocity tick: tests/scenes)
        scene = np.asarray(scene_draw(sim, paths=False, ticks=False))
        pic = navcore.draw(sim.world, "hall", agents=sim.agents.pos)
        bare = navcore.draw(sim.world, "hall")
    assert np.array_equal(pic, scene)
    # the discs are as wide as the mesh's agent radius: 0.5 units, 16 pixels a unit
    scale = 16
    changed = (pic != bare).any(axis=2)
    for x, y in sim.agents.pos * scale:
        assert changed[int(y), int(x)] and changed[int(y), int(x + 0.4 * scale)]
        assert not changed[int(y), int(x + 0.7 * scale)]


@pytest.mark.nojit
def test_a_scene_obstacle_is_dark_red_in_the_scene_and_a_wall_in_draw():
    text = ("settings: {dt: 0.1, frames: 30}\n"
            "graphs: [{id: yard, type: grid, rows: [\"..........\", \"..........\"]}]\n"
            "agents: [{id: a, start: [0, 1], goal: [3, 1], speed: 1}]\n"
            "obstacles: [{id: cart, rect: [7, 0, 1, 1]}]\n")
    with navcore.Simulation.from_text(text, "s.yaml") as sim:
        sim.run(2)
        assert sim.agents.state[0] == MOVING
        scene = np.asarray(scene_draw(sim, scale=10, paths=False, ticks=False))
        pic = navcore.draw(sim.world, "yard", scale=10, agents=sim.agents.pos)
    differ = (scene != pic).any(axis=2)
    cart = (scene == COVERED).all(axis=2)
    assert cart.sum() == 100                               # one cell, 10 x 10 pixels
    assert np.array_equal(differ, cart)
    assert (pic[cart] == WALL).all()


@pytest.mark.nojit
def test_drawing_a_navmesh_leaves_a_running_scenes_picture_alone():
    text = ("settings: {dt: 0.1, frames: 30}\n"
            "graphs: [{id: hall, type: navmesh, bounds: [0, 0, 20, 10]}]\n"
            "obstacles: [{id: crate, rect: [[9, 4], [11, 4], [11, 6], [9, 6]]}]\n")
    with navcore.Simulation.from_text(text, "hall.yaml") as sim:
        sim.run(2)
        before = np.asarray(scene_draw(sim, scale=8))
        assert (before == COVERED).all(axis=2).any()       # the crate, drawn by the scene
        navcore.draw(sim.world, "hall", scale=8)
        assert np.array_equal(np.asarray(scene_draw(sim, scale=8)), before)


@pytest.mark.nojit
def test_out_writes_the_picture_as_a_png(tmp_path):
    world = navcore.World()
    world.add_graph("yard", type="grid", rows=ROWS)
    out = tmp_path / "yard.png"
    pic = navcore.draw(world, "yard", out=out, scale=4, agents=[(1.5, 1.5)])
    with Image.open(out) as img:
        assert img.format == "PNG"
        assert np.array_equal(np.asarray(img.convert("RGB")), pic)


@pytest.fixture
def yard():
    world = navcore.World()
    world.add_graph("yard", type="grid", rows=ROWS)
    return world


@pytest.mark.nojit
@pytest.mark.parametrize("kw, message", [
    (dict(scale=0), "scale must be >= 1, got 0"),
    (dict(scale=2.5), "scale must be a whole number of pixels per map unit, got 2.5"),
    (dict(scale="4"), "scale must be a whole number of pixels per map unit, got '4'"),
    (dict(scale=True), "scale must be a whole number of pixels per map unit, got True"),
    (dict(scale=10 ** 4), "scale 10000 makes a 100000 x 30000 pixel picture; at most "
                          "16384 pixels a side, so scale <= 1638 for this 10 x 3 map"),
    (dict(areas="yes"), "areas must be True or False, got 'yes'"),
    (dict(agents=[(1, 2, 3)]), "agents must be (k, 2) points, got shape (1, 3)"),
    (dict(agents=[(1, 2), (30, 1)]), "agents point 1 (30, 1) lies outside the picture of "
                                     "graph 'yard' (x 0..10, y 0..3)"),
    (dict(agents=[(2, 8)]), "agents point 0 (2, 8) lies outside the picture of graph "
                            "'yard' (x 0..10, y 0..3); are x and y swapped?"),
    (dict(paths=[[(1, 1), (np.nan, 2)]]), "paths[0][1] = [nan, 2.0] is not finite"),
    (dict(paths=[[]]), "paths[0] holds no points"),
    (dict(paths=5), "paths must be a list of PathResults or (k, 2) point arrays, got 5"),
    (dict(out=3), "out must be a file path, got 3"),
    (dict(out="yard.jpg"), "out must name a .png file (draw writes PNG), got 'yard.jpg'"),
    (dict(out="/no/such/folder/yard.png"), "cannot write picture /no/such/folder/yard.png: "
                                           "folder /no/such/folder does not exist"),
])
def test_bad_arguments_are_query_errors(yard, kw, message, tmp_path):
    with pytest.raises(navcore.QueryError) as info:
        navcore.draw(yard, "yard", **kw)
    assert str(info.value) == message


@pytest.mark.nojit
def test_what_cannot_be_drawn_is_a_clear_error(yard, tmp_path):
    with pytest.raises(navcore.UnknownGraphError, match="no graph 'nope' in this world"):
        navcore.draw(yard, "nope")
    with pytest.raises(navcore.QueryError) as info:
        navcore.draw(yard, "yard", paths=[yard.find_path("yard", (0, 0), (9, 0))])
    assert str(info.value) == ("paths[0] is a PathResult with status 'unreachable': it has "
                               "no points to draw (draw its ends as agents=)")
    folder = tmp_path / "pic.png"
    folder.mkdir()
    with pytest.raises(navcore.QueryError, match="it is a folder"):
        navcore.draw(yard, "yard", out=folder)
    yard.add_graph("ids", type="csr", src=[0, 1], dst=[1, 2])
    with pytest.raises(navcore.QueryError) as info:
        navcore.draw(yard, "ids")
    assert str(info.value) == ("'csr' graph 'ids' cannot be drawn: it has no node positions "
                               "and no plugin lends it a scene layer (navcore_scene_layer) "
                               "to frame a picture")
    with pytest.raises(navcore.QueryError, match=r"navcore.draw needs a navcore.World, got dict"):
        navcore.draw({}, "yard")
    # the scene picture says where to go instead of failing on an attribute
    import navcore_scenes.render
    with pytest.raises(navcore.QueryError) as info:
        navcore_scenes.render.draw(yard, "yard")
    assert "for a World use navcore.draw(world, graph_id)" in str(info.value)


class Lines(navcore.NavGraph):
    """A graph type whose plugin frames pictures but draws nothing."""


class LinesLayer(navcore.SceneLayer):
    def region(self, value):
        return tuple(value)

    def nodes_in(self, region):
        return np.array(region, dtype=np.int64)

    def bounds(self):
        return (0.0, 0.0, 10.0, 10.0)


class LinesPlugin:
    @navcore.hookimpl
    def navcore_graph_types(self):
        return {"lines": lambda world, graph_id: Lines.from_edges([0], [1], world=world)}

    @navcore.hookimpl
    @navcore.for_graphs(Lines)
    def navcore_scene_layer(self, world, graph_id, graph):
        return LinesLayer(world, graph_id, graph)


@pytest.mark.nojit
def test_a_type_no_plugin_draws_is_named():
    world = navcore.World(autoload=False, plugins=[LinesPlugin()])
    world.add_graph("l", type="lines")
    with pytest.raises(navcore.QueryError) as info:
        navcore.draw(world, "l")
    assert str(info.value) == ("no plugin draws 'lines' graphs (navcore_draw_graph), so "
                               "graph 'l' cannot be pictured")


@pytest.mark.nojit
def test_plot_shows_the_picture_in_world_coordinates(yard):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    try:
        path = yard.find_path("yard", (0, 0), (3, 2))
        im = navcore.plot(ax, yard, "yard", paths=[path], scale=10)
        # a grid's cells are unit squares from (0, 0), y down: the picture
        # covers x 0..10 and y 3..0 (top row first), so ax.plot(world x, y)
        # lands on the cell it names
        assert im.get_extent() == [0.0, 10.0, 3.0, 0.0]
        assert ax.get_ylim()[0] > ax.get_ylim()[1]
        assert np.array_equal(im.get_array(), navcore.draw(yard, "yard", paths=[path],
                                                           scale=10))
        with pytest.raises(navcore.QueryError, match="ax must be matplotlib axes"):
            navcore.plot(object(), yard, "yard")
    finally:
        plt.close(fig)


def test_plot_on_a_road_map_is_north_up_with_degrees(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    world = navcore.World()
    g = world.add_graph("streets", type="roads", osm=str(ROOT / "scenes" / "maps" /
                                                         "monaco.osm.gz"))
    fig, ax = plt.subplots()
    try:
        im = navcore.plot(ax, world, "streets")
        left, right, bottom, top = im.get_extent()
        lon, lat = g.positions[:, 0], g.positions[:, 1]
        assert left < lon.min() and lon.max() < right
        assert bottom < lat.min() and lat.max() < top          # north at the top
        h, w = im.get_array().shape[:2]
        # square pixels: a degree of longitude is cos(latitude) of one of latitude
        ratio = ((right - left) * np.cos(np.radians(lat.mean())) / w) / ((top - bottom) / h)
        assert ratio == pytest.approx(1.0, rel=0.02)
    finally:
        plt.close(fig)


@pytest.mark.nojit
def test_plot_without_matplotlib_says_to_install_it(yard, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)     # import fails
    with pytest.raises(navcore.QueryError) as info:
        navcore.plot(object(), yard, "yard")
    assert "pip install matplotlib" in str(info.value)


def _readme_blocks():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Pictures of your own world", 1)[1].split("\n## ", 1)[0]
    import re
    return re.findall(r"```python\n(.*?)```", section, re.S)


@pytest.mark.nojit
def test_the_readme_example_draws_docs_keep_png(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    draw_block, plot_block = _readme_blocks()
    names = {}
    exec(compile(draw_block, "README.md", "exec"), names)
    assert capsys.readouterr().out == "(96, 320, 3) uint8\n"
    with Image.open(tmp_path / "keep.png") as made, Image.open(ROOT / "docs" / "keep.png") as doc:
        assert np.array_equal(np.asarray(made.convert("RGB")), np.asarray(doc.convert("RGB")))
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    exec(compile(plot_block, "README.md", "exec"), names)
    names["plt"].close("all")
    assert (tmp_path / "keep_plot.png").stat().st_size > 0
