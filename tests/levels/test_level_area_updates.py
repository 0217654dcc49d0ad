"""Run-time area volumes on tiled levels: ``world.update(gid, areas=[...])``
replaces the level's ``areas=`` volumes (``navcore_levels.updates``).

Truths: a level added from scratch with the new volumes (polygons compared
as sets of 3D corners, their areas by name, since a name introduced at run
time may take another id than a fresh build gives it), ``build_tiled``
with the same volumes and obstacles, which tiles a box's cells fall in
(worked out from the tile size and border), and the queries' answers
before a change and after it is undone."""
from __future__ import annotations

import numpy as np
import pytest

import navcore
from navcore import PathStatus
from navcore.errors import QueryError, UpdateError
from navcore_levels.tiles import build_tiled, tile_border
from navcore_levels.updates import rebuilds_of

from levelkit import tick_until_rebuilt

CELL = 0.3
TILE = 16                                   # cells: 4.8 world units
FLOOR = np.array([[0, 0, 0], [24, 0, 0], [24, 0, 12], [0, 0, 12]], dtype=float)
QUADS = np.array([[0, 2, 1], [0, 3, 2]])
MUD = {"convex": [[2, 2], [6, 2], [6, 6], [2, 6]], "ymin": -1, "ymax": 1, "area": "mud"}
# a strip across the whole depth, x 10..14: crossing it means wading
WATER = {"box": [[10, -1, -1], [14, 1, 13]], "area": "water"}
POOL = {"cylinder": {"center": [18, -1, 6], "radius": 2.0, "height": 2}, "area": "lava"}
S, G = (2.0, 0.0, 9.0), (22.0, 0.0, 9.0)


def _world(tile_size=TILE, areas=(MUD,), **kw):
    w = navcore.World(**kw)
    g = w.add_graph("l", type="level", vertices=FLOOR, triangles=QUADS, tile_size=tile_size,
                    areas=list(areas))
    return w, g


def _named_rings(g):
    """The walkable polygons as sorted (corner set, area name) pairs (an
    id without a name stays an id)."""
    name = {i: n for n, i in g.area_names.items()}
    pts = np.column_stack([g.vertices[:, 0], g.heights, g.vertices[:, 1]])
    out = [(frozenset(map(tuple, pts[g.polygon(p)].round(9).tolist())),
            name.get(int(g.area_ids[p]), int(g.area_ids[p])))
           for p in np.flatnonzero(g.walkable)]
    return sorted(out, key=lambda r: (sorted(r[0]), str(r[1])))


def _mesh_rings(mesh):
    """A PolyMesh's polygons as sorted (corner set, area id) pairs."""
    v = mesh.world_vertices()
    out = [(frozenset(map(tuple, v[row[row >= 0]].round(9).tolist())), int(a))
           for row, a in zip(mesh.polys, mesh.areas)]
    return sorted(out, key=lambda r: (sorted(r[0]), r[1]))


def _ided_rings(g):
    pts = np.column_stack([g.vertices[:, 0], g.heights, g.vertices[:, 1]])
    out = [(frozenset(map(tuple, pts[g.polygon(p)].round(9).tolist())), int(g.area_ids[p]))
           for p in np.flatnonzero(g.walkable)]
    return sorted(out, key=lambda r: (sorted(r[0]), r[1]))


def _fresh(areas):
    return _world(areas=areas)[1]


def _tiles(tiled, config, lo, hi):
    """The tiles whose padded grid the x-z box lo..hi reaches: tile i reads
    cells [i*TILE - border, (i+1)*TILE + border) along each axis."""
    border = tile_border(config)
    out = []
    for axis, n in ((0, tiled.tiles_x), (2, tiled.tiles_z)):
        k = 0 if axis == 0 else 1
        c0 = int(np.floor((lo[k] - tiled.bmin[axis]) / CELL))
        c1 = int(np.floor((hi[k] - tiled.bmin[axis]) / CELL))
        out.append([i for i in range(n) if c0 < (i + 1) * TILE + border
                    and c1 >= i * TILE - border])
    return {z * tiled.tiles_x + x for x in out[0] for z in out[1]}


# ------------------------------------------------------ the mesh after areas=

