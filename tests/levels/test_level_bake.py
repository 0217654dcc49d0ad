"""Baked levels (``navcore_levels.bake``, ``navcore bake LEVEL``), their
OBJ export and pictures of levels (``navcore_levels.draw``).

Truths: the graph built from the level itself (a loaded bake must give
the same polygons and exactly the same paths), the polygons read back
from the OBJ by a separate parser (and by RecastDemo's reader,
``recastpeer.read_obj``), and the level's own geometry (which floor lies
over which, which end of a ramp is higher) for the pictures."""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

import navcore
from navcore.cli import main
from navcore.errors import GraphError, MeshFormatError
from navcore.files import npz_bytes
from navcore_levels import load_level_mesh, save_level_mesh
from navcore_levels.draw import FLOOR_COLOURS

from recastpeer import read_obj

#: two floors: ground 24 x 10 at y=0, an upper floor 10 x 10 at y=4 over
#: its left end, and a ramp from the upper floor's edge (x=10, y=4) down to
#: the ground at x=20 over z 6..10
TWO_FLOORS = """\
v 0 0 0
v 24 0 0
v 24 0 10
v 0 0 10
v 0 4 0
v 10 4 0
v 10 4 10
v 0 4 10
v 10 4 6
v 20 0 6
v 20 0 10
v 10 4 10
f 1 3 2
f 1 4 3
f 5 7 6
f 5 8 7
f 9 11 10
f 9 12 11
"""

#: query pairs on TWO_FLOORS: along the ground, from the upper floor down
#: the ramp, from the ground up onto the upper floor, and under it
QUERIES = [((1.5, 0.0, 1.5), (22.0, 0.0, 8.5)), ((2.0, 4.0, 2.0), (20.5, 0.0, 9.0)),
           ((22.0, 0.0, 2.0), (5.0, 4.0, 5.0)), ((2.0, 0.0, 2.0), (8.0, 0.0, 8.0))]


@pytest.fixture
def level(tmp_path) -> Path:
    path = tmp_path / "two_floors.obj"
    path.write_text(TWO_FLOORS)
    return path


