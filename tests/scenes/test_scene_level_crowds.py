"""Scene agents on a 3D level walk as a crowd (``LevelCrowd``): checked
every frame against truths read without the crowd: no two on one floor
overlap (brute force over every pair), each stands on the level's surface
(its polygon's ground projection, with shapely, and the height of its
detail triangles there, by plain barycentric reading: ``levelkit.OnMesh``)
and changes floors only along the ramp (between the floors' heights only
over the ramp's ground, and never a floor's height in one frame), each
ends on the floor of its goal, and all arrive within twice the time their
shortest paths take."""
import numpy as np
import pytest

import navcore
from crowdkit import worst_overlap
from levelkit import OnMesh
from navcore_scenes.states import ARRIVED

#: how far two agents on one floor may overlap (ORCA's slack in a step)
OVERLAP = 1e-3
#: how far an agent may stand off the level's surface
SURFACE = 1e-6
#: the most an agent's height may change in a frame: the floors are 4
#: apart, and a frame's step (at most 0.25) along the ramp's detail
#: surface (coarser than the ramp, 0.4 steep on average) rises less
RISE = 1.0
#: the ramp's ground (x, z), with a radius to spare where it meets the floors
RAMP = (9.7, 20.3, 6.0, 10.0)

# a ground floor (y 0, 24 x 10), a storey over its west end (y 4, 10 x 10)
# and a ramp from the storey's east edge down to the ground at x 20
SCENE = """
settings: {dt: 0.1, frames: 600, seed: 5, deterministic: true}
graphs:
  - id: house
    type: level
    agent_radius: 0.3
    vertices: [[0, 0, 0], [24, 0, 0], [24, 0, 10], [0, 0, 10],
               [0, 4, 0], [10, 4, 0], [10, 4, 10], [0, 4, 10],
               [10, 4, 6], [20, 0, 6], [20, 0, 10], [10, 4, 10]]
    triangles: [[0, 2, 1], [0, 3, 2], [4, 6, 5], [4, 7, 6], [8, 10, 9], [8, 11, 10]]
crowds:
  # down the ramp from the storey to the ground floor's east end
  - {id: down, graph: house, count: 10, speed: [1.5, 2.5],
     from: {rect: [1, 1, 8, 8], height: [3, 5]}, to: {rect: [14, 1, 8, 4], height: [-1, 1]}}
  # up it the other way, leaving the map on arrival
  - {id: up, graph: house, count: 8, speed: [1.5, 2.5], leave: true,
     from: {rect: [14, 1, 8, 4], height: [-1, 1]}, to: {rect: [1, 1, 8, 8], height: [3, 5]}}
  # under the storey, on the ground floor (under the 'down' crowd's starts)
  - {id: below, graph: house, count: 8, speed: 2,
     from: {rect: [3, 3, 4, 4], height: [-1, 1]}, goal: [5, 0, 5]}
events:
  - {at: 30, goal: {crowd: below, to: [22, 0, 8]}}   # ordered to the east end
"""
DT = 0.1


def floor_band(sim, i):
    """The height band of agent ``i``'s last goal's floor."""
    return (3.0, 5.0) if sim.agents.goals[i][-1][1] > 2 else (-1.0, 1.0)


@pytest.fixture(scope="module")
def walked():
    """The scene played to the end, checked every frame: ``(sim, worst
    overlap on one floor, agents off the surface, height jumps)``."""
    sim = navcore.Simulation.from_text(SCENE, "house.yaml")
    a = sim.agents
    crowd = sim.world.crowd(("scene", "house"))
    on_mesh = OnMesh(sim.world.graph("house"))
    worst, off, jumps = 0.0, [], []
    before = a.pos.copy()
    for _ in range(sim.scene.settings.frames):
        sim.step()
        here = np.flatnonzero(~a.gone & ~a.walk.linked)
        p = a.pos[here]
        worst = max(worst, worst_overlap(p[:, [0, 2]], a.radius[here], p[:, 1], crowd.height))
        off += [(a.ids[i], sim.frame) for i in here if not on_mesh.under(a.pos[i], SURFACE)]
        rise = np.abs(a.pos[here, 1] - before[here, 1])
        x, y, z = a.pos[here].T
        between = (y > 0.9) & (y < 3.5) & ~((x >= RAMP[0]) & (x <= RAMP[1])
                                           & (z >= RAMP[2]) & (z <= RAMP[3]))
        jumps += [(a.ids[i], sim.frame) for i in here[(rise > RISE) | between]]
        before = a.pos.copy()
        if ((a.state == ARRIVED) | a.gone).all():
            break
    return sim, worst, off, jumps, on_mesh


