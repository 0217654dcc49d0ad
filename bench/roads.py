"""navcore's road networks against their peers, in one run, as ratios.

    .venv/bin/python bench/roads.py            # full run
    .venv/bin/python bench/roads.py --quick    # the small graphs, few rounds

Graphs (``../shared/data/roads``, README there): ``monaco`` and ``helsinki``
from ``NAME.graph.npz`` (weights ``time_s``, seconds), the same two from
their DIMACS files (``NAME.gr``/``.co``: integer decimetres), ``gen250k``,
``roadgen.make_roads`` (seeded; >= 250,000 nodes, weights ``time_s``; see
roadgen's docstring for how it differs from a real extract), and
``city250k``, ``citygen.make_city`` (seeded; 250,000 nodes, hop weights:
every edge 1, the kind of PACE16's New York graph; lattice coordinates
turned into degrees). ``genNk``/``cityNk`` name other sizes. Every library
gets the same arrays (node ids are array indices: navcore loads arrays and
DIMACS with ``keep="all"``, not compressed).

Weights per library:

* navcore, networkx, scipy: the float weights as they are (seconds; the
  DIMACS decimetres as floats).
* ch-router (RoutingKit CH) and routingkit-cch: unsigned integers: seconds
  as ``rint(time_s * 1000)`` milliseconds (DIMACS decimetres as they are);
  their answers are divided back.
* pandana: the float weights; it stores them as fixed point, rounded down
  to 1/1000 of the unit (so up to 1 ms per edge short on time graphs).

Checks (every answer, before its time counts): an answer is a mismatch when
it differs from scipy's Dijkstra run on the weights that library actually
holds (float: relative 1e-9; the integer peers: exactly, in their
integers; pandana: 1e-6 against scipy on weights floored to 1/1000). The
deviation from the exact float answer (navcore/scipy) is reported too
(``max dev``): that is the peer's documented rounding. A returned node path
must run from s to t over existing edges and cost what was reported.
On ``gen250k`` the matrix checks of the integer and floored weights use the
first ``check_rows`` rows (scipy on 250k nodes takes ~0.1 s a row).
On the real extracts navcore is also checked against the README's truth
(``NAME.pairs.csv``, 1e-5).

What is timed:

* import: navcore ``osm=`` (car profile; when the roads plugin reads OSM)
  against osmnx ``graph_from_xml`` (XML; Helsinki converted once with
  pyosmium) and pyrosm ``OSM(path).get_network("driving", nodes=True)``
  (PBF; monaco converted once), each in its own process (one untimed
  warm-up process each): seconds and peak RSS (``ru_maxrss``) over the load.
* CH build: ``navcore_roads.contract(graph)`` (when it exists) against
  ch-router ``ContractionHierarchy.build``; routingkit-cch (inertial-flow
  order + CCH + customization) and pandana's ``Network`` (its CH) for
  reference.
* one route: per query, with the node path: navcore ``World.find_path``
  (``bidijkstra``; ``ch`` when contracted) and the batch
  ``World.distance_pairs`` (per pair; on a contracted copy too), ch-router
  (``CHQuery``: reset, source, target, run, distance, node path),
  routingkit-cch ``CCHQuery.run``, networkx ``bidirectional_dijkstra`` and
  scipy ``dijkstra(indices=s)`` (slow: ``slow_pairs`` pairs,
  ``slow_rounds`` rounds).
* matrix: ``min(SCC, matrix)`` sources x as many targets (seeded, in the
  largest strongly connected component): navcore ``distance_matrix`` (and on
  the contracted copy), routingkit-cch ``CCHOneToMany`` (targets pinned,
  ``distances_from`` per source), ch-router (no many-to-many in its Python
  API: one ``CHQuery`` per cell; on graphs over 100k nodes timed on the
  first ``slow_matrix_rows`` rows and scaled to the whole matrix), pandana
  ``shortest_path_lengths`` on all pairs, scipy ``dijkstra(indices=sources)``.

* cch (customizable CH): navcore ``contract(graph, customizable=True)``'s
  order and supergraph against routingkit-cch ``compute_order_inertial`` +
  ``CCH``; ``RoadCCH.customize(partial=False)`` (the whole
  metric, basic, the default; and with ``perfect = True``) after every
  tenth edge got twice as slow, against
  ``CCHMetric`` (its basic customization; the weight list is converted
  inside the call) and ``CCHMetric.reset`` (its buffers reused), once on
  each library's own order and once with navcore on routingkit's order
  (the same supergraph); then pairs (``distance_pairs`` over the bench's
  pairs against ``CCHQuery.run`` one by one) and the matrix against
  ``CCHOneToMany`` on the customized metrics (navcore's checked against
  scipy on the changed costs); and the seconds from ``World.update`` of 10 closures + ``tick`` to an
  exact ``distance_matrix`` with a customizable hierarchy (customized in
  the tick, partially: two batches before it, untimed, filled both
  metrics as in a running world) against the same with a plain CH rebuilt
  (``contract``); and the customization after 10 closures (partial)
  against routingkit's ``CCHMetricPartialUpdater`` on 10 closures.
  Route and matrix rows above include ``find_path cch``, ``distance_pairs
  (cch)`` and ``distance_matrix (cch)``.

* turns (``--parts turns``): each OSM extract (``turn_extracts``) read
  with ``restrictions=False``, ``True``, and ``True`` with
  ``turn_costs=True`` (the car profile's OSRM turn costs; the README's
  roads section), ratios against the first:
  ``add_graph`` (chains compressed, the default; and ``compress=False``),
  ``contract`` of the uncompressed graph, one route with its path
  (``find_path`` ``ch`` and ``bidijkstra``), ``distance_pairs`` (ch) per
  pair, a ``min(1000, junctions)`` matrix (ch) and an isochrone reaching
  30% of the junctions, on the same junctions (matched by OSM id). The
  peer: ch-router on the edge-based graph the rules give (``edge_graph``:
  a node per road edge plus a start and an end node per junction, what a
  RoutingKit user builds for turn restrictions) and on the junctions
  without them. Truth: scipy on that edge-based graph (float for navcore,
  1e-9; ms for ch-router, exactly); a path must run over existing edges
  whose allowed turns cost what was reported. The rules are read from
  ``graph.turns`` (navcore's own reading of the OSM relations: the check
  is of the searches, not of the reader). Monaco's extract carries no
  restriction relation, so its two graphs are the same (a control).
* isochrone (``--parts isochrone``; not on the ``.gr`` twins):
  ``bench/isochrones.py``'s ``measure`` on the graph's arrays, limits
  reaching 1% and 30% of the nodes, ``iso_sources`` sources of the largest
  strongly connected component: ``World.isochrone`` on a ``csr`` and on a
  ``roads`` graph, each plain and contracted, against scipy's bounded
  ``dijkstra(limit=)`` and networkx's ``ego_graph(radius=, distance=)``
  (osmnx's isochrone recipe); every navcore answer's nodes and costs
  checked against scipy's full Dijkstra.

Rounds interleave the libraries (the order rotates); a figure is the median
over pairs of per-pair medians (batches: median over rounds of the batch
time / pairs). ``ratio = navcore figure / peer figure`` on the same pairs:
below 1 navcore is faster. Results: ``bench/results/roads.json``
(``roads-quick.json``) and the tables in ``roads.tables.md``.
"""
from __future__ import annotations

import argparse
import gc
import importlib.util
import io
import json
import os
import subprocess
import sys
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (RESULTS_DIR, fmt_bytes, fmt_ratio, fmt_s, log, machine, median,  # noqa: E402
                     now, print_table, ratio, timed, versions, write_json)
from isochrones import iso_matches  # noqa: E402

SEED = 20261125
HERE = Path(__file__).resolve().parent
SHARED = Path(os.environ.get("NAVCORE_SHARED", HERE.parents[1] / "shared"))
DATA = SHARED / "data/roads"
CACHE = HERE / ".cache"

FULL = dict(graphs=["monaco", "helsinki", "monaco.gr", "helsinki.gr", "gen250k", "city250k"],
            gen_nodes=250_000, pairs=500, gen_sources=50, gen_pairs=200, rounds=5,
            slow_pairs=20, slow_rounds=1, matrix=1000, matrix_rounds=3, big_matrix_rounds=1,
            check_rows=100, slow_matrix_rows=100, build_rounds=3, big_build_rounds=1,
            import_rounds=3, turn_extracts=["monaco", "helsinki"], turn_pairs=500,
            turn_rounds=5, turn_build_rounds=3, iso_sources=11)
QUICK = dict(graphs=["monaco", "helsinki", "monaco.gr", "city20k"], gen_nodes=20_000, pairs=100,
             gen_sources=10, gen_pairs=40, rounds=2, slow_pairs=10, slow_rounds=1, matrix=300,
             matrix_rounds=1, big_matrix_rounds=1, check_rows=100, slow_matrix_rows=100,
             build_rounds=1, big_build_rounds=1, import_rounds=1,
             turn_extracts=["monaco", "helsinki"], turn_pairs=100, turn_rounds=2,
             turn_build_rounds=1, iso_sources=5)
BIG = 100_000           # graphs above this many nodes use the "big_" settings
REL = 1e-9              # float libraries against scipy
TRUTH_ABS = 1e-5        # navcore against the README truth (printed with 6 decimals)


class Unavailable(Exception):
    """A library or navcore feature that cannot run here; the message says why."""


@contextmanager
def quiet_fd1():
    """Silence stdout at the file-descriptor level: pandana's C++ prints
    progress there, and stdout carries the tables."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


# ---------------------------------------------------------------------------
# graphs
# ---------------------------------------------------------------------------
@dataclass
class Graph:
    name: str
    unit: str                   # "s" or "dm"
    src: np.ndarray             # int32 directed edges
    dst: np.ndarray
    w: np.ndarray               # float weights (navcore, scipy, networkx, pandana)
    lon: np.ndarray
    lat: np.ndarray
    scale: int                  # integer peers hold rint(w * scale)
    navcore_params: dict        # add_graph parameters besides type/keep
    pairs: np.ndarray           # (P, 2) node ids
    readme_truth: np.ndarray | None = None
    notes: list = field(default_factory=list)
    gen_s: float | None = None

    @property
    def n(self):
        return int(self.lon.size)

    @property
    def int_w(self):
        iw = np.rint(self.w * self.scale)
        if iw.max() >= 2**31:
            raise Unavailable("integer weights overflow")
        return iw.astype(np.uint32)

    @property
    def floor_w(self):
        """pandana's fixed point: weights rounded down to 1/1000."""
        return np.floor(self.w * 1000.0) / 1000.0

    def csr(self, w):
        """scipy CSR with the cheapest of parallel edges (scipy would sum them)."""
        from scipy.sparse import csr_matrix
        order = np.lexsort((w, self.dst, self.src))
        s, d, ww = self.src[order], self.dst[order], w[order]
        first = np.r_[True, (s[1:] != s[:-1]) | (d[1:] != d[:-1])]
        return csr_matrix((ww[first], (s[first], d[first])), shape=(self.n, self.n))


