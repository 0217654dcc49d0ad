"""Scene agents that walk as crowds (grids and 2D navmeshes, unless the
scene says ``avoidance: false``): they keep apart (checked pair by pair,
brute force), stay on open cells and off the walls drawn (shapely, not
the mesh), keep a scene's rules (doors, patrols, goals and orders at
frames, exits), and their summary counts come from what they did."""
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial import cKDTree
from shapely.geometry import Point, Polygon, box
from shapely.ops import unary_union

import navcore
from crowdkit import worst_overlap as kit_overlap
from navcore_scenes.states import ARRIVED, MOVING, WAITING
from navcore_scenes.summary import format_summary, summarize
from navcore_scenes.walkers import PACKING

#: overlap allowed between two agents' discs, as the crowd promises
OVERLAP = 1e-3


def _sim(text, **kw):
    return navcore.Simulation.from_text(text, "s.yaml", world=navcore.World(**kw))


def worst_overlap(sim, graphs=None, walking=True) -> float:
    """The largest overlap of two discs of agents on one graph (brute
    force over every pair): of the walkers, or of every agent on the map
    (``walking=False``)."""
    a = sim.agents
    on = a.walks if walking else np.ones(len(a.ids), bool)
    worst = 0.0
    for g in set(a.graph_ids) if graphs is None else graphs:
        rows = np.flatnonzero(on & ~a.gone & (np.asarray(a.graph_ids) == g))
        worst = max(worst, kit_overlap(a.pos[rows, :2], a.radius[rows]))
    return worst


def off_cells(sim, graph_id) -> np.ndarray:
    """Walkers of a grid graph standing on a blocked cell (or off it)."""
    a, g = sim.agents, sim.world.graph(graph_id)
    rows = np.flatnonzero(a.walks & ~a.gone & (np.asarray(a.graph_ids) == graph_id))
    x, y = np.floor(a.pos[rows, 0]).astype(int), np.floor(a.pos[rows, 1]).astype(int)
    inside = (x >= 0) & (x < g.width) & (y >= 0) & (y < g.height)
    ok = inside.copy()
    ok[inside] = g.walkable[y[inside] * g.width + x[inside]]
    return rows[~ok]


CROSSING = """
settings: {dt: 0.1, seed: 2, deterministic: true}
graphs:
  - id: hall
    type: grid
    rows: ["..........#..........",
           "..........#..........",
           ".....................",
           ".....................",
           "..........#..........",
           "..........#.........."]
    doors: {gate: [10, 2, 1, 2]}
crowds:
  - {id: red, count: 20, from: [0, 0, 6, 6], to: [15, 0, 6, 6], speed: [2, 3], radius: 0.3}
  - {id: blue, count: 20, from: [15, 0, 6, 6], to: [0, 0, 6, 6], speed: [2, 3], radius: 0.3}
"""


def test_two_crowds_cross_a_narrow_gate_apart_and_on_open_cells():
    sim = _sim(CROSSING, deterministic=True)
    a = sim.agents
    assert a.walks.all() and (a.radius == 0.3).all()
    assert worst_overlap(sim) <= OVERLAP            # they start apart
    worst = 0.0
    for _ in range(40):
        sim.run(10)
        worst = max(worst, worst_overlap(sim))
        assert off_cells(sim, "hall").size == 0
        if (a.state == ARRIVED).all():
            break
    assert worst <= OVERLAP
    assert (a.state == ARRIVED).all()
    # each walked at least as far as the straight line to where it stands now
    start = _sim(CROSSING, deterministic=True).agents.pos
    assert (a.travelled >= np.hypot(*(a.pos - start).T) - 1e-9).all()


def test_the_same_scene_walked_as_points_overlaps():
    # the control: without avoidance the crossing crowds overlap in the gate
    sim = _sim(CROSSING.replace("deterministic: true}", "deterministic: true, "
                                "avoidance: false}"), deterministic=True)
    assert not sim.agents.walks.any()
    worst = 0.0
    for _ in range(20):
        sim.run(5)
        worst = max(worst, worst_overlap(sim, walking=False))
    assert worst > 0.3


