"""YAML that remembers where everything was written.

Scene files are read with a ``yaml.SafeLoader`` subclass (no Python tags,
no code) whose mappings and sequences keep the file position of each key
and value, so a mistake found long after parsing (a start point inside a
wall) can still be reported as ``scene.yaml:12:14: ...``. Lines and
columns are 1-based, as compilers print them.

>>> data = loads("agent:\\n  id: g1\\n  speed: fast\\n", "s.yaml")
>>> entry = Entry(data["agent"], "agent 'g1'", data.value_at["agent"])
>>> entry.take("speed", positive_number)
Traceback (most recent call last):
...
navcore.errors.SceneError: s.yaml:3:10: 'speed' of agent 'g1' must be a positive number, got 'fast'
"""
from __future__ import annotations

import difflib
import math
import numbers
from typing import NamedTuple

import yaml

from navcore import limits
from navcore.errors import SceneError
from navcore.validate import describe     # shared with backends parsing scene values


class Where(NamedTuple):
    """A position in a scene file (1-based line and column)."""

    path: str
    line: int
    column: int

    def error(self, message: str) -> SceneError:
        return SceneError(message, path=self.path, line=self.line, column=self.column)


#: where an error is raised when the checker does not know the position; the
#: caller reports it at the position of the value it handed over instead
NOWHERE = Where("", 0, 0)


class MarkedMap(dict):
    """A YAML mapping: a dict plus ``at`` (where it starts), ``key_at`` and
    ``value_at`` (where each key and its value were written)."""

    at: Where
    key_at: dict
    value_at: dict


class MarkedList(list):
    """A YAML sequence: a list plus ``at`` and ``item_at`` (one per item)."""

    at: Where
    item_at: list


#: limits on what a scene file may make the loader build (README, "Limits"):
#: nesting deeper than this is a mistake or an attack (PyYAML would hit
#: Python's recursion limit near 900 levels, a raw RecursionError)
MAX_DEPTH = limits.MAX_YAML_DEPTH
#: YAML nodes with every alias expanded: an alias shares the value it
#: names, but whatever walks the scene afterwards visits it once per use,
#: so "billion laughs" (nine aliases of nine aliases ...) would make that
#: walk exponential; counted while composing, before anything is built
MAX_EXPANDED_NODES = limits.MAX_YAML_VALUES
#: digits of an integer (Python itself refuses to read more than 4300)
MAX_INT_DIGITS = limits.MAX_INT_DIGITS


class _Loader(yaml.SafeLoader):
    """SafeLoader whose mappings and sequences are Marked*, with limits on
    nesting depth, alias expansion and number length."""

    path = "<scene>"

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0
        self._sizes: dict = {}        # id(node) -> its size with aliases expanded

    def where(self, node) -> Where:
        m = node.start_mark
        return Where(self.path, m.line + 1, m.column + 1)

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise Where(self.path, mark.line + 1, mark.column + 1).error(
                    f"the scene nests deeper than {MAX_DEPTH} levels")
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        size = self._sizes.get(id(node))
        if size is None:                      # new (an alias returns a known node)
            size = 1
            if isinstance(node, yaml.SequenceNode):
                size += sum(self._sizes[id(c)] for c in node.value)
            elif isinstance(node, yaml.MappingNode):
                size += sum(self._sizes[id(k)] + self._sizes[id(v)] for k, v in node.value)
            if size > MAX_EXPANDED_NODES:
                raise self.where(node).error(
                    f"the scene expands to more than {MAX_EXPANDED_NODES:,} values "
                    f"(aliases counted once per use); is an alias repeated on purpose?")
            self._sizes[id(node)] = size
        return node

    def construct_yaml_int(self, node):
        digits = sum(ch.isalnum() for ch in str(node.value))
        if digits > MAX_INT_DIGITS:
            raise self.where(node).error(f"a number of {digits} digits; numbers in a "
                                         f"scene have at most {MAX_INT_DIGITS}")
        return super().construct_yaml_int(node)


