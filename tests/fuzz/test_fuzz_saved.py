"""Damaged ``.npz`` files of every structure navcore saves: navmesh bakes
(``save_mesh`` / ``load_mesh``, ``add_graph(type="navmesh", mesh=...)``),
csr contraction hierarchies (``ContractedGraph.save`` /
``load_contracted``), road hierarchies and customizable hierarchy orders
(``RoadHierarchy.save``, ``RoadCCH.save`` / ``load_hierarchy``).

Each is saved once from a small valid graph, then damaged at the zip level
(truncated, bits and bytes changed, members dropped, doubled or renamed)
or at the array level (arrays read back with numpy, values shuffled,
moved by one, made negative, huge or NaN, dtypes and shapes changed,
arrays dropped or swapped) and written again with a checksum that fits
(``navcore.files.npz_bytes``), so only the loader's own checks stand
between the damage and a wrong answer. The property: the load raises a
``NavError`` naming the file, or it loads and every query answers as the
undamaged structure does (a loaded-but-wrong answer is a disagreement,
``fuzzkit.disagree``). A navmesh bake whose polygons were changed into
another valid mesh is another mesh: its answers must then be paths of
that mesh (inside it, costing their length) instead.
"""
import io
import math
import warnings
import zipfile

import numpy as np
import pytest
import shapely
from hypothesis import event, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString

import navcore
from navcore.files import npz_bytes

import fuzzkit as kit
import reference as ref

pytestmark = pytest.mark.fuzz


# -- the intact structures --------------------------------------------------------------

def _csr_edges():
    """A 5 x 5 lattice with uneven costs (undirected): its hierarchy has
    shortcuts."""
    src, dst, cost = [], [], []
    for y in range(5):
        for x in range(5):
            i = 5 * y + x
            for dx, dy in ((1, 0), (0, 1)):
                if x + dx < 5 and y + dy < 5:
                    src.append(i)
                    dst.append(5 * (y + dy) + x + dx)
                    cost.append(float(1 + (3 * i + 5 * dx + 7 * dy) % 5))
    return src, dst, cost


