"""3D level navmesh builds (Recast's pipeline) against C++ Recast/Detour and pynavmesh, in one run.

    .venv/bin/python bench/levels.py            # full run (a few minutes)
    .venv/bin/python bench/levels.py --quick    # fewer rounds, no pynavmesh at cs 0.1

Levels: RecastDemo's ``nav_test``, ``dungeon`` and ``undulating``
(``../shared/data/levels``) with RecastDemo's default settings
(``navcore_levels.LevelConfig()``), and ``nav_test`` at cell size 0.1
(914 x 774 cells). Every library gets the same triangles (the OBJ read as
RecastDemo reads it, ``tests/recastpeer.read_obj``).

* C++ Recast/Detour (``../shared/peers/recast``, built by
  ``tests/recastpeer.py`` into ``out/recast_build``): ``recast_bench``, one
  process per round making ``RECAST_BUILDS`` fresh builds, the median of
  its own per-stage wall clock (process start and file reading not
  included).
* navcore: ``navcore_levels.build.build_navmesh_arrays(vertices, triangles,
  config, timings=dict)``, which fills ``timings`` with stage name ->
  seconds; the first call (numba compiling or loading its cache) is
  reported apart. Stage names are matched to Recast's by ``STAGES`` below;
  others are listed as they come.
* pynavmesh (PyPI ``pynavmesh``, module ``pathfinder``; a pure-Python port
  of Recast's pipeline up to the polygon mesh, no detail mesh):
  ``pathfinder.navmesh_baker.NavmeshBaker``: ``add_geometry(vertices,
  triangles)``, ``bake(cell_size=..., ...)`` (RecastDemo's defaults, the
  same names), ``get_polygonization()`` -> (vertices, polygons). Its stages
  are timed by wrapping the stage functions its ``bake`` calls (module
  globals of ``pathfinder.navmesh_baker``). Paths:
  ``pathfinder.navmesh.Navmesh(vertices, polygons).search_path(start,
  end)``: A* between polygon centres, then string pulling (Detour: A*
  between edge midpoints, then its funnel), on the 21 queries of
  RecastDemo's ``nav_mesh_test``; a query end outside its mesh is moved to
  ``Navmesh.sample``'s closest point (Detour clamps within (2, 4, 2)).

Per level: C++ Recast's own stages (as ``recast_bench`` names them), then
the stages of all three side by side (median over rounds, libraries
interleaved within a round; ``to polymesh``: the stages all three have;
``whole build``: Recast's grid..detail stages, navcore's whole call,
pynavmesh's whole ``bake``, which makes no detail mesh), the mesh
(polygons, vertices) and its difference from Recast's
(``recastpeer.mesh_area_difference``, height tolerance = half the agent
height: the area of the symmetric difference, floor by floor, over
Recast's area; the worst floor's in brackets).
``ratio`` = other / Recast (below 1 faster than C++ Recast).

Tiled builds: ``navcore_levels.tiles.build_tiled`` with ``TILE_SIZE``
cells a side (by cell size; small tiles, as run-time obstacles want) and
with a level graph's default (``default_tile_size``), on 0 and 2 worker
threads, interleaved with
the rounds above; their whole call (tiles with their detail meshes,
and the stitch) against Recast's whole solo build, grid..detail
(``recast_bench`` has no tiled build). ``tiled w2 / Recast``: below 1 faster than C++ Recast's
single-threaded solo build.

Results: ``bench/results/levels.json``.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from _common import (fmt_ratio, fmt_s, log, machine, median, now, print_table,  # noqa: E402
                     ratio, versions, write_json)

import recastpeer as rp  # noqa: E402
from navcore_levels import LevelConfig  # noqa: E402

FULL = dict(rounds=5, pynavmesh_rounds=3, query_rounds=101,
            cases=[("nav_test", 0.3), ("dungeon", 0.3), ("undulating", 0.3), ("nav_test", 0.1)],
            pynavmesh_cases=None)
QUICK = dict(rounds=3, pynavmesh_rounds=1, query_rounds=11,
             cases=[("nav_test", 0.3), ("dungeon", 0.3), ("undulating", 0.3), ("nav_test", 0.1)],
             pynavmesh_cases=[("nav_test", 0.3), ("dungeon", 0.3), ("undulating", 0.3)])

#: tile size in cells for the tiled column, by cell size (RecastDemo's
#: Sample_TileMesh lets one choose 16..128)
TILE_SIZE = {0.3: 48, 0.1: 128}
TILE_WORKERS = (0, 2)

#: stage -> (Recast's stage names, pynavmesh's stage functions). navcore's
#: ``timings`` keys are expected to be these stage names.
STAGES = [
    ("rasterize", ["rcCreateHeightfield", "rcMarkWalkableTriangles", "rcRasterizeTriangles"],
     ["create_height_field", "mark_walkable_triangles", "rasterize_triangles"]),
    ("filter", ["rcFilterLowHangingWalkableObstacles", "rcFilterLedgeSpans",
                "rcFilterWalkableLowHeightSpans"],
     ["filter_low_hanging_walkable_obstacles", "filter_ledge_spans",
      "filter_walkable_low_height_spans"]),
    ("compact", ["rcBuildCompactHeightfield"], ["build_compact_heightfield"]),
    ("erode", ["rcErodeWalkableArea"], ["erode_walkable_area"]),
    ("distance_field", ["rcBuildDistanceField"], ["build_distance_field"]),
    ("regions", ["rcBuildRegions", "rcBuildRegionsMonotone", "rcBuildLayerRegions"],
     ["build_regions"]),
    ("contours", ["rcBuildContours"], ["build_contours"]),
    ("polymesh", ["rcBuildPolyMesh"], ["build_poly_mesh"]),
    ("detail", ["rcBuildPolyMeshDetail"], []),
]
#: the stages every library has: the build up to the polygon mesh
TO_POLYMESH = [s for s, _, _ in STAGES if s != "detail"]
QUERIES = rp.LEVELS / "nav_mesh_test.queries"
#: builds per recast_bench run (one run per round)
RECAST_BUILDS = 3


# --------------------------------------------------------------------------
# C++ Recast

def recast_round(obj, cfg):
    """One recast_bench process of RECAST_BUILDS builds (the first build
    of a process pays for fresh pages); each stage's median."""
    r = rp.run_recast(obj, cfg, rounds=RECAST_BUILDS, fresh=True, skip=False)
    out = {}
    for stage, names, _ in STAGES:
        times = [r.stages[n][1] for n in names if n in r.stages]
        if times:
            out[stage] = sum(times)
    return out, r


