"""What a scene does to a navmesh, applied: ``block``/``unblock`` events,
doors and moving obstacles re-carve the mesh through the navmesh's own
region and obstacle updates (the scene layer, ``navcore_navmesh.scene_layer``).

Independent truth: the free space each graph should have, computed here
with shapely from the scene's own numbers (the ground as drawn, eroded by
the graph's agent radius, minus every blocked region and crate grown by
that radius, mitre joins as ``build`` and the updates use), the mesh's
polygons compared with it; areas compared with the parts of that shapely
geometry; the picture compared with the exact locate index at every
pixel; crowds' places and ``nodes_in`` with brute-force shapely; agents
checked against the free space of each frame.
"""
import numpy as np
import pytest
import shapely
from shapely.geometry import Polygon, box

import navcore
from navcore_navmesh.scene_layer import OBSTACLE_STEP
from navcore_scenes.canvas import COVERED, WALL
from navcore_scenes.render import picture
from reference import same_partition

MITRE = 5.0          # shapely's default mitre limit, which build and the updates use
BOUNDS = (0, 0, 20, 10)
# a wall across the yard at x 9..11 with a passage at y 4..6
WALLS = [box(9, 0, 11, 4), box(9, 6, 11, 10)]
GROUND = box(*BOUNDS).difference(shapely.union_all(WALLS))


def _rings(polys):
    return str([[list(c) for c in p.exterior.coords[:-1]] for p in polys])


#: settings whose frame budget never binds: a test that checks where an
#: agent stands at a given frame must not depend on how fast this machine
#: searches (with the 2 ms default, an agent's first path came a frame
#: later under NUMBA_DISABLE_JIT on a loaded machine)
NO_BUDGET = "{dt: 0.05, frames: 400, seed: 3, frame_budget_ms: 1000.0}"


def scene(body, radius=0.4, walls=WALLS, settings="{dt: 0.05, frames: 400, seed: 3}",
          extra="", merge=True):
    """A scene on one tiled navmesh ``m`` (tiles of 2: many of them) of the
    yard, with ``body`` (agents, events, ...) after its graph. Its agents
    walk as points (``avoidance: false``): these tests follow the scene
    layer's own rules for them (stepping out of a crate, holding at a new
    wall), and the paths exactly."""
    settings = settings.replace("{", "{avoidance: false, ", 1)
    return navcore.Simulation.from_text(
        f"settings: {settings}\n"
        f"graphs:\n"
        f"  - id: m\n"
        f"    type: navmesh\n"
        f"    agent_radius: {radius}\n"
        f"    tile_size: 2\n"
        f"    merge: {'true' if merge else 'false'}\n"
        f"    bounds: {list(BOUNDS)}\n"
        f"    obstacles: {_rings(walls) if walls else '[]'}\n"
        f"{extra}"
        f"{body}")


def grow(geom, r):
    return geom.buffer(r, join_style="mitre", mitre_limit=MITRE) if r > 0 else geom


def expected(radius, cut=(), ground=GROUND):
    """The free space: the ground eroded by the radius, minus every region
    in ``cut`` (blocked regions, crates: as the scene wrote them) grown by
    the radius."""
    free = ground.buffer(-radius, join_style="mitre", mitre_limit=MITRE)
    for c in cut:
        free = free.difference(grow(c, radius))
    return free


def live(graph):
    return np.flatnonzero(np.diff(graph.poly_start) > 0)


def mesh_polygons(graph):
    # polygons of any size (tiles are merged into convex polygons)
    return np.array([shapely.Polygon(graph.polygon_points(int(p))) for p in live(graph)],
                    dtype=object)


def assert_mesh_is(graph, free, tol=1e-7):
    """The mesh's polygons tile ``free``: no more, no less, no overlaps;
    every polygon that exists is walkable, retired slots are not."""
    polys = mesh_polygons(graph)
    assert shapely.area(polys).sum() == pytest.approx(free.area, rel=1e-9, abs=tol)
    assert shapely.union_all(polys).symmetric_difference(free).area < tol
    alive = np.diff(graph.poly_start) > 0
    assert graph.walkable[alive].all() and not graph.walkable[~alive].any()


