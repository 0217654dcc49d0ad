"""The ORCA kernels against RVO2 itself (pyrvo, its Python binding): the
same scenarios stepped side by side follow the same trajectories until
float32 rounding (RVO2's) and float64 (ours) part them."""
import numpy as np
import pyrvo
import shapely

from navcore_crowd.avoidance import Agents, Walls, step


def _prefs(pos, goal):
    # RVO2's examples: toward the goal at 1 m/s, slower within 1 m
    g = goal - pos
    d2 = (g * g).sum(1)
    return g * np.where(d2 > 1.0, 1.0 / np.sqrt(np.maximum(d2, 1e-300)), 1.0)[:, None]


def _rvo(start, dt, radius, th, walls=()):
    sim = pyrvo.RVOSimulator()
    sim.set_time_step(dt)
    sim.set_agent_defaults(15.0, 10, th, th, radius, 2.0)
    for p in start:
        sim.add_agent(tuple(map(float, p)))
    for ring in walls:
        sim.add_obstacle([tuple(map(float, q)) for q in ring])
    if walls:
        sim.process_obstacles()
    return sim


def _side_by_side(start, goal, steps, radius, th, walls=()):
    """Positions of both after each step: ours and RVO2's."""
    dt = 0.25
    agents = Agents(start, radius=radius, max_speed=2.0, neighbour_dist=15.0,
                    max_neighbours=10, time_horizon=th, time_horizon_obstacles=th,
                    walls=Walls(walls))
    sim = _rvo(start, dt, radius, th, walls)
    n = len(start)
    for _ in range(steps):
        theirs = np.array([sim.get_agent_position(i).to_tuple() for i in range(n)])
        for i, v in enumerate(_prefs(theirs, goal)):
            sim.set_agent_pref_velocity(i, tuple(v))
        sim.do_step()
        agents.pref[:] = _prefs(agents.pos, goal)
        step(agents, dt)
        yield agents.pos, np.array([sim.get_agent_position(i).to_tuple() for i in range(n)])


def test_circle_follows_rvo2():
    # RVO2's Circle example, smaller: 48 agents cross a 40 m circle
    n = 48
    angle = 2 * np.pi * np.arange(n) / n
    start = (40.0 * np.c_[np.cos(angle), np.sin(angle)]).astype(np.float32).astype(float)
    worst, closest = 0.0, np.inf
    for ours, theirs in _side_by_side(start, -start, 160, 1.5, 10.0):
        worst = max(worst, float(np.abs(ours - theirs).max()))
        gaps = np.hypot(*(ours[:, None] - ours[None]).transpose(2, 0, 1))
        closest = min(closest, gaps[np.triu_indices(n, 1)].min())
    # they crowded the middle (each avoiding its neighbours) and agree
    assert 3.0 <= closest < 4.0 and worst < 2e-3, (closest, worst)


def test_blocks_follow_rvo2_and_never_enter_a_block():
    # RVO2's Blocks example, one agent per corner group row: walls given
    # as counter-clockwise solid rings, agents of radius 2
    blocks = [[(-10, 40), (-40, 40), (-40, 10), (-10, 10)],
              [(10, 40), (10, 10), (40, 10), (40, 40)],
              [(10, -40), (40, -40), (40, -10), (10, -10)],
              [(-10, -40), (-10, -10), (-40, -10), (-40, -40)]]
    start, goal = [], []
    for i in range(5):
        for sx, sy in ((1, 1), (-1, 1), (1, -1), (-1, -1)):
            start.append((sx * (55.0 + i * 10.0), sy * 55.0))
            goal.append((-sx * 75.0, -sy * 75.0))
    start, goal = np.array(start), np.array(goal)
    solid = shapely.union_all([shapely.Polygon(b) for b in blocks])
    worst, deepest = 0.0, -np.inf
    for k, (ours, theirs) in enumerate(_side_by_side(start, goal, 240, 2.0, 5.0, blocks)):
        if k < 120:
            worst = max(worst, float(np.abs(ours - theirs).max()))
        deepest = max(deepest, float((2.0 - shapely.distance(solid, shapely.points(ours))).max()))
    assert worst < 2e-3, worst
    assert deepest < 1e-9, deepest          # no agent's disc ever overlaps a block


def test_agents_on_one_spot_part_without_nan():
    agents = Agents([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]], radius=0.5, max_speed=1.0)
    for _ in range(20):
        step(agents, 0.1)
    assert np.isfinite(agents.pos).all()
    d = np.hypot(*(agents.pos[:, None] - agents.pos[None]).transpose(2, 0, 1))
    assert d[np.triu_indices(3, 1)].min() > 0.5
