"""Mutation fuzz of every file loader: real files (MovingAI maps
and scenarios, the scenes and their maps, a Polyanya mesh, DIMACS, GeoJSON
and OSM XML cut from the Monaco extract) with bytes flipped, numbers
replaced, lines dropped, doubled or swapped. Each load either works or
raises a NavError that names the file (and a line inside it, when it gives
one), leaving the world unchanged."""
import gzip
import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import navcore
from navcore_grid.mapfile import read_scen

import fuzzkit as kit

pytestmark = pytest.mark.fuzz

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
FILE_ERRORS = (navcore.MapFormatError, navcore.MeshFormatError, navcore.SceneError)

#: what a mutation may write in: numbers at the limits, bytes no text has,
#: YAML and XML syntax, a long run
TOKENS = [b"-1", b"0", b"1", b"99999999999999999999", b"1e309", b"nan", b"inf", b"-inf",
          b"2147483648", b"4294967296", b"-0", b"1.5", b"10000000", b"1e-320", b"\x00",
          b"\xff\xfe", b"@", b"", b"a" * 300, b"9" * 70, b"9" * 400, b"9" * 5000, b"{", b"[", b"]", b"}", b":", b"- ",
          b"*a", b"&a ", b"!!python/object:os.system", b"<", b"</osm>", b"&amp;", b'"',
          b"\t", b"\r\n", b"\n\n", b"#", b"p sp 1 1", b"a 1 2 3", b"version 1",
          b'{"type": "Feature"}', b"null", b"true", b"[[0, 0], [1, 1]]"]
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


@st.composite
def mutations(draw):
    """A list of (op, where, payload) edits, applied in order by ``apply``."""
    op = st.sampled_from(["flip", "insert", "delete", "number", "number", "dupline",
                          "delline", "swaplines", "truncate", "replace"])
    where = st.integers(0, 10 ** 6)
    payload = st.one_of(st.sampled_from(TOKENS), st.binary(max_size=4))
    return draw(st.lists(st.tuples(op, where, where, payload), min_size=1, max_size=4))


def apply(data: bytes, edits) -> bytes:
    for op, a, b, token in edits:
        n = max(len(data), 1)
        i = a % n
        if op == "flip":
            data = data[:i] + bytes([(data[i:i + 1] or b"\0")[0] ^ (1 << b % 8)]) + data[i + 1:]
        elif op == "insert":
            data = data[:i] + token + data[i:]
        elif op == "delete":
            data = data[:i] + data[i + 1 + b % 16:]
        elif op == "truncate":
            data = data[:i]
        elif op == "replace":
            data = data[:i] + token + data[i + len(token):]
        elif op == "number":
            nums = list(_NUMBER.finditer(data))
            if nums:
                m = nums[a % len(nums)]
                data = data[:m.start()] + (token if b % 3 else
                                           TOKENS[b % 14]) + data[m.end():]
        else:
            lines = data.split(b"\n")
            j, k = a % len(lines), b % len(lines)
            if op == "dupline":
                lines.insert(j, lines[j] * (1 + b % 3))
            elif op == "delline":
                del lines[j]
            else:
                lines[j], lines[k] = lines[k], lines[j]
            data = b"\n".join(lines)
    return data


# -- the corpus: small real files ------------------------------------------------

def _dimacs(tmp):
    """The first 40 arcs of Monaco's .gr with a header that fits them, and
    the coordinates of the nodes they name."""
    gr = (SHARED / "roads" / "monaco.gr").read_bytes().split(b"\n")
    arcs = [ln for ln in gr if ln.startswith(b"a ")][:40]
    n = max(max(int(w) for w in ln.split()[1:3]) for ln in arcs)
    (tmp / "small.gr").write_bytes(b"c cut from monaco.gr\np sp %d %d\n" % (n, len(arcs))
                                   + b"\n".join(arcs) + b"\n")
    co = (SHARED / "roads" / "monaco.co").read_bytes().split(b"\n")
    vs = [ln for ln in co if ln.startswith(b"v ") and int(ln.split()[1]) <= n]
    (tmp / "small.co").write_bytes(b"p aux sp co %d\n" % n + b"\n".join(vs) + b"\n")


def _osm(tmp):
    """Monaco's extract cut to its first 120 nodes and first 6 ways."""
    text = gzip.decompress((ROOT / "scenes" / "maps" / "monaco.osm.gz").read_bytes())
    lines = text.split(b"\n")
    head = [ln for ln in lines[:3] if ln.lstrip().startswith((b"<?xml", b"<osm"))]
    nodes = [m.group(0) for m in re.finditer(rb"<node\b[^>]*?/>", text)][:120]
    ways = [m.group(0) for m in re.finditer(rb"<way\b.*?</way>", text, re.S)][:6]
    (tmp / "small.osm").write_bytes(b"\n".join(head + nodes + ways + [b"</osm>", b""]))


