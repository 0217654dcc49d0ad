"""Saved files (baked meshes, csr and road hierarchies, CCH orders) are
written whole, named as given, only over regular files
(``navcore.files.write_atomic``)."""
import os
import stat

import numpy as np
import pytest

import navcore
import navcore_csr
import navcore_navmesh
import navcore_roads
from navcore.files import write_atomic


def _saver(name):
    """(save(path), load(path) -> something comparable) of one kind of file."""
    world = navcore.World()
    grid = world.add_graph("g", type="grid", rows=["......", ".##...", "......"])
    ch = navcore_csr.contract(grid)
    rng = np.random.default_rng(1)
    n = 30
    src, dst = rng.integers(0, n, 90), rng.integers(0, n, 90)
    pos = rng.random((n, 2)) * 0.01 + [7.4, 43.7]
    roads = world.add_graph("r", type="roads", src=src, dst=dst, length=rng.random(90) * 100,
                            speed=np.full(90, 50.0), positions=pos, keep="all")
    rch = navcore_roads.contract(roads)
    mesh = world.add_graph("m", type="navmesh", bounds=(0, 0, 8, 8),
                           obstacles=[[(3, 3), (5, 3), (5, 5), (3, 5)]])
    return {
        "csr hierarchy": (ch.save,
                          lambda p: navcore_csr.load_contracted(grid, p).find_path(0, 17).cost),
        "road hierarchy": (rch.save,
                           lambda p: navcore_roads.load_hierarchy(roads, p).num_shortcuts),
        "baked mesh": (lambda p: navcore_navmesh.save_mesh(p, mesh),
                       lambda p: navcore_navmesh.load_mesh(p).poly_start.size),
        "polyanya mesh": (lambda p: navcore_navmesh.write_polyanya_mesh(p, mesh),
                          lambda p: os.path.getsize(p) > 0),
    }[name]


@pytest.fixture(params=["csr hierarchy", "road hierarchy", "baked mesh", "polyanya mesh"])
def saver(request):
    return _saver(request.param)


def test_the_file_is_named_as_given_and_loads_back(tmp_path, saver):
    save, load = saver
    path = tmp_path / "level.ch"                   # no .npz: none is added
    save(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["level.ch"]
    assert load(path) == load(str(path))


def test_a_folder_or_a_named_pipe_is_refused_and_left_as_it_was(tmp_path, saver):
    save, _ = saver
    folder = tmp_path / "dir"
    folder.mkdir()
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for target, kind in ((folder, "a folder"), (pipe, "a named pipe")):
        with pytest.raises(navcore.NavError, match=f"it is {kind}, not a regular file"):
            save(target)
    assert folder.is_dir() and stat.S_ISFIFO(os.stat(pipe).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "pipe"]


def test_a_symlink_is_followed_and_kept(tmp_path, saver):
    save, load = saver
    real = tmp_path / "real.bin"
    real.write_bytes(b"old")
    os.chmod(real, 0o640)
    link = tmp_path / "link.bin"
    link.symlink_to(real)
    save(link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() != b"old" and load(link) == load(real)
    assert stat.S_IMODE(real.stat().st_mode) == 0o640      # a replaced file keeps its mode


@pytest.mark.nojit
def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "x.npz"
    target.write_bytes(b"old")

    def broken(fd, mode):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fdopen", broken)
    with pytest.raises(navcore.NavError, match="No space left on device"):
        write_atomic(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.npz"]


@pytest.mark.nojit
@pytest.mark.parametrize("bad", [None, 3, "", "   ", b"x"])
def test_not_a_path_is_a_nav_error(bad):
    with pytest.raises(navcore.NavError, match="file path"):
        write_atomic(bad, b"x")


def _damaged(data: bytes, rng, kind: str) -> bytes:
    b = bytearray(data)
    if kind == "truncate":
        return bytes(b[: int(rng.integers(1, len(b)))])
    for _ in range(int(rng.integers(1, 4))):        # a few flipped bits
        i = int(rng.integers(len(b)))
        b[i] ^= 1 << int(rng.integers(8))
    return bytes(b)


@pytest.mark.parametrize("kind", ["csr hierarchy", "road hierarchy", "baked mesh"])
def test_damaged_files_are_refused_by_every_loader_with_a_nav_error(tmp_path, kind):
    """Truncated and bit-flipped files (zip headers, npy headers, array
    bytes) are a NavError naming the file, or, where a flip changed nothing
    the file is read for, load as the original did: never a raw exception
    and never a different answer. (Polyanya's text format has no checksum:
    its reader checks the mesh's structure only.)"""
    save, load = _saver(kind)
    good = tmp_path / "good.bin"
    save(good)
    want = load(good)
    data = good.read_bytes()
    rng = np.random.default_rng(11)
    refused = 0
    for k in range(60):
        bad = tmp_path / f"bad{k}.bin"
        bad.write_bytes(_damaged(data, rng, "truncate" if k % 3 == 0 else "flip"))
        try:
            got = load(bad)
        except navcore.NavError as exc:
            assert str(bad) in str(exc)
            refused += 1
            continue
        assert got == want, k
    assert refused >= 40
