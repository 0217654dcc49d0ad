"""What the hostile walk of the public surface found, one test each: ids
the kernels indexed unchecked (a segfault in a fresh process), arguments
that surfaced as raw numpy or Python errors, and names that were exported
but are the plugins' internals."""
import math

import numpy as np
import pytest

import navcore
import navcore_csr
import navcore_grid
import navcore_navmesh
import navcore_roads
from navcore import NodeError, PathStatus, QueryError

pytestmark = pytest.mark.nojit


@pytest.fixture(scope="module")
def grid():
    return navcore.World().add_graph("g", type="grid", rows=["....", ".#..", "...."])


@pytest.fixture(scope="module")
def room():
    w = navcore.World()
    return w, w.add_graph("m", type="navmesh", bounds=(0, 0, 10, 6),
                          obstacles=[[(4, 0), (6, 0), (6, 4), (4, 4)]])


@pytest.fixture(scope="module")
def square():
    w = navcore.World()
    return w.add_graph("r", type="roads", src=[0, 1, 2, 3], dst=[1, 2, 3, 0],
                       length=[100.0] * 4, speed=36.0, oneway=False, keep="all",
                       compress=False,
                       positions=[(0, 0), (0.001, 0), (0.001, 0.001), (0, 0.001)])


@pytest.mark.parametrize("search", [navcore_grid.grid_astar, navcore_grid.grid_jps])
@pytest.mark.parametrize("bad", [12, 10 ** 6, -1, 2 ** 63, 1.0, "3"])
def test_grid_searches_check_their_ids(grid, search, bad):
    with pytest.raises(NodeError, match="start"):
        search(grid, bad, 11)
    with pytest.raises(NodeError, match="goal"):
        search(grid, 0, bad)


@pytest.mark.parametrize("search", [navcore_grid.grid_astar, navcore_grid.grid_jps])
def test_grid_searches_answer_a_blocked_end_and_agree_with_the_world(grid, search):
    assert search(grid, 5, 11).status is PathStatus.INVALID_START       # 5 is the wall
    assert search(grid, 0, 5).status is PathStatus.INVALID_GOAL
    found = search(grid, 0, 11)
    assert found.cost == pytest.approx(navcore_csr.dijkstra(grid, 0, 11).cost)   # its CSR view


def test_grid_astar_heuristic_is_a_flag(grid):
    with pytest.raises(QueryError, match="heuristic"):
        navcore_grid.grid_astar(grid, 0, 11, heuristic="no")


@pytest.mark.parametrize("where", [(-1, 0), (4, 0), (0, 3), (1.5, 0)])
def test_grid_cells_out_of_the_grid(grid, where):
    with pytest.raises(NodeError):
        grid.node_id(*where)


@pytest.mark.parametrize("bad", [12, -1, np.nan, [1, 2]])
def test_grid_cell_of_and_points_of_check_ids(grid, bad):
    with pytest.raises(NodeError):
        grid.cell_of(bad)
    with pytest.raises(NodeError):
        grid.points_of([0, bad])


@pytest.mark.parametrize("cost, match", [([[1, 1], [1, np.nan]], "cost"),
                                         ([[1, 1], [1, 0]], "> 0"),
                                         ([[1, 1, 1]], "shape"),
                                         ([[1], [1, 2]], "cost")])
def test_grid_graph_checks_its_cost_array(cost, match):
    with pytest.raises(navcore.GraphError, match=match):
        navcore_grid.GridGraph(np.ones((2, 2), bool), cost)


def test_grid_graph_refuses_ragged_rows():
    with pytest.raises(navcore.GraphError, match="2-d array"):
        navcore_grid.GridGraph([[1], [1, 0]])


@pytest.mark.parametrize("bad", [10 ** 6, -1, 2 ** 31, 1.0, None])
def test_shortest_path_checks_a_given_start_polygon(room, bad):
    _, g = room
    if bad is None:         # None: located by the index, as without the argument
        assert navcore_navmesh.shortest_path(g, (1, 1), (9, 1), start_polygon=None).found
        return
    with pytest.raises(NodeError, match="start_polygon"):
        navcore_navmesh.shortest_path(g, (1, 1), (9, 1), start_polygon=bad)
    with pytest.raises(NodeError, match="goal_polygon"):
        navcore_navmesh.shortest_path(g, (1, 1), (9, 1), goal_polygon=bad)


@pytest.mark.parametrize("bad", [(math.nan, 1), (math.inf, 1), "ab", (1, 2, 3, 4)])
def test_shortest_path_checks_its_points(room, bad):
    _, g = room
    with pytest.raises(NodeError, match="start point"):
        navcore_navmesh.shortest_path(g, bad, (9, 1))


def test_shortest_path_with_polygons_given_is_the_worlds_path(room):
    w, g = room
    s, t = g.locate((1, 1)), g.locate((9, 1))
    got = navcore_navmesh.shortest_path(g, (1, 1), (9, 1), start_polygon=s, goal_polygon=t)
    assert got.cost == pytest.approx(w.find_path("m", (1, 1), (9, 1)).cost)


def test_pull_checks_the_corridor(room):
    w, g = room
    corridor = navcore_csr.astar(g, g.locate((1, 1)), g.locate((9, 1))).nodes
    with pytest.raises(NodeError, match="corridor"):
        navcore_navmesh.pull(g, [10 ** 6], (1, 1), (9, 1))
    with pytest.raises(NodeError, match="corridor"):
        navcore_navmesh.pull(g, [-1, 0], (1, 1), (9, 1))
    if len(corridor) >= 3:
        with pytest.raises(NodeError, match="share no edge"):
            navcore_navmesh.pull(g, [corridor[0], corridor[-1]], (1, 1), (9, 1))
    with pytest.raises(NodeError, match="start point"):
        navcore_navmesh.pull(g, corridor, (math.nan, 1), (9, 1))
    pulled = navcore_navmesh.pull(g, corridor, (1, 1), (9, 1))
    funnel = w.find_path("m", (1, 1), (9, 1), algorithm="funnel")
    assert pulled.points.tolist() == funnel.points.tolist()


