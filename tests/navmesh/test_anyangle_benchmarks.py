"""Both any-angle searches on the shared benchmark's maps (exact shortest
lengths in ``../shared/data/navmesh``, computed there by two independent
visibility-graph methods): ``polyanya`` equal to them to 1e-6, ``funnel``
never shorter (its excess printed; run with -s to see). Every answer is
checked as a path (``reference.check_any_angle_path``)."""
import csv
from pathlib import Path

import numpy as np
import pytest
import shapely

import navcore
from reference import check_any_angle_path

# small meshes: the kernels also run as plain Python (make test-nojit)
pytestmark = pytest.mark.nojit

DATA = Path(__file__).resolve().parents[2].parent / "shared/data/navmesh"


def _queries(name):
    with open(DATA / f"{name}.anyangle.csv") as f:         # sx, sy, gx, gy, length
        return [tuple(float(v) for v in row[:5]) for row in list(csv.reader(f))[1:]]


# arena.mesh's queries run on arena.map here (the same free space, the data
# README checked; tests/navmesh/test_meshfile.py runs them on the .mesh);
# 100 of them are Polyanya's shipped tests with ends on integer corners:
# mesh vertices and edges, the degenerate cases
@pytest.mark.parametrize("algorithm", ["polyanya", "funnel"])
@pytest.mark.parametrize("name, map_name", [("arena", "arena"), ("den312d", "den312d"),
                                            ("arena.mesh", "arena")])
def test_benchmark_maps(name, map_name, algorithm):
    if not (DATA / f"{map_name}.map").exists():
        pytest.skip(f"{DATA} not available")
    world = navcore.World(autoload=False)
    # the data's rule is Polyanya's: only . and G are floor (its README)
    graph = world.add_graph(name, type="navmesh", map=str(DATA / f"{map_name}.map"),
                            passable=".G")
    free = graph.free_space.buffer(1e-9)
    shapely.prepare(free)
    excess = []
    for sx, sy, gx, gy, exact in _queries(name):
        r = world.find_path(name, (sx, sy), (gx, gy), algorithm=algorithm)
        assert r.algorithm == algorithm
        check_any_angle_path(graph, r, (sx, sy), (gx, gy), free)
        if algorithm == "polyanya":
            assert r.cost == pytest.approx(exact, rel=1e-6), (sx, sy, gx, gy, r.points.tolist())
        else:
            assert r.cost >= exact * (1 - 1e-9), (sx, sy, gx, gy, r.cost, exact)
        excess.append(r.cost / exact - 1)
    excess = np.array(excess)
    print(f"\n{name}: {graph.num_polygons} polygons, {algorithm} over exact: "
          f"mean {excess.mean():.2%}, worst {excess.max():.2%}, largest error "
          f"{np.abs(excess).max():.1e}")
