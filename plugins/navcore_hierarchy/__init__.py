"""navcore_hierarchy: connected components (areas) of every graph, kept
current under updates by the A* Pathfinding Project's hierarchical graph."""
from .hierarchy import Hierarchy
from .plugin import hierarchy_of

__all__ = ["Hierarchy", "hierarchy_of"]
