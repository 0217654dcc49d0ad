"""``RoadGraph``: the graph of a road network, made from ``Segments``.

Its nodes are the junctions and dead ends of the source network; a chain of
segments through nodes that only continue the road (degree 2, as OSRM
compresses them) is one edge that keeps its segments in order, so a path
is drawn along the full road (``PathResult.points``, (lon, lat)) while the
search sees a graph several times smaller. Costs are per segment
(``weight="time"``: seconds at the segment's speed; ``"distance"``:
metres), summed per edge; an update re-weights segments (``updates``), so
a closure or a jam on part of a long edge is exact.

Parallel edges (two roads between the same junctions) are kept: searches
take the cheapest, and closing one leaves the other.

>>> import numpy as np
>>> from navcore_roads.segments import Segments
>>> seg = Segments(node_id=np.arange(4), lon=np.array([0.0, 0.001, 0.002, 0.001]),
...                lat=np.array([0.0, 0.0, 0.0, 0.001]), src=np.array([0, 1, 1, 3]),
...                dst=np.array([1, 2, 3, 1]), length=np.array([111.2, 111.2, 111.2, 111.2]),
...                speed=np.full(4, 36.0), way=np.array([7, 7, 8, 8]),
...                highway=np.zeros(4, np.uint8))
>>> g = build_road_graph(seg, keep="all")
>>> g.num_nodes, g.csr.num_edges, g.osm_ids.tolist()
(4, 4, [0, 1, 2, 3])
"""
from __future__ import annotations

import time

import numpy as np

import navcore

from navcore.errors import GraphError
from navcore.graph import NavGraph, build_storage
from navcore import validate

from . import _network as K
from .segments import Segments

WEIGHTS = ("time", "distance")
KEEP = ("largest_scc", "all")


