"""What the API fuzz feeds each call: per graph type, valid builder
parameters and the plausible or junk values that may replace them, the
same for updates, and a world holding one graph of each type."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as npst

import navcore

from fuzzkit import (INTERESTING_INTS, finite_or_not, junk, node_like, node_lists, odd_arrays,
                     ragged)

ROOT = Path(__file__).resolve().parents[2]
DUNGEON = ROOT / "scenes" / "maps" / "dungeon.map"


def paths():
    """File arguments: missing, a folder, empty, bytes, a real map, not a path."""
    return st.sampled_from([str(DUNGEON), DUNGEON, "/nonexistent/x.map", str(ROOT), "",
                            os.fsencode(str(DUNGEON)), "/dev/null", 123, "\x00", "a" * 5000])


def _ints(lo=-2, hi=6):
    return st.one_of(st.integers(lo, hi), st.sampled_from(INTERESTING_INTS))


def _int_lists(lo=-2, hi=6, max_size=6):
    return st.one_of(st.lists(_ints(lo, hi), max_size=max_size),
                     st.lists(st.integers(lo, hi), max_size=max_size).map(np.array),
                     st.lists(st.lists(st.integers(0, 3), max_size=2), max_size=3),
                     ragged(), odd_arrays(max_side=5, max_dims=2), junk(5))


def _float_lists(max_size=6):
    return st.one_of(st.lists(finite_or_not(), max_size=max_size),
                     ragged().map(lambda rows: [[float(x) for x in r] for r in rows]),
                     odd_arrays(max_side=5, max_dims=2), junk(5))


def _point_lists(lo=-2.0, hi=12.0, max_size=6):
    pt = st.tuples(finite_or_not(lo, hi), finite_or_not(lo, hi))
    return st.one_of(st.lists(pt, max_size=max_size),
                     st.lists(st.lists(finite_or_not(lo, hi), max_size=3), max_size=max_size),
                     odd_arrays(max_side=5, max_dims=3), junk(5))


def _flags():
    return st.one_of(st.booleans(), st.sampled_from([0, 1, "yes", "false", None,
                                                      np.bool_(True)]), junk(2))


ROWS = ["....", ".#..", "...."]
RING = [[2.0, 2.0], [4.0, 2.0], [4.0, 4.0]]
GEOJSON = {"type": "FeatureCollection", "features": [
    {"type": "Feature", "properties": {"highway": "primary"},
     "geometry": {"type": "LineString", "coordinates": [[7.42, 43.73], [7.421, 43.73],
                                                        [7.421, 43.731]]}},
    {"type": "Feature", "properties": {"highway": "residential", "oneway": True},
     "geometry": {"type": "LineString", "coordinates": [[7.421, 43.731], [7.42, 43.73]]}}]}

VALID = {
    "grid": [dict(rows=ROWS), dict(array=np.ones((3, 4), bool)),
             dict(array=np.full((3, 4), 2.0)), dict(map=str(DUNGEON)),
             dict(generate="maze", width=3, height=2, seed=1)],
    "csr": [dict(src=[0, 1, 2], dst=[1, 2, 0], cost=[1.0, 2.0, 3.0]),
            dict(src=[0, 1], dst=[1, 2], positions=[[0, 0], [1, 0], [0, 1]], directed=False),
            dict(src=[0], dst=[1], num_nodes=4)],
    "navmesh": [dict(bounds=(0, 0, 10, 10)), dict(bounds=(0, 0, 10, 10), obstacles=[RING]),
                dict(walkable=[[0, 0], [10, 0], [10, 10], [0, 10]], tile_size=0),
                dict(vertices=[[0, 0], [4, 0], [4, 4], [0, 4]], polygons=[[0, 1, 2, 3]]),
                dict(bounds=(0, 0, 10, 10), agent_radius=0.3, tile_size=5)],
    "roads": [dict(src=[0, 1, 2], dst=[1, 2, 0], length=[100.0, 120.0, 90.0],
                   speed=[50.0, 50.0, 30.0],
                   positions=[[7.42, 43.73], [7.421, 43.73], [7.42, 43.731]]),
              dict(src=[0, 1], dst=[1, 2], cost=[3.0, 4.0], length=[10.0, 20.0], oneway=False),
              dict(geojson=GEOJSON)],
}


def _geojson():
    coords = st.lists(st.lists(finite_or_not(-200, 200), max_size=3), max_size=4)
    feature = st.fixed_dictionaries({
        "type": st.sampled_from(["Feature", "feature", 3]),
        "properties": st.one_of(st.dictionaries(st.sampled_from(
            ["highway", "oneway", "maxspeed", "speed", "osm_id", "id", "access"]),
            st.one_of(st.sampled_from(["primary", "yes", "-1", "50 mph", "no"]),
                      finite_or_not(-1e6, 1e6), junk(2)), max_size=3), junk(2)),
        "geometry": st.one_of(st.fixed_dictionaries({
            "type": st.sampled_from(["LineString", "MultiLineString", "Point"]),
            "coordinates": st.one_of(coords, st.lists(coords, max_size=2), junk(3))}),
            junk(2))})
    return st.one_of(
        st.fixed_dictionaries({"type": st.sampled_from(["FeatureCollection", "x"]),
                               "features": st.one_of(st.lists(feature, max_size=3),
                                                     junk(3))}),
        paths(), junk(4))


KEYS = {
    "grid": {
        "rows": st.one_of(st.lists(st.text(".#@GSTW O\t\x00\xe9", max_size=6), max_size=4),
                          junk(4)),
        "array": st.one_of(odd_arrays(max_side=5, max_dims=3),
                           st.lists(st.lists(st.one_of(st.booleans(), finite_or_not()),
                                             max_size=4), max_size=4), junk(4)),
        "map": paths(), "generate": st.one_of(st.sampled_from(["maze", "Maze"]), junk(2)),
        "width": _ints(), "height": _ints(), "seed": st.one_of(_ints(), junk(2)),
        "connectivity": st.one_of(st.sampled_from([4, 8, 6, 4.0, np.int64(8), True]),
                                  junk(2)),
        "diagonal_cost": st.one_of(finite_or_not(), junk(2)), "corner_cutting": _flags(),
        "landmarks": st.one_of(_ints(-2, 20), junk(2)),
    },
    "csr": {
        "src": _int_lists(), "dst": _int_lists(), "cost": _float_lists(),
        "positions": _point_lists(),
        "num_nodes": st.one_of(st.integers(-2, 10), st.sampled_from(
            [2 ** 31 - 2, 2 ** 31 - 1, 2 ** 31, 2 ** 40, 10 ** 30, 3.0, np.int64(5)]), junk(2)),
        "directed": _flags(),
        "heuristic": st.one_of(st.sampled_from(["euclidean", "manhattan", "octile", "zero",
                                                "nope"]), junk(2)),
        "walkable": st.one_of(st.lists(st.booleans(), max_size=5), odd_arrays(5, 2), junk(3)),
    },
    "navmesh": {
        "bounds": st.one_of(st.tuples(*[finite_or_not(-5, 15)] * 4),
                            st.lists(finite_or_not(-5, 15), max_size=5), junk(3)),
        "obstacles": st.one_of(st.lists(_point_lists(-2, 12, 5), max_size=3),
                               _point_lists(-2, 12, 5), junk(4)),
        "walkable": st.one_of(st.lists(_point_lists(-2, 12, 5), max_size=2),
                              _point_lists(-2, 12, 5), junk(3)),
        "vertices": _point_lists(-2, 12, 6),
        "polygons": st.one_of(st.lists(st.lists(st.integers(-2, 6), max_size=5), max_size=3),
                              odd_arrays(4, 2), junk(4)),
        "agent_radius": st.one_of(finite_or_not(-1, 3), junk(2)),
        "tile_size": st.one_of(finite_or_not(-1, 20), st.sampled_from([1e-9, 1e-3, 0, None]),
                               junk(2)),
        "merge": _flags(), "snap": st.one_of(finite_or_not(), junk(2)),
        "map": paths(), "mesh": paths(),
    },
    "roads": {
        "src": _int_lists(), "dst": _int_lists(), "length": _float_lists(),
        "speed": _float_lists(), "cost": _float_lists(),
        "positions": _point_lists(-200, 200), "way": _int_lists(),
        "oneway": st.one_of(_flags(), st.lists(st.booleans(), max_size=4)),
        "profile": st.one_of(st.sampled_from(["car", "bike", "foot", "plane"]),
                             st.dictionaries(st.text(max_size=4), junk(2), max_size=2),
                             junk(2)),
        "weight": st.one_of(st.sampled_from(["time", "distance", "x"]), junk(2)),
        "keep": st.one_of(st.sampled_from(["largest_scc", "all", "x"]), junk(2)),
        "compress": _flags(), "contract": _flags(),
        "geojson": _geojson(), "dimacs": paths(), "osm": paths(), "coords": paths(),
    },
}


def world_kwargs():
    """World(...) keyword arguments, valid and not."""
    return st.fixed_dictionaries({}, optional={
        "autoload": st.one_of(st.none(), st.booleans(), junk(2)),
        "frame_budget_ms": st.one_of(finite_or_not(-1, 10), junk(2)),
        "workers": st.one_of(st.integers(-2, 2), junk(2)),
        "seed": st.one_of(_ints(), junk(2)),
        "warm_up": st.one_of(st.sampled_from([True, False, "background", "bg"]), junk(2)),
        "plugins": st.one_of(st.just(()), st.lists(junk(2), max_size=2), junk(2)),
    })


# -- a world with one graph of each type ---------------------------------------

def base_world():
    w = navcore.World()
    w.add_graph("g", type="grid", rows=ROWS)
    w.add_graph("c", type="csr", src=[0, 1, 2, 3], dst=[1, 2, 3, 0], cost=[1.0, 2.0, 1.0, 5.0],
                positions=[[0, 0], [1, 0], [1, 1], [0, 1]])
    w.add_graph("m", type="navmesh", bounds=(0, 0, 10, 10), obstacles=[RING])
    w.add_graph(("r", 1), type="roads", **VALID["roads"][0])
    return w


def warm_kernels():
    """Every builder variant and algorithm once, so that no fuzzed call
    pays for a kernel's first compile inside its time limit."""
    w = base_world()
    for kind, variants in VALID.items():
        for i, params in enumerate(variants):
            w.add_graph((kind, i), type=kind, **params)
    w.add_graph("ch", type="roads", contract=True, **VALID["roads"][0])
    w.add_graph("lm", type="grid", rows=ROWS, landmarks=2)
    for gid in list(w.graphs):
        g = w.graphs[gid]
        calls = [(w.find_path, (gid, 0, 1), {"algorithm": a}) for a in w.algorithms(gid)]
        calls += [(f, (gid, [0, 1], [1, 0]), {}) for f in (w.distance_matrix,
                                                          w.distance_pairs, w.reachable_many)]
        calls += [(w.path_costs, (gid, [[0, 1]]), {}), (w.areas, (gid,), {})]
        if g.has_positions():
            calls.append((w.nearest_reachable, (gid, g.points_of([0])[0], 0), {}))
        for f, args, kw in calls:
            try:
                f(*args, **kw)
            except navcore.NavError:          # a graph of one node, a view not built
                pass
    return w


