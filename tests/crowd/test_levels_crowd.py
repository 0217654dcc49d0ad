"""Crowds on 3D levels (``navcore_crowd.levels.LevelCrowd``) and the crowd
hooks on layered meshes.

Truths: RecastDemo's dungeon (``scenes/maps/recast_dungeon.obj``, with the
crypt scene's ladder, drop and jump) and a hand-made level of two floors
joined by a ramp. An agent is on the mesh when a polygon's ground
projection holds its point (shapely) and the level's detail triangles
there (a plain barycentric reading, ``levelkit.surface_height``) give its height;
agents on floors above one another walk exactly as each does alone;
an agent under another floor's edge walks as on a level without that
floor; the hooks against naive Python (the polygons' open sides, a
breadth-first walk with shapely's distances and overlaps)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import shapely

import navcore
from hooktags import exercises
from levelkit import OnMesh, join, polygons, quad
from navcore.errors import CrowdError

DUNGEON = Path(__file__).resolve().parents[2] / "scenes/maps/recast_dungeon.obj"
#: the crypt scene's off-mesh links: a ladder from the hall up to the
#: platform, a one-way drop from it into the corridor, a jump
LINKS = [dict(start=[25.16, 16.22, -82.22], end=[24.61, 24.77, -81.64], kind="ladder", cost=12),
         dict(start=[21.52, 25.07, -86.61], end=[21.36, 15.0, -87.01], kind="drop",
              bidirectional=False),
         dict(start=[24.93, 15.43, -83.68], end=[23.79, 15.0, -85.39], kind="jump")]
HALL, PLATFORM = (27.3, 15.0, -75.8), (19.5, 24.6, -86.0)
#: two floors (y 0, and y 4 over x < 10) joined by a ramp from (10, 4) down
#: to (20, 0) along z 6..10; the lower floor runs on under both
LOWER = quad(0, 24, 0, 10, 0.0)
TWO_FLOORS = join(LOWER, quad(0, 10, 0, 10, 4.0), quad(10, 20, 6, 10, 4.0, 0.0, along="x"))
DT = 0.1


@pytest.fixture(scope="module")
def dungeon_mesh(tmp_path_factory):
    """The dungeon's mesh for scouts (radius 0.3), built once and baked."""
    from navcore_levels import save_level_mesh
    path = tmp_path_factory.mktemp("dungeon") / "dungeon.npz"
    w = navcore.World()
    save_level_mesh(path, w.add_graph("d", type="level", level=DUNGEON, tile_size=0,
                                      agent_radius=0.3))
    return path


def dungeon(mesh, **world):
    w = navcore.World(**{"deterministic": True, **world})
    return w, w.add_graph("d", type="level", mesh=mesh, links=LINKS)


def two_floors(geometry=TWO_FLOORS):
    w = navcore.World(deterministic=True)
    v, t = geometry
    return w, w.add_graph("s", type="level", vertices=v, triangles=t)


# -- independent readings of the mesh -------------------------------------------

def overlap_on_one_floor(pos, radii, floor_gap=1.0):
    """The largest overlap of two agents whose heights differ by less
    than ``floor_gap`` (ground distance against their radii)."""
    worst = 0.0
    for i in range(len(pos)):
        for j in range(i + 1, len(pos)):
            if abs(pos[i, 1] - pos[j, 1]) < floor_gap:
                d = math.hypot(pos[i, 0] - pos[j, 0], pos[i, 2] - pos[j, 2])
                worst = max(worst, radii[i] + radii[j] - d)
    return worst


def walk(world, crowd, steps, each=None):
    states = []
    for _ in range(steps):
        world.tick(DT)
        states.append(crowd.state_names())
        if each is not None:
            each(crowd)
        if crowd.arrived.all():
            break
    return states


# -- crowds on the dungeon -------------------------------------------------------