def load_graph(name, cfg):
    if name.startswith("gen") and name.endswith("k"):        # gen250k, gen90k: that many nodes
        return gen_graph(dict(cfg, gen_nodes=int(name[3:-1]) * 1000))
    if name.startswith("city") and name.endswith("k"):       # city250k: hop weights
        return city_graph(int(name[4:-1]) * 1000, cfg)
    base = name.removesuffix(".gr")
    z = np.load(DATA / f"{base}.graph.npz")
    rows = np.genfromtxt(DATA / f"{base}.pairs.csv", delimiter=",", names=True)
    pairs = np.column_stack((rows["source"], rows["target"])).astype(np.int32)[:cfg["pairs"]]
    if name.endswith(".gr"):
        src, dst, w = read_gr(DATA / f"{base}.gr")
        truth = rows["dimacs_dm"][:cfg["pairs"]]
        params = dict(dimacs=str(DATA / f"{base}.gr"), coords=str(DATA / f"{base}.co"))
        return Graph(name, "dm", src, dst, w, z["lon"], z["lat"], 1, params, pairs, truth)
    src, dst, w = z["src"].astype(np.int32), z["dst"].astype(np.int32), z["time_s"]
    params = dict(src=src, dst=dst, length=z["length_m"], cost=w,
                  positions=np.column_stack((z["lon"], z["lat"])), oneway=True)
    return Graph(name, "s", src, dst, w, z["lon"], z["lat"], 1000, params, pairs,
                 rows["time_s"][:cfg["pairs"]])


def read_gr(path):
    """Arcs of a DIMACS ``.gr`` (0-based int32, float weights)."""
    with open(path, "rb") as f:
        arcs = [ln.split()[1:4] for ln in f if ln.startswith(b"a ")]
    a = np.array(arcs, dtype=np.int64)
    return (a[:, 0] - 1).astype(np.int32), (a[:, 1] - 1).astype(np.int32), a[:, 2].astype(float)


def gen_graph(cfg):
    from roadgen import make_roads
    t, net = timed(make_roads, seed=SEED, nodes=cfg["gen_nodes"])
    lon, lat = net["lon"], net["lat"]
    g = Graph("gen250k" if cfg["gen_nodes"] >= 250_000 else f"gen{cfg['gen_nodes'] // 1000}k",
              "s", net["src"], net["dst"], net["time_s"], lon, lat, 1000,
              dict(src=net["src"], dst=net["dst"], length=net["length_m"], cost=net["time_s"],
                   positions=np.column_stack((lon, lat)), oneway=True), None, gen_s=t)
    g.pairs = few_source_pairs(g, cfg)
    g.notes.append(f"generated in {t:.2f} s: {g.n} nodes, {g.src.size} directed edges")
    return g


def city_graph(nodes, cfg):
    """``citygen.make_city``: a city of turned street grids with one-way
    streets, every arc 1 (hop weights, PACE16 New York's kind). Its lattice
    coordinates become degrees near Munich (about 100 m a step) for
    navcore's positions and routingkit-cch's inertial flow; a street's
    length is the straight line between its ends (navcore keeps lengths
    apart from costs; the costs are the hops)."""
    from citygen import make_city
    t, net = timed(make_city, seed=SEED, nodes=nodes)
    lon = 11.4 + net["x"] * 0.00133
    lat = 48.0 + net["y"] * 0.0009
    src, dst, w = net["src"], net["dst"], net["w"]
    length = np.hypot((lon[dst] - lon[src]) * 74_500.0, (lat[dst] - lat[src]) * 111_200.0)
    g = Graph(f"city{nodes // 1000}k", "hop", src, dst, w, lon, lat, 1,
              dict(src=src, dst=dst, length=np.maximum(length, 1.0), cost=w,
                   positions=np.column_stack((lon, lat)), oneway=True), None, gen_s=t)
    g.pairs = few_source_pairs(g, cfg)
    g.notes.append(f"citygen in {t:.2f} s: {g.n} nodes, {g.src.size} directed edges, "
                   "every edge 1")
    return g


def few_source_pairs(g, cfg):
    """Pairs from few distinct sources, so scipy's truth on a large graph
    is a few full searches per weight set."""
    rng = np.random.default_rng(SEED + 1)
    scc = largest_scc(g)
    srcs = rng.choice(scc, cfg["gen_sources"], replace=False)
    per = cfg["gen_pairs"] // cfg["gen_sources"]
    return np.column_stack((np.repeat(srcs, per),
                            rng.choice(scc, srcs.size * per))).astype(np.int32)


def largest_scc(g):
    from scipy.sparse.csgraph import connected_components
    _, lab = connected_components(g.csr(g.w), directed=True, connection="strong")
    return np.flatnonzero(lab == np.argmax(np.bincount(lab))).astype(np.int32)


def matrix_nodes(g, k):
    scc = largest_scc(g)
    k = min(k, scc.size)
    rng = np.random.default_rng(SEED + 2)
    return (np.sort(rng.choice(scc, k, replace=False)).astype(np.int32),
            np.sort(rng.choice(scc, k, replace=False)).astype(np.int32))


# ---------------------------------------------------------------------------
# libraries: make(graph) -> callable; unavailable ones raise
# ---------------------------------------------------------------------------
def contract_fn():
    try:
        from navcore_roads import contract
    except ImportError:
        raise Unavailable("navcore_roads.contract does not exist on this branch yet") from None
    return contract


def navcore_world(g, ch=False, cch=False):
    import navcore
    w = navcore.World()
    t, _ = timed(w.add_graph, "r", type="roads", keep="all", **g.navcore_params)
    if w.graph("r").num_nodes != g.n:
        raise Unavailable(f"navcore kept {w.graph('r').num_nodes} of {g.n} nodes")
    if ch:
        contract_fn()(w.graph("r"))
    if cch:
        cch_contract(w.graph("r"))
    w.warm_up("r")
    return w, t


def cch_contract(graph, order=None):
    """navcore's customizable hierarchy (order, supergraph, customization)."""
    contract = contract_fn()
    try:
        return contract(graph, customizable=True, order=order)
    except TypeError:
        raise Unavailable("contract(graph, customizable=True) does not exist on this branch "
                          "yet") from None


def nav_add(g):
    import navcore
    return navcore.World().add_graph("r", type="roads", keep="all", **g.navcore_params)


def nav_route(algorithm, ch=False, cch=False):
    def make(g):
        w, t = navcore_world(g, ch, cch)

        def q(s, t_):
            r = w.find_path("r", s, t_, algorithm=algorithm)
            return r.cost, r.nodes
        return q, t
    return make


def nav_pairs(ch=False, cch=False):
    def make(g):
        w, t = navcore_world(g, ch, cch)
        return (lambda s, t_: w.distance_pairs("r", s, t_)), t
    return make


def nav_routes(g):
    """navcore_roads.routes: every pair's path unpacked (edges, so nodes
    and drawn points can be had), in two parallel passes on the hierarchy."""
    w, t = navcore_world(g, ch=True)
    from navcore_roads import routes
    graph = w.graph("r")
    return (lambda s, t_: routes(graph, s, t_).costs), t


def nav_matrix(ch=False, cch=False):
    def make(g):
        w, t = navcore_world(g, ch, cch)
        return (lambda s, t_: w.distance_matrix("r", s, t_)), t
    return make


def chrouter_build(g):
    import ch_router
    return ch_router.ContractionHierarchy.build(g.n, g.src.astype(np.uint32),
                                                g.dst.astype(np.uint32), g.int_w)


def chrouter_route(g):
    import ch_router
    t, ch = timed(chrouter_build, g)
    query = ch_router.CHQuery(ch)
    inf, scale = ch_router.INF_WEIGHT, g.scale

    def q(s, t_):
        query.reset().add_source(int(s)).add_target(int(t_)).run()
        d = query.get_distance()
        return (np.inf if d == inf else d / scale), query.get_node_path()
    q.keep = ch                    # the query holds it, but be explicit
    return q, t


def cch_metric(g):
    """routingkit-cch order (inertial flow from coordinates), CCH and
    customized metric, with each stage's seconds."""
    import routingkit_cch as rk
    tail, head = g.src.tolist(), g.dst.tolist()
    t_order, order = timed(rk.compute_order_inertial, g.n, tail, head, g.lat.tolist(),
                           g.lon.tolist())
    t_cch, cch = timed(rk.CCH, order, tail, head, False)
    t_metric, metric = timed(rk.CCHMetric, cch, g.int_w.tolist())
    return (cch, metric), {"order": t_order, "cch": t_cch, "customize": t_metric}


def cch_route(g):
    import routingkit_cch as rk
    (cch, metric), stages = cch_metric(g)
    query, scale = rk.CCHQuery(metric), g.scale

    def q(s, t_):
        r = query.run(int(s), int(t_))
        return (np.inf if r.distance is None else r.distance / scale), r.node_path
    q.keep = (cch, metric)
    return q, sum(stages.values())


def cch_matrix(g):
    import routingkit_cch as rk
    (cch, metric), stages = cch_metric(g)
    scale = g.scale

    def m(sources, targets):
        otm = rk.CCHOneToMany(metric, targets.tolist())
        rows = [otm.distances_from(s) for s in sources.tolist()]
        out = np.array(rows, dtype=np.float64)        # None -> nan
        out[np.isnan(out)] = np.inf
        return out / scale
    m.keep = (cch, metric)
    return m, sum(stages.values())


def chrouter_matrix(g):
    """ch-router has no many-to-many in its Python API (``CHQuery`` takes
    sources and targets but answers the nearest pair): a matrix is one
    query per cell, the way a user of it would fill one."""
    import ch_router
    t, ch = timed(chrouter_build, g)
    query = ch_router.CHQuery(ch)
    inf, scale = ch_router.INF_WEIGHT, g.scale

    def m(sources, targets):
        tl = targets.tolist()
        rows = []
        for s in sources.tolist():
            row = []
            for t_ in tl:
                query.reset().add_source(s).add_target(t_).run()
                row.append(query.get_distance())
            rows.append(row)
        out = np.array(rows, dtype=np.float64).reshape(sources.size, targets.size)
        out[out == inf] = np.inf
        return out / scale
    m.keep = ch
    return m, t


def pandana_net(g):
    if g.unit == "hop":
        # its contraction (libch) on hop weights: 2026-11-29, city20k still
        # contracting after 3 minutes (ch-router: 0.4 s); ties everywhere
        raise Unavailable("pandana's contraction does not finish in minutes on hop weights "
                          "(city20k: over 3 min, ch-router 0.4 s)")
    import pandana
    import pandas as pd
    nodes = pd.DataFrame({"x": g.lon, "y": g.lat})
    edges = pd.DataFrame({"from": g.src, "to": g.dst, "w": g.w})
    with quiet_fd1():
        return pandana.Network(nodes.x, nodes.y, edges["from"], edges["to"], edges[["w"]],
                               twoway=False)


def pandana_matrix(g):
    t, net = timed(pandana_net, g)

    def m(sources, targets):
        a = np.repeat(sources, targets.size)
        b = np.tile(targets, sources.size)
        with quiet_fd1():
            d = net.shortest_path_lengths(a, b)
        return np.asarray(d, dtype=np.float64).reshape(sources.size, targets.size)
    return m, t


def nx_route(g):
    import networkx as nx
    c = g.csr(g.w).tocoo()
    G = nx.DiGraph()
    G.add_nodes_from(range(g.n))
    G.add_weighted_edges_from(zip(c.row.tolist(), c.col.tolist(), c.data.tolist()))

    def q(s, t_):
        try:
            d, p = nx.bidirectional_dijkstra(G, int(s), int(t_))
        except nx.NetworkXNoPath:
            return np.inf, []
        return d, p
    return q, None


