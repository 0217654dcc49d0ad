"""Argument checks of the world and its scheduler raise ``NavError``
subclasses that name the argument, never a raw ``TypeError``,
``OverflowError`` or ``MemoryError``."""
import numpy as np
import pytest

import navcore

pytestmark = pytest.mark.nojit


@pytest.fixture
def w():
    world = navcore.World(workers=1)
    world.add_graph("g", type="grid", rows=["....", "...."])
    yield world
    world.close()


@pytest.mark.parametrize("bad", ["1", float("nan"), True, [1]])
def test_ready_timeout(w, bad):
    with pytest.raises(navcore.FrameError, match="timeout"):
        w.ready(timeout=bad)


def test_ready_with_a_huge_or_infinite_timeout_waits_as_none_does(w):
    assert w.ready(timeout=1e300) and w.ready(timeout=float("inf"))
    assert w.ready(timeout=10 ** 400)


@pytest.mark.parametrize("bad", [5, "job", object()])
def test_schedule_depends_on(w, bad):
    with pytest.raises(navcore.NavError, match="depends_on"):
        w.scheduler.schedule(lambda: 1, depends_on=bad)


def test_schedule_depends_on_one_handle(w):
    first = w.scheduler.schedule(lambda: 1)
    assert w.scheduler.schedule(lambda: 2, depends_on=first).complete() == 2


@pytest.mark.parametrize("bad", [10 ** 400, float("inf"), -1, "1", True],
                         ids=["10**400", "inf", "-1", "str", "bool"])
def test_min_chunk_ms(w, bad):
    with pytest.raises(navcore.NavError, match="min_chunk_ms"):
        w.scheduler.min_chunk_ms = bad


@pytest.mark.parametrize("bad", ["1", -1, 2.5, True, None, [1]])
def test_first_walkable_count(bad):
    g = navcore.NavGraph.from_edges([0, 1], [1, 2])
    with pytest.raises(navcore.GraphError, match="first_walkable: count must be"):
        g.first_walkable(bad)


def test_first_walkable_finds_walkable_nodes_past_a_long_blocked_start():
    walkable = np.zeros(50_000, bool)
    walkable[[30_000, 30_002, 49_999]] = True
    g = navcore.NavGraph.from_edges([0], [1], num_nodes=50_000, walkable=walkable)
    assert g.first_walkable().tolist() == [30_000]
    assert g.first_walkable(2).tolist() == [30_000, 30_002]
    assert g.first_walkable(10).tolist() == np.flatnonzero(walkable).tolist()
    assert g.first_walkable(0).tolist() == []
    g.walkable[:] = False
    assert g.first_walkable(3).tolist() == []


@pytest.mark.parametrize("kind", [["grid"], None, 3])
def test_adopt_graph_of_a_kind_that_is_not_a_name(w, kind):
    g = navcore.World().add_graph("h", type="grid", rows=["..."])
    g.kind = kind
    with pytest.raises(navcore.UnknownGraphTypeError):
        w.adopt_graph(g)
    assert "h" not in w.graphs


def test_a_matrix_larger_than_memory_is_a_capacity_error(w):
    big = np.zeros(10 ** 6, dtype=np.int64)
    with pytest.raises(navcore.CapacityError, match="1000000 x 1000000 distance matrix"):
        w.distance_matrix("g", big, big)


def test_solve_checks_its_graph_and_request(w):
    from navcore import PathRequest, PathStatus
    g = w.graph("g")
    graph, req = w.prepare_path("g", (0, 0), (3, 1))
    assert w.solve(graph, req).status is PathStatus.FOUND
    for bad_graph, bad_req in ((None, req), (g, "request"),
                               (navcore.World().add_graph("g", type="grid", rows=[".."]),
                                req)):
        with pytest.raises(navcore.QueryError, match="solve takes"):
            w.solve(bad_graph, bad_req)
    for s, t in ((99, 0), (0, -1), (0, 2 ** 40)):
        with pytest.raises(navcore.NodeError):
            w.solve(g, PathRequest("g", s, t, "auto", s, t))
    w.update("g", cells=[(1, 0)], walkable=False)
    w.tick()
    assert w.solve(g, PathRequest("g", 1, 0, "auto", 1, 0)).status is \
        PathStatus.INVALID_START


def test_hierarchy_queries_check_their_node_ids():
    import navcore_areas
    world = navcore.World()
    g = world.add_graph("g", type="grid", rows=["..#..", "....."])
    h = navcore_areas.hierarchy_of(g)
    for call in (lambda: h.areas([0, 10]), lambda: h.areas([-1]), lambda: h.area(10 ** 12),
                 lambda: h.area("x"), lambda: h.same_area([0], [99]),
                 lambda: h.same_area([0, 1], [1]), lambda: h.forward_reach(-3),
                 lambda: h.nearest_reachable((0.5, 0.5), 10)):
        with pytest.raises(navcore.NodeError):
            call()
    assert h.area(0) == h.areas([4])[0] and h.same_area([0], [4]).tolist() == [True]


def test_a_contracted_graphs_search_checks_its_node_ids():
    import navcore_csr
    world = navcore.World()
    g = world.add_graph("g", type="grid", rows=["....", "...."])
    q = navcore_csr.contract(g).query()
    assert q.search(0, 7).cost == q.find_path(0, 7).cost
    for s, t in ((0, 8), (-1, 3), (2 ** 40, 0), ("a", 1)):
        with pytest.raises(navcore.NodeError):
            q.search(s, t)


