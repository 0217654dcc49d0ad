"""The areas plugin's names before the rename (package ``navcore_hierarchy``,
plugin ``hierarchy``) still work for one release, each with a
DeprecationWarning, and never load or register the plugin a second time."""
import importlib
import importlib.metadata
import sys

import pytest

import navcore
import navcore_areas
from navcore.plugins import BUILTIN, PluginRegistry


def _fresh_import(name):
    """Import ``name`` as a first import would (the warning is given then)."""
    for mod in [m for m in sys.modules if m == "navcore_hierarchy"
                or m.startswith("navcore_hierarchy.")]:
        del sys.modules[mod]
    return importlib.import_module(name)


def test_old_package_warns_and_is_the_new_one():
    with pytest.warns(DeprecationWarning, match="navcore_hierarchy is now navcore_areas"):
        old = _fresh_import("navcore_hierarchy")
    assert old.__all__ == navcore_areas.__all__
    for name in navcore_areas.__all__:
        assert getattr(old, name) is getattr(navcore_areas, name), name
    # its modules are navcore_areas' own (one plugin module, one set of kernels)
    import navcore_hierarchy.plugin as old_plugin
    from navcore_hierarchy.cli import run_areas
    assert old_plugin is navcore_areas.plugin
    assert run_areas is navcore_areas.cli.run_areas


def test_plugin_is_registered_once_under_its_new_name():
    world = navcore.World(autoload=False)
    names = world.plugins.names()
    assert "areas" in names and "hierarchy" not in names
    assert [n for n, p in world.plugins.manager.list_name_plugin()
            if p is navcore_areas.plugin] == ["areas"]
    info = {i.name: i for i in world.plugins.info()}
    assert info["areas"].source == BUILTIN
    assert "navcore_areas" in info["areas"].hooks


def test_old_plugin_name_finds_and_unregisters_the_areas_plugin():
    world = navcore.World(autoload=False)
    with pytest.warns(DeprecationWarning, match="'hierarchy' plugin is now called 'areas'"):
        assert world.plugins.get("hierarchy") is navcore_areas.plugin
    with pytest.warns(DeprecationWarning, match="'hierarchy' plugin is now called 'areas'"):
        world.plugins.unregister("hierarchy")
    assert "areas" not in world.plugins.names()
    world.add_graph("g", type="csr", src=[0], dst=[1], num_nodes=3)
    with pytest.raises(navcore.QueryError, match="areas plugin"):
        world.areas("g")            # nobody answers areas now


def test_a_plugin_of_its_own_named_hierarchy_keeps_its_name():
    world = navcore.World(autoload=False)

    class Mine:
        @navcore.hookimpl
        def navcore_world_created(self, world):
            pass
    mine = Mine()
    world.plugins.register(mine, "hierarchy")
    assert world.plugins.get("hierarchy") is mine      # no warning, no mapping
    world.plugins.unregister("hierarchy")
    assert world.plugins.get("areas") is navcore_areas.plugin


class _OldEntryPoint:
    """navcore's entry point as an install from before the rename lists it."""
    name, value, group, extras = "hierarchy", "navcore_hierarchy.plugin", "navcore", []

    def __init__(self, dist):
        self.dist = dist

    def load(self):
        return importlib.import_module("navcore_hierarchy.plugin")


@pytest.mark.parametrize("keep_new", [True, False])
def test_metadata_from_before_the_rename_loads_the_plugin_once_as_areas(
        monkeypatch, keep_new):
    # an install not redone lists ``hierarchy`` (alone, or beside ``areas``):
    # the plugin is registered once, named ``areas``
    eps = list(importlib.metadata.entry_points(group="navcore"))
    dist = next(ep for ep in eps if ep.name == "areas").dist
    eps = [ep for ep in eps if keep_new or ep.name != "areas"] + [_OldEntryPoint(dist)]
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group=None: [ep for ep in eps if ep.group == group])
    reg = PluginRegistry(autoload=False)
    assert [n for n, p in reg.manager.list_name_plugin()
            if p is navcore_areas.plugin] == ["areas"]
    assert "hierarchy" not in reg.names()
    assert [s.name for s in reg.skipped] == (["hierarchy"] if keep_new else [])
