"""Scene files: YAML that describes graphs, agents and timed events.

``read_scene(path)`` checks the file's shape (keys, types, required
fields, references between entries, map files) and returns a ``Scene``;
``navcore.Simulation(scene)`` then builds the graphs through the plugin
registry and checks what needs them (graph types and parameters, regions
as each graph's scene layer reads them, points inside the map and not in
a wall, event values) before anything runs. Every mistake is a
``SceneError`` printed as ``path:line:column: message``.

A *region* (a door, a crowd's ``from`` and ``to``, an obstacle's
``rect``, a ``block`` or ``cost`` event) means what the graph's backend
says (``navcore.SceneLayer``): on a grid, a rectangle ``[x, y, w, h]`` of
cells; on a navmesh, a rectangle ``[x, y, w, h]`` or a polygon ring; on
a road network, a box ``[west, south, east, north]`` in degrees.

Graphs that give one ``space`` a name are maps of one place (a navmesh
per agent size: infantry on one, carts on another): a picture of one of
them shows the agents of all of them, each at its graph's agent radius.
A graph with ``agents: {small: {agent_radius: 0.3}, large: {agent_radius:
0.9}}`` is one graph per agent type, ``<id>.small`` and ``<id>.large``,
each with the graph's parameters and its own over them, of space ``<id>``
(level graphs of one level then rasterize it once).

A scene, in brief (the README has a complete example)::

    settings: {dt: 0.05, frames: 600, frame_budget_ms: 2.0, seed: 1, workers: 0,
               deterministic: false, frame_budget_nodes: 20000, background: false}
    graphs:
      - id: keep                   # any graph type a plugin provides
        type: grid
        space: castle              # optional: graphs of one place share a name
        map: keep.map              # files are relative to the scene file
        doors: {gate: [10, 4, 1, 2], vault: {rect: [3, 9, 2, 1], open: false}}
    agents:
      - {id: guard, start: [2, 2], waypoints: [[20, 2], [20, 12]], loop: true,
         speed: 4, repath: true}
    crowds:                         # many agents drawn from regions
      - {id: troop, count: 200, from: [0, 0, 10, 40], to: [90, 0, 10, 40]}
    obstacles:                      # boxes that move and block what is under them
      - {id: cart, rect: [30, 5, 3, 2], velocity: [2, 0]}
    events:                         # at frame N
      - {at: 100, close: gate}
      - {at: 150, block: [5, 5, 2, 2]}
      - {at: 200, goal: {agent: guard, to: [3, 3]}}
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from navcore import limits, validate
from navcore.errors import QueryError, SceneError
from navcore.files import read_file

from . import yamlmarks as Y
from .yamlmarks import Entry, MarkedList, Where

SECTIONS = ("name", "description", "settings", "graphs", "agents", "crowds",
            "obstacles", "events")
#: graph parameters that name files: resolved relative to the scene file
FILE_PARAMS = ("map", "mesh", "level", "osm", "dimacs", "coords", "geojson")
FILE_SUFFIX = "_file"
#: a run of more frames than this is a mistake (it is over 5 days at 60 fps)
MAX_FRAMES = limits.MAX_FRAMES
MAX_WORKERS = limits.MAX_WORKERS


@dataclass
class Settings:
    dt: float = 0.05               # simulated seconds per frame
    frames: int = 600              # frames ``navcore run`` plays
    frame_budget_ms: float = 2.0   # path-request budget of each tick
    seed: int = 0                  # crowds draw their nodes from this
    workers: int = 0               # search threads (0: the ticking thread)
    deterministic: bool = False    # serve requests by a node budget only (replays)
    background: bool = False       # search requests across frames on the workers
    frame_budget_nodes: int | None = None   # nodes a tick's searches may expand
    avoidance: bool = True         # agents walk as crowds where their graph has them


@dataclass
class Door:
    name: str
    region: object                 # as written: the graph's scene layer reads it
    label: str                     # how messages name the region
    open: bool
    where: Where                   # where the region was written


@dataclass
class GraphSpec:
    id: str
    type: str
    params: dict                   # builder parameters, file paths resolved
    doors: dict                    # name -> Door
    where: Where
    entry: Entry                   # for the position of each parameter
    space: str | None = None       # graphs of one space: maps of one place
    crowd: dict = field(default_factory=dict)   # World.add_crowd parameters for its walkers
    crowd_where: Where | None = None


@dataclass
class AgentSpec:
    id: str
    graph: str
    start: tuple
    goals: list                    # one goal, or the waypoints in order
    loop: bool
    speed: float
    repath: bool
    where: Where
    start_where: Where
    goal_wheres: list
    radius: float | None = None    # None: the graph's agent radius, or DEFAULT_RADIUS
    avoidance: bool | None = None  # None: the settings' default


@dataclass
class CrowdSpec:
    id: str
    graph: str
    count: int
    start_region: object           # as written, read by the graph's scene layer
    goal_region: object            # None when the crowd has one 'goal' point
    speed: object                  # a number or (low, high)
    repath: bool
    seed: int | None
    where: Where
    start_where: Where
    goal_where: Where
    goal: object = None            # one point for every member (instead of 'to')
    radius: object = None          # a number, (low, high), or None (as AgentSpec)
    avoidance: bool | None = None
    leave: object = False          # True: members leave the map on arrival; a region:
    leave_where: Where | None = None   # ... when they step into it (an exit)


@dataclass
class ObstacleSpec:
    id: str
    graph: str
    region: object                 # as written ('rect'), read by the graph's scene layer
    velocity: tuple                # map units per second; bounces off the map's bounds
    where: Where
    region_where: Where


@dataclass
class EventSpec:
    """One timed event; ``entry`` keeps its raw mapping because the event
    kind (a built-in or a plugin's) is resolved when the scene is built."""

    at: int
    graph: str | None
    entry: Entry
    index: int
    where: Where


@dataclass
class Scene:
    path: Path
    name: str
    description: str
    settings: Settings
    graphs: list
    agents: list = field(default_factory=list)
    crowds: list = field(default_factory=list)
    obstacles: list = field(default_factory=list)
    events: list = field(default_factory=list)

    @property
    def folder(self) -> Path:
        return self.path.parent

    def graph_spec(self, graph_id) -> GraphSpec:
        """The spec of graph ``graph_id``; ``QueryError`` for an id the scene
        has no graph of."""
        for g in self.graphs:
            if type(graph_id) is str and g.id == graph_id:
                return g
        raise QueryError(f"the scene has no graph {graph_id!r}; its graphs: "
                         f"{', '.join(g.id for g in self.graphs)}")


def read_scene(path) -> Scene:
    """Read and check a scene file; ``SceneError`` on the first mistake."""
    path, data = read_file(path, "scene file", SceneError)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = Y.position(data, exc.start)
        raise SceneError(f"the scene file is not UTF-8 text (byte 0x{data[exc.start]:02x})",
                         path=path, line=line, column=column) from None
    return parse_scene(text, path)


def parse_scene(text: str, path) -> Scene:
    """``read_scene`` for text already in memory (``path`` names it in
    errors and anchors relative file names)."""
    if not isinstance(text, str):
        raise SceneError(f"a scene's text must be a str, got {validate.describe(text)}")
    path = validate.file_path(path, "scene path", SceneError)
    data = Y.loads(text, str(path))
    if data is None:
        raise SceneError("the scene file is empty; it needs at least 'graphs'", path=path,
                         line=1, column=1)
    top = Entry(data, "the scene", Where(str(path), 1, 1))
    name = top.take("name", Y.text, default=path.stem)
    description = top.take("description", Y.text, default="")
    settings = _settings(top)
    graphs = _graphs(top, path.parent)
    ids = [g.id for g in graphs]
    agents = [_agent(e, i, ids) for i, e in enumerate(_list(top, "agents"))]
    crowds = [_crowd(e, i, ids) for i, e in enumerate(_list(top, "crowds"))]
    _unique_ids(agents + crowds, "agent or crowd")
    _no_crowd_member_ids(agents, crowds)
    obstacles = [_obstacle(e, i, ids) for i, e in enumerate(_list(top, "obstacles"))]
    _unique_ids(obstacles, "obstacle")
    events = [_event(e, i, ids, settings.frames) for i, e in enumerate(_list(top, "events"))]
    events.sort(key=lambda ev: ev.at)       # stable: same frame keeps file order
    top.finish()
    return Scene(path, name, description, settings, graphs, agents, crowds, obstacles,
                 events)


# -- sections -------------------------------------------------------------------

def _list(top: Entry, key: str) -> list:
    """The ``(entry value, where)`` pairs of a list section (empty if absent)."""
    value = top.take(key, default=None)
    if value is None:
        return []
    if not isinstance(value, MarkedList):
        raise top.where(key).error(f"'{key}' must be a list (lines starting with '- '), "
                                   f"got {Y.describe(value)}")
    return list(zip(value, value.item_at))


def _settings(top: Entry) -> Settings:
    if "settings" not in top:
        top.take("settings", default=None)
        return Settings()
    e = Entry(top.take("settings"), "settings", top.where("settings"))
    s = Settings(dt=e.take("dt", Y.positive_number, Settings.dt),
                 frames=e.take("frames", Y.count, Settings.frames),
                 frame_budget_ms=e.take("frame_budget_ms", Y.positive_number,
                                        Settings.frame_budget_ms),
                 seed=e.take("seed", Y.natural, Settings.seed),
                 workers=e.take("workers", Y.natural, Settings.workers),
                 deterministic=e.take("deterministic", Y.boolean, Settings.deterministic),
                 frame_budget_nodes=e.take("frame_budget_nodes", Y.natural, None),
                 background=e.take("background", Y.boolean, Settings.background),
                 avoidance=e.take("avoidance", Y.boolean, Settings.avoidance))
    if s.frames > MAX_FRAMES:
        raise e.where("frames").error(f"'frames' of settings is {s.frames}; a scene plays "
                                      f"at most {MAX_FRAMES} frames")
    if s.workers > MAX_WORKERS:
        raise e.where("workers").error(f"'workers' of settings is {s.workers}; at most "
                                       f"{MAX_WORKERS} search threads")
    if s.background and (s.deterministic or not s.workers):
        raise e.where("background").error(
            "'background: true' of settings needs 'workers' of at least 1 and "
            "'deterministic: false' (background results come when their searches end)")
    e.finish()
    return s


def _graphs(top: Entry, folder: Path) -> list:
    items = _list(top, "graphs")
    if not items:
        raise top.where("graphs").error("the scene needs 'graphs': a list with at "
                                        "least one graph")
    out = []
    for i, (value, at) in enumerate(items):
        e = Entry(value, f"graph #{i + 1}", at)
        gid = e.take("id", Y.name)
        e.what = f"graph {gid!r}"
        gtype = e.take("type", Y.text)
        space = e.take("space", Y.name, default=None)
        doors = _doors(e)
        crowd = _crowd_params(e)
        agents = e.take("agents", default=None)
        params = _params(e, folder)
        if agents is None:
            out.append(GraphSpec(gid, gtype, params, doors, e.at, e, space, crowd,
                                 e.where("crowd")))
            continue
        for name, a in _agent_types(agents, e, folder):
            out.append(GraphSpec(f"{gid}.{name}", gtype, {**params, **a.params}, doors, a.at,
                                 a, gid if space is None else space, crowd, e.where("crowd")))
    _unique_ids(out, "graph")
    return out


def _params(e: Entry, folder: Path) -> dict:
    """The builder parameters left in ``e``, file names resolved."""
    params = {}
    for key in e.rest():
        if not isinstance(key, str):
            raise e.key_where(key).error(f"graph parameter names are words, got {key!r}")
        params[key] = e.map[key]
        if key in FILE_PARAMS or key.endswith(FILE_SUFFIX):
            params[key] = _scene_file(params[key], e.where(key), f"'{key}' of {e.what}",
                                      folder)
    return params


class _AgentType:
    """One agent type of a graph with ``agents:``: its own parameters over
    the graph's; where a parameter was written is looked up in the agent
    type's mapping first, then the graph's."""

    def __init__(self, entry: Entry, graph: Entry, folder: Path):
        self.own, self.graph = entry, graph
        self.what, self.at = entry.what, entry.at
        for key in ("id", "type", "space", "doors", "agents", "crowd"):
            if key in entry:
                raise entry.key_where(key).error(
                    f"{entry.what} sets '{key}': an agent type gives only the graph type's "
                    f"parameters (e.g. agent_radius); '{key}' belongs to the graph")
        self.params = _params(entry, folder)

    def where(self, key) -> Where:
        return (self.own if key in self.own else self.graph).where(key)

    def key_where(self, key) -> Where:
        return (self.own if key in self.own else self.graph).key_where(key)


def _agent_types(value, e: Entry, folder: Path) -> list:
    """``agents:`` of graph entry ``e``: a mapping of agent type names to
    the parameters that differ for that type (``{small: {agent_radius:
    0.3}, large: {agent_radius: 0.9}}``): one graph each, ``<id>.<name>``,
    of the graph's space."""
    agents = Entry(value, f"'agents' of {e.what}", e.where("agents"))
    if not agents.map:
        raise agents.at.error(f"{agents.what} must name at least one agent type, e.g. "
                              f"'agents: {{small: {{agent_radius: 0.3}}}}'")
    out = []
    for key in agents.rest():
        name = Y.name(key, agents.key_where(key), f"an agent type name of {e.what}")
        out.append((name, _AgentType(Entry(agents.map[key], f"agent type {name!r} of "
                                           f"{e.what}", agents.where(key)), e, folder)))
    return out


#: the ``World.add_crowd`` parameters a graph's ``crowd:`` may set (radius
#: and speed are each agent's own); whole numbers for the first
CROWD_PARAMS = ("max_neighbours", "neighbour_dist", "time_horizon",
                "time_horizon_obstacles", "max_accel")


def _crowd_params(e: Entry) -> dict:
    """``crowd:`` of graph entry ``e``: the parameters of the crowd its
    agents walk in (``World.add_crowd``), e.g. ``{time_horizon_obstacles:
    0.25}`` for quick turns in narrow corridors."""
    value = e.take("crowd", default=None)
    if value is None:
        return {}
    c = Entry(value, f"'crowd' of {e.what}", e.where("crowd"))
    out = {}
    for key in CROWD_PARAMS:
        if key in c:
            out[key] = c.take(key, Y.count if key == "max_neighbours" else Y.positive_number)
    for key in ("radius", "max_speed"):
        if key in c:
            raise c.key_where(key).error(
                f"{c.what} sets '{key}': each agent or crowd has its own ('radius', "
                f"'speed'); 'crowd' takes {', '.join(CROWD_PARAMS)}")
    c.finish(extra=CROWD_PARAMS)
    return out


def _doors(e: Entry) -> dict:
    value = e.take("doors", default=None)
    if value is None:
        return {}
    doors = Entry(value, f"'doors' of {e.what}", e.where("doors"))
    out = {}
    for key in doors.rest():
        name = Y.name(key, doors.key_where(key), f"a door name of {e.what}")
        if name in out:                     # 1 and '1' are one name
            raise doors.key_where(key).error(f"door {name!r} of {e.what} is declared twice")
        raw, at = doors.map[key], doors.where(key)
        if isinstance(raw, list):           # shorthand: a region, open at the start
            out[name] = Door(name, raw, f"door {name!r}", True, at)
            continue
        d = Entry(raw, f"door {name!r} of {e.what}", at)
        out[name] = Door(name, d.take("rect"), f"'rect' of door {name!r}",
                         d.take("open", Y.boolean, True), d.where("rect"))
        d.finish()
    return out


def _scene_file(value, where: Where, label: str, folder: Path) -> str:
    """A file named relative to the scene; it must exist inside the
    scene's folder (a scene must not read files it does not ship with)."""
    Y.text(value, where, label)
    if Path(value).is_absolute():
        raise where.error(f"{label}: {value!r} is an absolute path; name files "
                          f"relative to the scene file")
    try:
        root = folder.resolve()
        full = (folder / value).resolve()
        inside = full.is_relative_to(root)
        found = inside and full.is_file()
    except (OSError, RuntimeError) as exc:    # a name too long, a symlink loop
        raise where.error(f"{label}: {value!r} cannot be looked up: "
                          f"{getattr(exc, 'strerror', None) or exc}") from None
    if not inside:
        raise where.error(f"{label}: {value!r} lies outside the scene's folder")
    if not found:
        raise where.error(f"{label}: file {value!r} does not exist next to the scene")
    return str(full)


def _graph_ref(e: Entry, ids: list) -> str:
    """The entry's ``graph``: required when the scene has several."""
    if "graph" not in e:
        if len(ids) == 1:
            e.take("graph", default=None)
            return ids[0]
        raise e.at.error(f"{e.what} needs 'graph': the scene has {len(ids)} graphs "
                         f"({', '.join(ids)})")
    gid = e.take("graph", Y.name)
    if gid not in ids:
        raise e.where("graph").error(Y.unknown(gid, "graph", e.what, ids))
    return gid


def _agent(item, i: int, ids: list) -> AgentSpec:
    e, aid = _named_entry(item, "agent", i)
    graph = _graph_ref(e, ids)
    start = e.take("start", Y.place)
    has_goal, has_waypoints = "goal" in e, "waypoints" in e
    if has_goal == has_waypoints:
        raise (e.key_where("waypoints") if has_goal else e.at).error(
            f"{e.what} needs either 'goal' or 'waypoints'" +
            (", not both" if has_goal else ""))
    if has_goal:
        goals, wheres = [e.take("goal", Y.place)], [e.where("goal")]
    else:
        goals = e.take("waypoints", Y.places)
        wheres = e.map["waypoints"].item_at
    loop = e.take("loop", Y.boolean, False)
    if loop and has_goal:
        raise e.key_where("loop").error(f"'loop' of {e.what} needs 'waypoints' to loop over")
    spec = AgentSpec(aid, graph, start, goals, loop, e.take("speed", Y.positive_number, 4.0),
                     e.take("repath", Y.boolean, True), e.at, e.where("start"), wheres,
                     e.take("radius", Y.positive_number, None),
                     e.take("avoidance", Y.boolean, None))
    e.finish()
    return spec


def _named_entry(item, kind: str, i: int):
    """The ``i``-th ``kind`` entry of its list and its ``id``; from then on
    its mistakes name it by id (``crowd 'guards'``), not by position."""
    value, at = item
    e = Entry(value, f"{kind} #{i + 1}", at)
    name = e.take("id", Y.name)
    e.what = f"{kind} {name!r}"
    return e, name


def _crowd(item, i: int, ids: list) -> CrowdSpec:
    e, cid = _named_entry(item, "crowd", i)
    graph, count = _graph_ref(e, ids), e.take("count", Y.count)
    start = e.take("from")
    has_to, has_goal = "to" in e, "goal" in e
    if has_to == has_goal:
        raise (e.key_where("goal") if has_to else e.at).error(
            f"{e.what} needs either 'to' (a region: a goal drawn for each member) or "
            f"'goal' (one point for all)" + (", not both" if has_to else ""))
    goal_key = "to" if has_to else "goal"
    spec = CrowdSpec(cid, graph, count, start, e.take("to", default=None),
                     e.take("speed", Y.number_or_range, 4.0), e.take("repath", Y.boolean, True),
                     e.take("seed", Y.natural, None), e.at, e.where("from"), e.where(goal_key),
                     goal=e.take("goal", Y.place, None),
                     radius=e.take("radius", Y.number_or_range, None),
                     avoidance=e.take("avoidance", Y.boolean, None),
                     leave=e.take("leave", _leave, False), leave_where=e.where("leave"))
    if spec.count > 100_000:
        raise e.where("count").error(f"'count' of {e.what} is {spec.count}; a crowd holds "
                                     f"at most 100000 agents")
    e.finish()
    return spec


def _leave(v, where, label):
    """``leave``: true or false (members leave the map when they arrive),
    or a region (as the graph's scene layer reads it, checked when the
    scene is built) where they leave when they step into it."""
    if isinstance(v, bool) or isinstance(v, (list, dict)):
        return v
    raise where.error(f"{label} must be true, false or a region (where members leave "
                      f"the map: an exit), got {Y.describe(v)}")


def _obstacle(item, i: int, ids: list) -> ObstacleSpec:
    e, oid = _named_entry(item, "obstacle", i)
    spec = ObstacleSpec(oid, _graph_ref(e, ids), e.take("rect"),
                        e.take("velocity", Y.vector, (0.0, 0.0)), e.at, e.where("rect"))
    e.finish()
    return spec


def _event(item, i: int, ids: list, frames: int) -> EventSpec:
    value, at = item
    e = Entry(value, f"event #{i + 1}", at)
    frame = e.take("at", Y.natural)     # 0: at the start, i.e. in frame 1
    if frame > frames:
        raise e.where("at").error(f"event #{i + 1} at frame {frame} would never happen: "
                                  f"the scene plays {frames} frames (settings.frames)")
    e.what = f"event #{i + 1} (at frame {frame})"
    graph = None
    if "graph" in e or len(ids) == 1:
        graph = _graph_ref(e, ids)
    return EventSpec(frame, graph, e, i, e.at)


def _no_crowd_member_ids(agents, crowds) -> None:
    """A crowd ``c`` of ``n`` names its agents ``c-0`` .. ``c-(n-1)``: an
    agent may not take one of those ids."""
    for a in agents:
        for c in crowds:
            head, dash, k = a.id.rpartition("-")
            if dash and head == c.id and k.isdigit() and int(k) < c.count \
                    and str(int(k)) == k:
                raise a.where.error(f"agent id {a.id!r} is the name of a member of crowd "
                                    f"{c.id!r} (its agents are {c.id}-0 .. "
                                    f"{c.id}-{c.count - 1})")


def _unique_ids(specs, what: str) -> None:
    seen = {}
    for s in specs:
        if s.id in seen:
            raise s.where.error(f"{what} id {s.id!r} is used twice (first at line "
                                f"{seen[s.id].line})")
        seen[s.id] = s.where
