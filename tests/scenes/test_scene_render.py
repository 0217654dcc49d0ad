"""Pictures: areas in their own colours, walls, obstacles, agents, the
hierarchy's borders; PNG and GIF from the command line."""
import numpy as np
import pytest
from PIL import Image

import navcore
from navcore_scenes.agents import MOVING
from navcore.cli import main
from navcore_scenes.render import AGENT, COVERED, WALL, draw
from hooktags import exercises

SPLIT = """\
settings: {dt: 0.1, frames: 30}
graphs:
  - {id: yard, type: grid, rows: ["....#.....", "....#.....", "....#....."]}
agents: [{id: a, start: [0, 1], goal: [3, 2], speed: 1}]
obstacles: [{id: cart, rect: [7, 0, 1, 1]}]
"""


def _pixel(img, cell, scale):
    """The colour at the centre of ``cell`` (x, y)."""
    x, y = cell
    return img.getpixel((int((x + 0.5) * scale), int((y + 0.5) * scale)))


@pytest.mark.nojit
def test_areas_walls_obstacles_and_agents_have_their_colours():
    with navcore.Simulation.from_text(SPLIT, "s.yaml") as sim:
        sim.run(2)
        img = draw(sim, scale=10, paths=False)
        assert img.size == (100, 30)
        left, right = _pixel(img, (1, 0), 10), _pixel(img, (6, 2), 10)
        wall = _pixel(img, (4, 1), 10)
        assert left != right                          # two areas, two colours
        assert wall == WALL and wall not in (left, right)
        assert _pixel(img, (7, 0), 10) == COVERED     # the cart's cell
        assert _pixel(img, (2, 2), 10) == left        # same area, same colour
        assert sim.agents.state[0] == MOVING
        x, y = sim.agents.pos[0] * 10
        assert img.getpixel((int(x), int(y))) == AGENT[MOVING]
        # not a blank picture: floor of two areas, wall, cart, agent
        assert len(np.unique(np.asarray(img).reshape(-1, 3), axis=0)) >= 5


def _border_mask(hnode, scale):
    """Pixels that lie on an edge between cells of two hierarchical nodes,
    found cell by cell."""
    h, w = hnode.shape
    mask = np.zeros((h * scale, w * scale), dtype=bool)
    for y in range(h):
        for x in range(w):
            if hnode[y, x] < 0:
                continue
            if x > 0 and hnode[y, x - 1] >= 0 and hnode[y, x - 1] != hnode[y, x]:
                mask[y * scale:(y + 1) * scale, x * scale] = True
            if y > 0 and hnode[y - 1, x] >= 0 and hnode[y - 1, x] != hnode[y, x]:
                mask[y * scale, x * scale:(x + 1) * scale] = True
    return mask


@pytest.mark.nojit
@exercises("navcore_draw_graph", "navcore_draw_overlay")
def test_hierarchical_node_borders_are_drawn_on_the_edges_between_nodes():
    text = "graphs: [{id: f, type: grid, rows: [" + ", ".join(['"' + "." * 40 + '"'] * 20) + "]}]"
    with navcore.Simulation.from_text(text, "s.yaml") as sim:
        plain = np.asarray(draw(sim, scale=4, paths=False))
        bordered = np.asarray(draw(sim, scale=4, borders=True, paths=False))
        hier = sim.world.graph("f").view("navcore_areas")
        hnode = hier.hierarchical_nodes().reshape(20, 40)
    assert len(np.unique(hnode)) >= 4                 # 800 cells, at most 256 per node
    changed = (plain != bordered).any(axis=2)
    assert changed.any()
    assert np.array_equal(changed, _border_mask(hnode, 4))


@pytest.mark.nojit
def test_navcore_render_writes_a_png(tmp_path, capsys):
    scene = tmp_path / "split.yaml"
    scene.write_text(SPLIT)
    out = tmp_path / "pics" / "split.png"
    assert main(["render", str(scene), "-o", str(out), "--scale", "8"]) == 0
    assert capsys.readouterr().out == f"{out}: split after 1 frames\n"
    img = Image.open(out).convert("RGB")
    assert img.size == (80, 24)
    assert _pixel(img, (1, 0), 8) != _pixel(img, (6, 2), 8)
    assert _pixel(img, (4, 0), 8) == WALL


@pytest.mark.nojit
def test_navcore_run_animates_a_gif(tmp_path, capsys):
    scene = tmp_path / "split.yaml"
    scene.write_text(SPLIT)
    gif, png = tmp_path / "split.gif", tmp_path / "split.png"
    assert main(["run", str(scene), "--gif", str(gif), "--render", str(png),
                 "--no-progress"]) == 0
    anim = Image.open(gif)
    assert anim.n_frames >= 10
    first = np.asarray(anim.convert("RGB"))
    anim.seek(anim.n_frames - 1)
    last = np.asarray(anim.convert("RGB"))
    assert not np.array_equal(first, last)            # the agent moved
    assert png.exists()


@pytest.mark.nojit
def test_render_needs_a_graph_with_a_scene_layer(tmp_path, capsys):
    scene = tmp_path / "ring.yaml"
    scene.write_text("graphs: [{id: r, type: csr, src: [0, 1], dst: [1, 2]}]\n")
    assert main(["render", str(scene), "-o", str(tmp_path / "r.png")]) == 2
    assert capsys.readouterr().err == ("navcore: error: pictures draw graphs with a scene "
                                       "layer, and no graph of this scene has one\n")


TWO_MAPS = """\
settings: {dt: 0.1, frames: 30}
graphs:
  - {id: foot, type: grid, SPACE rows: ["..........", "..........", ".........."]}
  - {id: hoof, type: grid, SPACE rows: ["..........", "..........", ".........."]}
agents:
  - {id: walker, graph: foot, start: [1, 0], goal: [1, 2], speed: 1}
  - {id: rider, graph: hoof, start: [8, 0], goal: [8, 2], speed: 1}
"""


@pytest.mark.nojit
def test_graphs_of_one_space_are_pictured_with_each_others_agents():
    def agents_seen(text, graph):
        with navcore.Simulation.from_text(text, "two.yaml") as sim:
            sim.step()
            img = draw(sim, graph, scale=10, paths=False)
            return [img.getpixel(tuple(int(c) for c in p * 10)) in AGENT.values()
                    for p in sim.agents.pos]

    shared = TWO_MAPS.replace("SPACE", "space: fort,")
    assert agents_seen(shared, "foot") == [True, True]
    assert agents_seen(shared, "hoof") == [True, True]
    alone = TWO_MAPS.replace("SPACE", "")
    assert agents_seen(alone, "foot") == [True, False]
    assert agents_seen(alone, "hoof") == [False, True]
    with pytest.raises(navcore.SceneError, match=r"two.yaml:3:35: 'space' of graph 'foot' "
                                                 r"must be a non-empty string"):
        navcore.Simulation.from_text(TWO_MAPS.replace("SPACE", "space: [1],"), "two.yaml")
