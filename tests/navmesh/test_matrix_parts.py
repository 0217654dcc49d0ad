"""Distance matrices answer a pair whose ends lie in different parts of the
mesh ``inf`` without a search (``polyanya.SearchSpace.parts``: polygons
joined by open links). Exactly where Polyanya starts: an end on a vertex
starts in every walkable polygon around it (across a pinch, where polygons
touch only at that corner, and across a closed portal), an end on an edge
in the polygons across the open links it lies on. So the matrices must
equal ``find_path``'s answer for every pair, and a reference that knows the
mesh's parts by construction (a path never squeezes through a pinch, but
starts or ends there from either side): the shortest length within a part
holding both ends (``reference.visibility_length``). The searches left out
are counted (``Scratch.skipped``): every ``inf`` entry, none else."""
import numpy as np
import pytest
import shapely
from shapely.geometry import Point, box

import navcore
from navcore_navmesh import LayeredMeshGraph, polyanya
from reference import random_free_points, visibility_length

# small meshes: the kernels also run as plain Python (make test-nojit)
pytestmark = pytest.mark.nojit

#: squares A, B (two triangles) and C in a chain touching at corners (2, 2)
#: and (4, 4) only; D1 and D2 sharing an edge whose portal the test closes;
#: E1, E2, E3 in a row, E2 blocked by the test
VERTICES = [(0, 0), (2, 0), (2, 2), (0, 2), (4, 2), (4, 4), (2, 4), (6, 4), (6, 6), (4, 6),
            (8, 0), (10, 0), (10, 2), (8, 2), (10, 4), (8, 4),
            (0, 8), (2, 8), (2, 10), (0, 10), (4, 8), (4, 10), (6, 8), (6, 10)]
POLYGONS = [[0, 1, 2, 3], [2, 4, 5], [2, 5, 6], [5, 7, 8, 9], [10, 11, 12, 13],
            [13, 12, 14, 15], [16, 17, 18, 19], [17, 20, 21, 18], [20, 22, 23, 21]]
#: the parts once D1 | D2 is closed and E2 blocked, by construction
PARTS = [box(0, 0, 2, 2), box(2, 2, 4, 4), box(4, 4, 6, 6), box(8, 0, 10, 2),
         box(8, 2, 10, 4), box(0, 8, 2, 10), box(4, 8, 6, 10)]
#: a point on the closed portal between D1 and D2 (not a corner): the
#: search starts in the polygon the locate index gives it only, which a
#: reference by geometry cannot tell
ON_CLOSED_PORTAL = (9.0, 2.0)


def _reference(parts, s, t):
    """The shortest length within a part holding both ends (``inf``: none)."""
    best = np.inf
    for part in parts:
        grown = part.buffer(1e-9)
        if grown.covers(Point(s)) and grown.covers(Point(t)):
            best = min(best, visibility_length(part, s, t))
    return best


def _find_path_costs(world, gid, sources, targets):
    out = np.empty((len(sources), len(targets)))
    for i, s in enumerate(sources):
        for j, t in enumerate(targets):
            r = world.find_path(gid, s, t)
            assert r.status.value in ("found", "unreachable"), (s, t, r.status)
            out[i, j] = r.cost
    return out


def _matrix_as_find_path(world, graph, ends):
    """The matrix over ``ends`` (graph ``m``), checked against per-pair
    ``find_path``, and how many of its pairs were answered without a search."""
    before = _skipped(graph)
    m = world.distance_matrix("m", ends, ends)
    skipped = _skipped(graph) - before
    want = _find_path_costs(world, "m", ends, ends)
    assert np.array_equal(np.isinf(m), np.isinf(want))
    np.testing.assert_allclose(m[np.isfinite(m)], want[np.isfinite(want)], rtol=1e-12,
                               atol=1e-12)
    return m, skipped


def _skipped(graph) -> int:
    return int(polyanya.search_space(graph).scratch().skipped[0])


