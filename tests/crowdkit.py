"""A navmesh the crowd-hook tests share: random boxes, two obstacles
touching at a corner (a pinch) and a triangle, on a 40 x 30 square."""
import shapely

import navcore


def obstacle_mesh(rng, tile_size):
    """``(world, graph)``: the mesh, its boxes drawn from ``rng``."""
    obstacles = [shapely.box(x, y, x + rng.uniform(1, 4), y + rng.uniform(1, 4))
                 for x, y in rng.uniform(1, 35, (6, 2))]
    obstacles += [shapely.box(20, 20, 22, 22), shapely.box(22, 22, 24, 24),
                  shapely.Polygon([(30, 2), (36, 3), (31, 8)])]
    world = navcore.World()
    graph = world.add_graph("m", type="navmesh", bounds=(0, 0, 40, 30), tile_size=tile_size,
                            obstacles=obstacles)
    return world, graph
