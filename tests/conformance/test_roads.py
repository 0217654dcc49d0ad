"""The roads graph type passes navcore's conformance kit. Its routes are
drawn (``points`` follows the road between junctions), it answers ``ch``
from its own directed hierarchy, and its random updates mix closures,
jams, speed changes, resets and closed junctions, selected by edge, by
way and by box (``bbox=``, west, south, east, north)."""
import numpy as np

import navcore.testing
from navcore.testing import GraphFactory


class RoadFactory(GraphFactory):
    """A jittered lattice of 4-12 x 3-9 junctions about 100 m apart near
    Helsinki, with random one-way streets, two speeds, some streets left
    out (parts cut off) and long chains of shape nodes to compress."""

    graph_type = "roads"
    drawn_points = True
    view_builders = {"ch": "navcore_roads:contract"}

    def build(self, world, graph_id, rng):
        w, h = int(rng.integers(4, 13)), int(rng.integers(3, 10))
        ix, iy = np.meshgrid(np.arange(w), np.arange(h), indexing="ij")
        lon = 24.9 + ix.ravel() * 0.0018 + rng.normal(0, 2e-4, w * h)
        lat = 60.17 + iy.ravel() * 0.0009 + rng.normal(0, 1e-4, w * h)
        node = np.arange(w * h).reshape(w, h)
        pairs = np.vstack([np.column_stack((node[:-1].ravel(), node[1:].ravel())),
                           np.column_stack((node[:, :-1].ravel(), node[:, 1:].ravel()))])
        pairs = pairs[rng.random(len(pairs)) < 0.85]
        # every street gets 0-2 shape nodes in its middle (to be compressed)
        pos = [np.column_stack((lon, lat))]
        src, dst, way = [], [], []
        nxt = w * h
        for k, (a, b) in enumerate(pairs):
            bends = int(rng.integers(0, 3))
            chain = [a]
            for j in range(bends):
                f = (j + 1) / (bends + 1)
                pos.append([[lon[a] * (1 - f) + lon[b] * f + rng.normal(0, 3e-5),
                             lat[a] * (1 - f) + lat[b] * f]])
                chain.append(nxt)
                nxt += 1
            chain.append(b)
            src += chain[:-1]
            dst += chain[1:]
            way += [k] * (len(chain) - 1)
        m = len(src)
        street_oneway = rng.random(len(pairs)) < 0.25
        return world.add_graph(graph_id, type="roads", src=src, dst=dst,
                               positions=np.vstack(pos), way=np.array(way),
                               speed=rng.choice([30.0, 50.0], m),
                               oneway=street_oneway[np.array(way)], keep="all",
                               compress=True)

    def random_update(self, graph, rng):
        r = rng.random()
        if r < 0.2:
            nodes = rng.integers(graph.num_nodes, size=int(rng.integers(1, 4)))
            return {"nodes": nodes.tolist(), "walkable": bool(rng.random() < 0.5)}
        action = [{"cost": float("inf")}, {"factor": float(rng.choice([0.5, 2.0, 5.0]))},
                  {"speed": float(rng.choice([10.0, 80.0]))}, {"reset": True}][
            int(rng.integers(4))]
        if r < 0.5 and graph.csr.num_edges:
            pos = rng.integers(graph.csr.num_edges, size=int(rng.integers(1, 4)))
            where = {"edges": [(int(graph.edge_src[p]), int(graph.csr.targets[p]))
                               for p in pos]}
        elif r < 0.8:
            ways = np.unique(graph.segments.way[graph.seg_edge >= 0])
            where = {"osm_way": rng.choice(ways, size=min(3, ways.size)).tolist()}
        else:
            c = graph.positions[int(rng.integers(graph.num_nodes))]
            where = {"bbox": (float(c[0]) - 0.002, float(c[1]) - 0.001,
                              float(c[0]) + 0.002, float(c[1]) + 0.001)}
        return {**where, **action}

    def block_nodes(self, graph, nodes):
        return {"nodes": [int(n) for n in nodes], "walkable": False}


@navcore.testing.parametrize([RoadFactory()], seeds=(0, 1))
def test_roads_conform(factory, check):
    check(factory)
