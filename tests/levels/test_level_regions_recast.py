"""The partition stage against C++ Recast, span for span: the distance
field, the watershed and the monotone regions of RecastDemo's levels (their
compact heightfields made by Recast itself) and of multi-floor levels made
by hand. ``recast_regions_driver.cpp`` runs Recast's functions; it is built
with the peer's sources (``../shared/peers/recast``) once per version, as
``recastpeer`` builds ``recast_bench``.

Where navcore departs from Recast on purpose the cases are left out: a raw
watershed region covering a cell twice (navcore splits it) and a level with
no span off an edge (navcore still floods it)."""
from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

import recastpeer as rp
from levelkit import chf_from_floors
from navcore_levels.heightfield import CompactHeightfield
from navcore_levels.regions import (build_distance_field, build_regions_monotone,
                                    build_regions_watershed)

DRIVER = Path(__file__).with_name("recast_regions_driver.cpp")
README_REGIONS = {"nav_test": 48, "dungeon": 16, "undulating": 42}


def driver_path() -> Path:
    """The driver built from the peer's Recast sources (skips the test
    without g++ outside CI, as recastpeer does)."""
    src = rp.RECAST_SRC
    compiler = shutil.which(os.environ.get("CXX", "g++"))
    if not (src / "Recast" / "Source").is_dir():
        rp._unavailable(f"the Recast peer's sources are not at {src}", True)
    if compiler is None:
        rp._unavailable("g++ is not installed: the Recast peer cannot be built", True)
    sources = sorted((src / "Recast" / "Source").glob("*.cpp"))
    digest = hashlib.sha256(" ".join(rp.CXX_FLAGS).encode())
    for f in [DRIVER, *sources, *sorted((src / "Recast" / "Include").glob("*.h"))]:
        digest.update(f.name.encode() + b"\0" + f.read_bytes())
    cache = rp.build_dir()
    exe = cache / f"recast_regions-{digest.hexdigest()[:16]}"
    if os.access(exe, os.X_OK):
        return exe
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".regions.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)        # another process may be building it
        if os.access(exe, os.X_OK):
            return exe
        for stale in cache.glob("regions-*"):          # a killed build's
            shutil.rmtree(stale, ignore_errors=True)
        tmp = Path(tempfile.mkdtemp(prefix="regions-", dir=cache))
        try:
            cmd = [compiler, *rp.CXX_FLAGS, *(str(s.relative_to(src)) for s in sources),
                   str(DRIVER), "-o", str(tmp / "driver")]
            r = subprocess.run(cmd, cwd=src, capture_output=True, text=True)
            if r.returncode != 0:
                raise rp.RecastPeerError(f"building the regions driver failed:\n{r.stderr[-4000:]}")
            os.replace(tmp / "driver", exe)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return exe


def write_chf(chf, path):
    header = [chf.width, chf.height, chf.span_count, chf.walkable_height, chf.walkable_climb,
              chf.border_size]
    np.concatenate([np.array(header), chf.cell_index, chf.cell_count, chf.y,
                    np.minimum(chf.h, 255), chf.neighbors.ravel(),
                    chf.area]).astype(np.int32).tofile(path)


def read_chf(path) -> CompactHeightfield:
    data = np.fromfile(path, np.int32)
    width, height, spans, walkable_height, walkable_climb, border = (int(v) for v in data[:6])
    parts = np.split(data[6:], np.cumsum([width * height, width * height, spans, spans,
                                          4 * spans]))
    return CompactHeightfield(
        width=width, height=height, border_size=border, walkable_height=walkable_height,
        walkable_climb=walkable_climb, bmin=np.zeros(3), cs=0.3, ch=0.2,
        cell_index=parts[0].copy(), cell_count=parts[1].copy(), y=parts[2].copy(),
        h=parts[3].copy(), neighbors=parts[4].reshape(spans, 4).copy(),
        area=parts[5].astype(np.uint8), dist=np.zeros(spans, np.uint16),
        region=np.zeros(spans, np.int32))


def read_regions(path, spans):
    data = np.fromfile(path, np.int32)
    out = {}
    at = 0
    for name in ("dist", "watershed", "monotone"):
        out[name] = (int(data[at]), data[at + 1:at + 1 + spans])
        at += 1 + spans
    return out