def _ends(vertices, polygons, blocked=()):
    """Every vertex, the middle of every edge two polygons share (or
    would, but for a closed portal) and a point inside every polygon not
    ``blocked`` (``find_path`` refuses an end there, a matrix says ``inf``)."""
    v = np.asarray(vertices, dtype=float)
    ends = [tuple(p) for p in v.tolist()]
    edges = {}
    for k, poly in enumerate(polygons):
        for a, b in zip(poly, poly[1:] + poly[:1]):
            edges.setdefault(frozenset((a, b)), []).append(k)
    for e, owners in edges.items():
        if len(owners) == 2:
            a, b = sorted(e)
            ends.append(tuple(((v[a] + v[b]) / 2).tolist()))
    for k, poly in enumerate(polygons):
        if k in blocked:
            continue
        c = v[poly].mean(axis=0)
        ends.append(tuple((0.7 * c + 0.3 * v[poly[0]]).tolist()))
    return ends


def _corner_world():
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", vertices=VERTICES, polygons=POLYGONS)
    world.update("m", edges=[(4, 5), (5, 4)], cost=np.inf)     # close D1 | D2
    world.update("m", nodes=[7], walkable=False)               # block E2
    world.tick()
    return world, graph


def test_matrix_on_corners_pinches_and_closed_portals_equals_find_path_and_reference():
    world, graph = _corner_world()
    ends = _ends(VERTICES, POLYGONS, blocked=(7,))
    assert (2.0, 2.0) in ends and (4.0, 4.0) in ends and ON_CLOSED_PORTAL in ends
    m, skipped = _matrix_as_find_path(world, graph, ends)
    for i, s in enumerate(ends):
        for j, t in enumerate(ends):
            if ON_CLOSED_PORTAL not in (s, t):
                assert m[i, j] == pytest.approx(_reference(PARTS, s, t), rel=1e-9,
                                                abs=1e-12), (s, t)
    # a pinch corner is reached from both sides and reaches both, but no
    # path goes through it; a closed portal's corner is in both sides too
    inside = dict(zip(["A", "B1", "B2", "C", "D1", "D2", "E1", "E3"], ends[-8:]))
    row = dict(zip(ends, m[ends.index((2.0, 2.0))]))
    assert np.isfinite([row[inside["A"]], row[inside["B1"]], row[inside["B2"]]]).all()
    assert np.isinf(row[inside["C"]])
    row = dict(zip(ends, m[ends.index((4.0, 4.0))]))
    assert np.isfinite([row[inside["B1"]], row[inside["C"]]]).all()
    assert np.isinf(row[inside["A"]])
    row = dict(zip(ends, m[:, ends.index((8.0, 2.0))]))
    assert np.isfinite([row[inside["D1"]], row[inside["D2"]]]).all()
    assert np.isinf(m[ends.index(inside["D1"]), ends.index(inside["D2"])])
    # every unreachable pair was answered without a search, and only those
    assert skipped == np.isinf(m).sum() > 0
    # pairs: the same answers, the same searches left out
    before = _skipped(graph)
    pairs = world.distance_pairs("m", ends, ends[::-1])
    np.testing.assert_array_equal(pairs, np.diag(m[:, ::-1]))
    assert _skipped(graph) - before == np.isinf(pairs).sum()


