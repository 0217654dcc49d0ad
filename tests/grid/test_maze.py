"""The seed-001 maze generator: a spanning tree of the room grid."""
import numpy as np
import pytest
from scipy import ndimage
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

import navcore
from navcore_grid import maze_cells, maze_edges


@pytest.mark.nojit
@pytest.mark.parametrize("w,h,seed", [(1, 1, 0), (5, 1, 1), (1, 6, 2), (9, 7, 3), (16, 16, 4)])
def test_maze_is_a_spanning_tree(w, h, seed):
    src, dst = maze_edges(w, h, seed=seed)
    n = w * h
    assert len(src) == n - 1
    # every edge joins grid neighbours
    assert np.all(((dst - src == 1) & (src // w == dst // w)) | (dst - src == w))
    adj = coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))
    assert connected_components(adj, directed=False)[0] == 1   # n-1 edges + connected = tree
    grid = maze_cells(w, h, seed=seed)
    assert grid.shape == (2 * h + 1, 2 * w + 1)
    assert grid.sum() == 2 * n - 1
    assert ndimage.label(grid)[1] == 1


@pytest.mark.nojit
def test_maze_seed_is_deterministic_and_matters():
    a = maze_cells(12, 12, seed=5)
    assert np.array_equal(a, maze_cells(12, 12, seed=5))
    assert not np.array_equal(a, maze_cells(12, 12, seed=6))


@pytest.mark.nojit
def test_grid_type_generates_a_maze():
    world = navcore.World()
    g = world.add_graph("m", type="grid", generate="maze", width=6, height=4, seed=1,
                        connectivity=4)
    assert (g.width, g.height) == (13, 9)
    assert np.array_equal(g.walkable.reshape(9, 13), maze_cells(6, 4, seed=1))
    r = world.find_path("m", (1, 1), (11, 7))
    assert r.status.value == "found"


@pytest.mark.nojit
@pytest.mark.parametrize("params,msg", [
    (dict(generate="maze", width=4), "needs width= and height="),
    (dict(generate="cave", width=4, height=4), "unknown generator 'cave'"),
    (dict(generate="maze", width=0, height=4), "width must be an integer"),
    (dict(generate="maze", width=4, height=4, seed=-1), "seed must be"),
    (dict(rows=["..."], width=3), "go with generate="),
])
def test_bad_maze_parameters(params, msg):
    world = navcore.World()
    with pytest.raises(navcore.GraphError, match=msg):
        world.add_graph("m", type="grid", **params)
    assert "m" not in world.graphs


@pytest.mark.nojit
def test_a_maze_too_large_to_build_is_refused_at_once():
    import navcore
    with pytest.raises(navcore.GraphError, match="too large: at most 16777216 rooms"):
        navcore.World(autoload=False).add_graph(
            "m", type="grid", generate="maze", width=16384, height=16384)
