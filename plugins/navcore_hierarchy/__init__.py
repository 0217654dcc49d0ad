"""Deprecated: the areas plugin's old name. ``navcore_areas`` is the
package (and ``areas`` the plugin's name); this alias, which re-exports
its public names and modules, goes in the next release."""
import sys
import warnings

import navcore_areas
import navcore_areas.cli
from navcore_areas import Hierarchy, cli, hierarchy, hierarchy_of, plugin  # noqa: F401

__all__ = navcore_areas.__all__

warnings.warn("navcore_hierarchy is now navcore_areas (the plugin's name: 'areas'); "
              "the old name goes in the next release", DeprecationWarning, stacklevel=2)

# ``import navcore_hierarchy.plugin`` and the like give navcore_areas' own
# modules, so nothing is loaded (or registered as a plugin) twice
for _name in ("hierarchy", "plugin", "cli"):
    sys.modules[f"{__name__}.{_name}"] = getattr(navcore_areas, _name)
del _name
