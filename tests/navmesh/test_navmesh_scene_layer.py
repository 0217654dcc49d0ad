"""Navmeshes in scenes: the scene layer's regions and nodes against
brute-force shapely, crowds' places, the picture (``node_at`` against
``locate``, obstacles dark), and the shipped courtyard scene, whose
infantry and carts walk two meshes of one place, each kept its own
radius from the walls.

Changes a scene makes to a mesh (block, doors, moving obstacles) are
queued with the navmesh's region/obstacle updates; here they are checked
as queued calls (a recording world); test_navmesh_scene_updates.py
applies them."""
import re
from pathlib import Path

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point, Polygon

import navcore
from navcore_navmesh.scene_layer import (MARGIN, NavMeshSceneLayer, SCENE_KEY,
                                         rasterise)
from navcore_scenes.render import AGENT, WALL, draw, picture

COURTYARD = Path(__file__).resolve().parents[2] / "scenes" / "courtyard.yaml"
OBSTACLES = [[(2, 2), (4, 2), (4, 4), (2, 4)], [(6, 1), (7, 1), (7, 7), (6, 7)],
             [(9, 5), (11, 6), (9.5, 7.5)]]


def _layer(**params):
    world = navcore.World(autoload=False)
    params = params or dict(bounds=(0, 0, 12, 8), obstacles=OBSTACLES)
    graph = world.add_graph("m", type="navmesh", **params)
    return NavMeshSceneLayer(world, "m", graph), graph


def _brute_nodes(graph, polygon):
    """Polygons whose intersection with ``polygon`` has area."""
    return [p for p in range(graph.num_polygons)
            if Polygon(graph.polygon_points(p)).intersection(polygon).area > 1e-12]


# -- regions and nodes -------------------------------------------------------------

@pytest.mark.nojit
def test_regions_are_rectangles_or_rings_and_must_fit():
    layer, _ = _layer()
    rect = layer.region([1, 1, 4, 2])
    assert rect == layer.region([[1, 1], [5, 1], [5, 3], [1, 3]])   # the same corners
    assert rect.polygon.equals(shapely.box(1, 1, 5, 3))
    assert layer.show(rect) == "[1, 1, 4, 2]"
    assert rect == layer.region([1.0, 1.0, 4.0, 2.0])        # compares by corners
    tri = layer.region([[0, 0], [3, 0], [0, 2.5]])
    assert tri.polygon.area == pytest.approx(3.75) and layer.show(tri) == "[[0, 0], [3, 0], [0, 2.5]]"
    for bad, says in [([1, 1, 0, 3], "width and height > 0"),
                      ([1, 1, 2, -1], "width and height > 0"), ([1, 1, 5], "must be a rectangle"),
                      ([[0, 0], [2, 2], [2, 0], [0, 2]], "simple polygon"),
                      ([[0, 0], [1, 1], [2, 2]], "simple polygon"),
                      ([1, 1, True, 3], "must be a rectangle"), ("hall", "must be a rectangle"),
                      ([1, 1, float("nan"), 3], "must be a rectangle"),
                      ([10, 1, 3, 2], "does not fit in graph 'm' (bounds [0, 0, 12, 8])"),
                      # corners written as a width and height: past the mesh
                      ([4, 4, 10, 6], "does not fit in graph 'm' (bounds [0, 0, 12, 8])")]:
        with pytest.raises(navcore.SceneError, match=re.escape(says)):
            layer.region(bad)
    assert layer.bounds() == (0.0, 0.0, 12.0, 8.0)