WALLS = [[[8, 0], [10, 0], [10, 5], [8, 5]], [[8, 7], [10, 7], [10, 12], [8, 12]],
         [[14, 3], [16, 3], [16, 9], [14, 9]]]
YARD = f"""
settings: {{dt: 0.05, seed: 1}}
graphs:
  - id: yard
    type: navmesh
    bounds: [0, 0, 24, 12]
    agent_radius: 0.3
    obstacles: {WALLS}
crowds:
  - {{id: east, count: 25, from: [0, 0, 6, 12], to: [18, 0, 6, 12], speed: [2, 3]}}
  - {{id: west, count: 25, from: [18, 0, 6, 12], to: [0, 0, 6, 12], speed: [2, 3]}}
"""


def test_crowds_on_a_navmesh_keep_apart_and_off_the_walls_drawn():
    sim = _sim(YARD)
    a = sim.agents
    assert a.walks.all() and (a.radius == 0.3).all()     # the mesh's agent radius
    walls = [Polygon(w) for w in WALLS]
    bad, nearest = [], np.inf
    for _ in range(60):
        sim.run(10)
        bad += overlaps_away_from_walls(sim)          # a press at a gap may hold a pair
        nearest = min(nearest, min(w.distance(Point(*p)) for w in walls for p in a.pos))
        if (a.state == ARRIVED).all():
            break
    assert not bad, bad[:5]
    assert nearest >= 0.3 - 1e-6                          # no disc in a wall
    assert (a.state == ARRIVED).mean() >= 0.9


def test_a_door_shuts_the_walker_waits_it_opens_the_walker_arrives():
    sim = _sim("""
settings: {dt: 0.1}
graphs:
  - id: keep
    type: grid
    rows: ["....#....", ".........", "....#...."]
    doors: {gate: [4, 1, 1, 1]}
agents:
  - {id: guard, start: [0, 1], goal: [8, 1], speed: 1}
events:
  - {at: 5, close: gate}
  - {at: 60, open: gate}
""")
    sim.run(40)
    a = sim.agents
    assert a.walks[0] and a.state[0] == WAITING            # no way on: it waits
    assert a.pos[0, 0] < 4.0 - 0.35 + 1e-9                 # before the shut door
    summary = sim.run(200)
    assert summary["agents"]["arrived"] == 1
    assert summary["unreachable"] >= 1 and summary["repaths"] >= 1
    assert np.hypot(*(a.pos[0] - [8.5, 1.5])) <= a.radius[0]
    # at least the way it had to walk: out from (0.5, 1.5) to the goal
    assert summary["path_length"]["total"] >= 8.0 - a.radius[0]


def test_a_walker_patrols_its_waypoints():
    sim = _sim("""
settings: {dt: 0.1}
graphs: [{id: hall, type: grid, rows: ["..........", ".........."]}]
agents:
  - {id: p, start: [0, 0], waypoints: [[9, 0], [0, 0]], loop: true, speed: 3}
""")
    summary = sim.run(300)
    # legs of 9 cells at 3 a second: 3 s each and a little for turning and
    # asking; 30 s of game time hold 7 to 10 of them
    assert 7 <= summary["legs_completed"] <= 10
    assert summary["agents"]["patrolling"] == 1 and summary["agents"]["arrived"] == 0
    assert sim.agents.state[0] in (MOVING, WAITING)


ORDER = """
settings: {dt: 0.1, seed: 3, deterministic: true}
graphs: [{id: field, type: grid, rows: %s}]
crowds:
  - {id: squad, count: 24, from: [0, 0, 8, 12], goal: [3, 6], speed: [2.5, 3], radius: 0.35}
  - {id: guards, count: 6, from: [24, 0, 6, 12], goal: [27, 6], speed: 2, radius: 0.35}
events:
  - {at: 30, goal: {crowd: [squad, guards], to: [20, 6]}}
"""


