"""``NavMeshGraph.replace_mesh``: the one way a navmesh's arrays change.

A graph whose mesh is replaced answers as a graph built from the new mesh
(checked against one built from it); mismatched arrays are refused before
anything changes; the swap is one write for ``read_consistent`` readers;
and a tiled mesh's update changes the graph's mesh only through it."""
from __future__ import annotations

import numpy as np
import pytest

import navcore
from navcore import GraphError
from navcore_navmesh import NavMeshGraph, path_lengths

# small meshes: the kernels also run as plain Python (make test-nojit)
pytestmark = pytest.mark.nojit

MESH_ATTRS = ("vertices", "poly_start", "poly_verts", "poly_adj", "poly_opposite",
              "poly_next", "corner", "walkable", "num_nodes", "_positions", "_csr")


def room(obstacle):
    """A 10 x 10 room, with a 2 x 6 wall from the floor when ``obstacle``."""
    w = navcore.World(warm_up=False)
    kw = {"obstacles": [[(4, 0), (6, 0), (6, 6), (4, 6)]]} if obstacle else {}
    return w.add_graph("r", type="navmesh", bounds=(0, 0, 10, 10), tile_size=0, **kw)


def arrays_of(g):
    return dict(vertices=g.vertices, poly_start=g.poly_start, poly_verts=g.poly_verts,
                csr=g.csr, positions=g.positions, walkable=g.walkable, poly_adj=g.poly_adj,
                poly_opposite=g.poly_opposite)


def test_a_replaced_mesh_answers_as_one_built_from_it():
    g, other = room(False), room(True)
    g.replace_mesh(**arrays_of(other))
    g.version += 1                          # what the update batch does once
    assert g.num_nodes == other.num_nodes and g.num_polygons == other.num_polygons
    assert g.csr.num_edges == other.csr.num_edges
    np.testing.assert_array_equal(g.positions, other.positions)
    np.testing.assert_array_equal(g.poly_next, other.poly_next)    # derived here
    np.testing.assert_array_equal(g.corner, other.corner)
    rng = np.random.default_rng(5)
    pts = rng.uniform(0.1, 9.9, (40, 2))
    pts = pts[~((pts[:, 0] > 3.9) & (pts[:, 0] < 6.1) & (pts[:, 1] < 6.1))]
    a, b = pts[: len(pts) // 2], pts[len(pts) // 2: 2 * (len(pts) // 2)]
    np.testing.assert_array_equal(g.locate_many(pts), other.locate_many(pts))
    want = path_lengths(other, a, b)
    np.testing.assert_allclose(path_lengths(g, a, b), want, rtol=1e-12)
    # the wall is there now: from one side of it to the other goes over its top
    assert path_lengths(g, [(3, 1)], [(7, 1)])[0] == pytest.approx(2 * np.hypot(1, 5) + 2)


def test_mismatched_arrays_are_refused_and_nothing_changes():
    g, other = room(False), room(True)
    before = {k: getattr(g, k) for k in MESH_ATTRS}
    bad = arrays_of(other)
    bad["walkable"] = bad["walkable"][:-1]
    with pytest.raises(GraphError, match="replace_mesh: arrays of different sizes"):
        g.replace_mesh(**bad)
    assert all(getattr(g, k) is v for k, v in before.items())


@pytest.mark.parametrize("key, change, message", [
    ("poly_verts", lambda a: np.where(a == a.max(), a.max() + 50, a).astype(np.int32),
     r"poly_verts\[\d+\] = \d+ is not in \[0, \d+\)"),
    ("poly_adj", lambda a: np.full_like(a, -2), r"poly_adj\[0\] = -2 is not in \[-1, "),
    ("poly_start", lambda a: a[::-1].copy(), "poly_start must rise from 0"),
    ("vertices", lambda a: a.astype(np.float32), "vertices must be a C-contiguous float64"),
    ("walkable", lambda a: a.tolist(), "walkable must be a C-contiguous bool array"),
])
def test_arrays_the_kernels_cannot_take_are_refused(key, change, message):
    g, other = room(False), room(True)
    before = {k: getattr(g, k) for k in MESH_ATTRS}
    bad = arrays_of(other)
    bad[key] = change(bad[key])
    with pytest.raises(GraphError, match=message):
        g.replace_mesh(**bad)
    assert all(getattr(g, k) is v for k, v in before.items())


def test_replacing_outside_a_batch_is_one_write_and_inside_joins_the_batch():
    g, other = room(False), room(True)
    calls = []
    begin, end = g.begin_write, g.end_write
    g.begin_write = lambda: (calls.append("begin"), begin())[1]
    g.end_write = lambda: (calls.append("end"), end())[1]
    g.replace_mesh(**arrays_of(other))
    assert calls == ["begin", "end"] and not g.writing_here()
    calls.clear()
    begin()                                  # a batch under way on this thread
    g.replace_mesh(**arrays_of(room(False)))
    assert calls == [] and g.writing_here()
    end()
    assert not g.writing_here()


def test_a_tiled_update_changes_the_mesh_only_through_replace_mesh(monkeypatch):
    w = navcore.World(warm_up=False)
    g = w.add_graph("t", type="navmesh", bounds=(0, 0, 20, 10), tile_size=4)
    inside = []
    writes = []
    real = NavMeshGraph.replace_mesh

    def replace_mesh(self, *args, **kwargs):
        inside.append(True)
        try:
            return real(self, *args, **kwargs)
        finally:
            inside.pop()

    def setattr_(self, name, value):
        if name in MESH_ATTRS:
            writes.append((name, bool(inside)))
        object.__setattr__(self, name, value)

    monkeypatch.setattr(NavMeshGraph, "replace_mesh", replace_mesh)
    monkeypatch.setattr(NavMeshGraph, "__setattr__", setattr_)
    n = g.num_nodes
    w.update("t", add_obstacle=[(9, 4), (11, 4), (11, 6), (9, 6)], obstacle_id="box")
    w.tick()
    assert writes and all(ok for _, ok in writes), writes
    assert {name for name, _ in writes} >= {"vertices", "poly_start", "walkable", "_csr"}
    assert g.num_nodes >= n
    # the obstacle is a wall now: a path across it goes round
    r = w.find_path("t", (8.0, 5.0), (12.0, 5.0))
    assert r.found and r.cost > 4.0 + 1e-9