# --------------------------------------------------------------------------
# navcore

def navcore_builder():
    """``build_navmesh_arrays`` or the reason it is not there."""
    try:
        from navcore_levels.build import build_navmesh_arrays
    except ImportError as exc:
        return None, f"navcore: not built yet ({exc})"
    return build_navmesh_arrays, None


def polymesh_of(result):
    """The PolyMesh in whatever ``build_navmesh_arrays`` returned."""
    from navcore_levels import PolyMesh
    if isinstance(result, PolyMesh):
        return result
    items = result.values() if isinstance(result, dict) else (
        result if isinstance(result, (tuple, list)) else [getattr(result, "polymesh", None)])
    for item in items:
        if isinstance(item, PolyMesh):
            return item
    return None


def navcore_round(build, verts, tris, cfg):
    timings = {}
    t0 = now()
    result = build(verts, tris, cfg, timings=timings)
    return dict(timings), now() - t0, polymesh_of(result)


# --------------------------------------------------------------------------
# pynavmesh

def pynavmesh_available():
    import importlib.util
    try:
        return importlib.util.find_spec("pathfinder.navmesh_baker") is not None
    except ImportError:
        return False


def pynavmesh_round(verts, tris, cfg):
    """One bake with each stage function timed; (stage times, total,
    (vertices, polygons))."""
    import pathfinder.navmesh_baker as nmb

    names = {fn for _, _, fns in STAGES for fn in fns}
    spent = {}
    saved = {name: getattr(nmb, name) for name in names}

    def timed_stage(name, fn):
        def call(*a, **k):
            t = now()
            try:
                return fn(*a, **k)
            finally:
                spent[name] = spent.get(name, 0.0) + now() - t
        return call

    for name, fn in saved.items():
        setattr(nmb, name, timed_stage(name, fn))
    try:
        baker = nmb.NavmeshBaker()
        baker.add_geometry([tuple(v) for v in verts.tolist()], tris.tolist())
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink):
            t0 = now()
            ok = baker.bake(cell_size=cfg.cell_size, cell_height=cfg.cell_height,
                            agent_height=cfg.agent_height, agent_radius=cfg.agent_radius,
                            agent_max_climb=cfg.agent_climb, agent_max_slope=cfg.max_slope,
                            region_min_size=cfg.region_min_size,
                            region_merge_size=cfg.region_merge_size,
                            edge_max_len=cfg.edge_max_len, edge_max_error=cfg.edge_max_error,
                            verts_per_poly=cfg.verts_per_poly,
                            detail_sample_distance=cfg.detail_sample_dist,
                            detail_sample_maximum_error=cfg.detail_sample_max_error)
            total = now() - t0
        if not ok:
            raise RuntimeError(f"pynavmesh bake failed: {sink.getvalue()[:300]}")
        mesh = baker.get_polygonization()
    finally:
        for name, fn in saved.items():
            setattr(nmb, name, fn)
    out = {stage: sum(spent.get(f, 0.0) for f in fns) for stage, _, fns in STAGES if fns}
    return out, total, mesh


