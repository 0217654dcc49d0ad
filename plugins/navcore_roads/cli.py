"""``navcore roads``: load a road network, say what it holds and how long
things took, and answer a route, a random matrix or an isochrone.

    navcore roads FILE [--profile car] [--turn-costs] [--weight time] [--keep largest_scc]
                       [--contract | --customizable] [--from LON,LAT --to LON,LAT] [--matrix N]
                       [--isochrone LON,LAT,COST] [--seed S] [--json OUT] [--geojson OUT]

FILE is an OpenStreetMap extract (``.osm.pbf``, ``.osm``, ``.osm.gz``,
``.osm.bz2``), a DIMACS ``.gr`` (its ``.co`` beside it is read when there
is one) or a GeoJSON file (``.geojson``, ``.json``). ``--json OUT``
writes everything printed as JSON (``-`` for standard output); its folder
is checked before the network is loaded. ``--geojson OUT`` writes the
route of ``--from``/``--to`` as a GeoJSON Feature (its drawn road as a
LineString of [lon, lat], ``navcore_roads.to_geojson``), the outline of
``--isochrone`` as a FeatureCollection (``Isochrone.to_geojson``), or both
as one FeatureCollection, the route first. A mistake is a
``navcore: error: ...`` line and exit status 2.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

import navcore
from navcore import limits
from navcore.cli import output_path
from navcore.errors import NavError

SUFFIXES = {".pbf": "osm", ".osm": "osm", ".gz": "osm", ".bz2": "osm", ".gr": "dimacs",
            ".geojson": "geojson", ".json": "geojson"}


def add_command(subparsers) -> None:
    p = subparsers.add_parser("roads", help="load a road network (OSM, DIMACS, GeoJSON) and "
                                            "answer a route or a distance matrix",
                              description="Load a road network, report its size and build "
                                          "times, and answer a route or a random N x N "
                                          "travel-cost matrix.")
    p.add_argument("file", help="an .osm.pbf/.osm/.osm.gz/.osm.bz2 extract, a DIMACS .gr "
                                "(with its .co beside it) or a .geojson")
    p.add_argument("--profile", default="car", help="car (default), bike or foot (OSM and "
                                                    "GeoJSON)")
    p.add_argument("--turn-costs", action="store_true",
                   help="apply the profile's turn costs (car: U-turns only at dead ends, "
                        "turns up to 7.5 s by their angle; OSM and GeoJSON)")
    p.add_argument("--weight", default="time", choices=("time", "distance"),
                   help="seconds (default) or metres")
    p.add_argument("--keep", default="largest_scc", choices=("largest_scc", "all"),
                   help="keep the largest strongly connected component (default) or all")
    p.add_argument("--contract", action="store_true",
                   help="build a contraction hierarchy and answer with it")
    p.add_argument("--customizable", action="store_true",
                   help="build a customizable contraction hierarchy (live traffic) and "
                        "answer with it")
    p.add_argument("--from", dest="start", metavar="LON,LAT", type=_lonlat,
                   help="route start (snaps to the nearest node)")
    p.add_argument("--to", dest="goal", metavar="LON,LAT", type=_lonlat, help="route goal")
    p.add_argument("--matrix", type=int, metavar="N",
                   help="a random N x N matrix between nodes (--seed picks them)")
    p.add_argument("--isochrone", metavar="LON,LAT,COST", type=_isochrone,
                   help="what is reachable from LON,LAT within COST (seconds with "
                        "--weight time, metres with distance): junctions, roads, outline")
    p.add_argument("--seed", type=int, default=0, help="seed for --matrix (default 0)")
    p.add_argument("--dask", nargs="?", const="local", metavar="ADDRESS",
                   help="answer --matrix on a Dask cluster: the scheduler at ADDRESS, or "
                        "without one a LocalCluster (needs pip install 'navcore[dask]')")
    p.add_argument("--json", metavar="OUT", help="write the report as JSON to OUT ('-': "
                                                 "standard output)")
    p.add_argument("--geojson", metavar="OUT",
                   help="write the --from/--to route as a GeoJSON Feature, the "
                        "--isochrone outline as a FeatureCollection, or both, to OUT "
                        "('-': standard output)")
    p.set_defaults(func=_cmd_roads)


def _lonlat(text):
    try:
        lon, lat = (float(v) for v in text.split(","))
    except ValueError:
        raise ValueError(f"expected LON,LAT, got {text!r}") from None
    return lon, lat


def _isochrone(text):
    try:
        lon, lat, cost = (float(v) for v in text.split(","))
    except ValueError:
        raise ValueError(f"expected LON,LAT,COST, got {text!r}") from None
    return lon, lat, cost


def source_params(path) -> dict:
    """``add_graph`` parameters for a road file, chosen by its suffix."""
    path = Path(path)
    kind = SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise NavError(f"{path}: not a road file I know (.osm.pbf, .osm, .osm.gz, .osm.bz2, "
                       f".gr, .geojson, .json)")
    if kind == "dimacs":
        co = path.with_suffix(".co")
        return {"dimacs": path, **({"coords": co} if co.exists() else {})}
    return {kind: path}


def _cmd_roads(args) -> int:
    if (args.start is None) != (args.goal is None):
        raise NavError("--from and --to go together")
    if args.matrix is not None and args.matrix < 1:
        raise NavError(f"--matrix needs a positive size, got {args.matrix}")
    if args.matrix is not None:
        # the answer's float64s, before the network is loaded and the ends
        # drawn (CapacityError: one line, as every NavError here)
        n = args.matrix
        limits.check_memory(f"--matrix {n}: a {n} x {n} distance matrix", 8 * n * n)
    if args.dask is not None and args.matrix is None:
        raise NavError("--dask answers --matrix N; give --matrix too")
    if args.geojson is not None and args.start is None and args.isochrone is None:
        raise NavError("--geojson writes the route or the isochrone: give --from and --to "
                       "or --isochrone too")
    if args.geojson == "-" and args.json == "-":
        raise NavError("--json - and --geojson - both write to standard output; give one "
                       "of them a file")
    out = _json_target(args.json, "--json")
    geojson_out = _json_target(args.geojson, "--geojson")
    params = source_params(args.file)
    if "osm" in params or "geojson" in params:
        params["profile"] = args.profile
    elif args.profile != "car":
        raise NavError("--profile applies to OSM and GeoJSON files")
    if args.turn_costs:
        if "osm" not in params and "geojson" not in params:
            raise NavError("--turn-costs applies to OSM and GeoJSON files (their profile)")
        params["turn_costs"] = True
    world = navcore.World()
    t0 = time.perf_counter()
    g = world.add_graph("roads", type="roads", weight=args.weight, keep=args.keep, **params)
    report = {"file": str(args.file), "nodes": g.num_nodes, "edges": g.csr.num_edges,
              "source_nodes": g.report["source_nodes"],
              "source_segments": g.report["source_segments"],
              "dropped": g.report["dropped"], "weight": g.weight,
              "load_s": round(time.perf_counter() - t0, 4)}
    say = [] if "-" in (args.json, args.geojson) else None
    _line(say, f"{args.file}: {g.num_nodes} nodes, {g.csr.num_edges} edges (from "
               f"{report['source_nodes']} source nodes, {report['source_segments']} "
               f"segments) in {report['load_s']:.3f} s")
    for why, what in g.report["dropped"].items():
        _line(say, f"  dropped {what['nodes']} nodes {why} ({what['components']} components)")
    if "turn_costs" in g.report:
        tc = report["turn_costs"] = g.report["turn_costs"]
        _line(say, f"turn costs ({tc['profile']}): {tc['costed_turns']} turns with a cost, "
                   f"{tc['forbidden_u_turns']} U-turns forbidden, {tc['rules']} rules "
                   f"({tc['bytes'] / 1e6:.1f} MB)")
    if args.contract:
        from .ch import contract
        t0 = time.perf_counter()
        ch = contract(g, progress=True if say is None else False)
        report["contract_s"] = round(time.perf_counter() - t0, 4)
        report["shortcuts"] = ch.num_shortcuts
        _line(say, f"contraction hierarchy: {ch.num_shortcuts} shortcuts in "
                   f"{report['contract_s']:.3f} s")
    if args.customizable:
        from .ch import contract
        t0 = time.perf_counter()
        view = contract(g, customizable=True)
        report["customizable_s"] = round(time.perf_counter() - t0, 4)
        st = view.stats()
        report["cch"] = {k: st[k] for k in ("arcs", "tree_depth", "order_seconds",
                                            "topology_seconds", "customize_seconds")}
        _line(say, f"customizable hierarchy: {st['arcs']} arcs, tree depth "
                   f"{st['tree_depth']}, in {report['customizable_s']:.3f} s (order "
                   f"{st['order_seconds']:.3f} s, customization "
                   f"{st['customize_seconds'] * 1e3:.2f} ms)")
    world.warm_up("roads")
    unit = "(the file's units)" if g.segments.cost is not None else \
        "s" if g.weight == "time" else "m"
    if args.start is not None:
        from .locate import snap
        metres = snap(g, [args.start, args.goal]).metres
        t0 = time.perf_counter()
        r = world.find_path("roads", tuple(args.start), tuple(args.goal))
        ms = (time.perf_counter() - t0) * 1e3
        report["route"] = {"from": list(args.start), "to": list(args.goal),
                           "snapped_m": [round(float(m), 2) for m in metres],
                           "status": r.status.value, "cost": _finite(r.cost),
                           "junctions": int(r.nodes.size),
                           "points": [[_finite(x) for x in p] for p in r.points.tolist()],
                           "algorithm": r.algorithm, "ms": round(ms, 3)}
        _line(say, f"route {r.status.value}: {r.cost:.1f} {unit} over {r.nodes.size} "
                   f"junctions, {len(r.points)} points ({r.algorithm}, {ms:.2f} ms); ends "
                   f"snapped {metres[0]:.1f} m and {metres[1]:.1f} m")
    features = []
    if args.start is not None and geojson_out is not None:
        from .export import to_geojson
        features.append(to_geojson(r, g))
    if args.isochrone is not None:
        iso = _cmd_isochrone(world, args.isochrone, unit, say, report)
        if geojson_out is not None:
            features += iso.to_geojson()["features"]
    if geojson_out is not None:
        _write(geojson_out, features[0] if args.isochrone is None else
               {"type": "FeatureCollection", "features": features})
    if args.matrix is not None:
        if g.num_nodes == 0:
            raise NavError(f"{args.file}: the network has no nodes left to draw a matrix "
                           f"from")
        rng = np.random.default_rng(args.seed)
        pick = rng.integers(0, g.num_nodes, size=(2, args.matrix)).astype(np.int32)
        t0 = time.perf_counter()
        if args.dask is None:
            m = world.distance_matrix("roads", pick[0], pick[1])
        else:
            m = _dask_matrix(args.dask, g, pick, say is None)
        s = time.perf_counter() - t0
        fin = np.isfinite(m)
        report["matrix"] = {"n": args.matrix, "seconds": round(s, 5),
                            "reachable": int(fin.sum()),
                            "mean": float(m[fin].mean()) if fin.any() else None}
        _line(say, f"{args.matrix} x {args.matrix} matrix in {s * 1e3:.1f} ms: "
                   f"{int(fin.sum())} reachable, mean {report['matrix']['mean'] or 0:.1f} "
                   f"{unit}")
    if out is not None:
        _write(out, report)
    return 0


def _write(out, data) -> None:
    """``data`` as JSON to ``out`` (a checked path, or ``-``: standard output)."""
    text = json.dumps(data, indent=1, allow_nan=False)
    if out == "-":
        print(text)
    else:
        out.write_text(text + "\n")


def _cmd_isochrone(world, spec, unit, say, report):
    """``--isochrone``: the junctions and roads reached from a point and
    the outline's area (``World.isochrone``); returns the isochrone."""
    lon, lat, cost = spec
    t0 = time.perf_counter()
    iso = world.isochrone("roads", (lon, lat), cost)
    ms = (time.perf_counter() - t0) * 1e3
    edges, lo, hi = iso.segments()
    partial = int((hi < 1).sum())
    area = round(_area_km2(iso.polygons()[0]), 4)
    report["isochrone"] = {"from": [lon, lat], "max_cost": _finite(cost),
                           "junctions": int(iso.nodes.size), "roads": int(edges.size),
                           "partial_roads": partial, "area_km2": area, "ms": round(ms, 3)}
    _line(say, f"isochrone {cost:g} {unit}: {iso.nodes.size} junctions, {edges.size} roads "
               f"({partial} partly) in {ms:.2f} ms; outline {area:.3f} km2")
    return iso


def _area_km2(geom) -> float:
    """Area of a (lon, lat) outline in km2 (equirectangular at its centre)."""
    if geom.is_empty:
        return 0.0
    return geom.area * 111.195 ** 2 * float(np.cos(np.radians(geom.centroid.y)))


def _dask_matrix(address, graph, pick, progress):
    """The matrix on a Dask cluster (``navcore_dask``, loaded only here),
    timed with the cluster's start and the graph's transfer to the workers."""
    import navcore_dask          # its public API; dask itself loads in connect()
    client = navcore_dask.connect(None if address == "local" else address)
    try:
        return navcore_dask.distance_matrix(client, graph, pick[0], pick[1],
                                            progress=progress)
    finally:
        client.close()


def _finite(x):
    """JSON has no inf or NaN: an unreachable cost or a missing coordinate
    is null."""
    return float(x) if np.isfinite(x) else None


def _line(say, text):
    if say is None:
        print(text)
    else:
        say.append(text)


def _json_target(value, option):
    """``-``, a writable path (checked now, before the long work), or None."""
    if value is None or value == "-":
        return value
    return output_path(value, option)
