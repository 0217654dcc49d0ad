"""Navmesh searches a slice at a time (``World.begin_search`` on a navmesh,
``navcore_navmesh.sliced``): Polyanya and the funnel stepped 1, 7 or 100
search nodes at a time end exactly as ``find_path`` (points, polygons,
cost, ``expanded``) on static, given and tiled meshes; a mesh re-tiled
between steps begins the search again; partial paths are paths inside
the mesh; each search holds a slot of its own and gives it back."""
import math

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point

import navcore
from navcore import PathStatus, QueryError
from navcore_navmesh import polyanya, sliced

from conftest import SHARED

pytestmark = pytest.mark.nojit           # small meshes: quick without the JIT too

MESHES = SHARED / "data" / "navmesh"
ALGORITHMS = ("polyanya", "funnel", "polygon_astar", "polygon_dijkstra")
PILLARS = [[(4, 0), (6, 0), (6, 8), (4, 8)], [(9, 3), (12, 3), (12, 12), (9, 12)],
           [(14, 6), (17, 9), (14, 12)]]


def _world(kind):
    w = navcore.World()
    if kind == "tiled":
        w.add_graph("m", type="navmesh", bounds=(0, 0, 20, 14), obstacles=PILLARS,
                    tile_size=3.0)
    elif kind == "static":
        w.add_graph("m", type="navmesh", bounds=(0, 0, 20, 14), obstacles=PILLARS,
                    tile_size=0)
    elif kind == "triangles":
        w.add_graph("m", type="navmesh", bounds=(0, 0, 20, 14), obstacles=PILLARS,
                    tile_size=4.0, merge=False)
    else:
        if not (MESHES / "arena.mesh").exists():
            pytest.skip("the shared navmesh data is not here")
        w.add_graph("m", type="navmesh", mesh=str(MESHES / "arena.mesh"))
    return w


def _points(graph, k, seed):
    """``k`` random points inside walkable polygons of ``graph``."""
    rng = np.random.default_rng(seed)
    free = _free(graph)
    x0, y0, x1, y1 = free.bounds
    out = []
    while len(out) < k:
        p = (float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1)))
        if free.buffer(-1e-6).contains(Point(p)):
            out.append(p)
    return out


def _free(graph):
    """The walkable polygons of ``graph`` as one shapely geometry."""
    polys = []
    for p in np.flatnonzero(graph.walkable):
        ids = graph.poly_verts[graph.poly_start[p]:graph.poly_start[p + 1]]
        if len(ids) >= 3:
            polys.append(shapely.Polygon(graph.vertices[ids]))
    return shapely.union_all(polys)


def _key(r):
    return (r.status, r.cost, r.expanded, np.asarray(r.nodes).tolist(),
            np.asarray(r.points).tolist())


def _stepped(w, a, b, algorithm, budget):
    s = w.begin_search("m", a, b, algorithm=algorithm)
    assert s.sliced
    steps = 0
    while not s.step(budget):
        steps += 1
        assert steps < 100000
    return s.result()


@pytest.mark.parametrize("kind", ["tiled", "static", "triangles", "arena"])
def test_stepped_searches_end_as_find_path(kind):
    w = _world(kind)
    g = w.graph("m")
    pts = _points(g, 8, seed=len(kind))
    pairs = list(zip(pts[:4], pts[4:])) + [(pts[0], pts[0]), (0, g.num_nodes - 1)]
    checked = 0
    for a, b in pairs:
        for algo in ALGORITHMS:
            whole = w.find_path("m", a, b, algorithm=algo)
            for budget in (1, 7, 100):
                assert _key(_stepped(w, a, b, algo, budget)) == _key(whole), (a, b, algo)
            checked += whole.expanded > 7          # paused at least once
    assert checked >= 4


def test_a_search_on_a_mesh_retiled_between_steps_ends_as_find_path_on_the_new_mesh():
    w = _world("tiled")
    g = w.graph("m")
    a, b = (1.0, 1.0), (19.0, 1.0)
    for algo in ("polyanya", "funnel"):
        s = w.begin_search("m", a, b, algorithm=algo)
        assert not s.step(1)
        before = (g.num_nodes, g.version)
        w.update("m", add_obstacle=[(6.5, 0), (8.5, 0), (8.5, 10), (6.5, 10)],
                 obstacle_id="wall-" + algo)
        w.tick()
        assert (g.num_nodes, g.version) != before          # tiles re-triangulated
        assert not s.step(1)
        if algo == "polyanya":            # a slot sized for the new mesh
            assert s._slot.fits(polyanya.search_space(g))
        while not s.step(3):
            pass
        got, want = s.result(), w.find_path("m", a, b, algorithm=algo)
        assert _key(got) == _key(want)
        assert got.cost > 19.0                   # around the new wall: not the old path
        assert w.is_current(got)
        w.update("m", remove_obstacle="wall-" + algo)
        w.tick()


