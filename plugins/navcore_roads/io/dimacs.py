"""DIMACS shortest-path files (9th challenge): ``.gr`` arcs and ``.co``
coordinates.

``.gr``: ``c`` comment lines, one problem line ``p sp N M``, then ``M`` arc
lines ``a U V W`` with 1-based node ids and non-negative weights (the
challenge's are integers; decimals are read too). ``.co``: ``p aux sp co
N`` and ``v ID X Y`` with X = longitude and Y = latitude in millionths of a
degree. Arc weights are the costs as given (their unit is the file's);
lengths are great-circle metres when coordinates are given.

Well-formed files are read with numpy in one pass over the text; only when
something is wrong is it read again line by line, to say which line.

>>> import tempfile, os
>>> d = tempfile.mkdtemp(); path = os.path.join(d, "tiny.gr")
>>> _ = open(path, "w").write("c tiny\\np sp 3 2\\na 1 2 5\\na 2 3 7\\n")
>>> seg = read_dimacs(path)
>>> seg.src.tolist(), seg.dst.tolist(), seg.cost.tolist(), seg.node_id.tolist()
([0, 1], [1, 2], [5.0, 7.0], [1, 2, 3])
"""
from __future__ import annotations

import os

import numpy as np

from navcore import limits, validate
from navcore.errors import MapFormatError

from ..segments import Segments, haversine_m

#: nodes a .gr may declare beyond two per arc (nodes without any arc)
MAX_ISOLATED = limits.MAX_ISOLATED


def read_dimacs(gr, co=None) -> Segments:
    """``Segments`` of a ``.gr`` file (and its ``.co`` coordinates)."""
    n, src, dst, weight = _read_gr(gr)
    lon = np.full(n, np.nan)
    lat = np.full(n, np.nan)
    if co is not None:
        lon, lat = _read_co(co, n)
        length = haversine_m(lon[src], lat[src], lon[dst], lat[dst])
    else:
        length = np.full(src.size, np.nan)
    return Segments(node_id=np.arange(1, n + 1, dtype=np.int64), lon=lon, lat=lat,
                    src=src.astype(np.int32), dst=dst.astype(np.int32), length=length,
                    speed=np.full(src.size, np.nan), way=np.full(src.size, -1, np.int64),
                    highway=np.zeros(src.size, np.uint8), cost=weight, source=str(gr))


def _lines(path):
    path = os.fspath(validate.file_path(path, "DIMACS file", MapFormatError))
    if os.path.isdir(path):
        raise MapFormatError("is a directory, not a DIMACS file", path=path)
    try:
        with open(path, "rb") as f:
            return f.read().split(b"\n")
    except OSError as exc:
        raise MapFormatError(f"cannot read: {exc.strerror or exc}", path=path) from None


def _problem(lines, path, kind, fields):
    """Line index and numbers of the one ``p`` line (``p sp N M`` or
    ``p aux sp co N``), which must come before the data lines."""
    for i, line in enumerate(lines):
        words = line.split()
        if not words or words[0] == b"c":
            continue
        if words[0] != b"p":
            raise MapFormatError(f"expected the problem line 'p {kind} ...' before data, "
                                 f"got {_show(line)}", path=path, line=i + 1)
        want = kind.split()
        if [w.decode("ascii", "replace") for w in words[1:1 + len(want)]] != want \
                or len(words) != 1 + len(want) + fields:
            raise MapFormatError(f"problem line must be 'p {kind}' and {fields} count(s), "
                                 f"got {_show(line)}", path=path, line=i + 1)
        try:
            counts = [int(w) for w in words[1 + len(want):]]
        except ValueError:
            raise MapFormatError(f"problem line counts must be integers, got {_show(line)}",
                                 path=path, line=i + 1) from None
        if any(c < 0 or c > np.iinfo(np.int32).max for c in counts):
            raise MapFormatError(f"problem line counts must be from 0 to 2**31-1, got "
                                 f"{_show(line)}", path=path, line=i + 1)
        return i, counts
    raise MapFormatError(f"no problem line 'p {kind} ...' (empty or not a DIMACS file)",
                         path=path)


def _read_gr(path):
    lines = _lines(path)
    head, (n, m) = _problem(lines, path, "sp", 2)
    if n > 2 * m + MAX_ISOLATED:
        # arrays are sized by N before anything else is read: 20 bytes must
        # not ask for gigabytes
        raise MapFormatError(f"the problem line declares {n} nodes for {m} arcs; at most "
                             f"2 per arc plus {MAX_ISOLATED} without arcs are accepted",
                             path=path, line=head + 1)
    try:
        arcs, table = _four_words(lines, head, b"a")
        ends = table[:, 1:3].astype(np.int64)
        weight = table[:, 3].astype(np.float64)
    except (ValueError, OverflowError):
        ends = weight = None
    if ends is None or len(arcs) != m or (ends < 1).any() or (ends > n).any() \
            or not (weight >= 0).all() or not np.isfinite(weight).all() \
            or _stray_lines(lines, head, b"ac"):
        _locate_gr_error(lines, path, head, n, m)
    return n, ends[:, 0] - 1, ends[:, 1] - 1, weight


