"""numba kernel of the locate index: which triangle holds each point.

Private: ``mesh.py`` validates and calls it."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def locate_points(px, py, vertices, triangles, cell_start, cell_tris,
                  x0, y0, inv, nx, ny, tol, out):
    """``out[i]``: the lowest triangle id holding point ``i`` (edges and
    corners included, within ``tol`` of twice the signed area), ``-1``
    when none does. Each point tests only the triangles of its bucket."""
    for i in range(px.shape[0]):
        x, y = px[i], py[i]
        out[i] = -1
        cx = int(np.floor((x - x0) * inv))
        cy = int(np.floor((y - y0) * inv))
        # a point on the far border of the grid belongs to the last cell
        if cx == nx:
            cx = nx - 1
        if cy == ny:
            cy = ny - 1
        if cx < 0 or cy < 0 or cx >= nx or cy >= ny:
            continue
        c = cy * nx + cx
        for j in range(cell_start[c], cell_start[c + 1]):
            t = cell_tris[j]
            a = triangles[t, 0]
            b = triangles[t, 1]
            d = triangles[t, 2]
            ax, ay = vertices[a, 0], vertices[a, 1]
            bx, by = vertices[b, 0], vertices[b, 1]
            dx, dy = vertices[d, 0], vertices[d, 1]
            if (bx - ax) * (y - ay) - (by - ay) * (x - ax) < -tol:
                continue
            if (dx - bx) * (y - by) - (dy - by) * (x - bx) < -tol:
                continue
            if (ax - dx) * (y - dy) - (ay - dy) * (x - dx) < -tol:
                continue
            out[i] = t          # cell lists are sorted by id: the first wins
            break