class RoadGraph(NavGraph):
    """A road network: nodes at junctions, edges along chains of segments.

    Beyond ``NavGraph``: ``positions`` are (lon, lat) degrees; ``osm_ids``
    (int64) the source ids of the nodes (OSM node ids, DIMACS ids);
    ``weight`` (``"time"`` seconds or ``"distance"`` metres); per edge of
    the CSR view ``edge_length`` (metres) and the segments it runs over
    (``edge_segments(e)``); ``segments`` (the source data) with the
    per-segment ``seg_cost`` the edge costs are summed from; ``report``
    (what the loader kept and dropped, and why); ``turns`` (the turn
    rules between edges, or None).
    """

    kind = "roads"
    #: points are located in bulk (``locate_many``: one snapping call)
    vector_locate = True
    #: metres from the nearest road beyond which a point is off the graph
    #: (``invalid_start`` / ``invalid_goal``; ``math.inf``: no limit)
    max_snap = 500.0
    #: positions are (lon, lat): isochrone outlines are measured in metres
    positions_lonlat = True

    def _setup(self, segments, node_source, chain_start, chain, weight, profile, report):
        self.segments = segments
        self.node_source = node_source            # graph node -> source node index
        self.osm_ids = segments.node_id[node_source]
        self.chain_start = chain_start
        self.chain = chain
        csr = self.csr
        #: the source node of every CSR edge (``csr.targets`` holds its head)
        self.edge_src = np.repeat(np.arange(self.num_nodes, dtype=np.int32),
                                  np.diff(csr.offsets))
        self.weight = weight
        self.profile = profile
        self.report = report
        self.edge_length = np.add.reduceat(segments.length[chain], chain_start[:-1]) \
            if chain.size else np.zeros(0)
        #: the edge each segment lies on (-1: dropped with its component)
        self.seg_edge = np.full(segments.num_segments, -1, dtype=np.int64)
        self.seg_edge[chain] = np.repeat(np.arange(chain_start.size - 1), np.diff(chain_start))
        #: closures, jams and speeds per segment (``updates``)
        self.traffic = Traffic(segments)
        #: cost per segment now, what the edge costs are summed from
        self.seg_cost = self.traffic.costs(self, np.arange(segments.num_segments))
        #: unit vectors of the nodes on the sphere (A* measures chords);
        #: None without coordinates (DIMACS without ``.co``)
        self.unit = None if self.positions is None else unit_vectors(self.positions)
        #: (lon, lat) of the end of the segment at each position of ``chain``:
        #: a route's drawn road copies one run per edge (16 bytes a segment;
        #: reading it through ``chain`` and ``segments`` cost a found route
        #: microseconds of scattered loads). None without coordinates.
        end = segments.dst[chain]
        self.chain_xy = None if self.positions is None else \
            np.column_stack((segments.lon[end], segments.lat[end]))
        #: every edge is one segment (no chain compressed: arrays, DIMACS):
        #: a route's drawn road then has one point per node
        self.one_segment_edges = chain.size == chain_start.size - 1
        #: turn rules between edges (``turns.EdgeTurns``); None: every turn
        #: is free, and searches run on the junctions
        self.turns = None

    def locate(self, point) -> int:
        """The junction of the road nearest to ``point`` ((lon, lat)
        degrees) that is nearest along that road (-1 when the road is more
        than ``max_snap`` metres away). Routes from and to a point start
        and end on the road itself (``navcore_roads.snap``)."""
        from .locate import node_at
        x, y = validate.xy(point, "a node id or a (lon, lat) point")
        return node_at(self, x, y)

    def locate_many(self, points) -> np.ndarray:
        """``locate`` (int32) of each (lon, lat) row of ``points``, in one
        vectorised call (``navcore_roads.snap`` says where and how far)."""
        from .locate import snap
        return snap(self, points).nodes

    def edge_segments(self, e) -> np.ndarray:
        """Segment ids (into ``segments``) of edge ``e`` (a CSR position)."""
        e = validate.node_id(e, self.csr.num_edges, "edge", error=GraphError)
        return self.chain[self.chain_start[e]:self.chain_start[e + 1]]

    def route_points(self, edges) -> np.ndarray:
        """(lon, lat) of every source node along ``edges`` (CSR positions,
        in path order): the drawn route."""
        return self._route_points(validate.node_ids(edges, self.csr.num_edges, "edges",
                                                    GraphError, np.int64))

    def _route_points(self, edges) -> np.ndarray:
        """``route_points`` of edge positions a search found (int64)."""
        seg = self.segments
        return K.polyline(edges, self.chain_start, self.chain,
                          seg.src, seg.dst, seg.lon, seg.lat)

    def _edge_pieces(self, edges, start, stop) -> np.ndarray:
        """``NavGraph.edge_pieces`` along the roads: one (lon, lat) line
        per segment (or part of one) between ``start`` and ``stop``."""
        from .isochrone import edge_pieces
        return edge_pieces(self, edges, start, stop)

    def path_edges(self, nodes) -> np.ndarray:
        """The edge a path takes between consecutive ``nodes`` (the
        cheapest of parallel ones)."""
        csr = self.csr
        return K.cheapest_edges(csr.offsets, csr.targets, csr.cost,
                                validate.node_ids(nodes, self.num_nodes, "nodes",
                                                  dtype=np.int64))

    def __repr__(self) -> str:
        return (f"<RoadGraph {self.graph_id!r} nodes={self.num_nodes} "
                f"edges={self.csr.num_edges} weight={self.weight}>")


class Traffic:
    """Per-segment state the updates write: ``closed``, ``factor`` (times
    the free-flow cost) and ``speed`` (km/h, time-weighted graphs)."""

    def __init__(self, segments, closed=None, factor=None, speed=None):
        m = segments.num_segments
        self.base_speed = segments.speed
        self.closed = np.zeros(m, dtype=np.bool_) if closed is None else closed
        self.factor = np.ones(m) if factor is None else factor
        self.speed = segments.speed.copy() if speed is None else speed

    def copy(self) -> "Traffic":
        t = Traffic.__new__(Traffic)
        t.base_speed = self.base_speed
        t.closed, t.factor, t.speed = self.closed.copy(), self.factor.copy(), self.speed.copy()
        return t

    def reset(self, segs) -> None:
        self.closed[segs] = False
        self.factor[segs] = 1.0
        self.speed[segs] = self.base_speed[segs]

    def costs(self, graph, segs) -> np.ndarray:
        """Cost of segments ``segs`` in this state."""
        seg = graph.segments
        if seg.cost is not None:
            base = seg.cost[segs]
        elif graph.weight == "distance":
            base = seg.length[segs]
        else:
            base = seg.length[segs] / (self.speed[segs] / 3.6)
        return np.where(self.closed[segs], np.inf, base * self.factor[segs])