def assert_areas_are_parts(world, graph, free):
    """The hierarchy's areas are the parts of ``free``: two polygons share
    an area exactly when one part of the shapely geometry holds both."""
    ids = live(graph)
    inside = shapely.point_on_surface(mesh_polygons(graph))
    parts = shapely.get_parts(free)
    part = np.full(ids.size, -1)
    for k, p in enumerate(parts):
        part[shapely.covers(p, inside)] = k
    assert (part >= 0).all()
    areas = world.areas(graph.graph_id)
    truth = np.full(graph.num_nodes, -1)
    truth[ids] = part
    assert same_partition(areas, truth, graph.walkable)
    return len(parts)


def positions(sim, frames, on_frame=None):
    """Play ``frames`` frames; ``(frames, agents, 2)`` positions after each."""
    out = []
    for _ in range(frames):
        sim.step()
        if on_frame is not None:
            on_frame(sim)
        out.append(sim.agents.pos.copy())
    return np.array(out)


def recording(world):
    """Wrap ``world.update`` to record its calls (they still apply)."""
    calls = []
    real = world.update

    def update(graph_id, **params):
        calls.append(params)
        return real(graph_id, **params)
    world.update = update
    return calls


# -- block and unblock ---------------------------------------------------------------

CRATE = Polygon([(4, 2), (6.5, 2.5), (6, 4.5), (4.5, 4)])       # not a rectangle


@pytest.mark.nojit
def test_a_block_carves_the_region_grown_by_each_graphs_own_radius():
    sim = navcore.Simulation.from_text(f"""
settings: {{dt: 0.05, frames: 40}}
graphs:
  - {{id: foot, type: navmesh, space: yard, agent_radius: 0.2, tile_size: 2,
     bounds: {list(BOUNDS)}, obstacles: {_rings(WALLS)}}}
  - {{id: cart, type: navmesh, space: yard, agent_radius: 1.0, tile_size: 2,
     bounds: {list(BOUNDS)}, obstacles: {_rings(WALLS)}}}
events:
  - {{at: 3, graph: foot, block: {_rings([CRATE])[1:-1]}}}
  - {{at: 3, graph: cart, block: {_rings([CRATE])[1:-1]}}}
  - {{at: 5, graph: cart, block: [14, 1, 2, 2]}}
""")
    calls = recording(sim.world)
    for _ in range(2):
        sim.step()
    for gid, r in (("foot", 0.2), ("cart", 1.0)):
        assert_mesh_is(sim.world.graph(gid), expected(r))
    for _ in range(3):
        sim.step()
    # the layer sends the region as the scene wrote it, in map units ...
    assert [c["region"].equals(CRATE) for c in calls[:2]] == [True, True]
    assert calls[2]["region"].equals(box(14, 1, 16, 3))
    assert all(c["walkable"] is False for c in calls) and len(calls) == 3
    # ... and each mesh grows it by its own radius
    foot, cart = sim.world.graph("foot"), sim.world.graph("cart")
    assert_mesh_is(foot, expected(0.2, [CRATE]))
    want = expected(1.0, [CRATE, box(14, 1, 16, 3)])
    assert_mesh_is(cart, want)
    # the check tells these apart: the crate not grown, or grown twice
    for wrong in (expected(1.0).difference(CRATE).difference(box(14, 1, 16, 3)),
                  expected(1.0, [grow(CRATE, 1.0), grow(box(14, 1, 16, 3), 1.0)])):
        assert wrong.symmetric_difference(want).area > 1.0
    # pictures know what was walled
    assert sim.layers["cart"].walled.equals(shapely.union(CRATE, box(14, 1, 16, 3)))


@pytest.mark.nojit
def test_block_then_unblock_gives_the_free_space_back():
    sim = scene("""
events:
  - {at: 2, block: [7, 3, 6, 4]}          # over the passage and the walls beside it
  - {at: 2, block: [[2, 1], [5, 1], [3, 4]]}
  - {at: 6, unblock: [7, 3, 6, 4]}
  - {at: 8, unblock: [1, 0.5, 5, 4.5]}
""")
    g = sim.world.graph("m")
    before = expected(0.4)
    assert_mesh_is(g, before)
    sim.step()
    assert assert_areas_are_parts(sim.world, g, before) == 1
    sim.step()
    blocked = expected(0.4, [box(7, 3, 13, 7), Polygon([(2, 1), (5, 1), (3, 4)])])
    assert_mesh_is(g, blocked)
    assert assert_areas_are_parts(sim.world, g, blocked) == 2       # the passage shut
    assert not sim.world.reachable("m", (2, 8), (18, 8))
    for _ in range(4):
        sim.step()
    half = expected(0.4, [Polygon([(2, 1), (5, 1), (3, 4)])])
    assert_mesh_is(g, half)                  # the walls beside the passage stay walls
    assert sim.world.reachable("m", (2, 8), (18, 8))
    for _ in range(2):
        sim.step()
    assert_mesh_is(g, before)
    assert sim.layers["m"].walled.is_empty
    assert_areas_are_parts(sim.world, g, before)


