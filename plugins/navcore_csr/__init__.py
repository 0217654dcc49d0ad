"""navcore_csr: CSR storage and the generic kernels every backend shares.

Public functions validate their input; the ``@njit`` kernels in the
private modules compute. Other plugins may call anything exported here
(storage is shared vocabulary), never the private modules.
"""
from .search import (SearchScratch, astar, bfs, check_node, dijkstra, dijkstra_all,
                     distance_matrix, distance_pairs, path_costs, heuristic_scale, reachable, reachable_counts,
                     scratch_for)
from .contraction import (ContractedGraph, HierarchyQuery, contract, contracted_path,
                          contracted_view, load_contracted)
from .simplification import SimplifiedGraph, simplified_path, simplified_view, simplify
from .storage import CSR, ReverseCSR, build_csr

__all__ = ["CSR", "ReverseCSR", "build_csr", "astar", "dijkstra", "bfs",
           "dijkstra_all", "distance_matrix", "distance_pairs", "path_costs", "reachable", "reachable_counts",
           "heuristic_scale", "SearchScratch", "scratch_for", "check_node",
           "simplify", "simplified_path", "simplified_view", "SimplifiedGraph",
           "contract", "contracted_path", "contracted_view", "load_contracted",
           "ContractedGraph", "HierarchyQuery"]
