"""navcore's grid plugin against its peers, in one run, as ratios.

    .venv/bin/python bench/grid.py            # full run (about 12 minutes)
    .venv/bin/python bench/grid.py --quick    # one small map + a 256 random grid, smoke run

Peers (install with ``pip install tcod pathfinding pyastar2d networkx``):

* rule "octile, no corner cutting" (straight move 1, diagonal sqrt 2, a
  diagonal needs both orthogonal cells free; navcore's default and the
  MovingAI rule): navcore A* and navcore JPS vs

  - python-tcod: ``tcod.path.CustomGraph`` with one ``add_edge`` per
    direction, integer costs 2378 (straight) and 3363 (diagonal; 3363/2378
    is sqrt 2 to 4e-8), ``condition=`` arrays that forbid corner cutting,
    ``set_heuristic`` for A*; one ``tcod.path.Pathfinder`` per map and per
    query ``clear()``, ``add_root(start)``, ``path_to(goal)``;
  - networkx ``astar_path`` on the explicit graph with the octile
    heuristic (graph built once per map, not timed per query);
  - ``pathfinding`` (pure Python) ``AStarFinder`` with
    ``DiagonalMovement.only_when_no_obstacle`` (its ``find_path`` resets
    the whole grid on every call; that is part of its query time).

  The two pure-Python peers run on a subset of the pairs (``slow_pairs``,
  spread over the list) and one round; their ratios use navcore's times on
  the same subset.
* rule "every move costs 1, corners may be cut": navcore with
  ``diagonal_cost=1, corner_cutting=True`` and ``algorithm="astar"`` vs
  ``pyastar2d.astar_path(weights, start_rc, goal_rc, allow_diagonal=True)``
  (float32 weights, inf for walls, (row, col) order).

Maps: MovingAI brc202d (Dragon Age), maze512-1-0, random512-40-0,
Berlin_0_256, Boston_0_512 with pairs spread over their ``.scen`` files
(sorted by length bucket, so short to long), and a seeded 1024x1024 grid
with 25% random obstacles and random connected pairs (connectivity checked
with navcore). Every cost is checked: navcore A* = JPS = each opt-in
variant below = the scenario's optimal length = networkx = pathfinding;
tcod up to its integer approximation; pyastar2d's move count = navcore's
cost under its rule; every returned path is checked move by move against
the rule. The table ``LIBS`` lists what is timed on each map and how each
result is checked.

Opt-in variants of navcore on the same pairs, each on its own copy of the
map: a simplified view (``simplify``), 16 landmarks, and a contraction
hierarchy (``contract``; its build time is reported, not timed per query).

Also: fixed cost of a query between two adjacent free cells on the 1024
grid (navcore through ``World.find_path`` and each peer), memory per cell
and build times.

``ratio`` is always navcore time / peer time: below 1 navcore is faster.
Results: ``bench/results/grid.json`` (``grid-quick.json`` for ``--quick``).
"""
from __future__ import annotations

import argparse
import gc
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (fmt_bytes, fmt_ratio, fmt_s, interleaved, log, machine, median,  # noqa: E402
                     now, print_table, ratio, timed, versions, write_json)

#: landmarks of the opt-in variant (4 bytes per cell each)
LANDMARKS = 16
SEED = 20261124
# ../shared beside the repository, as in CI; NAVCORE_MOVINGAI overrides it
DATA = Path(os.environ.get("NAVCORE_MOVINGAI",
                           Path(__file__).resolve().parents[2] / "shared/data/movingai"))

#: the random grid comes first: the RSS growth of the peers' builds is
#: measured on it, before other maps have left freed memory to reuse.
FULL = dict(maps=["random1024-25", "brc202d", "Boston_0_512", "Berlin_0_256",
                  "maze512-1-0", "random512-40-0"],
            random_side=1024, random_density=0.25,
            pairs=50, rounds=5, slow_pairs=10, slow_rounds=1,
            fixed_pairs=16, fixed_rounds=7,
            fixed_calls={"navcore": 2000, "tcod": 10, "pyastar2d": 20, "networkx": 500,
                         "pathfinding": 2})
QUICK = dict(maps=["random256-25", "Berlin_0_256"],
             random_side=256, random_density=0.25,
             pairs=8, rounds=2, slow_pairs=3, slow_rounds=1,
             fixed_pairs=8, fixed_rounds=3,
             fixed_calls={"navcore": 500, "tcod": 5, "pyastar2d": 20, "networkx": 200,
                          "pathfinding": 2})

#: tcod integer costs: 3363 / 2378 = 1.41421362... (sqrt 2 = 1.41421356...)
TCOD_STRAIGHT, TCOD_DIAG = 2378, 3363
SQRT2 = math.sqrt(2.0)
OCT, CUT = "octile, no corner cutting", "moves cost 1, corners cut"

JPS_GOAL_MAPS = ("brc202d", "Berlin_0_256", "Boston_0_512")
GOALS = {
    "jps_speedup": ("JPS >= 5x faster than navcore A* on brc202d, Berlin, Boston", 5.0),
    "tcod": ("navcore A* <= 0.4x python-tcod (octile, no corner cutting)", 0.4),
    "pyastar2d": ("navcore <= 1.0x pyastar2d (moves cost 1, corners cut)", 1.0),
    "pathfinding": ("navcore >= 200x faster than pathfinding (ratio <= 0.005)", 1 / 200),
    "fixed": ("adjacent-cell query through World.find_path < 10 us (1024 grid)", 10e-6),
}


