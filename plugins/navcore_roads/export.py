"""Road networks and routes for other tools: GeoJSON (``to_geojson``) and
networkx (``to_networkx``, with osmnx's attribute names).

``to_geojson(obj)`` returns a GeoJSON dict (RFC 7946: positions are
``[lon, lat]`` in WGS84 degrees, as a road graph stores them) of anything
with a ``__geo_interface__`` (``Routes``: a FeatureCollection, one Feature
per pair), and of a ``PathResult`` of ``World.find_path`` on a road graph,
which does not know its graph, so the graph comes along:
``to_geojson(result, graph)``. A route is a Feature whose geometry is the
drawn road (``result.points``: the roads' shapes, from and to the snapped
points when the ends were points) as a LineString, ``null`` when no route
was found; its properties: ``status``, ``cost`` (the graph's weight:
seconds or metres; ``null`` when unreachable), ``length`` (metres along
the line, on the sphere every length in navcore_roads is on: for roads
read from OSM, GeoJSON or DIMACS with coordinates, the sum of the graph's
own segment lengths), ``nodes`` (junction ids), ``osm_ids`` (their source
ids), ``weight`` and ``algorithm``.

``to_networkx(graph)`` is the graph as a ``networkx.MultiDiGraph`` that
osmnx's functions take: graph attribute ``crs`` ``"epsg:4326"`` (none
when the graph has no coordinates, nor ``x``, ``y``); nodes
keyed by OSM id (``node_keys="index"``: by navcore node id) with ``x``
(lon), ``y`` (lat) and ``street_count`` (the roads at the node, a two-way
road once; osmnx's ``count_streets_per_node`` also counts once two one-way
roads that join the same two nodes in turn); edges ``(u, v, key)`` with
``osmid`` (the OSM way, a list when the edge runs along several),
``length`` (metres), ``highway``, ``oneway`` (no edge back along the same
way), ``speed_kph``, ``travel_time`` (seconds at the free-flow speeds),
``cost`` (navcore's current cost, inf on a closed road) and ``geometry``
(a shapely LineString, on edges that run through shape nodes, as osmnx's
simplified graphs have). Way names and the raw ``maxspeed`` tags are not
kept by the OSM reader, so there is no ``name`` or ``maxspeed``.

>>> import json, navcore, navcore_roads
>>> w = navcore.World()
>>> g = w.add_graph("r", type="roads", src=[0, 1], dst=[1, 2], speed=36.0, keep="all",
...                 compress=True,
...                 positions=[(7.42, 43.73), (7.421, 43.73), (7.421, 43.731)])
>>> r = w.find_path("r", 0, 1)       # junctions 0 and 1: source nodes 0 and 2
>>> f = navcore_roads.to_geojson(r, g)
>>> f["geometry"]["coordinates"]
[[7.42, 43.73], [7.421, 43.73], [7.421, 43.731]]
>>> f["properties"]["nodes"], f["properties"]["osm_ids"]
([0, 1], [0, 2])
>>> round(f["properties"]["length"], 1), round(f["properties"]["cost"], 1)
(191.5, 19.2)
>>> _ = json.dumps(f, allow_nan=False)
"""
from __future__ import annotations

import numpy as np

from navcore import limits, validate
from navcore.errors import GraphError
from navcore.types import PathResult

from .network import RoadGraph
from .segments import haversine_m

__all__ = ["to_geojson", "to_networkx", "line_length"]

#: what a node and an edge of the networkx export take (Python objects
#: and dicts), for the memory check before it is built
_NODE_BYTES, _EDGE_BYTES = 600, 1600