# -- doors -------------------------------------------------------------------------

# drawn wider than the passage, and flush with the wall's east side: the
# door as the ground holds it is a polygon plus two segments along the wall
DOOR = "{gate: {rect: [8.5, 3, 2.5, 4], open: false}, back: [16, 0, 1, 10]}"


@pytest.mark.nojit
def test_doors_closed_at_start_or_mid_run_split_the_areas_and_open_to_the_passage():
    sim = scene("""
events:
  - {at: 5, open: gate}
  - {at: 8, close: back}
  - {at: 11, close: gate}
  - {at: 14, open: back}
  - {at: 14, open: gate}
""", extra=f"    doors: {DOOR}\n")
    g = sim.world.graph("m")
    gate, back = box(8.5, 3, 11, 7), box(16, 0, 17, 10)
    sim.step()
    # closed at the start: shut from frame 1 on
    shut = expected(0.4, [gate])
    assert_mesh_is(g, shut)
    assert assert_areas_are_parts(sim.world, g, shut) == 2
    assert not sim.world.reachable("m", (2, 5), (18, 5))
    for _ in range(4):
        sim.step()
    # opened: the passage is back, the walls beside it (inside the door's
    # rectangle) are walls still: the free space is the original one
    assert_mesh_is(g, expected(0.4))
    assert assert_areas_are_parts(sim.world, g, expected(0.4)) == 1
    assert sim.world.reachable("m", (2, 5), (18, 5))
    for _ in range(3):
        sim.step()
    free = expected(0.4, [back])
    assert_mesh_is(g, free)
    assert assert_areas_are_parts(sim.world, g, free) == 2           # closed mid-run
    for _ in range(3):
        sim.step()
    free = expected(0.4, [back, gate])
    assert_mesh_is(g, free)
    assert assert_areas_are_parts(sim.world, g, free) == 3
    for _ in range(3):
        sim.step()
    assert_mesh_is(g, expected(0.4))
    log = [(e["frame"], e["what"], e["areas_before"], e["areas_after"]) for e in sim.log]
    # both doors of frame 14 count the areas before and after that frame
    assert log == [(5, "open gate", 2, 1), (8, "close back", 1, 2), (11, "close gate", 2, 3),
                   (14, "open back", 3, 1), (14, "open gate", 3, 1)]


@pytest.mark.nojit
def test_agents_wait_at_a_closed_door_and_go_through_when_it_opens():
    sim = scene("""
agents:
  - {id: a, start: [2, 5], goal: [18, 5], speed: 4}
  - {id: b, start: [18, 2], goal: [2, 8], speed: 4}
events:
  - {at: 41, open: gate}
""", extra=f"    doors: {DOOR}\n",
          # the gate opens the frame after the check below, and every
          # request is served in the frame it is made whatever the load:
          # with the gate opening in the 40th step and a 2 ms budget,
          # whether the agents had set off by the check depended on time
          settings="{dt: 0.05, frames: 400, seed: 3, frame_budget_ms: 1000.0}")
    track = positions(sim, 40)
    assert (sim.agents.state == 0).all()                 # waiting: no way through yet
    assert np.allclose(track[-1], [[2, 5], [18, 2]])
    gate = grow(box(8.5, 3, 11, 7), 0.4)
    track = positions(sim, 160)
    assert sim.agents.counts()["arrived"] == 2
    # through the passage, which the door no longer walls
    crossed = track[:, :, 0] > 10
    in_passage = track[:, :, 1][(track[:, :, 0] > 9) & (track[:, :, 0] < 11)]
    assert crossed[:, 0].any() and in_passage.size
    assert ((in_passage >= 4.4 - 1e-9) & (in_passage <= 5.6 + 1e-9)).all()
    assert shapely.intersects(gate, shapely.points(track.reshape(-1, 2))).any()