@exercises("navcore_make_crowd")
def test_agents_cross_floors_by_stairs_and_ladders_and_arrive(dungeon_mesh):
    w, g = dungeon(dungeon_mesh)
    crowd = w.add_crowd("c", graph="d", radius=0.3, max_speed=3.0)
    up = crowd.add([(27.3, 15.0, -75.8), (26.5, 15.0, -76.5), (27.5, 15.0, -77.0)],
                   goals=[PLATFORM, (19.0, 24.6, -85.4), (23.4, 24.5, -83.6)])
    down = crowd.add([(24.0, 24.6, -81.0), (20.5, 24.6, -84.5)],
                     goals=[(21.5, 15.0, -87.5), (20.5, 15.0, -88.0)])
    far = crowd.add([(2.6, 10.4, -2.9), (3.5, 10.4, -3.5)],
                    goals=[HALL, (26.0, 15.0, -75.0)])
    goals = crowd.goals
    lasts, there = {}, np.full((len(crowd), 3), np.nan)

    def each(c):
        for i, s in enumerate(c.state_names()):
            if s == "on_link":
                lasts.setdefault(i, []).append(c.positions[i])
        new = c.arrived & np.isnan(there[:, 0])
        there[new] = c.positions[new]          # (later, walkers may push it aside)

    states = walk(w, crowd, 400, each)
    assert crowd.arrived.all(), crowd.state_names()
    assert len(states) * DT <= 35.0            # the long way is 82 m at 3 m/s
    pos = there
    ground = np.hypot(pos[:, 0] - goals[:, 0], pos[:, 2] - goals[:, 2])
    assert (ground <= crowd.radii + 1e-9).all()
    assert (abs(pos[:, 1] - goals[:, 1]) < 1.0).all()      # on the goal's floor
    # the climbers took the ladder, those coming down the ladder or the drop
    assert set(lasts) == set(up.tolist()) | set(down.tolist())
    assert not set(lasts) & set(far.tolist())
    # the path's reading of the same trips agrees (one link each)
    for i in up.tolist() + down.tolist():
        r = w.find_path("d", tuple(crowd.positions[i]), tuple(goals[i]))
        assert r.found


def test_a_link_is_taken_in_a_straight_line_at_top_speed(dungeon_mesh):
    w, g = dungeon(dungeon_mesh)
    crowd = w.add_crowd("c", graph="d", radius=0.3, max_speed=2.5)
    crowd.add([HALL], goals=[PLATFORM])
    w.tick(DT)                                   # the path is served, the walk begins
    path = w.find_path("d", HALL, PLATFORM)
    (link,) = path.links
    assert link.kind == "ladder"
    end = path.points[link.point + 1]           # where the ladder's top is on the mesh
    track, states = [], []
    for _ in range(300):
        before = crowd.positions[0]
        w.tick(DT)
        states.append(crowd.state_names()[0])
        track.append((before, crowd.positions[0]))
        if states[-1] == "arrived":
            break
    on = [k for k, s in enumerate(states) if s == "on_link"]
    assert on and on == list(range(on[0], on[-1] + 1))        # one stretch
    start = track[on[0]][0]                     # where it stood when it took the link
    length = float(np.linalg.norm(end - start))
    steps = length / 2.5 / DT
    assert math.ceil(steps) - 1 <= len(on) <= math.ceil(steps)
    d = (end - start) / length
    for k in on:
        p = track[k][1] - start
        assert np.linalg.norm(p - (p @ d) * d) <= 1e-9        # on the line
        assert (p @ d) == pytest.approx(2.5 * DT * (k - on[0] + 1), abs=1e-9)
    landed = track[on[-1] + 1][1]
    assert np.linalg.norm(landed - end) <= 2.5 * DT + 1e-9    # then walks on from there
    assert crowd.arrived.all()


def test_agents_stay_on_the_mesh_and_apart(dungeon_mesh):
    w, g = dungeon(dungeon_mesh)
    rng = np.random.default_rng(4)
    hall = [w.random_point("d", around=HALL, radius=12.0, rng=rng).point for _ in range(40)]
    crowd = w.add_crowd("c", graph="d", radius=0.3, max_speed=2.0)
    ids = crowd.add(hall[:24], goals=hall[24:40] + [PLATFORM] * 8)
    check = OnMesh(g)
    worst = [0.0]
    seen = [0]

    def each(c):
        names = c.state_names()
        ground = [i for i, s in enumerate(names) if s != "on_link"]
        pos = c.positions[ground]
        assert check.misses(pos) == []
        worst[0] = max(worst[0], overlap_on_one_floor(pos, c.radii[ground]))
        seen[0] += len(ground)

    walk(w, crowd, 250, each)
    assert worst[0] < 1e-3
    assert seen[0] > 24 * 50 and crowd.arrived.mean() >= 0.9, crowd.state_names()
    assert len(crowd) == len(ids)


