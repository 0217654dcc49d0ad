"""Naive reference implementations: the independent truth tests compare to.

Deliberately simple Python (dicts, heapq), written from the definitions,
sharing no code with navcore.
"""
from __future__ import annotations

import heapq
import math


def adjacency(src, dst, cost, num_nodes, directed=True):
    """Adjacency dict with "first edge of a (u, v) pair wins" semantics."""
    adj = {u: {} for u in range(num_nodes)}
    pairs = []
    for u, v, c in zip(src, dst, cost):
        pairs.append((int(u), int(v), float(c)))
        if not directed:
            pairs.append((int(v), int(u), float(c)))
    for u, v, c in pairs:
        if v not in adj[u]:
            adj[u][v] = c
    return adj


def dijkstra(adj, start, goal=None, walkable=None):
    """Distances from start (dict); only walkable nodes are entered."""
    ok = (lambda v: True) if walkable is None else (lambda v: bool(walkable[v]))
    dist = {start: 0.0}
    done = set()
    heap = [(0.0, start)]
    while heap:
        d, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        if u == goal:
            break
        for v, c in adj[u].items():
            if math.isinf(c) or not ok(v):
                continue
            nd = d + c
            if nd < dist.get(v, math.inf):
                dist[v] = nd
                heapq.heappush(heap, (nd, v))
    return {u: dist[u] for u in done}


def path_cost(adj, nodes):
    return sum(adj[u][v] for u, v in zip(nodes[:-1], nodes[1:]))


def bfs_hops(adj, start, goal, walkable=None):
    ok = (lambda v: True) if walkable is None else (lambda v: bool(walkable[v]))
    seen = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for u in frontier:
            for v, c in adj[u].items():
                if v not in seen and not math.isinf(c) and ok(v):
                    seen[v] = seen[u] + 1
                    nxt.append(v)
        frontier = nxt
    return seen.get(goal, -1)


def reach_count_sets(adj, walkable=None):
    """The allocating version: one Python set per node."""
    n = len(adj)
    out = []
    for s in range(n):
        if walkable is not None and not walkable[s]:
            out.append(0)
            continue
        seen = {s}
        stack = [s]
        while stack:
            u = stack.pop()
            for v, c in adj[u].items():
                if v not in seen and not math.isinf(c) and (walkable is None or walkable[v]):
                    seen.add(v)
                    stack.append(v)
        out.append(len(seen))
    return out


def grid_dijkstra(walkable, cost=None, start=(0, 0), connectivity=8,
                  diagonal_cost=math.sqrt(2), corner_cutting=False):
    """Distances from ``start`` = (x, y) on a grid, by the documented rule:
    a move costs its length (1 or diagonal_cost) times the mean of the two
    cells' costs; without corner cutting a diagonal needs both orthogonal
    cells walkable. Returns {(x, y): distance}."""
    H, W = len(walkable), len(walkable[0])
    c = (lambda x, y: 1.0) if cost is None else (lambda x, y: float(cost[y][x]))
    moves = [(1, 0), (-1, 0), (0, 1), (0, -1)]
    if connectivity == 8:
        moves += [(1, 1), (-1, 1), (1, -1), (-1, -1)]

    def free(x, y):
        return 0 <= x < W and 0 <= y < H and bool(walkable[y][x])

    dist = {start: 0.0}
    done = set()
    heap = [(0.0, start)]
    while heap:
        d, (x, y) = heapq.heappop(heap)
        if (x, y) in done:
            continue
        done.add((x, y))
        for dx, dy in moves:
            nx, ny = x + dx, y + dy
            if not free(nx, ny):
                continue
            diagonal = dx != 0 and dy != 0
            if diagonal and not corner_cutting and not (free(x + dx, y) and free(x, y + dy)):
                continue
            length = diagonal_cost if diagonal else 1.0
            nd = d + length * 0.5 * (c(x, y) + c(nx, ny))
            if nd < dist.get((nx, ny), math.inf):
                dist[(nx, ny)] = nd
                heapq.heappush(heap, (nd, (nx, ny)))
    return {k: dist[k] for k in done}


def is_valid_grid_walk(walkable, cells, connectivity=8, corner_cutting=False):
    """Every step moves to a walkable neighbour under the movement rule."""
    H, W = len(walkable), len(walkable[0])

    def free(x, y):
        return 0 <= x < W and 0 <= y < H and bool(walkable[y][x])

    for (x, y), (nx, ny) in zip(cells[:-1], cells[1:]):
        dx, dy = nx - x, ny - y
        if max(abs(dx), abs(dy)) != 1 or not free(nx, ny):
            return False
        if dx and dy:
            if connectivity == 4:
                return False
            if not corner_cutting and not (free(x + dx, y) and free(x, y + dy)):
                return False
    return all(free(x, y) for x, y in cells)