# -- moving obstacles ----------------------------------------------------------------

def _snapped(x, y, w, h):
    x0, y0 = round(x / OBSTACLE_STEP) * OBSTACLE_STEP, round(y / OBSTACLE_STEP) * OBSTACLE_STEP
    return box(x0, y0, x0 + w, y0 + h)


@pytest.mark.nojit
def test_moving_obstacles_are_added_removed_and_added_again_cleanly():
    # a crate that bounces along the yard and one that stands still
    sim = scene("""
obstacles:
  - {id: sled, rect: [1, 7.5, 2, 1.5], velocity: [40, 0]}
  - {id: bale, rect: [14, 1, 1, 1]}
""")
    g, lay = sim.world.graph("m"), sim.layers["m"]
    sim.step()          # both placed (the sled where it is after its first move)
    calls = recording(sim.world)
    where = [_snapped(*sim.obstacles.pos[0], 2, 1.5).bounds]
    for frame in range(2, 32):
        sim.step()
        boxes = [_snapped(*sim.obstacles.pos[i], *sim.obstacles.size[i]) for i in range(2)]
        # the graph has exactly the layer's obstacles, where the boxes are now
        assert set(g.tiles.obstacles) == set(lay.placed)
        held = sorted(shapely.normalize(o.polygon).wkt for o in g.tiles.obstacles.values())
        assert held == sorted(shapely.normalize(b).wkt for b in boxes)
        assert_mesh_is(g, expected(0.4, boxes))
        where.append(boxes[0].bounds)
    # 2 units a frame: the sled bounced off both ends and came back over
    # the places it had left, each time under a new id
    moves = sum(a != b for a, b in zip(where, where[1:]))
    readded = sum(b in where[:k] for k, (a, b) in enumerate(zip(where, where[1:]), 1)
                  if a != b)
    assert moves >= 25 and readded >= 10
    adds = [c for c in calls if "add_obstacle" in c]
    removes = [c for c in calls if "remove_obstacle" in c]
    assert len(adds) == len(removes) == moves
    assert len({c["obstacle_id"] for c in adds}) == len(adds)     # fresh ids
    assert all(c["add_obstacle"].area == pytest.approx(3.0) for c in adds)
    # the bale went in once, before this recording, and stays
    bale = [o for o in g.tiles.obstacles.values() if o.polygon.equals(box(14, 1, 15, 2))]
    assert len(bale) == 1 and bale[0].id not in {c["obstacle_id"] for c in adds}


@pytest.mark.nojit
def test_an_obstacle_that_arrives_and_leaves_in_one_frame_sends_nothing():
    sim = scene("""
obstacles:
  - {id: snail, rect: [2, 2, 1, 1], velocity: [1, 0]}
""")
    g, lay = sim.world.graph("m"), sim.layers["m"]
    sim.step()                                     # placed
    calls = recording(sim.world)
    version = g.version
    here = lay.box_region((12.0, 6.0, 1.0, 1.0))
    lay.cover(here, +1)
    lay.cover(here, -1)
    assert lay.flush() == 0 and sim.world.pending_updates("m") == 0
    # the snail moves 0.05 a frame: a new place (0.25 apart) every 5 frames
    for _ in range(20):
        sim.step()
    assert len(calls) == 2 * 4 and g.version == version + 4
    assert [("add_obstacle" in c, "remove_obstacle" in c) for c in calls] == \
        [(False, True), (True, False)] * 4
    assert_mesh_is(g, expected(0.4, [_snapped(*sim.obstacles.pos[0], 1, 1)]))


# -- after re-carving: nodes, places, pictures ----------------------------------------

