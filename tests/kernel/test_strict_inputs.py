"""Lenient parsing that hid mistakes is gone: booleans are
True/False only, and malformed sources are GraphErrors naming the argument,
with the world unchanged."""
import numpy as np
import pytest

import navcore

pytestmark = pytest.mark.nojit


@pytest.mark.parametrize("params, message", [
    (dict(type="grid", rows=[".."], corner_cutting="no"),
     "corner_cutting must be True or False, got 'no'"),
    (dict(type="grid", rows=[".."], corner_cutting=0), "corner_cutting must be True or False"),
    (dict(type="csr", src=[0], dst=[1], directed="false"),
     "directed must be True or False, got 'false'"),
    (dict(type="csr", src=[0], dst=[1], directed=1), "directed must be True or False"),
    (dict(type="grid", map=123), "map must be the path of a MovingAI .map file, got 123"),
    (dict(type="grid", array=[[1, 2], [3]]), "rows of equal length"),
])
def test_mistyped_graph_parameters_are_graph_errors(params, message):
    w = navcore.World()
    with pytest.raises(navcore.GraphError, match=message):
        w.add_graph("x", **params)
    assert w.graphs == {}


def test_real_booleans_still_work():
    w = navcore.World()
    g = w.add_graph("g", type="grid", rows=["..", ".."], corner_cutting=True)
    c = w.add_graph("c", type="csr", src=[0], dst=[1], directed=False)
    assert g.corner_cutting is True and c.directed is False


@pytest.mark.parametrize("directed", [np.array([["a", "b"]]), np.array([True, False]), "no", 0])
def test_directed_must_be_true_or_false(directed):
    world = navcore.World()
    with pytest.raises(navcore.GraphError, match="directed must be True or False"):
        world.add_graph("c", type="csr", src=[0, 1], dst=[1, 2], directed=directed)
    assert "c" not in world.graphs


@pytest.mark.parametrize("value", [[1 + 2j, 3.0], np.array(["1.5", "2"]),
                                   np.array([3, 4], dtype="timedelta64[s]"), [True, False]])
def test_points_that_are_not_numbers_are_refused_not_cast(value):
    # numpy casts these to floats by dropping the imaginary part, parsing
    # the text or counting the seconds: a point other than the caller's
    world = navcore.World()
    world.add_graph("m", type="navmesh", bounds=(0, 0, 10, 10))
    with pytest.raises(navcore.NodeError):
        world.find_path("m", value, (5.0, 5.0))
    with pytest.raises(navcore.NodeError):
        world.distance_matrix("m", [value], [(5.0, 5.0)])


@pytest.mark.nojit
@pytest.mark.parametrize("nodes", [[3], [-1], np.array([-1]), np.array([5], np.int64), [1.5],
                                   [[0]], "x", [True], np.array([0, -1], np.int32),
                                   np.array([-3], np.int16), np.array([3], np.uint32),
                                   np.array([7], np.uint64)])
@pytest.mark.parametrize("positions", [True, False])
def test_points_of_refuses_ids_it_would_wrap_or_index_past(nodes, positions):
    # numpy's take raised a bare IndexError past the end and wrapped
    # negative ids round to the last nodes (narrow ints are checked as
    # unsigned: a negative one is then past the end)
    world = navcore.World()
    g = world.add_graph("c", type="csr", src=[0, 1], dst=[1, 2],
                        positions=[[0, 0], [1, 0], [2, 0]] if positions else None)
    want = [[2.0, 0.0], [0.0, 0.0]] if positions else [[np.nan] * 2] * 2
    for dtype in (np.int32, np.int64, np.uint8):
        assert np.array_equal(g.points_of(np.array([2, 0], dtype)), want, equal_nan=True)
    with pytest.raises(navcore.NodeError, match="nodes"):
        g.points_of(nodes)
