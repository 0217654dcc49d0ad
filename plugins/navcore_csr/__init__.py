"""navcore_csr: CSR storage and the generic kernels every backend shares.

Public functions validate their input; the ``@njit`` kernels in the
private modules compute. Other plugins may call anything exported here
(storage is shared vocabulary), never the private modules.

``begin_astar`` (a ``navcore.Search``) steps ``astar`` a slice at a time
over any graph's CSR (the navmesh plugin's polygon searches).
``scratch_for`` and ``SearchScratch`` stay public: the grid and road
plugins search with this plugin's scratch sets. ``CSR`` and ``ReverseCSR``
are the records ``build_csr`` and ``CSR.reverse()`` make; build them with
those, not by hand. ``DirectedHierarchy`` is the contraction hierarchy of every graph type
(``contract`` keeps one with a graph; ``navcore_roads.contract`` wraps it
for road graphs). ``closed_nodes(graph)`` reads the nodes this thread's last ``astar`` or
``dijkstra`` on a graph closed (the navmesh plugin's polygon searches
answer ``navcore_closed_nodes`` with it). ``check_node`` is internal (``navcore.validate.node_id``
is the public check).
"""
from .search import (SearchScratch, astar, bfs, closed_nodes, dijkstra, dijkstra_all,
                     distance_matrix, distance_pairs, path_costs, heuristic_scale, reachable, reachable_counts,
                     scratch_for)
from .contraction import (ContractedGraph, HierarchyQuery, contract, contracted_path,
                          contracted_view, load_contracted)
from .hierarchy import DirectedHierarchy
from .simplification import SimplifiedGraph, simplified_path, simplified_view, simplify
from .storage import CSR, ReverseCSR, build_csr
from .sliced import begin_astar

__all__ = ["CSR", "ReverseCSR", "build_csr", "astar", "dijkstra", "bfs", "closed_nodes",
           "dijkstra_all", "distance_matrix", "distance_pairs", "path_costs", "reachable", "reachable_counts",
           "heuristic_scale", "SearchScratch", "scratch_for",
           "simplify", "simplified_path", "simplified_view", "SimplifiedGraph",
           "contract", "contracted_path", "contracted_view", "load_contracted",
           "ContractedGraph", "HierarchyQuery", "DirectedHierarchy", "begin_astar"]
