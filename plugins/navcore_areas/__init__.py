"""navcore_areas: connected components (areas) of every graph, kept
current under updates by the A* Pathfinding Project's hierarchical graph
(the ``areas`` plugin; ``navcore_hierarchy`` and the plugin name
``hierarchy`` are deprecated aliases until the next release)."""
from .hierarchy import Hierarchy
from .plugin import hierarchy_of

__all__ = ["Hierarchy", "hierarchy_of"]