@pytest.mark.parametrize("areas", [
    [],                                         # every volume gone
    [WATER],                                    # mud gone, water new
    [MUD, WATER],                               # water added over the mud
    [WATER, {**MUD, "area": "water"}, POOL],    # the mud is water now; lava
    [{"box": [[8, -1, 3], [16, 1, 9]], "area": "unwalkable"}],   # a hole
], ids=["none", "replace", "add", "three", "hole"])
def test_the_mesh_equals_a_fresh_level_with_the_new_volumes(areas):
    w, g = _world()
    w.update("l", areas=areas)
    w.tick()
    assert _named_rings(g) == _named_rings(_fresh(areas))
    named = {v["area"] for v in areas} - {"unwalkable"}
    assert named <= set(g.area_names)
    assert g.area_names["mud"] == 1                 # names keep their ids
    # what the graph keeps is what a fresh build of those volumes makes
    fresh = build_tiled(FLOOR, QUADS, g.level_config, volumes=g.level_volumes).stitch().mesh
    assert _ided_rings(g) == _mesh_rings(fresh)


def test_only_the_tiles_the_old_or_new_volumes_reach_are_rebuilt():
    w, g = _world()
    before = g.level_tiles
    w.update("l", areas=[WATER])
    w.tick()
    after = g.level_tiles
    want = _tiles(before, g.level_config, (2, 2), (6, 6)) \
        | _tiles(before, g.level_config, (10, -1), (14, 13))
    assert set(after.rebuilt.tolist()) == want
    assert 0 < len(want) < before.tile_count
    for i in set(range(before.tile_count)) - want:
        assert after.meshes[i] is before.meshes[i]
    # a volume kept as it was (the water) leaves the tiles only it reaches alone
    w.update("l", areas=[WATER, MUD])
    w.tick()
    assert set(g.level_tiles.rebuilt.tolist()) == _tiles(before, g.level_config, (2, 2), (6, 6))
    w.update("l", areas=[WATER, MUD])
    w.tick()
    assert g.level_tiles.rebuilt.tolist() == []     # the same volumes: nothing to rebuild


def test_queries_see_the_new_areas_from_the_next_tick():
    w, g = _world()
    before = w.find_path("l", S, G)
    assert before.found and before.cost == pytest.approx(20.0)
    with pytest.raises(QueryError, match="water"):
        w.find_path("l", S, G, exclude_areas=["water"])        # not a name yet
    w.update("l", areas=[MUD, WATER])
    assert w.find_path("l", S, G).points.tolist() == before.points.tolist()   # queued only
    w.tick()
    assert not w.is_current(before)
    assert w.find_path("l", S, G).cost == pytest.approx(20.0)   # wading is walking
    assert w.find_path("l", S, G, exclude_areas=["water"]).status is PathStatus.UNREACHABLE
    # the mud left out: a detour round it, as before
    mud = w.find_path("l", (1, 0, 4), (8, 0, 4), exclude_areas=["mud"])
    assert mud.found and mud.cost > 7 + 1e-6
    w.update("l", areas=[])
    w.tick()
    assert set(np.asarray(g.area_ids)[g.walkable].tolist()) == {63}
    again = w.find_path("l", S, G, exclude_areas=["water", "mud"])
    plain, _ = _world(areas=[])
    assert again.points.tolist() == plain.find_path("l", S, G).points.tolist()
    assert w.find_path("l", (1, 0, 4), (8, 0, 4), exclude_areas=["mud"]).cost \
        == pytest.approx(7.0)


def test_a_floor_whose_area_alone_changes_is_dirty():
    """Two islands: a volume over the whole east one gives its polygons
    another area, their corners unchanged; a path over them that leaves
    that area out is no longer current."""
    west = FLOOR * [0.25, 1, 1]                               # x 0..6
    east = west + [12, 0, 0]                                  # x 12..18
    w = navcore.World()
    g = w.add_graph("l", type="level", vertices=np.vstack([west, east]),
                    triangles=np.vstack([QUADS, QUADS + 4]), tile_size=TILE,
                    areas=[{**MUD, "convex": [[0, 0], [1, 0], [1, 1]]}])   # names mud
    path = w.find_path("l", (13, 0, 2), (17, 0, 10), exclude_areas=["mud"])
    assert path.found
    shapes = {k for k, _ in _named_rings(g) if min(x for x, _, _ in k) > 11}
    w.update("l", areas=[{"box": [[11, -1, -1], [19, 1, 13]], "area": "mud"}])
    w.tick()
    east_rings = [(k, a) for k, a in _named_rings(g) if min(x for x, _, _ in k) > 11]
    assert {k for k, _ in east_rings} == shapes               # the same polygons
    assert {a for _, a in east_rings} == {"mud"}              # of another area
    assert not w.is_current(path)
    assert w.find_path("l", (13, 0, 2), (17, 0, 10),
                       exclude_areas=["mud"]).status is PathStatus.INVALID_START