@pytest.mark.nojit
def test_nodes_places_and_the_picture_follow_the_new_polygons():
    sim = scene("""
obstacles:
  - {id: cart, rect: [1, 1, 2, 1], velocity: [20, 0]}
events:
  - {at: 2, block: [[13, 6], [16, 6.5], [14, 8.5]]}
  - {at: 3, close: gate}
  - {at: 6, block: [2, 6, 3, 2]}
  - {at: 8, unblock: [2, 6, 3, 2]}
""", extra="    doors: {gate: [8.5, 3, 2.5, 4]}\n")
    g, lay = sim.world.graph("m"), sim.layers["m"]
    for _ in range(10):
        sim.step()
    alive = np.diff(g.poly_start) > 0
    assert (~alive).sum() > 10                     # slots retired by re-carving
    cart = _snapped(*sim.obstacles.pos[0], 2, 1)
    tri = Polygon([(13, 6), (16, 6.5), (14, 8.5)])
    free = expected(0.4, [cart, tri, box(8.5, 3, 11, 7)])
    assert_mesh_is(g, free)
    # nodes_in: the live polygons whose inside overlaps the region
    rng = np.random.default_rng(5)
    for _ in range(15):
        x0, y0 = rng.uniform(0, 17), rng.uniform(0, 8)
        region = lay.region([x0, y0, rng.uniform(0.5, 3), rng.uniform(0.5, 2)])
        brute = [int(p) for p in live(g)
                 if Polygon(g.polygon_points(int(p))).intersection(region.polygon).area > 1e-12]
        assert lay.nodes_in(region).tolist() == brute
    # crowds' places: in the region, on the mesh as it is now
    region = lay.region([0, 0, 8, 10])
    pts = lay.sample_points(region, 2000, np.random.default_rng(1), g.walkable)
    assert shapely.covers(region.polygon.buffer(1e-9), shapely.points(pts)).all()
    assert shapely.covers(free.buffer(1e-9), shapely.points(pts)).all()
    assert (g.locate_index().locate_many(pts) >= 0).all()
    share = free.intersection(box(0, 0, 4, 10)).area / free.intersection(region.polygon).area
    assert np.mean(pts[:, 0] < 4) == pytest.approx(share, abs=0.04)
    # the picture: every pixel shows the polygon the exact index finds at
    # its centre; the crate in the obstacle colour, the door's ground dark
    canvas = picture(sim, "m", 8)
    centres = canvas.pixel_centres().reshape(-1, 2)
    assert canvas.node_at.ravel().tolist() == g.locate_index().locate_many(centres).tolist()
    xy = canvas.pixel_centres()
    in_cart = shapely.contains_xy(cart, xy[..., 0], xy[..., 1])
    assert in_cart.sum() >= 100 and (canvas.rgb[in_cart] == COVERED).all()
    walled = shapely.contains_xy(shapely.union(tri, box(8.5, 3, 11, 7)).intersection(GROUND),
                                 xy[..., 0], xy[..., 1])
    assert walled.sum() >= 100 and (canvas.rgb[walled] == WALL).all()
    assert not (canvas.rgb == COVERED).all(axis=-1)[~in_cart].any()
    # the unblocked rectangle is floor again: coloured polygons
    floor = shapely.contains_xy(expected(0.4).intersection(box(2, 6, 5, 8)),
                                xy[..., 0], xy[..., 1])
    assert (canvas.node_at[floor] >= 0).all()


# -- agents ---------------------------------------------------------------------------

def _off(free, pts):
    """Distance of each point from the free space (0 inside it)."""
    return shapely.distance(free, shapely.points(pts))


@pytest.mark.nojit
def test_an_agent_under_a_dropped_crate_steps_out_and_goes_on():
    # a walks along y = 5 at 2 units a second (0.1 a frame): at the start
    # of frame 30 it stands at x = 4.9, and the crate lands on it there
    sim = scene("""
agents:
  - {id: a, start: [2, 5], goal: [18, 5], speed: 2}
  - {id: b, start: [2.4, 8.8], goal: [18, 8.8], speed: 2}
events:
  - {at: 30, block: [4, 4, 2, 2]}
  - {at: 30, block: [5.5, 7.5, 1.5, 1.5]}     # just ahead of b, within its radius
""", walls=[], settings=NO_BUDGET)
    track = positions(sim, 29)
    assert sim.agents.pos == pytest.approx(np.array([[4.9, 5.0], [5.3, 8.8]]))
    track = np.concatenate([track, positions(sim, 300)])
    free = expected(0.4, [box(4, 4, 6, 6), box(5.5, 7.5, 7, 9)], ground=box(*BOUNDS))
    # from where they stood when the crates fell (after frame 29) on
    a, b = _off(free, track[28:, 0]), _off(free, track[28:, 1])
    assert a[0] > 0.5                              # under the crate
    # a steps out: never deeper, out within a second, and stays out
    assert (np.diff(a) <= 1e-9).all()
    out = int(np.argmax(a == 0))
    assert 0 < out <= 20 and (a[out:] <= 1e-9).all()
    # b, within its radius of the new crate, walks out of it and round it
    assert b[0] > 0 and (np.diff(b) <= 1e-9).all() and (b[20:] <= 1e-9).all()
    assert sim.agents.counts()["arrived"] == 2
    assert np.allclose(sim.agents.pos, [[18, 5], [18, 8.8]])


