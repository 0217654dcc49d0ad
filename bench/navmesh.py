"""navcore's navmesh plugin against its peers, in one run, as ratios.

    .venv/bin/python bench/navmesh.py            # full run (about 2 minutes)
    .venv/bin/python bench/navmesh.py --quick    # arena + a small field, smoke run

Peers (``make bench`` installs them; see the Makefile for why
extremitypathfinder is installed with ``--no-deps``):

* extremitypathfinder (``PolygonEnvironment``, an exact visibility graph
  with A* through networkx): ``store(boundary, holes, validate=False)``
  (its own validator rejects some valid convex polygons as
  self-intersecting, so the free space is checked with shapely instead)
  prepares the graph (its "preparation" time); a query is
  ``find_shortest_path(start, goal)``. On a ``.map`` the free space is
  navcore's shapely free space, one environment per connected polygon
  (exterior counter-clockwise, holes clockwise); a query uses the one that
  covers its start. Claims optimality: its answers are counted wrong when
  they differ from the exact length by more than 1e-6 (relative), and
  wrong answers do not count in its timings.
* pyvisgraph (``VisGraph().build(polygons, status=False)``, then
  ``shortest_path(Point, Point)``): obstacle polygons in an unbounded plane,
  so it runs on the generated field only (its obstacles are simple
  polygons well inside the square, so the square's border never matters).
  A grid map's blocked area is one polygon with the free space as its
  holes, which it cannot express.
* pynavmesh (PyPI ``pynavmesh``, module ``pathfinder``):
  ``pathfinder.navmesh.Navmesh(vertices, polygons)`` on navcore's own mesh
  (the same polygons navcore searches), vertices as ``(x, 0, y)`` and
  polygons in the reversed order (it wants them clockwise seen from +y);
  ``search_path((x, 0, y), (x, 0, y))``: A* between polygon centres, then
  string pulling, like navcore's funnel. (``PathFinder`` adds RVO agent
  set-up the benchmark does not need.)
* C++ Polyanya (``../shared/peers/polyanya``), copied to ``bench/.cache``
  and built there with ``make fast``; its ``scenariorunner`` runs the same
  pairs on navcore's mesh written in Polyanya's ``.mesh`` v2 format
  (``_navmesh.write_mesh_v2``, checked by writing the shipped arena.mesh
  back identically), ``cpp_passes`` passes per round. Its time is its own
  timer (search, including locating both ends; no process start or mesh
  reading), in a separate process, so it is not interleaved per pair but
  per round.

navcore runs through ``World.find_path(gid, (x, y), (x, y), algorithm=...)``
(end to end: argument checks, locating both ends, search, the PathResult)
with ``algorithm="funnel"`` and, when the plugin offers it (``"polyanya" in
world.algorithms(gid)``, checked at run time), the exact
``algorithm="polyanya"``. ``.mesh`` datasets run when the navmesh plugin
reads ``mesh=PATH`` (checked at run time); until then they are skipped with
a note. Rows of the table ``LIBS`` say what runs where.

Datasets (``../shared/data/navmesh``; the README there has the rules: y
down in ``.map`` files, no squeezing between diagonal obstacles): arena.map
and den312d.map with their 200 exact queries each; arena.mesh (v2) and
scene_mp_2p_01.mesh (v3) with theirs; and a generated field: a seeded
1000 x 1000 m square with 200 obstacles (100 rotated rectangles and 100
random convex hexagons, 3-40 m across, at least 1 m apart and 5 m inside the
square: 1,000 obstacle vertices) and 200 seeded random pairs in free space
(``_navmesh.make_field``, ``field_pairs``).

Truth on the field (``_navmesh.field_truth``): a reduced visibility graph
over the 1,000 corners and the 400 query points; an edge is kept when it
is tangent at its corner ends and GEOS says it ``crosses`` no obstacle
(through an STRtree); Dijkstra (scipy) from each start. Every truth path is
checked to lie in the free space (shapely ``covers``, 1e-7 tolerance).
extremitypathfinder and pyvisgraph, two independent visibility-graph
implementations, agree with it on all 200 pairs to 2.2e-16 (relative); the
benchmark checks every one of their answers against it on every run, so a
disagreement would show as their wrong answers. The lengths are cached in
``bench/.cache`` (git-ignored), keyed by the seed and the field.

Every library answers every pair once, untimed (this is also the
warm-up), and every answer is checked before its time counts: the path must start and
end at the pair's points, lie in the free space (1e-7 tolerance), cost
what the library reported, and never be shorter than the exact length by
more than 1e-9 (relative); a library that claims optimality must match it
to 1e-6. A pair a library got wrong is counted and left out of that
library's timings and ratios. Then ``rounds`` timed rounds; in a round
each library answers every pair in a batch (each call timed on its own, the
garbage collector paused in the batch), and the libraries' order rotates
from round to round. Batches, not pair-by-pair rotation: a query of tens
of microseconds right after a peer's pure-Python call (or a collection)
runs with cold caches, up to 2.5x slower here (10x right after
``gc.collect()``), and the C++ runner, in its own process, never pays
that; batches time every library in its steady state. The slow peers
(extremitypathfinder, pyvisgraph) run on ``slow_pairs`` pairs spread over
the list, in the first ``slow_rounds`` rounds; their ratios use navcore's
times on the same pairs. A figure is the median over pairs of the per-pair
median; a ratio is the median of the per-pair ratios. Short queries are
the pairs whose end cells are within 24 cells (Chebyshev) of each other, the
README's definition.

Build times: navcore's ``add_graph`` from each ``.map`` and from the
field's 1,000 obstacle vertices (``bounds=`` + ``obstacles=``; goal < 20 ms),
medians of ``build_rounds``; the peers' preparations once.

``ratio`` is always navcore time / peer time: below 1 navcore is faster.
Results: ``bench/results/navmesh.json`` (``navmesh-quick.json`` for
``--quick``) and the printed tables as Markdown in ``navmesh.tables.md``
(``navmesh-quick.tables.md``).
"""
from __future__ import annotations