def _construct_map(loader: _Loader, node) -> MarkedMap:
    own = sum(1 for k, _ in node.value if k.tag != "tag:yaml.org,2002:merge")
    loader.flatten_mapping(node)          # YAML merge keys (<<) as SafeLoader does:
    merged = len(node.value) - own        # merged pairs come first, own keys override
    out = MarkedMap()
    out.at, out.key_at, out.value_at = loader.where(node), {}, {}
    mine = set()
    for i, (knode, vnode) in enumerate(node.value):
        key = loader.construct_object(knode, deep=True)
        try:
            hash(key)
        except TypeError:
            raise loader.where(knode).error("a mapping key must be a plain value, "
                                            "not a list or mapping") from None
        if key in mine:                   # written twice in this mapping itself
            first = out.key_at[key]
            raise loader.where(knode).error(f"duplicate key {key!r} (first written at "
                                            f"line {first.line})")
        if i >= merged:
            mine.add(key)
        out[key] = loader.construct_object(vnode, deep=True)
        out.key_at[key] = loader.where(knode)
        out.value_at[key] = loader.where(vnode)
    return out


def _construct_list(loader: _Loader, node) -> MarkedList:
    out = MarkedList(loader.construct_object(child, deep=True) for child in node.value)
    out.at = loader.where(node)
    out.item_at = [loader.where(child) for child in node.value]
    return out


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_list)


def loads(text: str, path: str = "<scene>"):
    """Parse one YAML document with positions; a syntax error, an unsafe
    tag, a character YAML forbids or a duplicate key is a ``SceneError``
    at its position."""
    loader = None
    try:
        loader = _Loader(text)            # the reader checks characters here
        loader.path = str(path)
        return loader.get_single_data()
    except SceneError:
        raise
    except yaml.reader.ReaderError as exc:   # a control character, a NUL
        line, column = position(text, exc.position)
        ch = chr(exc.character) if isinstance(exc.character, int) else exc.character
        raise SceneError(f"invalid YAML: character {ch!r} is not allowed "
                         f"in a YAML file", path=path, line=line, column=column) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if mark is None:
            raise SceneError(f"invalid YAML: {problem}", path=path) from None
        raise SceneError(f"invalid YAML: {problem}", path=path, line=mark.line + 1,
                         column=mark.column + 1) from None
    except yaml.YAMLError as exc:
        raise SceneError(f"invalid YAML: {exc}", path=path) from None
    finally:
        if loader is not None:
            loader.dispose()


def position(text, offset: int) -> tuple:
    """1-based ``(line, column)`` of ``offset`` in ``text`` (str or bytes)."""
    nl = "\n" if isinstance(text, str) else b"\n"
    line = text.count(nl, 0, offset) + 1
    return line, offset - (text.rfind(nl, 0, offset) + 1) + 1


# -- reading one mapping ------------------------------------------------------

_MISSING = object()


class Entry:
    """One mapping of a scene being read: ``take`` each key it may have
    (checked and normalised), then ``finish`` reports any key nobody took,
    with a did-you-mean."""

    def __init__(self, mapping, what: str, where: Where):
        if not isinstance(mapping, MarkedMap):
            raise where.error(f"{what} must be a mapping (key: value lines), "
                              f"got {describe(mapping)}")
        self.map = mapping
        self.what = what
        self.at = mapping.at
        self._taken: list = []

    def __contains__(self, key) -> bool:
        return key in self.map

    def where(self, key) -> Where:
        """Where the value of ``key`` was written (the mapping if absent)."""
        return self.map.value_at.get(key, self.at)

    def key_where(self, key) -> Where:
        return self.map.key_at.get(key, self.at)

    def take(self, key: str, check=None, default=_MISSING):
        """The value of ``key`` passed through ``check(value, where, label)``;
        ``default`` when absent (a missing key without default is an error)."""
        self._taken.append(key)
        if key not in self.map:
            if default is _MISSING:
                raise self.at.error(f"{self.what} needs '{key}'")
            return default
        value = self.map[key]
        if check is None:
            return value
        return check(value, self.where(key), f"'{key}' of {self.what}")

    def rest(self) -> list:
        """Keys not taken so far, in file order."""
        return [k for k in self.map if k not in self._taken]

    def finish(self, extra=()) -> None:
        """Every key must have been taken; ``extra`` names more keys to
        suggest (e.g. the parameters a builder accepts)."""
        for key in self.rest():
            raise self.key_where(key).error(
                unknown(key, "key", self.what, list(self._taken) + list(extra)))