def unit_vectors(lonlat) -> np.ndarray:
    """(x, y, z) on the unit sphere of (lon, lat) degrees, float64 (k, 3)."""
    lon, lat = np.radians(lonlat[:, 0]), np.radians(lonlat[:, 1])
    return np.ascontiguousarray(np.column_stack(
        (np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat))))


def build_road_graph(segments: Segments, *, weight="time", keep="largest_scc",
                     compress=True, profile=None, world=None, turn_costs=False) -> RoadGraph:
    """The ``RoadGraph`` of ``segments``: chains compressed (``compress``),
    only the largest strongly connected component kept (``keep``), edges
    weighted by ``weight``, ``profile``'s turn costs merged into the turn
    rules when ``turn_costs`` (``navcore_roads.turn_costs``; a profile is
    needed then). ``graph.report`` says what was dropped."""
    t0 = time.perf_counter()
    if not isinstance(segments, Segments):
        raise GraphError(f"build_road_graph needs Segments, got {segments!r}")
    if world is not None and not isinstance(world, navcore.World):
        raise GraphError(f"world must be a navcore.World or None, got {world!r}")
    weight = validate.choice(weight, WEIGHTS, "weight", GraphError)
    keep = validate.choice(keep, KEEP, "keep", GraphError)
    compress = validate.boolean(compress, "compress", GraphError)
    turn_costs = validate.boolean(turn_costs, "turn_costs", GraphError)
    if turn_costs and profile is None:
        raise GraphError("turn_costs=True needs the profile of OSM or GeoJSON roads; "
                         "DIMACS and array roads have none (give array roads a turns= "
                         "table instead)")
    n, m = segments.num_nodes, segments.num_segments
    src = segments.src.astype(np.int64)
    dst = segments.dst.astype(np.int64)
    out_off, out_order = _group(src, n)
    out_tgt = dst[out_order]
    if compress:
        in_off, in_order = _group(dst, n)
        kept = K.junctions(n, out_off, out_tgt, in_off, src[in_order])
        if segments.turns is not None:
            # a turn rule's junction stays a node, so its segments end and
            # start edges and the rule becomes one between edges
            kept[dst[segments.turns.frm]] = True
            if segments.turns.num_sequences:
                # a forbidden sequence's first and last junctions too, so
                # its via segments are whole edges
                seq, off = segments.turns.seq, segments.turns.seq_off
                kept[dst[seq[off[:-1]]]] = True
                kept[src[seq[off[1:] - 1]]] = True
        while True:
            e_src, e_dst, chain_start, chain = K.trace_chains(n, out_off, out_tgt,
                                                              out_order, kept)
            # a chain back to where it began (a loop street, a ring no road
            # reaches): its middle node stays, so it is two edges, not lost
            loops = np.flatnonzero((e_src == e_dst) & (np.diff(chain_start) > 1))
            if loops.size == 0:
                break
            mid = chain[chain_start[loops] + np.diff(chain_start)[loops] // 2 - 1]
            kept[dst[mid]] = True
        selfloops = e_src == e_dst                   # one segment from a node to itself
        if selfloops.any():
            e_src, e_dst, chain_start, chain = _drop_edges(e_src, e_dst, chain_start, chain,
                                                           selfloops)
    else:
        kept = np.ones(n, dtype=np.bool_)
        e_src, e_dst = src[out_order], out_tgt
        chain_start = np.arange(m + 1, dtype=np.int64)
        chain = out_order.astype(np.int64)
    node_source = np.flatnonzero(kept)
    renumber = np.full(n, -1, dtype=np.int64)
    renumber[node_source] = np.arange(node_source.size)
    e_src, e_dst = renumber[e_src], renumber[e_dst]
    report = {"source": segments.source, "source_nodes": n, "source_segments": m,
              "compressed_nodes": int(node_source.size), "dropped": {}}
    if keep == "largest_scc" and node_source.size:
        e_src, e_dst, chain_start, chain, node_source = _largest_scc(
            e_src, e_dst, chain_start, chain, node_source, report)
    num_nodes = int(node_source.size)
    # CSR order: the storage sorts by source and then target and tells
    # where each edge went ("edge"), so the chains can follow
    storage = build_storage(e_src, e_dst, {"cost": np.zeros(e_src.size),
                                           "edge": np.arange(e_src.size, dtype=np.int64)},
                            num_nodes, world=world, sort=True, dedup=False)
    order = storage.data["edge"]
    chain_start, chain = _reorder_chains(chain_start, chain, order)
    positions = np.column_stack((segments.lon[node_source], segments.lat[node_source]))
    has_coords = bool(np.isfinite(positions).all()) and num_nodes > 0
    graph = RoadGraph(storage, positions=positions if has_coords else None,
                      heuristic="zero", directed=True, num_nodes=num_nodes)
    graph._setup(segments, node_source, chain_start, chain, weight, profile, report)
    storage.data["cost"][:] = edge_costs(graph)
    if segments.turns is not None:
        from .turns import edge_turns
        graph.turns, report["turns"] = edge_turns(graph, segments.turns)
    if turn_costs and profile.has_turn_costs:
        from .turn_costs import apply
        via = None if graph.turns is None else graph.turns.via
        apply(graph, profile)
        if via is not None:         # the copies take the merged rules between two edges
            from .turns import with_via
            graph.turns = with_via(graph, graph.turns, via.patterns)
    report.update(nodes=num_nodes, edges=int(e_src.size),
                  seconds=time.perf_counter() - t0)
    return graph


def edge_costs(graph, edges=None) -> np.ndarray:
    """Cost of ``edges`` (all by default): their segments' costs summed."""
    if edges is None:
        if graph.chain.size == 0:
            return np.zeros(0)
        return np.add.reduceat(graph.seg_cost[graph.chain], graph.chain_start[:-1])
    edges = np.asarray(edges, dtype=np.int64)
    starts, flat = _chain_slices(graph.chain_start, edges)
    if flat.size == 0:
        return np.zeros(edges.size)
    return np.add.reduceat(graph.seg_cost[graph.chain[flat]], starts[:-1])


def _chain_slices(chain_start, edges):
    """Where each of ``edges``' chains begins in a flat list of their
    segments, and the positions in ``chain`` of that list (no Python loop)."""
    lengths = chain_start[edges + 1] - chain_start[edges]
    starts = np.zeros(edges.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    flat = np.repeat(chain_start[edges] - starts[:-1], lengths) + np.arange(starts[-1])
    return starts, flat


def _group(keys, n):
    """Offsets and a stable order grouping ``keys`` (0..n-1)."""
    order = np.argsort(keys, kind="stable")
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=n), out=offsets[1:])
    return offsets, order