def test_pinch_between_touching_obstacles_against_the_parts():
    # two blocks touch at (2, 2): the free space is two parts meeting there
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, 4, 4),
                            obstacles=[box(1, 0, 2, 2), box(2, 2, 3, 4)])
    parts = [shapely.union_all([box(0, 0, 1, 4), box(1, 2, 2, 4)]),
             shapely.union_all([box(2, 0, 4, 2), box(3, 2, 4, 4)])]
    assert graph.free_space.equals(shapely.union_all(parts))
    rng = np.random.default_rng(3)
    ends = [tuple(p) for p in graph.vertices.tolist()] + \
        [tuple(map(float, p)) for p in random_free_points(graph.free_space, rng, 8)]
    assert (2.0, 2.0) in ends
    m, skipped = _matrix_as_find_path(world, graph, ends)
    ref = np.array([[_reference(parts, s, t) for t in ends] for s in ends])
    assert np.array_equal(np.isinf(m), np.isinf(ref))
    np.testing.assert_allclose(m[np.isfinite(m)], ref[np.isfinite(ref)], rtol=1e-9,
                               atol=1e-12)
    k = ends.index((2.0, 2.0))
    assert np.isfinite(m[k]).all() and np.isfinite(m[:, k]).all()   # reaches both parts
    assert skipped == np.isinf(m).sum() > 0


def test_blocking_a_bridge_splits_the_parts_and_opening_it_joins_them():
    # the parts follow every batch: a matrix never keeps an old split
    world = navcore.World(autoload=False)
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, 9, 3),
                            obstacles=[box(3, 0, 6, 1), box(3, 2, 6, 3)], merge=False)
    a, b = (1.0, 1.5), (8.0, 1.5)
    bridge = [int(p) for p in np.unique(graph.locate_many(
        [(x, y) for x in np.linspace(3.1, 5.9, 15) for y in (1.1, 1.5, 1.9)]))]
    assert np.isfinite(world.distance_matrix("m", [a], [b])).all()
    world.update("m", nodes=bridge, walkable=False)
    world.tick()
    before = _skipped(graph)
    assert np.isinf(world.distance_matrix("m", [a, b], [b, a])[[0, 1], [0, 1]]).all()
    assert _skipped(graph) - before == 2
    world.update("m", nodes=bridge, walkable=True)
    world.tick()
    assert world.distance_matrix("m", [a], [b])[0, 0] == pytest.approx(7.0)


def _layered_world():
    """The corner mesh's A, B and C on the ground (y up) with a storey
    above A (own vertices: touching the pinch corner's ground point only
    in projection), and D apart."""
    v = [(x, 0.0, z) for x, z in VERTICES[:10]] + \
        [(0.0, 3.0, 0.0), (2.0, 3.0, 0.0), (2.0, 3.0, 2.0), (0.0, 3.0, 2.0)] + \
        [(x, 0.0, z) for x, z in VERTICES[10:14]]
    polys = POLYGONS[:4] + [[10, 11, 12, 13], [14, 15, 16, 17]]
    start = np.concatenate([[0], np.cumsum([len(p) for p in polys])])
    world = navcore.World(autoload=False)
    graph = LayeredMeshGraph.from_layers(np.array(v), start, np.concatenate(polys),
                                         world=world)
    graph.graph_id, graph.kind = "p", "level"
    world.adopt_graph(graph)
    return world, graph