def _four_words(lines, head, letter):
    """The lines after the problem line that begin with ``letter``, and
    their words as a table of four columns (bytes); ValueError when one of
    them has not four words or its first word is more than the letter."""
    rows = [ln for ln in lines[head + 1:] if ln.lstrip()[:1] == letter]
    table = np.array(b" ".join(rows).split(), dtype=object).reshape(-1, 4)
    if len(rows) != table.shape[0] or (table[:, 0] != letter).any():
        raise ValueError
    return rows, table


def _stray_lines(lines, head, allowed):
    return any(ln.strip() and ln.lstrip()[:1] not in allowed for ln in lines[head + 1:])


def _locate_gr_error(lines, path, head, n, m):
    """Read again line by line to say where the file is wrong (raises)."""
    count = 0
    for i, words in _records(lines, path, head, b"a", "an arc 'a U V W'"):
        try:
            u, v, w = int(words[1]), int(words[2]), float(words[3])
        except ValueError:
            raise MapFormatError(f"arc needs integer ids and a numeric weight, got "
                                 f"{_show(lines[i])}", path=path, line=i + 1) from None
        for end in (u, v):
            if not 1 <= end <= n:
                raise MapFormatError(f"node id {end} out of range 1..{n} (p sp {n} {m})",
                                     path=path, line=i + 1)
        if not (w >= 0 and np.isfinite(w)):
            raise MapFormatError(f"arc weight must be finite and >= 0, got {words[3].decode()}",
                                 path=path, line=i + 1)
        count += 1
    raise MapFormatError(f"the problem line promises {m} arcs, the file has {count}",
                         path=path, line=head + 1)


def _read_co(path, n):
    lines = _lines(path)
    head, (count,) = _problem(lines, path, "aux sp co", 1)
    if count != n:
        raise MapFormatError(f"coordinates are for {count} nodes, the graph has {n}",
                             path=path, line=head + 1)
    try:
        rows, table = _four_words(lines, head, b"v")
        ids = table[:, 1].astype(np.int64)
        xy = table[:, 2:].astype(np.float64) / 1e6
    except (ValueError, OverflowError):
        ids = xy = None
    ok = (ids is not None and len(rows) == n and np.array_equal(np.sort(ids),
                                                                  np.arange(1, n + 1))
          and (np.abs(xy[:, 0]) <= 180).all() and (np.abs(xy[:, 1]) <= 90).all()
          and not _stray_lines(lines, head, b"cv"))
    if not ok:
        _locate_co_error(lines, path, head, n)
    lon = np.empty(n)
    lat = np.empty(n)
    lon[ids - 1] = xy[:, 0]
    lat[ids - 1] = xy[:, 1]
    return lon, lat


def _locate_co_error(lines, path, head, n):
    seen = set()
    for i, words in _records(lines, path, head, b"v", "a node 'v ID X Y'"):
        try:
            k, x, y = int(words[1]), int(words[2]) / 1e6, int(words[3]) / 1e6
        except (ValueError, OverflowError):       # 10**400 / 1e6: no float holds it
            raise MapFormatError(f"'v ID X Y' needs integers, got {_show(lines[i])}",
                                 path=path, line=i + 1) from None
        if not 1 <= k <= n:
            raise MapFormatError(f"node id {k} out of range 1..{n}", path=path, line=i + 1)
        if k in seen:
            raise MapFormatError(f"node {k} has coordinates twice", path=path, line=i + 1)
        if abs(x) > 180 or abs(y) > 90:
            raise MapFormatError(f"node {k} at lon {x}, lat {y} is not on Earth "
                                 f"(millionths of a degree expected)", path=path, line=i + 1)
        seen.add(k)
    missing = sorted(set(range(1, n + 1)) - seen)[:3]
    raise MapFormatError(f"no coordinates for node(s) {missing}", path=path, line=head + 1)


def _records(lines, path, head, tag: bytes, expected: str):
    """``(index, words)`` of each line after the problem line that is not a
    comment or blank; one that is not a 4-word ``tag`` record is refused."""
    for i in range(head + 1, len(lines)):
        words = lines[i].split()
        if not words or words[0] == b"c":
            continue
        if words[0] != tag or len(words) != 4:
            raise MapFormatError(f"expected {expected}, got {_show(lines[i])}",
                                 path=path, line=i + 1)
        yield i, words


def _show(line: bytes) -> str:
    text = line.decode("utf-8", "replace").strip()
    return repr(text if len(text) <= 60 else text[:57] + "...")
