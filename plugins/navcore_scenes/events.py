"""Event kinds: what a scene's ``{at: N, <kind>: value}`` can do.

An event kind is an object with

* ``validate(value, graph, sim) -> payload``: check the YAML ``value``
  before the scene runs (``graph`` is the built ``NavGraph`` the event
  names, or ``None`` when the kind has ``uses_graph = False``; ``sim`` is
  the ``navcore.Simulation`` being built: ``sim.scene``, ``sim.world``,
  ``sim.check_point``, ``sim.region`` to read a region through the graph's
  scene layer). Raise a ``navcore.NavError`` whose message says what is
  wrong; it is reported at the value's file, line and column.
* ``apply(sim, graph_id, payload)``: carry it out at frame N through the
  ``navcore.Simulation`` API (``sim.world``, ``sim.set_walkable``,
  ``sim.set_cost``, ``sim.set_door``, ``sim.set_goal``, ``sim.replan``).
* ``describe(payload) -> str`` (optional): a few words for the summary.

The built-in kinds below are plain instances of such classes. Every kind,
built-in or not, comes through the ``navcore_scene_event_kinds`` hook: the
scenes plugin offers these, other plugins add more.
"""
from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod

from navcore.errors import PluginError, SceneError

from . import yamlmarks as Y
from .yamlmarks import NOWHERE, Entry, MarkedList, MarkedMap, Where


class EventKind(ABC):
    """Base class for event kinds (subclassing it is optional). ``apply``
    is abstract: a subclass without one fails when it is made, naming the
    method, not at the frame its event comes."""

    uses_graph = True

    def validate(self, value, graph, sim):
        return value

    @abstractmethod
    def apply(self, sim, graph_id, payload) -> None:
        """Carry the event out (see the module docstring)."""

    def describe(self, payload) -> str:
        return str(payload)


def _value_where(value) -> Where:
    return value.at if isinstance(value, (MarkedMap, MarkedList)) else NOWHERE


class _Block(EventKind):
    """``block: REGION`` / ``unblock: REGION``: walls appear or vanish (a
    region as the graph's scene layer reads it: ``[x, y, w, h]`` on grids)."""

    def __init__(self, walkable: bool):
        self.walkable = walkable
        self.word = "unblock" if walkable else "block"

    def validate(self, value, graph, sim):
        region = sim.region(graph.graph_id, value, f"'{self.word}'", _value_where(value))
        return (region, sim.layers[graph.graph_id].show(region))

    def apply(self, sim, graph_id, payload):
        sim.set_walkable(graph_id, payload[0], self.walkable)

    def describe(self, payload):
        return f"{self.word} {payload[1]}"


class _Door(EventKind):
    """``open: NAME`` / ``close: NAME``: a door of the graph's ``doors``."""

    def __init__(self, opens: bool):
        self.opens = opens
        self.word = "open" if opens else "close"

    def validate(self, value, graph, sim):
        Y.name(value, NOWHERE, f"'{self.word}'")
        doors = sim.scene.graph_spec(graph.graph_id).doors
        if str(value) not in doors:
            raise SceneError(Y.unknown(value, "door", f"graph {graph.graph_id!r}", doors)
                             if doors else f"graph {graph.graph_id!r} has no doors; "
                                           f"declare them under its 'doors'")
        return str(value)

    def apply(self, sim, graph_id, payload):
        sim.set_door(graph_id, payload, self.opens)

    def describe(self, payload):
        return f"{self.word} {payload}"


class _Cost(EventKind):
    """``cost: {rect: REGION, value: 3.0}``: mud, roads, ``.inf`` walls (a
    finite cost leaves the walls in the region walls). The region's key is
    the graph's scene layer's ``region_key``: ``bbox`` on road networks."""

    def validate(self, value, graph, sim):
        e = Entry(value, "'cost'", _value_where(value))
        key = sim.layers[graph.graph_id].region_key
        for other in {"rect", "bbox"} - {key}:
            if other in e:
                raise e.key_where(other).error(
                    f"'cost' on graph {graph.graph_id!r} takes its region as '{key}', "
                    f"not '{other}'" + (" ([west, south, east, north] in degrees)"
                                        if key == "bbox" else " ([x, y, w, h])"))
        r = sim.region(graph.graph_id, e.take(key), f"'{key}' of 'cost'", e.where(key))
        v = e.take("value")
        if not isinstance(v, numbers.Real) or isinstance(v, bool) or not 0 < v:
            raise e.where("value").error(f"'value' of 'cost' must be a number > 0 "
                                         f"(.inf blocks), got {Y.describe(v)}")
        e.finish()
        return (r, float(v), sim.layers[graph.graph_id].show(r))

    def apply(self, sim, graph_id, payload):
        sim.set_cost(graph_id, payload[0], payload[1])

    def describe(self, payload):
        _, v, shown = payload
        return f"cost {shown} = {'inf' if math.isinf(v) else f'{v:g}'}"