def ids(world):
    """Mostly a graph of the world (one call in eight: an id it does not
    hold, or one that cannot be an id; always one of those once earlier
    calls removed every graph)."""
    bad = st.one_of(st.sampled_from(["nope", ("r", 2), float("nan"), None]), junk(2))
    return st.integers(0, 7).flatmap(
        lambda k: st.sampled_from(list(world.graphs)) if k < 7 and world.graphs else bad)


#: point ranges per graph id: where its nodes are
RANGES = {"g": (-2.0, 6.0), "c": (-1.0, 2.0), "m": (-2.0, 12.0), ("r", 1): (7.41, 43.74)}


def _region_rects():
    return st.one_of(st.tuples(*[_ints(-2, 6)] * 4), st.tuples(*[finite_or_not(-2, 12)] * 4),
                     st.lists(_ints(-2, 6), max_size=5), junk(3))


def update_keys(kind):
    gen = {"nodes": node_lists(5), "walkable": _flags(),
           "edges": st.one_of(st.lists(st.tuples(_ints(-1, 5), _ints(-1, 5)), max_size=3),
                              ragged(), odd_arrays(3, 2), junk(3)),
           "cost": st.one_of(finite_or_not(-1, 10), st.lists(finite_or_not(), max_size=4),
                             ragged(), odd_arrays(4, 2), junk(3))}
    valid_nodes = st.lists(st.integers(0, 2), min_size=1, max_size=3)
    gen["nodes"] = st.one_of(valid_nodes, valid_nodes, node_lists(5))
    gen["edges"] = st.one_of(st.just([(0, 1)]), st.just([(0, 1)]), gen["edges"])
    if kind == "grid":
        ok_rect = st.tuples(st.integers(0, 2), st.integers(0, 1), st.integers(1, 2),
                            st.integers(1, 2))
        ok_cells = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1,
                            max_size=3)
        return {**gen, "rect": st.one_of(ok_rect, ok_rect, _region_rects()),
                "cells": st.one_of(ok_cells, ok_cells, st.lists(st.tuples(
                    _ints(-1, 5), _ints(-1, 4)), max_size=4), ragged(), odd_arrays(4, 2),
                    junk(3)),
                "mask": st.one_of(npst.arrays(np.bool_, (3, 4)), npst.arrays(np.bool_, (3, 4)),
                                  ragged(0, 1), odd_arrays(4, 2), junk(2))}
    if kind == "grid":
        return {**gen, "rect": _region_rects(),
                "cells": st.one_of(st.lists(st.tuples(_ints(-1, 5), _ints(-1, 4)), max_size=4),
                                   ragged(), odd_arrays(4, 2), junk(3)),
                "mask": st.one_of(npst.arrays(np.bool_, (3, 4)), ragged(0, 1), odd_arrays(4, 2),
                                  junk(2))}
    if kind == "navmesh":
        return {**gen, "rect": _region_rects(),
                "add_obstacle": st.one_of(_point_lists(-2, 12, 5), junk(3)),
                "obstacle_id": junk(2), "remove_obstacle": junk(2),
                "region": st.one_of(_point_lists(-2, 12, 5), junk(3))}
    if kind == "roads":
        gen["edges"] = st.one_of(st.just([(0, 1)]), st.just([(1, 2)]), gen["edges"])
        return {**gen, "osm_way": st.one_of(_ints(), st.lists(_ints(), max_size=3), ragged(),
                                            junk(2)),
                "bbox": st.one_of(st.tuples(*[finite_or_not(-200, 200)] * 4), junk(3)),
                "rect": st.one_of(st.tuples(*[finite_or_not(-200, 200)] * 4), junk(3)),
                "factor": st.one_of(finite_or_not(-1, 5), junk(2)),
                "speed": st.one_of(finite_or_not(-1, 200), junk(2)), "reset": _flags()}
    return gen