def scipy_route(g):
    from scipy.sparse.csgraph import dijkstra
    csr = g.csr(g.w)
    return (lambda s, t_: (dijkstra(csr, indices=int(s))[t_], None)), None


def scipy_matrix(g):
    from scipy.sparse.csgraph import dijkstra
    csr = g.csr(g.w)
    return (lambda s, t_: dijkstra(csr, indices=s)[:, t_]), None


@dataclass
class Lib:
    name: str
    make: object
    weights: str = "float"      # what it holds: "float", "int" or "floor"
    batch: bool = False         # route: one call for all pairs
    slow: bool = False
    navcore: bool = False
    row_limit: bool = False     # matrix on a big graph: timed on the first rows, scaled
    dist: str | None = None     # distribution for the version line


#: per-query libraries; navcore rows first (the ratio columns)
ROUTE_LIBS = [
    Lib("navcore find_path bidijkstra", nav_route("bidijkstra"), navcore=True),
    Lib("navcore find_path ch", nav_route("ch", ch=True), navcore=True),
    Lib("navcore find_path cch", nav_route("cch", cch=True), navcore=True),
    Lib("navcore distance_pairs", nav_pairs(), batch=True, navcore=True),
    Lib("navcore distance_pairs (ch)", nav_pairs(ch=True), batch=True, navcore=True),
    Lib("navcore distance_pairs (cch)", nav_pairs(cch=True), batch=True, navcore=True),
    Lib("navcore routes (ch, paths)", nav_routes, batch=True, navcore=True),
    Lib("ch-router", chrouter_route, weights="int", dist="ch-router"),
    Lib("routingkit-cch", cch_route, weights="int", dist="routingkit-cch"),
    Lib("networkx bidirectional_dijkstra", nx_route, slow=True, dist="networkx"),
    Lib("scipy dijkstra", scipy_route, slow=True, dist="scipy"),
]
MATRIX_LIBS = [
    Lib("navcore distance_matrix", nav_matrix(), navcore=True),
    Lib("navcore distance_matrix (ch)", nav_matrix(ch=True), navcore=True),
    Lib("navcore distance_matrix (cch)", nav_matrix(cch=True), navcore=True),
    Lib("routingkit-cch one-to-many", cch_matrix, weights="int"),
    Lib("ch-router (a query per cell)", chrouter_matrix, weights="int", slow=True,
        row_limit=True),
    Lib("pandana", pandana_matrix, weights="floor", slow=True),
    Lib("scipy dijkstra", scipy_matrix, slow=True),
]


def make_all(libs, g, skipped):
    made, prep = {}, {}
    for lib in libs:
        try:
            made[lib.name], prep[lib.name] = lib.make(g)
        except Unavailable as e:
            skipped[lib.name] = str(e)
        except ImportError as e:
            skipped[lib.name] = f"not installed ({e.name})"
        except Exception as e:         # noqa: BLE001 (a peer failing must not stop the run)
            skipped[lib.name] = f"failed: {type(e).__name__}: {e}"
        if lib.name in skipped:
            log(f"{g.name}: {lib.name} skipped: {skipped[lib.name]}")
    return made, prep


# ---------------------------------------------------------------------------
# truth and checks
# ---------------------------------------------------------------------------
class Truth:
    """scipy's distances per weight set, from the sources asked for
    (cached per graph: a full search per source)."""

    def __init__(self, g):
        self.g = g
        self.csr = {}
        self.rows = {}

    def weights(self, kind):
        g = self.g
        return {"float": g.w, "int": g.int_w.astype(np.float64),
                "floor": g.floor_w}[kind]

    def dist(self, kind, sources):
        from scipy.sparse.csgraph import dijkstra
        if kind not in self.csr:
            self.csr[kind] = self.g.csr(self.weights(kind))
            self.rows[kind] = {}
        rows = self.rows[kind]
        need = sorted({int(s) for s in sources} - rows.keys())
        if need:
            d = dijkstra(self.csr[kind], indices=need)
            for s, row in zip(need, d):
                rows[s] = row
        return rows

    def at(self, kind, s, t):
        rows = self.dist(kind, s)
        return np.array([rows[int(a)][int(b)] for a, b in zip(s, t)])

    def scaled(self, kind, d):
        """Distances in a weight set, in the graph's unit."""
        return d / self.g.scale if kind == "int" else d


def mismatches(kind, got, want, scale):
    """Indices where ``got`` (graph units) is not ``want`` (scipy on the
    library's own weights, in them)."""
    if kind == "int":
        bad = ~np.isclose(np.rint(got * scale), want, rtol=0, atol=0.5)
        bad &= ~(np.isinf(got) & np.isinf(want))
    else:
        tol = 1e-6 if kind == "floor" else REL * np.maximum(1.0, np.abs(want))
        with np.errstate(invalid="ignore"):
            bad = ~(np.abs(got - want) <= tol) & ~(np.isinf(got) & np.isinf(want))
    return np.flatnonzero(bad)


def path_problem(g, csr_kind, nodes, s, t, cost, kind):
    """Why a returned node path is wrong, or None."""
    if nodes is None:
        return None
    nodes = np.asarray(nodes, dtype=np.int64)
    if nodes.size == 0 or nodes[0] != s or nodes[-1] != t:
        return f"path runs {nodes[:1].tolist()}..{nodes[-1:].tolist()}, not {s}..{t}"
    if nodes.size == 1:
        return None
    w = np.asarray(csr_kind[nodes[:-1], nodes[1:]]).ravel()
    if (w == 0).any():
        return "path uses an edge that does not exist"
    pc = w.sum() / g.scale if kind == "int" else w.sum()
    if not abs(pc - cost) <= 1e-9 * max(1.0, abs(cost)):
        return f"path costs {pc!r}, reported {cost!r}"
    return None


# ---------------------------------------------------------------------------
# one route
# ---------------------------------------------------------------------------
def bench_route(g, cfg, truth):
    skipped = {}
    libs = {lib.name: lib for lib in ROUTE_LIBS}
    made, prep = make_all(ROUTE_LIBS, g, skipped)
    P = g.pairs.shape[0]
    slow_idx = np.array(sorted(set(np.linspace(0, P - 1, min(cfg["slow_pairs"], P))
                                   .round().astype(int).tolist())))
    idx_of = {k: (slow_idx if libs[k].slow else np.arange(P)) for k in made}
    S, T = g.pairs[:, 0], g.pairs[:, 1]
    exact = truth.at("float", S, T)
    check = {}
    for k in list(made):                   # the check pass, also the warm-up
        try:
            check[k] = check_route(g, libs[k], made[k], idx_of[k], truth, exact)
        except Exception as e:             # noqa: BLE001 (a library that raises is left out)
            skipped[k] = f"failed: {type(e).__name__}: {e}"
            del made[k]
            log(f"{g.name}: {k} left out: {skipped[k]}")
    times = route_rounds(made, libs, idx_of, g, cfg)
    return {"pairs": P, "slow_pairs": int(slow_idx.size), "skipped": skipped, "prep_s": prep,
            "check": check, "per_pair_s": times,
            "figure_s": {k: median(v) for k, v in times.items()},
            "slow_idx": slow_idx}


def check_route(g, lib, q, idx, truth, exact):
    """Every answer of ``lib`` on pairs ``idx``, against scipy on its weights."""
    k = lib.name
    S, T = g.pairs[:, 0], g.pairs[:, 1]
    exact = exact[idx]
    log(f"{g.name}: checking {k} on {idx.size} pairs")
    truth.dist(lib.weights, S[:1])
    csr_k = truth.csr[lib.weights]
    got, probs = np.full(idx.size, np.nan), {}
    if lib.batch:
        got[:] = q(S[idx], T[idx])
    else:
        for j, i in enumerate(idx):
            cost, nodes = q(S[i], T[i])
            got[j] = cost
            why = path_problem(g, csr_k, nodes, S[i], T[i], cost, lib.weights)
            if why:
                probs[int(i)] = why
    want = truth.at(lib.weights, S[idx], T[idx])
    for j in mismatches(lib.weights, got, want, g.scale):
        probs.setdefault(int(idx[j]),
                         f"{got[j]!r} != scipy {truth.scaled(lib.weights, want[j])!r}")
    out = summary_check(g, got, exact, probs)
    if lib.navcore and g.readme_truth is not None:
        dev = np.abs(got - g.readme_truth[idx])
        out["readme_mismatches"] = int((~(dev <= TRUTH_ABS)).sum())
    report_problems(g, k, probs)
    return out


def route_rounds(made, libs, idx_of, g, cfg):
    """Per-pair medians over rounds (batches: one value per round, the
    batch time per pair)."""
    names = list(made)
    S, T = g.pairs[:, 0], g.pairs[:, 1]
    times = {k: [[] for _ in idx_of[k]] for k in names}
    for r in range(cfg["rounds"]):
        log(f"{g.name}: route round {r + 1}/{cfg['rounds']}")
        k0 = r % len(names)
        for k in names[k0:] + names[:k0]:
            lib, q, idx = libs[k], made[k], idx_of[k]
            if lib.slow and r >= cfg["slow_rounds"]:
                continue
            gc.collect()
            gc.disable()            # no collection inside a library's batch
            try:
                if lib.batch:
                    s, t_ = S[idx], T[idx]
                    t0 = now()
                    q(s, t_)
                    dt = (now() - t0) / idx.size
                    for lst in times[k]:
                        lst.append(dt)
                else:
                    for j, i in enumerate(idx):
                        t0 = now()
                        q(S[i], T[i])
                        times[k][j].append(now() - t0)
            finally:
                gc.enable()
    return {k: [median(ts) for ts in v] for k, v in times.items()}


def summary_check(g, got, exact, probs):
    with np.errstate(invalid="ignore"):
        dev = np.abs(got - exact)
    fin = np.isfinite(dev)
    return {"checked": int(got.size), "mismatches": len(probs),
            "max_dev": float(dev[fin].max()) if fin.any() else None, "unit": g.unit}


def report_problems(g, k, probs):
    for i, why in list(probs.items())[:3]:
        print(f"!! {g.name}: {k} #{i}: {why}")
    if len(probs) > 3:
        print(f"!! {g.name}: {k}: {len(probs)} mismatches in all")


