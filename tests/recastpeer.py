"""C++ Recast/Detour as the level pipeline's reference: build the peer's
``recast_bench`` (``../shared/peers/recast``), run it on a level and read
what it prints and writes, and measure how far two polygon meshes are apart.

* :func:`recast_bench_path` compiles ``recast_bench`` once per source
  version (the peer README's single ``g++`` command) into
  ``out/recast_build/`` under the repository root, or ``$NAVCORE_RECAST_BUILD``.
  Concurrent callers (two pytest processes, a benchmark) wait on a lock file
  and the executable appears by an atomic rename, so nobody runs a half
  written binary. Without ``g++`` (or the peer's sources) a test is
  skipped, except in CI (``CI`` or ``NAVCORE_REQUIRE_PEERS`` set to
  ``true``/``1``; ``.ci/run`` sets the latter), where it fails.
* :func:`run_recast` runs it (``--out-mesh``, and ``--queries``/
  ``--out-paths`` when given queries) and returns a :class:`RecastResult`:
  stage times, counts, grid size, the polygon mesh as a
  ``navcore_levels.PolyMesh`` and Detour's paths. Results are kept per
  (level file, queries file, settings) for the rest of the process.
* :func:`recast_driver_path` builds another driver that includes
  ``recast_bench.cpp`` the same way; :func:`run_recast_tiles` runs
  ``bench/recast_tiles.cpp``, C++ Recast's per-tile build times.
* :func:`mesh_area_difference` compares two polygon meshes floor by floor
  (see its docstring for the definition); :func:`floors` labels a mesh's
  connected floors.
* :func:`read_obj` reads a level as ``recast_bench`` does (the same
  triangles, for feeding navcore exactly what Recast rasterized).

The benchmark ``bench/levels.py`` uses this module too, so nothing here
needs pytest unless a test is to be skipped.
"""
from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import math
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
RECAST_SRC = SHARED / "peers" / "recast"
LEVELS = SHARED / "data" / "levels"

#: The peer README's build command, without its inputs and output (run in
#: the source directory). -O2 as the README's measured numbers.
CXX_FLAGS = ("-O2", "-DNDEBUG", "-DRC_DISABLE_ASSERTS", "-fno-rtti", "-fno-exceptions",
             "-IRecast/Include", "-IDetour/Include")

#: ``run_recast`` keyword (``navcore_levels.LevelConfig``'s field names) ->
#: ``recast_bench`` option.
OPTIONS = {
    "cell_size": "--cs", "cell_height": "--ch", "agent_height": "--agent-height",
    "agent_radius": "--agent-radius", "agent_climb": "--agent-climb", "max_slope": "--slope",
    "region_min_size": "--region-min", "region_merge_size": "--region-merge",
    "edge_max_len": "--edge-len", "edge_max_error": "--edge-err",
    "verts_per_poly": "--verts-per-poly", "detail_sample_dist": "--detail-dist",
    "detail_sample_max_error": "--detail-err", "partition": "--partition",
    "max_nodes": "--max-nodes", "max_polys": "--max-polys", "clock": "--clock",
}


class RecastPeerError(RuntimeError):
    """recast_bench could not be built or run, or printed something this
    module does not understand."""


def in_ci() -> bool:
    """Whether the peer is required (a missing compiler fails, not skips)."""
    return any(os.environ.get(k, "").strip().lower() in ("1", "true", "yes")
               for k in ("CI", "NAVCORE_REQUIRE_PEERS"))


def build_dir() -> Path:
    env = os.environ.get("NAVCORE_RECAST_BUILD")
    return Path(env) if env else ROOT / "out" / "recast_build"


def _sources(src: Path) -> list[Path]:
    files = [src / "recast_bench.cpp"]
    for lib in ("Recast", "Detour"):
        files += sorted((src / lib / "Source").glob("*.cpp"))
        files += sorted((src / lib / "Include").glob("*.h"))
    return files


