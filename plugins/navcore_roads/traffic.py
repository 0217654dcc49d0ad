"""The ``traffic`` scene event: roads close, slow down and reopen.

In a scene on a ``roads`` graph::

    events:
      - {at: 200, traffic: {id: rush, box: [7.415, 43.730, 7.430, 43.740], speed: 15}}
      - {at: 260, traffic: {id: crash, way: 37813446, close: true}}
      - {at: 500, traffic: {reopen: crash}}
      - {at: 700, traffic: {reopen: rush}}

Which roads (one of): ``box: [west, south, east, north]`` (every road
segment with an end inside, as the roads' scene layer reads boxes),
``way: ID`` or ``way: [ID, ...]`` (OpenStreetMap way ids: every segment
of those ways), ``edges: [[u, v], ...]`` (the graph's edges ``u -> v``,
junction ids as the graph numbers them; one direction each). With
``box`` and ``way``, ``toward: [lon, lat]`` keeps only the lanes heading
toward that point (each segment judged by its own heading; the inbound
lanes of a morning rush) and ``away_from: [lon, lat]`` the others.

What happens (one of): ``close: true`` (no route uses them),
``speed: KMH`` (travel time at that speed; time-weighted graphs only),
``factor: F`` (F times the free-flow cost). ``id`` names the change so
that a later ``{reopen: ID}`` undoes it: its roads go back to how they
were loaded, except where traffic events still in force cover them
(those are laid on again, in the order they fired). A ``cost`` event's
factor on the same roads is not remembered by a reopen.

Who re-plans (``replan``): ``affected`` (the default of close, speed and
factor) leaves it to the scheduler, which plans again every route the
change cut or made dearer; ``all`` (the default of reopen) has every
agent on the graph that is on its way ask again, since a road that gets
cheaper touches no route that avoided it. The event's line in the
summary says how many agents planned again since it fired.

Every value is checked before the scene plays; a mistake is a
``SceneError`` at the file, line and column of the key that is wrong.
"""
from __future__ import annotations

import difflib
import weakref
from dataclasses import dataclass

import numpy as np

from navcore.errors import NavError, SceneError
from navcore.validate import describe as shown

from . import updates

SELECTIONS = ("box", "way", "edges")
ACTIONS = ("close", "speed", "factor")
HEADINGS = ("toward", "away_from")
REPLAN = ("affected", "all")
KEYS = ("id", *SELECTIONS, *ACTIONS, *HEADINGS, "replan", "reopen")


@dataclass
class Change:
    """A traffic change as validated: ``segments`` (ids into the graph's
    ``segments``) get ``update`` (``{"speed": 15.0}``, ``{"cost": inf}``,
    ``{"factor": 2.0}``), queued with ``World.update(segments=...)``."""

    id: str | None
    update: dict
    segments: np.ndarray
    label: str
    replan: str


@dataclass
class Reopen:
    id: str
    replan: str
    segments: int


class _Nowhere:
    """Where a value without file positions is reported: the scene reports
    it at the event's value instead."""

    @staticmethod
    def error(message):
        return SceneError(message)


def _where(value, key, of_key=False):
    """The file position of ``key``'s value (or of the key) in a mapping
    read from a scene file; the mapping's own position without one."""
    marks = getattr(value, "key_at" if of_key else "value_at", None) or {}
    return marks.get(key) or getattr(value, "at", None) or _Nowhere


def _fail(value, key, message, of_key=False) -> SceneError:
    return _where(value, key, of_key).error(message)


def _name(v, value, key) -> str:
    if isinstance(v, bool) or not isinstance(v, (str, int)) or v == "":
        raise _fail(value, key, f"'{key}' of 'traffic' must be a name, got {shown(v)}")
    return str(v)


def _positive(v, value, key) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 < v < float("inf")):
        raise _fail(value, key, f"'{key}' of 'traffic' must be a number > 0, got {shown(v)}")
    return float(v)


def _point(v, value, key):
    ok = isinstance(v, (list, tuple)) and len(v) == 2 and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)
    if not ok or not (abs(v[0]) <= 180 and abs(v[1]) <= 90):
        raise _fail(value, key, f"'{key}' of 'traffic' must be a point [lon, lat] in "
                                f"degrees, got {shown(v)}")
    return float(v[0]), float(v[1])