def goal_le(key, value):
    """'met' / 'MISSED' for a goal of the form value <= limit."""
    if value is None:
        return "-"
    _, limit = GOALS[key]
    return "met" if value <= limit else f"MISSED ({value / limit:.2f}x the limit)"


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# ---------------------------------------------------------------------------
# maps and pairs
# ---------------------------------------------------------------------------
def load_map(name, cfg, rng):
    """``(walkable (H, W) bool, map path or None, pairs [((sx, sy), (gx, gy))],
    optimal lengths or None, decimals or None)``."""
    import navcore
    from navcore_grid import read_map, read_scen

    if name.startswith("random") and name.endswith("-25") and "512" not in name:
        side = cfg["random_side"]
        walk = rng.random((side, side)) >= cfg["random_density"]
        w = navcore.World()
        w.add_graph("m", type="grid", array=walk)
        free = np.flatnonzero(walk.ravel())
        pairs = []
        tries = 0
        while len(pairs) < cfg["pairs"]:
            tries += 1
            s, t = (int(v) for v in rng.choice(free, 2, replace=False))
            r = w.find_path("m", s, t, algorithm="jps")
            if r.found:
                pairs.append(((s % side, s // side), (t % side, t // side)))
        log(f"{name}: {len(pairs)} connected pairs from {tries} draws")
        return walk, None, pairs, None, None
    path = DATA / f"{name}.map"
    walk = read_map(path)
    sc = read_scen(DATA / f"{name}.map.scen")
    idx = np.unique(np.linspace(0, len(sc) - 1, cfg["pairs"]).round().astype(int))
    pairs = [(tuple(int(v) for v in sc.start[i]), tuple(int(v) for v in sc.goal[i]))
             for i in idx]
    return walk, path, pairs, sc.optimal[idx], sc.decimals[idx]


def spread(n, k):
    """``k`` indices spread over ``range(n)``."""
    return sorted(set(np.linspace(0, n - 1, min(k, n)).round().astype(int).tolist()))


# ---------------------------------------------------------------------------
# path checks
# ---------------------------------------------------------------------------
def check_path(walk, xy, corner_cutting):
    """``(straight moves, diagonal moves, problem or None)`` of a path given
    as an (n, 2) array of (x, y), checked move by move."""
    xy = np.asarray(xy, dtype=np.int64).reshape(-1, 2)
    H, W = walk.shape
    x, y = xy[:, 0], xy[:, 1]
    if ((x < 0) | (x >= W) | (y < 0) | (y >= H)).any():
        return 0, 0, "cell outside the grid"
    if not walk[y, x].all():
        return 0, 0, "blocked cell on the path"
    d = np.diff(xy, axis=0)
    ax, ay = np.abs(d[:, 0]), np.abs(d[:, 1])
    if ((ax > 1) | (ay > 1) | ((ax == 0) & (ay == 0))).any():
        return 0, 0, "a move is not to a neighbour"
    diag = (ax == 1) & (ay == 1)
    if not corner_cutting and diag.any():
        px, py = x[:-1][diag], y[:-1][diag]
        if not (walk[py, px + d[diag, 0]] & walk[py + d[diag, 1], px]).all():
            return 0, 0, "a diagonal cuts a corner"
    nd = int(diag.sum())
    return int(len(d) - nd), nd, None


def cells_xy(nodes, W):
    nodes = np.asarray(nodes, dtype=np.int64)
    return np.column_stack([nodes % W, nodes // W])


# ---------------------------------------------------------------------------
# peers
# ---------------------------------------------------------------------------
def build_tcod(walk):
    import tcod.path

    H, W = walk.shape
    pad = np.zeros((H + 2, W + 2), dtype=bool)
    pad[1:-1, 1:-1] = walk
    cost = walk.astype(np.int8)
    graph = tcod.path.CustomGraph((H, W))
    arrays = [cost]
    for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        graph.add_edge((dy, dx), TCOD_STRAIGHT, cost=cost)
    for dy, dx in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        # from (y, x): both (y + dy, x) and (y, x + dx) must be free
        cond = (pad[1 + dy:H + 1 + dy, 1:W + 1] & pad[1:H + 1, 1 + dx:W + 1 + dx]).astype(np.int8)
        arrays.append(cond)
        graph.add_edge((dy, dx), TCOD_DIAG, cost=cost, condition=cond)
    graph.set_heuristic(cardinal=TCOD_STRAIGHT, diagonal=TCOD_DIAG)
    pf = tcod.path.Pathfinder(graph)
    return {"graph": graph, "pf": pf, "arrays": arrays}


def build_networkx(walk):
    import networkx as nx

    H, W = walk.shape
    idx = np.arange(H * W, dtype=np.int64).reshape(H, W)
    us, vs, ws = [], [], []
    # straight: E and S; diagonal: SE and SW, each only without corner cutting
    for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
        y0, y1 = 0, H - dy
        x0, x1 = max(0, -dx), W - max(0, dx)
        a = walk[y0:y1, x0:x1] & walk[y0 + dy:y1 + dy, x0 + dx:x1 + dx]
        if dx and dy:
            a &= walk[y0 + dy:y1 + dy, x0:x1] & walk[y0:y1, x0 + dx:x1 + dx]
        us.append(idx[y0:y1, x0:x1][a])
        vs.append(idx[y0 + dy:y1 + dy, x0 + dx:x1 + dx][a])
        ws.append(np.full(int(a.sum()), SQRT2 if (dx and dy) else 1.0))
    g = nx.Graph()
    g.add_nodes_from(np.flatnonzero(walk.ravel()).tolist())
    g.add_weighted_edges_from(zip(np.concatenate(us).tolist(), np.concatenate(vs).tolist(),
                                  np.concatenate(ws).tolist()))
    return g


def build_pathfinding(walk):
    from pathfinding.core.grid import Grid

    return Grid(matrix=walk.astype(np.int8))


def timed_with_rss(build, walk):
    """``(seconds, result, RSS growth in bytes)`` of one build: the memory
    figure of the peers whose structures numpy cannot size."""
    gc.collect()
    rss0 = rss_bytes()
    t, out = timed(build, walk)
    gc.collect()
    return t, out, rss_bytes() - rss0


@dataclass
class MapBuilds:
    """Every library's structures for one map, built once (not in query times)."""
    walk: np.ndarray
    world: object               # navcore World: graphs oct, cut, simp, lm and ch
    tcod: dict                  # build_tcod's
    networkx: object
    pathfinding: object
    weights: np.ndarray         # pyastar2d's: float32, inf for walls
    seconds: dict               # build times (the JSON's builds_s)
    rss_growth: dict            # of the networkx and pathfinding builds
    simplified: object          # the opt-in variants' structures
    landmarks: object
    hierarchy: object


def build_map(name, walk, map_path):
    """The builds of one map, timed: navcore's World (2 graphs) interleaved
    with tcod's, each opt-in variant on its own graph, then the pure-Python
    peers with their RSS growth."""
    import navcore
    from navcore_csr import contract, simplify
    from navcore_grid import landmarks

    def add_grid(world, gid):
        # navcore reads a MovingAI file itself; the random grid is an array
        if map_path is not None:
            return world.add_graph(gid, type="grid", map=str(map_path))
        return world.add_graph(gid, type="grid", array=walk)

    held = {}   # interleaved() discards results: keep the last of each build

    def navcore_world():
        w = navcore.World()
        add_grid(w, "oct")
        w.add_graph("cut", type="grid", array=walk, diagonal_cost=1.0, corner_cutting=True)
        held["world"] = w
        return w

    def tcod_graph():
        held["tcod"] = build_tcod(walk)
        return held["tcod"]

    navcore_world()
    bt = interleaved({"navcore (2 graphs)": navcore_world, "tcod": tcod_graph}, 3)
    seconds = {k: median(v) for k, v in bt.items()}
    world = held["world"]
    # opt-in variants, each on a graph of its own: in a game, simplify(graph)
    # once (for corridor maps), landmarks=K when adding the grid, contract(graph)
    # once or load a saved one; auto then uses them
    seconds["simplify (view of one grid)"], view = timed(simplify, add_grid(world, "simp"))
    seconds[f"{LANDMARKS} landmarks (one grid)"], lmarks = timed(
        landmarks, add_grid(world, "lm"), LANDMARKS)
    log(f"{name}: contracting (one grid)")
    seconds["contraction hierarchy (one grid)"], hier = timed(contract, add_grid(world, "ch"))
    if not np.array_equal(world.graph("oct").walkable_grid, walk):
        print(f"!! {name}: navcore's map differs from the walkable mask")
    weights = np.where(walk, np.float32(1.0), np.float32(np.inf)).astype(np.float32)
    seconds["networkx"], gx, rss_nx = timed_with_rss(build_networkx, walk)
    seconds["pathfinding"], pgrid, rss_pf = timed_with_rss(build_pathfinding, walk)
    return MapBuilds(walk, world, held["tcod"], gx, pgrid, weights, seconds,
                     {"networkx": rss_nx, "pathfinding": rss_pf}, view, lmarks, hier)


# ---------------------------------------------------------------------------
# what is timed: a query factory per library, then the table of libraries
# ---------------------------------------------------------------------------
# A factory takes a map's builds and returns query(s, t) -> (reported cost or
# None, path, nodes expanded or None) for (x, y) cells s and t; it binds what
# the query needs to local names, so the timed call does only the query.
def navcore_query(algorithm, graph="oct"):
    def make(m):
        world = m.world

        def query(s, t):
            r = world.find_path(graph, s, t, algorithm=algorithm)
            return r.cost, r.nodes, r.expanded
        return query
    return make


def tcod_query(m):
    pf = m.tcod["pf"]

    def query(s, t):
        pf.clear()
        pf.add_root((s[1], s[0]))
        p = pf.path_to((t[1], t[0]))
        return int(pf.distance[t[1], t[0]]), p, None
    return query


def pyastar2d_query(m):
    import pyastar2d

    weights = m.weights

    def query(s, t):
        p = pyastar2d.astar_path(weights, (s[1], s[0]), (t[1], t[0]), allow_diagonal=True)
        return None, p, None
    return query


def networkx_query(m):
    import networkx as nx

    gx, W = m.networkx, m.walk.shape[1]

    def octile(u, v):
        uy, ux = divmod(u, W)
        vy, vx = divmod(v, W)
        dx, dy = abs(ux - vx), abs(uy - vy)
        return max(dx, dy) + (SQRT2 - 1.0) * min(dx, dy)

    def query(s, t):
        p = nx.astar_path(gx, s[1] * W + s[0], t[1] * W + t[0], heuristic=octile,
                          weight="weight")
        return None, p, None
    return query


def pathfinding_query(m):
    from pathfinding.core.diagonal_movement import DiagonalMovement
    from pathfinding.finder.a_star import AStarFinder

    finder = AStarFinder(diagonal_movement=DiagonalMovement.only_when_no_obstacle)
    pgrid = m.pathfinding

    def query(s, t):
        path, _runs = finder.find_path(pgrid.node(*s), pgrid.node(*t), pgrid)
        return None, path, None
    return query


def rows_cols_xy(path, W):
    """(x, y) of a path of (row, col) cells (tcod, pyastar2d)."""
    return None if path is None else np.asarray(path)[:, ::-1]


def grid_nodes_xy(path, W):
    """(x, y) of a path of pathfinding's GridNode."""
    return np.array([(nd.x, nd.y) for nd in path], dtype=np.int64).reshape(-1, 2)


# what a library reported vs its checked path (straight and diagonal moves,
# cost under its rule): a problem, or None
def no_reported_cost(reported, straight, diagonal, cost):
    return None


def navcore_reported(reported, straight, diagonal, cost):
    if not math.isclose(cost, reported, rel_tol=1e-9, abs_tol=1e-9):
        return f"reported cost {reported!r} but its path costs {cost!r}"
    return None


def tcod_distance(reported, straight, diagonal, cost):
    if reported != TCOD_STRAIGHT * straight + TCOD_DIAG * diagonal:
        return f"distance {reported} is not its path's integer cost"
    return None


@dataclass(frozen=True)
class Lib:
    """One library or navcore variant, timed and checked on every map's pairs."""
    name: str                       # its key in the JSON and the tables
    query: Callable                 # factory: MapBuilds -> query(s, t)
    path_xy: Callable = cells_xy    # (path, W) -> (n, 2) array of (x, y), or None
    rule: str = OCT                 # the rule its path is checked and costed under
    check_reported: Callable = no_reported_cost     # what it reported vs its path
    same_cost_as: str | None = "navcore astar"  # an earlier Lib whose cost its cost must
    tol: float = 1e-9               # equal, to this relative (and absolute) tolerance
    slow: bool = False              # pure Python: slow_pairs pairs, slow_rounds rounds


def navcore_lib(name, algorithm, graph="oct", **kw):
    return Lib(name, navcore_query(algorithm, graph), check_reported=navcore_reported, **kw)


#: timed in this order (rotated pair by pair), and checked in it: a cost's
#: reference comes first. navcore A* is also checked against the scenario.
LIBS = [
    navcore_lib("navcore astar", "astar", same_cost_as=None),
    navcore_lib("navcore jps", "jps"),
    navcore_lib("navcore simplified", "simplified", "simp"),
    navcore_lib("navcore landmarks", "auto", "lm"),
    navcore_lib("navcore ch", "ch", "ch"),
    # its integer costs: 3363/2378 is sqrt 2 to 4e-8 relative
    Lib("tcod", tcod_query, rows_cols_xy, check_reported=tcod_distance, tol=1e-6),
    navcore_lib("navcore astar (cut)", "astar", "cut", rule=CUT, same_cost_as=None),
    # it reports no cost: its path's move count must equal navcore's cost
    Lib("pyastar2d", pyastar2d_query, rows_cols_xy, rule=CUT,
        same_cost_as="navcore astar (cut)", tol=0.0),
    Lib("networkx", networkx_query, slow=True),
    Lib("pathfinding", pathfinding_query, grid_nodes_xy, slow=True),
]
SLOW = {lib.name for lib in LIBS if lib.slow}


def time_pairs(name, queries, pairs, cfg, slow_idx):
    """Every query on every pair, ``rounds`` rounds, the order of the
    libraries rotating pair by pair; the slow ones only on the pairs
    ``slow_idx`` in the first ``slow_rounds`` rounds. Returns ``(times,
    out)``: ``times[lib][pair]`` seconds per round, ``out[lib][pair]`` the
    first result."""
    names = list(queries)
    n = len(pairs)
    times = {k: [[] for _ in pairs] for k in names}
    out = {k: [None] * n for k in names}
    for r in range(cfg["rounds"]):
        log(f"{name}: round {r + 1}/{cfg['rounds']}")
        for i, (s, t) in enumerate(pairs):
            k = (r * n + i) % len(names)
            for lib in names[k:] + names[:k]:
                if lib in SLOW and (i not in slow_idx or r >= cfg["slow_rounds"]):
                    continue
                dt, res = timed(queries[lib], s, t)
                times[lib][i].append(dt)
                if out[lib][i] is None:
                    out[lib][i] = res
            gc.collect()
    return times, out


def check_result(lib, result, pair, walk, ref):
    """``(cost of the returned path or None, problems)``: the path must run
    from the pair's start to its goal by moves of the library's rule, and its
    cost match what the library reported and ``ref`` (when not None)."""
    reported, path, _ = result
    xy = lib.path_xy(path, walk.shape[1])
    if xy is None or len(xy) == 0:
        return None, ["no path"]
    problems = []
    if tuple(xy[0]) != pair[0] or tuple(xy[-1]) != pair[1]:
        problems.append(f"path runs {tuple(xy[0])} -> {tuple(xy[-1])}")
    cut = lib.rule == CUT
    straight, diagonal, why = check_path(walk, xy, corner_cutting=cut)
    if why:
        return None, problems + [why]
    cost = float(straight + diagonal) if cut else straight + SQRT2 * diagonal
    why = lib.check_reported(reported, straight, diagonal, cost)
    if why:
        problems.append(why)
    if ref is not None and not math.isclose(cost, ref, rel_tol=lib.tol, abs_tol=lib.tol):
        problems.append(f"cost {cost!r} != {lib.same_cost_as} {ref!r} "
                        f"(rel {abs(cost - ref) / max(ref, 1.0):.2e})")
    return cost, problems


def check_costs(name, walk, pairs, out, optimal, decimals):
    """Every first result through check_result, and navcore A*'s cost against
    the scenario's optimal length; prints each problem. Returns ``(costs,
    expanded, problems)``: ``costs[lib][pair]`` of the checked paths, the
    nodes each navcore variant expanded."""
    from navcore_grid import tolerance

    costs = {lib.name: [None] * len(pairs) for lib in LIBS}
    expanded = {lib.name: [] for lib in LIBS if lib.name.startswith("navcore")}
    problems = []

    def bad(lib, i, msg):
        problems.append({"lib": lib, "pair": pairs[i], "problem": msg})
        print(f"!! {name}: {lib} pair {pairs[i]}: {msg}")

    for i, pair in enumerate(pairs):
        for lib in LIBS:
            result = out[lib.name][i]
            if result is None:
                continue
            if result[2] is not None:
                expanded[lib.name].append(result[2])
            ref = costs[lib.same_cost_as][i] if lib.same_cost_as else None
            costs[lib.name][i], found = check_result(lib, result, pair, walk, ref)
            for msg in found:
                bad(lib.name, i, msg)
        ref = costs["navcore astar"][i]
        if optimal is not None and ref is not None:
            tol = float(tolerance(optimal[i], decimals[i]))
            if not abs(ref - optimal[i]) <= tol:
                bad("navcore astar", i, f"cost {ref!r} != scenario optimal {optimal[i]!r}")
    return costs, expanded, problems


# ---------------------------------------------------------------------------
# one map
# ---------------------------------------------------------------------------
def probe_first_queries(name, world, pair):
    """Times of the first queries on a fresh graph: does a query build the CSR
    view? (the csr plugin's ``navcore_algorithms`` hook reads ``graph.csr``,
    and ``World.find_path`` asks that hook whenever ``algorithm`` is not
    "auto")"""
    g_oct = world.graph("oct")
    ws, wt = pair
    t_auto1, _ = timed(world.find_path, "oct", ws, wt)
    csr_after_auto = g_oct.csr_built
    t_astar1, _ = timed(world.find_path, "oct", ws, wt, algorithm="astar")
    csr_after_astar = g_oct.csr_built
    t_astar2, _ = timed(world.find_path, "oct", ws, wt, algorithm="astar")
    if csr_after_astar and not csr_after_auto:
        print(f"!! {name}: the first find_path(algorithm='astar') built the CSR view "
              f"({fmt_bytes(g_oct.csr.nbytes)}, first query {fmt_s(t_astar1)}, second "
              f"{fmt_s(t_astar2)}); algorithm='auto' did not")
    return {"auto_first_s": t_auto1, "csr_built_after_auto": csr_after_auto,
            "astar_first_s": t_astar1, "csr_built_after_astar": csr_after_astar,
            "astar_second_s": t_astar2}


def summarize(m, per_pair, costs, expanded, sub, longest, lengths):
    """Median query times, medians of the per-pair ratios (on the pairs
    ``sub`` when a slow peer is in them), the variants' sizes."""
    cells = m.walk.size
    n = len(lengths)

    def med_ratio(a, b, idx=None):
        idx = range(n) if idx is None else idx
        rs = [ratio(per_pair[a][i], per_pair[b][i]) for i in idx]
        return median([x for x in rs if x is not None])

    def med_time(k, idx=None):
        idx = range(n) if idx is None else idx
        return median([per_pair[k][i] for i in idx])

    tcod_rel = [abs(c - ref) / max(ref, 1.0)
                for c, ref in zip(costs["tcod"], costs["navcore astar"])
                if c is not None and ref is not None]
    return {
        "median_query_s": {k: med_time(k) for k in per_pair if k not in SLOW},
        "median_query_s_subset": {k: med_time(k, sub) for k in per_pair},
        "jps_speedup": med_ratio("navcore astar", "navcore jps"),
        "jps_speedup_longest10": med_ratio("navcore astar", "navcore jps", longest),
        "astar_vs_tcod": med_ratio("navcore astar", "tcod"),
        "jps_vs_tcod": med_ratio("navcore jps", "tcod"),
        "cut_vs_pyastar2d": med_ratio("navcore astar (cut)", "pyastar2d"),
        "astar_vs_networkx": med_ratio("navcore astar", "networkx", sub),
        "jps_vs_networkx": med_ratio("navcore jps", "networkx", sub),
        "astar_vs_pathfinding": med_ratio("navcore astar", "pathfinding", sub),
        "jps_vs_pathfinding": med_ratio("navcore jps", "pathfinding", sub),
        "simplified_vs_pathfinding": med_ratio("navcore simplified", "pathfinding", sub),
        "simplified_vs_astar": med_ratio("navcore simplified", "navcore astar"),
        "simplified_vs_jps": med_ratio("navcore simplified", "navcore jps"),
        "simplified_nodes": m.simplified.num_nodes,
        "simplified_used_by_auto": m.simplified.pays,
        "landmarks_vs_pathfinding": med_ratio("navcore landmarks", "pathfinding", sub),
        "landmarks_vs_jps": med_ratio("navcore landmarks", "navcore jps"),
        "landmarks_vs_astar": med_ratio("navcore landmarks", "navcore astar"),
        "landmarks_bytes_per_cell": m.landmarks.nbytes / cells,
        "ch_vs_pathfinding": med_ratio("navcore ch", "pathfinding", sub),
        "ch_vs_jps": med_ratio("navcore ch", "navcore jps"),
        "ch_vs_astar": med_ratio("navcore ch", "navcore astar"),
        "ch_bytes_per_cell": m.hierarchy.nbytes / cells,
        "ch_shortcuts": m.hierarchy.num_shortcuts,
        "mean_expanded": {k: float(np.mean(v)) if v else None for k, v in expanded.items()},
        "median_path_cost": median(lengths),
        "tcod_max_rel_cost_diff": max(tcod_rel) if tcod_rel else None,
    }


def measure_memory(m):
    """Bytes of each library's structures for the map, in all and per cell."""
    import navcore
    from navcore_grid.search import scratch_for

    walk, g_oct, tc = m.walk, m.world.graph("oct"), m.tcod
    cells = walk.size
    rss_nx, rss_pf = m.rss_growth["networkx"], m.rss_growth["pathfinding"]
    base = g_oct.padded_free.nbytes + g_oct.padded_cost.nbytes + g_oct.walkable.nbytes
    scratch = scratch_for(g_oct).nbytes
    # a fresh graph for the CSR view's build time (the queries built the other's)
    g_fresh = navcore.World().add_graph("fresh", type="grid", array=walk)
    t_csr, csr = timed(lambda: g_fresh.csr)
    memory = {
        "cells": cells, "navcore_grid_bytes": base, "navcore_scratch_bytes": scratch,
        "navcore_csr_bytes": csr.nbytes, "navcore_csr_build_s": t_csr,
        "navcore_csr_edges": int(csr.num_edges),
        "tcod_bytes": int(sum(a.nbytes for a in tc["arrays"]) + tc["pf"].distance.nbytes
                          + tc["pf"].traversal.nbytes),
        "pyastar2d_bytes": int(m.weights.nbytes),
        "networkx_rss_growth": rss_nx, "pathfinding_rss_growth": rss_pf,
    }
    memory["per_cell"] = {
        "navcore grid": base / cells, "navcore grid + scratch": (base + scratch) / cells,
        "navcore grid + scratch + csr": (base + scratch + csr.nbytes) / cells,
        "tcod (cost, conditions, distance, traversal)": memory["tcod_bytes"] / cells,
        "pyastar2d (float32 weights; +4 per call: it copies them)": m.weights.nbytes / cells,
        "networkx (RSS growth at build)": rss_nx / cells,
        "pathfinding (RSS growth at build)": rss_pf / cells,
    }
    return memory


def bench_map(name, cfg, rng, fixed_cost=False):
    """Every library of LIBS on one map: builds, timings, checks, summary,
    memory (and, when asked, the fixed cost of a query)."""
    # imported before the builds: the RSS growth of a peer's build must not
    # count its import (on the first map, about 10 MB for networkx)
    import networkx  # noqa: F401
    import pyastar2d  # noqa: F401
    from pathfinding.core.diagonal_movement import DiagonalMovement  # noqa: F401
    from pathfinding.finder.a_star import AStarFinder  # noqa: F401

    walk, map_path, pairs, optimal, decimals = load_map(name, cfg, rng)
    H, W = walk.shape
    log(f"{name}: {W}x{H}, {int(walk.sum())} free cells, {len(pairs)} pairs")

    m = build_map(name, walk, map_path)
    builds = m.seconds
    queries = {lib.name: lib.query(m) for lib in LIBS}
    slow_idx = set(spread(len(pairs), cfg["slow_pairs"]))
    first_queries = probe_first_queries(name, m.world, pairs[0])
    # warm-up: JIT / cache load, scratch allocation, first touch
    for k, f in queries.items():
        if k not in SLOW:
            f(*pairs[0])

    times, out = time_pairs(name, queries, pairs, cfg, slow_idx)
    costs, expanded, problems = check_costs(name, walk, pairs, out, optimal, decimals)
    per_pair = {k: [median(ts) for ts in times[k]] for k in queries}
    lengths = [c or 0.0 for c in costs["navcore astar"]]
    longest = sorted(range(len(pairs)), key=lambda i: lengths[i])[-10:]
    sub = sorted(slow_idx)
    summary = summarize(m, per_pair, costs, expanded, sub, longest, lengths)
    memory = measure_memory(m)
    fixed = bench_fixed(cfg, m.world, walk, queries, rng) if fixed_cost else None
    del m, queries      # this map's structures go before the next map's builds
    gc.collect()
    return {
        "map": name, "width": W, "height": H, "free_cells": int(walk.sum()),
        "pairs": pairs, "slow_subset": sub, "longest10": longest,
        "scenario_optimal": optimal, "rounds": cfg["rounds"],
        "slow_rounds": cfg["slow_rounds"], "builds_s": builds,
        "per_pair_s": per_pair, "costs": costs, "summary": summary, "memory": memory,
        "problems": problems, "fixed_cost": fixed, "first_queries": first_queries,
    }


# ---------------------------------------------------------------------------
# fixed cost: a query between two adjacent free cells
# ---------------------------------------------------------------------------
def bench_fixed(cfg, world, walk, queries, rng):
    from navcore_grid import grid_astar, grid_jps

    H, W = walk.shape
    ok = np.flatnonzero((walk[:, :-1] & walk[:, 1:]).ravel())
    picks = rng.choice(ok, cfg["fixed_pairs"], replace=False)
    pairs = [((int(p % (W - 1)), int(p // (W - 1))), (int(p % (W - 1)) + 1, int(p // (W - 1))))
             for p in picks]
    ids = [(s[1] * W + s[0], t[1] * W + t[0]) for s, t in pairs]
    g = world.graph("oct")
    calls = cfg["fixed_calls"]
    m = len(pairs)

    def batch(fn, k, use_ids=False):
        src = ids if use_ids else pairs

        def run():
            for j in range(k):
                s, t = src[j % m]
                fn(s, t)
        return run

    def nav(algo, gid="oct"):
        return lambda s, t: world.find_path(gid, s, t, algorithm=algo)

    cases = {
        "navcore find_path auto, (x, y)": (nav("auto"), calls["navcore"], False),
        "navcore find_path astar, (x, y)": (nav("astar"), calls["navcore"], False),
        "navcore find_path jps, (x, y)": (nav("jps"), calls["navcore"], False),
        "navcore find_path auto, node ids": (nav("auto"), calls["navcore"], True),
        "navcore find_path auto with a hierarchy, (x, y)": (nav("auto", "ch"),
                                                            calls["navcore"], False),
        "navcore find_path astar (cut), (x, y)": (nav("astar", "cut"), calls["navcore"], False),
        "navcore grid_astar (no World)": (lambda s, t: grid_astar(g, s, t), calls["navcore"],
                                          True),
        "navcore grid_jps (no World)": (lambda s, t: grid_jps(g, s, t), calls["navcore"], True),
        "tcod clear+add_root+path_to": (queries["tcod"], calls["tcod"], False),
        "pyastar2d astar_path": (queries["pyastar2d"], calls["pyastar2d"], False),
        "networkx astar_path": (queries["networkx"], calls["networkx"], False),
        "pathfinding find_path": (queries["pathfinding"], calls["pathfinding"], False),
    }
    for fn, _, use_ids in cases.values():          # warm-up
        s, t = (ids if use_ids else pairs)[0]
        fn(s, t)
    log(f"fixed cost: {len(cases)} cases x {cfg['fixed_rounds']} rounds")
    raw = interleaved({k: batch(fn, c, u) for k, (fn, c, u) in cases.items()},
                      cfg["fixed_rounds"])
    per_call = {k: median(v) / cases[k][1] for k, v in raw.items()}
    return {"pairs": pairs, "calls_per_batch": {k: v[1] for k, v in cases.items()},
            "batch_times_s": raw, "per_call_s": per_call}


# ---------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------
# A row is {column header: cell}, so each header sits next to its value.
def show(title, rows):
    """Print rows (dicts of the same headers) as one table."""
    print_table(title, list(rows[0]) if rows else [], [list(r.values()) for r in rows])


def jps_row(res):
    s = res["summary"]
    q, e, sp = s["median_query_s"], s["mean_expanded"], s["jps_speedup"]
    goal = "-"
    if res["map"] in JPS_GOAL_MAPS:
        goal = "met" if sp is not None and sp >= 5.0 else f"MISSED ({sp:.1f}x < 5x)"
    return {"map": res["map"], "rule": OCT, "pairs": len(res["pairs"]),
            "A*": fmt_s(q["navcore astar"]), "JPS": fmt_s(q["navcore jps"]),
            "speedup": f"{sp:.1f}x", "speedup, longest 10": f"{s['jps_speedup_longest10']:.1f}x",
            "mean expanded A* / JPS": f"{e['navcore astar']:.0f} / {e['navcore jps']:.0f}",
            "goal >= 5x": goal}


def tcod_row(res):
    s = res["summary"]
    q = s["median_query_s"]
    return {"map": res["map"], "rule": OCT, "navcore A*": fmt_s(q["navcore astar"]),
            "navcore JPS": fmt_s(q["navcore jps"]), "tcod": fmt_s(q["tcod"]),
            "A* ratio": fmt_ratio(s["astar_vs_tcod"]), "JPS ratio": fmt_ratio(s["jps_vs_tcod"]),
            "goal <= 0.4x (A*)": goal_le("tcod", s["astar_vs_tcod"])}


def pure_python_row(res):
    s = res["summary"]
    q = s["median_query_s_subset"]
    a, j = s["astar_vs_pathfinding"], s["jps_vs_pathfinding"]
    return {"map": res["map"], "rule": OCT, "pairs": len(res["slow_subset"]),
            "navcore A*": fmt_s(q["navcore astar"]), "navcore JPS": fmt_s(q["navcore jps"]),
            "networkx astar_path": fmt_s(q["networkx"]), "pathfinding": fmt_s(q["pathfinding"]),
            "A*/networkx": fmt_ratio(s["astar_vs_networkx"]), "A*/pathfinding": fmt_ratio(a),
            "JPS/pathfinding": fmt_ratio(j),
            "goal <= 0.005x": f"A* {goal_le('pathfinding', a)}; JPS {goal_le('pathfinding', j)}"}


def simplified_row(res):
    s = res["summary"]
    r = s["simplified_vs_pathfinding"]
    return {"map": res["map"], "rule": OCT,
            "nodes searched / free cells": f"{s['simplified_nodes']} / {res['free_cells']}",
            "auto uses it": "yes" if s["simplified_used_by_auto"] else "no (JPS)",
            "simplify": fmt_s(res["builds_s"]["simplify (view of one grid)"]),
            "query": fmt_s(s["median_query_s"]["navcore simplified"]),
            "vs A*": fmt_ratio(s["simplified_vs_astar"]),
            "vs JPS": fmt_ratio(s["simplified_vs_jps"]),
            "pathfinding": fmt_s(s["median_query_s_subset"]["pathfinding"]),
            "ratio": fmt_ratio(r), "goal <= 0.005x": goal_le("pathfinding", r)}


def landmarks_row(res):
    s = res["summary"]
    e = s["mean_expanded"]
    r = s["landmarks_vs_pathfinding"]
    return {"map": res["map"], "rule": OCT,
            "measure landmarks": fmt_s(res["builds_s"][f"{LANDMARKS} landmarks (one grid)"]),
            "bytes/cell": f"{s['landmarks_bytes_per_cell']:.0f}",
            "query": fmt_s(s["median_query_s"]["navcore landmarks"]),
            "expanded JPS / with landmarks":
                f"{e['navcore jps']:.0f} / {e['navcore landmarks']:.0f}",
            "vs JPS": fmt_ratio(s["landmarks_vs_jps"]),
            "vs A*": fmt_ratio(s["landmarks_vs_astar"]),
            "pathfinding": fmt_s(s["median_query_s_subset"]["pathfinding"]),
            "ratio": fmt_ratio(r), "goal <= 0.005x": goal_le("pathfinding", r)}


def ch_row(res):
    s = res["summary"]
    e = s["mean_expanded"]
    r = s["ch_vs_pathfinding"]
    return {"map": res["map"], "rule": OCT,
            "contract": fmt_s(res["builds_s"]["contraction hierarchy (one grid)"]),
            "shortcuts": f"{s['ch_shortcuts']}", "bytes/cell": f"{s['ch_bytes_per_cell']:.0f}",
            "query": fmt_s(s["median_query_s"]["navcore ch"]),
            "expanded A* / settled CH": f"{e['navcore astar']:.0f} / {e['navcore ch']:.0f}",
            "vs JPS": fmt_ratio(s["ch_vs_jps"]), "vs A*": fmt_ratio(s["ch_vs_astar"]),
            "pathfinding": fmt_s(s["median_query_s_subset"]["pathfinding"]),
            "ratio": fmt_ratio(r), "goal <= 0.005x": goal_le("pathfinding", r)}


def pyastar2d_row(res):
    s = res["summary"]
    q = s["median_query_s"]
    return {"map": res["map"], "rule": CUT, "navcore A*": fmt_s(q["navcore astar (cut)"]),
            "pyastar2d": fmt_s(q["pyastar2d"]), "ratio": fmt_ratio(s["cut_vs_pyastar2d"]),
            "goal <= 1.0x": goal_le("pyastar2d", s["cut_vs_pyastar2d"])}


def fixed_rows(fixed):
    """One row per query of the fixed-cost run."""
    pc = fixed["per_call_s"]
    rows = []
    for k, v in pc.items():
        cut = "(cut)" in k or k.startswith("pyastar2d")
        row = {"query": k, "rule": CUT if cut else OCT, "per call": fmt_s(v),
               "ratio navcore/peer": "", "navcore side": "", "goal < 10 us": "-"}
        if k.startswith("navcore find_path"):
            row["goal < 10 us"] = goal_le("fixed", v)
        elif not k.startswith("navcore"):
            # a peer, against navcore under the peer's rule
            side = "navcore astar (cut)" if cut else "navcore auto"
            ref = pc["navcore find_path astar (cut), (x, y)"] if cut else \
                pc["navcore find_path auto, (x, y)"]
            row.update({"ratio navcore/peer": fmt_ratio(ratio(ref, v)), "navcore side": side})
        rows.append(row)
    return rows


def memory_row(res, first):
    pc = res["memory"]["per_cell"]
    # RSS growth is only meaningful on the first map: later builds reuse
    # memory that earlier maps freed (the JSON keeps every figure)
    nx_rss = f"{pc['networkx (RSS growth at build)']:.0f}" if first else "-"
    pf_rss = f"{pc['pathfinding (RSS growth at build)']:.0f}" if first else "-"
    return {"map": res["map"], "size": f"{res['width']}x{res['height']}",
            "navcore grid": f"{pc['navcore grid']:.1f}",
            "+ scratch": f"{pc['navcore grid + scratch']:.1f}",
            "+ CSR view": f"{pc['navcore grid + scratch + csr']:.1f}",
            "tcod arrays": f"{pc['tcod (cost, conditions, distance, traversal)']:.1f}",
            "networkx (RSS, first map)": nx_rss, "pathfinding (RSS, first map)": pf_rss,
            "CSR view build": fmt_s(res["memory"]["navcore_csr_build_s"])}


def builds_row(res):
    b = res["builds_s"]
    return {"map": res["map"], "navcore World + 2 grids": fmt_s(b["navcore (2 graphs)"]),
            "tcod graph+Pathfinder": fmt_s(b["tcod"]), "networkx graph": fmt_s(b["networkx"]),
            "pathfinding Grid": fmt_s(b["pathfinding"])}


# ---------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small maps/pairs (smoke run)")
    ap.add_argument("--maps", help="comma-separated map names (default: all of the mode)")
    ap.add_argument("--rounds", type=int, help="timing rounds (default 5, quick 2)")
    args = ap.parse_args(argv)
    cfg = dict(QUICK if args.quick else FULL)
    if args.rounds:
        cfg["rounds"] = args.rounds
    if args.maps:
        cfg["maps"] = [m.strip() for m in args.maps.split(",") if m.strip()]

    import navcore  # noqa: F401  (fails early if the venv is wrong)

    t_start = now()
    rng = np.random.default_rng(SEED)
    results = {"machine": machine(), "config": cfg, "quick": args.quick,
               "versions": versions("navcore", "numba", "numpy", "tcod", "pathfinding",
                                    "pyastar2d", "networkx"),
               "ratio": "navcore time / peer time (below 1: navcore faster)",
               "goals": {k: v[0] for k, v in GOALS.items()}, "maps": []}
    fixed_map = next((m for m in cfg["maps"] if m.startswith("random") and "512" not in m),
                     None)
    for name in cfg["maps"]:
        res = bench_map(name, cfg, rng, fixed_cost=(name == fixed_map))
        results["maps"].append(res)
        if res["fixed_cost"] is not None:
            results["fixed_cost"] = dict(res["fixed_cost"], map=name)
    results["total_s"] = now() - t_start
    maps = results["maps"]

    v = results["versions"]
    print(f"\nnavcore grid benchmark ({'quick' if args.quick else 'full'}); "
          f"{results['machine']['cpus']} cpus; python {v['python']}, numba {v['numba']}, "
          f"numpy {v['numpy']}, tcod {v['tcod']}, pathfinding {v['pathfinding']}, "
          f"pyastar2d {v['pyastar2d']}, networkx {v['networkx']}")
    print("ratio = navcore time / peer time (below 1: navcore faster); medians of "
          "per-query ratios")
    show(f"navcore JPS vs navcore A* ({cfg['rounds']} rounds)", [jps_row(r) for r in maps])
    show("navcore vs python-tcod (CustomGraph + conditions, Pathfinder)",
         [tcod_row(r) for r in maps])
    show(f"navcore vs pure Python ({cfg['slow_rounds']} round on a pair subset)",
         [pure_python_row(r) for r in maps])
    show("navcore with a simplified view (opt-in: simplify(graph) once; "
         "algorithm='simplified')", [simplified_row(r) for r in maps])
    show(f"navcore with {LANDMARKS} landmarks (opt-in: landmarks={LANDMARKS}; "
         f"auto = JPS with the stronger heuristic)", [landmarks_row(r) for r in maps])
    show("navcore with a contraction hierarchy (opt-in: contract(graph) once, "
         "or load_contracted; auto uses it while the map is unchanged)",
         [ch_row(r) for r in maps])
    show("navcore vs pyastar2d", [pyastar2d_row(r) for r in maps])
    if results.get("fixed_cost"):
        fx = results["fixed_cost"]
        show(f"Fixed cost: adjacent free cells on {fx['map']}, per call", fixed_rows(fx))
    show("Memory, bytes per cell", [memory_row(r, first=n == 0) for n, r in enumerate(maps)])
    show("Build times (not in query times)", [builds_row(r) for r in maps])
    nprob = sum(len(r["problems"]) for r in maps)
    print(f"\ncorrectness: {nprob} problem(s)"
          + ("" if not nprob else " (see the '!!' lines and 'problems' in the JSON)"))
    path = write_json("grid-quick" if args.quick else "grid", results)
    print(f"\nwrote {path} ({results['total_s']:.0f} s)")


if __name__ == "__main__":
    main()