class _Goal(EventKind):
    """``goal: {agent: ID, to: [x, y]}``: an agent (or a whole crowd) is
    sent somewhere else; ``goal: {crowd: ID or [ID, ...], to: [x, y]}``
    orders one or more crowds to one point (as a strategy game orders the
    units picked: the members share the goal, and on a grid walk one flow
    field to it)."""

    uses_graph = False

    def validate(self, value, graph, sim):
        e = Entry(value, "'goal'", _value_where(value))
        specs = {s.id: s for s in sim.scene.agents + sim.scene.crowds}
        if ("agent" in e) == ("crowd" in e):
            raise (e.key_where("crowd") if "agent" in e else e.at).error(
                "'goal' names either 'agent' (an agent or a crowd) or 'crowd' (one crowd "
                "or a list of them)" + (", not both" if "agent" in e else ""))
        if "agent" in e:
            who = [e.take("agent", Y.name)]
            if who[0] not in specs:
                raise e.where("agent").error(Y.unknown(who[0], "agent or crowd", "'goal'",
                                                       specs))
        else:
            who = self._crowds(e, sim)
        to = e.take("to", Y.place)
        for w in who:
            sim.check_point(specs[w].graph, to, "'to' of 'goal'", e.where("to"))
        e.finish()
        return (tuple(who), to)

    @staticmethod
    def _crowds(e, sim) -> list:
        raw = e.take("crowd")
        where = e.where("crowd")
        items = raw if isinstance(raw, MarkedList) else [raw]
        wheres = raw.item_at if isinstance(raw, MarkedList) else [where]
        if not items:
            raise where.error("'crowd' of 'goal' names no crowd")
        crowds = {c.id for c in sim.scene.crowds}
        out = []
        for item, at in zip(items, wheres):
            name = Y.name(item, at, "'crowd' of 'goal'")
            if name not in crowds:
                raise at.error(Y.unknown(name, "crowd", "'goal'", crowds))
            if name in out:
                raise at.error(f"crowd {name!r} is named twice in 'goal'")
            out.append(name)
        return out

    def apply(self, sim, graph_id, payload):
        who, to = payload
        sim.set_goal(who[0] if len(who) == 1 else list(who), to)

    def describe(self, payload):
        return f"goal of {', '.join(payload[0])} -> {list(payload[1])}"


BUILTIN_KINDS = {"block": _Block(False), "unblock": _Block(True), "open": _Door(True),
                 "close": _Door(False), "cost": _Cost(), "goal": _Goal()}


def event_kinds(world, owners: bool = False):
    """The kinds ``world``'s plugins offer (``navcore_scene_event_kinds``;
    the built-in ones come from the scenes plugin); a name claimed twice is
    a PluginError. With ``owners``, also ``{name: plugin name}``, where the
    built-in kinds are owned by ``'navcore'``, as they are part of it."""
    kinds: dict = {}
    owner: dict = {}
    for impl in world.plugins.hook.navcore_scene_event_kinds.get_hookimpls():
        offered = impl.function() or {}
        if not isinstance(offered, dict):
            raise PluginError(f"plugin {impl.plugin_name!r}: navcore_scene_event_kinds() "
                              f"must return a dict of name -> event kind, got {offered!r}")
        for name, kind in offered.items():
            if not isinstance(name, str) or not callable(getattr(kind, "apply", None)) \
                    or not callable(getattr(kind, "validate", None)):
                raise PluginError(f"plugin {impl.plugin_name!r}: event kind {name!r} needs "
                                  f"validate(value, graph, sim) and "
                                  f"apply(sim, graph_id, payload) methods")
            if name in kinds:
                raise PluginError(f"scene event kind {name!r} is provided by both "
                                  f"{owner[name]!r} and plugin {impl.plugin_name!r}")
            kinds[name] = kind
            owner[name] = "navcore" if BUILTIN_KINDS.get(name) is kind else impl.plugin_name
    return (kinds, owner) if owners else kinds
