"""What each graph type's builder takes: its parameters, their defaults
and their meanings, read from the builder's signature and the
``Parameters:`` section of its docstring.

A builder (what ``navcore_graph_types`` returns) documents every keyword
it takes in that section, one entry per name, continuation lines indented
deeper::

    def build_hexgrid(world, graph_id, *, width, height, blocked=()):
        '''A hexagonal grid of ``width`` x ``height`` cells.

        Parameters:
            width: cells per row.
            height: rows.
            blocked: ``(q, r)`` cells that are walls.
        '''

``World.add_graph``'s help, ``World.graph_type_help`` and ``navcore
types`` show it; the conformance kit checks that no parameter is left
without a meaning.

>>> def build(world, graph_id, *, size, walls=()):
...     '''A square.
...
...     Parameters:
...         size: cells per side.
...         walls: cells that are walls,
...             as (x, y).
...     '''
>>> for p in parameters(build):
...     print(p.name, p.default, p.meaning, sep=" | ")
size | required | cells per side.
walls | () | cells that are walls, as (x, y).
"""
from __future__ import annotations

import functools
import inspect
import re
from typing import NamedTuple

from .errors import GraphError, UnknownGraphTypeError

_SECTION = re.compile(r"^(\s*)Parameters:\s*$")
_ENTRY = re.compile(r"^(\w+)\s*:\s*(.*)$")


class Param(NamedTuple):
    name: str
    default: str         # the default's repr, or "required"
    meaning: str         # "" when the docstring does not say


def parameters(builder) -> list[Param]:
    """The keyword parameters of ``builder`` (after ``world`` and
    ``graph_id``), in signature order, with their meanings."""
    try:
        sig = inspect.signature(builder)
    except (TypeError, ValueError):
        return []
    meanings = documented(builder)
    out = []
    for p in list(sig.parameters.values())[2:]:
        if p.kind not in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD):
            continue
        default = "required" if p.default is p.empty else repr(p.default)
        out.append(Param(p.name, default, meanings.get(p.name, "")))
    return out


def documented(builder) -> dict:
    """``{name: meaning}`` from the ``Parameters:`` section of the
    builder's docstring."""
    lines = inspect.cleandoc(inspect.getdoc(builder) or "").splitlines()
    out: dict = {}
    start = next((i for i, line in enumerate(lines) if _SECTION.match(line)), None)
    if start is None:
        return out
    entry_indent, name = None, None
    for line in lines[start + 1:]:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if entry_indent is None:
            entry_indent = indent
        if indent < entry_indent or indent == 0:
            break                       # the section ended
        text = line.strip()
        m = _ENTRY.match(text) if indent == entry_indent else None
        if m:
            name = m.group(1)
            out[name] = m.group(2)
        elif name is not None:
            out[name] = f"{out[name]} {text}".strip()
    return out


_DESCRIBED: dict = {}


def describe(type_name: str, builder, owner: str) -> str:
    """A type's help: its first docstring paragraph and one line (or a
    few, wrapped) per parameter. Kept per (type, builder, owner): every
    world's first ``add_graph`` asks for every type's help (its docstring),
    and worlds are made often (tests, workers)."""
    try:
        return _DESCRIBED[type_name, builder, owner]
    except TypeError:                      # an unhashable builder: not kept
        return _describe(type_name, builder, owner)
    except KeyError:
        text = _DESCRIBED[type_name, builder, owner] = _describe(type_name, builder, owner)
        return text


def type_help(types: dict, type_name: str | None = None) -> str:
    """``World.graph_type_help``: the help of ``type_name`` (of every type
    by default) among ``types`` (``{type: (builder, plugin_name)}``)."""
    if type_name is None:
        return "\n\n".join(describe(t, b, owner) for t, (b, owner) in sorted(types.items()))
    if not isinstance(type_name, str) or type_name not in types:
        raise UnknownGraphTypeError(f"unknown graph type {type_name!r}; known types: "
                                    f"{', '.join(sorted(types)) or 'none'}")
    builder, owner = types[type_name]
    return describe(type_name, builder, owner)


def _describe(type_name: str, builder, owner: str) -> str:
    doc = inspect.cleandoc(inspect.getdoc(builder) or "")
    first = doc.split("\n\n")[0]
    summary = "" if _SECTION.match(first.splitlines()[0] if first else "") else \
        " ".join(first.split())
    head = f"{type_name} (plugin {owner})"
    lines = [head, *_wrap(summary, "    ")] if summary else [head]
    for p in parameters(builder):
        left = f"    {p.name}" + ("" if p.default == "required" else f"={p.default}")
        lines.extend(_wrap(p.meaning or "(not documented)", " " * 8, first=left + ": "))
    return "\n".join(lines)


def _wrap(text: str, indent: str, first: str | None = None, width: int = 79) -> list:
    import textwrap
    return textwrap.wrap(text, width, initial_indent=first if first is not None else indent,
                         subsequent_indent=indent, break_on_hyphens=False) or [first or ""]


def check_params(builder, type_name, owner, params) -> None:
    """Name unknown or missing builder parameters instead of a TypeError."""
    try:
        sig = inspect.signature(builder)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(None, None, **params)
    except TypeError as exc:
        accepted = [p.name for p in list(sig.parameters.values())[2:]
                    if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
        raise GraphError(f"graph type {type_name!r} (plugin {owner!r}): {exc}; "
                         f"parameters: {', '.join(accepted)} (their meanings: "
                         f"world.graph_type_help({type_name!r}))") from None


class HelpedByPlugins:
    """``World.add_graph`` as a descriptor: through a world it is the
    method with a docstring that also lists every graph type's parameters
    (made from the builders' docstrings, once per plugin set), so
    ``help(world.add_graph)`` tells what each ``type=`` takes."""

    def __init__(self, fn):
        self.fn = fn
        functools.update_wrapper(self, fn)
        sig = inspect.signature(fn)
        self.signature = sig.replace(parameters=list(sig.parameters.values())[1:])

    def __get__(self, world, owner=None):
        if world is None:
            return self.fn
        fn = self.fn

        def add_graph(graph_id, type, **params):
            return fn(world, graph_id, type, **params)
        add_graph.__qualname__ = fn.__qualname__
        add_graph.__module__ = fn.__module__
        add_graph.__doc__ = self._doc(world)
        add_graph.__signature__ = self.signature
        return add_graph

    def _doc(self, world) -> str:
        """The method's docstring and every graph type's help, kept on the
        world until its plugins change (``world._type_doc``)."""
        version, text = world._type_doc
        if version != world.plugins.version:
            text = (inspect.getdoc(self.fn) + "\n\nThe graph types of this world "
                    "and their parameters:\n\n" + world.graph_type_help())
            world._type_doc = (world.plugins.version, text)
        return text
