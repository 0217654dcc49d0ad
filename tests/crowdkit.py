"""What crowd tests share: a navmesh for the crowd hooks (random boxes, two
obstacles touching at a corner (a pinch) and a triangle, on a 40 x 30
square), a straight walk's measure, the brute-force overlap of discs, and how
deep discs reach into a grid's blocked cells."""
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


def blocked_depth(graph, pos, radius) -> float:
    """How deep the deepest disc (centres ``pos``, radii ``radius`` < 1)
    reaches into a blocked cell or off the grid: for each agent every
    cell of the 3 x 3 round its own, the disc's reach past the cell's
    nearest point (past its far side when the centre is inside)."""
    x, y = pos[:, 0], pos[:, 1]
    deepest = 0.0
    for ox in (-1, 0, 1):
        for oy in (-1, 0, 1):
            cx, cy = np.floor(x).astype(int) + ox, np.floor(y).astype(int) + oy
            inside = (cx >= 0) & (cx < graph.width) & (cy >= 0) & (cy < graph.height)
            blocked = ~inside
            blocked[inside] = ~graph.walkable[cy[inside] * graph.width + cx[inside]]
            qx, qy = np.clip(x, cx, cx + 1), np.clip(y, cy, cy + 1)
            gap = np.hypot(x - qx, y - qy)
            within = (qx == x) & (qy == y)
            depth = np.where(within, radius + np.minimum(np.minimum(x - cx, cx + 1 - x),
                                                         np.minimum(y - cy, cy + 1 - y)),
                             radius - gap)
            if blocked.any():
                deepest = max(deepest, float(depth[blocked].max()))
    return deepest
