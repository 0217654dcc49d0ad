"""``navcore_matrix_search_side``: the side a distance matrix searches
from, as the plugin that answers the matrix says (navcore_dask cuts its
tiles along it)."""
from pathlib import Path

import pytest

import navcore
import navcore_roads
from hooktags import exercises

MONACO = Path(__file__).resolve().parents[2] / "scenes" / "maps" / "monaco.osm.gz"


def _side(world, gid, ns, nt):
    return world.plugins.hook.navcore_matrix_search_side(
        world=world, graph=world.graph(gid), num_sources=ns, num_targets=nt)


@pytest.mark.nojit
@exercises("navcore_matrix_search_side")
def test_csr_searches_from_the_targets_only_when_directed_and_they_are_fewer():
    world = navcore.World(warm_up=False)
    world.add_graph("d", type="csr", src=[0, 1], dst=[1, 2], directed=True)
    world.add_graph("u", type="csr", src=[0, 1], dst=[1, 2], directed=False)
    assert _side(world, "d", 5, 3) == "targets"
    assert _side(world, "d", 3, 5) == "sources" and _side(world, "d", 4, 4) == "sources"
    assert _side(world, "u", 5, 3) == "sources"      # undirected: rows are as cheap


@exercises("navcore_matrix_search_side")
def test_road_hierarchies_name_the_larger_side():
    world = navcore.World()
    g = world.add_graph("m", type="roads", osm=MONACO)
    assert g.directed
    assert _side(world, "m", 50, 20) == "targets"    # no hierarchy: the csr rule
    navcore_roads.contract(g)
    assert _side(world, "m", 50, 20) == "sources"    # buckets: cut the larger side
    assert _side(world, "m", 20, 50) == "targets"