@pytest.mark.nojit
def test_nodes_in_agrees_with_brute_force_shapely():
    layer, graph = _layer()
    rng = np.random.default_rng(7)
    for _ in range(40):
        x0, y0 = rng.uniform(0, 10), rng.uniform(0, 6)
        x1, y1 = x0 + rng.uniform(0.1, 12 - x0), y0 + rng.uniform(0.1, 8 - y0)
        region = layer.region([x0, y0, x1 - x0, y1 - y0])
        got = layer.nodes_in(region)
        assert got.tolist() == _brute_nodes(graph, region.polygon)
        # a star-shaped ring: not convex
        c = rng.uniform([2, 2], [10, 6])
        angle = 2 * np.pi * (np.arange(7) + rng.uniform(0, 0.9, 7)) / 7
        radius = rng.uniform(0.3, 2.0, 7)
        ring = (c + np.column_stack((np.cos(angle), np.sin(angle))) * radius[:, None]).tolist()
        region = layer.region(ring)
        assert layer.nodes_in(region).tolist() == _brute_nodes(graph, region.polygon)
    # an obstacle holds no polygon; a region sharing only an edge with a
    # polygon does not hold it
    assert layer.nodes_in(layer.region([2.2, 2.2, 1.6, 1.6])).size == 0
    assert layer.nodes_in(layer.region([6.1, 1.1, 0.8, 5.8])).size == 0
    whole = layer.nodes_in(layer.region([0, 0, 12, 8]))
    assert whole.tolist() == list(range(graph.num_polygons))


@pytest.mark.nojit
def test_bounds_are_the_ground_so_meshes_of_one_place_line_up():
    thin, g0 = _layer(bounds=(0, 0, 12, 8), obstacles=OBSTACLES, agent_radius=0.25)
    wide, g1 = _layer(bounds=(0, 0, 12, 8), obstacles=OBSTACLES, agent_radius=1.0)
    assert thin.bounds() == wide.bounds() == (0.0, 0.0, 12.0, 8.0)
    assert g1.free_space.area < g0.free_space.area < g0.ground.area
    assert (thin.agent_radius(), wide.agent_radius()) == (0.25, 1.0)
    assert thin.describe() == f"{g0.num_polygons} polygons for radius 0.25"
    assert "within its agent radius 1 of one" in wide.extent()


@pytest.mark.nojit
def test_crowd_places_are_spread_over_the_region_on_usable_polygons():
    layer, graph = _layer()
    region = layer.region([0, 0, 8, 8])          # round the square, across the wall
    usable = np.ones(graph.num_nodes, dtype=bool)
    pts = layer.sample_points(region, 4000, np.random.default_rng(1), usable)
    assert pts.shape == (4000, 2)
    assert shapely.contains_xy(region.polygon.buffer(1e-9), pts[:, 0], pts[:, 1]).all()
    assert (graph.locate_many(pts) >= 0).all()              # on the mesh: not in obstacles
    assert len(np.unique(pts, axis=0)) == 4000               # places, not node positions
    # evenly by area: the share left of x = 2 is that strip's share of free area
    free = graph.free_space.intersection(region.polygon)
    strip = free.intersection(shapely.box(0, 0, 2, 8)).area / free.area
    assert np.mean(pts[:, 0] < 2) == pytest.approx(strip, abs=0.03)
    # only usable polygons: block the left ones
    left = layer.nodes_in(layer.region([0, 0, 1, 8]))
    usable[left] = False
    pts = layer.sample_points(region, 500, np.random.default_rng(2), usable)
    assert not np.isin(graph.locate_many(pts), left).any()
    usable[:] = False
    assert layer.sample_points(region, 5, np.random.default_rng(3), usable) is None


@pytest.mark.nojit
def test_bad_regions_in_a_scene_file_are_scene_errors_at_their_place(tmp_path):
    path = tmp_path / "yard.yaml"
    base = ("graphs: [{id: m, type: navmesh, bounds: [0, 0, 12, 8], agent_radius: 0.5,\n"
            "          obstacles: [[[6, 0], [7, 0], [7, 8], [6, 8]]]}]\n"
            "crowds:\n"
            "  - {id: c, count: 3, from: FROM, to: [8, 1, 3, 6]}\n")
    for value, says in [("[1, 1, 0, 3]", "4:29: 'from' of crowd 'c' must be a rectangle "
                                         "[x, y, width, height] with width and height > 0, got "
                                         "[1, 1, 0, 3]"),
                        ("[[0, 0], [20, 0], [0, 5]]", "4:29: 'from' of crowd 'c' [[0, 0], "
                                                      "[20, 0], [0, 5]] does not fit in graph "
                                                      "'m' (bounds [0, 0, 12, 8])"),
                        # inside the wall and the margin the radius keeps from it
                        ("[5.6, 2, 1.8, 1]", "4:29: 'from' of crowd 'c' [5.6, 2, 1.8, 1] holds "
                                             "no walkable polygon")]:
        path.write_text(base.replace("FROM", value))
        with pytest.raises(navcore.SceneError) as err:
            navcore.load_scene(path)
        assert str(err.value) == f"{path}:{says}"
    path.write_text(base.replace("FROM", "[[1, 1], [5, 1], [3, 7]]"))
    with navcore.load_scene(path) as sim:
        starts = sim.agents.pos
    assert shapely.contains_xy(Polygon([(1, 1), (5, 1), (3, 7)]), *starts.T).all()


