"""navcore_navmesh: navigation meshes (``type: navmesh``).

Free space (shapely polygons, obstacle rings, a rectangle or a MovingAI
``.map``) is cut into constrained Delaunay triangles (``build``), or a
mesh is given whole: a Polyanya ``.mesh``, a baked ``.npz`` or vertex
and polygon arrays (``meshfile``; ``meshcheck`` checks every mesh,
``polyanya_format`` reads and writes Polyanya's text, ``bake`` navcore's
``.npz``; ``navcore bake`` on the command line, ``cli``). Each convex
polygon is a node of a ``NavMeshGraph`` (``mesh``), so every generic
search works on it. The mesh is built in square tiles (``tiles``), so
obstacles and blocked regions come and go at run time, re-triangulating
only the tiles they touch (``obstacles``); each tile's triangles are
merged into convex polygons (``merge``), as are a static mesh's
(``tile_size=0``). Any-angle paths:
``algorithm="polyanya"`` (the default, ``polyanya``) is exact, the true
shortest path through the free space; ``algorithm="funnel"``
(``funnel``) pulls the A* corridor of polygons taut, Detour's
near-optimal compromise. A layered mesh (``layered``: polygons on a 3D
surface, a level's storeys overlapping seen from above) is searched the
same way in its ground projection, with 3D query ends and paths.
``MeshFlowField`` (``flowfield``): the exact distance to one goal from
every point of a 2D mesh at once, and the corners to head for (Polyanya
run from the goal to every polygon), what crowds sharing a goal walk.
"""
from .build import free_space, map_free_space, polygons, triangulate
from .flowfield import MeshFlowField
from .funnel import pull
from .polyanya import path_lengths, shortest_path
from .mesh import LocateIndex, NavMeshGraph
from .layered import LayeredMeshGraph, length_3d
from .bake import load_mesh, save_mesh
from .meshcheck import MeshArrays
from .meshfile import read_mesh
from .polyanya_format import read_polyanya_mesh, write_polyanya_mesh

# Public: what builds, reads, writes and searches a mesh. ``LocateIndex``
# is what ``NavMeshGraph.locate_index()`` answers. Internal (import them
# from their modules inside this plugin): the view keys (``mesh.LOCATE_KEY``,
# ``polyanya.SPACE_KEY``), the views and tiling machinery (``SearchSpace``,
# ``tiles.TiledMesh``, ``TileGrid``, ``TileLocateIndex``, ``node_with_grid``)
# and the algorithm hooks ``funnel_path``/``polyanya_path``, which answer a
# request ``World.find_path`` has resolved already.
__all__ = ["NavMeshGraph", "LocateIndex", "LayeredMeshGraph", "length_3d", "free_space", "map_free_space",
           "polygons", "triangulate", "pull", "shortest_path", "path_lengths", "MeshArrays",
           "read_mesh", "read_polyanya_mesh", "write_polyanya_mesh", "save_mesh", "load_mesh",
           "MeshFlowField"]
