"""Run-time obstacles on tiled level graphs (``navcore_levels.updates``,
``navcore_levels.tiles.rebuild_obstacles``).

Truths: a from-scratch ``build_tiled`` of the same triangles with the same
obstacles (polygons compared as sets of 3D corners), connected components
recomputed here from the polygons' shared edges, the path before an
obstacle came, and which tiles a box's cells fall in (worked out from the
tile size and border)."""
from __future__ import annotations

import numpy as np
import pytest

import navcore
from navcore.errors import GraphError, NavError, UpdateError
from navcore_levels import LevelConfig, obstacle
from navcore_levels.tiles import build_tiled, tile_border

from levelkit import tick_until_rebuilt

CELL = 0.3
TILE = 16                      # cells: 4.8 world units


def two_floors():
    """A 24 x 10 ground floor, a 10 x 10 deck 4 above its west end and a
    ramp down from the deck to the floor (the level plugin's sample)."""
    floor = np.array([[0, 0, 0], [24, 0, 0], [24, 0, 10], [0, 0, 10]], dtype=float)
    upper = np.array([[0, 4, 0], [10, 4, 0], [10, 4, 10], [0, 4, 10]], dtype=float)
    ramp = np.array([[10, 4, 6], [20, 0, 6], [20, 0, 10], [10, 4, 10]], dtype=float)
    quads = np.array([[0, 2, 1], [0, 3, 2]])
    return np.vstack([floor, upper, ramp]), np.vstack([quads, quads + 4, quads + 8])


def plain_floor():
    v = np.array([[0, 0, 0], [24, 0, 0], [24, 0, 12], [0, 0, 12]], dtype=float)
    return v, np.array([[0, 2, 1], [0, 3, 2]])


def _world(vertices, triangles, **kw):
    w = navcore.World()
    g = w.add_graph("l", type="level", vertices=vertices, triangles=triangles,
                    tile_size=kw.pop("tile_size", TILE), **kw)
    return w, g


def graph_rings(g):
    """The walkable polygons of a level graph as a sorted list of corner
    sets (x, y, z rounded to 1e-9)."""
    pts = np.column_stack([g.vertices[:, 0], g.heights, g.vertices[:, 1]])
    out = [frozenset(map(tuple, pts[g.polygon(p)].round(9).tolist()))
           for p in np.flatnonzero(g.walkable)]
    return sorted(out, key=sorted)


def mesh_rings(mesh):
    v = mesh.world_vertices()
    out = [frozenset(map(tuple, v[row[row >= 0]].round(9).tolist())) for row in mesh.polys]
    return sorted(out, key=sorted)


def components(g):
    """Connected components of the walkable polygons through shared edges,
    labelled by first appearance (-1 unwalkable): union-find here."""
    n = g.num_nodes
    parent = np.arange(n)

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a
    for p in range(n):
        if not g.walkable[p]:
            continue
        for e in range(g.poly_start[p], g.poly_start[p + 1]):
            q = g.poly_adj[e]
            if q >= 0 and g.walkable[q]:
                parent[find(p)] = find(q)
    return _canonical(np.array([find(p) if g.walkable[p] else -1 for p in range(n)]))


def _canonical(labels):
    seen, out = {}, []
    for x in labels.tolist():
        out.append(-1 if x < 0 else seen.setdefault(x, len(seen)))
    return np.array(out)


def random_obstacle(rng):
    x, z = rng.uniform(0, 22), rng.uniform(0, 9)
    y0 = rng.choice([-1.0, 3.0])                 # the ground floor's or the deck's
    kind = rng.integers(3)
    if kind == 0:
        return {"box": [[x, y0, z], [x + rng.uniform(0.5, 3), y0 + 2, z + rng.uniform(0.5, 3)]]}
    if kind == 1:
        return {"cylinder": {"center": (x, y0, z), "radius": float(rng.uniform(0.3, 1.5)),
                             "height": 2.0}}
    r = rng.uniform(0.5, 2)
    a = np.sort(rng.uniform(0, 2 * np.pi, 5))
    return {"convex": np.column_stack([x + r * np.cos(a), z + r * np.sin(a)]).tolist(),
            "ymin": y0, "ymax": y0 + 2}


# ------------------------------------------------------- equals a fresh build