@pytest.mark.parametrize("rows", [{"..."}, {"...": 1}, np.array("..."), 3, None.__class__],
                         ids=["set", "dict", "0-d", "int", "type"])
def test_grid_rows_that_are_not_a_list_of_strings(rows):
    with pytest.raises(navcore.NavError, match="rows must be"):
        navcore.World().add_graph("g", type="grid", rows=rows)


def test_map_text_that_is_not_text():
    import navcore_grid
    for bad in (None, 3, ["type octile"]):
        with pytest.raises(navcore.MapFormatError, match="text or bytes"):
            navcore_grid.parse_map(bad)


def test_the_csr_plugins_public_functions_check_their_input():
    import navcore_csr
    g = navcore.World().add_graph("g", type="grid", rows=["....", "...."])
    for call in (lambda: navcore_csr.distance_matrix(g, [[0, 1], [2]], [0]),
                 lambda: navcore_csr.distance_pairs(g, [[0, 1], [2]], [0, 1]),
                 lambda: navcore_csr.distance_matrix(g, [0, 99], [1]),
                 lambda: navcore_csr.path_costs(g, np.array([0, 99]), np.array([0, 2])),
                 lambda: navcore_csr.path_costs(g, np.array([0, 1]), np.array([0, 5])),
                 lambda: navcore_csr.path_costs(g, np.array([0, 1]), np.array([1, 2])),
                 lambda: navcore_csr.path_costs(g, np.array([0, 1]), [[0, 2]])):
        with pytest.raises(navcore.NodeError):
            call()
    assert navcore_csr.path_costs(g, np.array([0, 1, 5]), np.array([0, 2, 3])).tolist() \
        == [1.0, 0.0]
    big = np.zeros(10 ** 6, dtype=np.int64)
    with pytest.raises(navcore.CapacityError):
        navcore_csr.distance_matrix(g, big, big)


def test_heuristic_scale_checks_its_heuristic_and_positions():
    import navcore_csr
    w = navcore.World()
    g = w.add_graph("g", type="grid", rows=["...."])
    c = w.add_graph("c", type="csr", src=[0], dst=[1])
    assert 0 < navcore_csr.heuristic_scale(g, "octile") <= 1
    assert navcore_csr.heuristic_scale(c, "zero") == 0.0
    for graph, bad in ((g, "bogus"), (g, None), (c, "euclidean"), ("g", "zero")):
        with pytest.raises(navcore.QueryError):
            navcore_csr.heuristic_scale(graph, bad)


@pytest.mark.parametrize("param", ["agent_radius", "tile_size", "snap"])
@pytest.mark.parametrize("bad", [True, "0.5", -1.0, float("nan"), float("inf"), [1.0]],
                         ids=["bool", "str", "negative", "nan", "inf", "list"])
def test_navmesh_distances_are_numbers(param, bad):
    w = navcore.World()
    with pytest.raises(navcore.GraphError, match=param):
        w.add_graph("m", type="navmesh", bounds=(0, 0, 4, 4), **{param: bad})
    assert not w.graphs


@pytest.mark.parametrize("param, bad", [("length", ["10", "20"]), ("speed", [True, True]),
                                        ("length", [[1], [2]]), ("speed", ["fast", "slow"])])
def test_road_arrays_are_numbers(param, bad):
    given = {"length": [10.0, 20.0], "speed": [50.0, 50.0], param: bad}
    with pytest.raises(navcore.GraphError, match=param):
        navcore.World().add_graph("r", type="roads", src=[0, 1], dst=[1, 2],
                                  positions=[[7.4, 43.7], [7.401, 43.7], [7.402, 43.7]],
                                  keep="all", **given)


def _stable_id(value) -> str:
    """A test id that is the same in every process (pytest-xdist compares
    the ids its workers collect): reprs holding an address become the
    type's name."""
    text = repr(value)
    return type(value).__name__ if " at 0x" in text else text


_HOSTILE_POINTS = [float("nan"), (1.0, float("nan")), (1.0, float("inf")), (1.0,),
                   (1.0, 2.0, 3.0, 4.0), "1,2", None, [[1.0, 2.0]], (10 ** 400, 1.0), object()]


@pytest.mark.parametrize("bad", _HOSTILE_POINTS, ids=_stable_id)
@pytest.mark.parametrize("call", ["raycast_start", "raycast_end", "nearest_point"])
def test_point_queries_check_their_points(call, bad):
    world = navcore.World()
    world.add_graph("m", type="navmesh", bounds=(0, 0, 4, 4))
    version = world.graph("m").version
    with pytest.raises(navcore.NavError):
        if call == "raycast_start":
            world.raycast("m", bad, (2.0, 2.0))
        elif call == "raycast_end":
            world.raycast("m", (1.0, 1.0), bad)
        else:
            world.nearest_point("m", bad)
    assert world.graph("m").version == version


@pytest.mark.parametrize("bad", [True, -1, 1.5, "7", [3], np.random.RandomState(0)],
                         ids=_stable_id)
def test_random_point_rng_is_a_seed_or_a_generator(bad):
    world = navcore.World()
    world.add_graph("m", type="navmesh", bounds=(0, 0, 4, 4))
    with pytest.raises(navcore.QueryError, match="rng must be None, a non-negative int seed"):
        world.random_point("m", bad)
    assert world.random_point("m", np.int64(3)).node >= 0


def test_a_long_string_is_described_by_its_start_and_length():
    from navcore.validate import describe
    text = "v 0 0 0\n" * 500
    assert describe(text) == f"{text[:40]!r}... (a string of {len(text)} characters)"
    assert describe("short") == "'short'"