def source_hash(src: Path = RECAST_SRC, compiler: str = "g++") -> str:
    """sha256 (16 hex digits) of the peer's sources and headers, the flags
    and the compiler's version line: a new value means a new build."""
    h = hashlib.sha256()
    h.update(" ".join(CXX_FLAGS).encode())
    try:
        version = subprocess.run([compiler, "--version"], capture_output=True, text=True,
                                 timeout=60).stdout.splitlines()[:1]
    except (OSError, subprocess.TimeoutExpired):
        version = []
    h.update(("|".join(version)).encode())
    for f in _sources(src):
        h.update(b"\0" + str(f.relative_to(src)).encode() + b"\0")
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _unavailable(reason: str, skip: bool):
    """Skip the calling test (outside CI, when ``skip``) or raise."""
    if skip and not in_ci():
        import pytest
        pytest.skip(reason)
    if in_ci():
        reason += " (CI or NAVCORE_REQUIRE_PEERS is set: the Recast peer is required)"
    raise RecastPeerError(reason)


def _compiler(src: Path, skip: bool) -> str:
    """The C++ compiler's path (``$CXX``, ``g++`` by default); a missing
    compiler or missing peer sources skip the calling test (``skip``,
    outside CI) or raise :class:`RecastPeerError`."""
    cxx = os.environ.get("CXX", "g++")
    compiler = shutil.which(cxx)
    if not (src / "recast_bench.cpp").is_file():
        _unavailable(f"the Recast peer's sources are not at {src}", skip)
    if compiler is None:
        _unavailable(f"g++ is not installed ({cxx!r} is not on PATH): the Recast peer cannot "
                     f"be built", skip)
    return compiler


def recast_bench_path(*, src: Path = RECAST_SRC, cache: Path | None = None,
                      skip: bool = True) -> Path:
    """Path of a ``recast_bench`` built from ``src``, compiling it first
    when this source version has not been built yet (about 5-30 s).

    A missing ``g++`` or missing sources skip the calling test (``skip``,
    outside CI) or raise :class:`RecastPeerError`; a failed compile always
    raises, with g++'s messages."""
    src = Path(src)
    compiler = _compiler(src, skip)
    cache = Path(cache) if cache is not None else build_dir()
    exe = cache / f"recast_bench-{source_hash(src, compiler)}"
    if os.access(exe, os.X_OK):
        return exe
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as lock:
        # Another process may be compiling the same version: wait for it,
        # then use its result instead of compiling again.
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.access(exe, os.X_OK):
            return exe
        # nobody else is building now: a build-* folder is a killed build's
        for stale in cache.glob("build-*"):
            shutil.rmtree(stale, ignore_errors=True)
        tmp = Path(tempfile.mkdtemp(prefix="build-", dir=cache))
        try:
            cmd = [compiler, *CXX_FLAGS,
                   *(str(p.relative_to(src)) for p in _sources(src) if p.suffix == ".cpp"),
                   "-o", str(tmp / "recast_bench")]
            r = subprocess.run(cmd, cwd=src, capture_output=True, text=True)
            if r.returncode != 0:
                raise RecastPeerError(f"building recast_bench failed ({' '.join(cmd)}):\n"
                                      f"{r.stderr[-4000:]}")
            os.replace(tmp / "recast_bench", exe)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        for old in cache.glob("recast_bench-*"):
            if old != exe:
                old.unlink(missing_ok=True)
    return exe


def recast_driver_path(driver: Path, name: str, *, src: Path = RECAST_SRC,
                       cache: Path | None = None, skip: bool = True) -> Path:
    """Path of the C++ driver ``driver`` (a ``.cpp`` that includes
    ``recast_bench.cpp``, as ``bench/recast_tiles.cpp`` does) built with
    the peer's Recast and Detour sources, with ``CXX_FLAGS``, once per
    version of the driver and the sources, as ``name-<hash>`` in the
    build folder (``recast_bench_path``'s rules for a missing compiler or
    sources, its lock and atomic rename)."""
    src = Path(src)
    driver = Path(driver).resolve()
    compiler = _compiler(src, skip)
    digest = hashlib.sha256((source_hash(src, compiler) + "\0").encode())
    digest.update(driver.read_bytes())
    cache = Path(cache) if cache is not None else build_dir()
    exe = cache / f"{name}-{digest.hexdigest()[:16]}"
    if os.access(exe, os.X_OK):
        return exe
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)        # another process may be building it
        if os.access(exe, os.X_OK):
            return exe
        for stale in cache.glob(f"{name}-build-*"):          # a killed build's
            shutil.rmtree(stale, ignore_errors=True)
        tmp = Path(tempfile.mkdtemp(prefix=f"{name}-build-", dir=cache))
        try:
            cmd = [compiler, *CXX_FLAGS, "-I.", str(driver),
                   *(str(p.relative_to(src)) for p in _sources(src)
                     if p.suffix == ".cpp" and p.name != "recast_bench.cpp"),
                   "-o", str(tmp / name)]
            r = subprocess.run(cmd, cwd=src, capture_output=True, text=True)
            if r.returncode != 0:
                raise RecastPeerError(f"building {name} failed ({' '.join(cmd)}):\n"
                                      f"{r.stderr[-4000:]}")
            os.replace(tmp / name, exe)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        for old in cache.glob(f"{name}-*"):
            if old != exe and old.is_file():
                old.unlink(missing_ok=True)
    return exe


