"""navcore_navmesh: navigation meshes (``type: navmesh``).

Free space (shapely polygons, obstacle rings, a rectangle or a MovingAI
``.map``) is cut into constrained Delaunay triangles (``build``); each
polygon is a node of a ``NavMeshGraph`` (``mesh``), so every generic
search works on it; ``algorithm="funnel"`` (``funnel``) pulls the A*
corridor taut into an any-angle path, near-optimal (the exact Polyanya
search comes next). The mesh is built in square tiles (``tiles``), so
obstacles and blocked regions come and go at run time, re-triangulating
only the tiles they touch (``obstacles``).
"""
from .build import free_space, map_free_space, polygons, triangulate
from .funnel import funnel_path, pull
from .mesh import LOCATE_KEY, LocateIndex, NavMeshGraph
from .tiles import TiledMesh, TileGrid, TileLocateIndex, node_with_grid

__all__ = ["NavMeshGraph", "LocateIndex", "LOCATE_KEY", "free_space", "map_free_space",
           "polygons", "triangulate", "funnel_path", "pull", "TiledMesh", "TileGrid",
           "TileLocateIndex", "node_with_grid"]