# -- changes: what is queued, and what works with today's updates ------------------

class Recorder:
    """A world that records update calls (what the layer queues)."""

    def __init__(self):
        self.calls = []

    def update(self, graph_id, **params):
        self.calls.append((graph_id, params))


@pytest.mark.nojit
def test_changes_are_queued_as_region_and_obstacle_updates():
    layer, graph = _layer()
    layer.world = rec = Recorder()
    door = layer.region([4, 2, 2, 2])
    layer.set_walkable(door, False)
    layer.restore(door)
    layer.set_walkable(layer.region([8, 1, 1, 1]), True)
    assert layer.flush() == 3
    (g1, p1), (g2, p2), (g3, p3) = rec.calls
    assert g1 == g2 == g3 == "m"
    assert p1.keys() == {"region", "walkable"} and p1["walkable"] is False
    assert p1["region"].equals(shapely.box(4, 2, 6, 4))
    # an opened door is the ground as built: not the square obstacle beside it
    assert p2["walkable"] is True and p2["region"].equals(shapely.box(4, 2, 6, 4).difference(
        shapely.box(2, 2, 4, 4))) and p2["region"].area == pytest.approx(4.0)
    assert p3["walkable"] is True
    # moving obstacles: added where they arrive, removed where they leave,
    # nothing queued while they stay (or arrive and leave within a frame)
    rec.calls.clear()
    a = layer.box_region((1.06, 5.1, 1.0, 0.5))
    assert a == layer.region([1, 5, 1, 0.5])          # snapped to 0.25
    assert layer.region_box(a) == (1.0, 5.0, 1.0, 0.5)
    layer.cover(a, +1)
    assert layer.flush() == 1 and layer.flush() == 0
    (_, add), = rec.calls
    assert add["obstacle_id"] in layer.placed and add["add_obstacle"].equals(a.polygon)
    b = layer.box_region((1.5, 5.1, 1.0, 0.5))
    layer.cover(a, -1)
    layer.cover(b, +1)
    c = layer.box_region((9.0, 1.0, 1.0, 1.0))
    layer.cover(c, +1)
    layer.cover(c, -1)
    assert layer.flush() == 2
    (_, remove), (_, add2) = rec.calls[1:]
    assert remove == {"remove_obstacle": add["obstacle_id"]}
    assert add2["obstacle_id"] != add["obstacle_id"] and add2["add_obstacle"].equals(b.polygon)
    assert list(layer.placed) == [add2["obstacle_id"]]
    assert not layer.obstacle_nodes().any()


@pytest.mark.nojit
def test_finite_costs_weigh_the_polygons_of_a_region():
    world = navcore.World()
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, 12, 8), obstacles=OBSTACLES)
    layer = NavMeshSceneLayer(world, "m", graph)
    mud = layer.region([0, 0, 12, 8])
    before = world.find_path("m", (1, 1), (11, 7), algorithm="polygon_astar").cost
    layer.set_cost(mud, 3.0)
    world.tick()
    assert world.find_path("m", (1, 1), (11, 7), algorithm="polygon_astar").cost == \
        pytest.approx(3 * before)
    layer.set_cost(mud, 1.0)
    world.tick()
    assert world.find_path("m", (1, 1), (11, 7), algorithm="polygon_astar").cost == \
        pytest.approx(before)


