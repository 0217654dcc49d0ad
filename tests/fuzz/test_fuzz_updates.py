"""Update sequences checked against a reference: random ``world.update``
batches and ticks on small grid, csr (directed and undirected) and road
graphs, with a model of each graph kept here from the documented update
rules (not from navcore's arrays). After every tick, for a few pairs,
``find_path`` (every algorithm the graph offers, ``auto`` included) must
cost what ``reference.dijkstra`` / ``reference.grid_dijkstra`` gives on
the model, ``reachable`` must say whether that is finite, and
``reachable_many`` must agree with ``reachable``. A wrong answer is a
disagreement (``fuzzkit.disagree``); a raw exception a failure as always.
"""
import math

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import navcore

import fuzzkit as kit
import reference as ref

pytestmark = pytest.mark.fuzz

INF = math.inf
#: costs an update may write: ordinary, zero, fractional, closing
COSTS = st.sampled_from([1.0, 2.0, 3.0, 7.0, 0.5, 0.0, INF])


def _close(a, b):
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


class Log:
    """The calls made so far, as lines to paste into a regression test."""

    def __init__(self, setup):
        self.lines = [setup]

    def add(self, line):
        self.lines.append(line)

    def __str__(self):
        return "\n".join(self.lines)


def _check_queries(world, gid, pairs, truth, log, tag):
    """``truth(s, t)``: the reference cost (inf when unreachable or an end
    is blocked). Every algorithm, reachable and reachable_many."""
    algorithms = ["auto"] + [a for a in world.algorithms(gid) if a != "auto"]
    reach = []
    for s, t in pairs:
        want = truth(s, t)
        for alg in algorithms:
            status, res = kit.check_call(world, f"{tag} find_path", world.find_path, gid, s, t,
                                         algorithm=alg)
            if status == "error":
                # an algorithm that needs what the graph lacks now (a derived
                # view never built or stale after an update, jps on a grid
                # with costs) refuses; 'auto' never may
                if isinstance(res, navcore.QueryError) and alg != "auto":
                    event(f"{tag} {alg}: refused")
                    continue
                kit.disagree(f"{tag} find_path", str(log) +
                             f"\nworld.find_path({gid!r}, {s}, {t}, algorithm={alg!r})",
                             f"raised {res!r}; reference cost {want}")
                continue
            if status != "ok":
                continue
            got = res.cost if res.found else INF
            if alg == "bfs":      # fewest moves, not least cost: only whether it finds one
                got, want_here = res.found, want < INF
            else:
                want_here = want
            if not _close(got, want_here) if alg != "bfs" else got != want_here:
                kit.disagree(f"{tag} find_path {alg}", str(log) +
                             f"\nworld.find_path({gid!r}, {s}, {t}, algorithm={alg!r})",
                             f"cost {got} ({res.status}), reference {want}")
                return
            event(f"{tag}: {'found' if res.found else res.status}")
        status, r = kit.check_call(world, f"{tag} reachable", world.reachable, gid, s, t)
        if status == "ok":
            reach.append(bool(r))
            if bool(r) != (want < INF):
                kit.disagree(f"{tag} reachable", str(log) +
                             f"\nworld.reachable({gid!r}, {s}, {t})",
                             f"reachable says {r}, reference cost {want}")
                return
    if len(reach) == len(pairs) and pairs:
        a = np.array([p[0] for p in pairs])
        b = np.array([p[1] for p in pairs])
        status, many = kit.check_call(world, f"{tag} reachable_many", world.reachable_many,
                                      gid, a, b)
        if status == "ok" and list(map(bool, many)) != reach:
            kit.disagree(f"{tag} reachable_many", str(log) +
                         f"\nworld.reachable_many({gid!r}, {a.tolist()}, {b.tolist()})",
                         f"{list(map(bool, many))} but reachable says {reach}")


def _pairs(draw, n):
    return draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                         min_size=1, max_size=4), label="pairs")


def _tick(world, log, tag):
    log.add("world.tick()")
    status, out = kit.check_call(world, f"{tag} tick", world.tick)
    return status


