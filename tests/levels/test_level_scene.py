"""Scenes on 3D levels: points are [x, y, z], crowds drawn on the floors a
region picks, agents walk the lifted paths across storeys."""
import numpy as np
import pytest

import navcore
from navcore_levels import length_3d

# a ground floor (y 0, 24 x 10), a storey above its west end (y 4, 10 x 10)
# and a ramp from the storey's east edge down to the ground at x 20
HOUSE = """
graphs:
  - id: house
    type: level
    vertices: [[0, 0, 0], [24, 0, 0], [24, 0, 10], [0, 0, 10],
               [0, 4, 0], [10, 4, 0], [10, 4, 10], [0, 4, 10],
               [10, 4, 6], [20, 0, 6], [20, 0, 10], [10, 4, 10]]
    triangles: [[0, 2, 1], [0, 3, 2], [4, 6, 5], [4, 7, 6], [8, 10, 9], [8, 11, 10]]
"""


def _sim(tmp_path, rest, frames=600):
    text = f"settings: {{dt: 0.1, frames: {frames}, seed: 3}}\n" + HOUSE + rest
    return navcore.Simulation.from_text(text, str(tmp_path / "s.yaml"),
                                        world=navcore.World())


def test_an_agent_walks_up_the_ramp_to_the_storey_above(tmp_path):
    sim = _sim(tmp_path, """
agents:
  - {id: a, graph: house, start: [3, 0, 3], goal: [3, 4, 3], speed: 2, avoidance: false}
""")
    # a point walker (a crowd's stops within its radius of the goal:
    # tests/scenes/test_scene_level_crowds.py) walks find_path's path exactly
    truth = sim.world.find_path("house", (3, 0, 3), (3, 4, 3))
    heights = []
    for _ in range(600):
        sim.step()
        heights.append(sim.agents.pos[0, 1])
        if sim.agents.counts()["arrived"]:
            break
    assert sim.agents.counts()["arrived"] == 1
    np.testing.assert_allclose(sim.agents.pos[0], truth.points[-1], atol=1e-9)
    # it walked the path find_path gives, measured in 3D
    assert sim.agents.travelled[0] == pytest.approx(length_3d(truth.points), rel=1e-9)
    assert min(heights) < 0.5 and max(heights) > 4.0      # from the ground floor up
    assert truth.cost > 2 * 7                              # round by the ramp at x 10..20


def test_a_region_with_a_height_band_picks_one_floor(tmp_path):
    sim = _sim(tmp_path, """
crowds:
  - {id: down, graph: house, count: 12, from: {rect: [1, 1, 8, 8], height: [3, 5]},
     to: {rect: [1, 1, 8, 8], height: [-1, 1]}, speed: 4}
""", frames=800)
    start = sim.agents.pos.copy()
    goals = np.array([g[0] for g in sim.agents.goals])
    assert np.all(np.abs(start[:, 1] - 4.2) < 0.3)        # on the storey (one cell above)
    assert np.all(np.abs(goals[:, 1] - 0.2) < 0.3)        # on the ground floor under it
    ground = sim.world.graph("house").to_ground(start)
    assert np.all((ground >= 1) & (ground <= 9))
    sim.run()
    assert sim.agents.counts()["arrived"] == 12
    np.testing.assert_allclose(sim.agents.pos[:, 1], 0.2, atol=0.3)


def test_a_2d_point_on_a_level_is_a_scene_error(tmp_path):
    with pytest.raises(navcore.SceneError,
                       match=r"start of agent 'a' \[3, 3\] must be a point \[x, y, z\] "
                             r"\(a 3D level\) on graph 'house'"):
        _sim(tmp_path, """
agents:
  - {id: a, graph: house, start: [3, 3], goal: [3, 4, 3]}
""")


def test_a_bad_height_band_is_a_scene_error(tmp_path):
    with pytest.raises(navcore.SceneError, match=r"height must be \[low, high\]"):
        _sim(tmp_path, """
crowds:
  - {id: c, graph: house, count: 2, from: {rect: [1, 1, 8, 8], height: [5, 3]},
     to: [1, 1, 8, 8]}
""")


def test_a_floor_region_without_its_height_band_says_so(tmp_path):
    with pytest.raises(navcore.SceneError, match=r"this mapping has no 'height: \[low, high\]'"):
        _sim(tmp_path, """
crowds:
  - {id: c, graph: house, count: 2, from: {rect: [1, 1, 8, 8]}, to: [1, 1, 8, 8]}
""")
