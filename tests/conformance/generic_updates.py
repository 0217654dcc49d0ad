"""Updates in the generic vocabulary of navcore_csr (``nodes=`` with
``walkable=``, ``edges=`` with ``cost=``), which every graph type accepts
that keeps the base NavGraph arrays: the csr type, and third-party types
built with ``NavGraph.from_edges`` such as the example hexgrid."""
import numpy as np


class GenericUpdates:
    """``random_update`` and ``block_nodes`` for a conformance factory."""

    #: edge costs a random update may write (inf closes the edge)
    EDGE_COSTS = (0.0, 0.5, 1.0, 2.5, 7.0, np.inf)

    def random_update(self, graph, rng):
        csr = graph.csr
        if csr.num_edges and rng.random() < 0.5:
            pos = rng.integers(csr.num_edges, size=int(rng.integers(1, 5)))
            src = np.searchsorted(csr.offsets, pos, side="right") - 1
            edges = [(int(u), int(v)) for u, v in zip(src, csr.targets[pos])]
            if rng.random() < 0.5:
                cost = float(rng.choice(self.EDGE_COSTS))
            else:                                    # one cost per edge
                cost = rng.choice(self.EDGE_COSTS, size=len(edges)).tolist()
            return {"edges": edges, "cost": cost}
        nodes = rng.integers(graph.num_nodes, size=int(rng.integers(1, 5)))
        return {"nodes": nodes.tolist(), "walkable": bool(rng.random() < 0.5)}

    def block_nodes(self, graph, nodes):
        return {"nodes": [int(n) for n in nodes], "walkable": False}
