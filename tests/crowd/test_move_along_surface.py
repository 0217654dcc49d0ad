"""``navcore_move_along_surface`` on grids and 2D navmeshes: random moves
end on a walkable node that holds the point, at the end itself when
``World.raycast`` finds the straight segment clear, and never farther
from the end than the start; slides along straight walls and into
corners land where a hand computation puts them; starts off the surface
are moved onto it first (or stay, node -1, with no walkable node)."""
from pathlib import Path

import numpy as np
import pytest
import shapely

import navcore
from crowdkit import obstacle_mesh
from hooktags import exercises
from navcore import QueryError

DATA = Path(__file__).resolve().parents[2].parent / "shared/data/navmesh"
BELOW = np.nextafter


def move(world, graph, start, end, nodes=None):
    start = np.asarray(start, dtype=np.float64).reshape(-1, 2)
    end = np.asarray(end, dtype=np.float64).reshape(-1, 2)
    if nodes is None:
        nodes = np.full(len(start), -1, dtype=np.int32)
    call = world.plugins.caller("navcore_move_along_surface")
    points, out = call(world, graph, start, np.asarray(nodes, dtype=np.int32), end)
    assert points.dtype == np.float64 and points.shape == start.shape
    assert out.dtype == np.int32 and out.shape == (len(start),)
    return points, out


# -- grids --------------------------------------------------------------------

def _grid(rows):
    w = navcore.World()
    return w, w.add_graph("g", type="grid", rows=rows)


@pytest.mark.nojit
def test_grid_slides_along_straight_walls_by_hand():
    w, g = _grid(["........",
                  "........",
                  "...#....",
                  "...#....",
                  "........"])
    start = [(1.5, 1.5), (1.5, 3.5), (1.5, 2.5), (1.5, 2.25), (6.5, 3.5)]
    end = [(6.5, -3.0), (4.5, 9.0), (5.5, 3.0), (5.5, 2.25), (6.5, 3.5)]
    p, n = move(w, g, start, end)
    # the border at y = 0 (the point on it is in row 0), the border at
    # y = 5 (its last float below, row 4), the blocked column x = 3 (its
    # last float before, column 2) twice, and no move at all
    assert p.tolist() == [[6.5, 0.0], [4.5, BELOW(5.0, 0.0)], [BELOW(3.0, 0.0), 3.0],
                          [BELOW(3.0, 0.0), 2.25], [6.5, 3.5]]
    assert n.tolist() == [g.node_id(6, 0), g.node_id(4, 4), g.node_id(2, 3),
                          g.node_id(2, 2), g.node_id(6, 3)]


@pytest.mark.nojit
def test_grid_never_squeezes_between_blocked_cells_meeting_at_a_corner():
    w, g = _grid(["....",
                  ".#..",
                  "..#.",
                  "...."])
    # exactly through the corner (2, 2) that cells (1, 1) and (2, 2) share
    p, n = move(w, g, [(2.5, 1.5), (1.5, 2.5)], [(1.5, 2.5), (2.5, 1.5)])
    assert n.tolist() == [g.node_id(2, 1), g.node_id(1, 2)]
    # into a blocked cell's corner with both side cells open: the move
    # stops before the corner and keeps its larger part (x on a tie)
    p, n = move(w, g, [(0.5, 0.5), (0.75, 0.5)], [(3.5, 3.5), (2.0, 3.0)])
    assert p.tolist() == [[3.5, BELOW(1.0, 0.0)], [BELOW(1.0, 0.0), 3.0]]
    assert n.tolist() == [g.node_id(3, 0), g.node_id(0, 3)]


@pytest.mark.nojit
def test_grid_starts_off_the_surface():
    w, g = _grid(["..#", "...", "#.."])
    p, n = move(w, g, [(2.5, 0.25), (-3.0, 1.5), (9.0, 9.0)],
                [(2.5, 0.25), (-3.0, 1.5), (2.5, 2.5)])
    # a blocked cell and points off the map: the nearest walkable point first
    assert n.tolist() == [g.node_id(1, 0), g.node_id(0, 1), g.node_id(2, 2)]
    assert p[0].tolist() == [BELOW(2.0, 0.0), 0.25] and p[1].tolist() == [0.0, 1.5]
    assert p[2].tolist() == [2.5, 2.5]
    # far off: the nearest point all the same (squared distances there
    # overflow to inf)
    p, n = move(w, g, [(1e300, 0.5), (-1e300, -1e300)], [(1e300, 0.5), (0.5, 0.5)])
    assert n.tolist() == [g.node_id(2, 1), g.node_id(0, 0)]
    assert p.tolist() == [[BELOW(3.0, 0.0), 1.0], [0.5, 0.5]]
    w2 = navcore.World()
    g2 = w2.add_graph("b", type="grid", array=np.zeros((2, 2), dtype=bool))
    p, n = move(w2, g2, [(0.5, 0.5)], [(1.5, 1.5)])
    assert n.tolist() == [-1] and p.tolist() == [[0.5, 0.5]]