@pytest.mark.nojit
def test_agents_whose_path_is_cut_plan_again_and_arrive_without_walking_in():
    # a long crate across the yard while a crowd crosses it; searches are
    # served a few a frame (a tiny budget), so many walk on their old path
    # for a while before the new one comes: none may walk into the crate
    sim = scene("""
crowds:
  - {id: c, count: 30, from: [1, 1, 5, 8], to: [14, 1, 5, 8], speed: 3}
events:
  - {at: 40, block: [9.5, 0, 1, 7]}
""", walls=[], settings="{dt: 0.05, frames: 400, seed: 3, frame_budget_ms: 0.02}",
                radius=1.0)
    ground = box(*BOUNDS)
    track = positions(sim, 39)
    track = np.concatenate([track, positions(sim, 300)])
    free = expected(1.0, [box(9.5, 0, 10.5, 7)], ground=ground)
    before = expected(1.0, ground=ground)
    assert (_off(before, track[:39].reshape(-1, 2)) <= 1e-9).all()
    # from where they stood when it fell (row 0: after frame 39) on
    off = _off(free, track[38:].reshape(-1, 2)).reshape(-1, track.shape[1])
    # those under the crate (or within their radius of it) when it fell
    # step out without going deeper; nobody else is ever off the free space
    under = off[0] > 1e-9
    assert 0 < under.sum() < 30
    assert (np.diff(off[:, under], axis=0) <= 1e-9).all()
    assert (off[:, ~under] <= 1e-9).all()
    # and once out (when their new path comes: a few a frame), stay out
    out = np.argmax(off <= 1e-9, axis=0)
    assert (off[-1] <= 1e-9).all()
    assert all((off[k:, i] <= 1e-9).all() for i, k in enumerate(out))
    summary = sim.run(0)
    assert summary["agents"]["arrived"] == 30
    assert summary["repaths"] > 0 and summary["agents"]["stuck"] == 0


@pytest.mark.nojit
def test_an_agent_shut_in_a_door_with_no_way_on_steps_out_and_waits_beside_it():
    # a and b walk through the passage at 2 units a second; the gate
    # shuts when a stands in it (x = 9.5 at the start of frame 80, nearer
    # its west side) and b 0.2 in front of the door's rectangle: within
    # its radius of it
    sim = scene("""
agents:
  - {id: a, start: [1.6, 5], goal: [18, 5], speed: 2}
  - {id: b, start: [0.4, 5], goal: [18, 5], speed: 2}
events:
  - {at: 80, close: gate}
  - {at: 200, open: gate}
""", extra="    doors: {gate: [8.5, 3, 2.5, 4]}\n", settings=NO_BUDGET)
    track = positions(sim, 79)
    assert sim.agents.pos == pytest.approx(np.array([[9.5, 5.0], [8.3, 5.0]]))
    track = np.concatenate([track, positions(sim, 120)])
    free = expected(0.4, [box(8.5, 3, 11, 7)])
    off = _off(free, track[78:].reshape(-1, 2)).reshape(-1, 2)      # from frame 79 on
    assert off[0, 0] > 1.0 and off[0, 1] == pytest.approx(0.2)
    # both have no way on (the passage is shut): they step out of the
    # door, never deeper, and wait beside it in the free space
    assert (np.diff(off, axis=0) <= 1e-9).all()
    assert (off[40:] <= 1e-9).all()
    assert (sim.agents.state == 0).all()                         # waiting
    assert (sim.agents.unreachable > 0).all()
    # the gate opens: through it, home
    positions(sim, 200)
    assert sim.agents.counts()["arrived"] == 2
    assert sim.agents.pos == pytest.approx(np.array([[18, 5], [18, 5]]))