@pytest.mark.nojit
def test_agents_step_out_of_blocked_polygons_and_stop_before_them():
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, 12, 8), obstacles=OBSTACLES)
    layer = NavMeshSceneLayer(world, "m", graph)
    here = (5.0, 5.0)
    node = graph.locate(here)
    world.update("m", nodes=[node], walkable=False)
    world.tick()
    out = layer.step_out(here, node)
    on = graph.locate(out)
    assert on >= 0 and graph.walkable[on]
    # the nearest walkable ground (brute force: the union of the walkable
    # polygons), a hair inside it
    ground = shapely.union_all([Polygon(graph.polygon_points(p))
                                for p in np.flatnonzero(graph.walkable)])
    assert Point(here).distance(Point(out)) == pytest.approx(
        ground.distance(Point(here)), abs=1e-5)
    assert layer.step_out((2.1, 2.1), -1) is not None           # carved away: still found
    world.update("m", nodes=np.arange(graph.num_nodes), walkable=False)
    world.tick()
    assert layer.step_out(here, node) is None
    world.update("m", nodes=np.arange(graph.num_nodes), walkable=True)
    world.update("m", nodes=[node], walkable=False)
    world.tick()
    inside = graph.positions[node]
    outside = np.array(out) + (np.array(out) - inside) * 1e-3
    assert graph.locate(outside) != node and graph.walkable[graph.locate(outside)]
    at = np.array([inside, outside, [2.5, 2.5], outside])
    now = np.array([outside, outside, [1.5, 2.5], inside])
    # into the blocked polygon; staying; into an obstacle (no polygon); out
    assert layer.entering_walls(at, now).tolist() == [True, False, True, False]


# -- pictures ----------------------------------------------------------------------

@pytest.mark.nojit
def test_rasterise_agrees_with_locate_at_every_pixel():
    _, graph = _layer(bounds=(0, 0, 12, 8), obstacles=OBSTACLES, agent_radius=0.2)
    for origin, scale, shape in [((0, 0), 16, (128, 192)), ((-1.27, 0.71), 7, (60, 97)),
                                 ((0, 0), 1, (8, 12))]:
        got = rasterise(graph.vertices, graph.poly_start, graph.poly_verts, origin, scale,
                        shape)
        h, w = shape
        xs = origin[0] + (np.arange(w) + 0.5) / scale
        ys = origin[1] + (np.arange(h) + 0.5) / scale
        centres = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
        assert got.dtype == np.int32 and got.shape == shape
        assert got.ravel().tolist() == graph.locate_index().locate_many(centres).tolist()   # exact: no snapping


YARD = """\
settings: {dt: 0.05, frames: 60, seed: 2}
graphs:
  - {id: foot, type: navmesh, space: yard, agent_radius: 0.25, bounds: [0, 0, 12, 8],
     obstacles: OBSTACLES}
  - {id: cart, type: navmesh, space: yard, agent_radius: 1.0, bounds: [0, 0, 12, 8],
     obstacles: OBSTACLES}
agents:
  - {id: walker, graph: foot, start: [1, 6.5], goal: [11, 1], speed: 2}
  - {id: wagon, graph: cart, start: [10.5, 1.5], goal: [8.5, 3.5], speed: 2}
"""


def _yard(tmp_path):
    path = tmp_path / "yard.yaml"
    path.write_text(YARD.replace("OBSTACLES", str([[list(p) for p in ring]
                                                    for ring in OBSTACLES])))
    return navcore.load_scene(path)


@pytest.mark.nojit
def test_the_picture_shows_polygons_obstacles_margins_and_both_sizes(tmp_path):
    with _yard(tmp_path) as sim:
        graph = sim.world.graph("foot")
        canvas = picture(sim, "foot", 10)
        assert canvas.rgb.shape == (80, 120, 3)
        # every pixel shows the polygon locate finds at its centre
        centres = canvas.pixel_centres().reshape(-1, 2)
        assert canvas.node_at.ravel().tolist() == graph.locate_index().locate_many(centres).tolist()   # exact: no snapping
        # known points: the pixel of a place shows the polygon holding it
        for x, y in [(1, 1), (11.2, 7.1), (5, 6.5), (8.3, 2.2)]:
            node = canvas.node_at[int(y * 10), int(x * 10)]
            assert node >= 0 and Polygon(graph.polygon_points(node)).covers(
                Point((int(x * 10) + 0.5) / 10, (int(y * 10) + 0.5) / 10))
        # obstacles dark and nodeless; the margin round them grey; floor coloured
        for x, y in [(3, 3), (6.5, 4), (9.8, 6)]:
            assert canvas.node_at[int(y * 10), int(x * 10)] == -1
            assert tuple(canvas.rgb[int(y * 10), int(x * 10)]) == WALL
        assert tuple(canvas.rgb[30, 41]) == MARGIN     # (4.15, 3.05): 0.15 from the square
        assert tuple(canvas.rgb[50, 20]) == tuple(canvas.colours[canvas.node_at[50, 20]])
        sim.step()
        img = np.asarray(draw(sim, "foot", scale=10))
    # both graphs' agents, each at its radius: the wagon 1.0 (10 px), the
    # walker 0.25 (2.5 px)
    walker, wagon = sim.agents.pos
    wx, wy = (walker * 10).astype(int)
    cx, cy = (wagon * 10).astype(int)
    colours = {tuple(c) for c in AGENT.values()}
    assert tuple(img[cy, cx]) in colours and tuple(img[cy, cx + 8]) in colours
    assert tuple(img[wy, wx]) in colours and tuple(img[wy, wx + 5]) not in colours