# ---------------------------------------------------------------------------
# matrix
# ---------------------------------------------------------------------------
def bench_matrix(g, cfg, truth):
    skipped = {}
    libs = {lib.name: lib for lib in MATRIX_LIBS}
    sources, targets = matrix_nodes(g, cfg["matrix"])
    big = g.n > BIG
    check_rows = min(cfg["check_rows"], sources.size) if big else sources.size
    made, prep = make_all(MATRIX_LIBS, g, skipped)
    times = {k: [] for k in made}
    check = {}
    scaled_rows = {}
    exact = None
    if "scipy dijkstra" in made:           # the truth is scipy's own answer (timed)
        t, exact = timed(made["scipy dijkstra"], sources, targets)
        times["scipy dijkstra"].append(t)
    else:
        exact = np.array([truth.dist("float", sources)[int(s)][targets] for s in sources])
    for k, m in list(made.items()):
        if k == "scipy dijkstra":
            check[k] = summary_check(g, exact.ravel(), exact.ravel(), {})
            continue
        lim = sources.size
        if big and libs[k].row_limit:
            lim = min(cfg["slow_matrix_rows"], sources.size)
            scaled_rows[k] = lim
        log(f"{g.name}: checking {k} ({lim} x {targets.size})")
        try:
            t, got = timed(m, sources[:lim], targets)
        except Exception as e:             # noqa: BLE001 (a library that raises is left out)
            skipped[k] = f"failed: {type(e).__name__}: {e}"
            del times[k]
            continue
        times[k].append(t * sources.size / lim)   # the check pass counts as a round
        kind = libs[k].weights
        if kind == "float":
            want = exact[:lim]
            rows = np.arange(lim)
        else:
            rows = np.arange(min(check_rows, lim))
            d = truth.dist(kind, sources[rows])
            want = np.array([d[int(s)][targets] for s in sources[rows]])
        probs = {}
        bad = mismatches(kind, got[rows].ravel(), want.ravel(), g.scale)
        for j in bad:
            r, c = divmod(int(j), targets.size)
            probs[f"{sources[r]}->{targets[c]}"] = (
                f"{got[r, c]!r} != scipy {truth.scaled(kind, want.ravel()[j])!r}")
        check[k] = summary_check(g, got.ravel(), exact[:lim].ravel(), probs)
        check[k]["checked"] = int(rows.size * targets.size)
        report_problems(g, k, probs)
        del got
    rounds = cfg["big_matrix_rounds"] if big else cfg["matrix_rounds"]
    names = [k for k in made if k in times]
    for r in range(1, rounds):            # round 0 was the check pass
        log(f"{g.name}: matrix round {r + 1}/{rounds}")
        k0 = r % len(names)
        for k in names[k0:] + names[:k0]:
            if libs[k].slow:
                continue
            gc.collect()
            t, out = timed(made[k], sources, targets)
            del out
            times[k].append(t)
    return {"sources": int(sources.size), "targets": int(targets.size),
            "check_rows": int(check_rows), "skipped": skipped, "prep_s": prep,
            "scaled_rows": scaled_rows, "check": check, "rounds_s": times,
            "figure_s": {k: median(v) for k, v in times.items()}}


# ---------------------------------------------------------------------------
# CH build
# ---------------------------------------------------------------------------
def nav_contract_case(g):
    contract = contract_fn()
    import navcore

    def case():
        w = navcore.World()     # a fresh graph each time: a CH may be kept on it
        w.add_graph("r", type="roads", keep="all", **g.navcore_params)
        graph = w.graph("r")
        t, _ = timed(contract, graph)
        return t
    return case


def timed_case(fn):
    return lambda g: (lambda: timed(fn, g)[0])


BUILD_LIBS = [
    Lib("navcore contract", nav_contract_case, navcore=True),
    Lib("ch-router", timed_case(chrouter_build)),
    Lib("routingkit-cch (order + CCH + customize)", timed_case(cch_metric)),
    Lib("pandana Network (its CH)", timed_case(pandana_net)),
    Lib("navcore add_graph (no CH)", timed_case(lambda g: nav_add(g)), navcore=True),
]


def bench_build(g, cfg):
    skipped = {}
    cases = {}
    for lib in BUILD_LIBS:
        try:
            cases[lib.name] = lib.make(g)
        except Unavailable as e:
            skipped[lib.name] = str(e)
        except ImportError as e:
            skipped[lib.name] = f"not installed ({e.name})"
    stages = {}
    try:
        stages = cch_metric(g)[1]          # also the warm-up of its code
    except ImportError:
        pass
    rounds = cfg["big_build_rounds"] if g.n > BIG else cfg["build_rounds"]
    times = {k: [] for k in cases}
    names = list(cases)
    for r in range(rounds):
        log(f"{g.name}: build round {r + 1}/{rounds}")
        k0 = r % len(names)
        for k in names[k0:] + names[:k0]:
            if k in skipped:
                continue
            try:
                times[k].append(cases[k]())
            except Unavailable as e:
                skipped[k] = str(e)
            except Exception as e:     # noqa: BLE001
                skipped[k] = f"failed: {type(e).__name__}: {e}"
            gc.collect()
    times = {k: v for k, v in times.items() if k not in skipped}
    return {"skipped": skipped, "rounds_s": times, "cch_stages_s": stages,
            "figure_s": {k: median(v) for k, v in times.items()}}


# ---------------------------------------------------------------------------
# customizable CH: stages against routingkit-cch, and live traffic
# ---------------------------------------------------------------------------
def changed_weights(g, seed):
    """Every tenth edge (seeded) twice as slow: the edges and the new weights."""
    rng = np.random.default_rng(seed)
    pick = np.flatnonzero(rng.random(g.src.size) < 0.1)
    w = g.w.copy()
    w[pick] *= 2.0
    return pick, w


def bench_cch(g, cfg):
    """CCH stages, navcore against routingkit-cch on the same graph: order
    and supergraph (preprocessing), a customization after a weight change
    (navcore's own order and routingkit's order, the fair one), and the
    time from ``World.update`` of 10 closures to an exact matrix, against
    rebuilding a plain CH. Rounds interleave; figures are medians."""
    import navcore
    import routingkit_cch as rk
    rounds = cfg["big_build_rounds"] if g.n > BIG else cfg["build_rounds"]
    tail, head = g.src.tolist(), g.dst.tolist()
    lat, lon = g.lat.tolist(), g.lon.tolist()
    times = {k: [] for k in ("navcore order", "navcore supergraph", "navcore order + supergraph",
                             "rk order", "rk CCH", "rk order + CCH",
                             "navcore customize (basic + perfect)", "navcore customize (basic)",
                             "navcore customize, rk order", "rk customize (CCHMetric)",
                             "rk customize (CCHMetric.reset)",
                             "navcore pairs (cch)", "rk pairs (CCHQuery.run)",
                             "navcore pairs (cch, perfect)",
                             "navcore matrix (cch)", "rk matrix (CCHOneToMany)",
                             "navcore update -> matrix (cch)",
                             "navcore update -> matrix (ch rebuilt)",
                             "navcore customize after 10 closures",
                             "rk partial update of 10 closures")}
    _, new_w = changed_weights(g, SEED + 3)
    rk_w = [np.rint(new_w * g.scale).astype(np.uint32).tolist(),
            g.int_w.tolist()]
    sources, targets = matrix_nodes(g, cfg["matrix"])
    info = {}
    for r in range(rounds + 1):                 # round 0 warms up (JIT, caches), untimed
        log(f"{g.name}: cch round {r}/{rounds}")
        w = navcore.World()
        w.add_graph("r", type="roads", keep="all", **g.navcore_params)
        graph = w.graph("r")
        t_all, view = timed(cch_contract, graph)
        t_rko, rko = timed(rk.compute_order_inertial, g.n, tail, head, lat, lon)
        t_rkc, rcch = timed(rk.CCH, rko, tail, head, False)
        t_rkm, rkm = timed(rk.CCHMetric, rcch, rk_w[r % 2])
        t_rkr, _ = timed(rkm.reset, rk_w[(r + 1) % 2])
        # a weight change: jams on every tenth edge (navcore: the graph's costs)
        view.follow_updates = False
        pick = np.flatnonzero(np.random.default_rng(SEED + r).random(graph.csr.num_edges) < 0.1)
        graph.csr.set_cost(pick, graph.csr.cost[pick] * 2.0)
        # each timed customization the second of its kind: the steady state,
        # its buffers reused (so is CCHMetric.reset's)
        view.perfect = True
        for _ in range(2):
            graph.version += 1
            t_cust, _ = timed(view.customize, partial=False)
        cch_pairs(w, g)                            # the query scratch, made once
        t_pairs_p, _ = cch_pairs(w, g)
        view.perfect = False
        for _ in range(2):
            graph.version += 1
            t_basic, _ = timed(view.customize, partial=False)
        # queries after the customization: pairs one by one and a matrix
        t_pairs, got = cch_pairs(w, g)
        t_rk_pairs = rk_pairs(rk, rkm, g)
        t_mat, got_m = timed(w.distance_matrix, "r", sources, targets)
        t_rk_mat = rk_matrix(rk, rkm, sources, targets)
        if r == 0:
            pairs_wrong, mat_wrong = check_after_customize(graph, g.pairs, got, sources,
                                                           targets, got_m)
        w2 = navcore.World()
        w2.add_graph("r", type="roads", keep="all", **g.navcore_params)
        v2 = cch_contract(w2.graph("r"), order=np.asarray(rko, dtype=np.int64))
        for _ in range(2):
            w2.graph("r").version += 1
            t_cust_rk, _ = timed(v2.customize, partial=False)
        # 10 closures (10 random arcs each side): both update only the arcs
        # the closed ones reach (navcore's partial customization, its metric
        # last customized for the costs before them; routingkit's
        # CCHMetricPartialUpdater, an effective closure: 1e8)
        crng = np.random.default_rng(SEED + 50 + r)
        closed = crng.choice(graph.csr.num_edges, 10, replace=False)
        graph.csr.set_cost(closed, np.full(closed.size, np.inf))
        graph.version += 1
        t_close, _ = timed(view.customize)
        if r == 0:
            got_c = w.distance_pairs("r", g.pairs[:, 0], g.pairs[:, 1])
            got_cm = w.distance_matrix("r", sources[:100], targets)
            closed_wrong = check_after_customize(graph, g.pairs, got_c, sources[:100], targets,
                                                 got_cm)
        partial = rk.CCHMetricPartialUpdater(rcch)
        t_rk_close, _ = timed(partial.apply, rkm, {int(a): 100_000_000 for a in
                                                   crng.choice(g.src.size, 10, replace=False)})
        # live traffic: 10 closures, then an exact matrix
        upd, ex_cch, ex_ch = live_traffic(g, sources, targets, r)
        if r == 0:
            info = {"arcs": view.stats()["arcs"], "tree_depth": view.stats()["tree_depth"],
                    "rk_order_arcs": v2.stats()["arcs"], "rk_order_depth": v2.stats()["tree_depth"],
                    "kept_arcs": view.stats()["forward_arcs"] + view.stats()["backward_arcs"],
                    "live_checked": upd, "pairs_wrong": pairs_wrong, "matrix_wrong": mat_wrong,
                    "closed_wrong": closed_wrong,
                    "parallel": bool(view.topology.parallel)}
            continue
        times["navcore order"].append(view.order_seconds)
        times["navcore supergraph"].append(view.topology_seconds)
        times["navcore order + supergraph"].append(view.order_seconds + view.topology_seconds)
        times["rk order"].append(t_rko)
        times["rk CCH"].append(t_rkc)
        times["rk order + CCH"].append(t_rko + t_rkc)
        times["navcore customize (basic + perfect)"].append(t_cust)
        times["navcore customize (basic)"].append(t_basic)
        times["navcore customize, rk order"].append(t_cust_rk)
        times["rk customize (CCHMetric)"].append(t_rkm)
        times["rk customize (CCHMetric.reset)"].append(t_rkr)
        times["navcore pairs (cch)"].append(t_pairs)
        times["navcore pairs (cch, perfect)"].append(t_pairs_p)
        times["rk pairs (CCHQuery.run)"].append(t_rk_pairs)
        times["navcore matrix (cch)"].append(t_mat)
        times["rk matrix (CCHOneToMany)"].append(t_rk_mat)
        times["navcore update -> matrix (cch)"].append(ex_cch)
        times["navcore update -> matrix (ch rebuilt)"].append(ex_ch)
        times["navcore customize after 10 closures"].append(t_close)
        times["rk partial update of 10 closures"].append(t_rk_close)
        del w, w2, view, v2, rcch
        gc.collect()
    fig = {k: median(v) for k, v in times.items()}
    return {"rounds": rounds, "figure_s": fig, "rounds_s": times, "info": info,
            "matrix": f"{sources.size} x {targets.size}"}


