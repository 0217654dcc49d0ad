"""Pictures of any graph with node positions that no other plugin draws
(``navcore_draw_graph``, ``trylast``): csr graphs and third-party types.

Every open edge between two walkable nodes is a line one pixel wide (two
from 8 pixels a unit) in its first node's colour (its area's), and every
node a square around its position: walkable nodes in their colour,
blocked ones grey (a wall-coloured square would not show on the dark
background). ``node_at`` marks the pixels of an edge with its first node
and those of a square with its node. Numpy only.
"""
from __future__ import annotations

import numpy as np

#: blocked nodes: grey, apart from the background (walls)
BLOCKED = (96, 96, 104)
#: a node's square reaches this many map units from its position
NODE_RADIUS = 0.2


def draw(graph, canvas) -> bool:
    if not graph.has_positions():
        return None
    h, w = canvas.node_at.shape
    node_at = np.full((h, w), -1, dtype=np.int32)
    pos = canvas.to_pixels(np.asarray(graph.positions, dtype=np.float64)[:, :2])
    csr = graph.csr
    src = np.repeat(np.arange(csr.num_nodes, dtype=np.int64), np.diff(csr.offsets))
    dst = np.asarray(csr.targets, dtype=np.int64)
    ok = graph.walkable[src] & graph.walkable[dst] & np.isfinite(csr.cost) & (src != dst)
    src, dst = src[ok], dst[ok]
    a, b = pos[src], pos[dst]
    # points along each edge, half a pixel apart: every pixel it crosses
    steps = np.ceil(np.abs(b - a).max(axis=1) * 2).astype(np.int64) + 1
    which = np.repeat(np.arange(src.size), steps)
    t = (np.arange(which.size) - np.repeat(np.cumsum(steps) - steps, steps)) \
        / np.maximum(np.repeat(steps - 1, steps), 1)
    pts = a[which] + (b - a)[which] * t[:, None]
    thick = ((0, 0), (1, 0), (0, 1), (1, 1)) if canvas.scale * canvas.aspect >= 8 else ((0, 0),)
    for dx, dy in thick:
        x = np.floor(pts[:, 0]).astype(np.int64) + dx
        y = np.floor(pts[:, 1]).astype(np.int64) + dy
        inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        node_at[y[inside], x[inside]] = src[which[inside]]
    r = max(1, int(round(NODE_RADIUS * canvas.scale)))
    cx, cy = np.floor(pos[:, 0]).astype(np.int64), np.floor(pos[:, 1]).astype(np.int64)
    blocked = np.zeros((h, w), dtype=bool)
    for dx in range(-r, r + 1):
        for dy in range(-r, r + 1):
            x, y = cx + dx, cy + dy
            inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
            node_at[y[inside], x[inside]] = np.flatnonzero(inside)
            blocked[y[inside], x[inside]] = ~graph.walkable[inside]
    canvas.paint(node_at)
    canvas.rgb[blocked] = BLOCKED
    return True