CSR = dict(zip(("src", "dst", "cost"), _csr_edges()), directed=False)
ROADS = dict(src=[0, 1, 2, 3, 4, 5, 1, 2, 4, 5, 0],
             dst=[1, 2, 3, 4, 5, 0, 4, 5, 1, 2, 3],
             cost=[10.0, 20.0, 10.0, 30.0, 10.0, 20.0, 60.0, 10.0, 50.0, 40.0, 70.0],
             positions=[[7.42 + 0.001 * (i % 3), 43.73 + 0.001 * (i // 3)] for i in range(6)],
             keep="all")
MESH = dict(bounds=(0, 0, 10, 10), obstacles=[[[2.0, 2.0], [4.0, 2.0], [4.0, 4.0]],
                                               [[6.0, 5.0], [8.0, 5.0], [8.0, 8.0], [6.0, 8.0]]])
MESH_POINTS = [((0.5, 0.5), (9.5, 9.5)), ((3.9, 2.1), (7.0, 9.0)), ((1.0, 9.0), (9.0, 1.0)),
               ((5.0, 5.0), (5.0, 5.1)), ((9.9, 0.1), (0.1, 9.9))]


def _world(kind):
    w = navcore.World()
    if kind == "navmesh":
        w.add_graph("g", type="navmesh", **MESH)
    elif kind == "csr-ch":
        w.add_graph("g", type="csr", **CSR)
    else:
        w.add_graph("g", type="roads", **ROADS)
    return w


def _build(kind, path):
    """Save the structure of ``kind`` at ``path``; its answers."""
    w = _world(kind)
    g = w.graph("g")
    if kind == "navmesh":
        import navcore_navmesh
        navcore_navmesh.save_mesh(path, g)
    elif kind == "csr-ch":
        import navcore_csr
        navcore_csr.contract(g).save(path)
    else:
        import navcore_roads
        navcore_roads.contract(g, customizable=kind == "road-cch", progress=False).save(path)
    return _answers(kind, w)


def _pairs(kind, w):
    if kind == "navmesh":
        return MESH_POINTS
    n = w.graph("g").num_nodes
    return [(s, t) for s in range(n) for t in range(n) if (7 * s + t) % 4 == 0]


ALGORITHM = {"navmesh": "auto", "csr-ch": "ch", "road-ch": "ch", "road-cch": "cch"}


def _answers(kind, w):
    out = []
    for s, t in _pairs(kind, w):
        r = w.find_path("g", s, t, algorithm=ALGORITHM[kind])
        out.append(r.cost if r.found else math.inf)
    return out


class Intact(dict):
    def __repr__(self):           # hypothesis prints it with a failing example
        return "intact"


@pytest.fixture(scope="module")
def intact(tmp_path_factory):
    """kind -> (file bytes, answers): checked against a reference Dijkstra."""
    tmp = tmp_path_factory.mktemp("saved")
    out = Intact()
    for kind in ALGORITHM:
        path = tmp / f"{kind}.npz"
        answers = _build(kind, path)
        if kind != "navmesh":        # the intact structure is right, by a reference Dijkstra
            w = _world(kind)
            g = w.graph("g")
            csr = g.csr
            src = np.repeat(np.arange(g.num_nodes), np.diff(csr.offsets))
            adj = ref.adjacency(src, csr.targets, csr.cost, g.num_nodes)
            for v in adj:       # parallel edges: the cheapest
                for i in np.flatnonzero(src == v):
                    adj[v][int(csr.targets[i])] = min(adj[v][int(csr.targets[i])],
                                                      float(csr.cost[i]))
            truth = [ref.dijkstra(adj, s, t).get(t, math.inf) for s, t in _pairs(kind, w)]
            assert np.allclose(answers, truth), kind
        out[kind] = (path.read_bytes(), answers)
    return out


# -- damage -------------------------------------------------------------------------------

def _members(data):
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return [(i.filename, z.read(i)) for i in z.infolist()]


def _zip(members):
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # a duplicate name is the point
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
            for name, blob in members:
                z.writestr(name, blob)
    return buf.getvalue()


def zip_damage(data, op, a, b):
    n = max(len(data), 1)
    i = a % n
    if op == "truncate":
        return data[:i]
    if op == "flip":
        return data[:i] + bytes([data[i] ^ (1 << b % 8)]) + data[i + 1:] if data else data
    if op == "byte":
        return data[:i] + bytes([b % 256]) + data[i + 1:]
    members = _members(data)
    j = a % len(members)
    if op == "drop":
        del members[j]
    elif op == "dup":
        members.insert(b % (len(members) + 1), members[j])
    elif op == "rename":
        name, blob = members[j]
        new = ["x.npy", name[:-4], name.upper(), members[b % len(members)][0], "../" + name,
               name + ".npy", "checksum.npy", "a/" + name][b % 8]
        members[j] = (new, blob)
    elif op == "swapdata":
        k = b % len(members)
        (na, da), (nb, db) = members[j], members[k]
        members[j], members[k] = (na, db), (nb, da)
    return _zip(members)


ZIP_OPS = ["truncate", "flip", "flip", "byte", "drop", "dup", "rename", "swapdata"]
ARRAY_OPS = ["shuffle", "plus1", "minus1", "negative", "huge", "nan", "zero", "dtype",
             "shape", "drop", "swap", "extra", "scalar", "empty", "reverse", "stale"]


def array_damage(data, name_pick, op, a, b):
    """``(bytes, names changed)``: the arrays changed and saved again,
    checksum recomputed (``stale``: the old checksum kept)."""
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    old_sum = arrays.pop("checksum")
    names = sorted(arrays)
    name = names[name_pick % len(names)]
    v = arrays[name].copy()
    flat = v.reshape(-1)
    if op == "shuffle" and v.size > 1:
        np.random.default_rng(a).shuffle(flat)
    elif op in ("plus1", "minus1", "negative", "huge", "nan", "zero") and v.size \
            and v.dtype.kind in "iuf":
        i = a % v.size
        if op == "nan":
            v = v.astype(np.float64)
            flat = v.reshape(-1)
            flat[i] = np.nan
        else:
            big = np.iinfo(v.dtype).max if v.dtype.kind in "iu" else 1e308
            with np.errstate(over="ignore"):       # int32 max + 1 wraps, as a bad file would
                x = {"plus1": flat[i] + 1, "minus1": flat[i] - 1, "negative": -1 - b,
                     "huge": big, "zero": 0}[op]
            if v.dtype.kind == "u" and x < 0:
                x = big
            flat[i] = x
    elif op == "dtype":
        to = [np.int32, np.int64, np.float64, np.float32, np.uint8, np.int16, np.bool_,
              np.uint64][b % 8]
        try:
            v = v.astype(to)
        except (ValueError, TypeError):
            v = np.zeros(v.shape, to)
    elif op == "shape":
        v = [v.reshape(1, -1), v.reshape(-1)[: max(v.size - 1 - a % 3, 0)],
             np.concatenate([v.reshape(-1), v.reshape(-1)[:1 + a % 2]]) if v.size else v,
             v.reshape(-1, 1)][b % 4]
    elif op == "drop":
        del arrays[name]
        v = None
    elif op == "swap":
        other = names[b % len(names)]
        arrays[name], arrays[other] = arrays[other], arrays[name]
        v = arrays[name]
    elif op == "extra":
        arrays[["bogus", "weights2", "rank_"][b % 3]] = np.arange(3)
    elif op == "scalar":
        v = np.array(v.reshape(-1)[0] if v.size else 0)
    elif op == "empty":
        v = v.reshape(-1)[:0]
    elif op == "reverse":
        v = v.reshape(-1)[::-1].reshape(v.shape) if v.ndim else v
    if v is not None:
        arrays[name] = v
    if op == "stale":
        flat = arrays[name].reshape(-1)
        if flat.size and flat.dtype.kind in "iuf":
            flat[a % flat.size] += 1
        buf = io.BytesIO()
        np.savez(buf, checksum=old_sum, **arrays)
        return buf.getvalue(), name
    return npz_bytes(**arrays), name


@st.composite
def damage(draw):
    if draw(st.integers(0, 2)) == 0:
        return ("zip", draw(st.lists(st.tuples(st.sampled_from(ZIP_OPS),
                                               st.integers(0, 10 ** 6), st.integers(0, 255)),
                                     min_size=1, max_size=3)))
    return ("array", draw(st.lists(st.tuples(st.integers(0, 20), st.sampled_from(ARRAY_OPS),
                                             st.integers(0, 10 ** 6), st.integers(0, 255)),
                                   min_size=1, max_size=2)))


def apply(data, dmg):
    level, ops = dmg
    for op in ops:
        try:
            data = zip_damage(data, *op) if level == "zip" else array_damage(data, *op)[0]
        except Exception:       # (zipfile, zlib, numpy) no archive left to damage further
            break
    return data


# -- loading ------------------------------------------------------------------------------

def _load(kind, path):
    """A world whose graph "g" holds the loaded structure."""
    if kind == "navmesh":
        w = navcore.World()
        w.add_graph("g", type="navmesh", mesh=str(path))
        return w
    w = _world(kind)
    g = w.graph("g")
    if kind == "csr-ch":
        import navcore_csr
        navcore_csr.load_contracted(g, path)
    else:
        import navcore_roads
        navcore_roads.load_hierarchy(g, path)
    return w


def _names_file(exc, path):
    return str(path) in str(exc) or str(getattr(exc, "path", None) or "") == str(path)


def _mesh_is_intact(w, intact_graph):
    g = w.graph("g")
    # the snap distance and agent radius are the mesh's too: a larger snap
    # distance rightly finds a path from a point inside an obstacle
    return (np.array_equal(g.vertices, intact_graph.vertices)
            and np.array_equal(g.poly_start, intact_graph.poly_start)
            and np.array_equal(g.poly_verts, intact_graph.poly_verts)
            and g.snap_distance == intact_graph.snap_distance
            and g.agent_radius == intact_graph.agent_radius)


def _check_mesh_paths(w, call):
    """Answers of a mesh that is not the intact one: each found path lies
    in the mesh and costs its polyline's length."""
    g = w.graph("g")
    polys = [shapely.Polygon(g.vertices[g.poly_verts[g.poly_start[i]:g.poly_start[i + 1]]])
             for i in range(len(g.poly_start) - 1)]
    free = shapely.union_all(polys).buffer(1e-7)
    for s, t in MESH_POINTS:
        status, r = kit.check_call(w, "damaged navmesh find_path", w.find_path, "g", s, t)
        if status != "ok" or not r.found:
            continue
        pts = np.asarray(r.points, dtype=float)
        length = float(np.sqrt((np.diff(pts, axis=0) ** 2).sum(axis=1)).sum())
        inside = len(pts) < 2 or free.covers(LineString(pts))
        if not (math.isclose(r.cost, length, rel_tol=1e-9, abs_tol=1e-9) and inside):
            kit.disagree("damaged navmesh find_path", call + f"\nworld.find_path('g', {s}, {t})",
                         f"cost {r.cost}, polyline length {length}, inside the mesh: {inside}")
            return


@pytest.mark.parametrize("kind", sorted(ALGORITHM))
@settings(kit.FUZZ)
@given(dmg=damage())
def test_damaged_file(intact, tmp_path_factory, kind, dmg):
    data, answers = intact[kind]
    bad = apply(data, dmg)
    path = tmp_path_factory.getbasetemp() / f"damaged-{kind}.npz"
    path.write_bytes(bad)
    call = (f"# {kind} saved as in tests/fuzz/test_fuzz_saved.py, damaged by {dmg!r}\n"
            f"load {path}")
    status, out = kit.check_call(None, f"load damaged {kind}", _load, kind, path)
    if status == "error":
        event(f"{kind}: {type(out).__name__}")
        if not _names_file(out, path):
            kit.disagree(f"load damaged {kind}", call, f"{out!r} does not name the file")
        return
    if status != "ok":
        return
    w = out
    event(f"{kind}: loaded")
    if kind == "navmesh" and not _mesh_is_intact(w, _world("navmesh").graph("g")):
        event("navmesh: another valid mesh")
        _check_mesh_paths(w, call)
        return
    for (s, t), want in zip(_pairs(kind, w), answers):
        status, r = kit.check_call(w, f"damaged {kind} find_path", w.find_path, "g", s, t,
                                   algorithm=ALGORITHM[kind])
        if status == "error":
            kit.disagree(f"damaged {kind} find_path", call +
                         f"\nworld.find_path('g', {s!r}, {t!r}, algorithm={ALGORITHM[kind]!r})",
                         f"loaded, then raised {out!r}")
            return
        if status != "ok":
            return
        got = r.cost if r.found else math.inf
        if not (got == want or math.isclose(got, want, rel_tol=1e-9)):
            kit.disagree(f"damaged {kind} find_path", call +
                         f"\nworld.find_path('g', {s!r}, {t!r}, algorithm={ALGORITHM[kind]!r})",
                         f"loaded, then answered cost {got}; the intact file answers {want}")
            return
