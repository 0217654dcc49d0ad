"""The scenes in scenes/ validate, run, and do what their comments say.
Area counts are worked out from each map's layout by hand."""
from pathlib import Path

import numpy as np
import pytest

import navcore
from crowdkit import worst_overlap
from levelkit import OnMesh
from navcore.cli import main
from navcore_scenes.summary import summarize

SCENES = Path(__file__).resolve().parents[2] / "scenes"
SHIPPED = sorted(SCENES.glob("*.yaml"))
#: how far two walkers (not arrived) of a level's crowd may overlap, on
#: one floor: the crypt's worst is 0.15, ogres (radius 0.9) landing from
#: the jump into the narrow corridor; arrived ogres pressed together at
#: its end overlap more (up to 1.0), and are not held to it
OVERLAP_3D = 0.2
#: how far a walker may stand off the level's surface (detail mesh)
SURFACE = 1e-6


def level_overlap(sim, walking=False) -> float:
    """The largest overlap of two agents of one graph of a 3D level (y up)
    whose heights differ by less than their crowd's agent height, on the
    ground plane, brute force; agents on off-mesh links are out of it, and
    with ``walking`` those that arrived."""
    a, worst = sim.agents, 0.0
    on = ~a.gone & ~a.walk.linked & ((a.arrived_at < 0) if walking else True)
    for g, (crowd, _) in sim.walking.items():
        rows = np.flatnonzero(on & (np.asarray(a.graph_ids) == g))
        if rows.size:
            p = a.pos[rows]
            worst = max(worst, worst_overlap(p[:, [0, 2]], a.radius[rows], p[:, 1],
                                             crowd.height))
    return worst


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
    # they walk as crowds: each frame no two walkers of one graph overlap
    # on one floor by more than OVERLAP_3D; every 20th frame each stands on
    # the level's surface (its detail mesh, read by levelkit); within the
    # scene's 100 s every scout and every ogre arrives (as points all take
    # 59 s; as crowds they queue at the ladder and the jump, and each ogre
    # has a goal of its own in the corridor, clear of the others')
    world = navcore.World(deterministic=True)
    with navcore.Simulation.from_file(SCENES / "crypt.yaml", world=world) as sim:
        w, a = sim.world, sim.agents
        scout, ogre = w.graph("crypt.scout"), w.graph("crypt.ogre")
        assert scout.voxels is ogre.voxels             # one voxelization for both sizes
        assert a.walks.all()
        start_heights = a.pos[:, 1].copy()
        on_mesh = {g: OnMesh(w.graph(g)) for g in ("crypt.scout", "crypt.ogre")}
        worst, off = 0.0, []
        for _ in range(sim.scene.settings.frames):
            sim.step()
            worst = max(worst, level_overlap(sim, walking=True))
            if sim.frame % 20 == 0:
                off += [(a.ids[i], sim.frame) for i in range(len(a.ids))
                        if not a.gone[i] and not a.walk.linked[i]
                        and not on_mesh[a.graph_ids[i]].under(a.pos[i], SURFACE)]
        summary = summarize(sim, 0.0)
    assert worst <= OVERLAP_3D, worst
    assert not off, off[:5]
    assert summary["crowds"]["scouts"]["arrived"] == 60
    assert summary["crowds"]["ogres"]["arrived"] == 5
    assert summary["agents"]["stuck"] == 0
    links = summary["links_taken"]                     # the links they stepped onto
    assert links["crypt.scout ladder"] == 60            # each scout climbs the ladder once
    # the corridor's mouth is too narrow for ogres: each came in by a link
    assert links["crypt.ogre jump"] + links["crypt.ogre drop"] >= 5
    assert links.get("crypt.ogre drop", 0) >= 1         # the warden's round
    scouts = [i for i, x in enumerate(a.ids) if x.startswith("scouts-")]
    assert (start_heights[scouts] < 12).all()            # from the round room ...
    # ... up onto the platform (its floor slopes to under 23 where a few
    # stand, pushed off their goals by others; the hall is at 16)
    assert (a.pos[scouts, 1] > 22).all()
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