@pytest.mark.nojit
def test_borders_outline_the_hierarchy_on_a_navmesh(tmp_path):
    with _yard(tmp_path) as sim:
        plain = picture(sim, "foot", 10)
        bordered = picture(sim, "foot", 10, borders=True)
    assert bordered.outlined and (plain.node_at == bordered.node_at).all()


# -- the shipped courtyard -----------------------------------------------------------

def _courtyard_blocked(sim, gid):
    """``{frame: shapely geometry}``: what the courtyard's events have
    walled on graph ``gid`` from that frame on (blocked regions and the
    closed gate, as the scene file writes them), worked out here from the
    events, not asked of the scene layer."""
    def box(x, y, w, h):               # a rectangle region is [x, y, width, height]
        return shapely.box(x, y, x + w, y + h)

    spec = sim.scene.graph_spec(gid)
    doors = {d.name: box(*d.region) for d in spec.doors.values()}
    blocked, out = Polygon(), {0: Polygon()}
    for ev in sim.scene.events:
        if ev.graph != gid:
            continue
        what = ev.entry.map
        kind = next(k for k in ("block", "unblock", "open", "close") if k in what)
        value = what[kind]
        region = doors[value] if kind in ("open", "close") else (
            box(*value) if not isinstance(value[0], list) else Polygon(value))
        blocked = (blocked.union(region) if kind in ("block", "close")
                   else blocked.difference(region))
        out[max(ev.at, 1)] = blocked
    return out


