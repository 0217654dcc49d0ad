"""Navmesh files: Polyanya ``.mesh`` (v2 and v3 read, v2 written), baked
``.npz``, ``vertices=``/``polygons=`` and ``navcore bake``.

The truth is outside the code under test: Polyanya's own ``arena.mesh``
(its vertex lines, written by Polyanya's tools), the grid map it was made
from (the same free space), the data README's counts (3860 traversable
faces, 53 pinch points), shapely unions, the exact any-angle lengths and,
when ``NAVCORE_POLYANYA_RUNNER`` names a built ``scenariorunner``,
Polyanya's C++ reading what navcore writes."""
import csv
import math
import os
import subprocess
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString

import navcore
from navcore import GraphError, MeshFormatError, NavError
from navcore.cli import main
from navcore.files import npz_bytes
from navcore_navmesh import build, meshfile

DATA = Path(__file__).resolve().parents[2].parent / "shared/data/navmesh"
ARENA_MESH, ARENA_MAP = DATA / "arena.mesh", DATA / "arena.map"
IRON = DATA / "scene_mp_2p_01.mesh"

needs_data = pytest.mark.skipif(not ARENA_MESH.exists() or not IRON.exists(),
                                reason=f"{DATA} not available")


def _world():
    return navcore.World(autoload=False)


def _tokens(path):
    """A plain reading of a v2 file, for comparisons: vertices, polygon
    vertex lists and each vertex line's neighbour list."""
    t = Path(path).read_text().split()
    assert t[:2] == ["mesh", "2"]
    nv, npoly, i = int(t[2]), int(t[3]), 4
    verts, vlists = [], []
    for _ in range(nv):
        verts.append((float(t[i]), float(t[i + 1])))
        n = int(t[i + 2])
        vlists.append([int(x) for x in t[i + 3:i + 3 + n]])
        i += 3 + n
    polys, nbs = [], []
    for _ in range(npoly):
        n = int(t[i])
        polys.append([int(x) for x in t[i + 1:i + 1 + n]])
        nbs.append([int(x) for x in t[i + 1 + n:i + 1 + 2 * n]])
        i += 1 + 2 * n
    assert i == len(t)
    return np.array(verts), polys, nbs, vlists


def _polygon_points(graph):
    """Each polygon as a tuple of corner coordinates (ids aside)."""
    return [tuple(map(tuple, graph.vertices[graph.poly_verts[a:b]].tolist()))
            for a, b in zip(graph.poly_start[:-1], graph.poly_start[1:])]


def _signed_areas(graph):
    return np.array([shapely.Polygon(pts).area * (1 if shapely.Polygon(pts).exterior
                                                   .is_ccw else -1)
                     for pts in _polygon_points(graph)])


def _pinch_points(free):
    """Points where the boundary of ``free`` touches itself (two obstacles
    meeting at a corner): coordinates that appear twice in its rings."""
    seen = Counter()
    for part in shapely.get_parts(free):
        for ring in [part.exterior, *part.interiors]:
            seen.update(map(tuple, np.asarray(ring.coords)[:-1].tolist()))
    return sorted(p for p, n in seen.items() if n >= 2)


def _same_rotation(a, b):
    return len(a) == len(b) and any(a[k:] + a[:k] == b for k in range(max(len(a), 1)))


# -- the real files ------------------------------------------------------------

@needs_data
@pytest.mark.nojit
def test_arena_mesh_covers_exactly_the_free_space_of_arena_map():
    w = _world()
    g = w.add_graph("m", type="navmesh", mesh=str(ARENA_MESH))
    assert g.num_polygons == 120 and len(g.vertices) == 112
    # y-down grid coordinates, positive signed area: used as they are
    assert (_signed_areas(g) > 0).all()
    verts, polys, _, _ = _tokens(ARENA_MESH)
    assert np.array_equal(g.vertices, verts)
    assert g.poly_verts.tolist() == [v for p in polys for v in p]
    free = build.map_free_space(ARENA_MAP, passable=".G")       # Polyanya's rule
    assert g.free_space.symmetric_difference(free).area == 0
    assert g.free_space.area == free.area == 2054


@needs_data
@pytest.mark.nojit
def test_iron_harvest_v3_mesh_keeps_its_traversable_faces_and_never_squeezes():
    w = _world()
    g = w.add_graph("m", type="navmesh", mesh=str(IRON))
    assert g.num_polygons == 3860                      # the README's count
    assert (_signed_areas(g) > 0).all()                # y up, counter-clockwise
    # every polygon is a traversable face of the file, 1-based ids made 0-based
    lines = IRON.read_text().splitlines()
    nv = int(lines[2].split()[0])
    faces = [ln.split() for ln in lines[3 + nv:]]
    trav = [[int(v) - 1 for v in f[2:2 + int(f[1])]] for f in faces if f[0] == "1"]
    assert g.poly_verts.tolist() == [v for f in trav for v in f]
    # the union's boundary touches itself at 53 points (README); at each
    # of them the polygons around it fall apart into separate fans: no
    # graph edge joins two polygons that share only that vertex
    pinches = _pinch_points(g.free_space)
    assert len(pinches) == 53
    index = {tuple(p): i for i, p in enumerate(g.vertices.tolist())}
    polys = [set(g.polygon(p).tolist()) for p in range(g.num_polygons)]
    csr = g.csr
    for p in range(g.num_polygons):
        for q in csr.targets[csr.offsets[p]:csr.offsets[p + 1]].tolist():
            assert len(polys[p] & polys[q]) == 2, (p, q)      # a whole edge
    for pt in pinches:
        v = index[pt]
        around = [p for p in range(g.num_polygons) if v in polys[p]]
        # components of the polygons around v, joined by graph edges
        comp = {p: p for p in around}

        def find(p):
            while comp[p] != p:
                p = comp[p]
            return p
        for p in around:
            for q in csr.targets[csr.offsets[p]:csr.offsets[p + 1]].tolist():
                if q in comp:
                    comp[find(p)] = find(q)
        assert len({find(p) for p in around}) >= 2, pt