# ------------------------------------------------------------ with obstacles

def test_areas_and_obstacles_in_one_tick_are_one_rebuild():
    w, g = _world()
    crate = {"box": [[4, -1, 8], [6, 1, 10]]}
    w.update("l", add_obstacle=crate, obstacle_id="crate")
    w.update("l", areas=[MUD, WATER, POOL])
    # a name the queued areas= brings is known to an obstacle queued after it
    fire = {"box": [[20, -1, 1], [23, 1, 3]], "area": "lava"}
    w.update("l", add_obstacle=fire, obstacle_id="fire")
    w.tick()
    assert rebuilds_of(g).inline == 1
    names = g.area_names
    assert names["lava"] not in (names["mud"], names["water"])
    from navcore_levels import obstacle
    fresh = build_tiled(FLOOR, QUADS, g.level_config, volumes=g.level_volumes,
                        obstacles=[obstacle(crate), obstacle({**fire, "area": names["lava"]})]
                        ).stitch().mesh
    assert _ided_rings(g) == _mesh_rings(fresh)
    assert (np.asarray(g.area_ids)[g.walkable] == names["lava"]).any()
    # the obstacles stay through the next areas= update
    w.update("l", areas=[])
    w.tick()
    assert set(g.level_obstacles) == {"crate", "fire"}
    fresh = build_tiled(FLOOR, QUADS, g.level_config,
                        obstacles=[obstacle(crate), obstacle({**fire, "area": names["lava"]})]
                        ).stitch().mesh
    assert _ided_rings(g) == _mesh_rings(fresh)


def test_the_last_areas_of_a_tick_wins_and_names_carry_over():
    w, g = _world()
    w.update("l", areas=[WATER])
    w.update("l", areas=[{**POOL, "area": "water"}, POOL])   # water named by the first
    w.tick()
    assert g.area_names["water"] == 2 and g.area_names["lava"] == 3
    assert _named_rings(g) == _named_rings(_fresh([{**POOL, "area": "water"}, POOL]))


def test_rebuilds_over_the_frame_budget_run_as_jobs_and_are_swapped_in_later():
    w, g = _world(workers=1, frame_budget_ms=0.001)
    try:
        w.update("l", add_obstacle={"box": [[20, -1, 1], [21, 2, 2]]}, obstacle_id="first")
        w.tick()                                      # in the tick: times the tiles
        rebuilds = rebuilds_of(g)
        assert rebuilds.inline == 1 and rebuilds.tile_seconds > 0
        shown = _named_rings(g)
        w.update("l", areas=[WATER])
        w.tick()
        assert _named_rings(g) == shown               # the job's mesh is not in yet
        w.update("l", areas=[WATER, POOL])            # supersedes it
        w.tick()
        tick_until_rebuilt(w, rebuilds)
        fresh = build_tiled(FLOOR, QUADS, g.level_config, volumes=g.level_volumes,
                            obstacles=list(g.level_obstacles.values())).stitch().mesh
        assert _ided_rings(g) == _mesh_rings(fresh)
        assert {"water", "lava"} <= {n for _, n in _named_rings(g)}
    finally:
        w.close()


# ------------------------------------------------------------------ refusals

BAD = [
    ("water", "must be a list of area volumes"),
    (None, "must be a list of area volumes"),
    (WATER, "must be a list of area volumes"),
    ([WATER, "crate"], r"areas\[1\] must be a mapping"),
    ([{}], r"areas\[0\] must have exactly one shape key"),
    ([{"box": [[0, 0, 0], [1, 1, 1]]}], r"areas\[0\] has no 'area'"),
    ([{"box": [[1, 0, 0], [0, 1, 1]], "area": "x"}], "beyond corner 1"),
    ([{"box": [[0, 0, 0], [1, 1, 1]], "area": 64}], "area id 64 is not in 0..63"),
    ([{"box": [[0, 0, 0], [1, 1, 1]], "area": ["w"]}], "area must be a name"),
    ([{"convex": [[0, 0], [1, 0]], "ymin": 0, "ymax": 1, "area": "x"}], "3 or more"),
    ([{"convex": [[0, 0], [1, 0], [1, 1]], "area": "x"}], "needs ymin and ymax"),
    ([{"convex": [[0, 0], [1, 0], [1, float("nan")]], "ymin": 0, "ymax": 1, "area": "x"}],
     "convex"),
    ([{"cylinder": {"center": [1, 0, 1], "radius": -1, "height": 1}, "area": "x"}], ">= 0"),
    ([{"box": [[0, 0, 0], [1, 1, 1]], "area": "x", "ymin": 0}], "unknown key"),
]


