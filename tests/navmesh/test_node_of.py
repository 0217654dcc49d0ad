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


def _truth(g, point) -> set:
    """The polygons a query's end may resolve to, by shapely: those
    holding ``point``; off the mesh within ``snap_distance``, the walkable
    ones nearest to it; farther off ``{-1}``."""
    pt = shapely.Point(point)
    polys = [shapely.Polygon(g.polygon_points(p)) if g.walkable[p] else None
             for p in range(g.num_polygons)]
    holding = {p for p, q in enumerate(polys) if q is not None and q.buffer(1e-9).covers(pt)}
    if holding:
        return holding
    d = [q.distance(pt) if q is not None else np.inf for q in polys]
    best = min(d)
    if best > g.snap_distance:
        return {-1}
    return {p for p, x in enumerate(d) if x <= best + 1e-9}


@pytest.mark.parametrize("name, form", FORMS, ids=[f[0] for f in FORMS])
def test_both_ends_of_a_query_are_located_as_shapely_places_them(name, form):
    # nodes_of locates a query's two ends in one call: on the mesh, just
    # off it (snapped to the nearest polygon), far off it (-1), in the wall
    w = navcore.World(warm_up=False)
    for tiles in (4, 0):
        g = w.add_graph(f"m{tiles}", type="navmesh", bounds=(0, 0, 10, 10),
                        obstacles=[[(4, 0), (6, 0), (6, 6), (4, 6)]], agent_radius=0.25,
                        tile_size=tiles)
        ends = [(1, 1), (3, 8), (10, 5), (0, 0), (5, 3), (-3, 4), (8, 2)]
        for a, b in zip(ends, ends[1:] + ends[:1]):
            s, t = g.nodes_of(form(*a), form(*b))
            assert s in _truth(g, a) and t in _truth(g, b), (a, b, s, t)


def test_ends_given_as_ids_and_points_mixed(world):
    g = world.graph("m")
    p = g.locate((1.0, 1.0))
    assert g.nodes_of(p, (8.0, 2.0)) == (p, g.locate((8.0, 2.0)))
    assert g.nodes_of((8.0, 2.0), p) == (g.locate((8.0, 2.0)), p)
    with pytest.raises(NodeError, match="node id|out of range|not in"):
        g.nodes_of((8.0, 2.0), g.num_nodes)


@pytest.mark.parametrize("bad", [(float("nan"), 1.0), np.array([1.0, np.inf]),
                                 np.array([1.0, 2.0, 3.0]), ("a", "b")])
def test_a_bad_end_is_the_error_locate_gives_whichever_end_it_is(world, bad):
    g = world.graph("m")
    with pytest.raises(NodeError) as want:
        g.locate(bad)
    for args in [(bad, (1.0, 1.0)), ((1.0, 1.0), bad)]:
        with pytest.raises(NodeError) as got:
            world.find_path("m", *args)
        assert str(got.value) == str(want.value)


def test_a_float64_array_end_gives_the_very_path_of_the_tuple(world):
    for a, b in [((0.5, 0.5), (9.5, 0.5)), ((3.0, 8.0), (7.0, 1.0)), ((5.0, 6.0), (5.0, 9.0))]:
        want = world.find_path("m", a, b)
        got = world.find_path("m", np.array(a), np.array(b))
        assert want.found and got.status is want.status
        assert got.points.tobytes() == want.points.tobytes() and got.cost == want.cost
        assert got.nodes.tolist() == want.nodes.tolist()
