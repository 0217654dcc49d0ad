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

import hashlib
import io
import math
import os
import secrets
import stat
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np

from . import validate
from .errors import NavError

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"),
          (stat.S_ISSOCK, "a socket"))


def write_atomic(path, data: bytes, error=NavError) -> None:
    """Write ``data`` to ``path`` whole (see the module); ``error`` (a
    ``NavError`` subclass) says why it cannot."""
    if not isinstance(path, (str, os.PathLike)) or not str(os.fspath(path)).strip():
        raise error(f"need a file path to write to, got {path!r}")
    validate.file_path(path, "path", error)        # a NUL: no file name holds one
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
    would add ``.npz`` to a name that lacks it), with a ``checksum`` of
    them that :func:`read_npz` verifies."""
    buf = io.BytesIO()
    arrays = {k: np.asarray(v) for k, v in arrays.items()}
    np.savez(buf, checksum=np.array(checksum(arrays)), **arrays)
    return buf.getvalue()


def checksum(arrays: dict) -> str:
    """SHA-256 over every array's name, dtype, shape and bytes, in name
    order (a file's ``checksum`` entry itself left out)."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        if name == "checksum":
            continue
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


#: what a damaged or forged archive can raise from zipfile, zlib and numpy
_DAMAGE = (OSError, ValueError, EOFError, KeyError, IndexError, TypeError, zipfile.BadZipFile,
           zlib.error, NotImplementedError, RuntimeError, struct.error, UnicodeDecodeError,
           OverflowError)


def read_file(path, what: str, error=NavError) -> tuple:
    """``(path, data)``: ``path`` checked (``validate.file_path``) as a
    ``Path`` and the bytes of the file; ``error`` (``path=`` set) when it
    is not found or cannot be read, ``what`` naming it ("map file")."""
    path = validate.file_path(path, what, error)
    try:
        return path, path.read_bytes()
    except FileNotFoundError:
        raise error(f"{what} not found", path=path) from None
    except OSError as exc:
        raise error(f"cannot read {what}: {exc.strerror or exc}", path=path) from None


def read_npz(path, fail, dtypes: dict | None = None) -> dict:
    """Every array of the ``.npz`` at ``path`` that :func:`npz_bytes`
    wrote, read with ``allow_pickle=False`` after its header was checked
    (``dtypes``: name -> the dtype it must have, or ``"U"`` for a string; a declared
    shape larger than the member itself is refused, so a forged header
    never becomes a huge allocation); :func:`verify` checks them against
    the file's checksum. ``fail(message)`` raises the caller's error for
    anything wrong, a damaged archive included."""
    try:
        with zipfile.ZipFile(path) as z:
            out = {}
            for info in z.infolist():
                name = info.filename[:-4] if info.filename.endswith(".npy") else None
                if name is None or name in out:
                    fail(f"holds {info.filename!r}, not a numpy array")
                with z.open(info) as f:
                    major, _ = np.lib.format.read_magic(f)
                    read = (np.lib.format.read_array_header_1_0 if major == 1
                            else np.lib.format.read_array_header_2_0)
                    shape, _, dtype = read(f)
                    want = (dtypes or {}).get(name)
                    if want is not None and not (dtype == want or (
                            isinstance(want, str) and dtype.kind == want)):
                        fail(f"array {name!r} must be "
                             f"{'a string' if want == 'U' else np.dtype(want).name}, "
                             f"got {dtype}")
                    if dtype.hasobject:
                        fail(f"array {name!r} holds Python objects")
                    if math.prod(shape) * dtype.itemsize > info.file_size:
                        fail(f"array {name!r} declares shape {shape}, more than the file "
                             f"holds")
                with z.open(info) as f:       # read_array reads the header again
                    out[name] = np.lib.format.read_array(f, allow_pickle=False)
    except NavError:
        raise                         # fail()'s own
    except FileNotFoundError:
        fail("no such file")
    except IsADirectoryError:
        fail("is a folder, not a file")
    except _DAMAGE as exc:
        fail(f"not a readable .npz archive (damaged or truncated?): "
             f"{type(exc).__name__}: {exc}")
    return out


def verify(arrays: dict, fail) -> dict:
    """``arrays`` (from :func:`read_npz`) without their ``checksum``, once
    it is known to match them; ``fail(message)`` otherwise. Loaders call it
    after checking the file's format, so a file of another kind is named
    as such rather than as damaged."""
    arrays = dict(arrays)
    stored = arrays.pop("checksum", None)
    if stored is None or stored.shape != () or stored.dtype.kind != "U":
        fail("has no checksum (saved by an older navcore, or not by navcore): save it again")
    if str(stored) != checksum(arrays):
        fail("its arrays do not match its checksum: the file is damaged (or was edited)")
    return arrays
