"""The scenes in scenes/ validate, run, and do what their comments say.
Area counts are worked out from each map's layout by hand."""
from pathlib import Path

import pytest

import navcore
from navcore.cli import main

SCENES = Path(__file__).resolve().parents[2] / "scenes"
SHIPPED = sorted(SCENES.glob("*.yaml"))


def test_at_least_three_scenes_ship():
    assert {p.stem for p in SHIPPED} >= {"dungeon", "maze", "battlefield"}


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_every_shipped_scene_validates_and_runs(path, capsys):
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().out.startswith(f"{path}: ok: ")
    with navcore.Simulation.from_file(path) as sim:
        summary = sim.run(40)
    assert summary["frames"] == 40
    # paths were served, or a crowd walks flow fields (shared goals)
    assert summary["requests"]["served"] > 0 or sum(summary["flow_fields"].values()) > 0
    assert summary["agents"]["stuck"] == 0
    assert summary["path_length"]["total"] > 0      # somebody walked


def _areas(summary):
    return [(e["frame"], e["what"], e["areas_before"], e["areas_after"])
            for e in summary["events"]]


def test_dungeon_doors_split_and_merge_areas():
    with navcore.Simulation.from_file(SCENES / "dungeon.yaml") as sim:
        summary = sim.run()
    # Rooms: armory A, hall H, chapel C / barracks B, crypt Cr, vault V;
    # the vault's two doors start closed, so V is an area of its own.
    assert _areas(summary) == [
        (100, "close armory_hall", 2, 2),          # A still reached through B
        (250, "close armory_barracks", 2, 3),      # A cut off
        (400, "open crypt_vault", 3, 2),           # V joins
        (550, "open armory_hall", 2, 1),           # A joins
        (700, "close hall_crypt", 1, 3),           # {A,H,C}, {B}, {Cr,V}
        (700, "close barracks_crypt", 1, 3),
        (800, "block [17, 9, 15, 1]", 3, 4),       # the hall's south end, cut off
        (900, "cost [33, 16, 15, 14] = 4", 4, 4),
        (950, "goal of captain -> [8, 8]", 4, 4),
        (1000, "unblock [17, 9, 15, 1]", 4, 3),
        (1050, "open hall_crypt", 3, 1),
        (1050, "open barracks_crypt", 3, 1),
        (1100, "open chapel_vault", 1, 1),
        (1150, "close chapel_vault", 1, 2),        # V sealed again
        (1150, "close crypt_vault", 1, 2),
    ]
    by_id = {a["id"]: a for a in summary["per_agent"]}
    assert by_id["thief"]["state"] == "arrived"      # out of the vault once it opened
    assert by_id["armory_guard"]["repaths"] > 0      # its door closed under it
    assert all(by_id[f"rat-{k}"]["state"] == "arrived" for k in range(16))


def test_maze_cave_ins_split_it_and_join_it_again():
    with navcore.Simulation.from_file(SCENES / "maze.yaml") as sim:
        summary = sim.run(510)
    # a perfect maze is a tree: each blocked corridor cell (not a dead end)
    # splits it in two, and clearing it joins them again
    assert [(f, b, a) for f, _, b, a in _areas(summary)] == \
        [(100, 1, 2), (250, 2, 3), (350, 3, 2), (500, 2, 1)]
    assert summary["unreachable"] > 0                # some waited at a cave-in


@pytest.mark.slow
def test_maze_every_crowd_agent_gets_through():
    # the two crowds queue where their ways run together in corridors one
    # cell wide: everyone is through in the scene's 2,400 frames
    with navcore.Simulation.from_file(SCENES / "maze.yaml") as sim:
        summary = sim.run()
    crowd = [a for a in summary["per_agent"] if a["id"] != "explorer"]
    assert len(crowd) == 400 and all(a["state"] == "arrived" for a in crowd)


def test_battlefield_has_500_agents_moving_obstacles_and_a_2ms_budget():
    scene = navcore.read_scene(SCENES / "battlefield.yaml")
    assert sum(c.count for c in scene.crowds) + len(scene.agents) >= 500
    assert len(scene.obstacles) >= 10
    assert scene.settings.frame_budget_ms == 2.0


@pytest.mark.slow
def test_battlefield_full_run():
    with navcore.Simulation.from_file(SCENES / "battlefield.yaml") as sim:
        summary = sim.run()
    assert summary["agents"]["stuck"] == 0
    assert summary["agents"]["arrived"] >= 500
    assert [(b, a) for _, _, b, a in _areas(summary)] == [(1, 1)] * 3   # rivers have 3 bridges


def test_make_demo_draws_the_readme_picture_byte_for_byte(tmp_path):
    """``make demo``'s scene is deterministic (a node budget, no clock), so
    its last frame is the README's picture on any machine and load."""
    out = tmp_path / "dungeon.png"
    assert main(["run", str(SCENES / "dungeon.yaml"), "--render", str(out), "--borders",
                 "--no-progress"]) == 0
    docs = SCENES.parent / "docs" / "dungeon.png"
    assert out.read_bytes() == docs.read_bytes()


def test_crypt_agents_of_two_sizes_cross_floors_by_their_links():
    with navcore.Simulation.from_file(SCENES / "crypt.yaml") as sim:
        w = sim.world
        scout, ogre = w.graph("crypt.scout"), w.graph("crypt.ogre")
        assert scout.voxels is ogre.voxels             # one voxelization for both sizes
        start_heights = sim.agents.pos[:, 1].copy()
        summary = sim.run()
    assert summary["agents"]["arrived"] == 76          # every crowd member; the warden patrols
    assert summary["agents"]["stuck"] == 0
    links = summary["links_planned"]
    assert links["crypt.scout ladder"] == 60            # the platform is reached by the ladder only
    assert links["crypt.ogre jump"] >= 16               # the corridor's mouth is too narrow for ogres
    assert links.get("crypt.ogre drop", 0) >= 1         # the warden's round
    scouts = [i for i, a in enumerate(sim.agents.ids) if a.startswith("scouts-")]
    assert (start_heights[scouts] < 12).all()            # from the round room ...
    assert (sim.agents.pos[scouts, 1] > 23).all()        # ... up onto the platform
    # without its links the level leaves ogres no way into the corridor,
    # and scouts none up to the platform
    spec = sim.scene.graph_spec("crypt.ogre")
    bare = {k: v for k, v in spec.params.items() if k != "links"}
    plain = navcore.World()
    plain.add_graph("ogre", type="level", **bare)
    plain.add_graph("scout", type="level", **{**bare, "agent_radius": 0.3})
    hall, corridor, platform = (24.0, 16.0, -80.0), (19.0, 15.0, -87.2), (15.0, 24.6, -80.0)
    assert plain.find_path("ogre", hall, corridor).status.value == "unreachable"
    assert plain.find_path("scout", hall, corridor).found
    assert plain.find_path("scout", hall, platform).status.value == "unreachable"