def test_every_agent_walks_in_the_level_crowd(walked):
    sim = walked[0]
    assert sim.agents.walks.all()
    assert type(sim.world.crowd(("scene", "house"))).__name__ == "LevelCrowd"


def test_they_start_apart_on_each_floor_and_some_stand_over_others():
    sim = navcore.Simulation.from_text(SCENE, "house.yaml")
    a, crowd = sim.agents, sim.world.crowd(("scene", "house"))
    p = a.pos
    assert worst_overlap(p[:, [0, 2]], a.radius, p[:, 1], crowd.height) == 0.0
    # the storey's crowd stands over the one below it: on the ground plane
    # alone their discs meet (they were spawned apart on each floor only)
    assert worst_overlap(p[:, [0, 2]], a.radius) > 0.0
    assert (np.abs(p[:, 1] - 4.2) < 0.3).sum() == 10       # 'down' on the storey


def test_each_crowds_goals_lie_apart_on_their_floor():
    # brute force over every pair of a crowd's goals, their heights apart
    # by less than the crowd's agent height (one floor)
    sim = navcore.Simulation.from_text(SCENE, "house.yaml")
    a, crowd = sim.agents, sim.world.crowd(("scene", "house"))
    for name in ("down", "up"):
        rows = sim.crowds[name]
        g = np.array([a.goals[i][-1] for i in rows], dtype=np.float64)
        assert worst_overlap(g[:, [0, 2]], a.radius[rows], g[:, 1], crowd.height) == 0.0


def test_no_two_on_one_floor_overlap_at_any_frame(walked):
    assert walked[1] <= OVERLAP


def test_everyone_stays_on_the_surface_and_changes_floors_by_the_ramp(walked):
    _, _, off, jumps, _ = walked
    assert not off, off[:5]
    assert not jumps, jumps[:5]


def test_each_ends_on_its_goals_floor(walked):
    sim, on_mesh = walked[0], walked[4]
    a = sim.agents
    g = sim.world.graph("house")
    heights = g.heights[g.poly_verts]                 # the polygons' corner heights
    start = g.poly_start[:-1]
    lo, hi = np.minimum.reduceat(heights, start), np.maximum.reduceat(heights, start)
    for i in np.flatnonzero(~a.gone):
        low, high = floor_band(sim, i)
        assert low <= a.pos[i, 1] <= high, (a.ids[i], a.pos[i])
        polys = on_mesh.under(a.pos[i], SURFACE)
        assert polys and all(hi[p] >= low and lo[p] <= high for p in polys), a.ids[i]


def test_everyone_arrives_within_twice_their_shortest_time(walked):
    sim = walked[0]
    a, w = sim.agents, sim.world
    assert (a.arrived_at >= 0).all(), [a.ids[i] for i in np.flatnonzero(a.arrived_at < 0)]
    assert a.gone.sum() == 8                           # 'up' left the map on arrival
    fresh = navcore.Simulation.from_text(SCENE, "house.yaml").agents.pos
    for i in range(len(a.ids)):
        if a.ids[i].startswith("below"):               # ordered at frame 30, from there
            continue
        shortest = w.find_path("house", tuple(fresh[i]), tuple(a.goals[i][-1])).cost
        assert a.arrived_at[i] * DT <= 2 * shortest / a.speed[i] + 3.0, a.ids[i]
    below = [i for i in range(len(a.ids)) if a.ids[i].startswith("below")]
    assert (a.arrived_at[below] * DT <= 30 * DT + 2 * 22 / 2 + 3.0).all()
