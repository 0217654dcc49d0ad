"""The Recast/Detour peer tooling (tests/recastpeer.py): recast_bench is
built and read correctly (its README's deterministic counts, Recast's mesh
invariants, Detour's 21 reference paths), and mesh_area_difference measures
what it says on meshes made by hand."""
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import recastpeer as rp
from navcore_levels import LevelConfig

LEVELS = ("nav_test", "dungeon", "undulating")

# The peer README's table: deterministic in every run.
EXPECTED = {
    "nav_test": dict(grid=(305, 258), input=(884, 1612), polys=155, verts=349, detail_tris=561,
                     detail_verts=812, regions=48),
    "dungeon": dict(grid=(248, 330), input=(5101, 10133), polys=118, verts=223, detail_tris=291,
                    detail_verts=513, regions=16),
    "undulating": dict(grid=(330, 331), input=(2800, 5202), polys=216, verts=374,
                       detail_tris=3198, detail_verts=2805, regions=42),
}

# len3d of the 21 nav_mesh_test queries at the defaults (peer README table).
README_LEN3D = [60.323822, 49.968562, 43.703091, 45.291703, 43.960280, 17.354414, 45.142526,
                42.172099, 40.130495, 39.307074, 19.889156, 30.200203, 16.902459, 24.898089,
                23.032217, 34.560522, 28.212486, 39.178928, 24.973567, 28.247464, 16.886534]


@pytest.fixture(scope="module")
def results():
    return {lvl: rp.run_recast(rp.LEVELS / f"{lvl}.obj",
                               queries=(rp.LEVELS / "nav_mesh_test.queries"
                                        if lvl == "nav_test" else None))
            for lvl in LEVELS}


@pytest.mark.parametrize("level", LEVELS)
def test_counts_and_grid_agree_with_the_peer_readme(results, level):
    r, want = results[level], EXPECTED[level]
    assert r.grid == want["grid"]
    assert (r.input_verts, r.input_tris) == want["input"]
    for k in ("polys", "verts", "detail_tris", "detail_verts", "regions"):
        assert r.counts[k] == want[k], k
    assert r.mesh.polys.shape == (want["polys"], 6)
    assert r.mesh.verts.shape == (want["verts"], 3) == r.world_verts.shape
    assert r.mesh.nvp == 6 and r.mesh.border_size == 0
    assert np.all(r.flags == 1) and np.all(r.detour_areas == 0)
    assert np.all(r.mesh.areas == 63)
    # every stage of the README's list was timed, in pipeline order
    names = list(r.stages)
    assert names[0] == "rcCalcGridSize" and names[-1] == "dtNavMesh_init+query_init"
    assert {"rcRasterizeTriangles", "rcBuildRegions", "rcBuildPolyMesh"} <= set(names)
    assert len(names) == 16
    assert all(0 <= lo <= med for lo, med in r.stages.values())
    assert set(r.totals) == {"recast_total(grid..detail)", "total(all_stages)",
                             "total_thread_cpu"}


@pytest.mark.parametrize("level", LEVELS)
def test_voxel_units_are_level_configs(results, level):
    """LevelConfig converts RecastDemo's defaults as recast_bench does."""
    cfg, vu = LevelConfig(), results[level].voxel_units
    assert vu["walkable_height"] == cfg.walkable_height
    assert vu["walkable_climb"] == cfg.walkable_climb
    assert vu["walkable_radius"] == cfg.walkable_radius
    assert vu["max_edge_len"] == cfg.max_edge_len_cells
    assert vu["min_region_area"] == cfg.min_region_area
    assert vu["merge_region_area"] == cfg.merge_region_area
    assert vu["detail_sample_dist"] == pytest.approx(cfg.detail_sample_distance, rel=1e-6)
    assert vu["detail_sample_max_error"] == pytest.approx(cfg.detail_sample_error, rel=1e-6)


def _polys(mesh):
    return [[int(v) for v in row if v >= 0] for row in mesh.polys]


@pytest.mark.parametrize("level", LEVELS)
def test_parsed_mesh_has_recasts_winding_padding_and_world_vertices(results, level):
    m, world = results[level].mesh, results[level].world_verts
    for p, row in enumerate(m.polys):
        n = int((row >= 0).sum())
        assert n >= 3 and np.all(row[:n] >= 0) and np.all(row[n:] == -1), p
        assert np.all(m.neighbors[p, n:] == -1)
        x, z = m.verts[row[:n], 0].astype(np.int64), m.verts[row[:n], 2].astype(np.int64)
        assert np.sum(x * np.roll(z, -1) - np.roll(x, -1) * z) < 0, p
    assert m.polys.max() < len(m.verts)
    # Detour's world vertices: bmin + voxel * (cs, ch, cs) in float32
    f32 = (m.bmin.astype(np.float32)
           + m.verts.astype(np.float32) * np.array([m.cs, m.ch, m.cs], dtype=np.float32))
    np.testing.assert_allclose(world, f32, rtol=0, atol=1e-5 * max(1, np.abs(world).max()))
    np.testing.assert_allclose(m.world_vertices(), world, rtol=0, atol=1e-3)