def test_random_batches_equal_a_fresh_build_and_areas_a_recount():
    rng = np.random.default_rng(7)
    v, t = two_floors()
    w, g = _world(v, t)
    cfg = g.level_config
    base = graph_rings(g)
    live, changed = {}, 0
    for batch in range(5):
        for _ in range(int(rng.integers(1, 4))):
            oid = f"ob{batch}_{_}"
            live[oid] = random_obstacle(rng)
            w.update("l", add_obstacle=live[oid], obstacle_id=oid)
        for oid in list(live)[:int(rng.integers(0, len(live)))]:
            if rng.random() < 0.5:
                w.update("l", remove_obstacle=oid)
                del live[oid]
        n_before = g.num_nodes
        w.tick()
        assert g.num_nodes >= n_before
        fresh = build_tiled(v, t, cfg, obstacles=list(live.values())).stitch().mesh
        assert graph_rings(g) == mesh_rings(fresh), f"batch {batch}"
        changed += graph_rings(g) != base
        assert int(g.walkable.sum()) == fresh.poly_count
        assert np.array_equal(_canonical(w.areas("l")), components(g)), f"batch {batch}"
    assert changed >= 4
    # all removed: the level as built
    for oid in live:
        w.update("l", remove_obstacle=oid)
    w.tick()
    assert graph_rings(g) == mesh_rings(build_tiled(v, t, cfg).stitch().mesh)


def test_an_obstacle_over_the_ramp_splits_the_areas():
    """A box across the ramp's foot leaves the deck and the floor apart."""
    v, t = two_floors()
    w, g = _world(v, t)
    deck, ground = (5, 4, 5), (22, 0, 2)
    assert w.area("l", deck) == w.area("l", ground) >= 0
    w.update("l", add_obstacle={"box": [[17, -1, 5], [19, 2, 11]]}, obstacle_id="gate")
    w.tick()
    assert w.area("l", deck) != w.area("l", ground)
    assert not w.find_path("l", deck, ground).found
    w.update("l", remove_obstacle="gate")
    w.tick()
    assert w.find_path("l", deck, ground).found


# ------------------------------------------------------------ paths

def test_a_box_on_the_path_makes_it_detour_and_removing_it_restores_it():
    w, g = _world(*plain_floor())
    a, b = (2, 0, 6), (22, 0, 6)
    first = w.find_path("l", a, b)
    assert first.cost == pytest.approx(20.0)
    box = [[10, -1, 3], [13, 2, 12.5]]          # from z 3 to past the north edge
    w.update("l", add_obstacle={"box": box}, obstacle_id="crate")
    w.tick()
    assert not w.is_current(first)
    around = w.find_path("l", a, b)
    assert around.found and around.cost > first.cost + 1.0
    # goes south of the box (kept agent_radius from it), never through it
    pts = around.points
    mid = (pts[:-1] + pts[1:]) / 2
    inside = (mid[:, 0] > 10) & (mid[:, 0] < 13) & (mid[:, 2] > 3)
    assert not inside.any()
    assert pts[:, 2].min() < 3 - g.level_config.agent_radius + 1e-6
    w.update("l", remove_obstacle="crate")
    w.tick()
    again = w.find_path("l", a, b)
    assert again.cost == first.cost
    assert np.array_equal(again.points, first.points)
    assert np.array_equal(again.nodes, first.nodes)


def test_z_up_obstacles_are_in_the_callers_axes():
    v, t = plain_floor()
    vz = np.column_stack([v[:, 0], -v[:, 2], v[:, 1]])       # y-up (x, y, z) -> z-up (x, -z, y)
    wy, _ = _world(v, t)
    wz, _ = _world(vz, t, up="z")
    wy.update("l", add_obstacle={"box": [[10, -1, 3], [13, 2, 12.5]]}, obstacle_id=1)
    wz.update("l", add_obstacle={"box": [[10, -12.5, -1], [13, -3, 2]]}, obstacle_id=1)
    wy.update("l", add_obstacle={"convex": [[4, 1], [6, 1], [5, 2.5]], "ymin": -1, "ymax": 1},
              obstacle_id=2)
    wz.update("l", add_obstacle={"convex": [[4, -1], [6, -1], [5, -2.5]], "zmin": -1,
                                 "zmax": 1}, obstacle_id=2)
    wy.tick()
    wz.tick()
    ry = wy.find_path("l", (2, 0, 6), (22, 0, 6))
    rz = wz.find_path("l", (2, -6, 0), (22, -6, 0))
    assert ry.cost > 21 and rz.cost == pytest.approx(ry.cost, abs=1e-9)