def heading_toward(graph, segs, point) -> np.ndarray:
    """Which of ``segs`` head toward ``point`` (lon, lat): the segment's
    direction and the way from its middle to the point make an acute
    angle (on a local flat map, a degree of longitude shrunk by cos lat)."""
    seg = graph.segments
    lon0, lat0 = seg.lon[seg.src[segs]], seg.lat[seg.src[segs]]
    lon1, lat1 = seg.lon[seg.dst[segs]], seg.lat[seg.dst[segs]]
    shrink = np.cos(np.radians((lat0 + lat1) / 2))
    dx, dy = (lon1 - lon0) * shrink, lat1 - lat0
    tx, ty = (point[0] - (lon0 + lon1) / 2) * shrink, point[1] - (lat0 + lat1) / 2
    return dx * tx + dy * ty > 0


class TrafficKind:
    """The ``traffic`` event kind (module docstring). One instance may
    serve several simulations: what is in force is kept per simulation."""

    uses_graph = True

    def __init__(self):
        # per simulation: ids declared while validating (id -> in force),
        # and the changes in force while it plays (graph id -> [Change])
        self._declared = weakref.WeakKeyDictionary()
        self._in_force = weakref.WeakKeyDictionary()

    # -- before the scene plays -----------------------------------------------
    def validate(self, value, graph, sim):
        if not isinstance(value, dict):
            raise SceneError(f"'traffic' must be a mapping such as {{box: [lon0, lat0, "
                             f"lon1, lat1], speed: 20}} or {{reopen: ID}}, got "
                             f"{shown(value)}")
        if getattr(graph, "kind", None) != "roads":
            raise SceneError(f"traffic needs a roads graph; graph {graph.graph_id!r} is "
                             f"a {graph.kind!r} graph")
        for key in value:
            if key not in KEYS:
                close = difflib.get_close_matches(str(key), KEYS, n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]!r}?" if close else \
                    f"; expected one of: {', '.join(KEYS)}"
                raise _fail(value, key, f"unknown key {key!r} in 'traffic'{hint}",
                            of_key=True)
        declared = self._declared.setdefault(sim, {})
        if "reopen" in value:
            return self._reopen(value, graph, declared)
        return self._change(value, graph, sim, declared)

    def _replan(self, value, default):
        v = value.get("replan", default)
        if v not in REPLAN:
            raise _fail(value, "replan", f"'replan' of 'traffic' must be one of "
                                         f"{', '.join(REPLAN)}, got {shown(v)}")
        return v

    def _reopen(self, value, graph, declared) -> Reopen:
        extra = [k for k in value if k not in ("reopen", "replan")]
        if extra:
            raise _fail(value, extra[0], f"'reopen' of 'traffic' undoes an earlier "
                                         f"change and takes only 'replan', not "
                                         f"{extra[0]!r}", of_key=True)
        name = _name(value["reopen"], value, "reopen")
        state = declared.get(name)
        if state is None or state[0] != graph.graph_id or not state[1]:
            ids = sorted(k for k, (g, on, _) in declared.items() if on and g == graph.graph_id)
            why = ("it was reopened already" if state is not None and state[1] is False
                   and state[0] == graph.graph_id else "no earlier traffic event has that id")
            raise _fail(value, "reopen", f"nothing to reopen as {name!r} on graph "
                                         f"{graph.graph_id!r}: {why} (in force then: "
                                         f"{', '.join(ids) or 'none'})")
        declared[name] = (graph.graph_id, False, state[2])
        return Reopen(name, self._replan(value, "all"), state[2])

    def _change(self, value, graph, sim, declared) -> Change:
        picked = [k for k in SELECTIONS if k in value]
        acts = [k for k in ACTIONS if k in value]
        heads = [k for k in HEADINGS if k in value]
        if len(picked) != 1:
            raise _fail(value, picked[1] if picked else None,
                        f"'traffic' names its roads by one of {', '.join(SELECTIONS)}"
                        + (f", not both {picked[0]!r} and {picked[1]!r}" if picked else ""),
                        of_key=True)
        if len(acts) != 1:
            raise _fail(value, acts[1] if acts else None,
                        f"'traffic' does one of {', '.join(ACTIONS)} (or reopen: ID)"
                        + (f", not both {acts[0]!r} and {acts[1]!r}" if acts else ""),
                        of_key=True)
        if len(heads) > 1 or (heads and picked[0] == "edges"):
            raise _fail(value, heads[-1], f"{heads[-1]!r} chooses lanes of a 'box' or "
                                          f"'way'" + (" (edges have a direction already)"
                                                      if picked[0] == "edges" else
                                                      ", one of toward and away_from"),
                        of_key=True)
        select, act = picked[0], acts[0]
        segs, label = self._select(value, select, graph, sim)
        if heads:
            point = _point(value[heads[0]], value, heads[0])
            toward = heading_toward(graph, segs, point)
            segs = segs[toward if heads[0] == "toward" else ~toward]
            label += f" {heads[0].replace('_', ' ')} [{point[0]:g}, {point[1]:g}]"
            if segs.size == 0:
                raise _fail(value, heads[0], f"no road of the 'traffic' {select} heads "
                                             f"{heads[0].replace('_', ' ')} {list(point)}")
        update = self._action(value, act)
        try:           # the roads' own checks (speed on a distance graph, ...)
            updates.make_update(graph, {"segments": segs, **update})
        except NavError as exc:
            raise _fail(value, act, f"'{act}' of 'traffic': {exc.message}") from None
        name = None
        if "id" in value:
            name = _name(value["id"], value, "id")
            state = declared.get(name)
            if state is not None and state[1]:
                raise _fail(value, "id", f"traffic {name!r} is still in force (reopen it "
                                         f"first, or give this change another id)")
            declared[name] = (graph.graph_id, True, int(segs.size))
        return Change(name, update, segs, label, self._replan(value, "affected"))

    def _select(self, value, select, graph, sim):
        v = value[select]
        where = _where(value, select)
        if select == "box":
            box = sim.region(graph.graph_id, v, "'box' of 'traffic'", where)
            segs = updates.select_segments(graph, "bbox", box)
            label = "[" + ", ".join(f"{x:g}" for x in box) + "]"
        else:
            key = "osm_way" if select == "way" else "edges"
            try:
                segs = updates.select_segments(graph, key, v)
            except NavError as exc:
                raise where.error(f"'{select}' of 'traffic': "
                                  f"{exc.message.replace('osm_way', 'way')}") from None
            label = (f"way {shown(v)}" if select == "way" else
                     f"edge{'s' if len(v) > 1 else ''} {shown(v)}")
        if segs.size == 0:
            raise where.error(f"'{select}' of 'traffic' holds no road of graph "
                              f"{graph.graph_id!r}")
        return np.unique(segs), label

    @staticmethod
    def _action(value, act) -> dict:
        v = value[act]
        if act == "close":
            if v is not True:
                raise _fail(value, act, f"'close' of 'traffic' takes true (to open the "
                                        f"roads again, reopen the change by its id), got "
                                        f"{shown(v)}")
            return {"cost": float("inf")}
        return {act: _positive(v, value, act)}

    # -- while it plays --------------------------------------------------------
    def apply(self, sim, graph_id, payload) -> None:
        in_force = self._in_force.setdefault(sim, {}).setdefault(graph_id, [])
        world = sim.world
        if isinstance(payload, Change):
            world.update(graph_id, segments=payload.segments, **payload.update)
            in_force.append(payload)
        else:
            gone = next(c for c in in_force if c.id == payload.id)
            in_force.remove(gone)
            world.update(graph_id, segments=gone.segments, reset=True)
            for c in in_force:          # what still holds there, in firing order
                both = np.intersect1d(c.segments, gone.segments, assume_unique=True)
                if both.size:
                    world.update(graph_id, segments=both, **c.update)
        if payload.replan == "all":
            sim.replan(graph_id)

    def describe(self, payload) -> str:
        if isinstance(payload, Reopen):
            return f"traffic {payload.id!r} reopened ({payload.segments} road segments)"
        act, v = next(iter(payload.update.items()))
        what = {"cost": "closed", "speed": f"{v:g} km/h", "factor": f"x{v:g}"}[act]
        name = f" {payload.id!r}" if payload.id else ""
        return f"traffic{name}: {payload.label} {what} ({payload.segments.size} road segments)"
