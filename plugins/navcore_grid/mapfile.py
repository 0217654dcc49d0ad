"""MovingAI ``.map`` and ``.scen`` files, and inline ASCII rows.

Map format (https://movingai.com/benchmarks/formats.html)::

    type octile
    height H
    width W
    map
    <H rows of W characters>

By default ``.`` ``G`` ``S`` are passable, ``@`` ``O`` ``T`` ``W`` are not
(MovingAI's rule); ``passable=`` names the passable characters instead:
``passable=".G"`` is Polyanya's rule (its tools and the any-angle
benchmark data block swamp ``S`` and water ``W``). Inline rows (scenes,
tests) take the default rule and also accept ``#`` as a wall and a space
as floor.
CRLF line ends and a missing final newline are fine; anything else wrong
is a ``MapFormatError`` with the file and line (and column for a bad
character).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from navcore import limits, validate
from navcore.limits import MAX_NODES
from navcore.errors import GraphError, MapFormatError
from navcore.files import read_file

#: MovingAI's rule: the characters passable by default, and the others
PASSABLE = ".GS"
BLOCKED = "@OTW"
#: every character of a MovingAI map
MAP_CHARACTERS = ".G@OTSW"
_INLINE_PASSABLE = PASSABLE + " "
_INLINE_BLOCKED = BLOCKED + "#"


def _lookup(passable, blocked):
    table = np.full(256, 2, dtype=np.uint8)           # 2 = not a map character
    table[np.frombuffer(passable.encode(), np.uint8)] = 1
    table[np.frombuffer(blocked.encode(), np.uint8)] = 0
    return table


_ROWS_TABLE = _lookup(_INLINE_PASSABLE, _INLINE_BLOCKED)


def passable_characters(value, error=GraphError) -> str:
    """``passable=``: a non-empty ``str`` of MovingAI map characters
    (``MAP_CHARACTERS``), returned as given; ``None`` is the default
    ``PASSABLE``. Anything else is ``error`` naming the value.

    >>> passable_characters(".G")
    '.G'
    >>> passable_characters(".X")
    Traceback (most recent call last):
    ...
    navcore.errors.GraphError: passable must be a string of MovingAI map characters (of '.G@OTSW'), got '.X': 'X' is not one
    """
    if value is None:
        return PASSABLE
    if not isinstance(value, str) or not value:
        raise error(f"passable must be a non-empty string of MovingAI map characters "
                    f"(of {MAP_CHARACTERS!r}; the default is {PASSABLE!r}), got {value!r}")
    bad = sorted(set(value) - set(MAP_CHARACTERS))
    if bad:
        raise error(f"passable must be a string of MovingAI map characters (of "
                    f"{MAP_CHARACTERS!r}), got {value[:40]!r}: "
                    f"{', '.join(map(repr, bad[:5]))} is not one")
    return value


@functools.lru_cache(maxsize=None)
def _map_table(passable: str):
    blocked = "".join(c for c in MAP_CHARACTERS if c not in passable)
    return _lookup(passable, blocked), passable, blocked


def read_map(path, passable=None) -> np.ndarray:
    """Walkable mask ``(height, width)`` of a MovingAI ``.map`` file;
    ``passable``: the characters that are floor (``passable_characters``;
    default ``PASSABLE``, MovingAI's ``.GS``)."""
    passable = passable_characters(passable)
    path, data = read_file(path, "map file", MapFormatError)
    return parse_map(data, path=path, passable=passable)


def parse_map(data, path="<map>", passable=None) -> np.ndarray:
    """Parse the bytes (or text) of a ``.map`` file; see :func:`read_map`."""
    table = _map_table(passable_characters(passable))
    if isinstance(data, str):
        data = data.encode()
    if not isinstance(data, (bytes, bytearray)):
        raise MapFormatError(f"a map must be given as its text or bytes, got "
                             f"{type(data).__name__}", path=path)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()                                     # final newline
    lines = [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]

    def header(i, key, expect):
        if i >= len(lines):
            raise MapFormatError(f"file ends in the header; expected {expect!r}",
                                 path=path, line=i + 1)
        return lines[i].decode("ascii", "replace").strip()

    first = header(0, "type", "type octile")
    if not re.fullmatch(r"type\s+\S+", first):
        raise MapFormatError(f"expected 'type octile' on the first line, got {first!r}",
                             path=path, line=1)
    size = {}
    for i, key in ((1, "height"), (2, "width")):
        text = header(i, key, f"{key} N")
        m = re.fullmatch(rf"{key}\s+(\d+)", text)
        if not m:
            raise MapFormatError(f"expected '{key} N' with a positive integer, got "
                                 f"{text[:80]!r}", path=path, line=i + 1)
        if len(m.group(1).lstrip("0")) > limits.MAX_INT_DIGITS:    # int() stops at 4300
            raise MapFormatError(f"{key} has {len(m.group(1))} digits; a number may have at "
                                 f"most {limits.MAX_INT_DIGITS}", path=path, line=i + 1)
        size[key] = int(m.group(1))
        if size[key] == 0:
            raise MapFormatError(f"{key} must be positive", path=path, line=i + 1)
    height, width = size["height"], size["width"]
    if height * width > MAX_NODES:
        raise MapFormatError(f"declared size {width} x {height} exceeds the int32 "
                             f"node-id limit ({MAX_NODES} cells)", path=path, line=2)
    text = header(3, "map", "map")
    if text != "map":
        raise MapFormatError(f"expected 'map' on line 4, got {text!r}", path=path, line=4)
    rows = lines[4:]
    while len(rows) > height and rows[-1].strip() == b"":
        rows.pop()                                      # trailing blank lines
    if len(rows) < height:
        raise MapFormatError(f"file is truncated: height is {height} but only "
                             f"{len(rows)} map rows follow", path=path,
                             line=4 + len(rows) + 1)
    if len(rows) > height:
        raise MapFormatError(f"more map rows than the declared height {height}",
                             path=path, line=4 + height + 1)
    return _decode_rows(rows, width, table, path, first_line=5)


def parse_rows(rows, path="<rows>") -> np.ndarray:
    """Walkable mask from inline ASCII rows (a list of equal-length strings)."""
    if isinstance(rows, np.ndarray) and rows.ndim == 1:
        rows = rows.tolist()
    if not isinstance(rows, (list, tuple)) or len(rows) == 0:
        raise MapFormatError(f"rows must be a non-empty list of strings, got "
                             f"{type(rows).__name__}", path=path)
    if not all(isinstance(r, str) for r in rows):
        raise MapFormatError("rows must be strings", path=path)
    width = len(rows[0])
    if width == 0:
        raise MapFormatError("rows must not be empty strings", path=path, line=1)
    return _decode_rows([r.encode("utf-8") for r in rows], width,
                        (_ROWS_TABLE, PASSABLE, BLOCKED), path, first_line=1)


def _decode_rows(rows, width, rule, path, first_line):
    """``rule``: the lookup table and the passable and blocked characters
    an error lists."""
    table, passable, blocked = rule
    for i, row in enumerate(rows):
        if len(row) != width:
            raise MapFormatError(f"row has {len(row)} characters, expected width "
                                 f"{width}", path=path, line=first_line + i)
    codes = table[np.frombuffer(b"".join(rows), dtype=np.uint8)].reshape(len(rows), width)
    bad = np.argwhere(codes == 2)
    if bad.size:
        r, c = (int(v) for v in bad[0])
        ch = rows[r][c:c + 1].decode("utf-8", "replace")
        raise MapFormatError(f"unknown map character {ch!r} (passable: "
                             f"{''.join(sorted(set(passable)))}, blocked: "
                             f"{''.join(sorted(set(blocked)))})", path=path,
                             line=first_line + r, column=c + 1)
    return codes == 1


@dataclass
class Scenario:
    """The queries of one ``.scen`` file, as parallel arrays."""

    path: Path
    maps: list            # map name per query, as written in the file
    start: np.ndarray     # (n, 2) int: x, y
    goal: np.ndarray      # (n, 2) int
    size: np.ndarray      # (n, 2) int: map width, height
    optimal: np.ndarray   # (n,) float64
    decimals: np.ndarray  # (n,) int: digits after the point in the file
    line: np.ndarray      # (n,) int: line number of each query

    def __len__(self) -> int:
        return len(self.maps)


#: the largest width, height or coordinate a scenario line may hold (a
#: side of a grid; 2^31 cells would not fit a grid's int32 node ids anyway)
MAX_SIDE = limits.MAX_SCEN_SIDE
#: the longest map name (a file name: most file systems stop at 255)
MAX_NAME = limits.MAX_NAME
_SCEN_FIELDS = ("map width", "map height", "start x", "start y", "goal x", "goal y")


def read_scen(path) -> Scenario:
    """Parse a MovingAI ``.scen`` file (``version 1`` and older layouts)."""
    path, data = read_file(path, "scenario file", MapFormatError)
    text = data.decode("ascii", errors="replace")
    maps, nums, opt, dec, lines = [], [], [], [], []
    for i, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or (i == 1 and line.startswith("version")):
            continue
        parts = line.split("\t") if "\t" in line else line.split()
        if len(parts) != 9:
            raise MapFormatError(f"expected 9 fields (bucket, map, width, height, "
                                 f"start x, start y, goal x, goal y, optimal length), "
                                 f"got {len(parts)}", path=path, line=i)
        try:
            ints = [int(p) for p in (parts[2:8])]
            length = float(parts[8])
        except ValueError:
            raise MapFormatError(f"non-numeric field in {line[:200]!r}", path=path,
                                 line=i) from None
        bad = next((k for k, v in enumerate(ints) if not 0 <= v <= MAX_SIDE), None)
        if bad is not None:
            raise MapFormatError(f"{_SCEN_FIELDS[bad]} must lie in [0, {MAX_SIDE}], got "
                                 f"{parts[2 + bad][:40]}", path=path, line=i)
        if not 0 <= length < np.inf:
            raise MapFormatError(f"optimal length must be a finite number >= 0, got "
                                 f"{parts[8][:40]}", path=path, line=i)
        if len(parts[1]) > MAX_NAME:
            raise MapFormatError(f"map name of {len(parts[1])} characters; at most "
                                 f"{MAX_NAME}", path=path, line=i)
        frac = parts[8].strip().partition(".")[2]
        maps.append(parts[1])
        nums.append(ints)
        opt.append(length)
        dec.append(len(frac))
        lines.append(i)
    arr = np.array(nums, dtype=np.int64).reshape(-1, 6)
    return Scenario(path, maps, arr[:, 2:4], arr[:, 4:6], arr[:, 0:2],
                    np.array(opt, dtype=np.float64), np.array(dec, dtype=np.int64),
                    np.array(lines, dtype=np.int64))


def tolerance(optimal, decimals):
    """Allowed |found - optimal|: 1e-6 relative for 8+ decimal files, the
    printed precision for older ones. Old files print 6 significant digits
    and their last digit is not always rounded (205.76450 appears as
    205.764), so the allowance is one unit in the last printed place."""
    optimal = validate.array(optimal, "optimal", MapFormatError, np.float64)
    decimals = validate.array(decimals, "decimals", MapFormatError)
    if not (decimals.size == 0 or validate.int_dtype(decimals.dtype)):
        raise MapFormatError(f"decimals must be whole numbers, got {decimals!r}")
    printed = 10.0 ** (-decimals.astype(np.float64)) + 1e-9
    return np.where(decimals >= 8, 1e-6 * np.maximum(optimal, 1.0), printed)