def test_agents_on_floors_above_one_another_ignore_each_other(dungeon_mesh):
    # one walks the platform, the other the hall under it: their ground
    # tracks cross with them a metre apart, and each walks as it does alone
    on_top = ((24.0, 24.6, -81.0), (19.5, 24.6, -86.0))
    below = ((21.0, 15.2, -80.0), (26.0, 15.2, -85.0))

    def run(trips, **params):
        w, _ = dungeon(dungeon_mesh)
        crowd = w.add_crowd("c", graph="d", radius=0.3, max_speed=2.0, **params)
        crowd.add([t[0] for t in trips], goals=[t[1] for t in trips])
        out = []
        for _ in range(120):
            w.tick(DT)
            out.append(crowd.positions)
        assert crowd.arrived.all()
        return np.array(out)

    both = run([on_top, below])
    alone = run([on_top])[:, 0], run([below])[:, 0]
    assert np.array_equal(both[:, 0], alone[0]) and np.array_equal(both[:, 1], alone[1])
    ground = np.hypot(*(both[:, 0] - both[:, 1])[:, [0, 2]].T)
    assert ground.min() < 1.5                   # they did pass close over one another
    # taken for one floor (agents 100 high), the same two avoid each other
    tall = run([on_top, below], height=100.0)
    assert not np.array_equal(tall[:, 0], alone[0])


def test_another_floors_walls_do_not_stop_an_agent():
    # on the lower floor, under the upper floor's edge (x = 9.3, a wall up
    # there): the walk is the one on a level without the upper floor
    def run(geometry):
        w, g = two_floors(geometry)
        crowd = w.add_crowd("c", graph="s", radius=0.4, max_speed=1.5)
        crowd.add([(14.0, 0.0, 3.0)], goals=[(2.0, 0.0, 3.0)])
        out = []
        for _ in range(120):
            w.tick(DT)
            out.append(crowd.positions[0])
        assert crowd.arrived.all()
        return np.array(out), g

    stacked, g = run(TWO_FLOORS)
    flat, _ = run(join(LOWER))
    assert np.allclose(stacked, flat, rtol=0, atol=1e-9)
    above = polygons(g)[g.nearest_polys([(5.0, 4.2, 3.0)])[0][0]]
    under = shapely.contains_xy(above, stacked[:, 0], stacked[:, 2])
    assert under.sum() >= 30                   # it did walk under that floor


def test_walking_down_the_ramp_and_under_the_floor_it_left():
    w, g = two_floors()
    crowd = w.add_crowd("c", graph="s", radius=0.4)
    crowd.add([(5.0, 4.2, 3.0)], goals=[(2.0, 0.2, 8.0)])
    check = OnMesh(g)
    heights = []

    def each(c):
        assert check.misses(c.positions) == []
        heights.append(c.positions[0, 1])

    walk(w, crowd, 300, each)
    assert crowd.arrived.all()
    assert max(heights) > 4.0 and heights[-1] < 0.5       # it came down to the floor below
    np.testing.assert_allclose(crowd.positions[0], (2.0, 0.2, 8.0), atol=0.4 + 1e-9)
    v = crowd.velocities
    assert v.shape == (1, 3)


def test_steps_are_the_same_for_any_worker_count(dungeon_mesh, monkeypatch):
    import navcore_crowd.crowd as C
    monkeypatch.setattr(C, "PARALLEL_AGENTS", 8)        # split even this small crowd

    def run(workers):
        w, g = dungeon(dungeon_mesh, workers=workers, deterministic=True)
        rng = np.random.default_rng(11)
        pts = [w.random_point("d", around=HALL, radius=12.0, rng=rng).point for _ in range(40)]
        crowd = w.add_crowd("c", graph="d", radius=0.3, max_speed=2.5)
        crowd.add(pts[:30], goals=pts[30:] + [PLATFORM] * 20)
        out = []
        for _ in range(80):
            w.tick(DT)
            out.append(crowd.positions)
        states = crowd.state_names()
        w.close()
        return np.array(out), states

    (a, sa), (b, sb), (c, _) = run(2), run(0), run(0)
    assert np.array_equal(a, b) and np.array_equal(b, c) and sa == sb
    assert np.isfinite(a).all()