def test_an_order_at_a_frame_sends_groups_to_one_point_where_they_settle_round_it():
    sim = _sim(ORDER % (["." * 30] * 12), deterministic=True)
    summary = sim.run(400)
    a = sim.agents
    assert summary["events"][0]["what"] == "goal of squad, guards -> [20, 6]"
    assert (a.state == ARRIVED).all(), summary["agents"]
    assert all(g == [(20, 6)] for g in a.goals)
    # round the point (the cell's centre), packed: within the disc that
    # thirty discs of 0.35 fill at PACKING, and a diameter more
    centre = np.array([20.5, 6.5])
    reach = np.sqrt(30 * 0.35 ** 2 / PACKING) + 4 * 0.35
    assert (np.hypot(*(a.pos - centre).T) <= reach).all()
    assert worst_overlap(sim) <= OVERLAP
    c = summary["crowds"]["squad"]
    assert c["arrived"] == 24 and c["all_arrived_s"] == pytest.approx(
        a.arrived_at[:24].max() * 0.1)


def test_members_leave_the_map_in_their_exit_region_and_the_summary_says_when():
    sim = _sim("""
settings: {dt: 0.1, seed: 1}
graphs: [{id: hall, type: grid, rows: [".............", ".............", "............."]}]
crowds:
  - {id: crew, count: 9, from: [0, 0, 4, 3], goal: [12, 1], leave: [10, 0, 3, 3],
     speed: 2, radius: 0.3}
""")
    frames = []
    for _ in range(100):
        sim.step()
        frames.append(sim.agents.gone.copy())
        if sim.agents.gone.all():
            break
    a = sim.agents
    assert a.gone.all() and (a.state == ARRIVED).all()
    # each left in the frame it first stood at x >= 10
    first = np.argmax(np.array(frames), axis=0) + 1
    assert (a.arrived_at == first).all()
    assert (a.pos[:, 0] >= 10).all() and (a.pos[:, 0] < 10 + 2 * 0.1 + 0.3).all()
    crowd = summarize(sim, 0.0)["crowds"]["crew"]
    assert crowd["left"] == 9 and crowd["all_arrived_s"] == pytest.approx(first.max() * 0.1)
    assert sim.world.crowd(("scene", "hall")).ids.size == 0     # out of the crowd too


def test_walkers_start_apart_in_their_region_and_a_full_region_says_how_many_fit():
    text = """
settings: {seed: 4}
graphs: [{id: f, type: grid, rows: ["#.........", "..........", ".........."]}]
crowds: [{id: c, count: %d, from: [0, 0, 3, 3], to: [7, 0, 3, 3], radius: 0.3}]
"""
    sim = _sim(text % 8)
    p = sim.agents.pos
    assert ((p[:, 0] > 0) & (p[:, 0] < 3) & (p[:, 1] > 0) & (p[:, 1] < 3)).all()
    assert worst_overlap(sim) <= 0.0
    with pytest.raises(navcore.SceneError) as info:
        _sim(text % 9)
    assert str(info.value) == ("s.yaml:4:34: 'from' of crowd 'c' [0, 0, 3, 3] has room for "
                               "8 of its 9 agents (radius 0.3) without overlapping; give it a "
                               "larger region, or fewer or smaller agents")


def _goals(sim, crowd):
    a = sim.agents
    return np.array([a.goals[i][-1] for i in sim.crowds[crowd]], dtype=np.float64)


