"""A navmesh resolves the ends of a query, however a point is given, to
the polygon holding it, and answers the same path for each form; ends it
cannot place are the same ``NodeError`` as through ``locate``."""
from __future__ import annotations

import numpy as np
import pytest
import shapely

import navcore
from navcore import NodeError

# small meshes: the kernels also run as plain Python (make test-nojit)
pytestmark = pytest.mark.nojit


@pytest.fixture(scope="module", params=["tiled", "static"])
def world(request):
    w = navcore.World(warm_up=False)
    w.add_graph("m", type="navmesh", bounds=(0, 0, 10, 10),
                obstacles=[[(4, 0), (6, 0), (6, 6), (4, 6)]],
                tile_size=0 if request.param == "static" else 4)
    return w


FORMS = [
    ("float tuple", lambda x, y: (float(x), float(y))),
    ("list", lambda x, y: [float(x), float(y)]),
    ("int tuple", lambda x, y: (int(x), int(y))),
    ("numpy scalars", lambda x, y: (np.float64(x), np.float64(y))),
    ("float64 array", lambda x, y: np.array([x, y], dtype=np.float64)),
    ("float32 array", lambda x, y: np.array([x, y], dtype=np.float32)),
    ("int array", lambda x, y: np.array([x, y], dtype=np.int64)),
]


@pytest.mark.parametrize("name, form", FORMS, ids=[f[0] for f in FORMS])
def test_every_form_of_a_point_finds_the_polygon_holding_it(world, name, form):
    g = world.graph("m")
    for x, y in [(1, 1), (3, 8), (8, 2), (7, 9)]:
        p = g.node_of(form(x, y))
        assert p >= 0 and p == g.locate((float(x), float(y)))
        assert shapely.Polygon(g.polygon_points(p)).buffer(1e-9).covers(shapely.Point(x, y))
    r = world.find_path("m", form(3, 1), form(7, 1))
    # over the wall's top corners (4, 6) and (6, 6)
    assert r.found and r.cost == pytest.approx(2 * np.hypot(1, 5) + 2)
    np.testing.assert_allclose(r.points[[0, -1]], [(3, 1), (7, 1)])


@pytest.mark.parametrize("bad", [(float("nan"), 1.0), [1.0, float("inf")],
                                 np.array([np.nan, 1.0]), (1.0, 2.0, 3.0), ("a", "b"),
                                 np.array([1.0, 2.0, 3.0]), (True, False)])
def test_ends_it_cannot_place_are_the_errors_locate_gives(world, bad):
    g = world.graph("m")
    with pytest.raises(NodeError) as got:
        g.node_of(bad)
    with pytest.raises(NodeError) as want:
        g.locate(bad)
    assert str(got.value) == str(want.value)
    with pytest.raises(NodeError):
        world.find_path("m", bad, (1.0, 1.0))


def test_a_polygon_id_is_searched_from_its_centroid(world):
    g = world.graph("m")
    p, q = g.locate((1.0, 1.0)), g.locate((8.0, 8.0))
    r = world.find_path("m", p, q)
    by_points = world.find_path("m", tuple(g.positions[p]), tuple(g.positions[q]))
    assert r.found and r.cost == pytest.approx(by_points.cost)