def _geojson(tmp):
    co = (SHARED / "roads" / "monaco.co").read_text().split("\n")
    pts = [[int(w[2]) / 1e6, int(w[3]) / 1e6] for w in (ln.split() for ln in co)
           if w and w[0] == "v"][:12]
    feats = [{"type": "Feature", "id": f"way/{i}",
              "properties": {"highway": hw, "oneway": i % 3 == 0, "maxspeed": "30"},
              "geometry": {"type": "LineString", "coordinates": pts[i:i + 3]}}
             for i, hw in zip(range(0, 10, 2), ["primary", "residential", "service",
                                                "footway", "tertiary"])]
    (tmp / "small.geojson").write_text(json.dumps({"type": "FeatureCollection",
                                                   "features": feats}, indent=1))


def make_corpus(tmp: Path) -> Path:
    """The corpus files in the folder ``tmp`` (atheris_loaders.py uses it too)."""
    shutil.copy(ROOT / "scenes" / "maps" / "dungeon.map", tmp / "small.map")
    scen = (SHARED / "movingai" / "arena.map.scen").read_bytes().split(b"\n")[:30]
    (tmp / "small.scen").write_bytes(b"\n".join(scen) + b"\n")
    shutil.copy(SHARED / "navmesh" / "arena.mesh", tmp / "small.mesh")
    _dimacs(tmp)
    _osm(tmp)
    _geojson(tmp)
    scenes = tmp / "scenes"
    shutil.copytree(ROOT / "scenes", scenes, ignore=shutil.ignore_patterns("*.py", "*.md"))
    return tmp


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    if not SHARED.is_dir():
        pytest.skip(f"the corpus is cut from the shared data, not found at {SHARED}")
    return make_corpus(tmp_path_factory.mktemp("corpus"))


def _load_grid(world, path, tmp):
    return world.add_graph("new", type="grid", map=str(path))


def _load_mesh(world, path, tmp):
    return world.add_graph("new", type="navmesh", mesh=str(path))


def _load_dimacs_gr(world, path, tmp):
    return world.add_graph("new", type="roads", dimacs=str(path), coords=str(tmp / "small.co"))


def _load_dimacs_co(world, path, tmp):
    return world.add_graph("new", type="roads", dimacs=str(tmp / "small.gr"), coords=str(path))


def _load_geojson(world, path, tmp):
    return world.add_graph("new", type="roads", geojson=str(path))


def _load_osm(world, path, tmp):
    return world.add_graph("new", type="roads", osm=str(path))


def _load_scen(world, path, tmp):
    return read_scen(path)


#: loader name -> (corpus file, suffix of the mutated copy, load function)
LOADERS = {
    "map": ("small.map", ".map", _load_grid),
    "scen": ("small.scen", ".scen", _load_scen),
    "mesh": ("small.mesh", ".mesh", _load_mesh),
    "dimacs-gr": ("small.gr", ".gr", _load_dimacs_gr),
    "dimacs-co": ("small.co", ".co", _load_dimacs_co),
    "geojson": ("small.geojson", ".geojson", _load_geojson),
    "osm": ("small.osm", ".osm", _load_osm),
}


def _check_location(exc, path, data):
    if isinstance(exc, FILE_ERRORS):
        assert exc.path is not None, f"{exc!r} does not name the file"
        if exc.path == str(path) and exc.line is not None:
            assert 1 <= exc.line <= data.count(b"\n") + 2, f"{exc!r}: line out of the file"


@pytest.mark.parametrize("loader", sorted(LOADERS))
@settings(kit.FUZZ)
@given(edits=mutations())
def test_loader(corpus, loader, edits):
    name, suffix, load = LOADERS[loader]
    data = apply((corpus / name).read_bytes(), edits)
    path = corpus / f"mutated{suffix}"
    path.write_bytes(data)
    world = navcore.World()
    world.add_graph("keep", type="grid", rows=[".."])
    status, out = kit.check_call(world, f"load {loader}", load, world, path, corpus)
    event(status if status != "error" else type(out).__name__)
    if status == "error":
        _check_location(out, path, data)


SCENES = ["dungeon", "maze", "courtyard", "battlefield", "monaco"]


@pytest.mark.parametrize("scene", SCENES)
@settings(kit.FUZZ)
@given(edits=mutations())
def test_scene(corpus, scene, edits):
    data = apply((corpus / "scenes" / f"{scene}.yaml").read_bytes(), edits)
    path = corpus / "scenes" / "mutated.yaml"
    path.write_bytes(data)
    status, out = kit.check_call(None, f"load_scene {scene}", navcore.load_scene, path)
    event(status if status != "error" else type(out).__name__)
    if status == "error":
        _check_location(out, path, data)
    elif status == "ok":
        for _ in range(2):     # events and agents run without raw errors too
            kit.check_call(None, f"step {scene}", out.step)
