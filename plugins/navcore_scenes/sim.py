"""``Simulation``: a scene played through ``World.tick``, headless.

Building a ``Simulation`` builds the scene's graphs through the plugin
registry, asks each graph's backend for its scene layer (the
``navcore_scene_layer`` hook: what a region is on that graph and how
changes reach it) and checks everything that needs them (graph types and
their parameters, doors and other regions as the layer reads them, starts
and goals inside the map and not in a wall, every event's value) before
anything runs; a mistake is a ``SceneError`` at its file position and
leaves the world as it was. Then each frame: the events of that frame
change the graphs' nodes through their layers, obstacles move,
``world.tick`` applies the changes, serves path requests within the
budget and moves the agents that walk as crowds; the others take their
results and walk their paths.

An agent walks as a disc of a crowd here: straight across the open hall
(5.1 cells from the start cell's centre to the goal cell's) until it is
within its radius (0.35) of the goal cell's centre:

>>> import navcore
>>> sim = navcore.Simulation.from_text('''
... graphs: [{id: hall, type: grid, rows: ["......", "......"]}]
... agents: [{id: a, start: [0, 0], goal: [5, 1], speed: 10}]
... ''')
>>> summary = sim.run(frames=30)
>>> summary["agents"]["arrived"], round(summary["path_length"]["total"], 1)
(1, 4.8)
"""
from __future__ import annotations

import inspect
import re
import time
from pathlib import Path

import numpy as np

import navcore
from navcore import limits, validate
from navcore.errors import NavError, PluginError, QueryError, SceneError

from . import events, roster
from . import yamlmarks as Y
from .agents import Agents
from .obstacles import Obstacles
from .scene import Scene, parse_scene, read_scene
from .summary import summarize