def test_walkable_flags_stay_on_polygons_an_update_leaves_alone():
    w, g = _world(*plain_floor())
    far = g.locate((22, 0, 10))
    ring = frozenset(map(tuple, g.vertices[g.polygon(far)].tolist()))
    w.update("l", nodes=[far], walkable=False)
    w.tick()
    w.update("l", add_obstacle={"cylinder": {"center": (3, -1, 3), "radius": 1.0,
                                             "height": 3}}, obstacle_id="barrel")
    w.tick()
    same = [p for p in range(g.num_nodes)
            if frozenset(map(tuple, g.vertices[g.polygon(p)].tolist())) == ring]
    assert same and not g.walkable[same].any()


# -------------------------------------------------------- only touched tiles

def test_only_the_tiles_an_obstacle_reaches_are_rebuilt():
    v, t = plain_floor()
    w, g = _world(v, t)
    before = g.level_tiles
    lo, hi = (10.2, -1, 4.2), (10.8, 1, 4.8)
    w.update("l", add_obstacle={"box": [lo, hi]}, obstacle_id="post")
    w.tick()
    after = g.level_tiles
    # tile i reads cells [i*TILE - border, (i+1)*TILE + border) along each axis
    border = tile_border(g.level_config)
    origin = before.bmin

    def tiles(axis, a, b):
        c0 = int(np.floor((a - origin[axis]) / CELL))
        c1 = int(np.floor((b - origin[axis]) / CELL))
        n = before.tiles_x if axis == 0 else before.tiles_z
        return [i for i in range(n) if c0 < (i + 1) * TILE + border and c1 >= i * TILE - border]
    want = sorted(z * before.tiles_x + x for x in tiles(0, lo[0], hi[0])
                  for z in tiles(2, lo[2], hi[2]))
    assert sorted(after.rebuilt.tolist()) == want
    assert 0 < len(want) < before.tile_count
    for i in range(before.tile_count):
        if i not in want:                 # kept, not rebuilt
            assert after.meshes[i] is before.meshes[i]
            assert after.compacts[i] is before.compacts[i]


# ------------------------------------------------------------ bad input

BAD_SPECS = [
    ("crate", "must be a dict"),
    ({}, "exactly one shape key"),
    ({"box": [[0, 0, 0], [1, 1, 1]], "cylinder": {}}, "exactly one shape key"),
    ({"box": [[0, 0, 0], [1, 1, 1]], "area": "water"}, "area must be an area id 0..63 or a name"),
    ({"box": [[1, 0, 0], [0, 1, 1]]}, "beyond corner 1"),
    ({"box": [[0, 0, 0]]}, "two corners"),
    ({"box": [[0, 0, 0], [1, "x", 1]]}, "box corner 1"),
    ({"box": [[0, 0, 0], [1, float("nan"), 1]]}, "finite"),
    ({"box": [[2, 0, 2], [2, 1, 5]]}, "no area"),
    ({"box": [[0, 0, 0], [1, 1, 1]], "ymin": 0}, "unknown key"),
    ({"cylinder": {"center": (1, 0, 1), "radius": 1}}, "cylinder must be"),
    ({"cylinder": {"center": (1, 0, 1), "radius": 0, "height": 1}}, "radius > 0"),
    ({"cylinder": {"center": (1, 0), "radius": 1, "height": 1}}, "cylinder center"),
    ({"cylinder": {"center": (1, 0, 1), "radius": True, "height": 1}}, "radius"),
    ({"convex": [[0, 0], [1, 0], [0, 1]]}, "needs ymin and ymax"),
    ({"convex": [[0, 0], [1, 0]], "ymin": 0, "ymax": 1}, "3 or more"),
    ({"convex": [[0, 0], [4, 0], [1, 1], [0, 4]], "ymin": 0, "ymax": 1}, "convex polygon"),
    ({"convex": [[0, 0], [1, 1], [2, 2]], "ymin": 0, "ymax": 1}, "no area"),
    ({"convex": [[0, 0], [1, 0], [0, 1]], "ymin": 2, "ymax": 1}, "above ymax"),
    ({"box": [[100, -1, 100], [101, 1, 101]]}, "wholly outside"),
]


