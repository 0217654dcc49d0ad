"""Hand-made levels through the world: stairs join storeys when each step
is within ``agent_climb``, and not when a step is higher; a ceiling lower
than ``agent_height`` closes a corridor; paths keep ``agent_radius`` from
walls."""
import numpy as np
import pytest

import navcore
from navcore import PathStatus

QUAD = np.array([[0, 2, 1], [0, 3, 2]])


def _box(x0, x1, y, z0, z1):
    """A horizontal quad at height y, facing up."""
    return np.array([[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]], dtype=float)


def _wall(x0, z0, x1, z1, y0, y1):
    """A vertical quad from (x0, z0) to (x1, z1), heights y0..y1."""
    return np.array([[x0, y0, z0], [x1, y0, z1], [x1, y1, z1], [x0, y1, z0]], dtype=float)


def _level(parts):
    verts = np.vstack(parts)
    return verts, np.vstack([QUAD + 4 * k for k in range(len(parts))])


def _house(step_height, steps=10):
    """A ground floor (x 0..20, z 0..10), a storey over its west half at
    height ``steps * step_height`` (x 0..6), and a flight of stairs up to
    it along x (6..6 + steps * 0.6, z 0..3): each step a tread and its riser."""
    top = steps * step_height
    parts = [_box(0, 20, 0.0, 0, 10), _box(0, 6, top, 0, 10)]
    for k in range(steps):                     # from the storey's edge down
        x0, x1 = 6 + k * 0.6, 6 + (k + 1) * 0.6
        y = top - (k + 1) * step_height
        parts.append(_box(x0, x1, y, 0, 3))
        parts.append(_wall(x0, 3, x0, 0, y, y + step_height))   # riser, facing +x
    return _level(parts), top


@pytest.mark.parametrize("step, reachable", [(0.3, True), (1.2, False)])
def test_stairs_join_the_storeys_only_when_each_step_is_climbable(step, reachable):
    (verts, tris), top = _house(step, steps=10 if step < 1 else 3)
    w = navcore.World()
    w.add_graph("h", type="level", vertices=verts, triangles=tris, cell_size=0.2,
                agent_radius=0.2)
    r = w.find_path("h", (15, 0, 8), (3, top, 8))
    if not reachable:
        assert r.status is PathStatus.UNREACHABLE
        return
    assert r.found
    ground = r.points[:, [0, 2]]
    # it goes through the stairs' footprint (z below 3), not straight across
    on_stairs = (ground[:, 0] > 6.2) & (ground[:, 0] < 11.8)
    assert on_stairs.any() and (ground[on_stairs, 1] < 3.0).all()
    assert r.cost > 12 + 2                    # the straight line is 12: round by the stairs
    heights = r.points[:, 1]
    assert heights.max() == pytest.approx(top + 0.2, abs=0.25)   # one cell above the floor
    assert np.all(np.diff(heights) >= -0.25)                    # climbs, never dips


def test_a_ceiling_lower_than_the_agent_closes_the_corridor():
    # two rooms joined by a corridor (x 8..12, z 4..6) with a ceiling at 1.5
    parts = [_box(0, 8, 0.0, 0, 10), _box(12, 20, 0.0, 0, 10), _box(8, 12, 0.0, 4, 6)]
    ceiling = _box(8, 12, 1.5, 4, 6)[[0, 3, 2, 1]]           # facing down
    w = navcore.World()
    for name, extra in (("open", []), ("low", [ceiling])):
        verts, tris = _level(parts + extra)
        w.add_graph(name, type="level", vertices=verts, triangles=tris, agent_radius=0.3)
    assert w.find_path("open", (2, 0, 5), (18, 0, 5)).found
    for height, status in ((2.0, PathStatus.UNREACHABLE), (1.2, PathStatus.FOUND)):
        verts, tris = _level(parts + [ceiling])
        w.add_graph(f"agent{height}", type="level", vertices=verts, triangles=tris,
                    agent_radius=0.3, agent_height=height)
        assert w.find_path(f"agent{height}", (2, 0, 5), (18, 0, 5)).status is status


def test_paths_keep_the_agent_radius_from_the_walls():
    # a room with a pillar (walls 3 high) in the middle of the way
    parts = [_box(0, 20, 0.0, 0, 10)]
    for a, b in (((8, 3), (12, 3)), ((12, 3), (12, 7)), ((12, 7), (8, 7)), ((8, 7), (8, 3))):
        parts.append(_wall(*a, *b, 0.0, 3.0))
    parts.append(_box(8, 12, 3.0, 3, 7))
    verts, tris = _level(parts)
    w = navcore.World()
    for radius in (0.3, 0.9):
        w.add_graph(radius, type="level", vertices=verts, triangles=tris,
                    agent_radius=radius, cell_size=0.1)
        r = w.find_path(radius, (2, 0, 5), (18, 0, 5))
        assert r.found
        ground = r.points[:, [0, 2]]
        # the pillar's box, sampled densely along the path: never nearer than the radius
        t = np.linspace(0, 1, 50)[:, None]
        seg = (ground[:-1, None, :] * (1 - t) + ground[1:, None, :] * t).reshape(-1, 2)
        dx = np.maximum(np.maximum(8 - seg[:, 0], seg[:, 0] - 12), 0)
        dz = np.maximum(np.maximum(3 - seg[:, 1], seg[:, 1] - 7), 0)
        # within what simplifying the contours may cut (edge_max_error, 1.3
        # cells) and a cell of rounding
        assert np.hypot(dx, dz).min() >= radius - 0.1 * (1.3 + 1)
        assert np.hypot(dx, dz).min() < radius + 0.5                  # it goes round close by