def cch_pairs(w, g):
    """Seconds per pair of ``distance_pairs`` over the bench's pairs, and the answers."""
    s, t = g.pairs[:, 0], g.pairs[:, 1]
    sec, got = timed(w.distance_pairs, "r", s, t)
    return sec / s.size, got


def rk_pairs(rk, metric, g):
    """Seconds per pair of routingkit-cch ``CCHQuery.run`` over the same pairs."""
    q = rk.CCHQuery(metric)
    pairs = g.pairs.tolist()

    def run():
        for a, b in pairs:
            q.run(a, b)
    return timed(run)[0] / len(pairs)


def rk_matrix(rk, metric, sources, targets):
    """Seconds of a routingkit-cch ``CCHOneToMany`` matrix (targets pinned)."""
    def run():
        otm = rk.CCHOneToMany(metric, targets.tolist())
        return [otm.distances_from(int(x)) for x in sources]
    return timed(run)[0]


def check_after_customize(graph, pairs, got, sources, targets, got_m):
    """Wrong pair and matrix answers after a customization, against scipy
    on the graph's costs now."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra
    csr = graph.csr
    src = np.repeat(np.arange(graph.num_nodes), np.diff(csr.offsets))
    ok = np.isfinite(csr.cost)
    a = csr_matrix((np.maximum(csr.cost[ok], 1e-300), (src[ok], csr.targets[ok])),
                   shape=(graph.num_nodes,) * 2)
    uniq, inv = np.unique(pairs[:, 0], return_inverse=True)
    d = dijkstra(a, indices=uniq)
    want = d[inv, pairs[:, 1]]
    rows = sources[:100]
    want_m = dijkstra(a, indices=rows)[:, targets]

    def wrong(x, y):
        return int((~np.isclose(x, y, rtol=REL, atol=0) & ~(np.isinf(x) & np.isinf(y))).sum())
    bad = wrong(got, want), wrong(got_m[:rows.size], want_m)
    if any(bad):
        print(f"!! cch after customize: {bad[0]} wrong pairs, {bad[1]} wrong matrix entries")
    return bad


def live_traffic(g, sources, targets, seed):
    """Seconds from ``World.update`` of 10 closures (+ tick) to an exact
    ``distance_matrix``: with a customizable hierarchy (customized in the
    tick) and with a plain CH built again. Checked against scipy once."""
    from scipy.sparse.csgraph import dijkstra
    rng = np.random.default_rng(SEED + 100 + seed)
    out = []
    e = None
    for kind in ("cch", "ch"):
        w, _ = navcore_world(g, ch=kind == "ch", cch=kind == "cch")
        graph = w.graph("r")
        if e is None:                             # the same closures on both
            e = rng.choice(graph.csr.num_edges, 10, replace=False)
        edges = [(int(graph.edge_src[i]), int(graph.csr.targets[i])) for i in e]
        if kind == "cch":      # the steady state: both metrics filled by earlier batches
            for upd in (dict(factor=2.0), dict(reset=True)):
                w.update("r", edges=edges[:1], **upd)
                w.tick()
        gc.collect()
        gc.disable()
        try:
            t0 = now()
            w.update("r", edges=edges, cost=float("inf"))
            w.tick()
            if kind == "ch":
                contract_fn()(graph)
            m = w.distance_matrix("r", sources, targets)
            out.append(now() - t0)
        finally:
            gc.enable()
        if seed == 0:                             # the check, once
            from scipy.sparse import csr_matrix
            csr = graph.csr
            src = np.repeat(np.arange(graph.num_nodes), np.diff(csr.offsets))
            ok = np.isfinite(csr.cost)
            a = csr_matrix((np.maximum(csr.cost[ok], 1e-300), (src[ok], csr.targets[ok])),
                           shape=(graph.num_nodes,) * 2)
            a.sum_duplicates()                     # (parallel edges: none in these graphs)
            want = dijkstra(a, indices=sources)[:, targets]
            bad = int((~np.isclose(m, want, rtol=REL, atol=0) & ~(np.isinf(m) & np.isinf(want))).sum())
            if bad:
                print(f"!! {g.name}: live traffic ({kind}): {bad} wrong matrix entries")
            out.append(bad)
    if seed == 0:
        return {"cch_wrong": out[1], "ch_wrong": out[3]}, out[0], out[2]
    return None, out[0], out[1]


def cch_rows(res):
    rows = []
    pairs = [("order + supergraph", "navcore order + supergraph", "rk order + CCH"),
             ("  order", "navcore order", "rk order"),
             ("  supergraph", "navcore supergraph", "rk CCH"),
             ("customize after a weight change (basic, default)", "navcore customize (basic)",
              "rk customize (CCHMetric)"),
             ("  the same vs CCHMetric.reset (its buffers reused)", "navcore customize (basic)",
              "rk customize (CCHMetric.reset)"),
             ("  both on rk's order (same supergraph)", "navcore customize, rk order",
              "rk customize (CCHMetric)"),
             ("  navcore with perfect = True", "navcore customize (basic + perfect)",
              "rk customize (CCHMetric)"),
             ("pair query after it, per pair (distance_pairs)", "navcore pairs (cch)",
              "rk pairs (CCHQuery.run)"),
             ("  navcore with perfect = True", "navcore pairs (cch, perfect)",
              "rk pairs (CCHQuery.run)"),
             ("matrix after it (CCHOneToMany)", "navcore matrix (cch)",
              "rk matrix (CCHOneToMany)"),
             ("10 closures -> exact matrix", "navcore update -> matrix (cch)",
              "navcore update -> matrix (ch rebuilt)"),
             ("10 closures: metric current again (both partial)",
              "navcore customize after 10 closures", "rk partial update of 10 closures")]
    for r in res:
        c = r.get("cch")
        if not c:
            continue
        f = c["figure_s"]
        for label, nav, peer in pairs:
            rows.append({"graph": r["graph"], "stage": label, "navcore": fmt_s(f.get(nav)),
                         "peer": fmt_s(f.get(peer)),
                         "peer is": "plain CH rebuilt" if "ch rebuilt" in peer else "routingkit-cch",
                         "navcore / peer": fmt_r(ratio(f.get(nav), f.get(peer)))})
        i = c["info"]
        rows.append({"graph": r["graph"], "stage": f"  arcs {i['arcs']} (kept {i['kept_arcs']} "
                     f"directions), tree depth {i['tree_depth']}; on rk's order: arcs "
                     f"{i['rk_order_arcs']}, depth {i['rk_order_depth']}; matrix {c['matrix']}; "
                     f"subtrees in parallel: {i.get('parallel')}; wrong after customize "
                     f"(pairs, matrix): {i.get('pairs_wrong')}, {i.get('matrix_wrong')}; "
                     f"after 10 closures: {i.get('closed_wrong')}; "
                     f"live traffic: {i.get('live_checked')}",
                     "navcore": "", "peer": "", "peer is": "", "navcore / peer": ""})
    return rows


# ---------------------------------------------------------------------------
# turn restrictions: one OSM extract read with and without them
# ---------------------------------------------------------------------------
OSM_FILES = {"monaco": "monaco.osm.gz", "helsinki": "Helsinki.osm.pbf"}
#: add_graph options of each reading; "without" is what the others are
#: measured against (turn costs: the profile's, OSRM car's, opt-in)
TURN_VARIANTS = {"without": dict(restrictions=False),
                 "restrictions": dict(restrictions=True),
                 "restrictions + turn costs": dict(restrictions=True, turn_costs=True)}


def edge_graph(graph, scale=None, ends=False):
    """The edge-based graph of road graph ``graph`` under its turn rules
    (``graph.turns``; None: every turn free) as arcs ``(n, src, dst, w)``:
    node ``e < E`` is being at the head of road edge ``e`` (CSR position),
    node ``E + v`` the start at junction ``v`` (an arc to every edge out of
    ``v`` at that edge's cost). A move ``e -> f`` (``f`` leaving ``e``'s
    head, U-turns included) costs ``f``'s cost plus its rule's; a forbidden
    one is no arc. ``ends``: also node ``E + N + v``, the end at junction
    ``v`` (a 0 arc from every edge into ``v``), so a junction-to-junction
    route is one node-to-node query (ch-router's). ``scale``: integer
    weights, ``rint(cost * scale)`` per edge and rule. This is how a
    RoutingKit user routes under turn rules, and scipy's truth for
    navcore's edge-based searches."""
    csr = graph.csr
    E, N = int(csr.num_edges), int(graph.num_nodes)
    off = np.asarray(csr.offsets, dtype=np.int64)
    tgt = np.asarray(csr.targets, dtype=np.int64)
    cost = np.asarray(csr.cost, dtype=np.float64)
    if scale:
        cost = np.rint(cost * scale)
    deg = np.diff(off)[tgt]                    # moves from e: the out-degree of its head
    e_of = np.repeat(np.arange(E), deg)
    first = np.cumsum(deg) - deg
    f = np.repeat(off[tgt], deg) + (np.arange(e_of.size) - np.repeat(first, deg))
    w = cost[f].copy()
    rules = graph.turns
    if rules is not None and np.asarray(rules.to).size:
        r_from = np.repeat(np.arange(E), np.diff(np.asarray(rules.off)))
        rc = np.asarray(rules.cost, dtype=np.float64)
        if scale:
            rc = np.where(np.isfinite(rc), np.rint(rc * scale), np.inf)
        key = e_of * E + f                     # ascending: e, then f's CSR position
        rkey = r_from * E + np.asarray(rules.to, dtype=np.int64)
        pos = np.minimum(np.searchsorted(key, rkey), max(key.size - 1, 0))
        hit = key[pos] == rkey
        w[pos[hit]] += rc[hit]
    ok = np.isfinite(w)
    src = [e_of[ok], E + np.asarray(graph.edge_src, dtype=np.int64)]
    dst = [f[ok], np.arange(E)]
    ws = [w[ok], cost]
    n = E + N
    if ends:
        src.append(np.arange(E))
        dst.append(E + N + tgt)
        ws.append(np.zeros(E))
        n += N
    return n, np.concatenate(src), np.concatenate(dst), np.concatenate(ws)


class TurnTruth:
    """scipy's costs between junctions on ``edge_graph`` (float, and the
    integer weights ch-router holds): from junction ``s`` its start node,
    to ``t`` the least over the edges into ``t`` (0 when ``s == t``)."""

    def __init__(self, graph, scale):
        from scipy.sparse import csr_matrix
        self.graph, self.scale = graph, scale
        E = graph.csr.num_edges
        tgt = np.asarray(graph.csr.targets, dtype=np.int64)
        self.by_head = np.argsort(tgt, kind="stable")
        heads = tgt[self.by_head]
        self.has_in = np.zeros(graph.num_nodes, dtype=bool)
        self.has_in[heads] = True
        self.starts = np.searchsorted(heads, np.flatnonzero(self.has_in))
        self.E = E
        self.a = {}
        for kind, sc in (("float", None), ("int", scale)):
            n, s, d, w = edge_graph(graph, sc)
            self.a[kind] = csr_matrix((w, (s, d)), shape=(n, n))

    def rows(self, kind, sources):
        from scipy.sparse.csgraph import dijkstra
        sources = np.asarray(sources, dtype=np.int64)
        d = dijkstra(self.a[kind], indices=self.E + sources)[:, :self.E]
        out = np.full((sources.size, self.graph.num_nodes), np.inf)
        if self.starts.size:
            out[:, self.has_in] = np.minimum.reduceat(d[:, self.by_head], self.starts, axis=1)
        out[np.arange(sources.size), sources] = 0.0
        return out if kind == "float" else out / self.scale


def turn_path_problem(graph, rules, nodes, s, t, cost, scale=None):
    """Why a junction path is wrong under the turn rules, or None: the
    cheapest way along its junctions with allowed turns (parallel edges
    tried) must cost what was reported."""
    nodes = np.asarray(nodes, dtype=np.int64)
    if nodes.size == 0 or nodes[0] != s or nodes[-1] != t:
        return f"path runs {nodes[:1].tolist()}..{nodes[-1:].tolist()}, not {s}..{t}"
    csr = graph.csr
    c = np.asarray(csr.cost, dtype=np.float64)
    if scale:
        c = np.rint(c * scale)
    best = None
    for a, b in zip(nodes[:-1].tolist(), nodes[1:].tolist()):
        lo, hi = int(csr.offsets[a]), int(csr.offsets[a + 1])
        cand = lo + np.flatnonzero(np.asarray(csr.targets[lo:hi]) == b)
        if cand.size == 0:
            return f"path uses {a}->{b}, which is no edge"
        if best is None:
            best = {int(f): c[f] for f in cand}
            continue
        nxt = {}
        for f in cand.tolist():
            for e, ce in best.items():
                extra = rules.get((e, f), 0.0)
                if scale and np.isfinite(extra):
                    extra = np.rint(extra * scale)
                v = ce + c[f] + extra
                if v < nxt.get(f, np.inf):
                    nxt[f] = v
        best = nxt
    got = 0.0 if best is None else min(best.values(), default=np.inf)
    if scale:
        got /= scale
    if not abs(got - cost) <= 1e-9 * max(1.0, abs(cost)):
        return f"path costs {got!r} with its allowed turns, reported {cost!r}"
    return None


def rule_dict(graph):
    r = graph.turns
    if r is None:
        return {}
    frm = np.repeat(np.arange(graph.csr.num_edges), np.diff(np.asarray(r.off)))
    return dict(zip(zip(frm.tolist(), np.asarray(r.to).tolist()),
                    np.asarray(r.cost, dtype=np.float64).tolist()))


def chrouter_edge_graph(graph):
    """ch-router's hierarchy of ``edge_graph`` (with end nodes; ms weights)."""
    import ch_router
    n, s, d, w = edge_graph(graph, 1000, ends=True)
    return ch_router.ContractionHierarchy.build(n, s.astype(np.uint32), d.astype(np.uint32),
                                                w.astype(np.uint32))


def bench_turns(name, cfg):
    """Extract ``name`` from its OSM file as each of ``TURN_VARIANTS``
    reads it (without restrictions, with them, with turn costs too): the
    road graph's build (chains compressed, the default, and
    ``compress=False``), ``contract`` of the uncompressed graph, one route
    (``find_path`` ch and bidijkstra, with the path), ``distance_pairs``
    (ch), a matrix (ch) and an isochrone, on the same junctions (by OSM
    id; every OSM node of the largest strongly connected part kept).
    ch-router does the same on the edge-based graph the rules give
    (``edge_graph``, what RoutingKit's users build) and on the junctions
    without them. Every answer is checked against scipy on the edge-based
    graph (navcore: float, 1e-9; ch-router: its integer ms exactly),
    every path for its edges and allowed turns."""
    import ch_router
    import navcore
    path = DATA / OSM_FILES[name]
    rounds = cfg["turn_build_rounds"]
    stages = ("add_graph", "add_graph compress=False", "contract", "ch-router build")
    names = []
    for v, opts in TURN_VARIANTS.items():            # an option main does not have yet
        try:
            navcore.World().add_graph("r", type="roads", osm=str(path), **opts)
            names.append(v)
        except (TypeError, navcore.NavError) as e:
            log(f"{name}: turns variant {v} left out: {e}")
    build = {v: {k: [] for k in stages} for v in names}
    worlds, chs = {}, {}
    for r in range(rounds + 1):                     # round 0 warms up, untimed
        log(f"{name}: turns build round {r}/{rounds}")
        for v in names[r % len(names):] + names[:r % len(names)]:
            opts = TURN_VARIANTS[v]
            gc.collect()
            t_def, _ = timed(navcore.World().add_graph, "r", type="roads", osm=str(path),
                             **opts)
            w = navcore.World()
            t_add, graph = timed(w.add_graph, "r", type="roads", osm=str(path),
                                 compress=False, **opts)
            t_ch, _ = timed(contract_fn(), graph)
            t_rk, ch = timed(chrouter_edge_graph if graph.turns is not None else
                             lambda gr: chrouter_build(junction_graph(gr)), graph)
            if r:
                for k, t in zip(stages, (t_def, t_add, t_ch, t_rk)):
                    build[v][k].append(t)
            worlds[v], chs[v] = w, ch
    graphs = {v: worlds[v].graph("r") for v in names}
    info = {v: {"nodes": g.num_nodes, "edges": int(g.csr.num_edges),
                "rules": 0 if g.turns is None else g.turns.num_rules,
                "forbidden": 0 if g.turns is None else g.turns.forbidden,
                "report": (g.report or {}).get("turns")} for v, g in graphs.items()}
    # the same junctions in both graphs, by OSM id
    common = graphs[names[0]].osm_ids
    for g_ in graphs.values():
        common = np.intersect1d(common, g_.osm_ids)
    idx = {v: np.argsort(g.osm_ids)[np.searchsorted(np.sort(g.osm_ids), common)]
           for v, g in graphs.items()}
    rng = np.random.default_rng(SEED + 7)
    P = cfg["turn_pairs"]
    pi = rng.choice(common.size, (P, 2))
    pi = pi[pi[:, 0] != pi[:, 1]]
    k = min(cfg["matrix"], common.size)
    mi = (np.sort(rng.choice(common.size, k, replace=False)),
          np.sort(rng.choice(common.size, k, replace=False)))
    ii = rng.choice(common.size, cfg["iso_sources"], replace=False)
    out = {"graph": name, "info": info, "common_nodes": int(common.size),
           "pairs": int(pi.shape[0]), "matrix": f"{k} x {k}", "skipped": {},
           "build_s": {v: {s_: median(x) for s_, x in d.items()} for v, d in build.items()},
           "build_rounds_s": build, "route_s": {}, "matrix_s": {}, "iso_s": {}, "check": {}}
    for v in names:
        g, w, ch = graphs[v], worlds[v], chs[v]
        pairs = idx[v][pi]
        sources, targets = idx[v][mi[0]], idx[v][mi[1]]
        truth = TurnTruth(g, 1000)
        rules = rule_dict(g)
        ends = g.turns is not None
        E, N = g.csr.num_edges, g.num_nodes
        tgt = np.asarray(g.csr.targets)
        query = ch_router.CHQuery(ch)
        inf = ch_router.INF_WEIGHT

        def rk_route(s, t, query=query, ends=ends, E=E, N=N, tgt=tgt):
            if ends:
                query.reset().add_source(E + s).add_target(E + N + t).run()
                d = query.get_distance()
                p = query.get_node_path()
                nodes = [s] + tgt[p[1:-1]].tolist() if d != inf else []
            else:
                query.reset().add_source(s).add_target(t).run()
                d = query.get_distance()
                nodes = query.get_node_path()
            return (np.inf if d == inf else d / 1000), nodes

        def rk_dist(s, t, query=query, ends=ends, E=E, N=N):
            if ends:
                query.reset().add_source(E + s).add_target(E + N + t).run()
            else:
                query.reset().add_source(s).add_target(t).run()
            d = query.get_distance()
            return np.inf if d == inf else d / 1000

        def rk_matrix(sources, targets, rk_dist=rk_dist):
            return np.array([[0.0 if a == b else rk_dist(a, b) for b in targets.tolist()]
                             for a in sources.tolist()])
        cases = {"navcore find_path ch": (lambda s, t, w=w: fp(w, s, t, "ch"), "float"),
                 "navcore find_path bidijkstra": (lambda s, t, w=w: fp(w, s, t, "bidijkstra"),
                                                  "float"),
                 "ch-router": (rk_route, "int")}
        uniq = np.unique(pairs[:, 0])
        want = {"float": truth.rows("float", uniq), "int": truth.rows("int", uniq)}
        row_of = np.searchsorted(uniq, pairs[:, 0])
        per = {c: [[] for _ in range(pairs.shape[0])] for c in cases}
        check = {}
        for c, (q, kind) in cases.items():          # the check pass, also the warm-up
            probs = {}
            for i, (s, t) in enumerate(pairs.tolist()):
                cost, nodes = q(s, t)
                exp = want[kind][row_of[i], t]
                if not (cost == exp or abs(cost - exp) <= 1e-9 * max(1.0, abs(exp))):
                    probs[i] = f"{s}->{t}: {cost!r} != scipy {exp!r}"
                elif np.isfinite(cost):
                    why = turn_path_problem(g, rules, nodes, s, t, cost,
                                            1000 if kind == "int" else None)
                    if why:
                        probs[i] = f"{s}->{t}: {why}"
            check[c] = {"checked": int(pairs.shape[0]), "mismatches": len(probs)}
            report_problems_named(f"{name} {v}", c, probs)
        got = w.distance_pairs("r", pairs[:, 0], pairs[:, 1])
        exp = want["float"][row_of, pairs[:, 1]]
        bad = int((~np.isclose(got, exp, rtol=REL, atol=0)
                   & ~(np.isinf(got) & np.isinf(exp))).sum())
        check["navcore distance_pairs (ch)"] = {"checked": int(pairs.shape[0]),
                                                "mismatches": bad}
        batch = []
        for r in range(cfg["turn_rounds"]):
            log(f"{name} {v}: turn route round {r + 1}/{cfg['turn_rounds']}")
            order = list(cases) + ["navcore distance_pairs (ch)"]
            order = order[r % len(order):] + order[:r % len(order)]
            for c in order:
                gc.collect()
                gc.disable()
                try:
                    if c == "navcore distance_pairs (ch)":
                        t0 = now()
                        w.distance_pairs("r", pairs[:, 0], pairs[:, 1])
                        batch.append((now() - t0) / pairs.shape[0])
                        continue
                    q = cases[c][0]
                    for i, (s, t) in enumerate(pairs.tolist()):
                        t0 = now()
                        q(s, t)
                        per[c][i].append(now() - t0)
                finally:
                    gc.enable()
        out["route_s"][v] = {c: median([median(x) for x in per[c]]) for c in cases}
        out["route_s"][v]["navcore distance_pairs (ch)"] = median(batch)
        # matrix: navcore (ch) against ch-router one query per cell
        mt = {"float": truth.rows("float", sources)[:, targets],
              "int": truth.rows("int", sources)[:, targets]}
        mtimes = {"navcore distance_matrix (ch)": [], "ch-router (a query per cell)": []}
        w.distance_matrix("r", sources, targets)    # kernels loaded: not in round 0
        for r in range(max(cfg["matrix_rounds"], 1)):
            for c in (list(mtimes) if r % 2 == 0 else list(mtimes)[::-1]):
                if c.startswith("ch-router") and r:
                    continue                        # slow: the check pass only
                gc.collect()
                if c.startswith("navcore"):
                    t, m = timed(w.distance_matrix, "r", sources, targets)
                    kind = "float"
                else:
                    t, m = timed(rk_matrix, sources, targets)
                    kind = "int"
                mtimes[c].append(t)
                if r == 0:
                    bad = int((~np.isclose(m, mt[kind], rtol=REL, atol=0)
                               & ~(np.isinf(m) & np.isinf(mt[kind]))).sum())
                    check[c] = {"checked": int(m.size), "mismatches": bad}
                    if bad:
                        print(f"!! {name} {v}: {c}: {bad} wrong matrix entries")
        out["matrix_s"][v] = {c: median(x) for c, x in mtimes.items()}
        # isochrone: 30% of the junctions, against the edge-based truth
        iso_src = idx[v][ii]
        full = truth.rows("float", iso_src)
        limit = float(median(np.quantile(x[np.isfinite(x)], 0.3) for x in full))
        try:
            w.isochrone("r", int(iso_src[0]), limit)
            ts, bad = [], 0
            for j, s in enumerate(iso_src.tolist()):
                t, iso = timed(w.isochrone, "r", s, limit)
                ts.append(t)
                reach = np.flatnonzero(full[j] <= limit)
                nodes = np.asarray(iso.nodes)
                if not iso_matches(nodes, iso.costs, full[j], limit):
                    bad += 1
                    odd = np.setxor1d(nodes, reach)[:3]
                    print(f"!! {name} {v}: isochrone from {s} (limit {limit!r}): "
                          f"{nodes.size} nodes, scipy {reach.size}; differ at {odd.tolist()} "
                          f"(scipy costs {full[j][odd].tolist()})")
            out["iso_s"][v] = median(ts)
            check["navcore isochrone (30%)"] = {"checked": int(iso_src.size), "mismatches": bad}
        except navcore.NavError as e:
            out["skipped"][f"isochrone ({v})"] = f"{type(e).__name__}: {e}"
        out["check"][v] = check
    return out


def fp(w, s, t, algorithm):
    r = w.find_path("r", s, t, algorithm=algorithm)
    return r.cost, r.nodes


def junction_graph(graph):
    """A ``Graph``-like view of a road graph's junction CSR for ch-router
    (ms weights), without turn rules."""
    class J:
        pass
    j = J()
    j.n = graph.num_nodes
    j.src = np.asarray(graph.edge_src)
    j.dst = np.asarray(graph.csr.targets)
    j.int_w = np.rint(np.asarray(graph.csr.cost) * 1000).astype(np.uint32)
    return j


def report_problems_named(label, k, probs):
    for i, why in list(probs.items())[:3]:
        print(f"!! {label}: {k} #{i}: {why}")
    if len(probs) > 3:
        print(f"!! {label}: {k}: {len(probs)} mismatches in all")


def turn_rows(turns):
    """A row per extract, stage and reading; ratios against the reading
    without restrictions, and navcore against ch-router in the same one."""
    rows = []
    for t in turns:
        b, rt, mx, iso = t["build_s"], t["route_s"], t["matrix_s"], t["iso_s"]
        lines = [("road graph build (add_graph, chains compressed)", b, "add_graph", None),
                 ("road graph build (compress=False)", b, "add_graph compress=False", None),
                 ("CH build", b, "contract", "ch-router build"),
                 ("one route with its path (find_path ch)", rt, "navcore find_path ch",
                  "ch-router"),
                 ("one route with its path (find_path bidijkstra)", rt,
                  "navcore find_path bidijkstra", "ch-router"),
                 ("batch routes, per pair (distance_pairs, ch)", rt,
                  "navcore distance_pairs (ch)", "ch-router"),
                 (f"matrix {t['matrix']} (ch)", mx, "navcore distance_matrix (ch)",
                  "ch-router (a query per cell)"),
                 ("isochrone (30% of the junctions)", {v: {"iso": x} for v, x in iso.items()},
                  "iso", None)]
        for label, d, nav, peer in lines:
            base = d.get("without", {})
            for v in b:
                x = d.get(v, {}).get(nav)
                p = d.get(v, {}).get(peer) if peer else None
                rows.append({"extract": t["graph"], "stage": label, "reading": v,
                             "navcore": fmt_s(x),
                             "/ without": "-" if v == "without" else
                             fmt_r(ratio(x, base.get(nav))),
                             "ch-router": fmt_s(p),
                             "ch-router / without": "-" if v == "without" or not peer else
                             fmt_r(ratio(p, base.get(peer))),
                             "navcore / ch-router": fmt_r(ratio(x, p))})
        for v, i in t["info"].items():
            rows.append({"extract": t["graph"], "stage": "  graph (compress=False)", "reading": v,
                         "navcore": f"{i['nodes']} junctions, {i['edges']} edges, "
                                    f"{i['rules']} rules ({i['forbidden']} forbidden)",
                         "/ without": "", "ch-router": "", "ch-router / without": "",
                         "navcore / ch-router": ""})
    return rows


# ---------------------------------------------------------------------------
# isochrones: bench/isochrones.py's measure, with the roads graph type too
# ---------------------------------------------------------------------------
def roads_iso_variants(g):
    """navcore's roads graph type on the bench's arrays (``keep="all"``, so
    node ids match), plain and after ``navcore_roads.contract``."""
    import navcore

    def make(ch):
        def prepare():
            w = navcore.World()
            graph = w.add_graph("r", type="roads", keep="all", **g.navcore_params)
            if ch:
                contract_fn()(graph)
            return lambda s, lim: _iso(w.isochrone("r", int(s), lim))
        return prepare
    return [("navcore roads", make(False)), ("navcore roads + CH", make(True))]


def _iso(iso):
    return iso.nodes, iso.costs


def bench_isochrone(g, cfg):
    """``World.isochrone`` from ``iso_sources`` junctions of the largest
    strongly connected part, limits reaching 1% and 30% of the nodes: the
    csr and roads graph types (plain, contracted) against scipy's bounded
    ``dijkstra`` and networkx's ``ego_graph`` (osmnx's isochrone recipe);
    every navcore answer's nodes and costs checked against scipy's."""
    import isochrones
    rng = np.random.default_rng(SEED + 11)
    sources = rng.choice(largest_scc(g), cfg["iso_sources"], replace=False)
    variants = isochrones.csr_variants(g.n, g.src, g.dst, g.w) + roads_iso_variants(g)
    rows = isochrones.measure(g.name, g.n, g.src, g.dst, g.w, sources, variants=variants)
    for r in rows:
        for k, bad in r["wrong"].items():
            if bad:
                print(f"!! {g.name}: isochrone {r['share']:.0%}: {k}: {bad} wrong answers")
    return rows


ISO_NAVS = ("navcore", "navcore + CH", "navcore roads", "navcore roads + CH")


def iso_rows(res):
    rows = []
    for r in res:
        for x in r.get("isochrone") or []:
            t = x["s"]
            best = min((t[k] for k in ISO_NAVS if t.get(k) is not None), default=None)
            rows.append({"graph": r["graph"],
                         "limit (reaches)": f"{x['limit']:.4g} ({x['reached']:,} nodes, "
                                            f"{x['share']:.0%})",
                         "csr": fmt_s(t.get("navcore")), "csr + CH": fmt_s(t.get("navcore + CH")),
                         "roads": fmt_s(t.get("navcore roads")),
                         "roads + CH": fmt_s(t.get("navcore roads + CH")),
                         "scipy bounded": fmt_s(t.get("scipy")),
                         "ego_graph": fmt_s(t.get("networkx ego_graph")),
                         "best navcore / scipy": fmt_r(ratio(best, t.get("scipy"))),
                         "best navcore / ego_graph":
                             fmt_r(ratio(best, t.get("networkx ego_graph"))),
                         "wrong": sum(x["wrong"].values())})
    return rows


# ---------------------------------------------------------------------------
# import (one process per load)
# ---------------------------------------------------------------------------
def osm_files():
    """The same two extracts in the format each reader takes: navcore the
    originals; osmnx XML (monaco.osm.gz as is; Helsinki converted); pyrosm
    PBF (monaco converted). Conversions by pyosmium, once, in bench/.cache."""
    CACHE.mkdir(parents=True, exist_ok=True)
    files = {"monaco": {"orig": DATA / "monaco.osm.gz", "xml": DATA / "monaco.osm.gz",
                        "pbf": CACHE / "monaco.osm.pbf"},
             "helsinki": {"orig": DATA / "Helsinki.osm.pbf", "xml": CACHE / "helsinki.osm",
                          "pbf": DATA / "Helsinki.osm.pbf"}}
    for f in files.values():
        for kind in ("xml", "pbf"):
            if not f[kind].exists():
                convert(f["orig"], f[kind])
    return files


def convert(src, dst):
    import osmium
    tmp = dst.with_name(dst.name + ".tmp" + "".join(dst.suffixes))
    with osmium.SimpleWriter(str(tmp)) as w:
        for obj in osmium.FileProcessor(str(src)):
            w.add(obj)
    tmp.rename(dst)


IMPORT_CODE = {
    "navcore osm= (car)": ("import navcore",
                           "navcore.World().add_graph('r', type='roads', osm=PATH, profile='car')"),
    "osmnx graph_from_xml": ("import osmnx", "osmnx.graph_from_xml(PATH)"),
    "pyrosm get_network(driving)": ("import pyrosm",
                                    "pyrosm.OSM(PATH).get_network(network_type='driving', "
                                    "nodes=True)"),
}
IMPORT_FORMAT = {"navcore osm= (car)": "orig", "osmnx graph_from_xml": "xml",
                 "pyrosm get_network(driving)": "pbf"}
CHILD = """
import json, resource, sys, time, warnings
warnings.simplefilter("ignore")
{imp}
PATH = sys.argv[1]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
{load}
dt = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"s": dt, "rss_after_import": before * 1024, "peak_rss": peak * 1024}}))
"""


def navcore_reads_osm():
    if importlib.util.find_spec("navcore_roads.io.osm") is None:
        return "the roads plugin does not read osm= on this branch yet (no navcore_roads.io.osm)"
    return None


def run_child(name, path):
    imp, load = IMPORT_CODE[name]
    code = CHILD.format(imp=imp, load=load)
    p = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                       timeout=600, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else
                           f"exit {p.returncode}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def bench_import(cfg):
    files = osm_files()
    out = {}
    for gname, f in files.items():
        skipped, runs = {}, {}
        names = list(IMPORT_CODE)
        why = navcore_reads_osm()
        if why:
            skipped["navcore osm= (car)"] = why
            names.remove("navcore osm= (car)")
        for k in list(names):               # warm-up: OS file cache, numba's cache
            try:
                run_child(k, f[IMPORT_FORMAT[k]])
                runs[k] = []
            except Exception as e:     # noqa: BLE001
                skipped[k] = f"failed: {e}"
                names.remove(k)
        for r in range(cfg["import_rounds"]):
            log(f"{gname}: import round {r + 1}/{cfg['import_rounds']}")
            k0 = r % max(len(names), 1)
            for k in names[k0:] + names[:k0]:
                runs[k].append(run_child(k, f[IMPORT_FORMAT[k]]))
        out[gname] = {
            "files": {k: str(f[IMPORT_FORMAT[k]]) for k in IMPORT_CODE},
            "skipped": skipped,
            "s": {k: median([x["s"] for x in v]) for k, v in runs.items()},
            "peak_rss": {k: median([x["peak_rss"] for x in v]) for k, v in runs.items()},
            "load_rss": {k: median([x["peak_rss"] - x["rss_after_import"] for x in v])
                         for k, v in runs.items()},
        }
    return out


# ---------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------
def fmt_r(r):
    return f"{r:.2g}x" if r is not None and r < 0.001 else fmt_ratio(r)


def show(out, title, rows):
    if not rows:
        return
    buf = io.StringIO()
    with redirect_stdout(buf):
        print_table(title, list(rows[0]), [list(r.values()) for r in rows])
    sys.stdout.write(buf.getvalue())
    out.append(buf.getvalue())


def route_figure(route, k, idx=None):
    """Median per query of ``k``, over pair positions ``idx`` (all by default)."""
    per = route["per_pair_s"].get(k)
    if per is None:
        return None
    if idx is None:
        return median(per)
    slow = route["slow_idx"]
    if len(per) == len(slow):
        return median(per)
    return median([per[i] for i in idx])


def route_rows(res):
    rows = []
    navs = [lib.name for lib in ROUTE_LIBS if lib.navcore]
    slow = {lib.name for lib in ROUTE_LIBS if lib.slow}
    for r in res:
        rt = r.get("route")
        if not rt:
            continue
        for k in rt["per_pair_s"]:
            idx = rt["slow_idx"] if k in slow else None
            fig = route_figure(rt, k, idx)
            row = {"graph": r["graph"], "library": k,
                   "pairs": rt["slow_pairs"] if k in slow else rt["pairs"],
                   "per query": fmt_s(fig)}
            for nav in navs:
                label = nav.removeprefix("navcore ") + " / lib"
                row[label] = ("-" if k == nav else
                              fmt_r(ratio(route_figure(rt, nav, idx), fig)))
            rows.append(row)
    return rows


def matrix_rows(res):
    rows = []
    navs = [lib.name for lib in MATRIX_LIBS if lib.navcore]
    for r in res:
        mx = r.get("matrix")
        if not mx:
            continue
        for k, fig in mx["figure_s"].items():
            part = mx.get("scaled_rows", {}).get(k)
            row = {"graph": r["graph"], "library": k,
                   "size": f"{mx['sources']} x {mx['targets']}" + (
                       f" (timed on {part} rows, scaled)" if part else ""),
                   "rounds": len(mx["rounds_s"][k]), "time": fmt_s(fig)}
            for nav in navs:
                row[nav.removeprefix("navcore ") + " / lib"] = (
                    "-" if k == nav else fmt_r(ratio(mx["figure_s"].get(nav), fig)))
            rows.append(row)
    return rows


def build_rows(res):
    rows = []
    for r in res:
        b = r.get("build")
        if not b:
            continue
        for k, fig in b["figure_s"].items():
            rows.append({"graph": r["graph"], "library": k, "rounds": len(b["rounds_s"][k]),
                         "build": fmt_s(fig),
                         "navcore contract / lib": "-" if k == "navcore contract" else
                         fmt_r(ratio(b["figure_s"].get("navcore contract"), fig))})
        st = b.get("cch_stages_s") or {}
        if st:
            rows.append({"graph": r["graph"], "library": "  routingkit-cch stages",
                         "rounds": 1, "build": ", ".join(f"{k} {fmt_s(v)}"
                                                         for k, v in st.items()),
                         "navcore contract / lib": ""})
    return rows


def import_rows(imp):
    rows = []
    nav = "navcore osm= (car)"
    for gname, d in imp.items():
        for k, s in d["s"].items():
            rows.append({"extract": gname, "library": k, "file": Path(d["files"][k]).name,
                         "load": fmt_s(s), "peak RSS": fmt_bytes(d["peak_rss"][k]),
                         "peak growth in load": fmt_bytes(d["load_rss"][k]),
                         "navcore time / lib": "-" if k == nav else fmt_r(ratio(d["s"].get(nav), s)),
                         "navcore peak / lib": "-" if k == nav else
                         fmt_r(ratio(d["peak_rss"].get(nav), d["peak_rss"][k]))})
    return rows


def check_rows(res, turns=()):
    rows = []
    for t in turns:
        for v, checks in t["check"].items():
            for k, c in checks.items():
                rows.append({"graph": f"{t['graph']} (OSM, {v})", "test": "turns",
                             "library": k, "answers checked": c["checked"],
                             "mismatches": c["mismatches"], "max dev from exact": "-",
                             "README truth mismatches": "-"})
    for r in res:
        for x in r.get("isochrone") or []:
            for k, bad in x["wrong"].items():
                rows.append({"graph": r["graph"], "test": f"isochrone {x['share']:.0%}",
                             "library": k, "answers checked": x["sources"], "mismatches": bad,
                             "max dev from exact": "-", "README truth mismatches": "-"})
        for part in ("route", "matrix"):
            for k, c in (r.get(part) or {}).get("check", {}).items():
                dev = c["max_dev"]
                rows.append({"graph": r["graph"], "test": part, "library": k,
                             "answers checked": c["checked"], "mismatches": c["mismatches"],
                             "max dev from exact": "-" if dev is None else
                             f"{dev:.3g} {c['unit']}",
                             "README truth mismatches": c.get("readme_mismatches", "-")})
    return rows


def graph_rows(res):
    return [{"graph": r["graph"], "nodes": r["nodes"], "directed edges": r["edges"],
             "weight": r["weight"], "integer peers": r["int_weights"],
             "route pairs": r["pairs"], "notes": "; ".join(r["notes"])} for r in res]


def skipped_lines(res, imp):
    lines = []
    for r in res:
        for part in ("route", "matrix", "build"):
            for k, why in (r.get(part) or {}).get("skipped", {}).items():
                lines.append(f"- {r['graph']} {part}: {k}: {why}")
    for gname, d in (imp or {}).items():
        for k, why in d["skipped"].items():
            lines.append(f"- {gname} import: {k}: {why}")
    return sorted(set(lines), key=lines.index)


# ---------------------------------------------------------------------------
def bench_graph(name, cfg, parts):
    log(f"{name}: loading")
    g = load_graph(name, cfg)
    truth = Truth(g)
    res = {"graph": g.name, "nodes": g.n, "edges": int(g.src.size),
           "weight": {"s": "time_s (s)", "dm": "DIMACS length (dm, integer)",
                      "hop": "hops (every edge 1)"}[g.unit],
           "int_weights": "rint(time_s * 1000) ms" if g.scale == 1000 else
                          f"{g.unit} as they are",
           "pairs": int(g.pairs.shape[0]), "notes": g.notes, "gen_s": g.gen_s}
    # builds last: by then every library's code is loaded and compiled
    # (navcore's kernels, contract included), so a build round is steady state
    if "route" in parts:
        res["route"] = bench_route(g, cfg, truth)
    if "matrix" in parts:
        res["matrix"] = bench_matrix(g, cfg, truth)
    if "build" in parts:
        res["build"] = bench_build(g, cfg)
    if "cch" in parts:
        try:
            res["cch"] = bench_cch(g, cfg)
        except (Unavailable, ImportError) as e:
            log(f"{g.name}: cch part skipped: {e}")
    if "isochrone" in parts and not name.endswith(".gr"):     # the .gr twins: same graph
        res["isochrone"] = bench_isochrone(g, cfg)
    return res


PARTS = ("import", "build", "route", "matrix", "cch", "isochrone", "turns")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small graphs, few rounds")
    ap.add_argument("--graphs", help="comma-separated graph names (default: all of the mode)")
    ap.add_argument("--parts", help=f"comma-separated, of {', '.join(PARTS)}")
    ap.add_argument("--rounds", type=int, help="route rounds")
    args = ap.parse_args(argv)
    cfg = dict(QUICK if args.quick else FULL)
    if args.rounds:
        cfg["rounds"] = args.rounds
    if args.graphs:
        cfg["graphs"] = [s.strip() for s in args.graphs.split(",") if s.strip()]
    parts = [p.strip() for p in args.parts.split(",")] if args.parts else list(PARTS)

    import navcore  # noqa: F401  (fails early if the venv is wrong)

    t_start = now()
    results = {"machine": machine(), "config": cfg, "quick": args.quick,
               "versions": versions("navcore", "numba", "numpy", "scipy", "networkx",
                                    "ch-router", "routingkit-cch", "pandana", "osmnx",
                                    "pyrosm", "osmium"),
               "ratio": "navcore time / peer time (below 1: navcore faster)",
               "graphs": []}
    if "import" in parts:
        results["import"] = bench_import(cfg)
    if "turns" in parts:
        results["turns"] = [bench_turns(x, cfg) for x in cfg["turn_extracts"]]
    for name in cfg["graphs"] if set(parts) - {"import", "turns"} else ():
        results["graphs"].append(bench_graph(name, cfg, parts))
        gc.collect()
    results["total_s"] = now() - t_start
    res = results["graphs"]
    v = results["versions"]
    head = (f"navcore roads benchmark ({'quick' if args.quick else 'full'}); "
            f"{results['machine']['cpus']} cpus; " + ", ".join(f"{k} {x}" for k, x in v.items())
            + f"; {results['machine']['date']}")
    print("\n" + head)
    print("ratio = navcore time / peer time (below 1: navcore faster); figures are medians")
    out = []
    show(out, "Graphs", graph_rows(res))
    if "import" in results:
        show(out, f"Import from OSM (one process per load, median of {cfg['import_rounds']})",
             import_rows(results["import"]))
    show(out, "CH build (same graph, same weights)", build_rows(res))
    show(out, f"One route, per query with the path ({cfg['rounds']} rounds; slow peers "
              f"{cfg['slow_rounds']} round on {cfg['slow_pairs']} pairs)", route_rows(res))
    show(out, "Distance matrix", matrix_rows(res))
    show(out, "Customizable CH (CCH) stages and live traffic", cch_rows(res))
    if "turns" in results:
        show(out, "Turn restrictions and turn costs: each OSM extract read with and "
                  "without them (ch-router: on the edge-based graph they give)",
             turn_rows(results["turns"]))
    show(out, f"Isochrones ({cfg['iso_sources']} sources, median; ratio navcore's best / "
              "peer)", iso_rows(res))
    show(out, "Answers checked (against scipy on each library's own weights)",
         check_rows(res, results.get("turns", ())))
    notes = skipped_lines(res, results.get("import"))
    for t in results.get("turns", []):
        notes += [f"- {t['graph']} turns: {k}: {why}" for k, why in t["skipped"].items()]
    if notes:
        print("\nnot run:\n" + "\n".join(notes))
    path = write_json("roads-quick" if args.quick else "roads", results)
    md = RESULTS_DIR / ("roads-quick.tables.md" if args.quick else "roads.tables.md")
    md.write_text(f"<!-- {head} -->\n" + "".join(out)
                  + ("\nNot run:\n\n" + "\n".join(notes) + "\n" if notes else ""))
    print(f"\nwrote {path} and {md} ({results['total_s']:.0f} s)")


if __name__ == "__main__":
    main()
