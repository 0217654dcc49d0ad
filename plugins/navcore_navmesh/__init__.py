"""navcore_navmesh: navigation meshes (``type: navmesh``).

Free space (shapely polygons, obstacle rings, a rectangle or a MovingAI
``.map``) is cut into constrained Delaunay triangles (``build``); each
polygon is a node of a ``NavMeshGraph`` (``mesh``), so every generic
search works on it; ``algorithm="funnel"`` (``funnel``) pulls the A*
corridor taut into an any-angle path, near-optimal (the exact Polyanya
search comes next).
"""
from .build import free_space, map_free_space, polygons, triangulate
from .funnel import funnel_path, pull
from .mesh import LOCATE_KEY, LocateIndex, NavMeshGraph

__all__ = ["NavMeshGraph", "LocateIndex", "LOCATE_KEY", "free_space", "map_free_space",
           "polygons", "triangulate", "funnel_path", "pull"]