@pytest.mark.parametrize("algo", ["polyanya", "funnel"])
def test_partial_paths_run_inside_the_mesh_from_the_start(algo):
    w = _world("tiled")
    g = w.graph("m")
    free = _free(g).buffer(1e-9)
    a, b = (1.0, 1.0), (19.0, 13.0)
    whole = w.find_path("m", a, b, algorithm=algo)
    s = w.begin_search("m", a, b, algorithm=algo)
    seen = 0
    while not s.step(1):
        r = s.result(partial=True)
        assert r.status is PathStatus.PARTIAL and r.expanded == s.expanded
        pts = np.asarray(r.points)
        assert pts[0].tolist() == list(a)
        assert free.covers(LineString(pts)) if len(pts) > 1 else True, pts.tolist()
        length = float(np.sqrt((np.diff(pts, axis=0) ** 2).sum(axis=1)).sum())
        assert math.isclose(r.cost, length, rel_tol=1e-12, abs_tol=1e-12)
        nodes = r.nodes.tolist()
        for p, q in zip(nodes, nodes[1:]):     # each polygon shares an edge with the next
            assert q in g.poly_adj[g.poly_start[p]:g.poly_start[p + 1]], (p, q)
        assert g.locate(tuple(pts[0])) == nodes[0] or algo == "polyanya"
        assert g.locate(tuple(pts[-1])) == nodes[-1]      # ends inside its last polygon
        seen += 1
    assert seen >= 2
    assert _key(s.result()) == _key(whole)


def test_searches_under_way_at_once_hold_slots_of_their_own_and_give_them_back():
    w = _world("tiled")
    g = w.graph("m")
    pts = _points(g, 8, seed=5)
    pairs = list(zip(pts[:4], pts[4:]))
    searches = [w.begin_search("m", a, b, algorithm="polyanya") for a, b in pairs]
    slots = [s._slot for s in searches]
    assert len({id(x) for x in slots}) == len(slots)
    while not all(s.done for s in searches):
        for s in searches:
            s.step(2)
    for s, (a, b) in zip(searches, pairs):
        assert _key(s.result()) == _key(w.find_path("m", a, b, algorithm="polyanya"))
    pool = g.scratch(sliced._POOL_KEY, list)
    assert {id(x) for x in pool} == {id(x) for x in slots}   # every one given back
    # closed midway: cancelled, its slot back in the pool for the next search
    s = w.begin_search("m", (1.0, 1.0), (19.0, 13.0), algorithm="polyanya")
    taken = s._slot
    assert all(x is not taken for x in pool)
    assert not s.step(1)
    s.close()
    assert s.result().status is PathStatus.CANCELLED and s._slot is None
    assert any(x is taken for x in pool)
    assert w.begin_search("m", (1.0, 1.0), (19.0, 13.0), algorithm="polyanya")._slot is taken


def test_a_stepped_search_whose_node_pool_runs_out_grows_it_and_ends_as_find_path():
    w = _world("tiled")
    a, b = (1.0, 1.0), (19.0, 13.0)
    want = w.find_path("m", a, b, algorithm="polyanya")
    s = w.begin_search("m", a, b, algorithm="polyanya")
    s._slot.grow(2)                       # room for two nodes: runs out at once
    while not s.step(3):
        pass
    assert _key(s.result()) == _key(want)
    assert len(s.result().nodes) and len(w.graph("m").scratch(sliced._POOL_KEY, list)[-1].hid) > 2


def test_an_end_just_off_the_mesh_is_moved_onto_it_as_find_path_does():
    w = _world("static")
    a, b = (1.0, -1e-9), (19.0, 13.0)            # a hair below the room
    want = w.find_path("m", a, b, algorithm="polyanya")
    assert want.found and want.points[0].tolist() != list(a)
    for budget in (1, 100):
        assert _key(_stepped(w, a, b, "polyanya", budget)) == _key(want)


def test_a_polygon_search_with_an_unknown_heuristic_is_refused_as_find_path_refuses_it():
    w = _world("static")
    with pytest.raises(QueryError, match="unknown heuristic"):
        w.find_path("m", 0, 3, algorithm="polygon_astar", heuristic="nope")
    with pytest.raises(QueryError, match="unknown heuristic"):
        w.begin_search("m", 0, 3, algorithm="polygon_astar", heuristic="nope")


def test_a_slot_serves_only_meshes_of_its_own_sizes():
    # a slot given back before a re-tiling must not serve the new mesh
    # when one of its arrays would be too small for it (the kernel does
    # not check indices)
    small = navcore.World().add_graph("a", type="navmesh", bounds=(0, 0, 10, 10),
                                      obstacles=[[(4, 0), (6, 0), (6, 8), (4, 8)]])
    large = _world("static").graph("m")
    a, b = polyanya.search_space(small), polyanya.search_space(large)
    assert polyanya.Scratch(a).fits(a) and polyanya.Scratch(b).fits(b)
    assert not polyanya.Scratch(a).fits(b) and not polyanya.Scratch(b).fits(a)