# -- csr ------------------------------------------------------------------------------

@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@settings(kit.FUZZ)
@given(data=st.data())
def test_csr_updates(directed, data):
    draw = data.draw
    n = draw(st.integers(4, 8), label="n")
    pos = [[float(i % 3), float(i // 3)] for i in range(n)]
    cand = [(u, v) for u in range(n) for v in range(n) if u != v
            and (directed or u < v)]
    edges = draw(st.lists(st.sampled_from(cand), min_size=1, max_size=3 * n, unique=True),
                 label="edges")
    cost = draw(st.lists(st.sampled_from([1.0, 2.0, 3.0, 5.0]), min_size=len(edges),
                         max_size=len(edges)), label="cost")
    src, dst = [e[0] for e in edges], [e[1] for e in edges]
    contract = not directed and draw(st.booleans(), label="contract")
    world = navcore.World()
    setup = (f"world = navcore.World()\nworld.add_graph('g', type='csr', src={src}, dst={dst}, "
             f"cost={cost}, positions={pos}, num_nodes={n}, directed={directed})")
    world.add_graph("g", type="csr", src=src, dst=dst, cost=cost, positions=pos, num_nodes=n,
                    directed=directed)
    log = Log(setup)
    if contract:
        import navcore_csr
        navcore_csr.contract(world.graph("g"))
        log.add("navcore_csr.contract(world.graph('g'))")
    model = {e: c for e, c in zip(edges, cost)}
    walk = np.ones(n, bool)
    tag = f"csr {'directed' if directed else 'undirected'}"
    for _ in range(draw(st.integers(1, 5), label="ticks")):
        for _ in range(draw(st.integers(0, 3), label="updates")):
            kind = draw(st.sampled_from(["edge", "edge", "nodes", "rect"]))
            if kind == "edge":
                sel = draw(st.lists(st.sampled_from(edges), min_size=1, max_size=3))
                if not directed:     # either direction names the edge
                    sel = [(v, u) if draw(st.booleans()) else (u, v) for u, v in sel]
                c = draw(COSTS)
                params = dict(edges=sel, cost=c)
                for u, v in sel:
                    key = (u, v) if directed else (min(u, v), max(u, v))
                    model[key] = c
            elif kind == "nodes":
                nodes = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))
                w = draw(st.booleans())
                params = dict(nodes=nodes, walkable=w)
                walk[nodes] = w
            else:
                xmax, ymax = 2.0 if n >= 3 else float(n - 1), float((n - 1) // 3)
                x = draw(st.sampled_from([0.0, 0.5, 1.0]))
                y = draw(st.sampled_from([0.0, 0.5])) if ymax >= 1 else 0.0
                w_ = draw(st.sampled_from([0.5, 1.0, 2.0 - x]))
                h_ = draw(st.sampled_from([0.5, max(ymax - y, 0.5)]))
                if ymax < 1 or x + w_ > xmax or y + h_ > ymax:
                    continue
                wk = draw(st.booleans())
                params = dict(rect=(x, y, w_, h_), walkable=wk)
                for i, (px, py) in enumerate(pos):
                    if x <= px <= x + w_ and y <= py <= y + h_:
                        walk[i] = wk
            log.add(f"world.update('g', **{params!r})")
            status, out = kit.check_call(world, f"{tag} update", world.update, "g", **params)
            if status != "ok":
                kit.disagree(f"{tag} update", str(log), f"a valid update was refused: {out!r}")
                return
        if _tick(world, log, tag) != "ok":
            return
        adj = ref.adjacency([e[0] for e in model], [e[1] for e in model], list(model.values()),
                            n, directed=directed)

        def truth(s, t):
            if not (walk[s] and walk[t]):
                return INF
            return ref.dijkstra(adj, s, t, walkable=walk).get(t, INF)
        _check_queries(world, "g", _pairs(draw, n), truth, log, tag)


# -- grid -----------------------------------------------------------------------------

@settings(kit.FUZZ)
@given(data=st.data())
def test_grid_updates(data):
    draw = data.draw
    H, W = draw(st.integers(2, 4), label="H"), draw(st.integers(2, 5), label="W")
    rows = ["".join(draw(st.sampled_from("...#")) for _ in range(W)) for _ in range(H)]
    walk = np.array([[ch == "." for ch in r] for r in rows])
    cost = np.ones((H, W))
    world = navcore.World()
    world.add_graph("g", type="grid", rows=rows)
    log = Log(f"world = navcore.World()\nworld.add_graph('g', type='grid', rows={rows})")
    tag = "grid"
    for _ in range(draw(st.integers(1, 5), label="ticks")):
        for _ in range(draw(st.integers(0, 3), label="updates")):
            region = draw(st.sampled_from(["rect", "cells"]))
            if region == "rect":
                x, y = draw(st.integers(0, W - 1)), draw(st.integers(0, H - 1))
                w, h = draw(st.integers(1, W - x)), draw(st.integers(1, H - y))
                cells = [(cx, cy) for cy in range(y, y + h) for cx in range(x, x + w)]
                sel = dict(rect=(x, y, w, h))
            else:
                cells = draw(st.lists(st.tuples(st.integers(0, W - 1), st.integers(0, H - 1)),
                                      min_size=1, max_size=4))
                sel = dict(cells=cells)
            if draw(st.booleans()):
                wk = draw(st.booleans())
                params = dict(sel, walkable=wk)
                for cx, cy in cells:
                    walk[cy, cx] = wk
            else:
                c = draw(st.sampled_from([1.0, 2.0, 0.5, 4.0, 0.0, INF]))
                params = dict(sel, cost=c)
                for cx, cy in cells:
                    if 0 < c < INF:       # written, and the cell opens
                        cost[cy, cx] = c
                        walk[cy, cx] = True
                    else:                 # a wall that keeps its old cost
                        walk[cy, cx] = False
            log.add(f"world.update('g', **{params!r})")
            status, out = kit.check_call(world, "grid update", world.update, "g", **params)
            if status != "ok":
                kit.disagree("grid update", str(log), f"a valid update was refused: {out!r}")
                return
        if _tick(world, log, tag) != "ok":
            return
        ws, cs = walk.tolist(), cost.tolist()

        def truth(s, t):
            sx, sy, tx, ty = s % W, s // W, t % W, t // W
            if not (walk[sy, sx] and walk[ty, tx]):
                return INF
            return ref.grid_dijkstra(ws, cs, start=(sx, sy)).get((tx, ty), INF)
        _check_queries(world, "g", _pairs(draw, H * W), truth, log, tag)


# -- roads ----------------------------------------------------------------------------

@settings(kit.FUZZ)
@given(data=st.data())
def test_roads_updates(data):
    draw = data.draw
    n = draw(st.integers(3, 7), label="n")
    cand = [(u, v) for u in range(n) for v in range(n) if u != v]
    roads = draw(st.lists(st.sampled_from(cand), min_size=2, max_size=2 * n), label="roads")
    base = draw(st.lists(st.sampled_from([10.0, 20.0, 30.0, 60.0]), min_size=len(roads),
                         max_size=len(roads)), label="base")
    oneway = draw(st.booleans(), label="oneway")
    compress = draw(st.booleans(), label="compress")
    hierarchy = draw(st.sampled_from([None, "ch", "cch"]), label="hierarchy")
    pos = [[7.42 + 0.001 * (i % 3), 43.73 + 0.001 * (i // 3)] for i in range(n)]
    src, dst = [r[0] for r in roads], [r[1] for r in roads]
    kw = dict(src=src, dst=dst, cost=base, positions=pos, oneway=oneway, keep="all",
              compress=compress)
    world = navcore.World()
    log = Log(f"world = navcore.World()\nworld.add_graph('r', type='roads', **{kw!r})")
    status, g = kit.check_call(world, "roads add_graph", world.add_graph, "r", type="roads",
                               **kw)
    if status != "ok":
        event(f"roads refused: {str(g)[:60]}")
        return
    if g.num_nodes == 0 or g.csr.targets.size == 0:
        return
    import navcore_roads
    if hierarchy is not None:
        navcore_roads.contract(g, customizable=hierarchy == "cch", progress=False)
        log.add(f"navcore_roads.contract(world.graph('r'), customizable={hierarchy == 'cch'})")
    seg = g.segments
    m = seg.num_segments
    s_src, s_dst = seg.src.astype(int).tolist(), seg.dst.astype(int).tolist()
    s_base = seg.cost.astype(float).tolist()
    on_edge = g.seg_edge >= 0
    # the graph's structure as built (not its costs): which segments an
    # (u, v) edge selection names, and which source node each graph node is
    seg_u = np.where(on_edge, g.edge_src[np.maximum(g.seg_edge, 0)], -1)
    seg_v = np.where(on_edge, g.csr.targets[np.maximum(g.seg_edge, 0)], -1)
    graph_edges = sorted({(int(u), int(v)) for u, v in zip(seg_u[on_edge], seg_v[on_edge])})
    node_source = g.node_source.astype(int).tolist()
    closed = np.zeros(m, bool)
    factor = np.ones(m)
    walk = np.ones(g.num_nodes, bool)
    tag = f"roads{' ' + hierarchy if hierarchy else ''}"
    for _ in range(draw(st.integers(1, 5), label="ticks")):
        for _ in range(draw(st.integers(0, 3), label="updates")):
            if draw(st.integers(0, 3)) == 0:
                nodes = draw(st.lists(st.integers(0, g.num_nodes - 1), min_size=1,
                                      max_size=2))
                wk = draw(st.booleans())
                params = dict(nodes=nodes, walkable=wk)
                walk[nodes] = wk
            else:
                sel = draw(st.lists(st.sampled_from(graph_edges), min_size=1, max_size=2))
                segs = np.flatnonzero(np.isin(seg_u * g.num_nodes + seg_v,
                                              [u * g.num_nodes + v for u, v in sel]))
                act = draw(st.sampled_from(["cost", "factor", "factor", "reset"]))
                if act == "cost":
                    params = dict(edges=sel, cost=INF)
                    closed[segs] = True
                elif act == "factor":
                    f = draw(st.sampled_from([0.5, 1.0, 2.0, 3.0]))
                    params = dict(edges=sel, factor=f)
                    factor[segs] = f
                else:
                    params = dict(edges=sel, reset=True)
                    closed[segs] = False
                    factor[segs] = 1.0
            log.add(f"world.update('r', **{params!r})")
            status, out = kit.check_call(world, "roads update", world.update, "r", **params)
            if status != "ok":
                kit.disagree("roads update", str(log), f"a valid update was refused: {out!r}")
                return
        if _tick(world, log, tag) != "ok":
            return
        if hierarchy == "cch":      # a background customization: wait for it, tick it in
            view = g.stored_view("navcore_roads.cch") if hasattr(g, "stored_view") else None
            if view is not None:
                view.wait(10)
                if _tick(world, log, tag) != "ok":
                    return
        # the model over source nodes: a segment costs base * factor, inf
        # once closed; a blocked junction is entered by no segment
        blocked_src = {node_source[i] for i in np.flatnonzero(~walk)}
        cost = [INF if closed[i] else s_base[i] * factor[i] for i in range(m)]
        use = [i for i in range(m) if on_edge[i]]
        adj = ref.adjacency([s_src[i] for i in use], [s_dst[i] for i in use],
                            [cost[i] for i in use], seg.num_nodes, directed=True)
        # parallel segments: the cheapest (adjacency keeps the first)
        for i in use:
            u, v = s_src[i], s_dst[i]
            adj[u][v] = min(adj[u][v], cost[i])
        ok = np.array([x not in blocked_src for x in range(seg.num_nodes)])

        def truth(s, t):
            if not (walk[s] and walk[t]):
                return INF
            a, b = node_source[s], node_source[t]
            return ref.dijkstra(adj, a, b, walkable=ok).get(b, INF)
        _check_queries(world, "r", _pairs(draw, g.num_nodes), truth, log, tag)