def pynavmesh_paths(mesh, rounds):
    """Length and median time of every nav_mesh_test query on pynavmesh's
    mesh; ``snapped``: queries whose ends had to be moved onto it."""
    from pathfinder.navmesh import Navmesh

    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):       # it prints "[Something wrong]" lines
        nm = Navmesh(*mesh)
    out = []
    for line in QUERIES.read_text().splitlines():
        tok = line.split()
        if not tok or tok[0].startswith("#"):
            continue
        s, e = tuple(map(float, tok[:3])), tuple(map(float, tok[3:6]))
        times, path = [], []
        for _ in range(rounds):
            t = now()
            path = nm.search_path(s, e)
            times.append(now() - t)
        snapped = False
        if not path:
            snapped = True
            s2, e2 = nm.sample(s), nm.sample(e)
            path = nm.search_path(s2, e2) if s2 is not None and e2 is not None else []
        pts = np.array(path, dtype=float).reshape(-1, 3)
        length = float(np.linalg.norm(np.diff(pts, axis=0), axis=1).sum()) if len(pts) else None
        out.append({"length": length, "time_s": median(times), "snapped": snapped,
                    "points": len(pts)})
    return out, sink.getvalue()


def query_ends():
    """The nav_mesh_test queries as ``((x, y, z), (x, y, z))`` pairs."""
    out = []
    for line in QUERIES.read_text().splitlines():
        tok = line.split()
        if tok and not tok[0].startswith("#"):
            out.append((tuple(map(float, tok[:3])), tuple(map(float, tok[3:6]))))
    return out