class Simulation:
    """A scene's graphs, agents, obstacles and events in a ``World``.

    ``world`` defaults to a new ``navcore.World`` with the scene's
    settings and the extra ``plugins`` (modules or objects with hook
    implementations); a world you pass keeps its plugins (custom graph
    types and event kinds) and gets the scene's graphs added.
    """

    def __init__(self, scene: Scene, world=None, plugins=()):
        if not isinstance(scene, Scene):
            raise SceneError(f"Simulation needs a Scene (read_scene, parse_scene), got "
                             f"{scene!r}")
        if world is not None and not isinstance(world, navcore.World):
            raise SceneError(f"world must be a navcore.World or None, got {world!r}")
        self.scene = scene
        s = scene.settings
        self._own_world = world is None
        self.world = world if world is not None else navcore.World(
            plugins=plugins, frame_budget_ms=s.frame_budget_ms, workers=s.workers,
            seed=s.seed, deterministic=s.deterministic,
            frame_budget_nodes=s.frame_budget_nodes, background=s.background)
        if s.deterministic and not getattr(self.world, "deterministic", False):
            raise SceneError("the scene says 'deterministic: true' and the world it was "
                             "given is not deterministic; make it with "
                             "navcore.World(deterministic=True)", path=scene.path)
        self.frame = 0
        self.layers: dict = {}        # graph id -> its SceneLayer (graphs that have one)
        self.doors: dict = {}         # graph id -> {door name: region}
        added = []
        try:
            if self.world.scheduler is None:
                raise SceneError("scenes need the scheduler plugin (navcore_scheduler) "
                                 "to serve their agents' path requests", path=scene.path)
            self.kinds, self.kind_owners = events.event_kinds(self.world,
                                                                    owners=True)
            for spec in scene.graphs:
                self._build_graph(spec)
                added.append(spec.id)
                self._make_layer(spec)
            self._check_doors()
            placed = self._check_obstacles()
            rows = self._check_agents()
            self.events = [self._resolve_event(ev) for ev in scene.events]
        except BaseException:
            for gid in added:                  # leave the world as it was
                self.world.remove_graph(gid)
            if self._own_world:
                self.close()
            raise
        # checked: from here on nothing can fail on the scene's account
        # no kernel loads inside a frame: add_graph has loaded them (unless
        # the world was made with warm_up=False)
        if self.world.warm_up_mode is False:
            self.world.warm_up()
        self.world.ready()
        self.warm_up_s = self.world.warm_up_seconds
        self.obstacles = Obstacles(scene.obstacles, placed, self.layers)
        self.agents = self._start_agents(rows)
        for spec in scene.graphs:
            for door in spec.doors.values():
                if not door.open:
                    self.set_door(spec.id, door.name, False)
        self._due: dict = {}          # frame -> its events, in file order
        for ev in self.events:
            self._due.setdefault(ev[0], []).append(ev)
        self.log: list = []           # one record per event carried out
        self._since_events = ([], None)   # latest events' records, repaths before them
        self.frame_ms: list = []      # world.tick time of each frame
        self.update_ms: list = []     # of which applying updates and observers reacting
        self.request_ms: list = []    # of which serving path requests
        self.step_ms: list = []       # the whole frame: events, obstacles, tick, agents
        self.served = 0
        self.nodes_expanded = 0       # by the served requests' searches
        self.waiting_max = 0
        self.wall_s = 0.0             # seconds spent in run() so far

    @classmethod
    def from_file(cls, path, world=None, plugins=()) -> "Simulation":
        """The scene in file ``path``; ``plugins`` are registered in the
        world it makes (when no ``world`` is given)."""
        return cls(read_scene(path), world, plugins)

    @classmethod
    def from_text(cls, text: str, path="<scene>.yaml", world=None) -> "Simulation":
        return cls(parse_scene(text, path), world)

    def close(self) -> None:
        """Stop the worker threads of a world this simulation created."""
        if self._own_world:
            self.world.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- building and checking ------------------------------------------------
    def _build_graph(self, spec) -> None:
        types = self.world.plugins.graph_types()
        if spec.type not in types:
            raise spec.entry.where("type").error(
                Y.unknown(spec.type, "graph type", spec.entry.what, types, listed=True))
        builder, owner = types[spec.type]
        accepted = _keywords(builder)
        if accepted is not None:
            for key in spec.params:
                if key not in accepted:
                    raise spec.entry.key_where(key).error(Y.unknown(
                        key, f"{spec.type!r} parameter", spec.entry.what,
                        accepted + ["id", "type", "doors", "space"]))
        _check_node_count(spec)
        try:
            self.world.add_graph(spec.id, type=spec.type, **spec.params)
        except NavError as exc:
            message = self._relative(exc)
            raise self._param_where(spec, exc.message).error(
                f"{spec.entry.what}: {message}") from None
        except Exception as exc:              # a plugin's builder that did not check
            raise spec.where.error(f"{spec.entry.what}: the {spec.type!r} builder of "
                                   f"plugin {owner!r} failed: {type(exc).__name__}: "
                                   f"{exc}") from None

    def _make_layer(self, spec) -> None:
        """The graph's scene layer, when its backend lends one."""
        graph = self.world.graph(spec.id)
        try:
            lay = self.world.plugins.hook.navcore_scene_layer(
                world=self.world, graph_id=spec.id, graph=graph)
        except NavError:
            raise
        except Exception as exc:              # a plugin's layer that did not check
            raise spec.where.error(f"{spec.entry.what}: the scene layer of {spec.type!r} "
                                   f"graphs failed: {type(exc).__name__}: {exc}") from None
        if lay is None:
            return
        if not isinstance(lay, navcore.SceneLayer):
            raise PluginError(f"navcore_scene_layer must return a navcore.SceneLayer for "
                              f"{spec.type!r} graphs, got {type(lay).__name__}")
        self.layers[spec.id] = lay

    @staticmethod
    def _param_where(spec, message: str):
        """Where the parameter a builder's error names was written (the
        first one the message mentions), else the graph's mapping."""
        found = []
        for key in spec.params:
            m = re.search(rf"(?<![\w-]){re.escape(str(key))}(?![\w-])", message)
            if m:
                found.append((m.start(), key))
        # ("passable must be ... map characters": passable, not map)
        return spec.entry.where(min(found)[1]) if found else spec.where

    def _relative(self, exc: NavError) -> str:
        """The error's text with a file inside the scene's folder named
        relative to it (as the scene names it)."""
        if exc.path is None:
            return str(exc)
        try:
            rel = Path(exc.path).resolve().relative_to(self.scene.folder.resolve())
        except ValueError:
            return str(exc)
        return str(type(exc)(exc.message, path=rel, line=exc.line, column=exc.column))

    def region(self, graph_id, value, label: str, where):
        """``value`` as a region of graph ``graph_id``, read by its scene
        layer; ``SceneError`` at ``where`` (``label`` names the value) when
        the layer refuses it or the graph has no layer."""
        lay = self.layers.get(graph_id)
        if lay is None:
            kind = self.world.graph(graph_id).kind
            raise where.error(f"{label} is not supported on graph {graph_id!r}: its type "
                              f"{kind!r} has no scene layer (no plugin answers "
                              f"navcore_scene_layer for it)")
        try:
            return lay.region(value)
        except NavError as exc:
            raise where.error(f"{label} {exc.message}") from None
        except Exception as exc:              # a plugin's layer that did not check
            raise where.error(f"{label}: the scene layer of graph {graph_id!r} failed: "
                              f"{type(exc).__name__}: {exc}") from None

    def _check_doors(self) -> None:
        for spec in self.scene.graphs:
            self.doors[spec.id] = {d.name: self.region(spec.id, d.region, d.label, d.where)
                                   for d in spec.doors.values()}

    def _check_obstacles(self) -> list:
        """Each obstacle's ``(region, box, bounds it moves in)``."""
        out = []
        for ob in self.scene.obstacles:
            what = f"'rect' of obstacle {ob.id!r}"
            region = self.region(ob.graph, ob.region, what, ob.region_where)
            lay = self.layers[ob.graph]
            try:                      # a layer without geometry says so here, not later
                out.append((region, lay.region_box(region), lay.bounds()))
            except NavError as exc:
                raise ob.region_where.error(f"{what}: {exc.message}") from None
        return out

    def check_point(self, graph_id, point, what: str, where) -> int:
        """The node of ``point`` (``[x, y]`` or a node id) in graph
        ``graph_id``; ``SceneError`` at ``where`` when it lies outside the
        graph or in a wall of the map, or when the graph has no node
        positions for agents to walk between. A point stands for the node
        the graph locates it in (a grid's cell, else the nearest node)."""
        graph = self.world.graph(graph_id)
        shown = point if isinstance(point, int) else list(point)
        lay = self.layers.get(graph_id)
        dims = 2 if lay is None else lay.dims
        if not isinstance(point, int) and len(point) != dims:
            form = "[x, y, z] (a 3D level)" if dims == 3 else "[x, y]"
            raise where.error(f"{what} {shown} must be a point {form} on graph {graph_id!r}")
        if not graph.has_positions():
            raise where.error(f"{what}: agents walk between node positions, and "
                              f"{graph.kind} graph {graph_id!r} has none (give it "
                              f"'positions')")
        try:
            node = graph.node_of(_query(point))
        except NavError as exc:
            raise where.error(f"{what}: {exc.message}") from None
        if node < 0:
            lay = self.layers.get(graph_id)
            extent = f" ({lay.extent()})" if lay is not None and lay.extent() else ""
            raise where.error(f"{what} {shown} is outside graph {graph_id!r}{extent}")
        if not graph.walkable[node]:
            raise where.error(f"{what} {shown} is in a wall of graph {graph_id!r}")
        return node

    def _start_walls(self, graph_id):
        """The walkable mask at frame 1: the map with its closed doors shut."""
        walkable = self.world.graph(graph_id).walkable
        closed = [d for d in self.scene.graph_spec(graph_id).doors.values() if not d.open]
        if not closed:
            return walkable
        walkable = walkable.copy()
        for d in closed:       # doors were read, so the graph has a layer
            walkable[self.layers[graph_id].nodes_in(self.doors[graph_id][d.name])] = False
        return walkable

    def _check_start(self, a) -> None:
        """An agent's start is in the map, not in a wall, not in a door
        that is closed when the scene begins."""
        node = self.check_point(a.graph, a.start, f"start of agent {a.id!r}", a.start_where)
        lay = self.layers.get(a.graph)
        for d in self.scene.graph_spec(a.graph).doors.values():
            if not d.open and node in lay.nodes_in(self.doors[a.graph][d.name]):
                raise a.start_where.error(f"start of agent {a.id!r} {list(a.start)} is in "
                                          f"door {d.name!r}, which is closed at the start")

    def _check_agents(self) -> list:
        """Check agents and crowds; one ``roster.Row`` of starting data per
        agent. Agents that walk as crowds get their graph's crowd
        (``walking``) and start where their discs overlap no other."""
        self.walking: dict = {}       # graph id -> (its crowd, or None and why not)
        self._spots: dict = {}        # graph id -> discs of the walkers placed so far
        self.exits: list = []         # (graph id, region) where crowds leave the map
        roster.check_crowd_params(self)
        rows = []
        for a in self.scene.agents:
            self._check_start(a)
            for g, at in zip(a.goals, a.goal_wheres):
                self.check_point(a.graph, g, f"goal of agent {a.id!r}", at)
            rows.append(roster.agent_row(self, a, self._centre(a.graph, a.start)))
        for c in self.scene.crowds:
            rows.extend(self._crowd_rows(c))
        return rows

    def _centre(self, graph_id, point):
        """Agents start where a path from their place starts: on a grid the
        cell's centre, on a navmesh the point itself (the backend decides,
        through the first point of a path from there to there)."""
        place = _query(point)
        start = self.world.find_path(graph_id, place, place)
        if start.found:
            return tuple(float(v) for v in start.points[0, :len(place)]) \
                if isinstance(place, tuple) else tuple(float(v) for v in start.points[0, :2])
        graph = self.world.graph(graph_id)     # a start that may not be walkable yet
        if isinstance(place, tuple) and len(place) == 3:
            return tuple(float(v) for v in place)
        return tuple(graph.points_of(np.array([graph.node_of(place)]))[0, :2])

    def _crowd_rows(self, c) -> list:
        """Members start at walkable places drawn from the crowd's ``from``
        region (the scene layer draws them: ``SceneLayer.sample_points``;
        members that walk as a crowd, where their discs overlap no other)
        and go to places drawn from its ``to`` region (for walkers, apart:
        ``roster.goals_apart``), or to its ``goal``."""
        graph = self.world.graph(c.graph)
        seed = self.scene.settings.seed if c.seed is None else c.seed
        rng = np.random.default_rng([seed, len(c.id), *c.id.encode()])
        walks = roster.walks_of(self, c, f"crowd {c.id!r}")
        radii = roster.radii(self, c)
        label = f"'from' of crowd {c.id!r}"
        region = self.region(c.graph, c.start_region, label, c.start_where)
        lay = self.layers[c.graph]             # region() said the graph has one
        if walks:
            starts = roster.spread(self, c, region, radii, rng)
        else:
            starts = lay.sample_points(region, c.count, rng, self._start_walls(c.graph))
            if starts is None:
                raise c.start_where.error(f"{label} {lay.show(region)} holds no walkable "
                                          f"{lay.node_word}")
        starts = np.asarray(starts, dtype=np.float64)[:, :lay.dims]
        if c.goal_region is not None:
            label = f"'to' of crowd {c.id!r}"
            region = self.region(c.graph, c.goal_region, label, c.goal_where)
            points = lay.sample_points(region, c.count, rng, graph.walkable)
            if points is None:
                raise c.goal_where.error(f"{label} {lay.show(region)} holds no walkable "
                                         f"{lay.node_word}")
            points = np.asarray(points, dtype=np.float64)[:, :lay.dims]
            if walks:
                points = roster.goals_apart(self, c, region, points, radii)
            goals = [tuple(p) for p in points]
            targets = [[g] for g in goals]
        else:
            self.check_point(c.graph, c.goal, f"'goal' of crowd {c.id!r}", c.goal_where)
            goals = [c.goal] * c.count
            targets = [[self._centre(c.graph, c.goal)]] * c.count
        speed = c.speed if not isinstance(c.speed, tuple) else rng.uniform(*c.speed, c.count)
        speeds = np.broadcast_to(np.asarray(speed, dtype=np.float64), (c.count,))
        exit_ = -1
        if not isinstance(c.leave, bool):          # a region: the crowd's exit
            exit_ = len(self.exits)
            self.exits.append((c.graph, self.region(c.graph, c.leave,
                                                    f"'leave' of crowd {c.id!r}",
                                                    c.leave_where)))
        return [roster.Row(f"{c.id}-{k}", c.graph, tuple(starts[k]), [goals[k]], False,
                           float(speeds[k]), c.repath, float(radii[k]), walks,
                           c.leave is True, targets[k] if walks else None, exit_)
                for k in range(c.count)]

    def _start_agents(self, rows) -> Agents:
        cols = list(zip(*rows)) if rows else [[]] * len(roster.Row._fields)
        (ids, graphs, starts, goals, loops, speeds, repaths, radii, walks, leave, targets,
         exits) = cols
        crowds = {g: c for g, (c, _) in self.walking.items() if c is not None}
        agents = Agents(self.world, ids, graphs, starts, goals, loops, speeds, repaths,
                        layers=self.layers, radii=radii, walks=walks, leave=leave,
                        crowds=crowds, targets=targets, exits=exits, exit_regions=self.exits)
        self.crowds = {c.id: [agents.index[f"{c.id}-{k}"] for k in range(c.count)]
                       for c in self.scene.crowds}
        return agents

    def _resolve_event(self, ev):
        """``(frame, kind name, kind, graph id, payload)`` of one event."""
        e = ev.entry
        kinds = [k for k in e.rest() if k in self.kinds]
        others = [k for k in e.rest() if k not in self.kinds]
        if others:
            raise e.key_where(others[0]).error(Y.unknown(
                others[0], "key", e.what, ["at", "graph", *self.kinds]))
        if not kinds:
            raise ev.where.error(f"{e.what} says nothing to do; add one of: "
                                 f"{', '.join(sorted(self.kinds))}")
        if len(kinds) > 1:
            raise e.key_where(kinds[1]).error(
                f"{e.what} has two kinds, {kinds[0]!r} and {kinds[1]!r}; write one event "
                f"per change")
        name = kinds[0]
        kind = self.kinds[name]
        graph = None
        if getattr(kind, "uses_graph", True):
            if ev.graph is None:
                raise ev.where.error(f"{e.what} needs 'graph': the scene has "
                                     f"{len(self.scene.graphs)} graphs")
            graph = self.world.graph(ev.graph)
        value, where = e.map[name], e.where(name)
        try:
            payload = kind.validate(value, graph, self)
        except SceneError as exc:
            if exc.line:                          # the kind knew the exact position
                raise
            raise where.error(f"{name!r} of {e.what}: {exc.message}") from None
        except NavError as exc:
            raise where.error(f"{name!r} of {e.what}: {exc.message}") from None
        except Exception as exc:                  # a plugin's kind that did not check
            raise where.error(f"{name!r} of {e.what}: event kind {name!r} of plugin "
                              f"{self.kind_owners.get(name, '?')!r} failed: "
                              f"{type(exc).__name__}: {exc}") from None
        return (max(ev.at, 1), name, kind, ev.graph, payload)   # at: 0 is frame 1

    # -- what event kinds may call ------------------------------------------
    def _layer(self, graph_id):
        lay = self.layers.get(graph_id) if type(graph_id) is str else None
        if lay is None:
            raise QueryError(f"graph {graph_id!r} has no scene layer; a scene cannot "
                             f"change its nodes")
        return lay

    def set_walkable(self, graph_id, region, walkable: bool) -> None:
        """Make the nodes of ``region`` (a region of the graph's scene
        layer) walls or floor (obstacles on them keep them blocked until
        they leave)."""
        walkable = validate.boolean(walkable, "walkable", QueryError)
        lay = self._layer(graph_id)
        lay.set_walkable(self._nodes_region(lay, region), walkable)

    def set_cost(self, graph_id, region, value: float) -> None:
        """Cost of the nodes of ``region`` (``inf`` blocks them)."""
        try:
            ok = not isinstance(value, (bool, np.bool_)) and \
                isinstance(value, (int, float, np.integer, np.floating)) and float(value) >= 0
        except OverflowError:               # an int past any float
            ok = False
        if not ok:
            raise QueryError(f"cost must be a number >= 0 (inf blocks), got {value!r}")
        lay = self._layer(graph_id)
        lay.set_cost(self._nodes_region(lay, region), float(value))

    @staticmethod
    def _nodes_region(lay, region):
        """``region`` as the layer reads it: a list is a scene file's
        value (``[x, y, w, h]`` on a grid), read and checked by the layer;
        anything else must be a region it read already (``region()``).
        ``QueryError`` or ``SceneError`` where it is neither."""
        if isinstance(region, list):
            return lay.region(region)
        try:
            idx = np.asarray(lay.nodes_in(region))
        except (TypeError, ValueError, IndexError, KeyError) as exc:
            raise QueryError(f"{region!r} is not a region of graph {lay.graph_id!r} "
                             f"(read one with Simulation.region): {exc}") from None
        if idx.dtype.kind not in "iu" or idx.size and (idx.min() < 0 or
                                                        idx.max() >= lay.graph.num_nodes):
            raise QueryError(f"{region!r} is not a region of graph {lay.graph_id!r}: it "
                             f"names nodes outside it")
        return region

    def set_door(self, graph_id, name: str, open: bool) -> None:
        """Open or close a door declared under the graph's ``doors``. An
        open door is the map as drawn under it (a door drawn wider than
        its passage leaves the walls beside it walls); a closed one is
        wall."""
        doors = self.doors.get(graph_id, {}) if type(graph_id) is str else {}
        region = doors.get(name) if type(name) is str else None
        if region is None:
            raise QueryError(f"no door {name!r} on graph {graph_id!r}; its doors: "
                             f"{', '.join(doors) or 'none'}")
        if validate.boolean(open, "open", QueryError):
            self._layer(graph_id).restore(region)
        else:
            self.set_walkable(graph_id, region, False)

    def set_goal(self, agent_or_crowd, point) -> None:
        """Send an agent, every agent of a crowd, or of a list of agents and
        crowds, to ``point``; one order: nothing changes when a name or
        the point is refused."""
        names = [agent_or_crowd] if type(agent_or_crowd) is str else agent_or_crowd
        if not isinstance(names, (list, tuple)) or not names:
            raise QueryError(f"set_goal takes an agent or crowd id, or a list of them, got "
                             f"{agent_or_crowd!r}")
        members = []
        for name in names:
            got = [None] if type(name) is not str else \
                self.crowds.get(name, [self.agents.index.get(name)])
            if None in got:
                raise QueryError(f"no agent or crowd {name!r} in this scene")
            members.extend(got)
        goal = _query(point)
        for i in members:   # checked first: a refused point leaves every agent as it was
            self.world.graph(self.agents.graph_ids[i]).node_of(goal)
        walking = {self.agents.graph_ids[i] for i in members if self.agents.walks[i]}
        self.agents.set_goals(members, goal, {g: self._centre(g, goal) for g in walking})

    def replan(self, graph_id) -> int:
        """Every agent on ``graph_id`` that is on its way and re-plans
        (``repath``) asks again for a path from where it stands; returns
        how many did. The scheduler re-plans by itself only the paths an
        update broke or made dearer; an event that makes some way cheaper
        (a road reopens) calls this so that agents take it."""
        if type(graph_id) is not str or graph_id not in self.world.graphs:
            raise QueryError(f"no graph {graph_id!r} in this scene's world")
        return self.agents.replan(graph_id)

    # -- running --------------------------------------------------------------
    def step(self):
        """Play one frame; returns the ``FrameStats`` of its ``world.tick``."""
        t0 = time.perf_counter()
        self.frame += 1
        due = self._due.get(self.frame, ())
        if due:
            repaths_before = self.agents.repaths.copy()
        before = {ev[3]: self.count_areas(ev[3]) for ev in due if ev[3] is not None}
        for _, name, kind, graph_id, payload in due:
            try:
                kind.apply(self, graph_id, payload)
            except NavError:
                raise
            except Exception as exc:              # a plugin's kind failing mid-run
                raise NavError(f"frame {self.frame}: event kind {name!r} of plugin "
                               f"{self.kind_owners.get(name, '?')!r} failed: "
                               f"{type(exc).__name__}: {exc}") from exc
        self.obstacles.step(self.scene.settings.dt)
        for lay in self.layers.values():
            lay.flush()
        self.agents.retry(self.frame)
        s = self.scene.settings
        stats = self.world.tick(s.dt, budget_ms=s.frame_budget_ms,
                                budget_nodes=s.frame_budget_nodes)
        self.agents.take_results()
        self.agents.move(self.scene.settings.dt)
        if due:
            self._since_events = ([], repaths_before)
        for _, name, kind, graph_id, payload in due:
            describe = getattr(kind, "describe", None)
            self.log.append({"frame": self.frame, "kind": name, "graph": graph_id,
                             "what": describe(payload) if describe else name,
                             "areas_before": before.get(graph_id),
                             "areas_after": self.count_areas(graph_id)})
            self._since_events[0].append(self.log[-1])
        self._count_replanned()
        self.frame_ms.append(stats.time_total_ms)
        self.update_ms.append(stats.time_updates_ms + stats.time_observers_ms)
        self.request_ms.append(stats.time_requests_ms)
        self.served += stats.requests_served
        self.nodes_expanded += stats.nodes_expanded
        self.waiting_max = max(self.waiting_max, stats.requests_waiting)
        self.step_ms.append((time.perf_counter() - t0) * 1e3)
        return stats

    def run(self, frames: int | None = None, progress: bool | None = False,
            on_frame=None) -> dict:
        """Play ``frames`` frames (the scene's ``settings.frames`` by
        default) and return the summary (``navcore_scenes.summary``).
        ``progress``: a progress bar on stderr (``None``: only on a
        terminal). ``on_frame(sim)`` runs after each frame (pictures)."""
        if frames is not None and not (validate.is_int(frames) and frames >= 0):
            raise QueryError(f"frames must be a whole number >= 0 or None, got {frames!r}")
        if on_frame is not None and not callable(on_frame):
            raise QueryError(f"on_frame must be a function of the simulation or None, got "
                             f"{on_frame!r}")
        if progress is not None:
            progress = validate.boolean(progress, "progress", QueryError)
        frames = self.scene.settings.frames if frames is None else int(frames)
        bar = None
        if progress is not False:
            from tqdm import tqdm
            bar = tqdm(total=frames, unit="frame", leave=False, desc=self.scene.name,
                       disable=None if progress is None else False)
        t0 = time.perf_counter()
        try:
            for _ in range(frames):
                self.step()
                if on_frame is not None:
                    on_frame(self)
                if bar is not None:
                    bar.update(1)
        finally:
            self.wall_s += time.perf_counter() - t0
            if bar is not None:
                bar.close()
        return summarize(self, self.wall_s)

    def _count_replanned(self) -> None:
        """``replanned`` of the latest frame's event records: agents that
        planned again since those events (until the next ones come), so
        the summary shows whom a change sent another way."""
        records, before = self._since_events
        if records:
            n = int((self.agents.repaths > before).sum())
            for rec in records:
                rec["replanned"] = n

    def count_areas(self, graph_id):
        """Number of connected areas of ``graph_id`` now (``None`` without
        a plugin that answers areas)."""
        if graph_id is None:
            return None
        try:
            areas = self.world.areas(graph_id)
        except QueryError:
            return None
        return int(np.unique(areas[areas >= 0]).size)