# -- Polyanya v2 written ---------------------------------------------------------

@needs_data
@pytest.mark.nojit
def test_v2_written_from_arena_mesh_is_polyanyas_own_file_up_to_list_starts(tmp_path):
    w = _world()
    g = w.add_graph("m", type="navmesh", mesh=str(ARENA_MESH))
    out = tmp_path / "again.mesh"
    meshfile.write_polyanya_mesh(out, g)
    verts, polys, nbs, vlists = _tokens(out)
    verts0, polys0, nbs0, vlists0 = _tokens(ARENA_MESH)
    assert np.array_equal(verts, verts0) and polys == polys0 and nbs == nbs0
    # the vertex lines list the polygons round the vertex from an
    # arbitrary start: Polyanya's tools and navcore agree up to that start
    for v, (a, b) in enumerate(zip(vlists, vlists0)):
        assert _same_rotation(a, b), (v, a, b)
    # and reading it again gives the same graph
    h = w.add_graph("h", type="navmesh", mesh=str(out))
    assert np.array_equal(h.poly_verts, g.poly_verts)
    assert np.array_equal(h.poly_adj, g.poly_adj)


def _wedge(a0, a1):
    """An obstacle triangle with its apex at (3, 3), from angle a0 to a1."""
    return [(3, 3)] + [(3 + 2 * math.cos(math.radians(a)), 3 + 2 * math.sin(math.radians(a)))
                       for a in (a0, a1)]


@pytest.mark.nojit
@pytest.mark.parametrize("obstacles, pinch, gaps", [
    # two boxes touching at (2, 2): the free space pinches there
    ([[(1, 1), (2, 1), (2, 2), (1, 2)], [(2, 2), (3, 2), (3, 3), (2, 3)]], (2.0, 2.0), 2),
    # three wedges meeting at (3, 3): three fans of free space round it
    ([_wedge(0, 60), _wedge(120, 180), _wedge(240, 300)], (3.0, 3.0), 3),
])
def test_v2_vertex_lines_list_polygons_round_the_vertex_with_obstacle_gaps(
        tmp_path, obstacles, pinch, gaps):
    w = _world()
    g = w.add_graph("m", type="navmesh", bounds=(0, 0, 6, 6), obstacles=obstacles)
    out = tmp_path / "pinch.mesh"
    meshfile.write_polyanya_mesh(out, g)
    verts, polys, _, vlists = _tokens(out)
    count = {tuple(verts[v]): lst.count(-1) for v, lst in enumerate(vlists)}
    assert count[pinch] == gaps                       # Polyanya: ambiguous
    assert count[(0.0, 0.0)] == count[(6.0, 6.0)] == 1  # corners
    assert sum(n >= 2 for n in count.values()) == 1
    inner = [p for p, n in count.items() if n == 0]
    assert all(0 < x < 6 and 0 < y < 6 for x, y in inner)
    for v, lst in enumerate(vlists):
        # each vertex lists exactly the polygons that use it
        assert sorted(p for p in lst if p >= 0) == \
            sorted(p for p, vs in enumerate(polys) if v in vs)
        # after a polygon comes the one across its edge that ends at the
        # vertex (or a gap)
        for a, b in zip(lst, lst[1:] + lst[:1]):
            if a >= 0:
                k = polys[a].index(v)
                ending = {polys[a][k - 1], v}
                across = [q for q, vs in enumerate(polys) if q != a and ending <= set(vs)]
                assert [b] == (across or [-1]), (v, lst)
        # and the whole list goes once round the vertex counter-clockwise
        # (the direction to each polygon's centroid, in list order)
        real = [p for p in lst if p >= 0]
        angle = [math.atan2(*(verts[polys[p]].mean(axis=0) - verts[v])[::-1]) for p in real]
        turn = sum((b - a) % (2 * math.pi) for a, b in zip(angle, angle[1:] + angle[:1]))
        assert len(real) < 2 or turn == pytest.approx(2 * math.pi), (v, lst)


@needs_data
@pytest.mark.nojit
def test_v2_round_trip_of_the_v3_mesh_and_of_a_map_mesh(tmp_path):
    w = _world()
    for name, params in (("iron", dict(mesh=str(IRON))), ("map", dict(map=str(ARENA_MAP)))):
        g = w.add_graph(name, type="navmesh", **params)
        out = tmp_path / f"{name}.mesh"
        meshfile.write_polyanya_mesh(out, g)
        h = w.add_graph(name + "2", type="navmesh", mesh=str(out))
        # unused vertices are dropped (Polyanya wants polygons round each
        # one): the same polygons, corner by corner
        assert _polygon_points(h) == _polygon_points(g)
        assert len(h.vertices) == len(np.unique(g.poly_verts))
        assert h.csr.targets.tolist() == g.csr.targets.tolist()


@needs_data
@pytest.mark.skipif(not os.environ.get("NAVCORE_POLYANYA_RUNNER"),
                    reason="set NAVCORE_POLYANYA_RUNNER to a built Polyanya scenariorunner")
@pytest.mark.parametrize("name, params", [
    ("arena.mesh", dict(mesh="arena.mesh")), ("arena", dict(map="arena.map")),
    ("den312d", dict(map="den312d.map")),
    ("scene_mp_2p_01.mesh", dict(mesh="scene_mp_2p_01.mesh"))])
