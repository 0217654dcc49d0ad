"""Malformed navmesh parameters raise a NavError subclass that names the
problem, and the world gets no graph."""
import math

import pytest
from shapely.geometry import Polygon

import navcore
from navcore import GraphError, MapFormatError, NavError

# small meshes: the kernels also run as plain Python (make test-nojit)
pytestmark = pytest.mark.nojit

BOWTIE = [(0, 0), (4, 4), (4, 0), (0, 4)]          # crosses itself at (2, 2)


@pytest.mark.parametrize("params, error, words", [
    (dict(walkable=[BOWTIE]), GraphError, "not a valid polygon: Self-intersection"),
    (dict(walkable=Polygon(BOWTIE)), GraphError, "Self-intersection"),
    (dict(bounds=(0, 0, 9, 9), obstacles=[BOWTIE]), GraphError, "obstacles is not a valid"),
    (dict(bounds=(0, 0, 9, 9), obstacles=[[(1, 1), (2, math.nan), (2, 2)]]), GraphError,
     "NaN"),
    (dict(walkable=[[(0, 0), (math.nan, 0), (1, 1)]]), GraphError, "NaN"),
    (dict(bounds=(0, 0, math.nan, 4)), GraphError, "bounds"),
    (dict(bounds=(0, 0, 4, 4), obstacles=[[(-1, -1), (5, -1), (5, 5), (-1, 5)]]), GraphError,
     "free space is empty"),
    (dict(bounds=(0, 0, 4, 4), agent_radius=2.5), GraphError, "empty after shrinking"),
    (dict(bounds=(0, 0, 4, 4), agent_radius=-1), GraphError, "agent_radius"),
    (dict(walkable=[[(0, 0), (1, 0), (2, 0)]]), GraphError, "not a valid polygon"),
    (dict(obstacles=[[(0, 0), (1, 0), (1, 1)]]), GraphError, "needs its free space"),
    (dict(walkable="a square"), GraphError, "walkable"),
    (dict(map="/no/such/dir/missing.map"), MapFormatError, "not found"),
])
def test_malformed_input_names_the_problem_and_adds_no_graph(params, error, words):
    world = navcore.World(autoload=False)
    with pytest.raises(error) as info:
        world.add_graph("m", type="navmesh", **params)
    assert isinstance(info.value, NavError)
    assert words in str(info.value)
    assert "m" not in world.graphs


def test_garbled_map_line_names_file_and_line(tmp_path):
    path = tmp_path / "bad.map"
    path.write_text("type octile\nheight 3\nwidth 4\nmap\n....\n..x.\n....\n")
    world = navcore.World(autoload=False)
    with pytest.raises(MapFormatError) as info:
        world.add_graph("m", type="navmesh", map=str(path))
    assert info.value.line == 6 and "bad.map" in str(info.value)
    assert "m" not in world.graphs


def test_unknown_parameter_is_refused():
    world = navcore.World(autoload=False)
    with pytest.raises(NavError):
        world.add_graph("m", type="navmesh", bounds=(0, 0, 1, 1), radius=1)
    assert "m" not in world.graphs


def test_a_sliver_mesh_gets_a_locate_index_of_a_few_cells():
    # bounds that cut the walkable square to a sliver of height 6e-285: the
    # index once asked for 1e10 cells (75 GiB) along its length
    world = navcore.World()
    g = world.add_graph("m", type="navmesh", walkable=[[0, 0], [10, 0], [10, 10], [0, 10]],
                        tile_size=0, bounds=(-3, -2, 15.0, 6.3080904905309664e-285))
    index = g.locate_index()
    assert index.nx * index.ny <= 4 * g.num_nodes + 1
    assert g.locate((5.0, 0.0)) >= 0