#: the per-tile timing driver (``recast_tiles``)
TILES_DRIVER = ROOT / "bench" / "recast_tiles.cpp"


@dataclass
class RecastTiles:
    """What ``recast_tiles`` printed: ``tiles_x`` x ``tiles_z`` tiles,
    ``built`` of them with triangles; per built tile (rows in tile order)
    ``tile`` (index ``tz * tiles_x + tx``), ``polys`` and the median
    ``pre_ms`` (rasterize .. compact), ``post_ms`` (erode .. detail) and
    ``total_ms`` over the rounds."""
    tiles_x: int
    tiles_z: int
    built: int
    with_polys: int
    tile: np.ndarray
    polys: np.ndarray
    pre_ms: np.ndarray
    post_ms: np.ndarray
    total_ms: np.ndarray


def run_recast_tiles(obj_path, tile_size: int, *, rounds: int = 5, cell_size: float = 0.3,
                     skip: bool = True, timeout: float = 600) -> RecastTiles:
    """C++ Recast's build of every tile of ``obj_path`` (RecastDemo's
    settings, ``cell_size``, tiles of ``tile_size`` cells), timed per tile
    (``bench/recast_tiles.cpp``)."""
    exe = recast_driver_path(TILES_DRIVER, "recast_tiles", skip=skip)
    cmd = [str(exe), str(obj_path), str(int(tile_size)), str(int(rounds)), repr(float(cell_size))]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RecastPeerError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-4000:]}")
    rows, last = [], None
    for line in r.stdout.splitlines():
        parts = line.split()
        if parts[:1] == ["tile"] and len(parts) == 7:
            rows.append([float(v) for v in parts[1:]])
        elif parts[:1] == ["tiles"] and len(parts) == 5:
            last = [int(v) for v in parts[1:]]
        else:
            raise RecastPeerError(f"recast_tiles printed a line this module does not read: "
                                  f"{line!r}")
    if last is None:
        raise RecastPeerError("recast_tiles printed no 'tiles' line")
    a = np.array(rows, dtype=float).reshape(-1, 6)
    return RecastTiles(last[0], last[1], last[2], last[3],
                       (a[:, 1] * last[0] + a[:, 0]).astype(np.int64), a[:, 2].astype(np.int64),
                       a[:, 3], a[:, 4], a[:, 5])


# --------------------------------------------------------------------------
# Running and parsing

@dataclass
class DetourPath:
    """One query line of ``--out-paths``."""
    index: int
    status: str              # ok, partial, nopoly, fail
    path_status: int         # findPath's dtStatus
    npolys: int              # corridor polygons
    points: np.ndarray       # (npoints, 3) float64 straight-path points
    len3d: float
    len2d: float
    time_us: float
    nearest_us: float
    path_us: float
    straight_us: float