def test_polyanya_cpp_finds_the_exact_lengths_on_meshes_navcore_writes(tmp_path, name,
                                                                      params):
    w = _world()
    params = {k: str(DATA / v) for k, v in params.items()}
    if "map" in params:
        params["passable"] = ".G"          # the data's rule is Polyanya's
    g = w.add_graph("m", type="navmesh", **params)
    meshfile.write_polyanya_mesh(tmp_path / "m.mesh", g)
    rows = list(csv.reader(open(DATA / f"{name}.anyangle.csv")))[1:]
    with open(tmp_path / "m.scen", "w") as f:
        f.write("version 1\n")
        f.writelines(f"0 m 1 1 {r[0]} {r[1]} {r[2]} {r[3]} {r[4]}\n" for r in rows)
    run = subprocess.run([os.environ["NAVCORE_POLYANYA_RUNNER"], str(tmp_path / "m.mesh"),
                          str(tmp_path / "m.scen")], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    found = [float(ln.split(";")[-2]) for ln in run.stdout.splitlines()[1:] if ln.strip()]
    assert found == pytest.approx([float(r[4]) for r in rows], rel=1e-8)


# -- baked .npz ---------------------------------------------------------------------

def _queries(name):
    with open(DATA / f"{name}.anyangle.csv") as f:
        return [tuple(float(v) for v in row[:5]) for row in list(csv.reader(f))[1:]]


@needs_data
@pytest.mark.nojit
def test_npz_round_trip_gives_the_same_arrays_and_answers(tmp_path):
    w = _world()
    g = w.add_graph("map", type="navmesh", map=str(ARENA_MAP), agent_radius=0.2)
    meshfile.save_mesh(tmp_path / "arena.npz", g)
    h = w.add_graph("baked", type="navmesh", mesh=str(tmp_path / "arena.npz"))
    for key in ("vertices", "poly_start", "poly_verts", "poly_adj"):
        a, b = getattr(g, key), getattr(h, key)
        assert a.dtype == b.dtype and np.array_equal(a, b), key
    # centroids and centroid distances: the tiles compute them their own
    # way (per triangle, as tiles change), the loader from the polygons
    assert np.allclose(g.positions, h.positions, rtol=1e-12, atol=0)
    # the agent radius stays in the snap distance: ends up to 0.2 off the
    # shrunk mesh (a unit against a wall) snap onto it in both; the ground
    # before shrinking (scenes draw it) comes along
    assert h.snap_distance == g.snap_distance > 0.2
    assert h.agent_radius == g.agent_radius == 0.2
    assert h.ground.equals_exact(g.ground, 0) and h.ground.area == 2054
    assert np.allclose(g.csr.cost, h.csr.cost, rtol=1e-12, atol=0)
    assert g.free_space.symmetric_difference(h.free_space).area < 1e-9
    found = 0
    for sx, sy, gx, gy, _ in _queries("arena")[:40]:
        a = w.find_path("map", (sx, sy), (gx, gy))
        b = w.find_path("baked", (sx, sy), (gx, gy))
        assert a.status == b.status
        if a.status is navcore.PathStatus.FOUND:    # the radius walls some ends in
            assert a.cost == b.cost and np.array_equal(a.points, b.points)
            found += 1
    assert found >= 30
    # the file holds what the docstring says and its checksum, nothing pickled
    with np.load(tmp_path / "arena.npz", allow_pickle=False) as z:
        assert sorted(z.files) == sorted([*meshfile.NPZ_ARRAYS, "checksum"])
        assert str(z["format"]) == "navcore-navmesh" and int(z["version"]) == 1


# -- vertices= / polygons= -------------------------------------------------------

@needs_data
@pytest.mark.nojit
def test_vertices_and_polygons_give_the_mesh_the_file_gives():
    verts, polys, _, _ = _tokens(ARENA_MESH)
    w = _world()
    f = w.add_graph("file", type="navmesh", mesh=str(ARENA_MESH))
    lists = w.add_graph("lists", type="navmesh", vertices=verts.tolist(), polygons=polys)
    padded = np.full((len(polys), 5), -1)
    for i, p in enumerate(polys):
        padded[i, :len(p)] = p
    arr = w.add_graph("array", type="navmesh", vertices=verts, polygons=padded)
    # clockwise as a whole: reversed back
    cw = w.add_graph("cw", type="navmesh", vertices=verts, polygons=[p[::-1] for p in polys])
    for g in (lists, arr):
        for key in ("vertices", "poly_start", "poly_verts", "poly_adj"):
            assert np.array_equal(getattr(g, key), getattr(f, key)), key
    assert sorted(map(frozenset, _polygon_points(cw))) == \
        sorted(map(frozenset, _polygon_points(f)))
    assert (_signed_areas(cw) > 0).all()
    assert w.find_path("cw", (2.5, 2.5), (40.5, 40.5)).cost == \
        pytest.approx(w.find_path("file", (2.5, 2.5), (40.5, 40.5)).cost, rel=1e-12)


# -- agent_radius with a given mesh -------------------------------------------------

@needs_data
@pytest.mark.nojit
def test_agent_radius_shrinks_a_given_mesh_and_triangulates_it_again():
    w = _world()
    g = w.add_graph("m", type="navmesh", mesh=str(ARENA_MESH), agent_radius=0.25)
    free = build.map_free_space(ARENA_MAP, passable=".G")       # Polyanya's rule
    want = shapely.buffer(free, -0.25, join_style="mitre")
    assert g.free_space.symmetric_difference(want).area < 1e-9
    union = meshfile.union(g)                # the triangles cover it, nothing more
    assert union.symmetric_difference(want).area < 1e-9
    assert g.agent_radius == 0.25
    assert g.ground.symmetric_difference(free).area == 0     # before shrinking
    # every corner keeps the radius from the walls of the original space
    walls = free.boundary
    assert min(walls.distance(shapely.Point(v)) for v in g.vertices) >= 0.25 - 1e-9


@needs_data
@pytest.mark.nojit
def test_a_given_mesh_keeps_its_polygons_unless_merge_is_asked(tmp_path):
    w = _world()
    kept = w.add_graph("kept", type="navmesh", mesh=str(ARENA_MESH))
    merged = w.add_graph("merged", type="navmesh", mesh=str(ARENA_MESH), merge=True)
    assert kept.num_polygons == 120 and merged.num_polygons < 100
    assert merged.free_space.symmetric_difference(kept.free_space).area < 1e-9
    # shrunk for an agent, the mesh is navcore's own: merged unless told not
    shrunk = w.add_graph("shrunk", type="navmesh", mesh=str(ARENA_MESH), agent_radius=0.25)
    bare = w.add_graph("bare", type="navmesh", mesh=str(ARENA_MESH), agent_radius=0.25,
                       merge=False)
    assert (np.diff(bare.poly_start) == 3).all()
    assert shrunk.num_polygons < bare.num_polygons
    assert shrunk.free_space.symmetric_difference(meshfile.union(shrunk)).area < 1e-9
    assert shrunk.snap_distance == pytest.approx(kept.snap_distance + 0.25, abs=1e-6)
    assert kept.agent_radius == 0 and kept.ground is None
    # a bake shrunk by 0.25, shrunk by 0.25 more: radius and snap add up,
    # the ground stays the space before any shrinking
    meshfile.save_mesh(tmp_path / "s.npz", shrunk)
    more = w.add_graph("more", type="navmesh", mesh=str(tmp_path / "s.npz"),
                       agent_radius=0.25)
    assert more.agent_radius == 0.5
    assert more.snap_distance == pytest.approx(shrunk.snap_distance + 0.25)
    assert more.ground.symmetric_difference(kept.free_space).area < 1e-9
    want = shapely.buffer(kept.free_space, -0.5, join_style="mitre")
    assert more.free_space.symmetric_difference(want).area < 1e-6


# -- malformed Polyanya files ---------------------------------------------------------

# format.txt's v2 example (y up): two triangles of a 1.5 square
V2 = """\
mesh
2
4 2
0.0 0.0 2 0 -1
1.5 0.0 3 0 1 -1
1.5 1.5 2 1 -1
0.0 1.5 3 -1 1 0
3 0 1 3 -1 -1 1
3 1 2 3 0 -1 -1
"""
# vleue's format.txt v3 example: a 10 square, face 1 (not traversable)
# cut out; its faces are clockwise in (x, y), so it is reversed on reading
V3 = """\
mesh
3
5 4
0 0
0 10
10 10
10 0
5 5
0 3   4 1 5   -4 0 -2
1 3   1 2 5   -1 0 3
1 3   2 3 5   2 0 4
1 3   3 4 5   3 0 -1
"""
CONCAVE = ("mesh\n2\n4 1\n0 0 2 0 -1\n4 0 2 0 -1\n1 1 2 0 -1\n0 4 2 0 -1\n"
           "4 0 1 2 3 -1 -1 -1 -1\n")
STAR = ("mesh\n2\n5 1\n" + "".join(f"{math.cos(a):.6f} {math.sin(a):.6f} 2 0 -1\n"
                                   for a in np.arange(5) * 2 * math.pi / 5)
        + "5 0 2 4 1 3 -1 -1 -1 -1 -1\n")


def _edit(text, line, new):
    lines = text.splitlines()
    lines[line - 1] = new
    return "\n".join(lines) + "\n"


@pytest.mark.nojit
def test_the_small_examples_of_the_format_specs_read(tmp_path):
    w = _world()
    for name, text, polys, area in (("v2", V2, 2, 1.5 * 1.5), ("v3", V3, 3, 75.0)):
        (tmp_path / f"{name}.mesh").write_text(text)
        g = w.add_graph(name, type="navmesh", mesh=str(tmp_path / f"{name}.mesh"))
        assert g.num_polygons == polys
        assert (_signed_areas(g) > 0).all()
        assert g.free_space.area == pytest.approx(area)
    # v3: faces 2, 3, 4 kept (1-based ids), reversed as a whole (the
    # example's faces are clockwise); face 3 lies between the other two
    g = w.graph("v3")
    assert g.polygon(0).tolist() == [0, 4, 1]           # face 2: 1 2 5 reversed
    assert sorted(g.csr.targets[g.csr.offsets[1]:g.csr.offsets[2]].tolist()) == [0, 2]
    # round the cut-out face 1 (the triangle under (5, 5)), not through it
    assert w.find_path("v3", (1, 4), (9, 4)).cost == pytest.approx(2 * math.sqrt(17))


@pytest.mark.nojit
@pytest.mark.parametrize("text, line, words", [
    ("", 1, "ends early"),
    (_edit(V2, 1, "mash"), 1, "expected 'mesh'"),
    (_edit(V2, 2, "4"), 2, "version 2 or 3"),
    (_edit(V2, 3, "4"), 3, "two counts"),
    (_edit(V2, 3, "4 x"), 3, "must be an integer, got 'x'"),
    (_edit(V2, 3, "0 2"), 3, "vertex count is 0"),
    (_edit(V2, 4, "nan 0.0 2 0 -1"), 4, "x of vertex 0 is not finite"),
    (_edit(V2, 5, "1.5 inf 3 0 1 -1"), 5, "y of vertex 1 is not finite"),
    (_edit(V2, 5, "1.5 0x1 3 0 1 -1"), 5, "must be a number, got '0x1'"),
    (_edit(V2, 5, "1.5 1_0 3 0 1 -1"), 5, "must be a number, got '1_0'"),
    (_edit(V2, 4, "0.0 0.0 2 0 5"), 4, "a polygon id of vertex 0 is 5"),
    (_edit(V2, 4, "0.0 0.0 3 0 -1"), 4, "vertex 0 has 5 values, expected 6"),
    (_edit(V2, 8, "3 0 1 a -1 -1 1"), 8, "got 'a'"),
    (_edit(V2, 8, "3 0 1 7 -1 -1 1"), 8, "a vertex id of polygon 0 is 7"),
    (_edit(V2, 8, "3 0 1 -1 -1 -1 1"), 8, "a vertex id of polygon 0 is -1"),
    (_edit(V2, 8, "3 0 1 3 -1 -1 2"), 8, "a neighbour of polygon 0 is 2"),
    (_edit(V2, 8, "2 0 1 -1 -1"), 8, "vertex count of polygon 0 is 2"),
    (_edit(V2, 8, "3 0 1 3 -1 -1"), 8, "polygon 0 has 6 values, expected 7"),
    (_edit(V2, 8, "3 0 1 1 -1 -1 1"), 8, "polygon 0 names vertex 1 twice"),
    (_edit(V2, 9, "3 3 2 1 -1 0 -1"), 9, "polygon 1 is clockwise but polygon 0 is "
                                         "counter-clockwise"),
    (_edit(V2, 8, "3 0 1 3 -1 -1 -1"), 8, "lists no neighbour (-1) across the edge from "
                                          "vertex 1 to vertex 3, but polygon 1 shares"),
    (_edit(V2, 8, "3 0 1 3 1 -1 -1"), 8, "names polygon 1 as its neighbour across the "
                                         "edge from vertex 3 to vertex 0, but they do not "
                                         "share"),
    (_edit(V2, 7, "0.0 0.0 3 -1 1 0"), 7, "vertex 3 lies at the same point as vertex 0"),
    (_edit(V2, 3, "5 2"), 8, "vertex 4 has 7 values"),           # one vertex too many
    (_edit(V2, 3, "3 2"), 7, "vertex count of polygon 0 must be an integer, got '0.0'"),
    (_edit(V2, 3, "4 3"), 10, "ends early: expected polygon 2"),
    (V2.rsplit("\n", 2)[0] + "\n", 9, "ends early: expected polygon 1"),   # truncated
    (V2[:-8], 9, "polygon 1 has 4 values, expected 7"),          # cut mid-line
    (V2 + "3 0 1 3 -1 -1 1\n", 10, "unexpected line after the last polygon"),
    (CONCAVE, 8, "polygon 0 is not convex: it turns clockwise at vertex 2"),
    (STAR, 9, "polygon 0 is not convex: its boundary winds around more than once"),
    ("mesh\n2\n3 1\n0 0 2 0 -1\n1 0 2 0 -1\n2 0 2 0 -1\n3 0 1 2 -1 -1 -1\n", 7,
     "polygon 0 has no area"),
    (_edit(V3, 9, "2 3   4 1 5   -4 0 -2"), 9, "traversable flag of face 1 is 2"),
    (_edit(V3, 10, "1 3   0 2 5   -1 0 3"), 10, "a vertex id of face 2 is 0"),
    (_edit(V3, 10, "1 3   1 2 5   -1 0 9"), 10, "a neighbour of face 2 is 9"),
    (_edit(V3, 5, "0 0 0"), 5, "vertex 2 has 3 values, expected 2"),
    (_edit(V3, 10, "1 3   1 2 5   1 0 3"), 10, "names face 1 as a traversable neighbour"),
    (_edit(V3, 10, "1 3   1 2 5   -1 0 -3"), 10, "marks the edge from vertex 2 to vertex 5 "
                                                "as not traversable (-3), but face 3"),
    (_edit(V3, 10, "1 3   5 2 1   -1 0 3"), 10, "face 2 is counter-clockwise but face 3 is "
                                               "clockwise"),
    (_edit(V3, 9, "0 3   4 1"), 9, "face 1 has 4 values, expected 8"),
])
def test_malformed_mesh_file_names_file_line_and_problem(tmp_path, text, line, words):
    path = tmp_path / "bad.mesh"
    path.write_text(text)
    world = _world()
    with pytest.raises(MeshFormatError) as info:
        world.add_graph("m", type="navmesh", mesh=str(path))
    assert info.value.path == str(path) and info.value.line == line, str(info.value)
    assert words in str(info.value)
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert "m" not in world.graphs


@pytest.mark.nojit
def test_missing_and_unreadable_mesh_files(tmp_path):
    world = _world()
    for path, words in ((tmp_path / "nope.mesh", "not found"), (tmp_path, "cannot read")):
        with pytest.raises(MeshFormatError, match=words):
            world.add_graph("m", type="navmesh", mesh=str(path))
    with pytest.raises(GraphError, match="path of a .mesh or .npz"):
        world.add_graph("m", type="navmesh", mesh=42)
    assert "m" not in world.graphs


# -- malformed baked files ----------------------------------------------------------

def _good_arrays():
    w = _world()
    g = w.add_graph("m", type="navmesh", bounds=(0, 0, 3, 2),
                    obstacles=[[(1, 0.5), (2, 0.5), (2, 1.5), (1, 1.5)]])
    return {"format": np.array("navcore-navmesh"), "version": np.array(1),
            "vertices": g.vertices.copy(), "poly_start": g.poly_start.copy(),
            "poly_verts": g.poly_verts.copy(), "snap_distance": np.array(0.25),
            "agent_radius": np.array(0.0), "ground": np.zeros(0, dtype=np.uint8)}


def _wkb(geom):
    return np.frombuffer(shapely.to_wkb(geom), dtype=np.uint8)


def _forged_shape(path):
    """A baked file whose vertices header claims 10**12 rows."""
    import io
    import zipfile
    arrays = _good_arrays()
    np.savez(path, **arrays)
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, {"descr": "<f8", "fortran_order": False,
                                                "shape": (10 ** 12, 2)})
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    members["vertices.npy"] = head.getvalue() + arrays["vertices"].tobytes()
    with zipfile.ZipFile(path, "w") as z:
        for n, data in members.items():
            z.writestr(n, data)


