"""numba kernel of the locate index: which convex polygon holds each point.

Private: ``mesh.py`` validates and calls it."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def locate_points(px, py, vertices, poly_start, poly_verts, cell_start, cell_polys,
                  x0, y0, inv, nx, ny, tol, out):
    """``out[i]``: the lowest polygon id holding point ``i`` (edges and
    corners included, within ``tol`` of twice the signed area), ``-1``
    when none does. Each point tests only the polygons of its bucket."""
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
            p = cell_polys[j]
            first = poly_start[p]
            last = poly_start[p + 1] - 1
            if last < first:        # a retired slot (an empty polygon) holds no point
                continue
            inside = True
            for e in range(first, last + 1):
                a = poly_verts[e]
                b = poly_verts[e + 1] if e < last else poly_verts[first]
                ax, ay = vertices[a, 0], vertices[a, 1]
                if (vertices[b, 0] - ax) * (y - ay) - (vertices[b, 1] - ay) * (x - ax) < -tol:
                    inside = False
                    break
            if inside:
                out[i] = p      # cell lists are sorted by id: the first wins
                break