def navcore_paths(obj, cfg, rounds):
    """navcore's answers to the nav_mesh_test queries on a level graph of
    the same settings: ``World.find_path`` with ``polyanya`` (exact, the
    default) and ``funnel`` (Detour's kind), each query's median time of
    ``rounds`` calls (ends located, path searched and lifted to 3D), its
    ground-plane length (``cost``) and 3D length."""
    import navcore
    from navcore_levels import length_3d
    w = navcore.World()
    w.add_graph("lvl", type="level", level=obj, cell_size=cfg.cell_size)
    out = []
    for a, b in query_ends():
        row = {}
        for algo in ("polyanya", "funnel"):
            r = w.find_path("lvl", a, b, algo)
            times = []
            for _ in range(rounds):
                t = now()
                w.find_path("lvl", a, b, algo)
                times.append(now() - t)
            row[algo] = {"length_2d": r.cost if r.found else None,
                         "length_3d": length_3d(r.points) if r.found else None,
                         "time_s": median(times)}
        out.append(row)
    return out


# --------------------------------------------------------------------------

def compare(mesh_verts, mesh_polys, ref, cfg):
    d = rp.mesh_area_difference(mesh_verts, mesh_polys, ref.world_verts, ref.mesh.polys,
                                cfg.agent_height / 2)
    worst = max((f["relative"] for k, f in d.per_floor.items() if k >= 0 and f["area"] > 0),
                default=0.0)
    return {"relative": d.relative, "extra": d.extra, "missing": d.missing,
            "worst_floor": worst, "area_recast": d.area_b}


def bench_case(level, cs, cfg_run, build, use_pyn):
    obj = rp.LEVELS / f"{level}.obj"
    cfg = LevelConfig(cell_size=cs)
    verts, tris = rp.read_obj(obj)
    name = f"{level}" + ("" if cs == 0.3 else f" (cs {cs})")
    row = {"level": level, "cell_size": cs, "name": name, "input_verts": len(verts),
           "input_tris": len(tris)}
    first = None
    if build is not None:
        log(f"{name}: navcore first call")
        _, first, _ = navcore_round(build, verts, tris, cfg)
    times = {"recast": [], "navcore": [], "pynavmesh": []}
    raw = []
    totals = {"recast": [], "navcore": [], "pynavmesh": []}
    meshes = {}
    pyn_rounds = cfg_run["pynavmesh_rounds"] if use_pyn else 0
    for r in range(cfg_run["rounds"]):
        order = ["recast", "navcore", "pynavmesh"]
        k = r % len(order)
        for lib in order[k:] + order[:k]:
            if lib == "recast":
                st, res = recast_round(obj, cfg)
                times["recast"].append(st)
                totals["recast"].append(res.totals["recast_total(grid..detail)"][1])
                raw.append({k: v[1] for k, v in res.stages.items()})
                meshes["recast"] = res
            elif lib == "navcore" and build is not None:
                st, total, pm = navcore_round(build, verts, tris, cfg)
                times["navcore"].append(st)
                totals["navcore"].append(total)
                meshes["navcore"] = pm
            elif lib == "pynavmesh" and r < pyn_rounds:
                log(f"{name}: pynavmesh round {r + 1}/{pyn_rounds}")
                st, total, mesh = pynavmesh_round(verts, tris, cfg)
                times["pynavmesh"].append(st)
                totals["pynavmesh"].append(total)
                meshes["pynavmesh"] = mesh
    ref = meshes["recast"]
    row["grid"] = ref.grid
    row["recast_counts"] = ref.counts
    row["recast_total_s"] = median(totals["recast"])
    row["recast_stages"] = {k: median([r_[k] for r_ in raw]) for k in raw[0]}
    row["rounds"] = {lib: len(runs) for lib, runs in times.items()}
    stage_rows = {}
    for lib, runs in times.items():
        if not runs:
            continue
        keys = {k for run in runs for k in run}
        stage_rows[lib] = {k: median([run.get(k) for run in runs]) for k in keys}
    row["stages"] = stage_rows
    row["navcore_first_call_s"] = first
    row["navcore_total_s"] = median(totals["navcore"])
    row["pynavmesh_total_s"] = median(totals["pynavmesh"])
    row["tiled"] = [case for size in tile_sizes(verts, cs)
                    if (case := tiled_case(verts, tris, cs, size, cfg_run["rounds"]))]
    if "navcore" in meshes and meshes["navcore"] is not None:
        pm = meshes["navcore"]
        row["navcore_mesh"] = {"polys": pm.poly_count, "verts": int(len(pm.verts)),
                               **compare(pm.world_vertices(), pm.polys, ref, cfg)}
    if "pynavmesh" in meshes:
        v, p = meshes["pynavmesh"]
        row["pynavmesh_mesh"] = {"polys": len(p), "verts": len(v),
                                 **compare(np.array(v), p, ref, cfg)}
        if level == "nav_test" and cs == 0.3:
            row["pynavmesh_paths"], row["pynavmesh_printed"] = pynavmesh_paths(
                meshes["pynavmesh"], 5 if cfg_run is QUICK else 21)
    if level == "nav_test" and cs == 0.3:
        q = rp.run_recast(obj, cfg, queries=QUERIES, query_rounds=cfg_run["query_rounds"],
                          fresh=True, skip=False)
        row["detour_paths"] = [{"length": p.len3d, "length_2d": p.len2d,
                                "time_s": p.time_us * 1e-6, "status": p.status}
                               for p in q.paths]
        row["detour_query_median_s"] = q.query_summary["median_us"] * 1e-6
        row["navcore_paths"] = navcore_paths(obj, cfg, cfg_run["query_rounds"])
    return row