def _cw(a):
    a["poly_verts"][:3] = a["poly_verts"][:3][::-1]
    return a


@pytest.mark.nojit
@pytest.mark.parametrize("change, words", [
    (lambda a: {k: v for k, v in a.items() if k != "poly_start"}, "holds the arrays"),
    (lambda a: {**a, "extra": np.zeros(3)}, "holds the arrays"),
    (lambda a: {**a, "format": np.array("something-else")}, "array 'format' is"),
    (lambda a: {**a, "version": np.array(2)}, "this navcore reads version 1"),
    (lambda a: {**a, "vertices": a["vertices"].astype(np.float32)}, "array 'vertices' must "
                                                                    "be float64"),
    (lambda a: {**a, "vertices": a["vertices"].ravel()}, "array 'vertices' must be float64 "
                                                         "with 2 dimensions"),
    (lambda a: {**a, "vertices": a["vertices"][:, :1].copy()}, "shape (V, 2)"),
    (lambda a: {**a, "vertices": np.where(np.arange(len(a["vertices"]))[:, None] == 2,
                                          np.nan, a["vertices"])},
     "array 'vertices': vertex 2 is not finite"),
    (lambda a: {**a, "poly_start": a["poly_start"].astype(np.int64)}, "array 'poly_start' "
                                                                      "must be int32"),
    (lambda a: {**a, "poly_start": a["poly_start"][::-1].copy()}, "must start at 0"),
    (lambda a: {**a, "poly_start": np.r_[a["poly_start"][:2], a["poly_start"][1],
                                         a["poly_start"][2:]].astype(np.int32)},
     "array 'poly_start': polygon 1 has 0 vertices"),
    (lambda a: {**a, "poly_start": a["poly_start"][:-1].copy()}, "array 'poly_start' ends "
                                                                 "at"),
    (lambda a: {**a, "poly_verts": np.where(np.arange(len(a["poly_verts"])) == 4, 99,
                                            a["poly_verts"]).astype(np.int32)},
     "array 'poly_verts': entry 4 is vertex 99"),
    (lambda a: {**a, "poly_verts": np.where(np.arange(len(a["poly_verts"])) == 4, -1,
                                            a["poly_verts"]).astype(np.int32)},
     "entry 4 is vertex -1"),
    (lambda a: _cw(a), "array 'poly_verts': polygon 0 is clockwise"),
    (lambda a: {**a, "snap_distance": np.array(-1.0)}, "array 'snap_distance' is -1.0"),
    (lambda a: {**a, "snap_distance": np.array(np.nan)}, "array 'snap_distance' is nan"),
    (lambda a: {**a, "snap_distance": np.array([0.1])}, "array 'snap_distance' must be "
                                                       "float64 with 0 dimensions"),
    (lambda a: {**a, "agent_radius": np.array(-0.5)}, "array 'agent_radius' is -0.5"),
    (lambda a: {**a, "ground": np.frombuffer(b"not wkb at all", dtype=np.uint8)},
     "array 'ground' is not WKB geometry"),
    (lambda a: {**a, "ground": _wkb(LineString([(0, 0), (1, 1)]))},
     "array 'ground' must be a polygon or multipolygon, got LineString"),
    (lambda a: {**a, "ground": _wkb(shapely.Polygon([(0, 0), (4, 4), (4, 0), (0, 4)]))},
     "array 'ground' is not a valid polygon: Self-intersection"),
    (lambda a: {**a, "ground": _wkb(shapely.Polygon([(0, 0), (4, np.inf), (4, 0)]))},
     "array 'ground' has a coordinate that is NaN or infinite"),
    (lambda a: {**a, "ground": _wkb(shapely.box(0, 0, 1, 1)).astype(np.int16)},
     "array 'ground' must be uint8"),
    (lambda a: {**a, "poly_verts": np.array(list(a["poly_verts"]), dtype=object)},
     "array 'poly_verts' must be int32"),
])
def test_malformed_baked_file_names_file_and_array(tmp_path, change, words):
    path = tmp_path / "bad.npz"
    np.savez(path, **change(_good_arrays()))
    world = _world()
    with pytest.raises(MeshFormatError) as info:
        world.add_graph("m", type="navmesh", mesh=str(path))
    assert info.value.path == str(path) and words in str(info.value), str(info.value)
    assert "m" not in world.graphs