@pytest.mark.parametrize("spec, words", BAD_SPECS)
def test_bad_obstacles_are_refused_and_nothing_changes(spec, words):
    w, g = _world(*plain_floor())
    version, rings = g.version, graph_rings(g)
    with pytest.raises(UpdateError, match=words.replace("[", r"\[").replace("]", r"\]")):
        w.update("l", add_obstacle=spec, obstacle_id="x")
    assert w.pending_updates("l") == 0
    w.tick()
    assert g.version == version and graph_rings(g) == rings and g.level_obstacles == {}


def test_obstacle_ids_are_checked_against_the_graph_and_the_queue():
    w, g = _world(*plain_floor())
    box = {"box": [[5, -1, 5], [6, 1, 6]]}
    w.update("l", add_obstacle=box, obstacle_id="a")
    with pytest.raises(UpdateError, match="already has an obstacle 'a'.*queued"):
        w.update("l", add_obstacle=box, obstacle_id="a")
    with pytest.raises(UpdateError, match="no obstacle 'b'; it has 'a'"):
        w.update("l", remove_obstacle="b")
    for params, words in ((dict(add_obstacle=box, obstacle_id=[1]), "hashable"),
                          (dict(add_obstacle=box, obstacle_id=None), "not be None"),
                          (dict(add_obstacle=box), "exactly obstacle_id"),
                          (dict(remove_obstacle="a", obstacle_id="a"), "nothing else"),
                          (dict(remove_obstacle=[1]), "no obstacle")):
        with pytest.raises(UpdateError, match=words):
            w.update("l", **params)
    assert w.pending_updates("l") == 1
    w.tick()
    assert set(g.level_obstacles) == {"a"}
    w.update("l", remove_obstacle="a")
    with pytest.raises(UpdateError, match="no obstacle 'a'"):
        w.update("l", remove_obstacle="a")
    w.update("l", add_obstacle=box, obstacle_id="a")       # removed in the queue: free again
    w.tick()
    assert set(g.level_obstacles) == {"a"}


def test_a_level_built_whole_refuses_obstacles_naming_tile_size():
    w, g = _world(*plain_floor(), tile_size=0)
    with pytest.raises(UpdateError, match="tile_size=N"):
        w.update("l", add_obstacle={"box": [[5, -1, 5], [6, 1, 6]]}, obstacle_id="a")
    assert w.pending_updates("l") == 0


def test_an_obstacle_over_everything_fails_the_batch_and_leaves_the_graph():
    w, g = _world(*plain_floor())
    version, rings = g.version, graph_rings(g)
    w.update("l", add_obstacle={"box": [[-1, -1, -1], [25, 2, 13]]}, obstacle_id="tarp")
    with pytest.raises(NavError, match="no walkable polygon"):
        w.tick()
    assert g.version == version and graph_rings(g) == rings and g.level_obstacles == {}
    assert w.find_path("l", (2, 0, 6), (22, 0, 6)).found


def test_build_tiled_checks_its_obstacles():
    v, t = plain_floor()
    with pytest.raises(GraphError, match=r"obstacles\[1\]: .*radius > 0"):
        build_tiled(v, t, LevelConfig(tile_size=TILE),
                    obstacles=[{"box": [[1, 0, 1], [2, 1, 2]]},
                               {"cylinder": {"center": (1, 0, 1), "radius": 0, "height": 1}}])
    with pytest.raises(GraphError, match="obstacles must be a list"):
        build_tiled(v, t, LevelConfig(tile_size=TILE), obstacles={"box": [[1, 0, 1], [2, 1, 2]]})
    assert obstacle({"box": [[1, 0, 1], [2, 1, 2]]}).kind == "box"


def test_readme_obstacle_example(capsys):
    from pathlib import Path
    import re
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = re.search(r"```python\n(  import navcore\n\n  # a 24 x 12 yard.*?)  ```", text,
                      re.S).group(1)
    block = "\n".join(line[2:] for line in block.splitlines())
    exec(compile(block, "README.md", "exec"), {})
    said = capsys.readouterr().out.splitlines()
    claimed = [line.strip()[2:] for line in block.splitlines() if line.strip().startswith("# ")
               and not line.strip().startswith("# a 24")]
    assert said == claimed == ["20.0 21.54 False", "9 of 15 tiles rebuilt", "True"]


# ------------------------------------------------ rebuilds beyond the frame budget

