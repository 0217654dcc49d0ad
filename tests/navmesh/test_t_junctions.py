"""Given meshes with T-junctions (a vertex of one polygon inside another
polygon's edge): arrays and bakes have the edge split at the vertex, so
the polygons on either side are joined there and paths cross; a Polyanya
file (one neighbour per edge) is refused, naming the polygon, the edge and
the vertex."""
import math

import numpy as np
import pytest

import navcore
from navcore import MeshFormatError
from navcore_navmesh import meshfile
from reference import random_free_points

pytestmark = pytest.mark.nojit

# the square [0, 8]^2 in seven convex polygons: the edge of A from (4, 0)
# to (4, 4) has B, C and D beside it (T-vertices (4, 1.5) and (4, 3)), and
# the diagonal of E from (4, 4) to (0, 8) has F and G beside it
# (T-vertex (2, 6)); no polygon shares a whole edge with A but E
VERTICES = [(0, 0), (4, 0), (4, 4), (0, 4), (8, 0), (8, 1.5), (4, 1.5), (8, 4), (4, 3),
            (0, 8), (8, 8), (2, 6)]
POLYGONS = [[0, 1, 2, 3],            # A
            [1, 4, 5, 6],            # B
            [6, 5, 7, 8],            # C
            [8, 7, 2],               # D
            [3, 2, 9],               # E
            [2, 7, 10, 11],          # F
            [11, 10, 9]]             # G


def _straight(s, g):
    return math.hypot(g[0] - s[0], g[1] - s[1])


@pytest.mark.parametrize("merge", [False, True])
def test_paths_cross_the_t_junctions_of_given_arrays(merge):
    w = navcore.World(autoload=False)
    g = w.add_graph("m", type="navmesh", vertices=VERTICES, polygons=POLYGONS, merge=merge)
    assert g.free_space.area == pytest.approx(64.0)
    if not merge:
        # ids stay; the long edges got the T-vertices, in order along them
        assert g.num_polygons == 7 and len(g.vertices) == 12
        assert g.polygon(0).tolist() == [0, 1, 6, 8, 2, 3]
        assert g.polygon(4).tolist() == [3, 2, 11, 9]
    # the union is the convex square: every shortest path is the segment
    rng = np.random.default_rng(5)
    pts = random_free_points(g.free_space, rng, 60)
    pts += [(1, 1), (7, 1), (1, 7), (7, 7), (3.9, 3.9), (4.1, 0.5)]
    for s, t in zip(pts[::2], pts[1::2]):
        r = w.find_path("m", s, t, algorithm="polyanya")
        assert r.found and r.cost == pytest.approx(_straight(s, t), rel=1e-9, abs=1e-12)
        f = w.find_path("m", s, t, algorithm="funnel")
        assert f.found and f.cost >= r.cost * (1 - 1e-12)
    # across A's old wall and E's old diagonal
    for s, t in (((1, 2), (7, 2)), ((1, 2), (7, 3.5)), ((0.5, 5), (5, 7))):
        assert w.find_path("m", s, t).cost == pytest.approx(_straight(s, t), rel=1e-12)


def test_t_junction_of_a_bake_is_split_on_loading(tmp_path):
    start = np.cumsum([0] + [len(p) for p in POLYGONS])
    arrays = meshfile.MeshArrays(np.array(VERTICES, dtype=np.float64),
                                 start.astype(np.int32),
                                 np.concatenate(POLYGONS).astype(np.int32))
    path = str(tmp_path / "t.npz")
    meshfile.save_mesh(path, arrays)
    w = navcore.World(autoload=False)
    w.add_graph("m", type="navmesh", mesh=path)
    assert w.find_path("m", (1, 2), (7, 7)).cost == pytest.approx(math.hypot(6, 5))


def test_t_junction_of_a_polyanya_file_is_refused_by_name(tmp_path):
    # polygon 0 (line 12) has vertex 6 inside its edge from vertex 1 to 2
    text = "mesh\n2\n8 3\n" + "".join(
        f"{x} {y} 1 0\n" for x, y in ((0, 0), (2, 0), (2, 2), (0, 2), (4, 0), (4, 1),
                                      (2, 1), (4, 2))) + \
        "4 0 1 2 3 -1 -1 -1 -1\n4 1 4 5 6 -1 -1 -1 2\n4 6 5 7 2 -1 1 -1 -1\n"
    path = tmp_path / "t.mesh"
    path.write_text(text)
    w = navcore.World(autoload=False)
    with pytest.raises(MeshFormatError) as info:
        w.add_graph("m", type="navmesh", mesh=str(path))
    assert info.value.line == 12
    assert "polygon 0 has vertex 6 inside its edge from vertex 1 to vertex 2 " \
           "(a T-junction)" in str(info.value)
    assert "m" not in w.graphs


def test_a_vertex_just_off_an_edge_is_no_t_junction():
    # (4, 1.5 + 1e-3) off A's right edge by 1e-4: B and C only come near A
    v = [(0, 0), (4, 0), (4, 4), (0, 4), (8, 0), (8, 1.5), (4.0001, 1.5), (8, 4)]
    w = navcore.World(autoload=False)
    g = w.add_graph("m", type="navmesh", vertices=v,
                    polygons=[[0, 1, 2, 3], [1, 4, 5, 6], [6, 5, 7, 2]])
    assert g.polygon(0).tolist() == [0, 1, 2, 3]
    assert not w.find_path("m", (1, 2), (7, 2)).found


def test_merging_leaves_no_spike_where_two_polygons_share_two_edges_in_a_row():
    # the mesh above with its T-junctions mended by hand: E shares (4, 4) -
    # (2, 6) with F and (2, 6) - (0, 8) with G, so once F and G are merged,
    # E and FG share two edges in a row; merging across either left the
    # other as a spike (a polygon naming (4, 4) twice)
    polygons = [[0, 1, 6, 8, 2, 3], *POLYGONS[1:4], [3, 2, 11, 9], *POLYGONS[5:]]
    w = navcore.World(autoload=False)
    g = w.add_graph("m", type="navmesh", vertices=VERTICES, polygons=polygons, merge=True)
    for p in range(g.num_polygons):
        ids = g.polygon(p).tolist()
        assert len(set(ids)) == len(ids), ids
    # the merged polygons pass every check a given mesh passes
    meshfile.mesh_arrays(g.vertices, [g.polygon(p).tolist() for p in range(g.num_polygons)])
    assert g.free_space.area == pytest.approx(64.0)
    for s, t in (((1, 1), (7, 7)), ((0.5, 7.5), (7.5, 0.5)), ((3.9, 3.9), (1, 7.9))):
        assert w.find_path("m", s, t).cost == pytest.approx(_straight(s, t), rel=1e-12)