def tile_sizes(verts, cs):
    """The tile sizes timed: ``TILE_SIZE``'s (small tiles, for run-time
    obstacles) and a level graph's default (``default_tile_size``)."""
    try:
        from navcore_levels.graph import default_tile_size
    except ImportError:
        return [TILE_SIZE.get(cs, 48)]
    return [TILE_SIZE.get(cs, 48), default_tile_size(verts, LevelConfig(cell_size=cs))]


def tiled_case(verts, tris, cs, size, rounds):
    """Seconds of ``build_tiled`` with ``size``-cell tiles on each of
    ``TILE_WORKERS`` (median of ``rounds``, worker counts interleaved),
    or None without the module."""
    try:
        from navcore_levels.tiles import build_tiled
    except ImportError:
        return None
    cfg = LevelConfig(cell_size=cs, tile_size=size)
    first = build_tiled(verts, tris, cfg)
    times = {w: [] for w in TILE_WORKERS}
    for r in range(rounds):
        for w in (TILE_WORKERS if r % 2 == 0 else TILE_WORKERS[::-1]):
            t0 = now()
            build_tiled(verts, tris, cfg, workers=w)
            times[w].append(now() - t0)
    return {"tile_size": size, "tiles": first.tile_count,
            "polys": first.stitch().mesh.poly_count,
            **{f"w{w}_s": median(t) for w, t in times.items()}}


