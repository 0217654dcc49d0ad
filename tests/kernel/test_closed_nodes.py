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
        # Polyanya expands intervals of edges: refused, naming the searches that close polygons
        with pytest.raises(navcore.QueryError, match="polygon_astar"):
            w.closed_nodes("m", (1, 1), (9, 1))
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
