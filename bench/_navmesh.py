"""Helpers of ``bench/navmesh.py``: the generated obstacle field and its
exact lengths, Polyanya's ``.mesh`` v2 format, and its scenario runner.

Nothing here is timed against a peer; it makes the inputs and the truth.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import shapely
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra
from shapely.geometry import LineString, Polygon, box

CACHE = Path(__file__).resolve().parent / ".cache"


# ---------------------------------------------------------------------------
# the generated field
# ---------------------------------------------------------------------------
def make_field(seed, side=1000.0, rects=100, polys=100, poly_sides=6, size=(3.0, 40.0),
               clearance=1.0, margin=5.0):
    """``rects`` rotated rectangles and ``polys`` random convex polygons of
    ``poly_sides`` corners (so 4 * rects + poly_sides * polys obstacle
    vertices: 1,000 by default) in a ``side`` x ``side`` square, seeded.
    Sizes (the longer side, or the diameter) are uniform in ``size``
    metres; every obstacle stays ``clearance`` away from the others
    (none overlap or touch: no pinch points) and ``margin`` inside the
    square. Returns a list of (k, 2) float64 counter-clockwise rings."""
    rng = np.random.default_rng(seed)
    kinds = ["rect"] * rects + ["poly"] * polys
    rng.shuffle(kinds)
    placed, geoms = [], []
    for kind in kinds:
        for _attempt in range(10_000):
            d = rng.uniform(*size)
            if kind == "rect":
                w, h = d, d * rng.uniform(0.1, 1.0)
                ring = np.array([(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2),
                                 (-w / 2, h / 2)])
            else:
                # points on a circle are in convex position; an affine map
                # (squash, rotate below) keeps them convex
                ang = np.sort(rng.uniform(0, 2 * np.pi, poly_sides))
                if np.min(np.diff(np.r_[ang, ang[0] + 2 * np.pi])) < 0.15:
                    continue                         # no near-duplicate corners
                ring = np.column_stack([np.cos(ang), np.sin(ang)]) * (d / 2)
                ring[:, 1] *= rng.uniform(0.3, 1.0)
            th = rng.uniform(0, np.pi)
            rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
            ring = ring @ rot.T
            lo, hi = ring.min(axis=0), ring.max(axis=0)
            c = rng.uniform(margin - lo, side - margin - hi)
            ring = ring + c
            g = Polygon(ring)
            if not g.is_valid or g.area <= 0:
                continue
            if geoms and shapely.dwithin(g, np.array(geoms), clearance).any():
                continue
            placed.append(ring)
            geoms.append(g)
            break
        else:
            raise RuntimeError("could not place an obstacle: field too dense")
    return [np.ascontiguousarray(r, dtype=np.float64) for r in placed]


def field_pairs(rings, n, seed, side=1000.0, clearance=0.5):
    """``n`` seeded random (start, goal) pairs in the field's free space,
    each point at least ``clearance`` from every obstacle."""
    rng = np.random.default_rng(seed + 1)
    obs = shapely.union_all([Polygon(r) for r in rings])
    shapely.prepare(obs)
    pts = []
    while len(pts) < 2 * n:
        p = rng.uniform(0, side, 2).round(4)      # printable exactly with 4 decimals
        if not shapely.dwithin(obs, shapely.points(p), clearance):
            pts.append(p)
    pts = np.array(pts)
    return [(tuple(pts[2 * i]), tuple(pts[2 * i + 1])) for i in range(n)]


# ---------------------------------------------------------------------------
# exact lengths on the field: reduced visibility graph + Dijkstra
# ---------------------------------------------------------------------------
def _blocked(seg_a, seg_b, tree, rings_geoms, same_ring=None):
    """bool per segment: does its interior meet an obstacle's interior?
    GEOS ``crosses`` (line interior meets polygon interior and exterior)
    through an STRtree; a segment whose interior lies wholly inside one
    obstacle is a diagonal of that (convex) obstacle: ``same_ring`` marks
    segments between two corners of one obstacle, which are blocked unless
    they are one of its edges (the caller passes only tangent segments, and
    a diagonal of a convex polygon is never tangent at its ends)."""
    segs = shapely.linestrings(np.stack([seg_a, seg_b], axis=1))
    idx_seg, _idx_obs = tree.query(segs, predicate="crosses")
    out = np.zeros(len(segs), dtype=bool)
    out[idx_seg] = True
    return out


def _tangent_at(prev_xy, next_xy, v_xy, vid, other_xy):
    """bool per (corner ``vid``, direction to ``other_xy``): both polygon
    neighbours of the corner are on one (closed) side of the line, so a
    taut path may bend there. Shortest paths among obstacles bend only at
    obstacle corners and only where tangent (the reduced visibility graph)."""
    p = v_xy[vid]
    d = other_xy - p
    a, b = prev_xy[vid] - p, next_xy[vid] - p
    c1 = d[:, 0] * a[:, 1] - d[:, 1] * a[:, 0]
    c2 = d[:, 0] * b[:, 1] - d[:, 1] * b[:, 0]
    return c1 * c2 >= 0


def field_truth(rings, pairs):
    """Exact shortest lengths of ``pairs`` among the convex obstacle
    ``rings`` (which touch neither each other nor the square's border, so
    the square's border never matters). Graph nodes: every obstacle corner
    and every query point. Corner-corner edges: tangent at both corners and
    crossing no obstacle (GEOS ``crosses``). Point-corner edges: tangent at
    the corner, crossing nothing. Point-point: the pair's own segment when
    it crosses nothing. Then Dijkstra (scipy) from each start. Returns
    ``(lengths, paths, stats)``, paths as (k, 2) arrays."""
    geoms = [Polygon(r) for r in rings]
    tree = shapely.STRtree(geoms)
    v_xy = np.concatenate(rings)
    ring_of = np.concatenate([np.full(len(r), i) for i, r in enumerate(rings)])
    corner_of = np.concatenate([np.arange(len(r)) for r in rings])
    nv = len(v_xy)
    prev_xy = np.concatenate([np.roll(r, 1, axis=0) for r in rings])
    next_xy = np.concatenate([np.roll(r, -1, axis=0) for r in rings])
    # corner pairs tangent at both ends
    iu, ju = np.triu_indices(nv, k=1)
    ok = _tangent_at(prev_xy, next_xy, v_xy, iu, v_xy[ju])
    ok &= _tangent_at(prev_xy, next_xy, v_xy, ju, v_xy[iu])
    iu, ju = iu[ok], ju[ok]
    same = ring_of[iu] == ring_of[ju]
    # on one convex obstacle only its edges are tangent at both ends
    vis = ~_blocked(v_xy[iu], v_xy[ju], tree, geoms)
    edges = [(iu[vis], ju[vis])]
    n_cc = int(vis.sum())
    assert not (same & vis & ~_is_edge(iu, ju, ring_of, corner_of, rings)).any()
    # query points
    q = np.array([p for pair in pairs for p in pair], dtype=np.float64)   # 2n points
    nq = len(q)
    qi = np.repeat(np.arange(nq), nv)
    vi = np.tile(np.arange(nv), nq)
    ok = _tangent_at(prev_xy, next_xy, v_xy, vi, q[qi])
    qi, vi = qi[ok], vi[ok]
    vis = ~_blocked(q[qi], v_xy[vi], tree, geoms)
    edges.append((nv + qi[vis], vi[vis]))
    n_qc = int(vis.sum())
    s_idx = np.arange(0, nq, 2)
    direct = ~_blocked(q[s_idx], q[s_idx + 1], tree, geoms)
    edges.append((nv + s_idx[direct], nv + s_idx[direct] + 1))
    a = np.concatenate([e[0] for e in edges])
    b = np.concatenate([e[1] for e in edges])
    xy = np.concatenate([v_xy, q])
    w = np.sqrt(((xy[a] - xy[b]) ** 2).sum(axis=1))
    n = nv + nq
    g = coo_matrix((np.r_[w, w], (np.r_[a, b], np.r_[b, a])), shape=(n, n)).tocsr()
    dist, pred = dijkstra(g, directed=True, indices=nv + s_idx, return_predecessors=True)
    lengths, paths = [], []
    for k, s in enumerate(s_idx):
        t = nv + s + 1
        lengths.append(float(dist[k, t]))
        path = [t]
        while path[-1] != nv + s:
            path.append(pred[k, path[-1]])
        paths.append(xy[path[::-1]])
    stats = {"corners": nv, "corner_edges": n_cc, "point_corner_edges": n_qc,
             "direct_pairs": int(direct.sum())}
    return np.array(lengths), paths, stats


def _is_edge(iu, ju, ring_of, corner_of, rings):
    n = np.array([len(rings[r]) for r in ring_of[iu]])
    d = (corner_of[ju] - corner_of[iu]) % n
    return (d == 1) | (d == n - 1)


def path_in_free(path, free, tol=1e-7):
    """Whether the polyline lies in ``free`` (grown by ``tol``: a taut path
    touches obstacle corners)."""
    return bool(free.buffer(tol).covers(LineString(path)))


def cached_field(seed, rings, n_pairs, log=print):
    """``(pairs, exact lengths, stats)`` of the field ``rings``, from
    ``bench/.cache`` when the same field and pairs were computed before
    (the key hashes the rings' coordinates)."""
    h = hashlib.sha1(json.dumps([seed, n_pairs, FIELD_VERSION]).encode())
    for r in rings:
        h.update(np.ascontiguousarray(r).tobytes())
    path = CACHE / f"field-{h.hexdigest()[:12]}.npz"
    pairs = field_pairs(rings, n_pairs, seed)
    if path.exists():
        z = np.load(path)
        return pairs, z["lengths"], json.loads(str(z["stats"]))
    log(f"field: computing exact lengths of {n_pairs} pairs (visibility graph)")
    lengths, paths, stats = field_truth(rings, pairs)
    free = box(0, 0, 1000, 1000).difference(shapely.union_all([Polygon(r) for r in rings]))
    bad = [i for i, p in enumerate(paths) if not path_in_free(p, free)]
    if bad:
        raise RuntimeError(f"field truth: paths {bad[:5]} leave the free space")
    stats["paths_checked_in_free_space"] = len(paths)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.savez(path, lengths=lengths, stats=json.dumps(stats))
    return pairs, lengths, stats


#: bump when make_field, field_pairs or field_truth change (the cache key)
FIELD_VERSION = 1


# ---------------------------------------------------------------------------
# Polyanya's .mesh, version 2
# ---------------------------------------------------------------------------
def mesh_arrays(graph):
    """``(vertices (V, 2) float64, poly_start (P+1) int, poly_verts (E) int,
    poly_adj (E) int)`` of a navcore navmesh graph: counter-clockwise
    polygons, ``poly_adj[k]`` the polygon across edge k (from corner k to
    k+1), -1 for a wall. Read from the general convex-polygon arrays when
    the graph has them, else from the triangle arrays (``triangles`` and
    ``neighbours``, (T, 3) each, the same edge convention)."""
    v = np.asarray(graph.vertices, dtype=np.float64)
    if getattr(graph, "poly_start", None) is not None:
        return (v, np.asarray(graph.poly_start, dtype=np.int64),
                np.asarray(graph.poly_verts, dtype=np.int64),
                np.asarray(graph.poly_adj, dtype=np.int64))
    tri = np.asarray(graph.triangles, dtype=np.int64)
    return (v, np.arange(0, 3 * len(tri) + 1, 3, dtype=np.int64), tri.ravel(),
            np.asarray(graph.neighbours, dtype=np.int64).ravel())


def vertex_fans(num_vertices, poly_start, poly_verts, poly_adj):
    """Per vertex, its polygons counter-clockwise around it with -1 for each
    gap (a wall sector), as Polyanya's v2 vertex lines list them. Around a
    corner of polygon p (corner k, CCW polygon), the next polygon
    counter-clockwise is the one across p's edge k-1 (the edge arriving at
    the corner) and the previous one the one across edge k. A vertex where
    two obstacles touch (a pinch) gets two -1s: Polyanya then never passes
    through it."""
    n = np.diff(poly_start)
    pid = np.repeat(np.arange(len(n)), n)
    k = np.arange(len(poly_verts)) - poly_start[pid]
    arrive = poly_start[pid] + (k - 1) % n[pid]          # flat index of edge k-1
    ccw_next = {}   # (vertex, polygon) -> next polygon CCW (-1: a wall)
    cw_prev = {}
    around = [[] for _ in range(num_vertices)]
    for e in range(len(poly_verts)):
        vtx, p = int(poly_verts[e]), int(pid[e])
        ccw_next[vtx, p] = int(poly_adj[arrive[e]])
        cw_prev[vtx, p] = int(poly_adj[e])
        around[vtx].append(p)
    fans = []
    for vtx in range(num_vertices):
        polys = around[vtx]
        left = set(polys)
        out = []
        # start each fan at a polygon with a wall clockwise of it, if any
        starts = [p for p in polys if cw_prev[vtx, p] == -1] + polys
        for s in starts:
            if s not in left:
                continue
            p = s
            while True:
                out.append(p)
                left.discard(p)
                q = ccw_next[vtx, p]
                if q == -1:
                    out.append(-1)
                    break
                if q == s or q not in left:
                    break
                p = q
        fans.append(out)
    return fans


def write_mesh_v2(path, vertices, poly_start, poly_verts, poly_adj):
    """Write Polyanya's ``.mesh`` version 2 (spec ``utils/spec/mesh/2.txt``;
    reader ``structs/mesh.cpp``): vertex lines ``x y n p1..pn`` (polygons
    around the vertex, CCW, -1 per wall gap), polygon lines ``n v1..vn
    p1..pn`` where ``p[j]`` is across the edge from ``v[j-1]`` to ``v[j]``
    (so navcore's ``poly_adj`` rotated by one). Unused vertices are dropped
    (Polyanya wants at least 2 entries per vertex). Coordinates are written
    with ``repr`` (exact)."""
    used = np.zeros(len(vertices), dtype=bool)
    used[poly_verts] = True
    new_id = np.cumsum(used) - 1
    pv = new_id[poly_verts]
    fans = vertex_fans(int(used.sum()), poly_start, pv, poly_adj)
    lines = ["mesh", "2", f"{int(used.sum())} {len(poly_start) - 1}"]
    for (x, y), fan in zip(vertices[used], fans):
        lines.append(f"{float(x)!r} {float(y)!r} {len(fan)} " + " ".join(map(str, fan)))
    for p in range(len(poly_start) - 1):
        a, b = int(poly_start[p]), int(poly_start[p + 1])
        vs = pv[a:b]
        adj = np.roll(poly_adj[a:b], 1)
        lines.append(f"{b - a} " + " ".join(map(str, vs)) + " " + " ".join(map(str, adj)))
    Path(path).write_text("\n".join(lines) + "\n")


def read_mesh_v2(path):
    """``(vertices, poly_start, poly_verts, poly_adj, fans)`` of a v2
    ``.mesh`` (navcore's edge convention), for checking the writer."""
    tok = Path(path).read_text().split()
    assert tok[0] == "mesh" and tok[1] == "2", "not a v2 mesh"
    nv, npoly = int(tok[2]), int(tok[3])
    i = 4
    vertices, fans = [], []
    for _ in range(nv):
        vertices.append((float(tok[i]), float(tok[i + 1])))
        m = int(tok[i + 2])
        fans.append([int(t) for t in tok[i + 3:i + 3 + m]])
        i += 3 + m
    start, verts, adj = [0], [], []
    for _ in range(npoly):
        m = int(tok[i])
        verts += [int(t) for t in tok[i + 1:i + 1 + m]]
        adj += np.roll([int(t) for t in tok[i + 1 + m:i + 1 + 2 * m]], -1).tolist()
        start.append(start[-1] + m)
        i += 1 + 2 * m
    assert i == len(tok)
    return (np.array(vertices), np.array(start), np.array(verts), np.array(adj), fans)


def same_cycle(a, b):
    """Whether lists ``a`` and ``b`` are the same cyclic sequence."""
    if len(a) != len(b):
        return False
    if not a:
        return True
    return any(a[k:] + a[:k] == b for k in range(len(a)))


def check_writer(mesh_path, tmp_path):
    """Read a shipped v2 mesh, write it back with ``write_mesh_v2``, and
    compare: polygon lines equal, vertex fans equal up to rotation. Returns
    a list of problems (empty when the writer agrees with the file)."""
    v, ps, pv, pa, fans = read_mesh_v2(mesh_path)
    write_mesh_v2(tmp_path, v, ps, pv, pa)
    v2, ps2, pv2, pa2, fans2 = read_mesh_v2(tmp_path)
    problems = []
    if not (np.array_equal(v, v2) and np.array_equal(ps, ps2) and np.array_equal(pv, pv2)
            and np.array_equal(pa, pa2)):
        problems.append("polygon lines differ")
    bad = [i for i, (f, g) in enumerate(zip(fans, fans2)) if not same_cycle(f, g)]
    if bad:
        problems.append(f"{len(bad)} vertex lines differ, e.g. vertex {bad[0]}: "
                        f"file {fans[bad[0]]} written {fans2[bad[0]]}")
    return problems


# ---------------------------------------------------------------------------
# C++ Polyanya: build, scenario file, run
# ---------------------------------------------------------------------------
def build_polyanya(src, log=print):
    """Copy Polyanya's sources to ``bench/.cache/polyanya`` and ``make
    fast`` there (out of tree: the shared copy stays untouched). Returns
    the ``scenariorunner`` path, or ``(None, reason)``."""
    dst = CACHE / "polyanya"
    exe = dst / "bin" / "scenariorunner"
    if exe.exists():
        return exe, None
    if not Path(src).exists():
        return None, f"no sources at {src}"
    if shutil.which("g++") is None or shutil.which("make") is None:
        return None, "g++ or make not installed"
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    for p in dst.rglob("*"):
        p.chmod(p.stat().st_mode | 0o200)
    log("building C++ Polyanya (make fast) in bench/.cache/polyanya")
    r = subprocess.run(["make", "fast", "-j2"], cwd=dst, capture_output=True, text=True)
    if r.returncode != 0 or not exe.exists():
        return None, "make fast failed: " + r.stderr[-500:]
    return exe, None


def write_scenario(path, pairs, rounds):
    """Polyanya's scenario file (``helpers/scenario.cpp``): ``version 1``
    then ``bucket map xsize ysize sx sy gx gy gridcost`` per query; every
    pair once per round, round after round."""
    lines = ["version 1"]
    for _ in range(rounds):
        for (sx, sy), (gx, gy) in pairs:
            lines.append(f"0 bench 0 0 {float(sx)!r} {float(sy)!r} {float(gx)!r} "
                         f"{float(gy)!r} 0")
    Path(path).write_text("\n".join(lines) + "\n")


def run_polyanya(exe, mesh_path, scen_path, n_pairs):
    """Run scenariorunner; returns ``(micro, length)`` arrays shaped
    (rounds, pairs): its own timer (``get_search_micro``: search including
    locating both ends, not reading the mesh) and its path cost."""
    r = subprocess.run([str(exe), str(mesh_path), str(scen_path)], capture_output=True,
                       text=True, check=True)
    rows = [ln.split(";") for ln in r.stdout.splitlines()[1:] if ln.strip()]
    micro = np.array([float(x[1]) for x in rows])
    length = np.array([float(x[7]) for x in rows])
    return micro.reshape(-1, n_pairs) * 1e-6, length.reshape(-1, n_pairs)