@pytest.mark.parametrize("areas, words", BAD)
def test_bad_volumes_are_refused_and_nothing_changes(areas, words):
    w, g = _world()
    version, rings, names = g.version, _named_rings(g), dict(g.area_names)
    volumes = g.level_volumes
    with pytest.raises(UpdateError, match=words):
        w.update("l", areas=areas)
    assert w.pending_updates("l") == 0
    w.tick()
    assert g.version == version and _named_rings(g) == rings
    assert g.area_names == names and g.level_volumes is volumes


def test_areas_takes_nothing_else():
    w, g = _world()
    for params in (dict(areas=[WATER], obstacle_id="w"),
                   dict(areas=[WATER], add_obstacle={"box": [[5, -1, 5], [6, 1, 6]]})):
        with pytest.raises(UpdateError, match="areas= takes nothing else"):
            w.update("l", **params)
    assert w.pending_updates("l") == 0


def test_a_level_built_whole_refuses_areas_naming_tile_size():
    w, g = _world(tile_size=0)
    with pytest.raises(UpdateError, match=r"built whole \(tile_size=0\).*areas=.*tile_size=N"):
        w.update("l", areas=[WATER])
    assert w.pending_updates("l") == 0 and "water" not in g.area_names


def test_a_baked_level_refuses_areas_and_obstacles_naming_the_bake(tmp_path):
    from navcore_levels import save_level_mesh
    w, g = _world()
    save_level_mesh(tmp_path / "l.npz", g)
    baked = w.add_graph("b", type="level", mesh=str(tmp_path / "l.npz"))
    with pytest.raises(UpdateError, match=r"loaded from a bake \(mesh=\).*areas="):
        w.update("b", areas=[WATER])
    with pytest.raises(UpdateError, match=r"loaded from a bake \(mesh=\).*obstacles"):
        w.update("b", add_obstacle={"box": [[5, -1, 5], [6, 1, 6]]}, obstacle_id="a")
    assert w.pending_updates("b") == 0 and "water" not in baked.area_names


def test_a_hole_over_everything_fails_the_batch_and_leaves_the_graph():
    w, g = _world()
    version, rings, names = g.version, _named_rings(g), dict(g.area_names)
    w.update("l", areas=[{"box": [[-1, -1, -1], [25, 2, 13]], "area": "unwalkable"},
                         {"box": [[0, -1, 0], [1, 1, 1]], "area": "new"}])
    with pytest.raises(navcore.NavError, match="no walkable polygon"):
        w.tick()
    assert g.version == version and _named_rings(g) == rings and g.area_names == names
    assert w.find_path("l", S, G).found


def test_a_background_hole_over_everything_sets_the_volumes_back():
    w, g = _world(workers=1, frame_budget_ms=0.001)
    try:
        w.update("l", areas=[MUD, WATER])
        w.tick()                                      # in the tick: times the tiles
        rebuilds = rebuilds_of(g)
        volumes, rings = g.level_volumes, _named_rings(g)
        w.update("l", areas=[{"box": [[-1, -1, -1], [25, 2, 13]], "area": "unwalkable"}])
        w.tick()                                      # over the budget: a job rebuilds
        assert rebuilds.wait(60)
        with pytest.raises(UpdateError, match="no walkable polygon; the new areas= volumes "
                                              "were dropped"):
            w.tick()
        assert _named_rings(g) == rings
        assert [int(v[-1]) for v in g.level_volumes] == [int(v[-1]) for v in volumes] \
            == [g.area_names["mud"], g.area_names["water"]]
        w.update("l", areas=[MUD, WATER])             # the volumes it has: nothing to rebuild
        w.tick()
        assert g.level_tiles.rebuilt.tolist() == [] and _named_rings(g) == rings
    finally:
        w.close()