def test_walkers_goals_lie_apart_and_a_goal_region_too_small_says_how_many_fit():
    # nine goals drawn on their own from a region of nine cells almost
    # surely share one; walkers get one cell each (goals on cell centres)
    text = """
settings: {seed: 4}
graphs: [{id: f, type: grid, rows: ["..........", "..........", ".........."]}]
crowds: [{id: c, count: %d, from: [0, 0, 4, 3], to: [7, 0, 3, 3], radius: %s%s}]
"""
    sim = _sim(text % (9, 0.3, ""))
    goals = _goals(sim, "c")
    assert kit_overlap(goals, sim.agents.radius) == 0.0           # brute force, every pair
    assert sorted(map(tuple, goals.tolist())) == [(x + 0.5, y + 0.5) for x in (7, 8, 9)
                                                  for y in (0, 1, 2)]
    # as points (no discs) their goals are drawn as before: some share a cell
    points = _sim(text % (9, 0.3, ", avoidance: false"))
    assert len(set(map(tuple, _goals(points, "c").tolist()))) < 9
    # a tenth has no cell of its own left
    with pytest.raises(navcore.SceneError) as info:
        _sim(text % (10, 0.3, ""))
    assert str(info.value) == ("s.yaml:4:53: 'to' of crowd 'c' [7, 0, 3, 3] has room for the "
                               "goals of 9 of its 10 agents (radius 0.3) apart; give it a larger "
                               "region, or fewer or smaller agents")


def test_walkers_goals_on_a_navmesh_lie_apart():
    text = """
settings: {seed: 3}
graphs:
  - {id: m, type: navmesh, bounds: [0, 0, 12, 4], agent_radius: 0.3}
crowds: [{id: c, count: 8, from: [0, 0, 5, 4], to: [8, 0, 4, 4], radius: [0.3, 0.5]%s}]
"""
    sim = _sim(text % "")
    goals, r = _goals(sim, "c"), sim.agents.radius[sim.crowds["c"]]
    assert ((goals >= [8, 0]) & (goals <= [12, 4])).all()
    assert kit_overlap(goals, r) == 0.0                            # brute force, every pair
    # drawn on their own (as for points) two of them clash
    assert kit_overlap(_goals(_sim(text % ", avoidance: false"), "c"), r) > 0.0


@pytest.mark.parametrize("line, message", [
    ("crowds: [{id: c, count: 2, from: [0, 0, 2, 2], to: [4, 0, 2, 2], radius: -1}]",
     "4:74: 'radius' of crowd 'c' must be a positive number, got -1"),
    ("agents: [{id: a, start: [0, 0], goal: [3, 0], radius: 0}]",
     "4:55: 'radius' of agent 'a' must be a positive number, got 0"),
    ("agents: [{id: a, start: [0, 0], goal: [3, 0], avoidance: 1}]",
     "4:58: 'avoidance' of agent 'a' must be true or false, got 1"),
    ("agents: [{id: a, start: [0, 0], goal: [3, 0], repath: false}]",
     "4:10: agent 'a' says 'repath: false', but agents that walk as a crowd"),
    ("crowds: [{id: c, count: 2, from: [0, 0, 2, 2], to: [4, 0, 2, 2], goal: [5, 1]}]",
     "4:66: crowd 'c' needs either 'to' (a region: a goal drawn for each member) or "
     "'goal' (one point for all), not both"),
    ("crowds: [{id: c, count: 2, from: [0, 0, 2, 2]}]", "4:10: crowd 'c' needs either 'to'"),
    ("crowds: [{id: c, count: 2, from: [0, 0, 2, 2], goal: [0, 5]}]",
     "4:54: 'goal' of crowd 'c' [0, 5] is outside graph 'f'"),
    ("crowds: [{id: c, count: 2, from: [0, 0, 2, 2], goal: [5, 1], leave: 5}]",
     "4:69: 'leave' of crowd 'c' must be true, false or a region"),
    ("crowds: [{id: c, count: 2, from: [0, 0, 2, 2], goal: [5, 1], leave: [5, 0, 9, 1]}]",
     "4:69: 'leave' of crowd 'c' [5, 0, 9, 1] does not fit in graph 'f'"),
    ("events: [{at: 1, goal: {crowd: [c], to: [5, 1]}}]\n"
     "crowds: [{id: d, count: 2, from: [0, 0, 2, 2], goal: [5, 1]}]",
     "4:33: unknown crowd 'c' in 'goal'"),
    ("events: [{at: 1, goal: {crowd: [], to: [5, 1]}}]\n"
     "crowds: [{id: d, count: 2, from: [0, 0, 2, 2], goal: [5, 1]}]",
     "4:32: 'crowd' of 'goal' names no crowd"),
    ("events: [{at: 1, goal: {crowd: [d, d], to: [5, 1]}}]\n"
     "crowds: [{id: d, count: 2, from: [0, 0, 2, 2], goal: [5, 1]}]",
     "4:36: crowd 'd' is named twice in 'goal'"),
    ("events: [{at: 1, goal: {crowd: d, agent: d, to: [5, 1]}}]\n"
     "crowds: [{id: d, count: 2, from: [0, 0, 2, 2], goal: [5, 1]}]",
     "4:25: 'goal' names either 'agent' (an agent or a crowd) or 'crowd'"),
    ("events: [{at: 1, goal: {crowd: d, to: [5, 0]}}]\n"
     "crowds: [{id: d, count: 2, from: [0, 0, 2, 2], goal: [5, 1]}]",
     "4:39: 'to' of 'goal' [5, 0] is in a wall of graph 'f'"),
])
def test_bad_crowd_keys_are_scene_errors_at_their_place(line, message):
    text = ("settings: {seed: 1}\n"
            "graphs:\n  - {id: f, type: grid, rows: ['.....#', '......']}\n" + line + "\n")
    with pytest.raises(navcore.SceneError) as info:
        navcore.Simulation.from_text(text, "s.yaml")
    assert str(info.value).startswith("s.yaml:" + message), str(info.value)