# -- bad input --------------------------------------------------------------------

def test_bad_points_are_crowd_errors_naming_the_problem():
    w, g = two_floors()
    crowd = w.add_crowd("c", graph="s")
    ids = crowd.add([(5.0, 4.2, 3.0), (5.0, 0.2, 3.0)])
    before = crowd.positions
    with pytest.raises(CrowdError, match=r"\(x, y, z\) points on level graph 's'.*2D"):
        crowd.add([(5.0, 3.0)])
    with pytest.raises(CrowdError, match=r"positions\[1\].*not on walkable ground"):
        crowd.add([(5.0, 4.2, 3.0), (60.0, 0.0, 3.0)])
    with pytest.raises(CrowdError, match=r"positions\[0\].*not on walkable ground"):
        crowd.add([(5.0, 12.0, 3.0)])              # 8 above the upper floor
    with pytest.raises(CrowdError, match=r"positions\[0\] = \(nan.*not a finite point"):
        crowd.add([(float("nan"), 0.0, 3.0)])
    with pytest.raises(CrowdError, match=r"goals\[0\].*not on walkable ground"):
        crowd.set_goals(ids, (5.0, 30.0, 3.0))
    with pytest.raises(CrowdError, match=r"goals must be \(x, y, z\)"):
        crowd.set_goals(ids, (5.0, 3.0))
    with pytest.raises(CrowdError, match=r"positions must be \(x, y, z\)"):
        crowd.teleport(ids, [(1.0, 1.0), (2.0, 2.0)])
    with pytest.raises(CrowdError, match=r"one per agent \(2\), got 1"):
        crowd.teleport(ids, [(5.0, 4.2, 3.0)])
    with pytest.raises(CrowdError, match=r"within"):
        crowd.add([(1e300, 0.0, 3.0)])
    assert len(crowd) == 2 and np.array_equal(crowd.positions, before)
    assert crowd.state_names() == ["idle", "idle"]
    lower = int(g.nearest_polys([(5.0, 0.2, 3.0)])[0][0])
    w.update("s", nodes=[lower], walkable=False)
    w.tick(DT)
    with pytest.raises(CrowdError, match=rf"positions\[0\].*polygon it stands on, {lower}, is "
                                         rf"blocked"):
        crowd.add([(5.0, 0.2, 3.0)])
    assert len(crowd) == 2


def test_points_are_placed_on_their_own_floor():
    w, g = two_floors()
    crowd = w.add_crowd("c", graph="s")
    crowd.add([(5.0, 4.5, 3.0), (5.0, 0.5, 3.0), (5.0, 1.0, 3.0)])
    np.testing.assert_allclose(crowd.positions[:, 1], [4.2, 0.2, 0.2], atol=1e-6)
    np.testing.assert_allclose(crowd.positions[:, [0, 2]], [[5, 3]] * 3)
    # a point a little off the floor's edge comes onto it (Detour's findNearestPoly)
    crowd.teleport([0], [(0.5, 0.0, 3.0)])
    assert crowd.positions[0, 0] == pytest.approx(0.9, abs=0.01)


def test_stop_and_new_goals_on_a_link_land_first(dungeon_mesh):
    w, g = dungeon(dungeon_mesh)
    crowd = w.add_crowd("c", graph="d", radius=0.3, max_speed=2.5)
    crowd.add([HALL, HALL[:1] + (15.0, -76.6)], goals=[PLATFORM, PLATFORM])
    for _ in range(300):
        w.tick(DT)
        if (crowd.state == 5).all():
            break
    assert crowd.state_names() == ["on_link", "on_link"]
    crowd.stop([0])
    crowd.set_goals([1], (23.4, 24.5, -83.6))
    assert crowd.state_names() == ["on_link", "on_link"]     # still climbing
    for _ in range(80):
        w.tick(DT)
    pos = crowd.positions
    assert crowd.state_names() == ["idle", "arrived"]
    assert pos[0, 1] > 24.0 and pos[1, 1] > 24.0             # both landed up there
    assert OnMesh(g).misses(pos) == []
    # a teleport takes an agent off its link at once
    crowd.set_goals([0], HALL)
    for _ in range(100):
        w.tick(DT)
        if crowd.state_names()[0] == "on_link":
            break
    crowd.teleport([0], [HALL])
    assert crowd.state_names()[0] != "on_link"
    np.testing.assert_allclose(crowd.positions[0], (27.3, 14.997, -75.8), atol=1e-3)


