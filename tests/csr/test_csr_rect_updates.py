"""``rect=(x, y, w, h)`` on csr graphs with positions: the shared planar
update (``navcore_make_update``), selecting nodes by position."""
import numpy as np
import pytest

import navcore


@pytest.mark.nojit
def test_rect_blocks_the_nodes_placed_inside_and_refuses_boxes_past_them():
    rng = np.random.default_rng(4)
    n = 60
    pos = rng.random((n, 2)) * 10
    src, dst = rng.integers(n, size=150), rng.integers(n, size=150)
    world = navcore.World(autoload=False)
    g = world.add_graph("c", type="csr", src=src, dst=dst, positions=pos, directed=False)
    x, y, w, h = 2.0, 3.0, 4.0, 2.5
    inside = (pos[:, 0] >= x) & (pos[:, 0] <= x + w) & (pos[:, 1] >= y) & (pos[:, 1] <= y + h)
    assert 0 < inside.sum() < n
    world.update("c", rect=(x, y, w, h), walkable=False)
    world.tick()
    assert (np.asarray(g.walkable) == ~inside).all()
    world.update("c", rect=(x, y, w, h), walkable=True)
    world.tick()
    assert np.asarray(g.walkable).all()
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    for rect, says in [((lo[0], lo[1], hi[0], hi[1]), "runs past the nodes of graph 'c'"),
                       ((1, 1, 0, 2), "w > 0 and h > 0"), ((1, 1, 2), r"rect must be \(x, y"),
                       ((1, np.nan, 2, 2), "finite")]:
        with pytest.raises(navcore.UpdateError, match=says):
            world.update("c", rect=rect, walkable=False)
    with pytest.raises(navcore.UpdateError, match="a rect update takes exactly"):
        world.update("c", rect=(x, y, w, h), cost=2.0)
    world.add_graph("bare", type="csr", src=[0], dst=[1])
    with pytest.raises(navcore.UpdateError, match="has no positions"):
        world.update("bare", rect=(0, 0, 1, 1), walkable=False)
    assert world.pending_updates() == 0
