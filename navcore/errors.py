"""Every error navcore raises on bad input is a :class:`NavError`.

Subclasses also derive from the matching builtin (``ValueError``,
``TypeError``) so code that already catches those keeps working. An error
that comes from a file carries ``path``, ``line`` and ``column`` and prints
them as ``path:line:column: message``, the way compilers do.
"""
from __future__ import annotations


class NavError(Exception):
    """Root of every navcore error."""

    def __init__(self, message: str, *, path=None, line=None, column=None):
        self.message = message
        self.path = None if path is None else str(path)
        self.line = line
        self.column = column
        super().__init__(self._format())

    def _format(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        return where + self.message


class PluginError(NavError):
    """A plugin failed to import, implements an unknown hook, or conflicts."""


class UnknownGraphTypeError(NavError, ValueError):
    """``add_graph`` was given a ``type`` no plugin provides."""


class GraphError(NavError, ValueError):
    """Graph parameters are invalid (mismatched arrays, bad costs, ...)."""


class UnknownGraphError(NavError, LookupError):
    """A graph id that the world does not hold."""


class NodeError(NavError, ValueError):
    """A node id or point that is malformed or out of range."""


class CapacityError(NavError, OverflowError):
    """A size exceeds what the storage can index (int32 node ids...)."""


class MapFormatError(NavError, ValueError):
    """A map file is malformed; ``path`` and ``line`` say where."""


class MeshFormatError(NavError, ValueError):
    """A navigation mesh file (Polyanya ``.mesh``, baked ``.npz``) is
    malformed; ``path`` and ``line`` say where (the array, for ``.npz``)."""


class SceneError(NavError, ValueError):
    """A scene file is invalid; ``path``, ``line`` and ``column`` say where."""


class QueryError(NavError, ValueError):
    """A query cannot be answered as asked (unknown algorithm, ...)."""


class UpdateError(NavError, ValueError):
    """An update is malformed or does not apply to the graph."""


class CrowdError(NavError, ValueError):
    """A crowd or its agents were given something they cannot use (an
    unknown agent id, a position off the map, a radius <= 0, ...)."""


class FrameError(NavError, ValueError):
    """``World.tick`` was given a ``dt`` or budget it cannot use, or
    ``World(...)`` a frame setting (budget, workers, seed, warm-up)."""