def test_an_agent_whose_floor_is_blocked_moves_to_the_nearest_walkable_point():
    # Detour's rule: the nearest within the level's extents; with none, it
    # stays where it is, off the ground, until a change gives it one
    w, g = two_floors()
    crowd = w.add_crowd("c", graph="s", radius=0.3)
    crowd.add([(8.0, 4.2, 6.2), (5.0, 4.2, 3.0), (5.0, 0.2, 3.0)])
    upper = int(g.nearest_polys([(5.0, 4.2, 3.0)])[0][0])
    assert int(g.nearest_polys([(8.0, 4.2, 6.2)])[0][0]) == upper
    w.update("s", nodes=[upper], walkable=False)
    w.tick(DT)
    pos = crowd.positions
    check = OnMesh(g)
    assert check.misses(pos) == [1]
    nearest = shapely.Polygon(polygons(g)[upper]).exterior
    assert pos[0, 1] == pytest.approx(4.2, abs=1e-6)                  # on its floor still
    assert nearest.distance(shapely.Point(pos[0, 0], pos[0, 2])) <= 1e-6
    np.testing.assert_array_equal(pos[1], (5.0, 4.2, 3.0))
    np.testing.assert_allclose(pos[2], (5.0, 0.2, 3.0), atol=1e-9)    # the one below stays
    crowd.set_goals([1], (2.0, 0.2, 8.0))
    w.tick(DT)
    assert crowd.state_names()[1] == "no_path"
    w.update("s", nodes=[upper], walkable=True)
    walk(w, crowd, 300)
    assert crowd.state_names()[1] == "arrived" and check.misses(crowd.positions) == []


# -- the hooks on a layered mesh ------------------------------------------------------

def _open_sides(g):
    """``{(polygon, a, b)}``: the sides ``a -> b`` (vertex ids, the
    polygon's order) of walkable polygons with no walkable one across."""
    out = set()
    for p in np.flatnonzero(g.walkable):
        vs = g.poly_verts[g.poly_start[p]:g.poly_start[p + 1]]
        adj = g.poly_adj[g.poly_start[p]:g.poly_start[p + 1]]
        for k in range(len(vs)):
            if adj[k] < 0 or not g.walkable[adj[k]]:
                out.add((int(p), tuple(g.vertices[vs[k]]), tuple(g.vertices[vs[(k + 1) % len(vs)]])))
    return out


@exercises("navcore_walls")
@pytest.mark.parametrize("which", ["two_floors", "dungeon"])
def test_walls_of_a_layered_mesh_are_its_open_sides_each_with_its_polygon(which, dungeon_mesh):
    w, g = two_floors() if which == "two_floors" else dungeon(dungeon_mesh)
    if which == "dungeon":
        w.update("d", nodes=[5, 40, 41], walkable=False)
        w.tick()
    verts, ring_start, owner = w.plugins.caller("navcore_walls")(w, g)
    assert verts.shape == (len(owner), 2) and owner.dtype == np.int32
    assert ring_start[0] == 0 and ring_start[-1] == len(verts)
    edges = []
    for a, b in zip(ring_start[:-1], ring_start[1:]):
        for k in range(a, b):
            nxt = k + 1 if k + 1 < b else a
            # walkable on the right: the side reversed, as its polygon runs
            edges.append((int(owner[k]), tuple(verts[nxt]), tuple(verts[k])))
    assert len(edges) == len(set(edges))
    assert set(edges) == _open_sides(g)