def grid_distances_scipy(walk, source, diag=2 ** 0.5):
    """Distances from cell ``source`` = (x, y) to every cell of a bool grid
    under the default rule (8-connected, no corner cutting), by scipy's
    Dijkstra over edges built here with numpy: an independent truth for
    grids too large for ``grid_dijkstra``. Returns a (H, W) float array."""
    import numpy as np
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import dijkstra as sp_dijkstra
    walk = np.asarray(walk, dtype=bool)
    H, W = walk.shape
    ids = np.arange(H * W).reshape(H, W)
    src, dst, cost = [], [], []
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        ys, xs = np.mgrid[max(0, -dy):H - max(0, dy), 0:W - dx]
        ok = walk[ys, xs] & walk[ys + dy, xs + dx]
        if dx and dy:                        # both orthogonal cells free
            ok &= walk[ys, xs + dx] & walk[ys + dy, xs]
        a, b = ids[ys, xs][ok], ids[ys + dy, xs + dx][ok]
        c = diag if dx and dy else 1.0
        src += [a, b]
        dst += [b, a]
        cost += [np.full(a.size, c)] * 2
    m = coo_matrix((np.concatenate(cost), (np.concatenate(src), np.concatenate(dst))),
                   shape=(H * W, H * W)).tocsr()
    x, y = source
    return sp_dijkstra(m, indices=y * W + x).reshape(H, W)

def same_partition(ours, truth, walkable):
    """``ours`` (-1 blocked) and ``truth`` label the walkable nodes with the
    same partition, and ``ours`` is -1 exactly on blocked nodes."""
    import numpy as np
    ours = np.asarray(ours).ravel()
    truth = np.asarray(truth).ravel()
    walkable = np.asarray(walkable).ravel()
    assert ((ours == -1) == ~walkable).all()
    a, b = ours[walkable].astype(np.int64), truth[walkable].astype(np.int64)
    if not a.size:
        return True
    a, b = a - a.min(), b - b.min()
    # distinct (a, b) pairs as one int64 key: unique(axis=1) sorts
    # structured rows, 30x slower on large maps
    pairs = np.unique(a * (int(b.max()) + 1) + b).size
    return pairs == np.unique(a).size == np.unique(b).size


def visibility_length(free, s, g, barriers=None):
    """Exact shortest length from ``s`` to ``g`` inside the shapely
    geometry ``free``: Dijkstra over the visibility graph of the ends and
    every corner of ``free`` (a shortest path turns only at corners), with
    shapely ``covers`` (on ``free`` grown by 1e-9) as line of sight; ``inf``
    when ``g`` cannot be reached. It does not know the no-squeezing rule: a
    pinch point where two obstacles touch counts as passable.

    With ``barriers`` (line segments, e.g. a navmesh's wall edges, as
    ``(k, 2, 2)`` coordinates), a sight line may also not cross any of
    them (running along one or through its ends is fine): the shortest
    length through a mesh with those walls."""
    import numpy as np
    import shapely
    from shapely.geometry import LineString

    corners = [tuple(c) for c in shapely.get_coordinates(free).tolist()]
    tree = None
    if barriers is not None and len(barriers):
        ends = np.asarray(barriers, dtype=float)
        tree = shapely.STRtree(shapely.linestrings(ends))
        corners += [tuple(c) for c in ends.reshape(-1, 2).tolist()]   # turn there too
    pts = [tuple(s), tuple(g)] + sorted(set(corners))
    covered = free.buffer(1e-9)
    shapely.prepare(covered)

    def sees(a, b):
        if a == b:
            return True
        line = LineString([a, b])
        if not covered.covers(line):
            return False
        return tree is None or tree.query(line, predicate="crosses").size == 0

    dist, heap, done = {0: 0.0}, [(0.0, 0)], set()
    while heap:
        d, u = heapq.heappop(heap)
        if u in done:
            continue
        if u == 1:
            return d
        done.add(u)
        for v in range(len(pts)):
            if v not in done and sees(pts[u], pts[v]):
                nd = d + math.dist(pts[u], pts[v])
                if nd < dist.get(v, math.inf):
                    dist[v] = nd
                    heapq.heappush(heap, (nd, v))
    return math.inf


def check_any_angle_path(graph, result, start, goal, free):
    """Assert that ``result`` is a real any-angle path on the navmesh
    ``graph`` from point ``start`` to point ``goal`` inside the shapely
    geometry ``free``: found, from ``start`` to ``goal``, inside ``free``,
    costing its polyline's length, through a chain of polygons each
    sharing an edge with the next (none twice)."""
    import numpy as np
    from shapely.geometry import LineString

    assert result.found, (start, goal, result.status)
    assert result.points[0].tolist() == list(start), (result.points[0], start)
    assert result.points[-1].tolist() == list(goal), (result.points[-1], goal)
    assert free.covers(LineString(result.points)), (start, goal, result.points.tolist())
    length = float(np.sqrt((np.diff(result.points, axis=0) ** 2).sum(axis=1)).sum())
    assert math.isclose(result.cost, length, rel_tol=1e-12, abs_tol=1e-12), (result.cost, length)
    nodes = result.nodes.tolist()
    assert len(nodes) == len(set(nodes)), "a polygon crossed twice"
    for a, b in zip(nodes, nodes[1:]):
        assert b in graph.poly_adj[graph.poly_start[a]:graph.poly_start[a + 1]], (a, b)


def random_free_points(free, rng, k):
    """``k`` points drawn uniformly from the shapely geometry ``free``
    (rejection sampling in its bounding box, with ``rng``), as tuples."""
    from shapely.geometry import Point

    x0, y0, x1, y1 = free.bounds
    out = []
    while len(out) < k:
        p = (float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1)))
        if free.contains(Point(p)):
            out.append(p)
    return out
