"""Reading and writing mesh files.

``read_bytes`` reads a file given as ``mesh=PATH``: a path that is not
one is a ``GraphError``, a file that is missing or does not open a
``MeshFormatError`` naming it. ``write_atomic`` writes through a temporary
file beside the target, so a failed write leaves no half file
(``NavError``).
"""
from __future__ import annotations

import os
from pathlib import Path

from navcore import files, validate
from navcore.errors import GraphError, MeshFormatError, NavError


def readable(path) -> Path:
    """``path`` as a Path once it is known to open for reading."""
    read_bytes(path, 0)
    return Path(path)


def read_bytes(path, size=-1) -> bytes:
    """The file's bytes (the first ``size`` only, when given)."""
    if not isinstance(path, (str, os.PathLike)):
        raise GraphError(f"mesh must be the path of a .mesh or .npz file, got {path!r}")
    validate.file_path(path, "mesh", MeshFormatError)
    try:
        with open(path, "rb") as f:
            return f.read(size)
    except FileNotFoundError:
        raise MeshFormatError("mesh file not found", path=path) from None
    except OSError as exc:
        raise MeshFormatError(f"cannot read mesh file: {exc.strerror or exc}",
                              path=path) from None


def mesh_to_write(mesh, what):
    """``mesh`` when it is something a writer can save (a ``NavMeshGraph``
    or ``MeshArrays``: ``vertices``, ``poly_start`` and ``poly_verts``),
    else a ``GraphError`` naming the writer ``what``."""
    if mesh is None or not all(hasattr(mesh, k) for k in ("vertices", "poly_start",
                                                          "poly_verts")):
        raise GraphError(f"{what} writes a navmesh graph (type: navmesh) or MeshArrays, "
                         f"got {mesh!r}")
    return mesh


def write_atomic(path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all, over a regular file
    only (``navcore.files.write_atomic``; ``NavError`` when it cannot)."""
    files.write_atomic(path, data, NavError)
