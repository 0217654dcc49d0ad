"""navcore_grid: grid maps (MovingAI files, ASCII rows, numpy arrays) with
implicit-neighbour A* and jump point search as numba kernels, landmarks
for a stronger heuristic, and grids in scenes (``scene_layer``: regions
are rectangles of cells)."""
from .graph import GridGraph
from .landmarks import Landmarks, landmarks, landmarks_of
from .mapfile import (PASSABLE, Scenario, parse_map, parse_rows, passable_characters, read_map,
                      read_scen, tolerance)
from .maze import maze_cells, maze_edges
from .scen import run_scenarios
from .search import grid_astar, grid_jps, jps_applies

__all__ = ["GridGraph", "parse_map", "parse_rows", "read_map", "read_scen", "Scenario",
           "PASSABLE", "passable_characters",
           "tolerance", "run_scenarios", "grid_astar", "grid_jps", "jps_applies",
           "maze_cells", "maze_edges", "landmarks", "landmarks_of", "Landmarks"]
