"""What crowd tests share: a navmesh for the crowd hooks (random boxes, two
obstacles touching at a corner (a pinch) and a triangle, on a 40 x 30
square), a straight walk's measure, and the brute-force overlap of discs."""
import numpy as np
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


def walk_to_near(world, crowd, goal, near, steps, dt=0.1):
    """Tick ``world`` until every agent of ``crowd`` came within ``near``
    of ``goal`` (at most ``steps`` ticks); ``(done, walked)``: per agent,
    whether it did, and how far it walked until then (the sum of its
    steps)."""
    n = crowd.positions.shape[0]
    prev, walked, done = crowd.positions, np.zeros(n), np.zeros(n, bool)
    for _ in range(steps):
        world.tick(dt)
        p = crowd.positions
        walked[~done] += np.hypot(*(p - prev).T)[~done]
        prev = p
        done |= np.hypot(*(p - goal).T) < near
        if done.all():
            break
    return done, walked


def worst_overlap(points, radii, heights=None, floor_gap=np.inf) -> float:
    """The largest overlap of two discs (the sum of their radii less the
    distance between their centres ``points``, ``(k, 2)``), brute force
    over every pair; 0 when none overlap. With ``heights`` only pairs
    whose heights differ by less than ``floor_gap`` count (on a 3D level
    agents on floors above one another do not meet)."""
    p = np.asarray(points, dtype=np.float64)
    r = np.asarray(radii, dtype=np.float64)
    if len(p) < 2:
        return 0.0
    gap = np.hypot(*(p[:, None] - p[None]).transpose(2, 0, 1)) - (r[:, None] + r[None])
    if heights is not None:
        h = np.asarray(heights, dtype=np.float64)
        gap[np.abs(h[:, None] - h[None]) >= floor_gap] = np.inf
    np.fill_diagonal(gap, np.inf)
    return max(0.0, float(-gap.min()))
