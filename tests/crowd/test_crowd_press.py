"""Crowds pressed against walls: a crowd ordered through a gap narrower
than itself keeps apart (the overlap of every pair, brute force, every
frame) and keeps every disc out of the blocked cells (each disc against
the cells round it, brute force), and a pair pushed into a wall parts
along it."""
import numpy as np
import pytest
import shapely

import navcore
from crowdkit import blocked_depth, worst_overlap
from navcore_crowd.avoidance import OVERLAP_TOLERANCE, Agents, Walls, separate

#: overlap allowed between two discs, as the crowd promises
OVERLAP = 1e-3


def _hall(gap):
    """12 rows, 30 columns, a wall down column 15 with a gap of ``gap``
    cells from row 5."""
    rows = []
    for y in range(12):
        row = ["."] * 30
        if not 5 <= y < 5 + gap:
            row[15] = "#"
        rows.append("".join(row))
    return rows


def _spread(rng, n, box, apart):
    """Up to ``n`` points in ``box`` (x0, y0, x1, y1), all ``apart``."""
    pts = []
    for p in rng.uniform(box[:2], box[2:], (8 * n, 2)):
        if all(np.hypot(*(p - q)) > apart for q in pts):
            pts.append(p)
            if len(pts) == n:
                break
    return np.array(pts)


@pytest.mark.parametrize("gap, one_goal", [(1, True), (2, True), (2, False), (3, False)])
def test_a_crowd_pressed_through_a_gap_keeps_apart_and_out_of_the_walls(gap, one_goal):
    rng = np.random.default_rng(gap)
    world = navcore.World(deterministic=True)
    graph = world.add_graph("hall", type="grid", rows=_hall(gap))
    crowd = world.add_crowd("c", graph="hall", radius=0.3, max_speed=2.0)
    start = _spread(rng, 190, (0.3, 0.3, 14.7, 11.7), 0.62)
    goals = (np.tile([25.0, 6.0], (len(start), 1)) if one_goal
             else rng.uniform((20, 1), (29, 11), (len(start), 2)))
    crowd.add(start, goals=goals)
    worst = deepest = 0.0
    for _ in range(100):
        world.tick(0.1)
        worst = max(worst, worst_overlap(crowd.positions, crowd.radii))
        deepest = max(deepest, blocked_depth(graph, crowd.positions, crowd.radii))
    assert worst <= OVERLAP
    assert deepest <= 1e-9
    # the press is real: the crowd piles up at the wall, some get through
    through = crowd.positions[:, 0] > 16.0
    assert 0 < through.sum() < len(start) // 2


def _floor():
    """Solid ground below y = 0 (a ring counter-clockwise round it) and a
    move that keeps centres on or above it, as a grid keeps them on its
    open cells."""
    walls = Walls([[(-10.0, -2.0), (10.0, -2.0), (10.0, 0.0), (-10.0, 0.0)]])

    def move(rows, start, end):
        return np.c_[end[:, 0], np.maximum(end[:, 1], 0.0)]
    return walls, move


@pytest.mark.parametrize("other", [(0.0, 0.5), (0.25, 0.45), (-0.1, 0.3)])
def test_a_pair_pushed_into_a_wall_parts_along_it(other):
    walls, move = _floor()
    agents = Agents([(0.0, 0.3), other], radius=0.3, walls=walls)
    separate(agents, move)
    p = agents.pos
    assert np.hypot(*(p[0] - p[1])) >= 0.6 - OVERLAP_TOLERANCE
    assert (p[:, 1] >= 0.3 - 1e-12).all()          # both discs off the floor


@pytest.mark.parametrize("rows", [["#.#", "#.#", "..."],      # a dead end, entered straight
                                  ["#.##", "#...", "####"],    # ... round a corner
                                  ["#.#", "...", "#.#"]])      # ... across a passage
