"""Reading level geometry: RecastDemo's OBJ meaning (fan triangulation,
``a/t/n`` and negative indices), tags from materials and groups, z-up
input, files through trimesh, and every bad input as a NavError naming
what and where."""
from pathlib import Path

import numpy as np
import pytest

from navcore.errors import GraphError, MeshFormatError, NavError
from navcore_levels.levelfile import Level, level_from_arrays, load_level

LEVELS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "levels"


def write(tmp_path, text, name="level.obj"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.skipif(not (LEVELS / "nav_test.obj").exists(), reason="shared levels absent")
def test_nav_test_reads_as_recast_demo_counts_it():
    level = load_level(LEVELS / "nav_test.obj")
    # the data README: 884 vertices, 1612 triangles after fan triangulation,
    # bounds x -28.9..62.5, y -4.9..17.0, z -46.3..31.1
    assert level.vertices.shape == (884, 3) and level.triangles.shape == (1612, 3)
    lo, hi = level.bounds
    assert np.allclose(lo, (-28.9, -4.9, -46.3), atol=0.05)
    assert np.allclose(hi, (62.5, 17.0, 31.1), atol=0.05)
    assert level.tags == ("Default",) and (level.triangle_tags == 0).all()


@pytest.mark.nojit
def test_obj_fans_faces_and_reads_texture_normal_and_negative_indices(tmp_path):
    path = write(tmp_path, "\n".join([
        "# a pentagon and a quad",
        "v 0 0 0", "v 1 0 0", "v 2 0 1", "v 1 0 2", "v 0 0 1",
        "vt 0 0", "vn 0 1 0",
        "f 1/1/1 2/1/1 3//1 4 5",
        "v 5 1 5", "v 6 1 5", "v 6 1 6", "v 5 1 6",
        "f -4 -3/1 -2//1 -1/1/1",
        ""]))
    level = load_level(path)
    assert level.triangles.tolist() == [[0, 1, 2], [0, 2, 3], [0, 3, 4],
                                        [5, 6, 7], [5, 7, 8]]
    assert level.vertices[8].tolist() == [5.0, 1.0, 6.0]
    assert level.source == str(path)


def test_obj_tags_are_materials_else_groups(tmp_path):
    verts = "v 0 0 0\nv 1 0 0\nv 0 0 1\n"
    by_material = load_level(write(tmp_path, verts + "g a\nusemtl water\nf 1 2 3\n"
                                   "usemtl road\nf 1 2 3\nusemtl water\nf 1 2 3\n"))
    assert by_material.tags == ("water", "road")
    assert by_material.triangle_tags.tolist() == [0, 1, 0]
    assert by_material.tag_mask("water").tolist() == [True, False, True]
    by_group = load_level(write(tmp_path, verts + "f 1 2 3\ng floor\nf 1 2 3\no stairs\n"
                                "f 1 2 3\n", "groups.obj"))
    assert by_group.tags == ("", "floor", "stairs")
    assert by_group.triangle_tags.tolist() == [0, 1, 2]


def test_z_up_input_becomes_y_up(tmp_path):
    level = load_level(write(tmp_path, "v 1 2 3\nv 1 3 3\nv 2 2 3\nf 1 2 3\n"), up="z")
    assert level.vertices.tolist() == [[1, 3, -2], [1, 3, -3], [2, 3, -2]]
    arrays = level_from_arrays([(1, 2, 3), (1, 3, 3), (2, 2, 3)], [(0, 1, 2)], up="z")
    assert np.array_equal(arrays.vertices, level.vertices)


def test_files_through_trimesh(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    box = trimesh.creation.box(extents=(2, 1, 3))
    for suffix in (".stl", ".ply", ".glb"):
        path = tmp_path / f"box{suffix}"
        box.export(str(path))
        level = load_level(path)
        assert level.triangles.shape == (12, 3)
        lo, hi = level.bounds
        assert np.allclose(lo, (-1, -0.5, -1.5)) and np.allclose(hi, (1, 0.5, 1.5))


def test_arrays_with_tags():
    level = level_from_arrays([(0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 0, 1)],
                              np.array([(0, 1, 2), (1, 3, 2)], np.int64),
                              tags=["grass", "road"])
    assert isinstance(level, Level) and level.triangles.dtype == np.int32
    assert level.tags == ("grass", "road") and level.triangle_tags.tolist() == [0, 1]


@pytest.mark.nojit
@pytest.mark.parametrize("text, line, fragment", [
    ("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 4\n", 4, "face names vertex 4, but only 3"),
    ("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 0\n", 4, "face names vertex 0"),
    ("v 0 0 0\nv 1 0 0\nf -3 1 2\nv 0 0 1\n", 3, "face names vertex -3"),
    ("v 0 0 0\nv 1 0 0\nv 0 0 1\n\nf 1 2\n", 5, "face has 2 vertices"),
    ("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 x 3\n", 4, "'x' is not an index"),
    ("v 0 0 0\nv 1 zero 0\nv 0 0 1\nf 1 2 3\n", 2, "not three numbers"),
    ("v 0 0 0\nv 1 0\nv 0 0 1\nf 1 2 3\n", 2, "vertex line has 2 numbers"),
    ("v 0 0 0\nv 1 nan 0\nv 0 0 1\nf 1 2 3\n", 2, "is not finite"),
    ("v 0 0 0\nv 1 0 0\nv inf 0 1\nf 1 2 3\n", 3, "is not finite"),
])
def test_bad_obj_names_file_and_line(tmp_path, text, line, fragment):
    path = write(tmp_path, text)
    with pytest.raises(MeshFormatError) as err:
        load_level(path)
    assert err.value.line == line and fragment in str(err.value)
    assert str(err.value).startswith(f"{path}:{line}: ")


@pytest.mark.parametrize("text, fragment", [
    ("v 0 0 0\nv 1 0 0\nv 0 0 1\n", "has no triangles"),
    ("", "has no triangles"),
    ("v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\nf 1 1 2\n", "every triangle of the level has no area"),
])
def test_obj_without_a_usable_triangle(tmp_path, text, fragment):
    path = write(tmp_path, text)
    with pytest.raises(MeshFormatError, match=fragment) as err:
        load_level(path)
    assert err.value.path == str(path)


def test_missing_unreadable_and_unknown_files(tmp_path):
    with pytest.raises(MeshFormatError, match="level file not found"):
        load_level(tmp_path / "absent.obj")
    (tmp_path / "folder.obj").mkdir()
    with pytest.raises(MeshFormatError, match="cannot read level file"):
        load_level(tmp_path / "folder.obj")
    with pytest.raises(MeshFormatError, match="unknown level format '.dae'"):
        load_level(write(tmp_path, "x", "level.dae"))
    with pytest.raises(MeshFormatError, match="cannot read level file"):
        load_level(write(tmp_path, "not a binary glTF", "broken.glb"))
    with pytest.raises(MeshFormatError, match="NUL"):
        load_level("a\0.obj")
    with pytest.raises(GraphError, match="up must be 'y' or 'z'"):
        load_level(write(tmp_path, "v 0 0 0\n"), up="x")


@pytest.mark.parametrize("vertices, triangles, fragment", [
    ([(0, 0, 0), (1, 0, 0)], [(0, 1, 2)], "triangle 0 names vertex 2, but there are 2 vertices"),
    ([(0, 0, 0), (1, 0, 0), (0, 0, 1)], [(0, -1, 2)], "names vertex -1"),
    ([(0, 0, 0), (1, 0, 0), (0, 0, 1)], [(0, 1.5, 2)], "integer vertex indices"),
    ([(0, 0, 0), (1, 0, 0), (0, 0, 1)], [(0, 1)], "(M, 3)"),
    ([(0, 0, 0), (1, 0, 0), (0, 0, 1e13)], [(0, 1, 2)], "farther than 1e+12"),
    ([(0, 0), (1, 0), (0, 1)], [(0, 1, 2)], "(N, 3)"),
    ([(0, 0, 0), (1, "a", 0), (0, 0, 1)], [(0, 1, 2)], "vertices must be an array"),
    ([(0, 0, 0), (1, np.nan, 0), (0, 0, 1)], [(0, 1, 2)], "vertex 1 [1.0, nan, 0.0] is not finite"),
    ([(0, 0, 0), (1, 0, 0), (0, 0, 1)], np.zeros((0, 3), int), "has no triangles"),
    ([(0, 0, 0), (1, 0, 0), (0, 0, 1)], [], "has no triangles"),
    ([(0, 0, 0), (1, 0, 0), (0, 0, 1)], [(0, 0, 1)], "has no area"),
])
def test_bad_arrays_are_graph_errors(vertices, triangles, fragment):
    with pytest.raises(GraphError) as err:
        level_from_arrays(vertices, triangles)
    assert fragment in str(err.value)


def test_big_endian_arrays_read_as_native_ones():
    v = np.array([(0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 0, 1)], ">f8")
    t = np.array([(0, 1, 2), (1, 3, 2)], ">i4")
    level = level_from_arrays(v, t)
    assert level.triangles.tolist() == t.tolist() and level.vertices.tolist() == v.tolist()
    with pytest.raises(GraphError, match="triangle 1 names vertex 4, but there are 4"):
        level_from_arrays(v, np.array([(0, 1, 2), (1, 4, 2)], ">u8"))


def test_bad_tags():
    v, t = [(0, 0, 0), (1, 0, 0), (0, 0, 1)], [(0, 1, 2)]
    for tags in (["a", "b"], "a", [3]):
        with pytest.raises(GraphError, match="tags must be one tag name"):
            level_from_arrays(v, t, tags=tags)
    with pytest.raises(NavError, match="up must be"):
        level_from_arrays(v, t, up=None)