@pytest.mark.nojit
def test_baked_file_checks_shapes_before_reading_and_refuses_non_zips(tmp_path):
    path = tmp_path / "forged.npz"
    _forged_shape(path)
    with pytest.raises(MeshFormatError, match="declares shape .* more than the file holds"):
        meshfile.load_mesh(path)
    text = tmp_path / "text.npz"
    text.write_text("hello")
    with pytest.raises(MeshFormatError, match="not a readable .npz archive"):
        meshfile.load_mesh(text)
    # a good one loads, whatever its name: .npz is told apart by content
    good = tmp_path / "good.bin"
    good.write_bytes(npz_bytes(**_good_arrays()))
    w = _world()
    assert w.add_graph("m", type="navmesh", mesh=str(good)).num_polygons > 0


# -- malformed vertices= / polygons= ---------------------------------------------------

SQUARE = [[0, 0], [2, 0], [2, 2], [0, 2], [1, 1]]


@pytest.mark.nojit
@pytest.mark.parametrize("params, error, words", [
    (dict(vertices=SQUARE), GraphError, "polygons= is missing"),
    (dict(polygons=[[0, 1, 2]]), GraphError, "vertices= is missing"),
    (dict(vertices=SQUARE, polygons=[[0, 1, 4]], bounds=(0, 0, 2, 2)), GraphError,
     "bounds= cannot come with vertices="),
    (dict(mesh="x.mesh", obstacles=[[(0, 0), (1, 0), (1, 1)]]), GraphError,
     "obstacles= cannot come with mesh="),
    (dict(mesh="x.mesh", vertices=SQUARE, polygons=[[0, 1, 4]]), GraphError, "not both"),
    (dict(vertices=[[0, 0], [1, 0]], polygons=[[0, 1, 0]]), GraphError, "shape (V, 2)"),
    (dict(vertices=[[0, 0], [1, math.nan], [0, 1]], polygons=[[0, 1, 2]]), GraphError,
     "vertices[1] is not finite"),
    (dict(vertices=SQUARE, polygons=[[0, 1, 4], [1, 2, 9]]), GraphError,
     "polygons[1] names vertex 9, out of range"),
    (dict(vertices=SQUARE, polygons=[[0, 1, 4], [1, 2]]), GraphError,
     "polygons[1] has 2 vertices"),
    (dict(vertices=SQUARE, polygons=[[0, 1, 4], [1, 2.0, 4]]), GraphError,
     "polygons[1] must be a list of integer vertex ids"),
    (dict(vertices=SQUARE, polygons=np.array([[0, 1, 4, -1], [1, -1, 2, 4]])), GraphError,
     "polygons[1] has a vertex after its -1 padding"),
    (dict(vertices=SQUARE, polygons=np.array([[0.0, 1, 4]])), GraphError,
     "(P, k) integers"),
    (dict(vertices=SQUARE, polygons="0 1 4"), GraphError, "list of vertex-id lists"),
    (dict(vertices=SQUARE, polygons=[[0, 1, 4], [1, 4, 2]]), GraphError,
     "polygons[1] is clockwise but polygons[0] is counter-clockwise"),
    (dict(vertices=SQUARE, polygons=[[0, 1, 2, 4, 3]]), GraphError,
     "polygons[0] is not convex: it turns clockwise at vertex 4"),
    (dict(vertices=SQUARE, polygons=[[0, 1, 4], [0, 1, 2]]), GraphError,
     "polygons[1] overlaps polygons[0]"),
    (dict(vertices=SQUARE, polygons=[[0, 1, 4]], agent_radius=-1), GraphError,
     "agent_radius"),
    (dict(vertices=SQUARE, polygons=[[0, 1, 4]], agent_radius=5), GraphError,
     "empty after shrinking"),
])
def test_malformed_arrays_name_the_polygon(params, error, words):
    world = _world()
    with pytest.raises(error) as info:
        world.add_graph("m", type="navmesh", **params)
    assert isinstance(info.value, NavError) and words in str(info.value), str(info.value)
    assert "m" not in world.graphs