def test_one_walking_into_a_dead_end_stops_against_the_one_at_its_end(rows):
    # the one standing at the end (walls on three sides) cannot give way:
    # the walker takes the whole push, however the walls hold the other
    world = navcore.World(deterministic=True)
    graph = world.add_graph("g", type="grid", rows=rows)
    crowd = world.add_crowd("c", graph="g", radius=0.35, max_speed=2.0)
    end = (1.5, 0.5)
    start = graph.points_of(graph.first_walkable(graph.num_nodes))[-1]
    crowd.add([end, start], goals=[end, end])
    worst = deepest = 0.0
    for _ in range(60):
        world.tick(0.1)
        worst = max(worst, worst_overlap(crowd.positions, crowd.radii))
        deepest = max(deepest, blocked_depth(graph, crowd.positions, crowd.radii))
    assert worst <= OVERLAP and deepest <= 1e-9
    assert np.hypot(*(crowd.positions[1] - end)) < 1.5          # it came up to the other


def test_a_disc_whose_centre_is_on_the_wall_line_is_pushed_off_it():
    walls, move = _floor()
    agents = Agents([(0.0, 0.0), (3.0, 0.1), (6.0, 2.0)], radius=0.3, walls=walls)
    separate(agents, move)
    assert np.allclose(agents.pos, [(0.0, 0.3), (3.0, 0.3), (6.0, 2.0)])


def test_a_crowd_wider_than_the_mesh_was_built_for_pressed_through_a_gap():
    # the mesh keeps centres 0.2 off the walls drawn, the agents' discs
    # are 0.45: the crowd keeps the rest off them itself
    wall = [shapely.box(9, 0, 10, 5.5), shapely.box(9, 7.5, 10, 12)]
    world = navcore.World(deterministic=True)
    world.add_graph("m", type="navmesh", bounds=(0, 0, 20, 12), agent_radius=0.2,
                    obstacles=wall)
    crowd = world.add_crowd("c", graph="m", radius=0.45, max_speed=2.0)
    start = _spread(np.random.default_rng(7), 80, (0.5, 0.5, 8.5, 11.5), 0.92)
    crowd.add(start, goals=np.tile([16.0, 6.0], (len(start), 1)))
    solid = shapely.union_all(wall + [shapely.box(-1, -1, 21, 13).difference(
        shapely.box(0, 0, 20, 12))])
    worst, nearest = 0.0, np.inf
    for _ in range(100):
        world.tick(0.1)
        p = crowd.positions
        worst = max(worst, worst_overlap(p, crowd.radii))
        nearest = min(nearest, float(shapely.distance(solid, shapely.points(p)).min()))
    assert worst <= OVERLAP
    assert nearest >= 0.45 - 1e-6
    assert 0 < (crowd.positions[:, 0] > 10.0).sum() < len(start)


def _pile(n=400, seed=3):
    """``n`` discs of radius 0.5 dropped at random into a square their
    areas cover 0.6 of: a jam dozens of passes deep."""
    side = np.sqrt(n * np.pi * 0.25 / 0.6)
    return np.random.default_rng(seed).uniform(0.0, side, (n, 2))


def _counting(monkeypatch):
    """``separate``'s kernel wrapped to add up the pairs it tests."""
    import navcore_crowd._orca as K
    tested = []
    relax = K.relax

    def counted(*args):
        worst, t = relax(*args)
        tested.append(t)
        return worst, t
    monkeypatch.setattr(K, "relax", counted)
    return tested


def test_a_jam_parts_within_a_bounded_work_a_step_and_fully_without_the_bound(monkeypatch):
    import navcore_crowd.avoidance as A
    tested = _counting(monkeypatch)
    start = _pile()
    before = worst_overlap(start, np.full(len(start), 0.5))
    free = Agents(start, radius=0.5)
    separate(free)
    # the default work parts the pile within its passes
    assert worst_overlap(free.pos, free.radius) <= OVERLAP_TOLERANCE + 1e-12
    unbounded = sum(tested)
    tested.clear()
    monkeypatch.setattr(A, "SEPARATION_WORK", unbounded // 10)
    capped = Agents(start, radius=0.5)
    separate(capped)
    pairs = capped.pairs.shape[0]
    # stopped before the pass that would go past the work (a listing,
    # four tests of its pairs, and the first pass may run over it)
    assert unbounded // 10 <= sum(tested) <= unbounded // 10 + 5 * pairs
    left = worst_overlap(capped.pos, capped.radius)
    assert OVERLAP_TOLERANCE < left < before            # it parted part of the jam
