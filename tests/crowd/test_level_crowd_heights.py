"""A level crowd's agents stand at the height of the level's surface
under them, as the graph's public ``points_on`` reads it: its
``surface`` (the detail mesh) where that knows a height, the polygon's
own where it answers NaN. Truth: ``nearest_polys`` of each agent's point
(the point of its polygon nearest it, lifted by ``points_on``)."""
import numpy as np
import pytest

import navcore
from levelkit import join, quad

#: two floors (y 0, and y 4 over x < 10) joined by a ramp down to (20, 0)
TWO_FLOORS = join(quad(0, 24, 0, 10, 0.0), quad(0, 10, 0, 10, 4.0),
                  quad(10, 20, 6, 10, 4.0, 0.0, along="x"))
STARTS = [(5.0, 4.2, 3.0), (2.0, 4.2, 8.0), (15.0, 0.2, 2.0), (22.0, 0.2, 8.0)]
GOALS = [(18.0, 0.2, 8.0), (5.0, 4.2, 2.0), (3.0, 4.2, 8.0), (5.0, 0.2, 5.0)]


def raised_or_unknown(surface):
    """A surface half a unit over ``surface`` east of x = 12 and without
    heights (NaN) west of it: the crowd must read both as ``points_on``
    does."""
    def read(polys, ground):
        h = np.asarray(surface(polys, ground), dtype=np.float64) + 0.5
        return np.where(ground[:, 0] > 12.0, h, np.nan)
    return read


@pytest.mark.parametrize("kind", ["detail", "raised_or_unknown", "none"])
def test_agents_stand_at_the_surface_height_points_on_reads(kind):
    w = navcore.World(deterministic=True)
    v, t = TWO_FLOORS
    g = w.add_graph("s", type="level", vertices=v, triangles=t)
    assert g.surface is not None
    plain = g.surface
    if kind == "raised_or_unknown":
        g.surface = raised_or_unknown(plain)
    elif kind == "none":
        g.surface = None
    crowd = w.add_crowd("c", graph="s", radius=0.3, max_speed=2.0)
    crowd.add(STARTS, goals=GOALS)
    checked = 0
    for _ in range(80):
        w.tick(0.1)
        p = crowd.positions
        polys, on = g.nearest_polys(p)
        assert (polys >= 0).all()
        np.testing.assert_allclose(p[:, 1], on[:, 1], rtol=0, atol=1e-9)
        checked += len(p)
    assert checked == 80 * len(STARTS)
    if kind == "raised_or_unknown":
        # both readings were taken: the raised surface east, the fan west
        p = crowd.positions
        polys, on = g.nearest_polys(p)
        ground = np.ascontiguousarray(on[:, [0, 2]])
        east = ground[:, 0] > 12.0
        assert east.any() and (~east).any()
        detail = plain(polys, ground)
        g.surface = None
        fan = g.points_on(polys, ground)[:, 1]
        np.testing.assert_allclose(p[east, 1], detail[east] + 0.5, rtol=0, atol=1e-9)
        np.testing.assert_allclose(p[~east, 1], fan[~east], rtol=0, atol=1e-9)