@pytest.mark.nojit
def test_no_points_and_bad_arguments():
    w, g = _grid(["...", "..."])
    p, n = move(w, g, np.empty((0, 2)), np.empty((0, 2)))
    assert p.shape == (0, 2) and n.shape == (0,)
    call = w.plugins.caller("navcore_move_along_surface")
    s = np.array([[0.5, 0.5]])
    with pytest.raises(QueryError, match="nodes must be 1 integer node ids"):
        call(w, g, s, np.array([0, 1], dtype=np.int32), s)
    with pytest.raises(QueryError, match=r"nodes\[0\] = 6 is neither -1 nor a node id"):
        call(w, g, s, np.array([6], dtype=np.int32), s)
    with pytest.raises(QueryError, match="same shape"):
        call(w, g, s, np.array([0], dtype=np.int32), np.zeros((2, 2)))
    with pytest.raises(QueryError, match=r"end\[0\].*not finite"):
        call(w, g, s, np.array([0], dtype=np.int32), np.array([[np.nan, 0.0]]))


def on_surface_at(g, point):
    node = g.locate(point)
    return node >= 0 and g.walkable[node]


def pinch(g, point):
    """Whether ``point`` is a grid's cell corner where two blocked cells
    meet diagonally (a ray may end clear there, no move goes through)."""
    if not hasattr(g, "walkable_grid") or not all(float(v).is_integer() for v in point):
        return False
    x, y = int(point[0]), int(point[1])
    free = lambda cx, cy: 0 <= cx < g.width and 0 <= cy < g.height and g.walkable_grid[cy, cx]
    a, b, c, d = free(x - 1, y - 1), free(x, y - 1), free(x - 1, y), free(x, y)
    return (a and d and not b and not c) or (b and c and not a and not d)


def _check_moves(w, g, start, end, on_surface):
    """The properties every move has (see the module docstring)."""
    p, n = move(w, g, start, end)
    assert (n >= 0).all() and g.walkable[n].all()
    for i in range(len(start)):
        s, e = tuple(start[i]), tuple(end[i])
        assert g.walkable[g.locate(tuple(p[i]))]
        if not on_surface[i]:
            continue
        hit = w.raycast(g.graph_id, s, e)
        # (a grid's ray ends clear at a blocked cell's near side: the end
        # on it lies in that cell, and the move stops just before it)
        if not hit.hit and on_surface_at(g, e) and not pinch(g, e):
            assert p[i].tolist() == list(e), (s, e)
        assert np.hypot(*(p[i] - end[i])) <= np.hypot(*(start[i] - end[i])) + 1e-9
    return p, n


@exercises("navcore_move_along_surface")
@pytest.mark.parametrize("seed", range(5))
def test_random_moves_on_random_grids(seed):
    rng = np.random.default_rng(seed)
    h, wd = (int(v) for v in rng.integers(2, 20, 2))
    w = navcore.World()
    walk = rng.random((h, wd)) > rng.uniform(0.1, 0.5)
    walk[0, 0] = True
    g = w.add_graph("g", type="grid", array=walk)
    for _ in range(3):
        k = 200
        start = rng.uniform(-1, [wd + 1, h + 1], (k, 2))
        end = start + rng.normal(0, 3, (k, 2))
        # some ends exactly on cell sides and corners
        end[:40] = np.round(end[:40])
        cells = g.locate_many(start)
        on = (cells >= 0) & g.walkable[np.maximum(cells, 0)]
        p, n = _check_moves(w, g, start, end, on)
        assert (g.locate_many(p) == n).all()
        x, y = int(rng.integers(0, wd)), int(rng.integers(0, h))
        w.update("g", cells=[(x, y)], walkable=bool(rng.random() < 0.5))
        w.update("g", cells=[(0, 0)], walkable=True)
        w.tick(1 / 60)


# -- navmeshes ---------------------------------------------------------------------