@exercises("navcore_local_neighbourhood")
@pytest.mark.parametrize("which", ["two_floors", "dungeon"])
def test_local_neighbourhoods_against_a_breadth_first_walk(which, dungeon_mesh):
    w, g = two_floors() if which == "two_floors" else dungeon(dungeon_mesh)
    polys = polygons(g)
    rng = np.random.default_rng(7)
    nodes = rng.integers(0, g.num_nodes, 60).astype(np.int32)
    nodes[:3] = [-1, nodes[3], nodes[4]]
    points = np.array([np.asarray(polys[max(p, 0)].representative_point().coords[0])
                       for p in nodes]) + rng.normal(0, 0.05, (60, 2))
    radius = rng.uniform(0.5, 12.0, 60)
    start, local = w.plugins.caller("navcore_local_neighbourhood")(w, g, points, nodes, radius)
    assert start.shape == (61,) and local.dtype == np.int32
    for i in range(60):
        want = []
        if nodes[i] >= 0:
            p0 = shapely.Point(points[i])
            want, queue, seen = [int(nodes[i])], [int(nodes[i])], {int(nodes[i])}
            while queue and len(want) < 32:
                cur = queue.pop(0)
                for e in range(g.poly_start[cur], g.poly_start[cur + 1]):
                    q = int(g.poly_adj[e])
                    if q < 0 or q in seen or not g.walkable[q]:
                        continue
                    seen.add(q)
                    if polys[q].distance(p0) > radius[i]:
                        continue
                    joined = set(g.poly_adj[g.poly_start[q]:g.poly_start[q + 1]].tolist())
                    if any(a not in joined and polys[q].intersection(polys[a]).area > 1e-9
                           for a in want):
                        continue            # another floor over (or under) one taken
                    want.append(q)
                    queue.append(q)
                    if len(want) == 32:
                        break
        assert local[start[i]:start[i + 1]].tolist() == want, i
    with pytest.raises(navcore.QueryError, match="local_neighbourhood: nodes"):
        w.plugins.caller("navcore_local_neighbourhood")(w, g, points, nodes[:5], 1.0)
    with pytest.raises(navcore.QueryError, match="radius"):
        w.plugins.caller("navcore_local_neighbourhood")(w, g, points, nodes, -1.0)


def test_a_neighbourhood_leaves_out_the_floor_above():
    w, g = two_floors()
    lower = int(g.nearest_polys([(5.0, 0.2, 3.0)])[0][0])
    start, local = w.plugins.caller("navcore_local_neighbourhood")(
        w, g, np.array([[5.0, 3.0]]), np.array([lower], np.int32), 50.0)
    heights = [g.heights[g.poly_verts[g.poly_start[p]:g.poly_start[p + 1]]].max()
               for p in local]
    # the walk goes up the ramp, but stops where it would overlap the floor below
    assert local[0] == lower and max(heights) < 4.0 + 0.5
    over = [p for p in range(g.num_nodes) if polygons(g)[p].intersection(
        polygons(g)[lower]).area > 1e-9 and p != lower]
    assert over and not set(over) & set(local.tolist())


@exercises("navcore_move_along_surface")
def test_moves_on_a_layered_mesh_keep_to_their_floor_or_follow_the_ramp():
    w, g = two_floors()
    move = w.plugins.caller("navcore_move_along_surface")
    at = lambda p: int(g.nearest_polys([p])[0][0])
    upper, lower, ramp = at((5.0, 4.2, 3.0)), at((5.0, 0.2, 3.0)), at((15.0, 2.0, 8.0))
    start = np.array([[5.0, 3.0], [5.0, 3.0], [15.0, 8.0], [5.0, 3.0], [5.0, 3.0]])
    end = np.array([[15.0, 3.0], [15.0, 3.0], [5.0, 8.0], [4.0, 2.0], [5.0, 3.0]])
    nodes = np.array([upper, lower, ramp, -1, upper], np.int32)
    pts, out = move(w, g, start, nodes, end)
    polys = polygons(g)
    # off the upper floor's edge: it stops there; the one below walks on
    assert pts[0, 0] == pytest.approx(9.3, abs=0.05) and pts[0, 1] == pytest.approx(3.0)
    assert g.points_on(out[:1], pts[:1])[0, 1] == pytest.approx(4.2, abs=1e-6)
    np.testing.assert_array_equal(pts[1], end[1])
    assert g.points_on(out[1:2], pts[1:2])[0, 1] == pytest.approx(0.2, abs=1e-6)
    # up the ramp onto the upper floor
    np.testing.assert_array_equal(pts[2], end[2])
    assert g.points_on(out[2:3], pts[2:3])[0, 1] == pytest.approx(4.2, abs=1e-6)
    # no polygon: it stays; no move: it stays on its polygon
    np.testing.assert_array_equal(pts[3], start[3])
    assert out[3] == -1 and out[4] == upper
    for i in (0, 1, 2, 4):
        assert polys[out[i]].distance(shapely.Point(pts[i])) <= 1e-9
    # random moves: on their polygon, never farther from the end
    rng = np.random.default_rng(3)
    walkable = np.flatnonzero(g.walkable)
    n = rng.choice(walkable, 300).astype(np.int32)
    s = np.array([np.asarray(polys[p].representative_point().coords[0]) for p in n])
    e = s + rng.normal(0, 4.0, s.shape)
    pts, out = move(w, g, s, n, e)
    for i in range(300):
        assert polys[out[i]].distance(shapely.Point(pts[i])) <= 1e-9
        assert np.hypot(*(pts[i] - e[i])) <= np.hypot(*(s[i] - e[i])) + 1e-9
        # a floor is left only by its sides: up the ramp or down it, never
        # straight onto the floor over or under (heights there differ by 4)
        h0 = g.points_on(n[i:i + 1], s[i:i + 1])[0, 1]
        h1 = g.points_on(out[i:i + 1], pts[i:i + 1])[0, 1]
        ramp_step = np.hypot(*(pts[i] - s[i])) * 0.4 + 0.3
        assert abs(h1 - h0) <= ramp_step