import argparse
import csv
import gc
import io
import math
import os
import sys
from collections.abc import Callable
from contextlib import redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _navmesh as NM  # noqa: E402
from _common import (RESULTS_DIR, fmt_ratio, fmt_s, log, machine, median, now,  # noqa: E402
                     print_table, ratio, timed, versions, write_json)

SEED = 20261125
SHARED = Path(os.environ.get("NAVCORE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
DATA = SHARED / "data/navmesh"
POLYANYA_SRC = SHARED / "peers/polyanya"

FULL = dict(datasets=["arena", "den312d", "arena.mesh", "scene_mp_2p_01.mesh", "field"],
            field=dict(rects=100, polys=100), field_pairs=200, max_pairs=None,
            rounds=5, slow_pairs=40, slow_rounds=3, cpp_passes=5, build_rounds=7)
QUICK = dict(datasets=["arena", "arena.mesh", "field"],
             field=dict(rects=15, polys=15), field_pairs=20, max_pairs=40,
             rounds=2, slow_pairs=10, slow_rounds=1, cpp_passes=3, build_rounds=3)
#: the field of the build-time goal (always the full one: building is cheap)
BUILD_FIELD = dict(rects=100, polys=100)

GOALS = {
    "ep": ("navcore >= 100x faster per query than extremitypathfinder (ratio <= 0.01)", 0.01),
    "cpp": ("navcore polyanya <= 2x the C++ Polyanya per query", 2.0),
    "build": ("navmesh build from 1,000 obstacle vertices < 20 ms", 20e-3),
    "excess": ("funnel paths <= 2% over the exact optimum (README of the data; on the mean)",
               0.02),
}
REL_EXACT = 1e-6        # an exact library must match the truth to this
REL_SHORTER = 1e-9      # nobody may be shorter than the truth by more than this
FREE_TOL = 1e-7         # paths touch corners: the free space grown by this


def goal_le(key, value):
    if value is None:
        return "-"
    _, limit = GOALS[key]
    return "met" if value <= limit else f"MISSED ({value / limit:.2f}x the limit)"


class Unavailable(Exception):
    """A library (or navcore feature) that cannot run on a dataset; the
    message says why, and the run goes on without it."""


# ---------------------------------------------------------------------------
# datasets
# ---------------------------------------------------------------------------
@dataclass
class Dataset:
    name: str
    kind: str                   # "map", "mesh" or "field"
    world: object               # navcore World holding graph ``gid``
    gid: str
    pairs: list                 # [((sx, sy), (gx, gy))]
    truth: np.ndarray           # exact lengths
    short: np.ndarray           # bool per pair
    free: object                # shapely free space (for the checks)
    rings: list | None = None   # the field's obstacle rings
    notes: list = field(default_factory=list)

    @property
    def graph(self):
        return self.world.graph(self.gid)

    @property
    def triangles(self):
        """The same free space as bare triangles (``merge=False``), what
        pynavmesh walks: its polygon normals break on the merged mesh's
        straight corners. A ``.mesh`` file is searched as it is."""
        gid = f"{self.gid}-triangles"
        if gid not in self.world.graphs:
            if self.kind == "mesh":
                return self.graph
            params = (dict(bounds=(0, 0, 1000, 1000), obstacles=[r.tolist() for r in self.rings])
                      if self.kind == "field" else dict(map=str(DATA / f"{self.name}.map")))
            self.world.add_graph(gid, type="navmesh", merge=False, **params)
        return self.world.graph(gid)


def read_csv(path, limit=None):
    with open(path) as f:
        rows = [[float(v) for v in r[:5]] for r in list(csv.reader(f))[1:]]
    if limit:
        rows = [rows[i] for i in spread(len(rows), limit)]
    pairs = [((r[0], r[1]), (r[2], r[3])) for r in rows]
    return pairs, np.array([r[4] for r in rows])


def spread(n, k):
    """``k`` indices spread over ``range(n)``."""
    return sorted(set(np.linspace(0, n - 1, min(k, n)).round().astype(int).tolist()))


def free_of(graph):
    """The free space navcore meshed (or the union of its polygons)."""
    import shapely
    from shapely.geometry import Polygon

    free = getattr(graph, "free_space", None)
    if free is not None:
        return free
    v, ps, pv, _ = NM.mesh_arrays(graph)
    return shapely.union_all([Polygon(v[pv[ps[i]:ps[i + 1]]]) for i in range(len(ps) - 1)])


def load_dataset(name, cfg):
    """A Dataset, or Unavailable (a .mesh navcore cannot read yet)."""
    import navcore

    world = navcore.World()
    if name == "field":
        rings = NM.make_field(SEED, **cfg["field"])
        pairs, truth, stats = NM.cached_field(SEED, rings, cfg["field_pairs"], log=log)
        world.add_graph(name, type="navmesh", bounds=(0, 0, 1000, 1000),
                        obstacles=[r.tolist() for r in rings])
        log(f"field: {len(rings)} obstacles, {sum(len(r) for r in rings)} vertices, "
            f"truth graph {stats}")
        return Dataset(name, "field", world, name, pairs, truth,
                       np.zeros(len(pairs), dtype=bool), free_of(world.graph(name)), rings)
    pairs, truth = read_csv(DATA / f"{name}.anyangle.csv", cfg["max_pairs"])
    if name.endswith(".mesh"):
        try:
            world.add_graph(name, type="navmesh", mesh=str(DATA / name))
        except navcore.GraphError as e:
            if "mesh" in str(e) and "unexpected keyword" in str(e):
                raise Unavailable("the navmesh plugin does not read mesh=PATH yet") from None
            raise
        kind = "mesh"
        short = np.zeros(len(pairs), dtype=bool)
    else:
        world.add_graph(name, type="navmesh", map=str(DATA / f"{name}.map"))
        kind = "map"
        cells = np.floor(np.array([(*s, *g) for s, g in pairs]))
        short = np.maximum(np.abs(cells[:, 0] - cells[:, 2]),
                           np.abs(cells[:, 1] - cells[:, 3])) <= 24
    return Dataset(name, kind, world, name, pairs, truth, short, free_of(world.graph(name)))


# ---------------------------------------------------------------------------
# libraries: a factory per library returns (query, preparation seconds)
# ---------------------------------------------------------------------------
# query(s, t) -> (reported length or None, (k, 2) points or None)
def navcore_make(algorithm):
    def make(ds):
        import navcore

        world, gid = ds.world, ds.gid
        if algorithm not in world.algorithms(gid):
            raise Unavailable(f'algorithm="{algorithm}" is not offered on this navmesh yet')
        try:
            world.find_path(gid, *ds.pairs[0], algorithm=algorithm)
        except navcore.QueryError as e:
            raise Unavailable(str(e)) from None

        def query(s, t):
            r = world.find_path(gid, s, t, algorithm=algorithm)
            if r.status is not navcore.PathStatus.FOUND:
                return None, None
            return r.cost, r.points
        return query, None
    return make


#: the pair a kernel timing repeats in one call (its dispatch amortised)
KERNEL_REPEAT = 50


def navcore_kernel_make(ds):
    """navcore's exact search without Python per query, the work the C++
    runner's own timer measures (search and locating both ends):
    ``navcore_navmesh.path_lengths`` on the pair repeated ``KERNEL_REPEAT``
    times in one numba call, the time divided by that (``Lib.repeat``)."""
    import navcore
    from navcore_navmesh import path_lengths

    graph = ds.graph
    if "polyanya" not in ds.world.algorithms(ds.gid):
        raise Unavailable('algorithm="polyanya" is not offered on this navmesh yet')

    def query(s, t):
        a = np.empty((KERNEL_REPEAT, 2))
        b = np.empty((KERNEL_REPEAT, 2))
        a[:], b[:] = s, t
        length = float(path_lengths(graph, a, b)[0])
        return (length, None) if np.isfinite(length) else (None, None)
    del navcore
    return query, None


def pynavmesh_make(ds):
    from pathfinder.navmesh import Navmesh

    v, ps, pv, _ = NM.mesh_arrays(ds.triangles)
    verts = [(float(x), 0.0, float(y)) for x, y in v]
    polys = [pv[ps[i]:ps[i + 1]][::-1].tolist() for i in range(len(ps) - 1)]
    sink = io.StringIO()
    with redirect_stdout(sink):               # it prints "[Something wrong]" lines
        t, nm = timed(Navmesh, verts, polys)
    if sink.getvalue():
        ds.notes.append(f"pynavmesh printed while building: {sink.getvalue()[:200]!r}")

    def query(s, t):
        p = nm.search_path((s[0], 0.0, s[1]), (t[0], 0.0, t[1]))
        if not p:
            return None, None
        return None, np.array([(a, c) for a, _, c in p])
    return query, t


def extremity_make(ds):
    import shapely
    from extremitypathfinder import PolygonEnvironment
    from shapely.geometry.polygon import orient

    if ds.kind == "field":
        parts = [(shapely.box(0, 0, 1000, 1000), [r[::-1] for r in ds.rings])]
    else:
        parts = []
        for poly in shapely.get_parts(ds.free):
            poly = orient(poly, sign=1.0)       # exterior CCW, holes CW (raw numbers)
            parts.append((poly, [np.asarray(h.coords)[:-1] for h in poly.interiors]))
    envs, t_prep = [], 0.0
    for poly, holes in parts:
        env = PolygonEnvironment()
        boundary = np.asarray(orient(shapely.Polygon(poly.exterior), 1.0).exterior.coords)[:-1]
        t, _ = timed(env.store, boundary, holes, validate=False)
        t_prep += t
        shapely.prepare(poly)
        envs.append((poly, env))

    def query(s, t):
        pt = shapely.points(s)
        env = next((e for poly, e in envs if poly.covers(pt)), None)
        if env is None:
            return None, None
        path, length = env.find_shortest_path(s, t, verify=False)
        if not path:
            return None, None
        return float(length), np.array(path, dtype=np.float64)
    return query, t_prep


def pyvisgraph_make(ds):
    import pyvisgraph as vg

    polys = [[vg.Point(float(x), float(y)) for x, y in r] for r in ds.rings]
    g = vg.VisGraph()
    t, _ = timed(g.build, polys, status=False)

    def query(s, t):
        p = g.shortest_path(vg.Point(*s), vg.Point(*t))
        return None, np.array([(q.x, q.y) for q in p])
    return query, t


@dataclass(frozen=True)
class Lib:
    """One library (or navcore algorithm), checked and timed on each dataset."""
    name: str               # key in the JSON and the tables
    make: Callable          # Dataset -> (query, preparation seconds or None)
    exact: bool             # claims optimality: must match the truth to REL_EXACT
    slow: bool = False      # slow_pairs pairs, slow_rounds rounds
    kinds: tuple = ("map", "mesh", "field")     # the datasets it runs on
    dist: str | None = None  # its distribution, for the versions
    repeat: int = 1         # queries one call answers (its time is divided by it)


#: a navcore algorithm or a peer is one entry here; unavailable ones are skipped
LIBS = [
    Lib("navcore funnel", navcore_make("funnel"), exact=False, dist="navcore"),
    Lib("navcore polyanya", navcore_make("polyanya"), exact=True, dist="navcore"),
    Lib("navcore polyanya kernel", navcore_kernel_make, exact=True, dist="navcore",
        repeat=KERNEL_REPEAT),
    Lib("pynavmesh", pynavmesh_make, exact=False, dist="pynavmesh"),
    Lib("extremitypathfinder", extremity_make, exact=True, slow=True,
        dist="extremitypathfinder"),
    Lib("pyvisgraph", pyvisgraph_make, exact=True, slow=True, kinds=("field",),
        dist="pyvisgraph"),
]
NAVCORE = [lib.name for lib in LIBS if lib.name.startswith("navcore")]
CPP = "C++ Polyanya"


# ---------------------------------------------------------------------------
# checks
# ---------------------------------------------------------------------------
def polyline_length(xy):
    return float(np.sqrt((np.diff(xy, axis=0) ** 2).sum(axis=1)).sum())


def check_answer(lib_exact, answer, pair, exact, free):
    """``(length or None, problem or None)`` of one answer."""
    from shapely.geometry import LineString

    reported, xy = answer
    if xy is None and reported is None:
        return None, "no path"
    if xy is not None:
        xy = np.asarray(xy, dtype=np.float64)
        if not (np.allclose(xy[0], pair[0], atol=1e-9) and np.allclose(xy[-1], pair[1],
                                                                        atol=1e-9)):
            return None, f"path runs {xy[0].tolist()} -> {xy[-1].tolist()}"
        length = polyline_length(xy)
        if reported is not None and not math.isclose(reported, length, rel_tol=1e-9,
                                                     abs_tol=1e-9):
            return None, f"reported {reported!r} but its path is {length!r} long"
        if len(xy) > 1 and not free.covers(LineString(xy)):
            return None, "path leaves the free space"
    else:
        length = float(reported)
    rel = length / exact - 1.0 if exact > 0 else length
    if rel < -REL_SHORTER:
        return length, f"shorter than the exact {exact!r} ({rel:.2e}): through an obstacle"
    if lib_exact and abs(rel) > REL_EXACT:
        return length, f"length {length!r} != exact {exact!r} ({rel:+.2e})"
    return length, None


# ---------------------------------------------------------------------------
# one dataset
# ---------------------------------------------------------------------------
def bench_dataset(ds, cfg, cpp_exe):
    n = len(ds.pairs)
    slow_idx = set(spread(n, cfg["slow_pairs"]))
    queries, prep, skipped = {}, {}, {}
    for lib in LIBS:
        if ds.kind not in lib.kinds:
            skipped[lib.name] = f"does not run on a {ds.kind}"
            continue
        try:
            queries[lib.name], prep[lib.name] = lib.make(ds)
        except Unavailable as e:
            skipped[lib.name] = str(e)
            log(f"{ds.name}: {lib.name} skipped: {e}")
        except ImportError as e:
            skipped[lib.name] = f"not installed ({e.name})"
            log(f"{ds.name}: {lib.name} skipped: not installed")
    exact_of = {lib.name: lib.exact for lib in LIBS}
    repeat_of = {lib.name: lib.repeat for lib in LIBS}
    slow = {lib.name for lib in LIBS if lib.slow}

    # check pass (also the warm-up): every answer against the truth
    free = ds.free.buffer(FREE_TOL)
    import shapely
    shapely.prepare(free)
    lengths = {k: [None] * n for k in queries}
    problems = {k: {} for k in queries}
    for k, q in queries.items():
        log(f"{ds.name}: checking {k} on {n} pairs")
        for i in range(n):
            try:
                ans = q(*ds.pairs[i])
            except Exception as e:          # a peer that crashes on a pair: counted
                ans, why = (None, None), f"raised {type(e).__name__}: {e}"
                problems[k][i] = why
                continue
            lengths[k][i], why = check_answer(exact_of[k], ans, ds.pairs[i], ds.truth[i], free)
            if why:
                problems[k][i] = why
    for k, bad in problems.items():
        for i, why in list(bad.items())[:3]:
            print(f"!! {ds.name}: {k} pair {ds.pairs[i]}: {why}")
        if len(bad) > 3:
            print(f"!! {ds.name}: {k}: {len(bad)} wrong answers in all")

    # timed rounds
    names = list(queries)
    times = {k: [[] for _ in range(n)] for k in names}
    cpp = run_cpp(ds, cfg, cpp_exe) if cpp_exe else None
    for r in range(cfg["rounds"]):
        log(f"{ds.name}: round {r + 1}/{cfg['rounds']}")
        k0 = r % len(names)
        for k in names[k0:] + names[:k0]:
            if k in slow and r >= cfg["slow_rounds"]:
                continue
            idx = [i for i in (sorted(slow_idx) if k in slow else range(n))
                   if i not in problems[k]]
            times_k, q, pairs, rep = times[k], queries[k], ds.pairs, repeat_of[k]
            gc.collect()
            gc.disable()            # no collection inside a library's batch
            try:
                for i in idx:
                    t0 = now()
                    q(*pairs[i])
                    times_k[i].append((now() - t0) / rep)
            finally:
                gc.enable()
        if cpp is not None:
            cpp.run_round()
    per_pair = {k: [median(ts) for ts in times[k]] for k in names}
    if cpp is not None:
        per_pair[CPP], lengths[CPP], problems[CPP] = cpp.result()
        for i, why in list(problems[CPP].items())[:3]:
            print(f"!! {ds.name}: {CPP} pair {ds.pairs[i]}: {why}")
    return {"dataset": ds.name, "kind": ds.kind, "pairs": ds.pairs, "truth": ds.truth,
            "short": ds.short, "num_polygons": int(ds.graph.num_nodes),
            "skipped": skipped, "prep_s": prep, "per_pair_s": per_pair, "lengths": lengths,
            "problems": {k: {str(i): v for i, v in p.items()} for k, p in problems.items()},
            "slow_subset": sorted(slow_idx), "notes": ds.notes,
            "summary": summarize(ds, per_pair, lengths, problems, slow_idx)}


class CppRuns:
    """The C++ Polyanya on one dataset: navcore's mesh and the pairs
    written once, one scenariorunner process per round."""

    def __init__(self, ds, cfg, exe):
        d = NM.CACHE / "runs"
        d.mkdir(parents=True, exist_ok=True)
        self.mesh = d / f"{ds.name}.v2.mesh"
        self.scen = d / f"{ds.name}.scen"
        NM.write_mesh_v2(self.mesh, *NM.mesh_arrays(ds.graph))
        NM.write_scenario(self.scen, ds.pairs, cfg["cpp_passes"])
        self.exe, self.ds = exe, ds
        self.micro, self.length = [], None

    def run_round(self):
        t, length = NM.run_polyanya(self.exe, self.mesh, self.scen, len(self.ds.pairs))
        self.micro.append(t)
        self.length = length

    def result(self):
        ds = self.ds
        all_t = np.concatenate(self.micro)            # (rounds * passes, pairs)
        problems, lengths = {}, [None] * len(ds.pairs)
        for i in range(len(ds.pairs)):
            ls = self.length[:, i]
            if np.ptp(ls) != 0:
                problems[i] = f"lengths differ between passes: {ls.min()!r}..{ls.max()!r}"
                continue
            if ls[0] < 0:
                problems[i] = "no path"
                continue
            lengths[i] = float(ls[0])
            rel = lengths[i] / ds.truth[i] - 1
            if abs(rel) > REL_EXACT:
                problems[i] = f"length {lengths[i]!r} != exact {ds.truth[i]!r} ({rel:+.2e})"
        per_pair = [None if i in problems else float(np.median(all_t[:, i]))
                    for i in range(len(ds.pairs))]
        return per_pair, lengths, problems


def run_cpp(ds, cfg, exe):
    try:
        return CppRuns(ds, cfg, exe)
    except Exception as e:        # noqa: BLE001 (a writer bug must not stop the run)
        print(f"!! {ds.name}: C++ Polyanya not run: {type(e).__name__}: {e}")
        return None


def summarize(ds, per_pair, lengths, problems, slow_idx):
    n = len(ds.pairs)

    def med_time(k, idx):
        return median([per_pair[k][i] for i in idx]) if k in per_pair else None

    def med_ratio(a, b):
        if a not in per_pair or b not in per_pair:
            return None
        rs = [ratio(per_pair[a][i], per_pair[b][i]) for i in range(n)]
        return median([x for x in rs if x is not None])

    def excess(k):
        if k not in lengths:
            return None
        ex = [lengths[k][i] / ds.truth[i] - 1 for i in range(n)
              if lengths[k][i] is not None and ds.truth[i] > 0]
        if not ex:
            return None
        ex = np.array(ex)
        return {"mean": float(ex.mean()), "worst": float(ex.max()),
                "max_abs": float(np.abs(ex).max()), "n": int(ex.size),
                "exact_1e-9": float(np.mean(np.abs(ex) < 1e-9))}

    checked = {k: n for k in per_pair}
    short = [i for i in range(n) if ds.short[i]]
    return {
        "median_query_s": {k: med_time(k, range(n)) for k in per_pair},
        "median_query_s_slow_subset": {k: med_time(k, sorted(slow_idx)) for k in per_pair},
        "median_short_query_s": {k: med_time(k, short) for k in NAVCORE if short},
        "short_pairs": len(short),
        "checked": checked,
        "wrong": {k: len(v) for k, v in problems.items()},
        "excess": {k: excess(k) for k in lengths},
        "ratios": {f"{a} / {b}": med_ratio(a, b) for a in NAVCORE
                   for b in [*per_pair] if not b.startswith("navcore")},
    }


# ---------------------------------------------------------------------------
# build times
# ---------------------------------------------------------------------------
def bench_builds(cfg):
    """navcore's add_graph from each .map and from the 1,000-vertex field,
    rounds interleaved; median seconds."""
    import navcore

    world = navcore.World()
    rings = NM.make_field(SEED, **BUILD_FIELD)
    obstacles = [r.tolist() for r in rings]
    cases = {f"{m}.map": dict(map=str(DATA / f"{m}.map"))
             for m in ("arena", "den312d") if (DATA / f"{m}.map").exists()}
    nv = sum(len(r) for r in rings)
    cases[f"field, {nv} obstacle vertices"] = dict(bounds=(0, 0, 1000, 1000),
                                                    obstacles=obstacles)
    cases[f"field, {nv} obstacle vertices, static (tile_size=0)"] = dict(
        bounds=(0, 0, 1000, 1000), obstacles=obstacles, tile_size=0)
    times = {k: [] for k in cases}
    sizes = {}
    names = list(cases)
    for k, params in cases.items():           # warm-up (kernels, shapely)
        world.add_graph("warm", type="navmesh", **params)
        sizes[k] = int(world.graph("warm").num_nodes)
        world.remove_graph("warm")
    for r in range(cfg["build_rounds"]):
        k0 = r % len(names)
        for k in names[k0:] + names[:k0]:
            dt, _ = timed(world.add_graph, "b", type="navmesh", **cases[k])
            world.remove_graph("b")
            times[k].append(dt)
            gc.collect()
    out = {k: {"median_s": median(v), "rounds_s": v, "polygons": sizes[k]}
           for k, v in times.items()}
    out["field stages"] = field_stages(obstacles, cfg["build_rounds"])
    return out


def field_stages(obstacles, rounds):
    """Where the static field's build time goes (``tile_size=0``), through
    the navmesh plugin's public functions (free space, triangulation,
    merge, graph + locate index); None when they are not there any more."""
    try:
        from navcore_navmesh import LocateIndex, NavMeshGraph, build, merge
        from navcore_navmesh.mesh import LOCATE_KEY
        free = build.free_space(bounds=(0, 0, 1000, 1000), obstacles=obstacles)
        v, tri = build.triangulate(free)
        start = np.arange(0, tri.size + 1, 3, dtype=np.int32)
        ps, pv = merge.merge_polygons(v, start, tri.ravel())

        def graph():
            g = NavMeshGraph.from_polygons(v, ps, pv, free)
            g.view(LOCATE_KEY, LocateIndex)
        stages = {
            "free space (shapely)": lambda: build.free_space(bounds=(0, 0, 1000, 1000),
                                                             obstacles=obstacles),
            "triangulate (shapely CDT + arrays)": lambda: build.triangulate(free),
            "merge into convex polygons": lambda: merge.merge_polygons(v, start, tri.ravel()),
            "neighbours + graph + locate index": graph,
        }
        times = {k: [] for k in stages}
        for _ in range(rounds):
            for k, f in stages.items():
                times[k].append(timed(f)[0])
        return {k: median(ts) for k, ts in times.items()}
    except Exception as e:     # noqa: BLE001 (the plugin's internals may change)
        return {"unavailable": f"{type(e).__name__}: {e}"}


# ---------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------
def fmt_r(r):
    """A ratio; the tiny ones with their first significant digits."""
    return f"{r:.2g}x" if r is not None and r < 0.001 else fmt_ratio(r)


def pct(x):
    if x is None:
        return "-"
    return f"{max(x, 0.0) * 100:.2f}%" if x > -5e-5 else f"{x * 100:.2f}%"


def show(out, title, rows):
    if not rows:
        return
    buf = io.StringIO()
    with redirect_stdout(buf):
        print_table(title, list(rows[0]), [list(r.values()) for r in rows])
    sys.stdout.write(buf.getvalue())
    out.append(buf.getvalue())


def speed_rows(res):
    rows = []
    for r in res:
        s = r["summary"]
        q, ra = s["median_query_s"], s["ratios"]
        for nav in NAVCORE:
            if nav not in q:
                continue
            for peer in [k for k in q if not k.startswith("navcore")]:
                key = f"{nav} / {peer}"
                goal = "-"
                if peer == "extremitypathfinder" and nav != "navcore polyanya kernel":
                    goal = "<= 0.01x: " + goal_le("ep", ra.get(key))
                elif peer == CPP and nav == "navcore polyanya kernel":
                    # the search against the search: both without an
                    # interpreter per query (World.find_path's own goal is
                    # the short-query table's)
                    goal = "<= 2x: " + goal_le("cpp", ra.get(key))
                subset = peer in ("extremitypathfinder", "pyvisgraph")
                navt = s["median_query_s_slow_subset"][nav] if subset else q[nav]
                rows.append({"dataset": r["dataset"], "navcore": nav.split(maxsplit=1)[1],
                             "navcore query": fmt_s(navt), "peer": peer,
                             "peer query": fmt_s(s["median_query_s_slow_subset"][peer]
                                                 if subset else q[peer]),
                             "pairs timed": sum(t is not None for t in
                                                r["per_pair_s"][peer]),
                             "ratio": fmt_r(ra.get(key)), "goal": goal})
    return rows


def length_rows(res):
    rows = []
    for r in res:
        s = r["summary"]
        for k, ex in s["excess"].items():
            if ex is None:
                continue
            exact = k in ("navcore polyanya", "navcore polyanya kernel", "extremitypathfinder",
                          "pyvisgraph", CPP)
            goal = "-"
            if k == "navcore funnel":
                goal = "<= 2% mean: " + goal_le("excess", ex["mean"])
            rows.append({"dataset": r["dataset"], "library": k,
                         "answers checked": s["checked"].get(k, len(r["pairs"])),
                         "wrong": s["wrong"].get(k, 0),
                         "mean excess": pct(ex["mean"]), "worst excess": pct(ex["worst"]),
                         "max relative error": f"{ex['max_abs']:.1e}" if exact else "-",
                         "exact to 1e-9": f"{ex['exact_1e-9']:.1%}", "goal": goal})
    return rows


def short_rows(res):
    rows = []
    for r in res:
        s = r["summary"]
        for k, v in s.get("median_short_query_s", {}).items():
            if v is None or k.endswith("kernel"):       # not through find_path
                continue
            rows.append({"dataset": r["dataset"], "navcore": k,
                         "short pairs (ends within 24 cells)": s["short_pairs"],
                         "find_path per query": fmt_s(v),
                         "all pairs": fmt_s(s["median_query_s"].get(k))})
    return rows


def build_rows(builds, res):
    rows = []
    for k, b in builds.items():
        if k == "field stages":
            for stage, t in b.items():
                rows.append({"navcore add_graph": f"  static field stage: {stage}", "polygons": "",
                             "build (median)": fmt_s(t) if isinstance(t, float) else t,
                             "goal": ""})
            continue
        goal = "< 20 ms: " + goal_le("build", b["median_s"]) if k.startswith("field") else "-"
        rows.append({"navcore add_graph": k, "polygons": b["polygons"],
                     "build (median)": fmt_s(b["median_s"]), "goal": goal})
    return rows


def prep_rows(res):
    rows = []
    for r in res:
        for k, t in r["prep_s"].items():
            if t is not None:
                rows.append({"dataset": r["dataset"], "peer": k, "preparation": fmt_s(t)})
    return rows


def skipped_lines(res, skipped_datasets):
    lines = [f"- {name}: skipped: {why}" for name, why in skipped_datasets.items()]
    for r in res:
        for k, why in r["skipped"].items():
            lines.append(f"- {r['dataset']}: {k} skipped: {why}")
        for note in r["notes"]:
            lines.append(f"- {r['dataset']}: {note}")
    return lines


# ---------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small datasets/pairs (smoke run)")
    ap.add_argument("--datasets", help="comma-separated dataset names (default: all of the mode)")
    ap.add_argument("--rounds", type=int, help="timing rounds (default 5, quick 2)")
    args = ap.parse_args(argv)
    cfg = dict(QUICK if args.quick else FULL)
    if args.rounds:
        cfg["rounds"] = args.rounds
    if args.datasets:
        cfg["datasets"] = [d.strip() for d in args.datasets.split(",") if d.strip()]

    import navcore  # noqa: F401  (fails early if the venv is wrong)

    t_start = now()
    NM.CACHE.mkdir(parents=True, exist_ok=True)
    problems = NM.check_writer(DATA / "arena.mesh", NM.CACHE / "writer-check.mesh") \
        if (DATA / "arena.mesh").exists() else ["arena.mesh missing"]
    if problems:
        print(f"!! .mesh v2 writer: {problems}")
    exe, why = NM.build_polyanya(POLYANYA_SRC, log=log)
    if exe is None:
        print(f"!! C++ Polyanya not available: {why}")
    results = {"machine": machine(), "config": cfg, "quick": args.quick,
               "versions": versions("navcore", "numba", "numpy", "shapely", "scipy",
                                    "networkx", "extremitypathfinder", "pyvisgraph",
                                    "pynavmesh"),
               "ratio": "navcore time / peer time (below 1: navcore faster)",
               "goals": {k: v[0] for k, v in GOALS.items()},
               "writer_check": problems, "cpp_polyanya": str(exe) if exe else why,
               "datasets": [], "skipped_datasets": {}}
    for name in cfg["datasets"]:
        try:
            ds = load_dataset(name, cfg)
        except Unavailable as e:
            print(f"note: dataset {name} skipped: {e}")
            results["skipped_datasets"][name] = str(e)
            continue
        results["datasets"].append(bench_dataset(ds, cfg, exe))
        del ds
        gc.collect()
    log("build times")
    results["builds"] = bench_builds(cfg)
    results["total_s"] = now() - t_start
    res = results["datasets"]

    v = results["versions"]
    head = (f"navcore navmesh benchmark ({'quick' if args.quick else 'full'}); "
            f"{results['machine']['cpus']} cpus; python {v['python']}, numba {v['numba']}, "
            f"numpy {v['numpy']}, shapely {v['shapely']}, extremitypathfinder "
            f"{v['extremitypathfinder']}, pyvisgraph {v['pyvisgraph']}, pynavmesh "
            f"{v['pynavmesh']}; {results['machine']['date']}")
    print("\n" + head)
    print("ratio = navcore time / peer time (below 1: navcore faster); medians of "
          "per-query ratios")
    out = []
    show(out, f"Per query: navcore (World.find_path) vs peers ({cfg['rounds']} rounds; "
         f"slow peers {cfg['slow_rounds']} round{'s' if cfg['slow_rounds'] > 1 else ''} on "
         f"{cfg['slow_pairs']} pairs)",
         speed_rows(res))
    show(out, "Path length over the exact optimum (every answer checked)", length_rows(res))
    show(out, "Short queries end to end (World.find_path)", short_rows(res))
    show(out, f"navcore build (add_graph, median of {cfg['build_rounds']})",
         build_rows(results["builds"], res))
    show(out, "Peers' preparation (once, not in query times)", prep_rows(res))
    notes = skipped_lines(res, results["skipped_datasets"])
    if notes:
        print("\nnot run:\n" + "\n".join(notes))
    nprob = sum(len(p) for r in res for k, p in r["problems"].items() if k.startswith("navcore"))
    nprob += len(problems)
    print(f"\ncorrectness: {nprob} navcore problem(s); peers' wrong answers are counted "
          f"in the length table")
    path = write_json("navmesh-quick" if args.quick else "navmesh", results)
    md = RESULTS_DIR / ("navmesh-quick.tables.md" if args.quick else "navmesh.tables.md")
    md.write_text(f"<!-- {head} -->\n" + "".join(out)
                  + ("\nNot run:\n\n" + "\n".join(notes) + "\n" if notes else ""))
    print(f"\nwrote {path} and {md} ({results['total_s']:.0f} s)")


if __name__ == "__main__":
    main()