@pytest.mark.parametrize("graph, message", [
    ("crowd: {time_horizon: -1}", "3:65: 'time_horizon' of 'crowd' of graph 'f' must be a "
                                  "positive number, got -1"),
    ("crowd: {radius: 0.5}", "3:51: 'crowd' of graph 'f' sets 'radius': each agent or crowd "
                             "has its own"),
    ("crowd: {time_horizont: 2}", "3:51: unknown key 'time_horizont' in 'crowd' of graph 'f'; "
                                  "did you mean 'time_horizon'?"),
    ("crowd: {max_neighbours: 100}", "3:50: 'crowd' of graph 'f': add_crowd: max_neighbours "
                                     "must be a whole number from 0 to 64"),
])
def test_a_graphs_crowd_parameters_are_checked(graph, message):
    text = ("settings: {seed: 1}\n"
            "graphs:\n  - {id: f, type: grid, rows: ['......'], " + graph + "}\n"
            "agents: [{id: a, start: [0, 0], goal: [5, 0]}]\n")
    with pytest.raises(navcore.SceneError) as info:
        navcore.Simulation.from_text(text, "s.yaml")
    assert str(info.value).startswith("s.yaml:" + message), str(info.value)


def test_avoidance_on_a_graph_without_crowds_is_an_error_and_off_by_default_there():
    text = """
graphs:
  - {id: town, type: csr, src: [0, 1], dst: [1, 2], cost: [1, 1],
     positions: [[0, 0], [1, 0], [2, 0]], directed: false}
agents:
  - {id: bus, start: 0, goal: 2, speed: 2%s}
"""
    sim = navcore.Simulation.from_text(text % "", "s.yaml")
    assert not sim.agents.walks.any()                 # a csr graph: a point walker
    assert sim.run(30)["agents"]["arrived"] == 1
    with pytest.raises(navcore.SceneError) as info:
        navcore.Simulation.from_text(text % ", avoidance: true", "s.yaml")
    assert str(info.value).startswith("s.yaml:6:5: 'avoidance: true' of agent 'bus': graph "
                                      "'town' cannot walk its agents as a crowd: ")


# -- the shipped scenes ------------------------------------------------------------

SCENES = Path(__file__).resolve().parents[2] / "scenes"