def test_an_obstacle_dropped_on_a_tiled_level_renumbers_polygons_and_the_crowd_follows():
    # the rebuilt tiles number their polygons afresh: every agent is placed
    # again from its 3D point, the one under the box at its edge; the
    # others walk round it (through the gap it leaves north of it)
    w = navcore.World(deterministic=True)
    v, t = TWO_FLOORS
    g = w.add_graph("s", type="level", vertices=v, triangles=t, tile_size=16)
    crowd = w.add_crowd("c", graph="s", radius=0.3, max_speed=2.0)
    crowd.add([(13.0, 0.2, 2.8), (5.0, 4.2, 3.0), (22.0, 0.2, 2.0), (3.0, 0.2, 2.0)])
    crowd.set_goals([1, 2, 3], [(22.0, 0.2, 2.0), (3.0, 0.2, 2.5), (22.0, 0.2, 1.5)])
    for _ in range(5):
        w.tick(DT)
    before = g.poly_start.copy()
    w.update("s", add_obstacle={"box": [[12, -1, 0], [14, 2, 3.5]]}, obstacle_id="crate")
    w.tick(DT)
    assert not np.array_equal(g.poly_start, before)          # the mesh was rebuilt
    check = OnMesh(g)
    box = shapely.box(12, 0, 14, 3.5)
    for _ in range(300):
        w.tick(DT)
        pos = crowd.positions
        assert check.misses(pos) == []
        assert not shapely.contains_xy(box, pos[:, 0], pos[:, 2]).any()
        if crowd.arrived[1:].all():
            break
    assert crowd.arrived[1:].all(), crowd.state_names()
    # moved off the box: its disc clear of it
    x, _, z = crowd.positions[0]
    assert box.distance(shapely.Point(x, z)) >= 0.3 - 1e-6


def test_a_level_with_z_up_takes_and_gives_its_own_axes():
    v, t = TWO_FLOORS
    w = navcore.World(deterministic=True)
    g = w.add_graph("z", type="level", vertices=np.column_stack([v[:, 0], -v[:, 2], v[:, 1]]),
                    triangles=t, up="z")
    crowd = w.add_crowd("c", graph="z", radius=0.4)
    crowd.add([(5.0, -3.0, 4.2)], goals=[(2.0, -8.0, 0.2)])
    np.testing.assert_allclose(crowd.positions, [(5.0, -3.0, 4.2)], atol=1e-6)
    np.testing.assert_allclose(crowd.goals, [(2.0, -8.0, 0.2)], atol=1e-6)
    with pytest.raises(CrowdError, match="not on walkable ground"):
        crowd.add([(5.0, 4.2, -3.0)])                 # y up: nothing there
    check = OnMesh(g)
    heights = []

    def each(c):
        heights.append(c.positions[0, 2])
        assert check.misses(c.positions) == []

    walk(w, crowd, 300, each)
    assert crowd.arrived.all() and max(heights) > 4.0 and heights[-1] < 0.5
    assert np.hypot(*(crowd.positions[0, :2] - (2.0, -8.0))) <= 0.4 + 1e-9