def same_graph(a, b) -> None:
    for name in ("vertices", "heights", "poly_start", "poly_verts", "area_ids"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.level_config == b.level_config
    assert a.up == b.up


def same_paths(world, a, b, queries=QUERIES) -> None:
    for start, goal in queries:
        ra, rb = world.find_path(a, start, goal), world.find_path(b, start, goal)
        assert ra.status == rb.status == navcore.PathStatus.FOUND, (start, goal)
        assert ra.cost == rb.cost
        assert np.array_equal(ra.points, rb.points)


# -- bake -> load ----------------------------------------------------------------------

@pytest.mark.parametrize("settings", [{}, {"tile_size": 24, "agent_radius": 0.45}])
def test_a_loaded_bake_is_the_graph_that_was_built(tmp_path, level, settings):
    w = navcore.World()
    built = w.add_graph("built", type="level", level=str(level), **settings)
    save_level_mesh(tmp_path / "two.npz", built)
    loaded = w.add_graph("loaded", type="level", mesh=str(tmp_path / "two.npz"))
    same_graph(built, loaded)
    assert loaded.level_config.agent_radius == settings.get("agent_radius", 0.6)
    assert loaded.level_source == "two_floors.obj"
    same_paths(w, "built", "loaded")
    # and the bake of the loaded graph is the same file's content
    save_level_mesh(tmp_path / "again.npz", loaded)
    assert load_level_mesh(tmp_path / "again.npz").config == built.level_config


def test_a_z_up_level_bakes_and_exports_on_its_own_axes(tmp_path, level):
    # the same level with z up: (x, y, z) -> (x, -z, y)
    v = np.array([[float(t) for t in ln.split()[1:]] for ln in TWO_FLOORS.splitlines()
                  if ln.startswith("v ")])
    zup = tmp_path / "zup.obj"
    zup.write_text("".join(f"v {x!r} {-z!r} {y!r}\n" for x, y, z in v.tolist())
                   + "".join(ln + "\n" for ln in TWO_FLOORS.splitlines() if ln[0] == "f"))
    assert main(["bake", str(level), "-o", str(tmp_path / "y.npz"), "--obj",
                 str(tmp_path / "y.obj")]) == 0
    assert main(["bake", str(zup), "--up", "z", "-o", str(tmp_path / "z.npz"), "--obj",
                 str(tmp_path / "z.obj")]) == 0
    y_verts, _, _ = parse_obj(tmp_path / "y.obj")
    z_verts, _, _ = parse_obj(tmp_path / "z.obj")
    assert np.array_equal(z_verts, np.column_stack([y_verts[:, 0], -y_verts[:, 2],
                                                    y_verts[:, 1]]))
    w = navcore.World()
    gz = w.add_graph("z", type="level", mesh=str(tmp_path / "z.npz"))
    assert gz.up == "z"
    start, goal = QUERIES[1]
    r = w.find_path("z", (start[0], -start[2], start[1]), (goal[0], -goal[2], goal[1]))
    ry = w.add_graph("y", type="level", mesh=str(tmp_path / "y.npz"))
    expect = w.find_path("y", start, goal)
    assert r.cost == pytest.approx(expect.cost, rel=1e-12)
    assert ry.up == "y"


def test_a_level_without_a_detail_mesh_bakes_and_loads_without_one(tmp_path, level):
    from navcore_levels import BakedLevel
    w = navcore.World()
    g = w.add_graph("g", type="level", level=str(level))
    save_level_mesh(tmp_path / "flat.npz",
                    BakedLevel(g.level_config, g.level_mesh, None, "y", "two_floors.obj"))
    assert load_level_mesh(tmp_path / "flat.npz").detail is None
    h = w.add_graph("h", type="level", mesh=str(tmp_path / "flat.npz"))
    assert h.surface is None and np.array_equal(h.poly_verts, g.poly_verts)
    start, goal = QUERIES[0]
    assert w.find_path("h", start, goal).cost == w.find_path("g", start, goal).cost


def test_build_settings_with_mesh_are_refused(tmp_path, level):
    w = navcore.World()
    save_level_mesh(tmp_path / "two.npz", w.add_graph("g", type="level", level=str(level)))
    for extra in ({"agent_radius": 0.6}, {"level": str(level)}, {"up": "y"},
                  {"cell_size": 0.3, "tile_size": 0}):
        with pytest.raises(GraphError, match=f"{sorted(extra)[0]}.* cannot be given"):
            w.add_graph("m", type="level", mesh=str(tmp_path / "two.npz"), **extra)
        assert "m" not in w.graphs
    g = w.add_graph("m", type="level", mesh=str(tmp_path / "two.npz"), extents=(3, 5, 3))
    assert tuple(g.extents) == (3, 5, 3)


# -- bad bakes -------------------------------------------------------------------------

def _arrays(path) -> dict:
    with np.load(path, allow_pickle=False) as f:
        return {k: f[k] for k in f.files}


def _rewrite(path, arrays, fresh_checksum=True) -> None:
    """Write ``arrays`` to ``path``: with a checksum made for them (a
    forged file), or keeping the one they came with (a damaged one)."""
    if fresh_checksum:
        arrays = {k: v for k, v in arrays.items() if k != "checksum"}
        path.write_bytes(npz_bytes(**arrays))
    else:
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        path.write_bytes(buf.getvalue())


def _set(name, fn):
    def change(a):
        a = dict(a)
        a[name] = fn(a[name].copy())
        return a
    return change


def _poke(name, index, value):
    def fn(x):
        x[index] = value
        return x
    return _set(name, fn)


BAD = {
    "wrong version": (_set("version", lambda v: np.array(2, np.int64)),
                      "version' is 2; this navcore reads baked levels of version 1"),
    "missing array": (lambda a: {k: v for k, v in a.items() if k != "detail_tris"},
                      "missing arrays ['detail_tris']"),
    "extra array": (lambda a: {**a, "links": np.zeros(3)}, "unknown arrays ['links']"),
    "wrong dtype": (_set("vertices", lambda v: v.astype(np.float32)),
                    "array 'vertices' must be float64"),
    "wrong shape": (_set("polys", lambda p: p[:, :2].copy()), "polygons have 3..12 corners"),
    "index out of range": (_poke("polys", (0, 0), 10 ** 6), "'polys': polygon 0 corner 0"),
    "NaN vertex": (_poke("vertices", (1, 1), np.nan), "'vertices': entry 1 is not finite"),
    "moved vertex": (_poke("vertices", (2, 0), 1e3), "'vertices': vertex 2"),
    "detail index": (_poke("detail_tris", (0, 0), 10 ** 6), "'detail_tris': triangle 0"),
    "detail offsets": (_poke("detail_tri_offsets", 1, -5), "'detail_tri_offsets'"),
    "neighbour": (_poke("neighbors", (0, 0), 10 ** 6), "'neighbors': polygon 0 edge 0"),
    "bad config": (_set("config", lambda c: np.array(json.dumps(
        {**json.loads(str(c)), "cell_size": -1}))), "array 'config': cell_size must be"),
    "bad up": (_set("up", lambda u: np.array("x")), "array 'up' is 'x'"),
    "2D navmesh bake": (_set("format", lambda f: np.array("navcore-navmesh")),
                        "loads with type='navmesh'"),
}


@pytest.fixture
def baked(tmp_path, level) -> Path:
    path = tmp_path / "two.npz"
    save_level_mesh(path, navcore.World().add_graph("g", type="level", level=str(level)))
    return path


@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_forged_bake_is_a_mesh_format_error_naming_file_and_array(baked, kind):
    change, words = BAD[kind]
    _rewrite(baked, change(_arrays(baked)))
    w = navcore.World()
    with pytest.raises(MeshFormatError) as exc:
        w.add_graph("g", type="level", mesh=str(baked))
    assert "two.npz" in str(exc.value) and words in str(exc.value), str(exc.value)
    assert not w.graphs


def test_damaged_truncated_and_pickled_bakes_are_refused(baked, tmp_path):
    good = baked.read_bytes()
    # an index changed within range, checksum left as it was: damage
    a = _arrays(baked)
    a["polys"][0, 0] = a["polys"][0, 1]
    _rewrite(baked, a, fresh_checksum=False)
    with pytest.raises(MeshFormatError, match="two.npz.*do not match its checksum"):
        load_level_mesh(baked)
    baked.write_bytes(good[: len(good) // 2])
    with pytest.raises(MeshFormatError, match="two.npz.*not a readable .npz"):
        load_level_mesh(baked)
    # a Python object inside: never unpickled
    buf = io.BytesIO()
    np.savez(buf, payload=np.array(["navcore-level", object()], dtype=object))
    baked.write_bytes(buf.getvalue())
    with pytest.raises(MeshFormatError, match="two.npz.*'payload' holds Python objects"):
        load_level_mesh(baked)
    buf = io.BytesIO()
    np.savez(buf, format=np.array(["navcore-level", object()], dtype=object))
    baked.write_bytes(buf.getvalue())
    with pytest.raises(MeshFormatError, match="two.npz.*'format' must be a string, got object"):
        load_level_mesh(baked)
    baked.write_bytes(b"not a zip")
    with pytest.raises(MeshFormatError, match="two.npz.*not a readable .npz"):
        load_level_mesh(baked)
    with pytest.raises(MeshFormatError, match="nowhere.npz.*no such file"):
        load_level_mesh(tmp_path / "nowhere.npz")
    with pytest.raises(GraphError, match="mesh must be the path"):
        navcore.World().add_graph("g", type="level", mesh=3)
    save_level_mesh(baked, navcore.World().add_graph("g", type="level", level=str(
        tmp_path / "two_floors.obj")))
    with pytest.raises(MeshFormatError, match="two.npz: a baked 3D level, not a 2D navmesh"):
        navcore.World().add_graph("g", type="navmesh", mesh=str(baked))
    with pytest.raises(GraphError, match="mesh must be the path"):
        navcore.World().add_graph("g", type="level", mesh=3)
    assert zipfile.is_zipfile(io.BytesIO(good))


def test_a_bad_level_is_refused_before_anything_is_written(tmp_path, level):
    import dataclasses
    from navcore_levels import BakedLevel, export_obj
    g = navcore.World().add_graph("g", type="level", level=str(level))
    m = g.level_mesh
    out = tmp_path / "bad.npz"
    bad = {
        "float vertex ids": (dataclasses.replace(m, polys=m.polys.astype(float)),
                             "array 'polys' must hold integers"),
        "area id 300": (dataclasses.replace(m, areas=m.areas.astype(np.int64) + 300),
                        "array 'areas' holds values outside uint8"),
        "corner out of range": (dataclasses.replace(m, polys=np.where(m.polys >= 0, 99,
                                                                      m.polys)),
                                "array 'polys': polygon 0 corner 0 is vertex 99"),
    }
    for mesh, words in bad.values():
        with pytest.raises(GraphError, match="cannot bake this level: " + words):
            save_level_mesh(out, BakedLevel(g.level_config, mesh, g.level_detail, "y", "x"))
    with pytest.raises(GraphError, match="array .up. is .x., expected .y. or .z."):
        save_level_mesh(out, BakedLevel(g.level_config, m, g.level_detail, "x", "x"))
    with pytest.raises(GraphError, match="made from a level graph"):
        save_level_mesh(out, navcore.World().add_graph("m", type="navmesh", bounds=(0, 0, 4, 4)))
    with pytest.raises(GraphError, match="an integer group per polygon"):
        export_obj(tmp_path / "bad.obj", g, [0, 1])
    assert list(tmp_path.glob("bad*")) == []


# -- OBJ export ------------------------------------------------------------------------

def parse_obj(path):
    """``(vertices (V, 3), faces [tuple of 0-based ids], groups [name per
    face])`` of an OBJ: ``v``, ``f`` and ``g`` lines, written separately
    from the exporter."""
    verts, faces, groups, group = [], [], [], None
    for line in Path(path).read_text().splitlines():
        tok = line.split()
        if not tok or tok[0].startswith("#"):
            continue
        if tok[0] == "v":
            verts.append([float(t) for t in tok[1:4]])
        elif tok[0] == "f":
            faces.append(tuple(int(t.split("/")[0]) - 1 for t in tok[1:]))
            groups.append(group)
        elif tok[0] == "g":
            group = tok[1]
    return np.array(verts), faces, groups


def _cycle(corners) -> tuple:
    """A polygon's corners in a form that ignores where the ring starts
    and which way it runs (the graph keeps them counter-clockwise on the
    ground plane; the winding of the OBJ is checked on its own)."""
    c = list(corners)
    rings = [c[k:] + c[:k] for k in range(len(c))]
    return tuple(min(min(rings), min(r[::-1] for r in rings)))


def test_the_obj_export_holds_the_polygons_facing_up(tmp_path, level):
    out, obj = tmp_path / "two.npz", tmp_path / "two_nav.obj"
    assert main(["bake", str(level), "-o", str(out), "--obj", str(obj)]) == 0
    g = navcore.World().add_graph("g", type="level", mesh=str(out))
    verts, faces, groups = parse_obj(obj)
    world = np.column_stack([g.vertices[:, 0], g.heights, g.vertices[:, 1]])   # y up
    assert np.array_equal(verts, world)
    polys = {_cycle(g.poly_verts[s:e].tolist())
             for s, e in zip(g.poly_start[:-1], g.poly_start[1:])}
    assert len(faces) == g.num_polygons and {_cycle(f) for f in faces} == polys
    for face in faces:                       # Newell's normal points up (+y)
        p = verts[list(face)]
        q = np.roll(p, -1, axis=0)
        assert ((p[:, 2] - q[:, 2]) * (p[:, 0] + q[:, 0])).sum() > 0
    # the upper floor (y 4.2) is floor 1: it lies over the ground floor
    for face, group in zip(faces, groups):
        if verts[list(face), 1].min() > 4:
            assert group == "floor_1"
        if verts[list(face), 1].max() < 0.3 and verts[list(face), 0].min() > 20.5:
            assert group == "floor_0"
    # RecastDemo's reader takes it too: every polygon as its fan of triangles
    v32, tris = read_obj(obj)
    assert len(tris) == sum(len(f) - 2 for f in faces)
    assert np.allclose(v32, verts, atol=1e-5)


# -- the command line ------------------------------------------------------------------

def test_navcore_bake_applies_the_settings_given(tmp_path, level, capsys):
    out = tmp_path / "lvl" / "r45.npz"
    assert main(["bake", str(level), "-o", str(out), "--agent-radius", "0.45",
                 "--cell-size", "0.25", "--max-slope", "40", "--partition", "monotone"]) == 0
    assert "r45.npz" in capsys.readouterr().out
    w = navcore.World()
    loaded = w.add_graph("loaded", type="level", mesh=str(out))
    built = w.add_graph("built", type="level", level=str(level), agent_radius=0.45,
                        cell_size=0.25, max_slope=40, partition="monotone")
    same_graph(built, loaded)
    same_paths(w, "built", "loaded")


@pytest.mark.parametrize("args, words", [
    (["--cell-size", "0"], "cell_size must be a finite number > 0"),
    (["--verts-per-poly", "20"], "verts_per_poly must be an integer in 3..12"),
    (["--partition", "layers"], "partition must be 'watershed' or 'monotone'"),
    (["-o", "OUT/x.mesh"], "a level bakes to a navcore .npz"),
    (["--obj", "OUT/x.txt"], "--obj OUT/x.txt: the export is a Wavefront OBJ"),
    (["--map", "x.map"], "--map is for 2D navmeshes"),
    (["--agent-height", "2.5", "LEVEL=missing.obj"], "missing.obj: level file not found"),
])
def test_bad_level_bakes_are_one_line_and_write_nothing(tmp_path, level, capsys, args,
                                                        words):
    source = str(level)
    argv = []
    for a in args:
        if a.startswith("LEVEL="):
            source = str(tmp_path / a[6:])
        else:
            argv.append(a.replace("OUT/", str(tmp_path / "out") + "/"))
    if "-o" not in argv:
        argv += ["-o", str(tmp_path / "out" / "x.npz")]
    assert main(["bake", source] + argv) == 2
    err = capsys.readouterr().err
    words = words.replace("OUT/", str(tmp_path / "out") + "/")
    assert err.startswith("navcore: error: ") and words in err, err
    assert err.count("\n") == 1
    written = list((tmp_path / "out").glob("*")) if (tmp_path / "out").exists() else []
    assert written == []


def test_level_options_on_a_2d_source_and_a_bad_up_are_refused(tmp_path, level, capsys):
    assert main(["bake", "--map", "x.map", "--cell-size", "0.2", "-o",
                 str(tmp_path / "x.npz")]) == 2
    assert "--cell-size: level options, for a source ending in .obj" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:            # argparse's own check
        main(["bake", str(level), "--up", "x", "-o", str(tmp_path / "x.npz")])
    assert exc.value.code == 2
    assert "invalid choice: 'x'" in capsys.readouterr().err
    assert not (tmp_path / "x.npz").exists()


# -- pictures --------------------------------------------------------------------------

def _pixel(rgb, graph, scale, x, z) -> np.ndarray:
    """The picture's pixel at ground point ``(x, z)`` (the frame starts at
    the projected polygons' lowest corner, y growing downwards)."""
    lo = graph.vertices.min(axis=0)
    return rgb[int((z - lo[1]) * scale), int((x - lo[0]) * scale)].astype(float)


def _hue_of(colour, floor) -> bool:
    """Whether ``colour`` is floor ``floor``'s colour at some brightness."""
    base = FLOOR_COLOURS[floor]
    k = colour.sum() / base.sum()
    return np.abs(colour - base * k).max() <= 2.0


def test_a_level_picture_shows_floors_in_hues_and_heights_in_brightness(tmp_path, level):
    w = navcore.World()
    g = w.add_graph("g", type="level", level=str(level))
    rgb = navcore.draw(w, "g", scale=8)
    upper = _pixel(rgb, g, 8, 5.0, 3.0)        # the upper floor, over the ground
    ground = _pixel(rgb, g, 8, 22.0, 3.0)      # the ground beyond it
    assert _hue_of(upper, 1) and _hue_of(ground, 0)
    assert upper.sum() > ground.sum()          # higher is brighter
    # the ramp falls from x=10 to x=20: brighter at its top than at its foot
    top, foot = _pixel(rgb, g, 8, 12.5, 8.5), _pixel(rgb, g, 8, 18.0, 8.5)
    assert _hue_of(top, 1) and _hue_of(foot, 1)
    assert top.sum() > foot.sum() + 20
    # without the upper floor the same spot shows the ground under it
    ground_only = tmp_path / "ground.obj"
    ground_only.write_text("\n".join(TWO_FLOORS.splitlines()[:4]) + "\nf 1 3 2\nf 1 4 3\n")
    h = w.add_graph("h", type="level", level=str(ground_only))
    alone = navcore.draw(w, "h", scale=8)
    under = _pixel(alone, h, 8, 5.0, 3.0)
    assert _hue_of(under, 0) and np.array_equal(under, _pixel(alone, h, 8, 22.0, 3.0))


def test_navcore_render_draws_a_scene_with_a_baked_level(tmp_path, level, capsys):
    assert main(["bake", str(level), "-o", str(tmp_path / "two.npz")]) == 0
    scene = tmp_path / "level.yaml"
    scene.write_text("settings: {frames: 1}\ngraphs:\n  - {id: lvl, type: level, "
                     "mesh: two.npz}\n")
    assert main(["render", str(scene), "-o", str(tmp_path / "lvl.png"), "--scale", "8"]) == 0
    from PIL import Image
    rgb = np.asarray(Image.open(tmp_path / "lvl.png").convert("RGB"))
    g = navcore.World().add_graph("g", type="level", mesh=str(tmp_path / "two.npz"))
    assert _hue_of(_pixel(rgb, g, 8, 5.0, 3.0), 1)
    assert _hue_of(_pixel(rgb, g, 8, 22.0, 3.0), 0)


def test_navcore_render_draws_a_level_file_or_a_bake_directly(tmp_path, level, capsys):
    g = navcore.World().add_graph("g", type="level", level=str(level))
    assert main(["bake", str(level), "-o", str(tmp_path / "two.npz")]) == 0
    capsys.readouterr()
    from PIL import Image
    for source in (level, tmp_path / "two.npz"):
        png = tmp_path / f"{source.suffix[1:]}.png"
        assert main(["render", str(source), "-o", str(png), "--scale", "8"]) == 0
        assert capsys.readouterr().out.strip().endswith("polygons on 2 floors")
        rgb = np.asarray(Image.open(png).convert("RGB"))
        assert _hue_of(_pixel(rgb, g, 8, 5.0, 3.0), 1)       # the upper floor
        assert _hue_of(_pixel(rgb, g, 8, 22.0, 3.0), 0)      # the ground beyond it
    assert main(["render", str(level), "-o", str(tmp_path / "x.png"), "--gif",
                 str(tmp_path / "x.gif")]) == 2
    assert "--gif is for scenes" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists() and not (tmp_path / "x.gif").exists()