def to_geojson(obj, graph=None) -> dict:
    """GeoJSON (a dict) of ``obj``: a ``PathResult`` of a road graph
    ``graph`` (a Feature), or anything with a ``__geo_interface__``
    (``Routes``: a FeatureCollection). ``GraphError`` for anything else,
    for a result without its graph, or one found on another graph."""
    if isinstance(obj, PathResult):
        if graph is None:
            raise GraphError("to_geojson(result, graph): a PathResult does not know the "
                             "graph it was found on; pass the road graph, e.g. "
                             "to_geojson(result, world.graph('roads'))")
        return path_feature(graph, obj)
    if graph is not None:
        raise GraphError(f"to_geojson: graph= goes with a PathResult only, got "
                         f"{validate.describe(obj)} with it")
    geo = getattr(obj, "__geo_interface__", None)
    if geo is None:
        raise GraphError(f"to_geojson takes a road PathResult (with its graph), Routes or "
                         f"an object with a __geo_interface__, got {validate.describe(obj)}")
    return geo


def line_length(points) -> float:
    """Metres along a (k, 2) array of (lon, lat) points (great-circle
    between consecutive ones, on the sphere of ``EARTH_RADIUS_M``)."""
    pts = np.asarray(points, dtype=np.float64)
    if pts.shape[0] < 2:
        return 0.0
    return float(haversine_m(pts[:-1, 0], pts[:-1, 1], pts[1:, 0], pts[1:, 1]).sum())


def path_feature(graph, result) -> dict:
    """The Feature of ``result``, a ``PathResult`` found on ``graph``."""
    graph = _drawn_graph(graph, "to_geojson")
    version = result.version
    if version is not None and version.salt != graph.salt:
        raise GraphError(f"to_geojson: this PathResult was found on another graph than "
                         f"{graph.graph_id!r}")
    nodes = validate.node_ids(result.nodes, graph.num_nodes, "result.nodes", GraphError)
    points = validate.array(result.points, "result.points", GraphError, np.float64)
    if result.found and (points.ndim != 2 or points.shape[1] != 2):
        raise GraphError(f"to_geojson: result.points must be (lon, lat) rows, shape (k, 2), "
                         f"got shape {points.shape}: not a road graph's route")
    props = {"algorithm": result.algorithm}
    return route_feature(graph, result.status.value, result.cost, nodes, points, props)


def route_feature(graph, status, cost, nodes, points, props) -> dict:
    """A route's Feature: ``points`` ((lon, lat) rows) as a LineString
    (``null`` when empty), ``props`` after the common properties."""
    found = np.isfinite(cost) and points.shape[0] > 0
    if found and not np.isfinite(points).all():
        raise GraphError(f"road graph {graph.graph_id!r}: the route's points are not all "
                         f"finite (lon, lat)")
    coords = points.tolist() if found else None
    if found and len(coords) == 1:       # a route to where it starts: a LineString
        coords.append(coords[0])         # needs two positions
    properties = {"status": status, "cost": float(cost) if found else None,
                  "length": line_length(points) if found else None,
                  "nodes": nodes.tolist(), "osm_ids": graph.osm_ids[nodes].tolist(),
                  "weight": graph.weight, **props}
    geometry = {"type": "LineString", "coordinates": coords} if found else None
    return {"type": "Feature", "geometry": geometry, "properties": properties}


def routes_collection(routes) -> dict:
    """``Routes.__geo_interface__``: a FeatureCollection, Feature ``i``
    for pair ``i`` (properties ``route``, ``source``, ``target`` too)."""
    graph = _drawn_graph(routes.graph, "Routes.__geo_interface__")
    features = []
    for i in range(len(routes)):
        cost = routes.costs[i]
        status = "found" if np.isfinite(cost) else "unreachable"
        features.append(route_feature(
            graph, status, cost, routes.nodes(i), routes.points(i),
            {"route": i, "source": int(routes.sources[i]), "target": int(routes.targets[i]),
             "algorithm": routes.algorithm}))
    return {"type": "FeatureCollection", "features": features}


def _drawn_graph(graph, what) -> RoadGraph:
    graph = validate.graph(graph, RoadGraph, error=GraphError)
    if graph.positions is None:
        raise GraphError(f"{what}: road graph {graph.graph_id!r} has no coordinates (a "
                         f"DIMACS .gr without its .co), so there is no route to draw")
    return graph


