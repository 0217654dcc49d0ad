"""``help(world.add_graph)``, ``world.graph_type_help`` and ``navcore
types`` list every graph type's parameters with their defaults and
meanings, read from the builders (``navcore.builders``)."""
import inspect
import pydoc

import pytest

import navcore
from navcore import builders
from navcore.cli import main

pytestmark = pytest.mark.nojit


def test_help_of_add_graph_lists_every_type_and_every_parameter():
    world = navcore.World()
    text = pydoc.render_doc(world.add_graph, renderer=pydoc.plaintext)
    types = world.plugins.graph_types()
    assert set(types) >= {"csr", "grid", "navmesh", "roads"}
    for name, (builder, owner) in types.items():
        assert f"{name} (plugin {owner})" in text
        params = list(inspect.signature(builder).parameters)[2:]
        for p in builders.parameters(builder):
            assert p.meaning and p.name in params
            assert f"    {p.name}" in text
    assert "diagonal_cost=1.4142135623730951: the length of a diagonal move" in text
    # the signature is the call's, without self
    assert str(inspect.signature(world.add_graph)).startswith("(graph_id, type")


def test_a_plugin_registered_at_run_time_shows_in_the_help():
    class Rings:
        @navcore.hookimpl
        def navcore_graph_types(self):
            def build_ring(world, graph_id, *, size, weight=1.0):
                """A ring of nodes.

                Parameters:
                    size: nodes on the ring.
                    weight: cost of each edge, one way round.
                """
                n = int(size)
                return navcore.NavGraph.from_edges(range(n), [(i + 1) % n for i in range(n)],
                                                   [weight] * n, world=world)
            return {"ring": build_ring}

    world = navcore.World()
    assert "ring (plugin" not in world.add_graph.__doc__
    world.plugins.register(Rings())
    doc = world.add_graph.__doc__
    assert "ring (plugin" in doc and "    size: nodes on the ring." in doc
    assert "    weight=1.0: cost of each edge, one way round." in doc
    g = world.add_graph("r", type="ring", size=4)        # the wrapper still builds
    assert world.find_path("r", 0, 3).cost == 3.0 and g.num_nodes == 4


def test_a_wrong_parameter_points_at_the_help():
    with pytest.raises(navcore.GraphError, match=r"graph_type_help\('grid'\)"):
        navcore.World().add_graph("g", type="grid", rowz=["..."])


def test_unknown_type_in_the_help_is_named():
    with pytest.raises(navcore.UnknownGraphTypeError, match="known types: csr"):
        navcore.World().graph_type_help("gird")


def test_navcore_types_prints_a_type_and_all_of_them(capsys):
    assert main(["types", "grid"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("grid (plugin grid)") and "connectivity=8: 8" in out
    assert "navmesh" not in out
    assert main(["types"]) == 0
    out = capsys.readouterr().out
    assert all(f"\n{t} (plugin" in "\n" + out for t in ("csr", "grid", "navmesh", "roads"))
    assert main(["types", "nope"]) == 2
    assert "unknown graph type 'nope'" in capsys.readouterr().err


def test_the_parser_reads_continuations_and_stops_at_the_section_end():
    def build(world, graph_id, *, a, b=2):
        """Summary.

        Parameters:
            a: first line
                and its continuation.
            b: second.

        Notes after the section.
        """
    assert builders.documented(build) == {"a": "first line and its continuation.",
                                          "b": "second."}
    assert builders.describe("t", build, "p").splitlines() == [
        "t (plugin p)", "    Summary.", "    a: first line and its continuation.",
        "    b=2: second."]