@pytest.mark.parametrize("level", LEVELS)
def test_parsed_neighbours_are_the_shared_edges(results, level):
    """Polygon q is across edge (a, b) of p exactly when q has edge (b, a),
    and then p is across that edge of q."""
    m = results[level].mesh
    plist = _polys(m)
    owner = {}
    for p, vs in enumerate(plist):
        for j in range(len(vs)):
            owner[(vs[j], vs[(j + 1) % len(vs)])] = (p, j)
    linked = 0
    for p, vs in enumerate(plist):
        for j in range(len(vs)):
            a, b = vs[j], vs[(j + 1) % len(vs)]
            other = owner.get((b, a))
            q = int(m.neighbors[p, j])
            if other is None:
                assert q == -1, (p, j)
            else:
                assert q == other[0], (p, j)
                assert m.neighbors[other[0], other[1]] == p
                linked += 1
    assert linked > len(plist)          # the mesh is connected, not a set of islands


def test_detour_paths_parse_to_the_reference_lengths_and_points(results):
    r = results["nav_test"]
    ref_lines = [ln.split() for ln in
                 (rp.LEVELS / "nav_mesh_test.detour_paths.txt").read_text().splitlines()
                 if ln.strip() and not ln.startswith("#")]
    assert len(r.paths) == len(ref_lines) == 21
    np.testing.assert_array_equal(r.path_lengths, README_LEN3D)
    np.testing.assert_array_equal(r.path_lengths, [float(t[5]) for t in ref_lines])
    for p, ref in zip(r.paths, ref_lines):
        assert p.status == "ok" and p.path_status == 0x40000000
        assert p.npolys == int(ref[3]) and len(p.points) == int(ref[4])
        np.testing.assert_array_equal(p.points.ravel(), [float(t) for t in ref[11:]])
        seg = np.diff(p.points, axis=0)
        assert math.isclose(np.linalg.norm(seg, axis=1).sum(), p.len3d, abs_tol=1e-5)
        assert math.isclose(np.linalg.norm(seg[:, [0, 2]], axis=1).sum(), p.len2d, abs_tol=1e-5)
        assert 0 < p.nearest_us and 0 < p.path_us and 0 < p.straight_us
    s = r.query_summary
    assert (s["queries"], s["ok"], s["partial"], s["nopoly"], s["fail"]) == (21, 21, 0, 0, 0)
    assert s["median_us"] > 0


def test_settings_reach_recast_bench_and_results_are_shared():
    nav = rp.LEVELS / "nav_test.obj"
    fine = rp.run_recast(nav, cell_size=0.1)
    assert fine.grid == (914, 774)
    assert (fine.counts["polys"], fine.counts["verts"], fine.counts["regions"]) == (299, 668, 117)
    assert rp.run_recast(nav, cell_size=0.1) is fine
    again = rp.run_recast(nav, cell_size=0.1, fresh=True)
    assert again is not fine and again.counts == fine.counts
    assert rp.run_recast(nav, cell_size=0.1) is again
    # a LevelConfig gives the same build as the defaults; keywords override it
    same = rp.run_recast(nav, LevelConfig())
    assert same.counts == rp.run_recast(nav).counts
    assert rp.run_recast(nav, LevelConfig(), cell_size=0.1).counts == fine.counts
    with pytest.raises(ValueError, match="unknown recast settings"):
        rp.run_recast(nav, cell_sise=0.1)
    with pytest.raises(ValueError, match="one tile"):
        rp.run_recast(nav, tile_size=32)


@pytest.mark.parametrize("level", LEVELS)
def test_read_obj_gives_recast_bench_its_triangles(results, level):
    v, t = rp.read_obj(rp.LEVELS / f"{level}.obj")
    assert (len(v), len(t)) == EXPECTED[level]["input"]
    assert t.min() >= 0 and t.max() < len(v)