def _wall_distance(sim, graph_id, points) -> np.ndarray:
    """How far each point lies from the solid drawn: blocked cells and the
    border on a grid; on a navmesh the obstacles written in the scene (and
    the bounds) as shapely measures them."""
    g = sim.world.graph(graph_id)
    if g.kind == "grid":
        blocked = ~g.walkable.reshape(g.height, g.width)
        out = np.full(len(points), np.inf)
        for k, (x, y) in enumerate(points):
            cx, cy = int(np.floor(x)), int(np.floor(y))
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    i, j = cx + dx, cy + dy
                    if 0 <= i < g.width and 0 <= j < g.height and not blocked[j, i]:
                        continue            # open ground (the border counts as solid)
                    ex = max(i - x, 0.0, x - (i + 1))
                    ey = max(j - y, 0.0, y - (j + 1))
                    out[k] = min(out[k], float(np.hypot(ex, ey)))
        return out
    spec = sim.scene.graph_spec(graph_id).params
    solid = unary_union([Polygon(r) for r in spec["obstacles"]]
                        + [box(*spec["bounds"]).exterior.buffer(1e-9)]
                        + [sim.layers[graph_id].region(d.region).polygon
                           for d in sim.scene.graph_spec(graph_id).doors.values()])
    return np.array([solid.distance(Point(*p)) for p in points])


def overlaps_away_from_walls(sim) -> list:
    """Pairs of walkers on one graph that overlap by more than ``OVERLAP``
    with neither held against the solid (within its radius, and the
    mesh's agent radius on a navmesh, and 0.05 more): the crowd pushes
    overlapping pairs apart, and only a wall holding one back leaves an
    overlap (a crush at a door)."""
    a = sim.agents
    out = []
    for g in set(a.graph_ids):
        rows = np.flatnonzero(a.walks & ~a.gone & (np.asarray(a.graph_ids) == g))
        if rows.size < 2:
            continue
        p, r = a.pos[rows, :2], a.radius[rows]
        pairs = cKDTree(p).query_pairs(2 * r.max(), output_type="ndarray")
        if not len(pairs):
            continue
        over = r[pairs].sum(1) - np.hypot(*(p[pairs[:, 0]] - p[pairs[:, 1]]).T)
        pairs, over = pairs[over > OVERLAP], over[over > OVERLAP]
        if not len(pairs):
            continue
        clearance = float(getattr(sim.world.graph(g), "agent_radius", 0.0))
        near = _wall_distance(sim, g, p[np.unique(pairs)])
        held = dict(zip(np.unique(pairs).tolist(), near))
        for (i, j), o in zip(pairs.tolist(), over.tolist()):
            if min(held[i] - r[i], held[j] - r[j]) > clearance + 0.05:
                out.append((a.ids[rows[i]], a.ids[rows[j]], round(o, 4), sim.frame))
    return out


@pytest.mark.parametrize("name, frames", [("dungeon.yaml", 300), ("courtyard.yaml", 200),
                                          ("battlefield.yaml", 300), ("maze.yaml", 150),
                                          ("evacuation.yaml", 250), ("rts.yaml", 300)])