def _yard(tile_size=None, obstacles=None):
    w = navcore.World()
    g = w.add_graph("m", type="navmesh", bounds=(0, 0, 20, 10), tile_size=tile_size,
                    obstacles=obstacles or [[(5, 2), (8, 2), (8, 6), (5, 6)]])
    return w, g


@pytest.mark.nojit
@pytest.mark.parametrize("tile_size", [None, 0])
def test_mesh_slides_along_straight_walls_by_hand(tile_size):
    w, g = _yard(tile_size)
    start = [(1, 4), (1, 4), (1, 4), (18, 8), (12, 1), (30, 4)]
    end = [(10, 4), (10, 5), (10, 1), (25, 12), (14, -3), (9.5, 4)]
    p, n = move(w, g, start, end)
    want = [(5, 4),        # straight into the pillar's face: stops there
            (5, 5),        # the end projected on the face
            (5, 1),        # ... on the face's line, past the pillar's corner
            (20, 10),      # into the yard's corner
            (14, 0),       # along the yard's lower border
            (9.5, 4)]      # from off the mesh: first onto its border at (20, 4)
    # (a move that meets a wall stays a billionth of the mesh's size off it)
    assert p == pytest.approx(np.array(want, dtype=float), abs=1e-7)
    for i in range(len(start)):
        assert shapely.Polygon(g.polygon_points(n[i])).distance(shapely.Point(p[i])) <= 1e-9


@pytest.mark.nojit
def test_mesh_nodes_given_or_stale():
    w, g = _yard()
    start = np.array([[1.0, 4.0], [12.0, 8.0], [15.0, 1.0]])
    end = np.array([[3.0, 4.0], [12.0, 9.0], [16.0, 2.0]])
    right = g.locate_many(start)
    wrong = np.roll(right, 1)               # polygons that do not hold the starts
    p1, n1 = move(w, g, start, end, right)
    p2, n2 = move(w, g, start, end, wrong)
    assert p1.tolist() == p2.tolist() == end.tolist() and n1.tolist() == n2.tolist()
    # the start's polygon blocked: out to the nearest walkable point first
    w.update("m", nodes=[int(right[0])], walkable=False)
    w.tick(1 / 60)
    p, n = move(w, g, start[:1], start[:1], right[:1])
    assert g.walkable[n[0]] and n[0] != right[0]
    assert shapely.Polygon(g.polygon_points(right[0])).distance(shapely.Point(p[0])) <= 1e-9


@pytest.mark.nojit
def test_mesh_no_points_and_bad_nodes():
    w, g = _yard(tile_size=0)
    p, n = move(w, g, np.empty((0, 2)), np.empty((0, 2)))
    assert p.shape == (0, 2) and n.shape == (0,)
    call = w.plugins.caller("navcore_move_along_surface")
    s = np.array([[0.5, 0.5]])
    with pytest.raises(QueryError, match=rf"nodes\[0\] = {g.num_nodes} is neither -1"):
        call(w, g, s, np.array([g.num_nodes], dtype=np.int32), s)
    with pytest.raises(QueryError, match="nodes must be 1 integer node ids"):
        call(w, g, s, np.array([0.5]), s)


@pytest.mark.nojit
def test_mesh_starts_far_off():
    w, g = _yard()
    p, n = move(w, g, [(1e300, 4.0), (-1e300, -1e300)], [(1e300, 4.0), (1.0, 1.0)])
    # (the first stays a hair inside the wall it pushes against)
    assert p == pytest.approx(np.array([[20.0, 4.0], [1.0, 1.0]]), abs=1e-7)
    assert g.walkable[n].all()


@pytest.mark.nojit
def test_mesh_with_nothing_walkable_leaves_points_alone():
    w, g = _yard(tile_size=0)
    w.update("m", nodes=np.arange(g.num_nodes), walkable=False)
    w.tick(1 / 60)
    p, n = move(w, g, [(1.0, 1.0)], [(3.0, 3.0)])
    assert n.tolist() == [-1] and p.tolist() == [[1.0, 1.0]]