def _drop_edges(e_src, e_dst, chain_start, chain, drop):
    keep = ~drop
    lengths = np.diff(chain_start)
    seg_keep = np.repeat(keep, lengths)
    new_start = np.zeros(int(keep.sum()) + 1, dtype=np.int64)
    np.cumsum(lengths[keep], out=new_start[1:])
    return e_src[keep], e_dst[keep], new_start, chain[seg_keep]


def _reorder_chains(chain_start, chain, order):
    starts, flat = _chain_slices(chain_start, order)
    return starts, chain[flat]


def _largest_scc(e_src, e_dst, chain_start, chain, node_source, report):
    n = node_source.size
    offsets, order = _group(e_src, n)
    label = K.strong_components(n, offsets, e_dst[order].astype(np.int32))
    sizes = np.bincount(label)
    big = int(np.argmax(sizes))
    keep_node = label == big
    dropped = int(n - sizes[big])
    if dropped:
        report["dropped"]["not in the largest strongly connected component"] = {
            "nodes": dropped, "components": int(sizes.size - 1)}
    keep_edge = keep_node[e_src] & keep_node[e_dst]
    e_src, e_dst, chain_start, chain = _drop_edges(e_src, e_dst, chain_start, chain,
                                                   ~keep_edge)
    renumber = np.cumsum(keep_node) - 1
    return renumber[e_src], renumber[e_dst], chain_start, chain, node_source[keep_node]