def test_read_obj_fans_faces_and_resolves_relative_indices(tmp_path):
    f = tmp_path / "m.obj"
    f.write_text("v 0 0 0\nv 1 0 0\nvt 0 0\nv 1 0 1\nv 0 0 1\n"
                 "f 1/1/1 2/1/1 3/1/1 4/1/1\nf -4 -2 -1\nf 1 2 9\n")
    v, t = rp.read_obj(f)
    assert v.shape == (4, 3)
    assert t.tolist() == [[0, 1, 2], [0, 2, 3], [0, 2, 3]]


def test_source_hash_changes_with_any_source_file(tmp_path):
    import shutil
    src = tmp_path / "recast"
    shutil.copytree(rp.RECAST_SRC, src)
    before = rp.source_hash(src)
    assert rp.source_hash(src) == before
    hdr = src / "Detour" / "Include" / "DetourCommon.h"
    os.chmod(hdr, 0o644)
    hdr.write_text(hdr.read_text() + "\n")
    assert rp.source_hash(src) != before


def test_missing_compiler_skips_outside_ci_and_fails_in_ci(monkeypatch, tmp_path):
    monkeypatch.setenv("CXX", "no-such-compiler-navcore")
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("NAVCORE_REQUIRE_PEERS", raising=False)
    with pytest.raises(pytest.skip.Exception, match="g\\+\\+ is not installed"):
        rp.recast_bench_path(cache=tmp_path)
    with pytest.raises(rp.RecastPeerError, match="not installed"):
        rp.recast_bench_path(cache=tmp_path, skip=False)
    for var in ("CI", "NAVCORE_REQUIRE_PEERS"):
        monkeypatch.setenv(var, "true")
        with pytest.raises(rp.RecastPeerError, match="NAVCORE_REQUIRE_PEERS is set"):
            rp.recast_bench_path(cache=tmp_path)
        monkeypatch.delenv(var)
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
def test_two_processes_building_at_once_compile_once(tmp_path):
    """Two processes asking for a fresh build: one compiles, the other
    waits on the lock and uses its executable."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import recastpeer as rp; "
            "print(rp.recast_bench_path(cache=sys.argv[2], skip=False))")
    tests = str(Path(rp.__file__).parent)
    procs = [subprocess.Popen([sys.executable, "-c", code, tests, str(tmp_path)],
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate()[0].strip() for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert outs[0] == outs[1]
    exe = Path(outs[0])
    assert [p.name for p in tmp_path.iterdir() if p.name != ".lock"] == [exe.name]
    out = subprocess.run([str(exe), str(rp.LEVELS / "dungeon.obj"), "--rounds", "1"],
                         capture_output=True, text=True, check=True).stdout
    assert "counts polys 118 verts 223" in out


# --------------------------------------------------------------------------
# mesh_area_difference on meshes made by hand

def square(x0, z0, size, y=0.0):
    """(verts, polys): one quad in Recast's winding."""
    v = np.array([[x0, y, z0], [x0, y, z0 + size], [x0 + size, y, z0 + size],
                  [x0 + size, y, z0]], dtype=float)
    return v, [[0, 1, 2, 3]]


def join(*meshes):
    verts, polys, off = [], [], 0
    for v, ps in meshes:
        verts.append(v)
        polys += [[i + off for i in p] for p in ps]
        off += len(v)
    return np.vstack(verts), polys


def test_identical_meshes_differ_by_nothing(results):
    v, p = square(0, 0, 10)
    d = rp.mesh_area_difference(v, p, v, p, 0.5)
    assert (d.extra, d.missing, d.relative) == (0, 0, 0)
    assert d.area_a == d.area_b == 100
    r = results["nav_test"]
    d = rp.mesh_area_difference(r.world_verts, r.mesh.polys, r.world_verts, r.mesh.polys, 0.5)
    assert d.relative == 0 and d.area_b > 1000
    assert all(f["relative"] == 0 for f in d.per_floor.values())


def test_a_shifted_mesh_differs_by_the_swept_area():
    a = square(2, 0, 10)
    b = square(0, 0, 10)
    d = rp.mesh_area_difference(*a, *b, 0.5)
    assert d.extra == pytest.approx(20) and d.missing == pytest.approx(20)
    assert d.relative == pytest.approx(0.4)
    # shifted up by less than the tolerance: the same floor
    d = rp.mesh_area_difference(*square(0, 0, 10, y=0.3), *b, 0.5)
    assert d.relative == pytest.approx(0)
    # shifted up by more: a different floor, nothing matches
    d = rp.mesh_area_difference(*square(0, 0, 10, y=0.8), *b, 0.5)
    assert (d.extra, d.missing, d.relative) == (100, 100, 2)
    assert d.per_floor[-1]["extra"] == 100 and d.per_floor[0]["missing"] == 100