def test_layered_matrix_and_find_path_start_from_a_pinch_into_both_sides():
    world, graph = _layered_world()
    pinch, b1, c, a = (2.0, 0.0, 2.0), (3.5, 0.0, 2.8), (5.0, 0.0, 5.0), (1.0, 0.0, 1.0)
    upper, upper_corner, d = (1.0, 3.0, 1.0), (2.0, 3.0, 2.0), (9.0, 0.0, 1.0)
    ends = [pinch, b1, c, a, (4.0, 0.0, 4.0), (3.0, 0.0, 3.0), upper, upper_corner, d]
    # find_path from the pinch into B: the areas' pre-check takes every
    # polygon around that corner, as the search starts in all of them
    r = world.find_path("p", pinch, b1)
    assert r.found and r.cost == pytest.approx(np.hypot(1.5, 0.8), rel=1e-12)
    assert world.find_path("p", pinch, c).status is navcore.PathStatus.UNREACHABLE
    assert world.find_path("p", upper_corner, b1).status is navcore.PathStatus.UNREACHABLE
    assert world.reachable("p", pinch, b1) and world.reachable("p", b1, pinch)
    assert not world.reachable("p", pinch, c) and not world.reachable("p", upper_corner, b1)
    assert world.reachable_many("p", [pinch, b1, pinch], [b1, pinch, c]).tolist() == \
        [True, True, False]
    before = _skipped(graph)
    m = world.distance_matrix("p", ends, ends)
    skipped = _skipped(graph) - before
    want = _find_path_costs(world, "p", ends, ends)
    assert np.array_equal(np.isinf(m), np.isinf(want))
    np.testing.assert_allclose(m[np.isfinite(m)], want[np.isfinite(want)], rtol=1e-13, atol=0)
    # on the ground plane, within the parts (the storey is a part of its own)
    ground = [PARTS[0], PARTS[1], PARTS[2], PARTS[3]]
    for i, s in enumerate(ends):
        for j, t in enumerate(ends):
            if (s[1] == 3.0) != (t[1] == 3.0):
                assert np.isinf(m[i, j])
            elif s[1] == 3.0:
                assert m[i, j] == pytest.approx(np.hypot(s[0] - t[0], s[2] - t[2]))
            else:
                assert m[i, j] == pytest.approx(
                    _reference(ground, (s[0], s[2]), (t[0], t[2])), rel=1e-9, abs=1e-12)
    assert skipped == np.isinf(m).sum() > 0


def test_links_keep_a_pinch_corner_in_both_parts():
    # the same pinch without links reaches B (above); a link elsewhere (A
    # up to the storey) must not take that away, in find_path or a matrix
    world, graph = _layered_world()
    pinch, b1 = (2.0, 0.0, 2.0), (3.5, 0.0, 2.8)
    graph.set_links([{"start": (1.0, 0.0, 1.0), "end": (1.0, 3.0, 1.0)}], radius=0.1)
    upper = (1.5, 3.0, 1.5)
    to_b = np.hypot(1.5, 0.8)
    # from the pinch: into B by walking, up by A's link (walk 1.414 + link 3)
    up = np.hypot(1.0, 1.0) + 3.0 + np.hypot(0.5, 0.5)
    assert world.distance_matrix("p", [pinch], [b1, upper]) == pytest.approx(np.array([[to_b, up]]))
    assert world.find_path("p", pinch, b1).cost == pytest.approx(to_b)
    r = world.find_path("p", pinch, upper)
    assert r.cost == pytest.approx(up) and len(r.links) == 1
    # to the pinch, from B and from the storey (down the link, both ways by default)
    assert world.distance_matrix("p", [b1, upper], [pinch]) == pytest.approx(
        np.array([[to_b], [up]]))
    assert world.find_path("p", b1, pinch).cost == pytest.approx(to_b)
    # B's side never walks across the pinch into A, links or not
    assert world.find_path("p", b1, upper).status is navcore.PathStatus.UNREACHABLE
    assert world.distance_matrix("p", [b1], [upper])[0, 0] == np.inf


def test_reachable_from_a_pinch_corner_agrees_with_find_path():
    # a point on a corner two parts share lies in both, so it reaches both
    world = navcore.World(autoload=False)
    world.add_graph("m", type="navmesh", bounds=(0, 0, 4, 4),
                    obstacles=[box(1, 0, 2, 2), box(2, 2, 3, 4)])
    pinch = (2.0, 2.0)
    ends = [pinch, (0.5, 3.5), (1.5, 3.0), (3.5, 0.5), (2.5, 1.0), (0.5, 0.5), (3.5, 3.5)]
    want = np.array([[world.find_path("m", a, b).found for b in ends] for a in ends])
    assert want[0].all() and want[:, 0].all() and not want.all()
    got = np.array([[world.reachable("m", a, b) for b in ends] for a in ends])
    np.testing.assert_array_equal(got, want)
    a = [s for s in ends for _ in ends]
    b = [t for _ in ends for t in ends]
    np.testing.assert_array_equal(world.reachable_many("m", a, b), want.ravel())