def to_networkx(graph, *, node_keys="osmid"):
    """``graph`` (a ``RoadGraph``) as a ``networkx.MultiDiGraph`` with
    osmnx's attribute names (module doc). ``node_keys``: ``"osmid"``
    (default, as osmnx keys its nodes; ``graph.osm_ids[i]`` is node
    ``i``'s key) or ``"index"`` (navcore's node ids, the ones
    ``find_path`` answers with). Needs networkx (``pip install
    networkx``): a ``GraphError`` says so when it is missing."""
    graph = validate.graph(graph, RoadGraph, error=GraphError)
    node_keys = validate.choice(node_keys, ("osmid", "index"), "node_keys", GraphError)
    try:
        import networkx as nx
    except ImportError:
        raise GraphError("to_networkx needs networkx, which is not installed: "
                         "pip install networkx") from None
    n, m = graph.num_nodes, graph.csr.num_edges
    limits.check_memory(f"to_networkx of road graph {graph.graph_id!r} ({n} nodes, {m} "
                        f"edges)", _NODE_BYTES * n + _EDGE_BYTES * m)
    if node_keys == "osmid":
        keys = graph.osm_ids
        if np.unique(keys).size != n:
            raise GraphError(f"road graph {graph.graph_id!r}: its nodes' source ids are not "
                             f"unique, so they cannot key the nodes; use "
                             f"node_keys='index'")
    else:
        keys = np.arange(n, dtype=np.int64)
    edges = edge_table(graph)
    out = nx.MultiDiGraph(name=graph.graph_id, weight=graph.weight,
                          simplified=not graph.one_segment_edges, created_with="navcore")
    if graph.positions is not None:               # x, y are WGS84 lon, lat degrees
        out.graph["crs"] = "epsg:4326"
    node_attrs = {"street_count": edges.pop("street_count")}
    if graph.positions is not None:
        node_attrs["x"], node_attrs["y"] = graph.positions[:, 0], graph.positions[:, 1]
    names = list(node_attrs)
    columns = [node_attrs[k].tolist() for k in names]
    out.add_nodes_from((k, dict(zip(names, row)))
                       for k, row in zip(keys.tolist(), zip(*columns)))
    u, v, key = keys[graph.edge_src].tolist(), keys[graph.csr.targets].tolist(), \
        edges.pop("key").tolist()
    names = list(edges)
    columns = [c.tolist() if isinstance(c, np.ndarray) else c for c in edges.values()]
    out.add_edges_from((a, b, k, {name: value for name, value in zip(names, row)
                                  if value is not None})
                       for a, b, k, row in zip(u, v, key, zip(*columns)))
    return out


def edge_table(graph) -> dict:
    """Per CSR edge of ``graph`` (numpy arrays, or lists where a value is
    a list or None): ``key`` (0, 1, ... among parallel edges), ``osmid``,
    ``length``, ``highway``, ``oneway``, ``speed_kph``, ``travel_time``,
    ``cost``, ``geometry``; and per node ``street_count``."""
    seg, csr = graph.segments, graph.csr
    u, v = graph.edge_src.astype(np.int64), csr.targets.astype(np.int64)
    m, n = u.size, graph.num_nodes
    starts = graph.chain_start[:-1]
    sizes = np.diff(graph.chain_start)
    chain = graph.chain
    # parallel edges are neighbours in the CSR (sorted by source, then target)
    new = np.ones(m, dtype=np.bool_)
    new[1:] = (u[1:] != u[:-1]) | (v[1:] != v[:-1])
    idx = np.arange(m)
    key = idx - np.maximum.accumulate(np.where(new, idx, 0))
    two_way = _two_way(seg, graph.seg_edge >= 0)
    oneway = np.logical_or.reduceat(~two_way[chain], starts) if m else np.zeros(0, bool)
    # streets at a node: its edges in and out, a two-way road (an edge out
    # with its twin in) once
    two_way_out = np.bincount(u[~oneway], minlength=n)
    street_count = np.bincount(u, minlength=n) + np.bincount(v, minlength=n) - two_way_out
    table = {"key": key, "street_count": street_count,
             "osmid": _per_edge(seg.way[chain], starts, lambda w: int(w))}
    if seg.highway_names:
        names = np.asarray(seg.highway_names, dtype=object)
        table["highway"] = _per_edge(seg.highway[chain], starts,
                                     lambda c: str(names[c]))
    table["oneway"] = oneway
    length = graph.edge_length
    if m and np.isfinite(length).all():          # DIMACS without coordinates: none
        table["length"] = length
        speed = seg.speed[chain]
        if np.isfinite(speed).all():                 # roads given as costs: none
            travel_time = np.add.reduceat(seg.length[chain] / (speed / 3.6), starts)
            table["travel_time"] = travel_time
            with np.errstate(invalid="ignore", divide="ignore"):
                table["speed_kph"] = np.where(travel_time > 0, length / travel_time * 3.6,
                                              speed[starts])
    table["cost"] = csr.cost
    if graph.positions is not None and m:
        table["geometry"] = _geometries(graph, starts, sizes)
    return table