def _keywords(builder):
    """Parameter names a builder accepts after ``(world, graph_id)``, or
    ``None`` when it takes ``**kwargs`` (anything goes, it checks itself)."""
    try:
        params = list(inspect.signature(builder).parameters.values())[2:]
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return [p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _query(place):
    """A scene place as ``find_path`` takes it: a node id or an ``(x, y)``."""
    if validate.is_int(place):
        return int(place)
    try:
        return tuple(place)
    except TypeError:
        raise QueryError(f"a place is a node id or an (x, y) point, got {place!r}") from None


def _check_node_count(spec) -> None:
    """A scene's edge arrays (``src``/``dst``, ``num_nodes``) may name at
    most ``limits.MAX_ISOLATED`` nodes beyond two per edge, as a DIMACS
    file may: ``dst: [10000000]`` is a typo, yet it would build ten million
    nodes, each with its share of every per-node array (the hierarchy's
    areas among them: gigabytes and half a minute), before anything could
    say so."""
    src, dst = spec.params.get("src"), spec.params.get("dst")
    if not isinstance(src, list) or not isinstance(dst, list):
        return
    cap = 2 * max(len(src), len(dst)) + limits.MAX_ISOLATED
    for key in ("src", "dst", "num_nodes"):
        value = spec.params.get(key)
        ids = value if isinstance(value, list) else [value]
        big = next((v for v in ids if isinstance(v, int) and not isinstance(v, bool)
                    and v >= cap), None)
        if big is not None:
            raise spec.entry.where(key).error(
                f"{spec.entry.what}: {key} names node {big}, but {len(src)} edges make at "
                f"most {cap} nodes in a scene (two per edge and "
                f"{limits.MAX_ISOLATED} without edges)")