# -- navcore bake ---------------------------------------------------------------------

SCENE = """\
name: two yards
graphs:
  - {id: east, type: navmesh, bounds: [0, 0, 20, 10],
     obstacles: [[[5, 2], [8, 2], [8, 6], [5, 6]]]}
  - {id: west, type: navmesh, bounds: [0, 0, 8, 8]}
  - {id: keep, type: grid, rows: ["....", "...."]}
"""


@needs_data
@pytest.mark.nojit
def test_bake_a_map_to_npz_and_to_polyanya_v2(tmp_path, capsys):
    out = tmp_path / "sub" / "arena.npz"
    assert main(["bake", "--map", str(ARENA_MAP), "-o", str(out), "--agent-radius",
                 "0.25", "--passable", ".G"]) == 0
    assert "polygons" in capsys.readouterr().out
    w = _world()
    want = w.add_graph("want", type="navmesh", map=str(ARENA_MAP), agent_radius=0.25,
                       passable=".G")
    got = w.add_graph("got", type="navmesh", mesh=str(out))
    for key in ("vertices", "poly_start", "poly_verts"):
        assert np.array_equal(getattr(want, key), getattr(got, key))
    # the baked file on to Polyanya's format
    assert main(["bake", "--mesh", str(out), "-o", str(tmp_path / "arena.mesh")]) == 0
    again = w.add_graph("again", type="navmesh", mesh=str(tmp_path / "arena.mesh"))
    assert _polygon_points(again) == _polygon_points(want)


