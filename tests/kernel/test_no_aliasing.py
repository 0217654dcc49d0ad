"""A graph never keeps a reference to a caller's array: writing
into the arrays a graph was built from changes nothing in the graph."""
import numpy as np
import pytest

import navcore


def _answers(world, gid, a, b):
    g = world.graph(gid)
    r = world.find_path(gid, a, b)
    pos = None if g.positions is None else g.positions.copy()
    return r.status.value, r.cost, r.nodes.tolist(), pos, g.walkable.copy(), \
        g.csr.cost.copy()


def _same(x, y):
    assert x[:3] == y[:3]
    for u, v in zip(x[3:], y[3:]):
        assert (u is None and v is None) or np.array_equal(u, v)


def _scribble(*arrays):
    for a in arrays:
        a[...] = a[::-1] if a.ndim == 1 else a[::-1, ::-1]
        if a.dtype.kind == "f":
            a *= 7.0


@pytest.mark.nojit
def test_csr_arrays_are_copied():
    src, dst = np.array([0, 1, 2, 0]), np.array([1, 2, 3, 3])
    cost, pos = np.array([1.0, 1.0, 1.0, 5.0]), np.array([[0, 0], [1, 0], [2, 0], [3, 0.]])
    walk = np.ones(4, bool)
    w = navcore.World()
    w.add_graph("c", type="csr", src=src, dst=dst, cost=cost, positions=pos, walkable=walk)
    before = _answers(w, "c", 0, 3)
    _scribble(src, dst, cost, pos)
    walk[:] = False
    _same(_answers(w, "c", 0, 3), before)


@pytest.mark.nojit
def test_grid_array_is_copied():
    arr = np.ones((4, 6))
    w = navcore.World()
    w.add_graph("g", type="grid", array=arr)
    before = _answers(w, "g", (0, 0), (5, 3))
    arr[:, 2] = np.inf
    _same(_answers(w, "g", (0, 0), (5, 3)), before)


def test_navmesh_vertex_and_polygon_arrays_are_copied():
    verts = np.array([[0, 0], [4, 0], [4, 4], [0, 4], [8, 0], [8, 4]], dtype=float)
    polys = np.array([[0, 1, 2, 3], [1, 4, 5, 2]])
    w = navcore.World()
    w.add_graph("m", type="navmesh", vertices=verts, polygons=polys)
    before = _answers(w, "m", (0.5, 0.5), (7.5, 3.5))
    verts *= 3.0
    polys[:] = polys[::-1]
    _same(_answers(w, "m", (0.5, 0.5), (7.5, 3.5)), before)


def test_road_arrays_are_copied():
    lon = np.array([24.90, 24.91, 24.92, 24.93])
    pos = np.column_stack([lon, np.full(4, 60.17)])
    src, dst = np.array([0, 1, 2, 1, 2, 3]), np.array([1, 2, 3, 0, 1, 2])
    length = np.full(6, 550.0)
    speed = np.full(6, 50.0)
    w = navcore.World()
    w.add_graph("r", type="roads", src=src, dst=dst, length=length, speed=speed,
                positions=pos)
    before = _answers(w, "r", 0, 3)
    _scribble(src, dst, length, speed, pos)
    _same(_answers(w, "r", 0, 3), before)
