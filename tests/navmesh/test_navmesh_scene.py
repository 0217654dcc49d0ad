"""A navmesh in a YAML scene: agents walk the any-angle path's straight segments
from the exact points the scene names, and a bad navmesh parameter is a
SceneError at its place in the file."""

import pytest

import navcore
from navcore.cli import main

YARD = """\
name: yard
settings: {dt: 0.05, frames: 200, seed: 1, avoidance: false}   # points: the path exactly
graphs:
  - id: yard
    type: navmesh
    bounds: [0, 0, 20, 10]
    obstacles: [OBSTACLES]
agents:
  - {id: scout, start: [1, 1], goal: [18, 8], speed: 4}
  - {id: guard, start: [18, 1], waypoints: [[1, 9], [18, 1]], loop: true, speed: 3}
"""
CRATES = "[[5, 2], [8, 2], [8, 6], [5, 6]], [[12, 0], [13, 0], [13, 7], [12, 7]]"


@pytest.mark.nojit
def test_agents_walk_the_any_angle_path_from_the_scene_points(tmp_path):
    scene = tmp_path / "yard.yaml"
    scene.write_text(YARD.replace("OBSTACLES", CRATES))
    assert main(["validate", str(scene)]) == 0
    sim = navcore.load_scene(scene)
    summary = sim.run()
    scout = next(a for a in summary["per_agent"] if a["id"] == "scout")
    want = sim.world.find_path("yard", (1, 1), (18, 8))
    assert want.algorithm == "polyanya" and len(want.points) > 2    # it turns corners
    assert scout["state"] == "arrived"
    assert scout["travelled"] == pytest.approx(want.cost, rel=1e-9)


@pytest.mark.nojit
def test_a_bad_obstacle_is_a_scene_error_at_its_line(tmp_path):
    scene = tmp_path / "yard.yaml"
    bow_tie = "[[5, 2], [8, 6], [8, 2], [5, 6]]"          # self-intersecting
    scene.write_text(YARD.replace("OBSTACLES", bow_tie))
    with pytest.raises(navcore.SceneError) as err:
        navcore.load_scene(scene)
    assert err.value.path == str(scene) and err.value.line is not None
    assert "obstacle" in str(err.value).lower()
    assert main(["validate", str(scene)]) == 2


@pytest.mark.nojit
def test_a_baked_mesh_file_is_found_next_to_the_scene(tmp_path):
    from navcore_navmesh import meshfile
    world = navcore.World(autoload=False)
    graph = world.add_graph("y", type="navmesh", bounds=(0, 0, 20, 10),
                            obstacles=[[(5, 2), (8, 2), (8, 6), (5, 6)]])
    (tmp_path / "meshes").mkdir()
    meshfile.save_mesh(tmp_path / "meshes" / "yard.npz", graph)
    scene = tmp_path / "yard.yaml"
    scene.write_text(YARD.replace("    bounds: [0, 0, 20, 10]\n    obstacles: [OBSTACLES]\n",
                                  "    mesh: meshes/yard.npz\n"))
    sim = navcore.load_scene(scene)               # relative to the scene, not the cwd
    loaded = sim.world.graph("yard")
    assert loaded.num_polygons == graph.num_polygons
    r = sim.world.find_path("yard", (1, 1), (18, 8))
    assert r.cost == pytest.approx(world.find_path("y", (1, 1), (18, 8)).cost, rel=1e-12)
