"""The crowd's public calls: arrays in and out, ids, and bad input that
is refused with a CrowdError that leaves the crowd as it was."""
import math
import re

import numpy as np
import pytest

import navcore
from navcore import CrowdError

pytestmark = pytest.mark.nojit

ROWS = ["........", "...##...", "........"]


def _world():
    world = navcore.World()
    world.add_graph("g", type="grid", rows=ROWS)
    return world


def _snapshot(crowd):
    return (crowd.ids.copy(), crowd.positions, crowd.goals.copy(), crowd.state.copy(),
            crowd.radii)


def _same(a, b):
    return all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b))


def test_add_returns_new_ids_and_arrays_follow_them():
    world = _world()
    crowd = world.add_crowd("c", graph="g", radius=0.3)
    a = crowd.add([(0.5, 0.5), (1.5, 0.5)])
    b = crowd.add((2.5, 2.5), radius=0.2, max_speed=1.0)
    assert a.tolist() == [0, 1] and b.tolist() == [2]
    assert crowd.positions.tolist() == [[0.5, 0.5], [1.5, 0.5], [2.5, 2.5]]
    assert crowd.radii.tolist() == [0.3, 0.3, 0.2]
    assert crowd.state_names() == ["idle"] * 3 and not crowd.arrived.any()
    crowd.remove([1])
    assert crowd.ids.tolist() == [0, 2] and crowd.positions.tolist() == [[0.5, 0.5], [2.5, 2.5]]
    assert crowd.add([(5.5, 0.5)]).tolist() == [3]           # ids are never reused
    crowd.teleport(2, [(6.5, 2.5)])
    assert crowd.positions[1].tolist() == [6.5, 2.5] and len(crowd) == 3
    assert world.crowd("c") is crowd and world.crowds == {"c": crowd}


@pytest.mark.parametrize("call, message", [
    (lambda c: c.add([(3.5, 1.5)]), "positions[0] = (3.5, 1.5) is not on walkable ground"),
    (lambda c: c.add([(0.5, 0.5), (99.0, 0.5)]), "positions[1] = (99.0, 0.5) is not on walkable"),
    (lambda c: c.add([(0.5, math.nan)]), "positions[0] = (0.5, nan) is not a finite point"),
    (lambda c: c.add([(0.5, 0.5)], radius=0), "radius[0] = 0.0 must be a finite number > 1e-06"),
    (lambda c: c.add([(0.5, 0.5)], radius=True), "radius must be numbers, got true"),
    (lambda c: c.add([(0.5, 0.5)], max_speed="2"), "max_speed must be numbers"),
    (lambda c: c.add([(True, False)]), "positions (x, y) points must be numbers"),
    (lambda c: c.add([(0.5, 0.5)], max_speed=1e300), "max_speed[0] = 1e+300 must be a finite"),
    (lambda c: c.add([(0.5, 0.5)], max_speed=[1.0, 2.0]), "max_speed: one number, or one"),
    (lambda c: c.add([(0.5, 0.5)], goals=[(4.5, 1.5)]), "goals[0] = (4.5, 1.5) is not on walk"),
    (lambda c: c.add("here"), "positions (x, y) points must be numbers"),
    (lambda c: c.set_goals(np.array([2 ** 63 + 5], np.uint64), [(0.5, 0.5)]),
     "crowd 'c' has no agent 4611686018427387904"),
    (lambda c: c.set_goals([7], [(0.5, 0.5)]), "crowd 'c' has no agent 7"),
    (lambda c: c.set_goals([0, 0], [(0.5, 0.5)]), "agent ids repeat"),
    (lambda c: c.set_goals([0], [(0.5, 0.5), (1.5, 0.5)]), "goals: one point, or one per agent"),
    (lambda c: c.stop(["a"]), "agent ids must be whole numbers"),
    (lambda c: c.remove([-1]), "has no agent -1"),
    (lambda c: c.teleport([0], [(3.5, 1.5)]), "positions[0] = (3.5, 1.5) is not on walkable"),
    (lambda c: c.step(-1.0), "dt must be finite and >= 0"),
])
def test_bad_input_is_refused_and_changes_nothing(call, message):
    world = _world()
    crowd = world.add_crowd("c", graph="g")
    crowd.add([(0.5, 0.5), (1.5, 2.5)])
    before = _snapshot(crowd)
    with pytest.raises(navcore.NavError, match=re.escape(message)):
        call(crowd)
    assert _same(before, _snapshot(crowd))