def assert_same_as_recast(chf, recast, border, min_area, merge_area, watershed=True):
    largest = build_distance_field(chf)
    assert largest == recast["dist"][0]
    np.testing.assert_array_equal(chf.dist, recast["dist"][1])
    if watershed:
        build_regions_watershed(chf, min_area, merge_area, border, max_distance=largest)
        assert chf.max_region == recast["watershed"][0]
        np.testing.assert_array_equal(chf.region, recast["watershed"][1])
    build_regions_monotone(chf, min_area, merge_area, border)
    assert chf.max_region == recast["monotone"][0]
    np.testing.assert_array_equal(chf.region, recast["monotone"][1])


@pytest.mark.parametrize("level", ["nav_test", "dungeon", "undulating"])
def test_recastdemo_levels_partition_as_recast(level, tmp_path):
    exe = driver_path()
    verts, tris = rp.read_obj(rp.LEVELS / f"{level}.obj")
    with open(tmp_path / "tris.bin", "wb") as f:
        np.array([len(verts), len(tris)], np.int32).tofile(f)
        verts.astype(np.float32).tofile(f)
        tris.astype(np.int32).tofile(f)
    subprocess.run([str(exe), "level", str(tmp_path / "tris.bin"), str(tmp_path / "chf.bin"),
                    str(tmp_path / "regions.bin")], check=True)
    chf = read_chf(tmp_path / "chf.bin")
    recast = read_regions(tmp_path / "regions.bin", chf.span_count)
    assert_same_as_recast(chf, recast, 0, 64, 400)
    # The watershed's region count the peer's README gives for the level.
    build_regions_watershed(chf, 64, 400, max_distance=build_distance_field(chf))
    assert chf.max_region == README_REGIONS[level]


def self_overlapping(chf, region):
    cell = np.repeat(np.arange(chf.width * chf.height), chf.cell_count)
    keep = (region > 0) & (region < 0x8000)
    pairs = np.unique(np.stack([region[keep], cell[keep]]), axis=1)
    return pairs.shape[1] < keep.sum()


def test_multi_floor_levels_partition_as_recast(tmp_path):
    exe = driver_path()
    rng = np.random.default_rng(2)
    compared = 0
    for case in range(80):
        height, width = (int(v) for v in rng.integers(6, 30, 2))
        layers = int(rng.integers(1, 4))
        floors = -np.ones((layers, height, width), int)
        ground = rng.random((height, width)) < rng.uniform(0.6, 0.95)
        rough = np.cumsum(rng.integers(-1, 2, (height, width)), axis=1) // 2 + 10
        floors[0][ground] = rough[ground]
        for layer in range(1, layers):
            z0, z1 = sorted(rng.integers(0, height, 2))
            x0, x1 = sorted(rng.integers(0, width, 2))
            climb = int(rng.integers(2, 4)) if rng.random() < 0.5 else 0
            for x in range(x0, x1 + 1):
                floors[layer, z0:z1 + 1, x] = 10 + 12 * layer + (x - x0) * climb
        areas = np.where(rng.random(floors.shape) < 0.1, rng.integers(1, 4, floors.shape), 63)
        border = int(rng.choice([0, 0, 2]))
        chf = chf_from_floors(floors, areas=areas, border_size=border)
        if chf.cell_count.reshape(height, width).sum(axis=1).max() >= max(width, height):
            continue        # Recast sizes its monotone sweep's per-row buffer max(width, height)
        min_area, merge_area = int(rng.integers(0, 30)), int(rng.integers(0, 60))
        write_chf(chf, tmp_path / "chf.bin")
        subprocess.run([str(exe), "chf", str(tmp_path / "chf.bin"), str(tmp_path / "r.bin"),
                        str(border), str(min_area), str(merge_area)], check=True)
        recast = read_regions(tmp_path / "r.bin", chf.span_count)
        departs = recast["dist"][0] == 0 or self_overlapping(chf, recast["watershed"][1])
        assert_same_as_recast(chf, recast, border, min_area, merge_area, watershed=not departs)
        compared += 1
    assert compared >= 30