def test_a_missing_storey_is_missing_though_the_other_lies_under_it():
    ground, upper = square(0, 0, 10, y=0.0), square(0, 0, 10, y=4.0)
    both = join(ground, upper)
    d = rp.mesh_area_difference(*ground, *both, 1.0)
    assert d.missing == pytest.approx(100) and d.extra == 0
    assert d.relative == pytest.approx(0.5)
    fl = d.floors_b
    assert fl[0] != fl[1]
    assert d.per_floor[int(fl[1])]["missing"] == pytest.approx(100)
    assert d.per_floor[int(fl[1])]["relative"] == pytest.approx(1)
    assert d.per_floor[int(fl[0])]["relative"] == 0
    d = rp.mesh_area_difference(*upper, *both, 1.0)
    assert d.missing == pytest.approx(100) and d.per_floor[int(fl[0])]["missing"] == 100
    assert rp.mesh_area_difference(*both, *both, 1.0).relative == 0


def test_a_bridge_over_a_road():
    road = square(0, 0, 10, y=0.0)
    road = (road[0] * [3, 1, 1], road[1])                 # 30 x 10 at y 0
    bridge = square(10, -10, 10, y=3.0)
    bridge = (bridge[0] * [1, 1, 3] + [0, 0, 20], bridge[1])   # 10 x 30 at y 3, z -10..20
    assert np.ptp(bridge[0][:, 2]) == 30
    both = join(road, bridge)
    d = rp.mesh_area_difference(*road, *both, 1.0)
    assert d.missing == pytest.approx(300) and d.extra == 0
    d = rp.mesh_area_difference(*bridge, *both, 1.0)
    assert d.missing == pytest.approx(300)


def test_triangles_and_a_quad_of_the_same_square_do_not_differ():
    v, quad = square(0, 0, 10)
    tris = [[0, 1, 2], [0, 2, 3]]
    assert rp.mesh_area_difference(v, tris, v, quad, 0.1).relative == pytest.approx(0, abs=1e-12)
    assert rp.mesh_area_difference(v, quad, v, tris, 0.1).relative == pytest.approx(0, abs=1e-12)
    # padded arrays as PolyMesh stores them
    padded = np.array([[0, 1, 2, -1], [0, 2, 3, -1]])
    assert rp.mesh_area_difference(v, padded, v, quad, 0.1).relative == pytest.approx(0, abs=1e-12)


def test_a_ramp_cut_differently_matches_by_its_plane():
    # a ramp rising 5 over 10 along x; triangles vs the quad, tolerance far
    # below the rise so only the plane heights can make them match
    v, quad = square(0, 0, 10)
    v[:, 1] = v[:, 0] * 0.5
    tris = [[0, 1, 2], [0, 2, 3]]
    assert rp.mesh_area_difference(v, tris, v, quad, 1e-6).relative == pytest.approx(0, abs=1e-12)
    # the same ramp against a flat floor at its mid height: matched only where
    # the overlap's centroid is within the tolerance
    flat, fq = square(0, 0, 10, y=2.5)
    assert rp.mesh_area_difference(v, quad, flat, fq, 0.1).relative == 0     # centroid at 2.5
    strips = join(*[square(x, 0, 1, y=0) for x in range(10)])
    sv = strips[0] * [1, 1, 10]                    # ten 1 x 10 strips covering the ramp
    sv[:, 1] = 2.5
    d = rp.mesh_area_difference(v, quad, sv, strips[1], 0.6)
    # the ramp is 0.25..4.75 high at the strips' centres x = 0.5..9.5: within 0.6 of 2.5
    # at x = 4.5 and 5.5 only (0.25 off; 3.5 and 6.5 are 0.75 off)
    assert d.missing == pytest.approx(80) and d.extra == pytest.approx(80)


def test_floors_follow_neighbours_or_shared_edges():
    a, b = square(0, 0, 1), square(1, 0, 1)
    c = square(5, 5, 1)
    v, p = join(a, b, c)
    # a and b share positions but not vertex indices: separate floors by edges
    assert rp.floors(p).tolist() == [0, 1, 2]
    # two quads sharing the vertices 2 and 3: one floor
    p2 = [[0, 1, 2, 3], [3, 2, 4, 5]]
    assert rp.floors(p2).tolist() == [0, 0]
    nei = np.array([[-1, -1, 1, -1], [-1, -1, -1, -1]])
    assert rp.floors(p2, nei).tolist() == [0, 0]
    assert rp.floors(p2, np.full((2, 4), -1)).tolist() == [0, 1]