def test_shipped_scenes_walkers_keep_apart_and_on_open_ground(name, frames):
    with navcore.Simulation.from_file(SCENES / name) as sim:
        assert sim.agents.walks.all()
        bad, off = [], []
        for _ in range(frames // 10):
            sim.run(10)
            bad += overlaps_away_from_walls(sim)
            for g in sim.walking:
                if sim.world.graph(g).kind == "grid":
                    off += off_cells(sim, g).tolist()
                else:
                    rows = np.flatnonzero(sim.agents.walks & ~sim.agents.gone
                                          & (np.asarray(sim.agents.graph_ids) == g))
                    nodes = sim.world.graph(g).locate_many(sim.agents.pos[rows, :2])
                    off += rows[nodes < 0].tolist()
        assert not bad, bad[:5]
        assert not off


def test_the_evacuation_gets_everyone_out_through_the_two_doors():
    with navcore.Simulation.from_file(SCENES / "evacuation.yaml") as sim:
        a = sim.agents
        assert len(a.ids) >= 1000 and a.walks.all()
        crowd = sim.world.crowd(("scene", "offices"))
        sim.run(60)
        assert crowd.fields_made == 2                 # one flow field per door, shared
        while not a.gone.all() and sim.frame < sim.scene.settings.frames:
            sim.run(50)
        assert a.gone.all()
        assert crowd.ids.size == 0
        # everyone left on their wing's side, west or east of the building
        west = np.array([i.split("-")[0].endswith("west") for i in a.ids])
        assert (a.pos[west, 0] < 10.5).all() and (a.pos[~west, 0] > 113.5).all()
        summary = summarize(sim, 0.0)
    out = summary["crowds"]
    assert sum(c["left"] for c in out.values()) == len(a.ids)
    assert max(c["all_arrived_s"] for c in out.values()) == pytest.approx(
        a.arrived_at.max() * sim.scene.settings.dt)
    assert "north_west 300/300 out, all by" in format_summary(summary)


# -- pictures ------------------------------------------------------------------------

def _agents_drawn(sim, img, scale, rows):
    """For each agent of ``rows``: the colour at its centre, at 0.6 of its
    radius across its heading on both sides, and just past its rim ahead
    (pixels of ``img``, the map drawn from (x0, y0) of the layer's bounds)."""
    a = sim.agents
    x0, y0 = sim.layers[a.graph_ids[rows[0]]].bounds()[:2]
    out = []
    for i in rows:
        c = (a.pos[i, :2] - [x0, y0]) * scale
        v = a.vel[i] / max(np.hypot(*a.vel[i]), 1e-12)
        side = np.array([-v[1], v[0]])
        r = max(1.5, a.radius[i] * scale)
        px = lambda p: img.getpixel((int(p[0]), int(p[1])))       # noqa: E731
        tip = c + (r + 1.5) * v                      # on the tick; a pixel's rounding either way
        near = {img.getpixel((int(tip[0]) + dx, int(tip[1]) + dy))
                for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
        out.append((px(c), px(c + 0.6 * r * side), px(c - 0.6 * r * side), near))
    return out


@pytest.mark.parametrize("text", [CROSSING, YARD], ids=["grid", "navmesh"])
def test_pictures_draw_agents_as_discs_of_their_radius_with_a_velocity_tick(text, tmp_path):
    from navcore_scenes.render import AGENT, TICK, GifRecorder, draw
    sim = _sim(text, deterministic="deterministic: true" in text)
    gif = GifRecorder(sim, every=5, scale=16)
    sim.run(20, on_frame=gif)
    img = draw(sim, scale=16)
    a = sim.agents
    rows = np.flatnonzero(~a.gone)
    fast = np.hypot(*a.vel.T) >= 0.5 * a.speed           # ticks at least half a radius
    assert fast[rows].sum() >= 10
    for i, (centre, left, right, ahead) in zip(rows, _agents_drawn(sim, img, 16, rows)):
        colour = AGENT[int(a.state[i])]
        # its disc, as wide as its radius (a neighbour's tick may cross one side)
        assert centre == colour and {left, right} <= {colour, TICK} \
            and colour in (left, right), a.ids[i]
        if fast[i] and a.state[i] == MOVING:
            assert TICK in ahead, a.ids[i]
    # the GIF's last picture is the same frame, in 64 colours: white discs stay white
    last = gif.frames[-1].convert("RGB")
    assert sum(c == AGENT[MOVING] for c, *_ in _agents_drawn(sim, last, 16, rows)) \
        == (a.state[rows] == MOVING).sum()
    gif.save(tmp_path / "run.gif")
    assert (tmp_path / "run.gif").stat().st_size > 0


def test_agents_that_left_the_map_are_not_drawn():
    from navcore_scenes.render import AGENT, draw
    sim = _sim("""
settings: {dt: 0.1, seed: 1}
graphs: [{id: hall, type: grid, rows: [".............", ".............", "............."]}]
crowds:
  - {id: crew, count: 3, from: [0, 0, 4, 3], goal: [12, 1], leave: [10, 0, 3, 3],
     speed: 2, radius: 0.3}
""")
    sim.run(100)
    assert sim.agents.gone.all()
    img = np.asarray(draw(sim, scale=16))
    assert not (img == AGENT[ARRIVED]).all(axis=2).any()     # no green disc anywhere