@pytest.mark.nojit
def test_bake_a_scene_graph(tmp_path, capsys):
    scene = tmp_path / "yards.yaml"
    scene.write_text(SCENE)
    out = tmp_path / "east.npz"
    assert main(["bake", str(scene), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "2 navmesh graphs (east, west); choose one with --graph" in err
    assert "Traceback" not in err
    assert main(["bake", str(scene), "--graph", "east", "-o", str(out)]) == 0
    w = _world()
    want = w.add_graph("want", type="navmesh", bounds=(0, 0, 20, 10),
                       obstacles=[[[5, 2], [8, 2], [8, 6], [5, 6]]])
    got = w.add_graph("got", type="navmesh", mesh=str(out))
    assert np.array_equal(want.poly_verts, got.poly_verts)
    assert got.free_space.symmetric_difference(want.free_space).area < 1e-12
    # --agent-radius replaces the scene's radius
    assert main(["bake", str(scene), "--graph", "west", "-o", str(out),
                 "--agent-radius", "1"]) == 0
    assert w.add_graph("west", type="navmesh", mesh=str(out)).free_space.area == \
        pytest.approx(36)


@pytest.mark.nojit
@pytest.mark.parametrize("args, words", [
    (["-o", "OUT.npz"], "exactly one source"),
    (["SCENE", "--map", "MAP", "-o", "OUT.npz"], "exactly one source"),
    (["--map", "MAP", "--graph", "east", "-o", "OUT.npz"], "--graph picks a graph"),
    (["--map", "MAP", "-o", "OUT.txt"], "must end in .npz"),
    (["SCENE", "--graph", "keep", "-o", "OUT.npz"], "a grid graph, not a navmesh"),
    (["SCENE", "--graph", "north", "-o", "OUT.npz"], "no such graph; its navmesh graphs: "
                                                      "east, west"),
    (["SCENE", "--graph", "west", "--agent-radius", "5", "-o", "OUT.npz"],
     "empty after shrinking"),
    (["--mesh", "MISSING", "-o", "OUT.npz"], "mesh file not found"),
    (["--map", "MESH", "-o", "OUT.npz"], "bad.map:1: expected 'type octile'"),
    (["--mesh", "MESH", "-o", "OUT.npz"], "bad.map:2: expected the format version"),
    (["--mesh", "MESH", "--passable", ".G", "-o", "OUT.npz"], "--passable names the floor"),
    (["--map", "MAP", "--passable", ".Q", "-o", "OUT.npz"], "'Q' is not one"),
])
def test_bake_errors_are_one_clean_line(tmp_path, capsys, args, words):
    scene = tmp_path / "yards.yaml"
    scene.write_text(SCENE)
    bad = tmp_path / "bad.map"
    bad.write_text("mesh\n7\n")
    subs = {"SCENE": str(scene), "MAP": str(DATA / "arena.map"), "MISSING":
            str(tmp_path / "missing.mesh"), "MESH": str(bad),
            "OUT.npz": str(tmp_path / "out.npz"), "OUT.txt": str(tmp_path / "out.txt")}
    assert main(["bake"] + [subs.get(a, a) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("navcore: error: ") and words in err, err
    assert "Traceback" not in err and err.count("\n") == 1
    assert not (tmp_path / "out.npz").exists()


# -- funnel on Polyanya's mesh ----------------------------------------------------------

@needs_data
@pytest.mark.nojit
def test_funnel_on_arena_mesh_is_never_shorter_than_exact():
    w = _world()
    g = w.add_graph("arena", type="navmesh", mesh=str(ARENA_MESH))
    free = g.free_space.buffer(1e-9)
    shapely.prepare(free)
    excess = []
    for sx, sy, gx, gy, exact in _queries("arena.mesh"):
        r = w.find_path("arena", (sx, sy), (gx, gy), algorithm="funnel")
        assert r.status is navcore.PathStatus.FOUND, (sx, sy, gx, gy)
        assert r.cost >= exact * (1 - 1e-9), (sx, sy, gx, gy, r.cost, exact)
        assert r.points[0].tolist() == [sx, sy] and r.points[-1].tolist() == [gx, gy]
        assert free.covers(LineString(r.points)), (sx, sy, gx, gy)
        excess.append(r.cost / exact - 1)
    excess = np.array(excess)
    print(f"\narena.mesh (Polyanya's CDT, {g.num_polygons} triangles): funnel excess over "
          f"exact: mean {excess.mean():.2%}, worst {excess.max():.2%}, exact (<1e-9) "
          f"{np.mean(excess < 1e-9):.0%} of {excess.size}")
    assert excess.max() < 0.5


@needs_data
@pytest.mark.parametrize("name", ["arena.mesh", "scene_mp_2p_01.mesh"])
def test_exact_search_on_the_read_meshes_finds_the_exact_lengths(name):
    w = _world()
    w.add_graph("m", type="navmesh", mesh=str(DATA / name))
    for sx, sy, gx, gy, exact in _queries(name):
        r = w.find_path("m", (sx, sy), (gx, gy))            # auto: polyanya
        assert r.status is navcore.PathStatus.FOUND, (sx, sy, gx, gy)
        assert r.cost == pytest.approx(exact, rel=1e-6), (sx, sy, gx, gy)


@pytest.mark.nojit
def test_baked_and_written_meshes_get_the_mode_any_new_file_gets(tmp_path):
    """Mesh files are created as ``open(path, "w")`` creates a file (mode
    0666 less the umask), not 0600 like a private temporary file, and no
    temporary file is left beside them."""
    import os
    import stat
    w = _world()
    g = w.add_graph("yard", type="navmesh", bounds=(0, 0, 10, 10),
                    obstacles=[[(4, 4), (6, 4), (6, 6), (4, 6)]])
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    old = os.umask(0o022)
    try:
        meshfile.save_mesh(tmp_path / "yard.npz", g)
        meshfile.write_polyanya_mesh(tmp_path / "yard.mesh", g)
    finally:
        os.umask(old)
    for name in ("yard.npz", "yard.mesh"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain.txt", "yard.mesh",
                                                          "yard.npz"]


# -- memory and missing arguments -------------------------------------------------------

@pytest.mark.nojit
@pytest.mark.parametrize("source", ["map", "scene"])
def test_a_bake_too_large_for_memory_is_one_clean_line(tmp_path, capsys, monkeypatch,
                                                       source):
    # a map whose blocked cells make 16 runs (64 corners) and a scene of
    # 4 x 4 tiles, against 8 kB of memory: refused before GEOS or the
    # triangulation allocates, with the CapacityError's message
    mp = tmp_path / "checks.map"
    mp.write_text("type octile\nheight 4\nwidth 8\nmap\n" + "@.@.@.@.\n" * 4)
    scene = tmp_path / "yard.yaml"
    scene.write_text("name: yard\ngraphs:\n  - {id: yard, type: navmesh, "
                     "bounds: [0, 0, 4, 4], tile_size: 1}\n")
    monkeypatch.setattr(navcore.limits, "available_memory", lambda: 10 ** 4)
    args = ["--map", str(mp)] if source == "map" else [str(scene)]
    assert main(["bake"] + args + ["-o", str(tmp_path / "out.npz")]) == 2
    err = capsys.readouterr().err
    want = (f"the free space of {mp} (8 x 4 cells, 16 runs of blocked cells): a navmesh "
            f"of about 64 vertices needs" if source == "map" else
            "the free space in 16 tiles: a navmesh of about 69 vertices needs")
    assert err.startswith("navcore: error: ") and want in err, err
    assert "Traceback" not in err and err.count("\n") == 1
    assert not (tmp_path / "out.npz").exists()


@pytest.mark.nojit
def test_writers_given_no_mesh_raise_a_nav_error(tmp_path):
    out = str(tmp_path / "out.npz")
    for call in (lambda: meshfile.save_mesh(None), lambda: meshfile.save_mesh(out, None),
                 lambda: meshfile.save_mesh(out, 3),
                 lambda: meshfile.write_polyanya_mesh(str(tmp_path / "o.mesh"), None),
                 lambda: meshfile.polyanya_v2_text(None)):
        with pytest.raises(GraphError, match="writes a navmesh graph .* or MeshArrays, got"):
            call()
    with pytest.raises(GraphError, match="map must be the path of a .map file, got None"):
        build.map_free_space(None)
    assert not os.listdir(tmp_path)