@dataclass
class RecastResult:
    """What one ``recast_bench`` run printed and wrote.

    ``stages``: stage name -> (min, median) seconds over the rounds, in
    the pipeline's order (``rcCalcGridSize`` .. ``dtNavMesh_init+query_init``);
    ``totals``: ``recast_total(grid..detail)``, ``total(all_stages)``,
    ``total_thread_cpu`` the same way. ``counts``: polys, verts,
    detail_tris, detail_verts, regions, contours. ``grid``: (width, height)
    cells. ``voxel_units``: the ``# voxel units`` line (walkable_height,
    ...). ``mesh``: the polygon mesh (``PolyMesh``; areas are Recast's,
    ``WALKABLE_AREA`` for Detour's ground area 0), ``world_verts`` its
    vertices in world units as Detour computes them (float32 arithmetic),
    ``detour_areas``/``flags`` the Detour area and flags per polygon.
    ``paths``: Detour's answers when queries were given, ``query_summary``
    the ``queries ...`` line's numbers.
    """
    level: Path
    settings: dict
    input_verts: int
    input_tris: int
    grid: tuple
    voxel_units: dict
    stages: dict
    totals: dict
    counts: dict
    mesh: object
    world_verts: np.ndarray
    detour_areas: np.ndarray
    flags: np.ndarray
    paths: list = field(default_factory=list)
    query_summary: dict = field(default_factory=dict)
    stdout: str = ""

    @property
    def path_lengths(self) -> np.ndarray:
        """len3d of every query (nan where Detour found no polygon)."""
        return np.array([p.len3d for p in self.paths], dtype=np.float64)


_RESULTS: dict = {}