@pytest.mark.nojit
def test_an_agent_that_asked_on_the_move_joins_its_new_path_where_it_starts():
    # a path on a navmesh is corners, not a point per polygon: an agent
    # that walked on since it asked (here over several small polygons)
    # must not take the polygon it now stands in as a place on the path
    sim = scene("""
agents:
  - {id: a, start: [2, 5], goal: [18, 5.5], speed: 40}
""", walls=[], merge=False,                       # small triangles: many polygons a path crosses
        # served by a node budget: the next frame answers the request
        # however loaded the machine is
        settings="{dt: 0.05, frames: 400, seed: 3, deterministic: true}")
    for _ in range(2):
        sim.step()
    agents, g = sim.agents, sim.world.graph("m")
    asked = agents.pos[0].copy()
    agents._request(0, keep_walking=True)        # as after a re-plan it had left
    agents.move(0.05)                            # the rest of that frame
    h = agents.handles[0]
    walked = []
    follow = agents.follow
    agents.follow = lambda i, p: (walked.append(np.array(p)), follow(i, p))
    sim.step()
    r = h.result()
    here = g.node_of(tuple(sim.agents.pos[0]) if not walked else tuple(walked[0][0]))
    k = np.flatnonzero(r.nodes == here)
    assert r.points.tolist() == [asked.tolist(), [18, 5.5]]
    assert k.size and k[0] >= len(r.points)      # the case: nodes[k] is no point's
    # it walks back to where it asked, then the path
    assert walked[0][1:].tolist() == [asked.tolist(), asked.tolist(), [18, 5.5]]
    positions(sim, 20)
    assert sim.agents.counts()["arrived"] == 1
    assert sim.agents.pos[0] == pytest.approx([18, 5.5])


# -- cost --------------------------------------------------------------------------------

def _expected_costs(graph, mud):
    """Brute force: each move between polygons costs the distance between
    their centroids, times the value of the last mud region (in ``mud``,
    in order) that overlaps either polygon."""
    csr = graph.csr
    src = np.repeat(np.arange(graph.num_nodes), np.diff(csr.offsets))
    dst = csr.targets
    pos = graph.positions
    want = np.hypot(*(pos[src] - pos[dst]).T)
    for region, value in mud:
        hit = [int(p) for p in live(graph)
               if Polygon(graph.polygon_points(int(p))).intersection(region).area > 1e-12]
        inside = np.isin(src, hit) | np.isin(dst, hit)
        want[inside] = value * np.hypot(*(pos[src[inside]] - pos[dst[inside]]).T)
    return want


@pytest.mark.nojit
def test_mud_stays_on_the_polygons_that_re_carving_makes():
    # a slow sled (a new place every 5 frames) and a block re-carve the mud
    sim = scene("""
obstacles:
  - {id: sled, rect: [12, 1, 1, 1], velocity: [0, 1]}
events:
  - {at: 2, cost: {rect: [11, 0, 9, 10], value: 3}}
  - {at: 4, cost: {rect: [14, 3, 2, 2], value: 1.5}}
  - {at: 6, block: [14.5, 6, 1, 1]}
  - {at: 9, cost: {rect: [14, 7.5, 4, 2.5], value: 2}}
  - {at: 11, unblock: [14.5, 6, 1, 1]}
""")
    g = sim.world.graph("m")
    calls = recording(sim.world)
    mud = []
    checked = after_carving = 0
    carved_before = False
    for frame in range(1, 26):
        calls.clear()
        sim.step()
        mud = [(box(11, 0, 20, 10), 3.0), (box(14, 3, 16, 5), 1.5),
               (box(14, 7.5, 18, 10), 2.0)][:(frame >= 2) + (frame >= 4) + (frame >= 9)]
        carved = any(k in c for c in calls for k in ("region", "add_obstacle"))
        if not carved and frame >= 2:
            # the polygons re-carving made in the frame before have the
            # mud of their place (their ids are known after that tick)
            assert g.csr.cost == pytest.approx(_expected_costs(g, mud), rel=1e-9), frame
            checked += 1
            after_carving += carved_before
        carved_before = carved
    assert checked >= 12 and after_carving >= 4
    assert not np.allclose(_expected_costs(g, mud), _expected_costs(g, []))