@pytest.mark.parametrize("call", ["locate_point", "nearest"])
@pytest.mark.parametrize("bad", ["x", math.nan, None, [1, 2]])
def test_locate_index_checks_points(room, call, bad):
    _, g = room
    index = g.locate_index()
    args = (bad, 1.0) if call == "locate_point" else (bad, 1.0, 1.0)
    with pytest.raises(NodeError):
        getattr(index, call)(*args)


def test_locate_index_radius(room):
    _, g = room
    with pytest.raises(NodeError, match="radius"):
        g.locate_index().nearest(5.0, 2.0, math.nan)
    # (5, 3) lies in the obstacle, 1 from its sides
    assert g.locate_index().nearest(5.0, 3.0, 2.0)[0] >= 0
    assert g.locate_index().nearest(5.0, 3.0, 0.5)[0] == -1


def test_from_polygons_checks_its_arrays():
    v = np.array([(0, 0), (1, 0), (1, 1), (0, 1.0)])
    with pytest.raises(navcore.GraphError, match="poly_verts"):
        navcore_navmesh.NavMeshGraph.from_polygons(v, [0, 4], [0, 1, 2, 9])
    with pytest.raises(navcore.GraphError, match="poly_start"):
        navcore_navmesh.NavMeshGraph.from_polygons(v, [0, 2], [0, 1, 2, 3])
    with pytest.raises(navcore.GraphError, match="clockwise"):
        navcore_navmesh.NavMeshGraph.from_polygons(v, [0, 4], [3, 2, 1, 0])
    g = navcore_navmesh.NavMeshGraph.from_polygons(v, [0, 4], [0, 1, 2, 3])
    assert g.num_polygons == 1


@pytest.mark.parametrize("bad", [[0, 10 ** 6], [-1, 0], [0.5, 1.0], [[0, 1]]])
def test_road_path_edges_checks_node_ids(square, bad):
    with pytest.raises(NodeError, match="nodes"):
        square.path_edges(bad)


@pytest.mark.parametrize("bad", [[10 ** 6], [-1], [0.5]])
def test_road_route_points_checks_edges(square, bad):
    with pytest.raises(navcore.GraphError, match="edges"):
        square.route_points(bad)


def test_road_route_points_of_a_path(square):
    edges = square.path_edges([0, 1, 2])
    assert square.route_points(edges).tolist() == [[0, 0], [0.001, 0], [0.001, 0.001]]


def test_csr_edge_positions_and_set_cost_check_input(square):
    csr = navcore_csr.build_csr([0, 1], [1, 2], {"cost": [1.0, 2.0]}, 3)
    with pytest.raises(NodeError, match="src"):
        csr.edge_positions([10 ** 6], [0])
    assert csr.edge_positions([0, 1, 2], [1, 2, 0]).tolist() == [0, 1, -1]
    for positions, values in (([5], [1.0]), ([0], [math.nan]), ([0], [-1.0]), ([0], "x")):
        with pytest.raises(navcore.UpdateError):
            csr.set_cost(positions, values)
    csr.set_cost([1], [math.inf])             # a closed edge
    assert csr.cost.tolist() == [1.0, math.inf]


def test_simplify_levels_are_bounded():
    g = navcore.World().add_graph("c", type="csr", src=[0, 1], dst=[1, 2], num_nodes=3)
    with pytest.raises(QueryError, match="1..64"):
        navcore_csr.simplify(g, levels=10 ** 6)


@pytest.mark.parametrize("bad", [{}, 0, -1, "2", 1.0, True])
def test_reachable_counts_threads(bad):
    g = navcore.World().add_graph("c", type="csr", src=[0, 1], dst=[1, 2], num_nodes=3)
    with pytest.raises(QueryError, match="threads"):
        navcore_csr.reachable_counts(g, threads=bad)
    assert navcore_csr.reachable_counts(g, threads=None).tolist() == [3, 2, 1]


@pytest.mark.parametrize("call", [lambda g: navcore_csr.astar(g, 0, 1),
                                  lambda g: navcore_csr.reachable_counts(g),
                                  lambda g: navcore_csr.contract(g),
                                  lambda g: navcore_roads.snap(g, [(0, 0)]),
                                  lambda g: navcore_navmesh.path_lengths(g, [(0, 0)], [(1, 1)]),
                                  lambda g: navcore_grid.landmarks(g, 2)])
@pytest.mark.parametrize("bad", ["g", None, 3])
def test_a_graph_argument_must_be_a_graph(call, bad):
    with pytest.raises(navcore.NavError, match="must be a"):
        call(bad)


def test_a_file_name_with_a_nul_is_refused(room):
    _, g = room
    with pytest.raises(navcore.NavError, match="NUL"):
        navcore_navmesh.save_mesh("a\x00.npz", g)


INTERNAL = {
    navcore_csr: ["check_node"],
    navcore_navmesh: ["LOCATE_KEY", "SPACE_KEY", "SearchSpace", "TiledMesh", "TileGrid",
                      "TileLocateIndex", "node_with_grid", "funnel_path", "polyanya_path"],
}


@pytest.mark.parametrize("module", list(INTERNAL), ids=lambda m: m.__name__)
def test_internals_are_not_exported(module):
    assert not set(INTERNAL[module]) & set(module.__all__)
    assert not [n for n in INTERNAL[module] if hasattr(module, n)]