def _two_way(seg, on) -> np.ndarray:
    """Per segment: whether the graph (``on``) has the same way driven back
    between the same two nodes (a two-way road; a one-way road back along
    another way, as a divided road's, does not count)."""
    m = seg.num_segments
    if m == 0:
        return np.zeros(0, dtype=np.bool_)
    n = np.int64(seg.num_nodes)
    src, dst = seg.src.astype(np.int64), seg.dst.astype(np.int64)
    # node pairs and ways as small ranks, so (pair, way) is one int64 key
    _, pair = np.unique(np.r_[src * n + dst, dst * n + src], return_inverse=True)
    _, way = np.unique(seg.way, return_inverse=True)
    ways = np.int64(way.max()) + 1
    ahead = pair[:m].astype(np.int64) * ways + way
    back = pair[m:].astype(np.int64) * ways + way
    return on & np.isin(back, ahead[on])


def _per_edge(values, starts, convert) -> list:
    """Per edge the distinct ``values`` of its segments in order: the one
    value, or a list of them when there are several (as osmnx merges the
    attributes of the ways a simplified edge runs along)."""
    if values.size == 0:
        return []
    # a chain runs along each way in one piece: drop repeats in a row
    # (vectorised), then the few edges over several ways are deduplicated
    change = np.ones(values.size, dtype=np.bool_)
    change[1:] = values[1:] != values[:-1]
    change[starts] = True
    kept = np.flatnonzero(change)
    at = np.searchsorted(kept, starts)
    count = np.diff(np.r_[at, kept.size])
    firsts = values[kept].tolist()
    out = [convert(firsts[a]) for a in at.tolist()]
    for e in np.flatnonzero(count > 1).tolist():
        distinct = dict.fromkeys(convert(x) for x in firsts[at[e]:at[e] + count[e]])
        if len(distinct) > 1:
            out[e] = list(distinct)
    return out


def _geometries(graph, starts, sizes) -> list:
    """A shapely LineString per edge through shape nodes, None for an
    edge of one segment (osmnx draws those from their ends' x, y)."""
    import shapely
    multi = np.flatnonzero(sizes > 1)
    out = [None] * sizes.size
    if multi.size == 0:
        return out
    # each drawn edge: its tail's position, then the far end of every segment
    lengths = sizes[multi] + 1
    first = np.zeros(multi.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=first[1:])
    coords = np.empty((int(first[-1]), 2))
    coords[first[:-1]] = graph.positions[graph.edge_src[multi]]
    inner = np.ones(coords.shape[0], dtype=np.bool_)
    inner[first[:-1]] = False
    pos = np.repeat(starts[multi] - first[:-1] - 1, lengths) + np.arange(coords.shape[0])
    coords[inner] = graph.chain_xy[pos[inner]]
    lines = shapely.linestrings(coords, indices=np.repeat(np.arange(multi.size), lengths))
    for e, line in zip(multi.tolist(), lines):
        out[e] = line
    return out
