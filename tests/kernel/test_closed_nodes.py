"""``World.closed_nodes`` and its hook ``navcore_closed_nodes``: the nodes
a query's search closed, one per expansion ``find_path`` reports, with the
start's and the goal's among them; Dijkstra's set checked against a naive
Dijkstra's distances; searches that keep no record are refused."""
from __future__ import annotations

import numpy as np
import pytest

import navcore
from hooktags import exercises
from reference import grid_dijkstra

ROWS = ["..........",
        "..######..",
        "..#....#..",
        "..#.##.#..",
        "......#...",
        "..........",
        ]


@pytest.fixture
def world():
    w = navcore.World()
    w.add_graph("g", type="grid", rows=ROWS)
    yield w
    w.close()


@exercises("navcore_closed_nodes")
@pytest.mark.parametrize("algorithm", ["auto", "astar", "dijkstra", "jps"])
def test_a_grid_search_closes_as_many_cells_as_it_expanded(world, algorithm):
    start, goal = (0.5, 0.5), (4.5, 2.5)
    result, closed = world.closed_nodes("g", start, goal, algorithm=algorithm)
    truth = world.find_path("g", start, goal, algorithm=algorithm)
    assert result.found and result.cost == truth.cost
    assert closed.dtype == np.int32 and closed.size == truth.expanded == result.expanded
    assert np.unique(closed).size == closed.size
    s, t = world.graph("g").nodes_of(start, goal)
    assert {s, t} <= set(closed.tolist())
    assert world.graph("g").walkable[closed].all()


