"""Road graphs in scenes: a YAML scene loads an OSM extract, crowds drive
it while roads close and jam, and pictures are drawn north up."""
from pathlib import Path

import numpy as np
import pytest

import navcore
from navcore_roads.segments import haversine_m

SCENE = Path(__file__).resolve().parents[2] / "scenes" / "monaco.yaml"


def test_the_monaco_scene_drives_everyone_home():
    sim = navcore.load_scene(SCENE)
    summary = sim.run()
    agents = sim.agents
    assert (agents.legs_done == 1).all()                       # 300 of 300 home
    g = sim.world.graph("streets")
    assert g.kind == "roads" and np.isfinite(g.csr.cost).all()   # reopened at the end
    # speeds are metres per second and crossings are kilometres long
    assert (agents.travelled > 500).all() and (agents.travelled < 20_000).all()
    assert summary["agents"]["arrived"] == 300


def test_a_closed_road_is_not_driven_while_closed():
    sim = navcore.load_scene(SCENE)
    sim.run(60)                                                  # closed at frame 40
    g = sim.world.graph("streets")
    closed = np.isinf(g.seg_cost)
    assert closed.any()
    seg = g.segments
    bad = set(zip(seg.lon[seg.src[closed]], seg.lat[seg.src[closed]],
                  seg.lon[seg.dst[closed]], seg.lat[seg.dst[closed]]))
    for path in sim.agents.remaining_paths():
        p = np.asarray(path)
        steps = set(zip(p[:-1, 0], p[:-1, 1], p[1:, 0], p[1:, 1]))
        assert not steps & bad


def test_road_pictures_are_north_up_and_show_closures(tmp_path):
    from navcore_scenes.render import draw
    sim = navcore.load_scene(SCENE)
    sim.run(60)
    img = np.asarray(draw(sim, "streets", paths=False))
    g = sim.world.graph("streets")
    lit = np.argwhere((img != (32, 32, 38)).any(axis=2))
    north = g.positions[np.argmax(g.positions[:, 1])]
    south = g.positions[np.argmin(g.positions[:, 1])]
    layer = sim.layers["streets"]
    from navcore_scenes.canvas import Canvas
    c = Canvas(layer.bounds(), 1, np.zeros((g.num_nodes, 3), np.uint8), y_up=True,
               aspect=layer.aspect)
    assert c.to_pixels(north)[1] < c.to_pixels(south)[1]       # north above south
    assert lit[:, 0].min() < img.shape[0] * 0.1                 # roads reach the top
    assert ((img == (150, 45, 40)).all(axis=2)).any()           # the closed road shows


def test_road_regions_are_boxes_in_degrees(tmp_path):
    scene = tmp_path / "bad.yaml"
    import shutil
    shutil.copy(SCENE.parent / "maps" / "monaco.osm.gz", tmp_path / "m.osm.gz")
    scene.write_text("""name: bad
graphs:
  - {id: s, type: roads, osm: m.osm.gz}
crowds:
  - {id: c, count: 2, from: [7.42, 43.73, 7.41, 43.74], to: [7.42, 43.73, 7.43, 43.74]}
""")
    with pytest.raises(navcore.SceneError, match="empty") as err:
        navcore.load_scene(scene)
    assert err.value.line == 5
    # (lat, lon) order: off the map, and said so
    scene.write_text(scene.read_text().replace("[7.42, 43.73, 7.41, 43.74]",
                                               "[43.73, 7.42, 43.74, 7.43]"))
    with pytest.raises(navcore.SceneError, match=r"does not overlap graph 's' .* looks like "
                                                 r"\[south, west, north, east\]"):
        navcore.load_scene(scene)
    scene.write_text(scene.read_text().replace("[43.73, 7.42, 43.74, 7.43]",
                                               "[7.42, 91, 7.43, 92]"))
    with pytest.raises(navcore.SceneError, match="within ±90"):
        navcore.load_scene(scene)
    # a cost event's box is bbox: on a road graph; rect: is refused at its key
    scene.write_text("""name: bad
graphs:
  - {id: s, type: roads, osm: m.osm.gz}
events:
  - {at: 1, cost: {rect: [7.4225, 43.7345, 7.4255, 43.7362], value: .inf}}
""")
    with pytest.raises(navcore.SceneError, match="takes its region as 'bbox', not 'rect'") \
            as err:
        navcore.load_scene(scene)
    assert err.value.line == 5
    scene.write_text(scene.read_text().replace("rect:", "bbox:"))
    with navcore.load_scene(scene) as sim:
        sim.run(frames=2)
        g = sim.world.graph("s")
        assert np.isinf(g.seg_cost).sum() > 0


def test_agents_measure_roads_in_metres():
    sim = navcore.load_scene(SCENE)
    layer = sim.layers["streets"]
    pts = np.array([[7.42, 43.73], [7.421, 43.73], [7.421, 43.731]])
    assert np.allclose(layer.step_lengths(pts),
                       haversine_m(pts[:-1, 0], pts[:-1, 1], pts[1:, 0], pts[1:, 1]))