@pytest.mark.parametrize("params, message", [
    (dict(radius=-1), "radius must be a number > 1e-06 and at most 1e+12"),
    (dict(max_speed=math.inf), "max_speed must be a number > 0 and at most 1e+12"),
    (dict(neighbour_dist=1e160), "neighbour_dist must be a number > 0 and at most 1e+12"),
    (dict(time_horizon_obstacles=1e9), "time_horizon_obstacles must be a number > 0 and at most 86400"),
    (dict(max_accel=True), "max_accel must be a number > 0"),
    (dict(max_neighbours=100), "max_neighbours must be a whole number from 0 to 64"),
    (dict(time_horizon=math.nan), "time_horizon must be a number > 0"),
    (dict(speed=2), "unknown parameter"),
])
def test_bad_crowd_parameters(params, message):
    world = _world()
    with pytest.raises(CrowdError, match=re.escape(message)):
        world.add_crowd("c", graph="g", **params)
    assert world.crowds == {}


def test_crowd_ids_and_graphs():
    world = _world()
    world.add_crowd("c", graph="g")
    with pytest.raises(CrowdError, match="crowd id 'c' is already in use"):
        world.add_crowd("c", graph="g")
    with pytest.raises(navcore.UnknownGraphError):
        world.add_crowd("d", graph="nope")
    with pytest.raises(CrowdError, match="no crowd 'x' in this world; crowds: 'c'"):
        world.crowd("x")
    crowd = world.crowd("c")
    world.remove_graph("g")                  # its crowds go with it
    assert world.crowds == {} and crowd.closed
    with pytest.raises(CrowdError, match="crowd 'c' was removed"):
        crowd.add([(0.5, 0.5)])


def test_a_graph_without_walls_is_refused_when_the_crowd_is_added():
    world = navcore.World()
    world.add_graph("r", type="csr", src=[0, 1], dst=[1, 2], cost=[1.0, 1.0])
    with pytest.raises(CrowdError, match="csr graph 'r' has no walls for a crowd"):
        world.add_crowd("c", graph="r")
    assert world.crowds == {}


def test_a_closed_world_refuses_crowd_changes():
    world = _world()
    crowd = world.add_crowd("c", graph="g")
    crowd.add([(0.5, 0.5)])
    world.close()
    before = _snapshot(crowd)
    for call in (lambda: crowd.add([(1.5, 0.5)], goals=[(7.5, 0.5)]),
                 lambda: crowd.set_goals([0], [(7.5, 0.5)]), lambda: crowd.step(0.1)):
        with pytest.raises(CrowdError, match="the world of crowd 'c' is closed"):
            call()
    assert _same(before, _snapshot(crowd))


def test_the_arrays_are_copies():
    world = _world()
    crowd = world.add_crowd("c", graph="g")
    crowd.add([(0.5, 0.5)], goals=[(7.5, 0.5)])
    for name in ("ids", "goals", "state", "positions", "velocities", "radii"):
        getattr(crowd, name)[...] = 0
    assert crowd.ids.tolist() == [0] and crowd.goals.tolist() == [[7.5, 0.5]]
    assert crowd.state_names() == ["waiting"] and crowd.positions.tolist() == [[0.5, 0.5]]


def test_no_goals_for_no_agents():
    world = _world()
    crowd = world.add_crowd("c", graph="g")
    crowd.set_goals([], [])
    assert crowd.add(np.zeros((0, 2))).size == 0 and len(crowd) == 0
