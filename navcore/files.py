"""Writing the files navcore saves (baked meshes, hierarchies, orders):
whole or not at all, only over regular files, named as the caller named
them.

``write_atomic(path, data)`` writes ``data`` to a temporary file beside
the target and renames it over the target, so a failed write leaves the
old file (or none), never half of one. It refuses a target that is not a
regular file (a folder, a device such as ``/dev/null``, a named pipe, a
socket): renaming over it would replace it with a regular file. A
symbolic link is followed: the file it points to is replaced, the link
stays. A new file gets the mode ``open(path, "w")`` would give it (0666
less the umask); a replaced file keeps its mode. No extension is added.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> write_atomic(os.path.join(folder, "x.ch"), b"data")
>>> sorted(os.listdir(folder))
['x.ch']
>>> write_atomic(folder, b"data")
Traceback (most recent call last):
navcore.errors.NavError: cannot write ...: it is a folder, not a regular file
"""
from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from .errors import NavError

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"),
          (stat.S_ISSOCK, "a socket"))


def write_atomic(path, data: bytes, error=NavError) -> None:
    """Write ``data`` to ``path`` whole (see the module); ``error`` (a
    ``NavError`` subclass) says why it cannot."""
    if not isinstance(path, (str, os.PathLike)) or not str(os.fspath(path)).strip():
        raise error(f"need a file path to write to, got {path!r}")
    target = Path(os.path.realpath(path))         # a symlink: the file it names
    mode = None
    try:
        st = os.stat(target)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise error(f"cannot write {path}: {exc.strerror or exc}") from None
    else:
        for test, kind in _KINDS:
            if test(st.st_mode):
                raise error(f"cannot write {path}: it is {kind}, not a regular file")
        mode = stat.S_IMODE(st.st_mode)
    tmp = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp"
    try:
        # mode 0o666: the umask decides, as for any file a program makes
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                     0o666)
    except OSError as exc:
        raise error(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise error(f"cannot write {path}: {exc.strerror or exc}") from None


def npz_bytes(**arrays) -> bytes:
    """``numpy.savez`` of ``arrays`` into memory (``savez`` given a path
    would add ``.npz`` to a name that lacks it)."""
    import io

    import numpy as np
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()