def test_rebuilds_over_the_frame_budget_run_as_jobs_and_are_swapped_in_later():
    v, t = two_floors()
    w = navcore.World(workers=1, frame_budget_ms=0.001)
    try:
        g = w.add_graph("l", type="level", vertices=v, triangles=t, tile_size=TILE)
        cfg = g.level_config
        rebuilds = None
        # the first rebuild runs in the tick (nothing measured yet) and times the tiles
        w.update("l", add_obstacle={"box": [[20, -1, 1], [21, 2, 2]]}, obstacle_id="first")
        w.tick()
        from navcore_levels.updates import rebuilds_of
        rebuilds = rebuilds_of(g)
        assert rebuilds.inline == 1 and rebuilds.tile_seconds > 0
        live = {"first": {"box": [[20, -1, 1], [21, 2, 2]]}}
        shown = graph_rings(g)
        path = w.find_path("l", (2, 0, 2), (22, 0, 8))
        # now every batch is estimated over the budget: a job rebuilds it
        live["gate"] = {"box": [[12, -1, 0], [13, 2, 7]]}
        w.update("l", add_obstacle=live["gate"], obstacle_id="gate")
        w.tick()
        assert graph_rings(g) == shown and set(g.level_obstacles) == {"first", "gate"}
        assert w.is_current(path)                 # the mesh has not changed yet
        live["post"] = {"cylinder": {"center": (5, 3, 5), "radius": 1.0, "height": 2.0}}
        w.update("l", add_obstacle=live["post"], obstacle_id="post")   # supersedes
        w.update("l", remove_obstacle="first")
        del live["first"]
        w.tick()
        tick_until_rebuilt(w, rebuilds)
        fresh = build_tiled(v, t, cfg, obstacles=list(live.values())).stitch().mesh
        assert graph_rings(g) == mesh_rings(fresh)
        assert np.array_equal(_canonical(w.areas("l")), components(g))
        assert not w.is_current(path)
    finally:
        w.close()


def test_a_jump_link_is_taken_once_an_obstacle_closes_the_ramp():
    """Off-mesh links attach again to the rebuilt polygons."""
    v, t = two_floors()
    jump = {"start": (9.0, 4.0, 2.0), "end": (12.0, 0.0, 2.0), "bidirectional": False,
            "kind": "jump"}
    w, g = _world(v, t, links=[jump])
    deck, ground = (3, 4, 3), (16, 0, 2)
    assert w.find_path("l", deck, ground).found
    assert w.find_path("l", ground, deck).found             # up the ramp
    w.update("l", add_obstacle={"box": [[17, -1, 5], [19, 2, 11]]}, obstacle_id="gate")
    w.update("l", add_obstacle={"box": [[11, 2, 5], [12, 5, 11]]}, obstacle_id="top")
    w.tick()
    r = w.find_path("l", deck, ground)
    assert r.found and [k.kind for k in r.links] == ["jump"]
    assert not w.find_path("l", ground, deck).found        # one way only


def test_obstacle_id_is_checked_once_for_every_backend():
    from navcore import validate
    assert validate.obstacle_id({"add_obstacle": {}, "obstacle_id": ("crate", 1)}) == ("crate", 1)
    for params, words in (({"add_obstacle": {}, "obstacle_id": {1: 2}}, "hashable"),
                          ({"add_obstacle": {}, "obstacle_id": None}, "not be None"),
                          ({"add_obstacle": {}}, "exactly obstacle_id")):
        with pytest.raises(UpdateError, match=words):
            validate.obstacle_id(params)


def test_area_volumes_stay_marked_in_rebuilt_tiles():
    v, t = plain_floor()
    water = [[4.0, 2.0], [9.0, 2.0], [9.0, 10.0], [4.0, 10.0]]
    w, g = _world(v, t, areas=[{"convex": water, "ymin": -1, "ymax": 1, "area": "water"}])
    wid = g.area_names["water"]
    box = {"box": [[6, -1, 4], [8, 2, 6]]}
    w.update("l", add_obstacle=box, obstacle_id="rock")
    w.tick()
    fresh = build_tiled(v, t, g.level_config, volumes=[(water, -1, 1, wid)],
                        obstacles=[box]).stitch().mesh
    assert graph_rings(g) == mesh_rings(fresh)
    walk = np.flatnonzero(g.walkable)
    assert sorted(g.area_ids[walk].tolist()) == sorted(fresh.areas.tolist())
    assert (g.area_ids[walk] == wid).any()
