"""The level graph type (a 3D level's Recast navmesh, searched as a
layered navmesh) passes navcore's conformance kit: its paths are
geometric (their ``cost`` is the length on the ground plane, their points
3D), its updates the generic ones on polygons (the mesh is fixed). With
off-mesh links too (their paths walks joined by jumps), and the kit
catches a linked search that is wrong in each way it checks."""
import math

import numpy as np
import pytest

import navcore
import navcore.testing
import navcore_navmesh.plugin
from navcore.testing import GraphFactory

from generic_updates import GenericUpdates

QUAD = np.array([[0, 2, 1], [0, 3, 2]])


def _box(x0, z0, x1, z1, y):
    return np.array([[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]], dtype=float)


class LevelFactory(GenericUpdates, GraphFactory):
    """A ground floor of 8-14 x 6-10 units with 1-3 blocks standing on it
    (walls: Recast keeps the agent radius from them) and, half the time, a
    storey over its west end reached by a ramp or by nothing (cut off);
    coarse cells keep the meshes at 10 to 60 polygons."""

    graph_type = "level"
    geometric_algorithms = frozenset({"auto", "polyanya", "funnel", "astar", "dijkstra"})

    def build(self, world, graph_id, rng):
        w, d = int(rng.integers(8, 15)), int(rng.integers(6, 11))
        parts = [_box(0, 0, w, d, 0.0)]
        for _ in range(int(rng.integers(1, 4))):           # blocks 3 high: walls
            x, z = rng.uniform(1, w - 3), rng.uniform(1, d - 3)
            sx, sz = rng.uniform(0.5, 2.5, 2)
            top = _box(x, z, x + sx, z + sz, 3.0)
            parts.append(top)
            for a, b in ((0, 1), (1, 2), (2, 3), (3, 0)):   # its sides
                lo = top[[a, b]].copy()
                lo[:, 1] = 0.0
                parts.append(np.vstack([lo, top[[b, a]]]))
        if rng.random() < 0.5:                              # a storey, maybe a ramp up
            parts.append(_box(0, 0, 4, d, 4.0))
            if rng.random() < 0.6:
                parts.append(np.array([[4, 4, 0], [9, 0, 0], [9, 0, 2], [4, 4, 2]], float))
        verts = np.vstack(parts)
        tris = np.vstack([QUAD + 4 * k for k in range(len(parts))])
        return world.add_graph(graph_id, type="level", vertices=verts, triangles=tris,
                               cell_size=0.25, agent_radius=0.25, region_min_size=2,
                               region_merge_size=4, **self.settings)

    #: more add_graph keywords (the tiled factory's tile_size)
    settings: dict = {}


class TiledLevelFactory(LevelFactory):
    """The same levels built in 16-cell tiles (4 units) stitched into one
    mesh, as a level wider than one default tile is built."""

    settings = {"tile_size": 16}


@navcore.testing.parametrize([LevelFactory()], seeds=(0, 1))
def test_level_conforms(factory, check):
    check(factory)


@navcore.testing.parametrize([TiledLevelFactory()], seeds=(0,))
def test_tiled_level_conforms(factory, check):
    check(factory)


class LinkedLevelFactory(LevelFactory):
    """A level of ``LevelFactory`` with 1 to 4 off-mesh links between
    random points of its surface (so some join parts no walkable geometry
    joins: the storey with no ramp, a block's top), some one-way, some
    charging less than their length (teleports) or more (ladders)."""

    name = "level-linked"

    def build(self, world, graph_id, rng):
        graph = super().build(world, graph_id, rng)
        links = []
        for _ in range(int(rng.integers(1, 5))):
            a, b = (tuple(float(x) for x in world.random_point(graph_id, rng).point)
                    for _ in range(2))
            link = {"start": a, "end": b, "radius": 0.1,
                    "bidirectional": bool(rng.random() < 0.6)}
            if rng.random() < 0.5:
                link["cost"] = float(rng.uniform(0.1, 3.0)) * math.dist(a, b)
            links.append(link)
        graph.set_links(links)
        return graph


@navcore.testing.parametrize([LinkedLevelFactory()], seeds=(0, 1, 2))
def test_linked_level_conforms(factory, check):
    check(factory)


def _with_links(result, links):
    result.links = links
    return result


class LinkCostsDropped:
    """Reports a path through links at its walked length only."""

    @navcore.hookimpl(wrapper=True)
    def navcore_find_path(self, graph, request):
        r = yield
        if r is None or not r.found or not r.links:
            return r
        charged = sum(float(graph.links.cost[taken.link]) for taken in r.links)
        return _with_links(navcore.PathResult(r.status, r.nodes, r.points, r.cost - charged,
                                              r.expanded, r.algorithm), r.links)


class LinksUnreported:
    """Reports no links on a path that takes some."""

    @navcore.hookimpl(wrapper=True)
    def navcore_find_path(self, graph, request):
        r = yield
        if r is None or not r.found or not r.links:
            return r
        return navcore.PathResult(r.status, r.nodes, r.points, r.cost, r.expanded,
                                  r.algorithm)


class WalkingPreferred:
    """Answers a path through links with the walk between the ends when
    there is one (a search that does not weigh links against walking): a
    path in itself correct, but dearer than by the link."""

    @navcore.hookimpl(wrapper=True)
    def navcore_find_path(self, world, graph, request):
        r = yield
        if r is None or not r.found or not r.links:
            return r
        links, graph.links = graph.links, None
        try:
            walk = navcore_navmesh.plugin.navcore_find_path(world, graph, request)
        finally:
            graph.links = links
        return walk if walk is not None and walk.found else r


@pytest.mark.parametrize("plugin, message", [
    (LinkCostsDropped(), "links charge"),
    (LinksUnreported(), "no finite edge"),
    (WalkingPreferred(), "by link"),
], ids=lambda v: type(v).__name__ if not isinstance(v, str) else None)
def test_the_kit_catches_a_broken_linked_search(plugin, message):
    factory = LinkedLevelFactory()
    factory.plugins = (plugin,)
    with pytest.raises(AssertionError, match=message):
        navcore.testing.check_paths_match_reference(factory)
