"""Funnel paths on the MovingAI maps of the shared any-angle benchmark
(exact shortest lengths): never shorter than the optimum, inside the free
space, and how much longer they are (printed; run with -s to see)."""
import csv
from pathlib import Path

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString

import navcore

# small meshes: the kernels also run as plain Python (make test-nojit)
pytestmark = pytest.mark.nojit

DATA = Path(__file__).resolve().parents[2].parent / "shared/data/navmesh"


def _queries(name):
    with open(DATA / f"{name}.anyangle.csv") as f:         # sx, sy, gx, gy, length
        return [tuple(float(v) for v in row[:5]) for row in list(csv.reader(f))[1:]]


# arena.mesh's queries (on the same free space as arena.map) include 100 of
# Polyanya's shipped tests whose ends are integer corners: mesh vertices and
# edges, the degenerate cases of the funnel
@pytest.mark.parametrize("name, map_name", [("arena", "arena"), ("den312d", "den312d"),
                                            ("arena.mesh", "arena")])
def test_funnel_on_benchmark_maps_is_never_shorter_than_exact(name, map_name):
    if not (DATA / f"{map_name}.map").exists():
        pytest.skip(f"{DATA} not available")
    world = navcore.World(autoload=False)
    graph = world.add_graph(name, type="navmesh", map=str(DATA / f"{map_name}.map"))
    free = graph.free_space.buffer(1e-9)
    shapely.prepare(free)
    excess = []
    for sx, sy, gx, gy, exact in _queries(name):
        r = world.find_path(name, (sx, sy), (gx, gy), algorithm="funnel")
        assert r.status is navcore.PathStatus.FOUND, (sx, sy, gx, gy)
        assert r.cost >= exact * (1 - 1e-9), (sx, sy, gx, gy, r.cost, exact)
        assert r.points[0].tolist() == [sx, sy] and r.points[-1].tolist() == [gx, gy]
        assert free.covers(LineString(r.points)), (sx, sy, gx, gy, r.points.tolist())
        length = np.sqrt((np.diff(r.points, axis=0) ** 2).sum(axis=1)).sum()
        assert r.cost == pytest.approx(length, rel=1e-12)
        excess.append(r.cost / exact - 1)
    excess = np.array(excess)
    print(f"\n{name}: {graph.num_nodes} triangles, funnel excess over exact: "
          f"mean {excess.mean():.2%}, worst {excess.max():.2%}, "
          f"exact (<1e-9) {np.mean(excess < 1e-9):.0%} of {excess.size}")
    assert excess.max() < 0.5