@exercises("navcore_closed_nodes")
def test_dijkstras_closed_cells_are_those_nearer_than_the_goal(world):
    result, closed = world.closed_nodes("g", (0, 0), (4, 2), algorithm="dijkstra")
    walkable = [[c == "." for c in row] for row in ROWS]
    dist = grid_dijkstra(walkable, start=(0, 0))
    W = len(ROWS[0])
    got = {(int(c) % W, int(c) // W) for c in closed}
    nearer = {xy for xy, d in dist.items() if d < result.cost - 1e-9}
    assert nearer <= got, sorted(nearer - got)
    assert all(dist[xy] <= result.cost + 1e-9 for xy in got)


@exercises("navcore_closed_nodes")
def test_navmesh_polygon_searches_and_road_bidijkstra_record_their_nodes():
    w = navcore.World()
    try:
        w.add_graph("m", type="navmesh", bounds=(0, 0, 10, 10),
                    obstacles=[[(4, 0), (6, 0), (6, 8), (4, 8)]])
        for algorithm in ("polygon_astar", "polygon_dijkstra", "funnel"):
            result, closed = w.closed_nodes("m", (1, 1), (9, 1), algorithm=algorithm)
            truth = w.find_path("m", (1, 1), (9, 1), algorithm=algorithm)
            assert closed.size == truth.expanded > 0
            assert {truth.nodes[0], truth.nodes[-1]} <= set(closed.tolist())
        lon = np.linspace(7.40, 7.44, 6)
        pos = np.column_stack([lon, np.full(6, 43.73)])
        src = np.arange(5)
        w.add_graph("r", type="roads", src=np.r_[src, src + 1], dst=np.r_[src + 1, src],
                    length=np.full(10, 500.0), speed=np.full(10, 50.0), positions=pos)
        result, closed = w.closed_nodes("r", 0, 5, algorithm="bidijkstra")
        truth = w.find_path("r", 0, 5, algorithm="bidijkstra")
        assert result.found and closed.size == truth.expanded > 0
        assert {0, 5} <= set(closed.tolist())
    finally:
        w.close()


@exercises("navcore_closed_nodes")
def test_bad_input_and_searches_without_a_record_are_refused(world):
    with pytest.raises(navcore.UnknownGraphError):
        world.closed_nodes("nope", 0, 1)
    with pytest.raises(navcore.NodeError):
        world.closed_nodes("g", 0, 10 ** 6)
    with pytest.raises(navcore.QueryError, match="algorithm"):
        world.closed_nodes("g", 0, 5, algorithm="nonsense")
    # an end on a wall: the refusal, and no search
    result, closed = world.closed_nodes("g", (0, 0), (3, 1))
    assert result.status is navcore.PathStatus.INVALID_GOAL and closed.size == 0
    # a contraction hierarchy answers "auto" now: its search keeps no record
    from navcore_csr import contract
    contract(world.graph("g"))
    with pytest.raises(navcore.QueryError, match="keeps no record"):
        world.closed_nodes("g", (0, 0), (4, 2))


def _on_an_edge(mesh, polygon, x, y):
    """Whether ``(x, y)`` lies on an edge of ``polygon`` within 1e-9."""
    ring = mesh.vertices[mesh.poly_verts[mesh.poly_start[polygon]:mesh.poly_start[polygon + 1]]]
    a, b = ring, np.roll(ring, -1, axis=0)
    d = b - a
    t = np.clip(((x - a[:, 0]) * d[:, 0] + (y - a[:, 1]) * d[:, 1])
                / np.maximum((d ** 2).sum(1), 1e-300), 0.0, 1.0)
    gap = np.hypot(a[:, 0] + t * d[:, 0] - x, a[:, 1] + t * d[:, 1] - y)
    return gap.min() <= 1e-9


def _polyanyas_intervals_hold(w, gid, start, goal, algorithm="auto"):
    """World.closed_nodes on a navmesh's exact search: one interval per
    expansion find_path reports, each on an edge shared by the two
    polygons it names, the start's and the goal's polygons among them."""
    mesh = w.graph(gid)
    result, closed = w.closed_nodes(gid, start, goal, algorithm=algorithm)
    truth = w.find_path(gid, start, goal, algorithm=algorithm)
    assert result.status is truth.status and result.cost == truth.cost
    if truth.expanded == 0:
        return 0
    assert isinstance(closed, navcore.SearchIntervals)
    assert len(closed.segments) == len(closed.polygons) == truth.expanded
    assert closed.segments.shape[1] == 4 and closed.polygons.dtype == np.int32
    for (x0, y0, x1, y1), (came, into) in zip(closed.segments, closed.polygons):
        for p in (came, into):
            assert _on_an_edge(mesh, p, x0, y0) and _on_an_edge(mesh, p, x1, y1)
    reached = set(closed.polygons.ravel().tolist())
    if truth.found:
        assert {int(truth.nodes[0]), int(truth.nodes[-1])} <= reached
    return truth.expanded


@exercises("navcore_closed_nodes")
@pytest.mark.parametrize("algorithm", ["auto", "polyanya", "astar", "dijkstra"])
def test_polyanya_closes_one_interval_of_an_edge_per_expansion(algorithm):
    w = navcore.World()
    try:
        w.add_graph("m", type="navmesh", bounds=(0, 0, 10, 10),
                    obstacles=[[(4, 0), (6, 0), (6, 8), (4, 8)],
                               [(1, 5), (3, 5), (3, 6), (1, 6)]])
        assert _polyanyas_intervals_hold(w, "m", (1, 1), (9, 1), algorithm) > 1
        assert _polyanyas_intervals_hold(w, "m", (2, 9), (9, 2), algorithm) > 1
    finally:
        w.close()


@exercises("navcore_closed_nodes")
def test_polyanyas_intervals_on_the_courtyard_scene():
    """Many pairs on a scene's mesh (obstacles, pillars): every search's
    intervals as many as its expansions, on the mesh's edges; pairs with
    no path (a blocked polygon) close the intervals they reached too."""
    from pathlib import Path
    sim = navcore.load_scene(Path(__file__).parents[2] / "scenes" / "courtyard.yaml")
    try:
        w = sim.world
        gid = next(g for g in w.graphs if w.graph(g).kind == "navmesh")
        mesh = w.graph(gid)
        rng = np.random.default_rng(5)
        walk = np.flatnonzero(mesh.walkable)
        total = 0
        for a, b in rng.choice(walk, size=(12, 2)):
            total += _polyanyas_intervals_hold(w, gid, tuple(mesh.positions[a, :2]),
                                               tuple(mesh.positions[b, :2]))
        assert total > 50
    finally:
        sim.close()


@exercises("navcore_closed_nodes")
def test_a_levels_exact_search_closes_intervals_in_its_ground_plane():
    """A 3D level searches its ground projection with Polyanya: the same
    record, its result lifted as find_path lifts it, the intervals on
    edges of the polygons they name (the upper deck's too)."""
    from levelkit import join, quad
    lower = quad(0, 24, 0, 10, 0.0)
    v, t = join(lower, quad(0, 10, 0, 10, 4.0), quad(10, 20, 6, 10, 4.0, 0.0, along="x"))
    w = navcore.World()
    try:
        g = w.add_graph("s", type="level", vertices=v, triangles=t)
        assert g.heights is not None
        total = 0
        for s in range(g.num_nodes):
            for e in (0, g.num_nodes - 1):
                total += _polyanyas_intervals_hold(w, "s", s, e)
        assert total > g.num_nodes
        # the polygon searches on a level record their polygons too
        result, closed = w.closed_nodes("s", 0, g.num_nodes - 1, algorithm="polygon_astar")
        assert closed.size == result.expanded > 0
    finally:
        w.close()
