"""``passable=`` on a navmesh built from a MovingAI map: the floor
characters (default MovingAI's ``.GS``; ``.G`` is Polyanya's rule, which
the shared benchmark data follows). The free space is the map rectangle
minus the cells the rule blocks, and exact paths through it equal a
visibility-graph reference on that space, built here cell by cell."""
import pytest
import shapely
from shapely.geometry import box

import navcore
from reference import visibility_length

# small meshes: the kernels also run as plain Python (make test-nojit)
pytestmark = pytest.mark.nojit

# a swamp (S) column with one water (W) cell: MovingAI walks through the
# swamp, Polyanya's rule walls the column off except the gap at the bottom
ROWS = ["....S....",
        "..@.S.@..",
        "....W....",
        "..@.S.@..",
        "........."]


def _map(tmp_path):
    path = tmp_path / "swamp.map"
    path.write_text(f"type octile\nheight {len(ROWS)}\nwidth {len(ROWS[0])}\nmap\n"
                    + "\n".join(ROWS) + "\n")
    return path


def _free(floor):
    blocked = [box(x, y, x + 1, y + 1) for y, row in enumerate(ROWS)
               for x, c in enumerate(row) if c not in floor]
    return box(0, 0, len(ROWS[0]), len(ROWS)).difference(shapely.union_all(blocked))


@pytest.mark.parametrize("passable, floor", [(None, ".GS"), (".GS", ".GS"), (".G", ".G"),
                                             (".GSW", ".GSW")])
def test_the_rule_shapes_the_free_space_and_the_paths(tmp_path, passable, floor):
    world = navcore.World(autoload=False)
    kw = {} if passable is None else {"passable": passable}
    graph = world.add_graph("m", type="navmesh", map=str(_map(tmp_path)), **kw)
    free = _free(floor)
    assert graph.free_space.symmetric_difference(free).area < 1e-9
    for s, g in [((0.5, 0.5), (8.5, 0.5)), ((1.5, 2.5), (7.5, 2.5)), ((3.5, 3.5), (5.5, 1.5))]:
        r = world.find_path("m", s, g)
        assert r.found and r.cost == pytest.approx(visibility_length(free, s, g), rel=1e-9)
    # across the swamp: straight with MovingAI's rule, round the bottom with Polyanya's
    straight = world.find_path("m", (0.5, 0.5), (8.5, 0.5)).cost
    assert (straight == pytest.approx(8.0)) == ("S" in floor)


def test_passable_errors_name_it(tmp_path):
    world = navcore.World(autoload=False)
    path = str(_map(tmp_path))
    for bad, words in [("", "non-empty string"), ("SX", "'X' is not one"), (b".G", "got b'.G'")]:
        with pytest.raises(navcore.GraphError, match=f"passable.*{words}"):
            world.add_graph("m", type="navmesh", map=path, passable=bad)
    with pytest.raises(navcore.GraphError, match="passable='.G' .* goes with map="):
        world.add_graph("m", type="navmesh", bounds=(0, 0, 4, 4), passable=".G")
    with pytest.raises(navcore.GraphError, match="passable= cannot come with vertices="):
        world.add_graph("m", type="navmesh", vertices=[(0, 0), (1, 0), (0, 1)],
                        polygons=[[0, 1, 2]], passable=".G")
    assert world.graphs == {}