def _random_mesh_moves(w, g, rng, k=150):
    lo, hi = g.vertices.min(axis=0), g.vertices.max(axis=0)
    start = rng.uniform(lo - 1, hi + 1, (k, 2))
    end = start + rng.normal(0, 0.2 * (hi - lo).max(), (k, 2))
    free = shapely.union_all([shapely.Polygon(g.polygon_points(q))
                              for q in np.flatnonzero(g.walkable)])
    on = shapely.contains_xy(free, start[:, 0], start[:, 1])
    p, n = _check_moves(w, g, start, end, on)
    for i in range(k):
        poly = shapely.Polygon(g.polygon_points(n[i]))
        assert poly.distance(shapely.Point(p[i])) <= 1e-9 * (hi - lo).max()


@exercises("navcore_move_along_surface")
@pytest.mark.parametrize("tile_size", [None, 0])
def test_random_moves_on_meshes_with_updates(tile_size):
    rng = np.random.default_rng(11)
    w, g = obstacle_mesh(rng, tile_size)
    _random_mesh_moves(w, g, rng)
    w.update("m", nodes=[int(g.node_of((2.0, 28.0))), int(g.node_of((38.0, 15.0)))],
             walkable=False)
    w.tick(1 / 60)
    _random_mesh_moves(w, g, rng)
    if tile_size is None:
        w.update("m", add_obstacle=[[14, 2], [18, 2], [18, 26], [14, 26]], obstacle_id="wall")
        w.tick(1 / 60)
        _random_mesh_moves(w, g, rng)


@pytest.mark.parametrize("tile_size", [None, 0])
def test_short_moves_within_a_polygon_end_where_the_walk_does(tile_size):
    """Most of a crowd's moves end in the polygon they start in, and the
    kernel answers those without walking: each answer must be the walk's
    own (``_slide``), bit for bit, also for ends on a side, at a corner,
    a hair inside or outside a side, and on the other side of a wall."""
    from navcore_navmesh import _surface, surface
    rng = np.random.default_rng(5)
    w, g = obstacle_mesh(rng, tile_size)
    polys = np.flatnonzero(g.walkable)
    pick = rng.choice(polys, 120)
    start, end, nodes = [], [], []
    for q in pick.tolist():
        ring = np.asarray(g.polygon_points(q), dtype=np.float64)
        inner = ring.mean(axis=0)
        s = inner + 0.3 * (ring[rng.integers(len(ring))] - inner)
        a, b = ring[rng.integers(len(ring))], ring[rng.integers(len(ring))]
        u = rng.random()
        for e in (s + rng.normal(0, 0.05, 2),          # a short step
                  a, (a + b) / 2,                        # a corner, a side or a chord
                  a + u * (b - a),
                  np.nextafter(a + u * (b - a), inner),  # a hair in, a hair out
                  np.nextafter(a + u * (b - a), 2 * a - inner),
                  a + 1e-7 * (inner - a),
                  s + 2.0 * (a - s)):                    # past a side
            start.append(s)
            end.append(e)
            nodes.append(q)
    start, end = np.array(start), np.array(end)
    nodes = np.array(nodes, dtype=np.int32)
    p, n = move(w, g, start, end, nodes)
    tol = float(g.locate_index().tol)
    areas = g.view(surface.AREAS_KEY, surface.PolygonAreas)        # as the kernel's caller
    nudge = surface.NUDGE * surface.size_scale(np.array([areas.lo, areas.hi], dtype=float))
    visited = np.empty(g.num_nodes + 1, dtype=np.int32)
    within = 0
    for i in range(len(start)):
        q = int(nodes[i])
        want = _surface._slide.py_func(start[i, 0], start[i, 1], q, end[i, 0], end[i, 1],
                                       g.vertices, g.poly_start, g.poly_verts, g.poly_adj,
                                       g.poly_opposite, g.walkable, tol, nudge, visited)
        assert (int(n[i]), p[i, 0], p[i, 1]) == (want[0], want[1], want[2]), (start[i], end[i])
        within += bool(_surface._clear_inside.py_func(end[i, 0], end[i, 1], g.vertices,
                                                     g.poly_start, g.poly_verts, q, tol))
    assert 100 <= within <= len(start) - 300       # both paths of the kernel ran


@pytest.mark.skipif(not (DATA / "arena.mesh").exists(), reason=f"{DATA} not available")
@pytest.mark.parametrize("kind", ["mesh", "map"])
def test_random_moves_in_the_arena(kind):
    w = navcore.World()
    if kind == "mesh":
        g = w.add_graph("m", type="navmesh", mesh=str(DATA / "arena.mesh"))
    else:
        g = w.add_graph("m", type="navmesh", map=str(DATA / "arena.map"))
    _random_mesh_moves(w, g, np.random.default_rng(3), k=300)
