"""``navcore.draw`` and ``navcore.plot`` are the kernel's names for the draw
plugin's pictures: the kernel asks ``navcore_picture`` and draws nothing
itself, so a world without the plugin says what is missing, another
plugin may answer instead, and neither ``import navcore`` nor a world
loads Pillow before a picture is made."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import navcore
import navcore_draw.picture

from hooktags import exercises

pytestmark = pytest.mark.nojit

ROWS = ["..#.", "...."]


@pytest.fixture
def yard():
    world = navcore.World(warm_up=False)
    world.add_graph("yard", type="grid", rows=ROWS)
    return world


@exercises("navcore_picture")
def test_draw_is_the_draw_plugins_picture(yard):
    assert "draw" in yard.plugins.names()
    got = navcore.draw(yard, "yard", scale=3, agents=[(0.5, 0.5)])
    want, canvas = navcore_draw.picture.picture(yard, "yard", agents=[(0.5, 0.5)], scale=3)
    assert got.shape == (6, 12, 3) and np.array_equal(got, want)
    assert canvas.rgb.shape == got.shape


def test_without_the_draw_plugin_draw_and_plot_name_it(yard):
    yard.plugins.unregister("draw")
    message = ("navcore.{} needs the draw plugin (navcore_draw, entry point 'draw'), and "
               "no plugin of this world answered navcore_picture")
    with pytest.raises(navcore.QueryError) as info:
        navcore.draw(yard, "yard")
    assert str(info.value) == message.format("draw")
    with pytest.raises(navcore.QueryError) as info:
        navcore.plot(object(), yard, "yard")
    assert str(info.value) == message.format("plot")
    # the world still answers everything else
    assert yard.find_path("yard", (0, 0), (3, 0)).found


def test_a_blocked_draw_plugin_is_missing_too():
    world = navcore.World(warm_up=False)
    world.plugins.manager.set_blocked("draw")
    world.add_graph("yard", type="grid", rows=ROWS)
    with pytest.raises(navcore.QueryError, match="needs the draw plugin"):
        navcore.draw(world, "yard")


class Painter:
    """Another plugin's pictures: a blank picture of the asked-for size."""

    def __init__(self):
        self.calls = []

    @navcore.hookimpl(tryfirst=True)
    def navcore_picture(self, graph_id, call, scale, out):
        self.calls.append((graph_id, call, scale, out))
        return np.zeros((scale, scale, 3), dtype=np.uint8)


def test_the_first_plugin_that_answers_makes_the_picture(yard):
    painter = Painter()
    yard.plugins.register(painter)
    pic = navcore.draw(yard, "yard", scale=2)
    assert pic.shape == (2, 2, 3) and not pic.any()
    assert painter.calls == [("yard", "draw", 2, None)]


def test_a_world_is_made_without_pillow_and_a_picture_loads_it():
    code = textwrap.dedent("""
        import sys, navcore
        world = navcore.World(warm_up=False)
        assert "draw" in world.plugins.names()
        assert "PIL" not in sys.modules, "World() loaded Pillow"
        world.add_graph("g", type="grid", rows=["...."])
        navcore.draw(world, "g", scale=2)
        assert "PIL" in sys.modules
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
