"""Queries that allocate in proportion to their arguments weigh that first:
a ``CapacityError`` before any end is converted, on every graph type.
Most tests make the memory small (``available_memory``) and the queries
modest; one passes views of one value (``np.broadcast_to``): 10**12 ends
that cost no memory until converted, which without the check was minutes
of scanning, then a MemoryError."""
import numpy as np
import pytest

import navcore
import navcore_csr
import navcore_roads
from navcore_navmesh import path_lengths

pytestmark = pytest.mark.nojit

#: 0.8 of it may be used: 80 kB
MEMORY = 10 ** 5
K = 2000                            # pairs: 128 kB at 64 bytes a pair
IDS = np.zeros(K, dtype=np.int32)


@pytest.fixture(scope="module")
def w():
    w = navcore.World()
    w.add_graph("csr", type="csr", src=[0, 1], dst=[1, 2], cost=[1.0, 2.0])
    w.add_graph("grid", type="grid", rows=["...", "..."])
    w.add_graph("navmesh", type="navmesh", bounds=(0, 0, 4, 4))
    w.add_graph("roads", type="roads", src=[0, 1, 2], dst=[1, 2, 0],
                length=[100.0, 100.0, 100.0], speed=36.0)
    return w


@pytest.fixture
def little(monkeypatch):
    monkeypatch.setattr(navcore.limits, "available_memory", lambda: MEMORY)


@pytest.mark.parametrize("gid", ["csr", "grid", "navmesh", "roads"])
def test_distance_pairs_and_matrix_weigh_their_size_first(w, gid, little):
    with pytest.raises(navcore.CapacityError,
                       match=rf"distance_pairs of {K} pairs needs about 0.0 GB"):
        w.distance_pairs(gid, IDS, IDS)
    with pytest.raises(navcore.CapacityError, match=rf"a {K} x {K} distance matrix"):
        w.distance_matrix(gid, IDS, IDS)
    # small queries still answer
    assert w.distance_pairs(gid, [0], [0]).tolist() == [0.0]
    assert w.distance_matrix(gid, [0], [0]).tolist() == [[0.0]]


def test_distance_pairs_of_points_weigh_their_size_first(w, little):
    pts = np.ones((K, 2))
    with pytest.raises(navcore.CapacityError, match=rf"of {K} pairs"):
        w.distance_pairs("navmesh", pts, pts)
    with pytest.raises(navcore.CapacityError, match=rf"path_lengths of {K} pairs"):
        path_lengths(w.graph("navmesh"), pts, pts)


def test_plugin_functions_weigh_their_size_first(w, little):
    csr = w.graph("csr")
    with pytest.raises(navcore.CapacityError, match=rf"distance_pairs of {K} pairs"):
        navcore_csr.distance_pairs(csr, IDS, IDS)
    with pytest.raises(navcore.CapacityError, match=rf"a {K} x {K} distance matrix"):
        navcore_csr.distance_matrix(csr, IDS, IDS)
    with pytest.raises(navcore.CapacityError, match=rf"routes of {K} pairs"):
        navcore_roads.routes(w.graph("roads"), IDS, IDS)
    assert navcore_roads.routes(w.graph("roads"), [0], [1]).costs.tolist() == [10.0]


def test_a_navmesh_matrix_weighs_every_pairs_ends(w, little):
    # the matrix gathers each pair's ends before one search call: 192 bytes
    # a pair, where the answer World.distance_matrix weighs is 8
    pts = [(1.0, 1.0)] * 60
    with pytest.raises(navcore.CapacityError, match="a 60 x 60 navmesh distance matrix "
                                                    "of 3600 pairs needs"):
        w.distance_matrix("navmesh", pts, pts)


def test_views_of_a_trillion_ends_are_weighed_before_they_are_read(w):
    huge = 10 ** 12
    ids = np.broadcast_to(np.int32(0), (huge,))
    with pytest.raises(navcore.CapacityError,
                       match=rf"distance_pairs of {huge} pairs needs about 64000.0 GB"):
        w.distance_pairs("csr", ids, ids)
    with pytest.raises(navcore.CapacityError, match=rf"a {huge} x 2 distance matrix"):
        w.distance_matrix("grid", ids, [0, 1])
    with pytest.raises(navcore.CapacityError, match=rf"routes of {huge} pairs"):
        navcore_roads.routes(w.graph("roads"), ids, ids)