def stage_table(row):
    st = row["stages"]
    rec, nav, pyn = st.get("recast", {}), st.get("navcore"), st.get("pynavmesh")
    names = [s for s, _, _ in STAGES]
    extra = sorted(set(nav or {}) - set(names))
    out = []
    for s in names + extra:
        r, n, p = rec.get(s), (nav or {}).get(s), (pyn or {}).get(s)
        out.append([s, fmt_s(r), fmt_s(n) if nav is not None else "-",
                    fmt_ratio(ratio(n, r)), fmt_s(p) if pyn is not None and s in pyn else "-",
                    fmt_ratio(ratio(p, r))])

    def upto(d):
        if d is None or any(d.get(s) is None for s in TO_POLYMESH):
            return None
        return sum(d[s] for s in TO_POLYMESH)
    r_poly, n_poly, p_poly = upto(rec), upto(nav), upto(pyn)
    out.append(["**to polymesh**", fmt_s(r_poly), fmt_s(n_poly), fmt_ratio(ratio(n_poly, r_poly)),
                fmt_s(p_poly), fmt_ratio(ratio(p_poly, r_poly))])
    r_all = row["recast_total_s"]
    pyn_all = row["pynavmesh_total_s"]
    out.append(["**whole build**", fmt_s(r_all), fmt_s(row["navcore_total_s"]),
                fmt_ratio(ratio(row["navcore_total_s"], r_all)),
                f"{fmt_s(pyn_all)} (no detail)" if pyn_all is not None else "-", "-"])
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-pynavmesh", action="store_true", help="skip pynavmesh (slow)")
    args = ap.parse_args(argv)
    cfg_run = QUICK if args.quick else FULL
    exe = rp.recast_bench_path(skip=False)
    log(f"recast_bench: {exe}")
    build, why = navcore_builder()
    if why:
        print(why)
    use_pyn = pynavmesh_available() and not args.no_pynavmesh
    if not use_pyn:
        print("pynavmesh: not installed (pip install pynavmesh; the bench extra has it)"
              if not args.no_pynavmesh else "pynavmesh: skipped")
    rows = []
    for level, cs in cfg_run["cases"]:
        pyn_here = use_pyn and (cfg_run["pynavmesh_cases"] is None
                                or (level, cs) in cfg_run["pynavmesh_cases"])
        rows.append(bench_case(level, cs, cfg_run, build, pyn_here))

    print_table("Levels (RecastDemo's meshes and defaults)",
                ["level", "input tris", "grid", "Recast polys / verts / regions",
                 "navcore polys / verts", "navcore area diff (worst floor)",
                 "pynavmesh polys / verts", "pynavmesh area diff (worst floor)"],
                [[r["name"], r["input_tris"], "%d x %d" % tuple(r["grid"]),
                  "{polys} / {verts} / {regions}".format(**r["recast_counts"]),
                  ("%(polys)d / %(verts)d" % r["navcore_mesh"]) if "navcore_mesh" in r else "-",
                  ("%.2f%% (%.2f%%)" % (100 * r["navcore_mesh"]["relative"],
                                        100 * r["navcore_mesh"]["worst_floor"])
                   if "navcore_mesh" in r else "-"),
                  ("%(polys)d / %(verts)d" % r["pynavmesh_mesh"]) if "pynavmesh_mesh" in r else "-",
                  ("%.2f%% (%.2f%%)" % (100 * r["pynavmesh_mesh"]["relative"],
                                        100 * r["pynavmesh_mesh"]["worst_floor"])
                   if "pynavmesh_mesh" in r else "-")] for r in rows])
    names = list(rows[0]["recast_stages"])
    print_table(f"C++ Recast's stages (median over {rows[0]['rounds']['recast']} runs of "
                f"each run's median of {RECAST_BUILDS} builds; "
                f"recast_bench {exe.name})",
                ["stage"] + [r["name"] for r in rows],
                [[n] + [fmt_s(r["recast_stages"].get(n)) for r in rows] for n in names]
                + [["recast_total(grid..detail)"] + [fmt_s(r["recast_total_s"]) for r in rows]])
    for r in rows:
        first = (f"; navcore's first call {fmt_s(r['navcore_first_call_s'])}"
                 if r["navcore_first_call_s"] is not None else "")
        print_table(f"{r['name']}: build stages, median of {r['rounds']['recast']} rounds "
                    f"(pynavmesh {r['rounds']['pynavmesh']}){first}",
                    ["stage", "C++ Recast", "navcore", "ratio", "pynavmesh", "ratio"],
                    stage_table(r))
    tiled = [r for r in rows if r.get("tiled")]
    if tiled:
        def to_poly(r):
            return r["recast_total_s"]
        print_table("Tiled builds (navcore_levels.tiles.build_tiled, whole call, detail "
                    "included) against C++ Recast's whole solo build",
                    ["level", "tile size / tiles", "C++ Recast solo", "navcore solo",
                     "tiled w0", "tiled w2", "tiled w2 / Recast", "w2 / w0"],
                    [[r["name"], "%d / %d" % (t["tile_size"], t["tiles"]),
                      fmt_s(to_poly(r)),
                      fmt_s(r["navcore_total_s"]),
                      fmt_s(t["w0_s"]), fmt_s(t["w2_s"]),
                      fmt_ratio(ratio(t["w2_s"], to_poly(r))),
                      fmt_ratio(ratio(t["w2_s"], t["w0_s"]))]
                     for r in tiled for t in r["tiled"]])
    nav = next((r for r in rows if r["level"] == "nav_test" and r["cell_size"] == 0.3), None)
    if nav and "detour_paths" in nav:
        dp = nav["detour_paths"]
        pp = nav.get("pynavmesh_paths")
        table = []
        for i, d in enumerate(dp):
            p = pp[i] if pp else None
            table.append([i, f"{d['length']:.4f}", fmt_s(d["time_s"]),
                          f"{p['length']:.4f}" + (" (snapped)" if p["snapped"] else "")
                          if p and p["length"] is not None else "-",
                          fmt_ratio(ratio(p["length"], d["length"])) if p else "-",
                          fmt_s(p["time_s"]) if p else "-"])
        print_table("nav_mesh_test: the 21 path queries (length; time per query: Detour nearest "
                    "polys + findPath + findStraightPath, pynavmesh search_path)",
                    ["#", "Detour length", "Detour time", "pynavmesh length", "length ratio",
                     "pynavmesh time"], table)
        npaths = nav.get("navcore_paths")
        if npaths:
            rows_ = []
            for i, (d, n) in enumerate(zip(dp, npaths)):
                e, f = n["polyanya"], n["funnel"]
                rows_.append([i, f"{d['length_2d']:.4f}",
                              f"{e['length_2d']:.4f}" if e["length_2d"] else "-",
                              fmt_ratio(ratio(e["length_2d"], d["length_2d"])),
                              fmt_ratio(ratio(f["length_2d"], d["length_2d"])),
                              fmt_s(d["time_s"]), fmt_s(e["time_s"]),
                              fmt_ratio(ratio(e["time_s"], d["time_s"])),
                              fmt_s(f["time_s"])])
            print_table("nav_mesh_test queries: navcore World.find_path (polyanya: exact; "
                        "funnel: Detour's kind) against Detour, lengths on the ground plane",
                        ["#", "Detour len2d", "polyanya len2d", "polyanya / Detour",
                         "funnel / Detour", "Detour time", "polyanya time", "time ratio",
                         "funnel time"], rows_)
            found = [(n["polyanya"], d) for n, d in zip(npaths, dp) if n["polyanya"]["length_2d"]]
            log(f"navcore polyanya: {len(found)} of {len(dp)} found; length / Detour's "
                f"median {median([e['length_2d'] / d['length_2d'] for e, d in found]):.4f}, "
                f"max {max(e['length_2d'] / d['length_2d'] for e, d in found):.4f}; median "
                f"query time {fmt_s(median([e['time_s'] for e, _ in found]))} (funnel "
                f"{fmt_s(median([n['funnel']['time_s'] for n in npaths]))}) vs Detour "
                f"{fmt_s(nav['detour_query_median_s'])}")
        if pp:
            ratios = [p["length"] / d["length"] for p, d in zip(pp, dp) if p["length"]]
            log(f"pynavmesh path length / Detour's: median {median(ratios):.4f}, "
                f"max {max(ratios):.4f}, {sum(x > 1.0001 for x in ratios)} of {len(ratios)} "
                f"longer; median query time {fmt_s(median([p['time_s'] for p in pp]))} vs "
                f"Detour {fmt_s(nav['detour_query_median_s'])}")
    path = write_json("levels-quick" if args.quick else "levels",
                      {"machine": machine(),
                       "versions": versions("numpy", "numba", "shapely", "pynavmesh"),
                       "recast_bench": str(exe), "navcore": why or "built",
                       "config": {k: v for k, v in cfg_run.items()}, "rows": rows})
    log(f"wrote {path}")


if __name__ == "__main__":
    main()