def test_courtyard_agents_keep_their_radius_from_walls_and_crates_and_arrive():
    # its agents walk as points here, along the paths they are given
    # (recorded from follow), which must lie in each epoch's free space;
    # tests/scenes/test_scene_crowds.py walks the courtyard as crowds
    court = navcore.read_scene(COURTYARD)
    court.settings.avoidance = False
    with navcore.Simulation(court) as sim:
        agents = sim.agents
        graphs = {g: sim.world.graph(g) for g in ("infantry", "carts")}
        assert graphs["carts"].agent_radius == 1.2 and graphs["infantry"].agent_radius == 0.3
        walked = []
        follow = agents.follow

        def record(i, points):
            walked.append((sim.frame, i, np.array(points)))
            follow(i, points)

        agents.follow = record
        track, meshes = [], {g: {} for g in graphs}

        def on_frame(s):
            track.append(s.agents.pos.copy())
            for gid, graph in graphs.items():       # the mesh's own free space, per change
                if not meshes[gid] or meshes[gid][max(meshes[gid])][0] != graph.version:
                    meshes[gid][s.frame] = (graph.version, graph.free_space)

        summary = sim.run(on_frame=on_frame)
    ids = np.array(agents.graph_ids)
    assert {g: int((ids == g).sum()) for g in graphs} == {"infantry": 201, "carts": 27}
    track = np.array(track)                                   # frames x agents x 2
    frames = np.arange(1, len(track) + 1)
    walls = shapely.union_all([Polygon(r) for r in
                               sim.scene.graph_spec("infantry").params["obstacles"]])
    ground = shapely.box(0, 0, 100, 60).difference(walls)
    for gid, graph in graphs.items():
        mine = np.flatnonzero(ids == gid)
        r = graph.agent_radius
        changes = _courtyard_blocked(sim, gid)
        starts = sorted(changes)
        # the gate shuts, the spill, the crates, the gate opens, the road
        # and the yard are cleared
        assert starts == [0, 80, 100, 250, 500, 700, 1300]
        epoch = np.searchsorted(starts, frames, side="right") - 1
        prev = track[0, mine]
        for k, f0 in enumerate(starts):
            blocked = changes[f0]
            # the free space: the ground shrunk by the radius, minus what
            # the events walled, grown by the radius
            free = ground.buffer(-r, join_style="mitre").difference(
                blocked.buffer(r, join_style="mitre"))
            # the mesh covers exactly that from the frame of the change on
            mesh = meshes[gid][max(f for f in meshes[gid] if f <= max(f0, 1))][1]
            assert mesh.symmetric_difference(free).area < 1e-6, (gid, f0)
            near = free.buffer(1e-7)
            shapely.prepare(near)
            pts = track[epoch == k][:, mine]                  # the frames of this epoch
            inside = shapely.contains_xy(near, pts[..., 0], pts[..., 1])
            # nobody walks off the free space; only those a change buried
            # are off it, and they step out, never deeper
            before = np.concatenate([prev[None], pts[:-1]])
            off_now = shapely.distance(free, shapely.points(pts))
            off_before = shapely.distance(free, shapely.points(before))
            out = ~inside
            assert (off_before[out] > 0).all(), (gid, f0)
            assert (off_now[out] <= off_before[out] + 1e-9).all(), (gid, f0)
            # ... within a few seconds
            assert out.sum(axis=0).max() <= 60, (gid, f0)
            # those inside keep their radius from the walls and the crates
            # (and the closed gate) standing at the time
            edge = shapely.union(ground.boundary, blocked.boundary)
            dist = shapely.distance(edge, shapely.points(pts[inside]))
            assert dist.min() >= r - 1e-6, (gid, f0)
            prev = pts[-1]
            # every path an agent was given in this epoch lies in it (from
            # its first point: before that, an agent buried steps out)
            lines = [LineString(p[1:]) for f, i, p in walked
                     if ids[i] == gid and epoch[f - 1] == k and len(p) > 2]
            assert shapely.covers(near, lines).all(), (gid, f0)
    # carts are kept out of the postern and from between the pillars: no
    # cart ever stood in the east wall's gap or the colonnade's row
    carts = track[:, ids == "carts"].reshape(-1, 2)
    assert not ((carts[:, 0] > 89) & (carts[:, 0] < 93) & (carts[:, 1] > 8) & (carts[:, 1] < 52)).any()
    assert not ((carts[:, 1] > 15.5) & (carts[:, 1] < 17.7)
                & (carts[:, 0] > 24) & (carts[:, 0] < 67.2)).any()
    # what the changes did: the supply carts waited at the shut gate and
    # went round the crates by the gallery; the rest of the levy went
    # round to the postern; foot soldiers squeezed between the crates
    supply = [i for i, a in enumerate(agents.ids) if a.startswith("supply-")]
    levy = [i for i, a in enumerate(agents.ids) if a.startswith("levy-")]
    crates = (frames >= 250) & (frames < 1300)
    assert (agents.unreachable[supply] > 0).sum() >= 5
    assert agents.unreachable[[i for i in range(len(ids)) if i not in supply]].sum() == 0
    gallery = track[crates][:, supply]
    assert ((gallery[..., 1] < 14.9) & (gallery[..., 0] > 30) & (gallery[..., 0] < 60)).any(
        axis=0).sum() >= 8
    postern = track[80:][:, levy]
    assert ((postern[..., 0] > 90) & (postern[..., 0] < 92)).any(axis=0).sum() >= 20
    between = track[crates][:, ids == "infantry"]
    assert ((between[..., 0] > 46) & (between[..., 0] < 48)).any(axis=0).sum() >= 10
    assert agents.repaths[ids == "carts"].sum() > 0 and agents.repaths[ids == "infantry"].sum() > 0
    states = {a["id"]: a for a in summary["per_agent"]}
    for i, aid in enumerate(agents.ids):
        if agents.loop[i]:
            assert states[aid]["legs"] >= 3, aid                # the patrols go round
        else:
            assert states[aid]["state"] == "arrived", aid
            assert np.allclose(agents.pos[i], agents.goals[i][-1], atol=1e-9)
    assert summary["agents"]["stuck"] == 0
    assert sim.world.graph("carts").extensions[SCENE_KEY] is sim.layers["carts"]