#: per graph type: which keys select what an update changes, and which say how
UPDATE_PAIRS = {
    "grid": (["rect", "cells", "mask"], ["walkable", "cost"]),
    "csr": (["nodes", "edges"], ["walkable", "cost"]),
    "navmesh": (["add_obstacle", "remove_obstacle", "region", "rect", "nodes", "edges"],
                ["walkable", "obstacle_id", "cost"]),
    "roads": (["edges", "osm_way", "bbox", "rect", "nodes"],
              ["cost", "factor", "speed", "reset", "walkable"]),
}


def update_params(kind):
    """Mostly one selecting key and one value key (so that checks past the
    first are reached), sometimes any 1-3 keys."""
    keys = update_keys(kind)
    where, how = UPDATE_PAIRS[kind]
    pair = st.tuples(st.sampled_from(where), st.sampled_from(how)).flatmap(
        lambda kv: st.fixed_dictionaries({kv[0]: keys[kv[0]], kv[1]: keys[kv[1]]}))
    free = st.lists(st.sampled_from(sorted(keys) + ["bogus"]), min_size=1, max_size=3,
                    unique=True).flatmap(
        lambda names: st.fixed_dictionaries({k: keys.get(k, junk(2)) for k in names}))
    return st.one_of(pair, pair, pair, free)


