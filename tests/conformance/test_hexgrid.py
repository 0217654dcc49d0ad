"""The example third-party plugin (examples/navcore_hexgrid) passes the
conformance kit, registered at run time as a plugin author would test it."""
import importlib.util
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import navcore.testing

from generic_updates import GenericUpdates

_PATH = (Path(__file__).resolve().parents[2] / "examples" / "navcore_hexgrid"
         / "navcore_hexgrid.py")
_spec = importlib.util.spec_from_file_location("navcore_hexgrid", _PATH)
navcore_hexgrid = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(navcore_hexgrid)


class HexFactory(GenericUpdates, navcore.testing.GraphFactory):
    """Hex grids of 4 x 4 to 11 x 11 cells with a fifth of them blocked."""

    graph_type = "hexgrid"
    plugins = (navcore_hexgrid,)

    def build(self, world, graph_id, rng):
        w, h = (int(v) for v in rng.integers(4, 12, size=2))
        cells = np.argwhere(rng.random((h, w)) < 0.2)          # (r, q) rows
        return world.add_graph(graph_id, type="hexgrid", width=w, height=h,
                               blocked=[(int(q), int(r)) for r, q in cells])


@pytest.mark.nojit
@navcore.testing.parametrize([HexFactory()])
def test_hexgrid_conforms(factory, check):
    check(factory)


@pytest.mark.nojit
def test_the_usage_in_the_kits_docstring_runs(monkeypatch):
    block = navcore.testing.__doc__.split("reads::\n", 1)[1].split("\n``parametrize``")[0]
    monkeypatch.setitem(sys.modules, "navcore_hexgrid", navcore_hexgrid)
    namespace = {}
    exec(compile(textwrap.dedent(block), "navcore/testing.py", "exec"), namespace)
    assert {"HexFactory", "test_hexgrid_conforms"} <= set(namespace)
    navcore.testing.check_graph_type(namespace["HexFactory"](), seeds=[0])