def _file_hash(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _cli_value(name, value) -> str:
    if name in ("partition", "clock"):
        return str(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"recast setting {name} must be a finite number, got {value!r}")
    return repr(float(value)) if isinstance(value, float) else str(int(value))


def run_recast(obj_path, config=None, *, queries=None, rounds: int = 1, query_rounds: int = 1,
               skip: bool = True, fresh: bool = False, **settings) -> RecastResult:
    """Build ``obj_path``'s navmesh with ``recast_bench`` and read the
    result. Settings are ``navcore_levels.LevelConfig`` field names, from
    ``config`` (a ``LevelConfig``) and/or keywords (keywords win); unset
    ones keep RecastDemo's defaults. ``tile_size`` must be 0 (the peer
    builds one tile). ``queries``: a ``--queries`` file to run on the built
    navmesh. ``rounds``/``query_rounds``: repetitions (timings only; the
    mesh is the last build's). Results are cached for the process per
    (file contents, settings, rounds); ``fresh`` runs again anyway (for
    timings) and caches the new result."""
    obj_path = Path(obj_path)
    merged = {}
    if config is not None:
        merged.update(dataclasses.asdict(config))
    merged.update(settings)
    if merged.pop("tile_size", 0) not in (0, None):
        raise ValueError("recast_bench builds one tile: tile_size must be 0")
    unknown = sorted(set(merged) - set(OPTIONS))
    if unknown:
        raise ValueError(f"unknown recast settings {unknown}; known: {sorted(OPTIONS)}")
    args = []
    for name in sorted(merged):
        args += [OPTIONS[name], _cli_value(name, merged[name])]
    key = (_file_hash(obj_path), _file_hash(queries) if queries else None, tuple(args),
           int(rounds), int(query_rounds))
    if key in _RESULTS and not fresh:
        return _RESULTS[key]
    exe = recast_bench_path(skip=skip)
    with tempfile.TemporaryDirectory(prefix="recast-run-") as tmp:
        mesh_file = Path(tmp) / "mesh.txt"
        paths_file = Path(tmp) / "paths.txt"
        cmd = [str(exe), str(obj_path), *args, "--rounds", str(int(rounds)),
               "--out-mesh", str(mesh_file)]
        if queries:
            cmd += ["--queries", str(queries), "--out-paths", str(paths_file),
                    "--query-rounds", str(int(query_rounds))]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RecastPeerError(f"{' '.join(cmd)} exited with {r.returncode}:\n{r.stderr}")
        result = parse_stdout(r.stdout)
        mesh, world, dareas, flags = parse_mesh(mesh_file.read_text())
        paths = parse_paths(paths_file.read_text()) if queries else []
    result = RecastResult(level=obj_path, settings=merged, mesh=mesh, world_verts=world,
                          detour_areas=dareas, flags=flags, paths=paths, stdout=r.stdout,
                          **result)
    if result.counts.get("polys") != mesh.poly_count:
        raise RecastPeerError(f"stdout counts {result.counts} but the mesh file has "
                              f"{mesh.poly_count} polygons")
    _RESULTS[key] = result
    return result


def _numbers(tokens, what):
    try:
        return [float(t) for t in tokens]
    except ValueError:
        raise RecastPeerError(f"recast_bench output: expected numbers in {what}: {tokens}") \
            from None


def _pairs(tokens) -> dict:
    """``name value name value ...`` -> dict of numbers."""
    out = {}
    for k, v in zip(tokens[::2], tokens[1::2]):
        num = float(v)
        out[k.rstrip(":")] = int(num) if num.is_integer() else num
    return out


def parse_stdout(text: str) -> dict:
    """The fields of :class:`RecastResult` that stdout carries."""
    out = {"stages": {}, "totals": {}, "counts": {}, "query_summary": {}, "voxel_units": {}}
    in_table = False
    for line in text.splitlines():
        tok = line.split()
        if not tok:
            continue
        if line.startswith("# recast_bench "):
            # "# recast_bench PATH: 884 verts, 1612 tris (load 0.9 ms)"
            head = line.rsplit(": ", 1)[1].split()
            out["input_verts"], out["input_tris"] = int(head[0]), int(head[2])
        elif line.startswith("# bounds "):
            grid = line.split("grid", 1)[1].split()
            out["grid"] = (int(grid[0]), int(grid[2]))
        elif line.startswith("# voxel units:"):
            out["voxel_units"] = _pairs(tok[3:])
        elif tok[0] == "stage":
            in_table = True
        elif tok[0] == "counts":
            in_table = False
            out["counts"] = {k: int(v) for k, v in _pairs(tok[1:]).items()}
        elif tok[0] == "queries":
            # "queries 21 ok 21 partial 0 nopoly 0 fail 0; per query median_us 1.9
            #  (nearest 0.48 path 0.93 straight 0.41), 5 rounds"
            clean = line.replace(";", " ").replace("(", " ").replace(")", " ").replace(",", " ")
            words = clean.split()
            summary = _pairs(words[:10])
            i = words.index("median_us")
            summary["median_us"] = float(words[i + 1])
            for part in ("nearest", "path", "straight"):
                summary[part + "_us"] = float(words[words.index(part, i) + 1])
            out["query_summary"] = summary
        elif in_table and not line.startswith("#"):
            if len(tok) != 3:
                raise RecastPeerError(f"recast_bench stage line not understood: {line!r}")
            lo, med = _numbers(tok[1:], line)
            target = "totals" if "total" in tok[0] else "stages"
            out[target][tok[0]] = (lo / 1e3, med / 1e3)
    missing = {"input_verts", "grid", "counts"} - {k for k, v in out.items() if v != {}}
    if missing or not out["stages"]:
        raise RecastPeerError(f"recast_bench stdout lacks {sorted(missing) or 'stage times'}:\n"
                              f"{text[:2000]}")
    return out


def parse_mesh(text: str):
    """``--out-mesh`` text -> (PolyMesh, world verts (V, 3) float64,
    Detour areas (P,) uint8, flags (P,) uint16)."""
    from navcore_levels.heightfield import PolyMesh, WALKABLE_AREA

    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    head = {}
    i = 0
    while i < len(lines) and not lines[i].startswith("polys "):
        tok = lines[i].split()
        if tok[0] == "cs":
            head.update(_pairs(tok))
        elif tok[0] in ("bmin", "bmax"):
            head[tok[0]] = np.array(_numbers(tok[1:], lines[i]), dtype=np.float64)
        elif tok[0] == "nvp":
            head["nvp"] = int(tok[1])
        elif tok[0] == "verts":
            nv = int(tok[1])
            rows = np.array([_numbers(ln.split(), "a vertex line")
                             for ln in lines[i + 1:i + 1 + nv]], dtype=np.float64).reshape(nv, 6)
            head["verts"] = rows
            i += nv
        i += 1
    if i >= len(lines) or "verts" not in head or "nvp" not in head:
        raise RecastPeerError("recast_bench mesh file lacks its nvp, verts or polys section")
    npolys = int(lines[i].split()[1])
    nvp = head["nvp"]
    polys = np.full((npolys, nvp), -1, np.int32)
    nei = np.full((npolys, nvp), -1, np.int32)
    dareas = np.zeros(npolys, np.uint8)
    flags = np.zeros(npolys, np.uint16)
    regions = np.zeros(npolys, np.int32)
    for p, ln in enumerate(lines[i + 1:i + 1 + npolys]):
        tok = [int(t) for t in ln.split()]
        n = tok[0]
        if len(tok) != 1 + 2 * n + 3 or not 3 <= n <= nvp:
            raise RecastPeerError(f"recast_bench mesh file: polygon line {p} not understood: "
                                  f"{ln!r}")
        polys[p, :n] = tok[1:1 + n]
        nei[p, :n] = tok[1 + n:1 + 2 * n]
        dareas[p], flags[p], regions[p] = tok[1 + 2 * n:]
    if len(lines) < i + 1 + npolys:
        raise RecastPeerError(f"recast_bench mesh file: {npolys} polygons announced, "
                              f"{len(lines) - i - 1} found")
    v = head["verts"]
    areas = np.where(dareas == 0, WALKABLE_AREA, dareas).astype(np.uint8)
    mesh = PolyMesh(verts=v[:, 3:].astype(np.int32), polys=polys, neighbors=nei, regions=regions,
                    areas=areas, nvp=nvp, bmin=head["bmin"], cs=float(head["cs"]),
                    ch=float(head["ch"]), border_size=0)
    return mesh, v[:, :3].copy(), dareas, flags


def parse_paths(text: str) -> list:
    """``--out-paths`` text -> [DetourPath, ...] in query order."""
    out = []
    for ln in text.splitlines():
        if not ln.strip() or ln.startswith("#"):
            continue
        tok = ln.split()
        npoints = int(tok[4])
        nums = _numbers(tok[5:], f"path line {tok[0]}")
        if len(nums) != 6 + 3 * npoints:
            raise RecastPeerError(f"recast_bench path line {tok[0]}: {npoints} points announced, "
                                  f"{(len(nums) - 6) / 3:g} found")
        out.append(DetourPath(index=int(tok[0]), status=tok[1], path_status=int(tok[2], 16),
                              npolys=int(tok[3]),
                              points=np.array(nums[6:], dtype=np.float64).reshape(npoints, 3),
                              len3d=nums[0], len2d=nums[1], time_us=nums[2], nearest_us=nums[3],
                              path_us=nums[4], straight_us=nums[5]))
    return out


def read_obj(path):
    """(vertices (V, 3) float64, triangles (T, 3) int32) of an OBJ file read
    as ``recast_bench`` (RecastDemo) reads it: ``v`` and ``f`` lines only,
    ``a/t/n`` indices, negative indices relative to the vertices so far,
    faces fan-triangulated ``(0, i-1, i)``, triangles with an index out of
    range dropped. Coordinates are rounded to float32, the values Recast
    computes with."""
    verts, tris = [], []
    for raw in Path(path).read_text().replace("\t", " ").replace("\r", " ").splitlines():
        tok = raw.split()
        if not tok:
            continue
        if tok[0] == "v" and len(tok) >= 4:
            try:
                verts.append((float(tok[1]), float(tok[2]), float(tok[3])))
            except ValueError:
                continue
        elif tok[0] == "f":
            nv = len(verts)
            face = []
            for t in tok[1:]:
                head = t.split("/", 1)[0]
                try:
                    idx = int(head)
                except ValueError:
                    idx = 0
                face.append(idx + nv if idx < 0 else idx - 1)
            for k in range(2, len(face)):
                tri = (face[0], face[k - 1], face[k])
                if all(0 <= x < nv for x in tri):
                    tris.append(tri)
    v = np.array(verts, dtype=np.float32).astype(np.float64).reshape(-1, 3)
    return v, np.array(tris, dtype=np.int32).reshape(-1, 3)


# --------------------------------------------------------------------------
# Comparing meshes

def _poly_lists(polys):
    out = []
    for p in polys:
        p = [int(v) for v in p]
        if -1 in p:
            p = p[:p.index(-1)]
        out.append(p)
    return out


def floors(polys, neighbors=None) -> np.ndarray:
    """(P,) int32 label of each polygon's floor: the connected pieces of
    the mesh, polygons joined through ``neighbors`` (-1 = wall) or, when
    not given, through shared edges (the same two vertex indices). Labels
    are 0.. in order of each floor's first polygon."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    plist = _poly_lists(polys)
    n = len(plist)
    a, b = [], []
    if neighbors is not None:
        for p, row in enumerate(np.asarray(neighbors)):
            for q in row[:len(plist[p])]:
                if q >= 0:
                    a.append(p)
                    b.append(int(q))
    else:
        owner = {}
        for p, vs in enumerate(plist):
            for j in range(len(vs)):
                e = tuple(sorted((vs[j], vs[(j + 1) % len(vs)])))
                if e in owner:
                    a.append(owner[e])
                    b.append(p)
                else:
                    owner[e] = p
    if n == 0:
        return np.zeros(0, np.int32)
    g = coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n))
    _, labels = connected_components(g, directed=False)
    # renumber in order of first appearance
    _, first = np.unique(labels, return_index=True)
    order = np.argsort(first)
    remap = np.empty_like(order)
    remap[order] = np.arange(len(order))
    return remap[labels].astype(np.int32)


def _planes(verts, plist):
    """Per polygon: (centroid x, centroid z, a, b, c) of the least-squares
    plane ``y = c + a*(x - cx) + b*(z - cz)`` through its vertices (a = b
    = 0, c = mean height, when the vertices are collinear in x-z)."""
    out = np.zeros((len(plist), 5))
    for i, vs in enumerate(plist):
        pts = verts[vs]
        cx, cz = pts[:, 0].mean(), pts[:, 2].mean()
        m = np.column_stack([pts[:, 0] - cx, pts[:, 2] - cz, np.ones(len(pts))])
        if len(pts) >= 3 and np.linalg.matrix_rank(m[:, :2], tol=1e-9) == 2:
            (a, b, c), *_ = np.linalg.lstsq(m, pts[:, 1], rcond=None)
        else:
            a = b = 0.0
            c = pts[:, 1].mean()
        out[i] = cx, cz, a, b, c
    return out


def _height(plane, x, z):
    cx, cz, a, b, c = plane
    return c + a * (x - cx) + b * (z - cz)


def _shapes(verts, plist):
    import shapely
    geoms = []
    for vs in plist:
        g = shapely.Polygon(verts[vs][:, [0, 2]]) if len(vs) >= 3 else shapely.Polygon()
        if not g.is_valid:
            g = shapely.make_valid(g)
        geoms.append(g)
    return np.array(geoms, dtype=object)


@dataclass
class AreaDifference:
    """:func:`mesh_area_difference`'s answer. Areas are in projection
    (x-z), in world units squared.

    ``area_a``/``area_b``: total polygon area of each mesh (overlapping
    floors both counted). ``extra``: area of A matched by no polygon of B;
    ``missing``: area of B matched by no polygon of A. ``relative`` =
    (extra + missing) / area_b. ``unmatched_a`` (P_a,) / ``unmatched_b``
    (P_b,): each polygon's unmatched area. ``floors_b``: B's floor label per
    polygon (:func:`floors`); ``per_floor``: for each floor ``f`` of B,
    ``{"area", "missing", "extra", "relative"}`` where ``extra`` is the
    unmatched area of A's polygons whose matched overlap lies mostly on
    ``f``; A's polygons that match nothing at all (a floor B lacks) are
    under the key ``-1`` (``area`` 0, ``relative`` their extra over
    area_b)."""
    area_a: float
    area_b: float
    extra: float
    missing: float
    relative: float
    unmatched_a: np.ndarray
    unmatched_b: np.ndarray
    floors_b: np.ndarray
    per_floor: dict


def mesh_area_difference(verts_a, polys_a, verts_b, polys_b, height_tolerance: float
                         ) -> AreaDifference:
    """How much two polygon meshes differ, as the area of their symmetric
    difference, floor by floor; B is the reference (Recast's mesh).

    ``verts_*``: (V, 3) world coordinates, y up. ``polys_*``: vertex
    indices per polygon, an (P, n) array padded with -1 or a list of lists.

    Definition: a polygon p of A and a polygon q of B *match where they
    overlap* when their projections onto the x-z plane overlap with a
    positive area O = proj(p) ∩ proj(q) and their heights there differ by
    at most ``height_tolerance``: each polygon's height is its least-squares
    plane through its vertices (its mean vertex height when the vertices
    are collinear in x-z), both evaluated at O's centroid. The part of p
    covered by matching polygons of B is the union of those overlaps;
    what is left of p is A's *extra* area, and the same the other way round
    gives B's *missing* area. Overlap in projection alone never matches: a
    bridge over a road, or two storeys, are different floors unless their
    heights are within the tolerance, so a mesh with one floor of a
    two-storey level misses the other floor's whole area. The symmetric
    difference is extra + missing, reported over B's area (``relative``)
    and per floor of B (:class:`AreaDifference`). Identical meshes, or the
    same surface cut into different convex polygons, give 0.
    """
    import shapely

    va = np.asarray(verts_a, dtype=np.float64).reshape(-1, 3)
    vb = np.asarray(verts_b, dtype=np.float64).reshape(-1, 3)
    pa, pb = _poly_lists(polys_a), _poly_lists(polys_b)
    ga, gb = _shapes(va, pa), _shapes(vb, pb)
    plane_a, plane_b = _planes(va, pa), _planes(vb, pb)
    area_a = shapely.area(ga) if len(ga) else np.zeros(0)
    area_b = shapely.area(gb) if len(gb) else np.zeros(0)
    covered_a = [[] for _ in pa]
    covered_b = [[] for _ in pb]
    # matched overlap area of each A polygon per B polygon, for the floors
    match_area = {}
    if len(ga) and len(gb):
        tree = shapely.STRtree(gb)
        ia, ib = tree.query(ga, predicate="intersects")
        if len(ia):
            inter = shapely.intersection(ga[ia], gb[ib])
            for i, j, o in zip(ia, ib, inter):
                for piece in getattr(o, "geoms", [o]):
                    if piece.geom_type != "Polygon" or piece.area <= 1e-12:
                        continue
                    c = piece.centroid
                    dh = abs(_height(plane_a[i], c.x, c.y) - _height(plane_b[j], c.x, c.y))
                    if dh <= height_tolerance:
                        covered_a[i].append(piece)
                        covered_b[j].append(piece)
                        match_area[(i, j)] = match_area.get((i, j), 0.0) + piece.area

    def unmatched(geoms, areas, covered):
        out = np.zeros(len(geoms))
        for k, (g, pieces) in enumerate(zip(geoms, covered)):
            if not pieces:
                out[k] = areas[k]
            else:
                out[k] = max(0.0, shapely.difference(g, shapely.union_all(pieces)).area)
        return out

    un_a = unmatched(ga, area_a, covered_a)
    un_b = unmatched(gb, area_b, covered_b)
    fb = floors(pb) if pb else np.zeros(0, np.int32)
    total_b = float(area_b.sum())
    per_floor = {}
    for f in np.unique(fb):
        sel = fb == f
        per_floor[int(f)] = {"area": float(area_b[sel].sum()), "missing": float(un_b[sel].sum()),
                             "extra": 0.0}
    per_floor[-1] = {"area": 0.0, "missing": 0.0, "extra": 0.0}
    best = {}
    for (i, j), a in match_area.items():
        f = int(fb[j])
        best.setdefault(i, {}).setdefault(f, 0.0)
        best[i][f] += a
    for i in range(len(pa)):
        f = max(best[i], key=best[i].get) if i in best else -1
        per_floor[f]["extra"] += float(un_a[i])
    for rec in per_floor.values():
        diff = rec["missing"] + rec["extra"]
        rec["relative"] = diff / rec["area"] if rec["area"] > 0 else (
            diff / total_b if total_b > 0 else (0.0 if diff == 0 else math.inf))
    extra, missing = float(un_a.sum()), float(un_b.sum())
    rel = (extra + missing) / total_b if total_b > 0 else (0.0 if extra + missing == 0
                                                           else math.inf)
    return AreaDifference(area_a=float(area_a.sum()), area_b=total_b, extra=extra,
                          missing=missing, relative=rel, unmatched_a=un_a, unmatched_b=un_b,
                          floors_b=fb, per_floor=per_floor)