def kind_of(world, gid):
    try:
        return world.graphs[gid].kind
    except Exception:
        return "csr"


@st.composite
def api_calls(draw, world):
    """``(name, args, kwargs)`` of one public World call."""
    name = draw(st.sampled_from(METHODS))
    gid = draw(ids(world))
    try:
        g = world.graphs.get(gid)
    except TypeError:
        g = None
    n = g.num_nodes if g is not None else 5
    lo, hi = RANGES.get(gid, (-2.0, 12.0)) if g is not None else (-2.0, 12.0)
    node = node_like(n, (2,), lo, hi)
    nodes = node_lists(n, (2,), lo, hi)
    if name in ("find_path",):
        kw = {}
        if draw(st.booleans()):
            kw["algorithm"] = draw(st.one_of(st.sampled_from(
                sorted(world._algorithms(g)) if g is not None else ["auto"]),
                st.sampled_from(["auto", "jps", "ch", "xx"]), junk(2)))
        if draw(st.integers(0, 5)) == 5:
            kw.update(draw(st.dictionaries(st.sampled_from(["heuristic", "radius", "x"]),
                                           st.one_of(st.sampled_from(
                                               ["zero", "euclidean", "octile", "bad"]),
                                               junk(2)), max_size=2)))
        return name, (gid, draw(node), draw(node)), kw
    if name in ("reachable", "nearest_reachable"):
        return name, (gid, draw(node), draw(node)), {}
    if name in ("reachable_many", "distance_matrix", "distance_pairs"):
        return name, (gid, draw(nodes), draw(nodes)), {}
    if name in ("area", "locate", "nearest_point"):
        return name, (gid, draw(node)), {}
    if name == "raycast":
        return name, (gid, draw(node), draw(node)), {}
    if name == "random_point":
        return name, (gid, draw(st.one_of(st.none(), st.integers(-3, 2 ** 70), junk(2)))), {}
    if name == "path_costs":
        return name, (gid, draw(st.one_of(st.lists(nodes, max_size=3), junk(3)))), {}
    if name == "update":
        return name, (gid,), draw(update_params(kind_of(world, gid)))
    if name == "tick":
        num = st.one_of(finite_or_not(-1, 5), junk(2))
        return name, tuple(draw(st.lists(num, max_size=2))), {}
    if name == "request_path":
        kw = draw(st.fixed_dictionaries({}, optional={
            "algorithm": st.one_of(st.sampled_from(["auto", "astar", "x"]), junk(2)),
            "repath": _flags(), "callback": st.one_of(st.none(), st.just(print), junk(2))}))
        return name, (gid, draw(node), draw(node)), kw
    return name, (gid,), {}        # areas, algorithms, remove_graph, graph, warm_up


METHODS = ["find_path", "find_path", "reachable", "reachable_many", "area", "areas",
           "nearest_reachable", "distance_matrix", "distance_pairs", "path_costs", "locate",
           "update", "update", "update", "tick", "request_path", "remove_graph", "algorithms",
           "pending_updates", "queued_updates", "graph", "warm_up", "raycast", "random_point",
           "nearest_point"]