def unknown(name, what: str, place: str, choices, listed: bool = False) -> str:
    """``unknown <what> 'x' in <place>; did you mean 'y'?`` (or the list
    of choices when none is close; ``listed``: the list in any case)."""
    choices = sorted(set(str(c) for c in choices))
    close = difflib.get_close_matches(str(name), choices, n=1, cutoff=0.6)
    head = f"unknown {what} {name!r}" + (f" in {place}" if place else "")
    if close:
        return f"{head}; did you mean {close[0]!r}?" + (
            f" (available: {', '.join(choices)})" if listed else "")
    return f"{head}; expected one of: {', '.join(choices) or 'none'}"


# -- value checks: (value, where, label) -> normalised value -------------------

def _is_number(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def text(v, where, label) -> str:
    if not isinstance(v, str) or not v:
        raise where.error(f"{label} must be a non-empty string, got {describe(v)}")
    return v


def name(v, where, label) -> str:
    """An id: a string, or an integer written without quotes."""
    if _is_int(v):
        return str(v)
    return text(v, where, label)


def boolean(v, where, label) -> bool:
    if not isinstance(v, bool):
        raise where.error(f"{label} must be true or false, got {describe(v)}")
    return v


def _hint(v) -> str:
    """YAML 1.1 reads ``1e9`` as text: say how to write it as a number."""
    if isinstance(v, str):
        try:
            x = float(v)
        except ValueError:
            return ""
        return f" (YAML reads {v!r} as text; write it as {x:.1e})"
    if isinstance(v, list):
        return next((h for h in map(_hint, v) if h), "")
    return ""


def positive_number(v, where, label) -> float:
    if not _is_number(v) or not 0 < v < math.inf:
        raise where.error(f"{label} must be a positive number, got {describe(v)}{_hint(v)}")
    return float(v)


def count(v, where, label) -> int:
    if not _is_int(v) or v < 1:
        raise where.error(f"{label} must be a whole number >= 1, got {describe(v)}")
    return int(v)


def natural(v, where, label) -> int:
    if not _is_int(v) or v < 0:
        raise where.error(f"{label} must be a whole number >= 0, got {describe(v)}")
    return int(v)


def point(v, where, label) -> tuple:
    if not isinstance(v, list) or len(v) != 2 or not all(_is_number(c) and math.isfinite(c)
                                                         for c in v):
        raise where.error(f"{label} must be a point [x, y] of two numbers, got "
                          f"{describe(v)}{_hint(v)}")
    return (v[0], v[1])


def place(v, where, label):
    """Where an agent stands or goes: a point ``[x, y]`` (``[x, y, z]`` on
    a 3D level), or a node id (a whole number) on graphs without
    coordinates."""
    if _is_int(v):
        if v < 0:
            raise where.error(f"{label} must be a point [x, y] or a node id >= 0, got {v}")
        return int(v)
    if isinstance(v, list) and len(v) == 3:
        if not all(_is_number(c) and math.isfinite(c) for c in v):
            raise where.error(f"{label} must be a point [x, y, z] of three numbers, got "
                              f"{describe(v)}")
        return (v[0], v[1], v[2])
    if isinstance(v, list):
        return point(v, where, label)
    raise where.error(f"{label} must be a point [x, y] or a node id, got "
                      f"{describe(v)}{_hint(v)}")


def places(v, where, label) -> list:
    if not isinstance(v, MarkedList) or not v:
        raise where.error(f"{label} must be a non-empty list of points [x, y] (or node "
                          f"ids), got {describe(v)}")
    return [place(p, at, f"{label} #{i + 1}") for i, (p, at) in enumerate(zip(v, v.item_at))]


def vector(v, where, label) -> tuple:
    x, y = point(v, where, label)
    return (float(x), float(y))


def points(v, where, label) -> list:
    if not isinstance(v, MarkedList) or not v:
        raise where.error(f"{label} must be a non-empty list of points [x, y], "
                          f"got {describe(v)}")
    return [point(p, at, f"{label} #{i + 1}") for i, (p, at) in enumerate(zip(v, v.item_at))]


def number_or_range(v, where, label):
    """A positive number, or ``[low, high]`` to draw from (crowds)."""
    if isinstance(v, list):
        if len(v) != 2 or not all(_is_number(c) and math.isfinite(c) for c in v) \
                or not 0 < v[0] <= v[1]:
            raise where.error(f"{label} must be a positive number or [low, high] with "
                              f"0 < low <= high, got {describe(v)}")
        return (float(v[0]), float(v[1]))
    return positive_number(v, where, label)
