"""Who walks how: the starting data of each agent of a scene (``Row``),
whether it walks as a crowd (``walks``), its radius and, for the
members of a crowd that walks as discs, starts that do not overlap
(``spread``) and goals apart (``goals_apart``). ``Simulation`` calls
these while it checks a scene, so a mistake is a ``SceneError`` at its
place in the file before anything runs.

Agents walk as a crowd (``World.add_crowd``: paths, ORCA avoidance,
flow fields for shared goals) unless the scene says ``avoidance: false``
(in ``settings``, or on the agent or crowd), on any graph whose plugins
move crowds (grids, navmeshes and 3D levels, where points are
``(x, y, z)``); on other graphs (road networks, csr graphs) they walk
their paths as points.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from navcore.errors import NavError

from . import spawn

#: the radius of an agent (map units) whose scene and graph give none;
#: pictures drew agents this wide before they had sizes of their own
DEFAULT_RADIUS = 0.35
#: the crowd parameters of a scene's graph that its ``crowd:`` leaves out
#: (``World.add_crowd``'s defaults otherwise). A scene's agents walk at
#: several map units a second (4 by default), and ORCA lets an agent come
#: no nearer a wall in ``time_horizon_obstacles`` seconds than its radius,
#: so the crowd's 1 s (sized for people at 1.5 m/s) would have one at
#: full speed slow down metres before a wall or a corner
CROWD_DEFAULTS = {"time_horizon": 1.0, "time_horizon_obstacles": 0.25}


class Row(NamedTuple):
    """One agent's starting data, as ``Agents`` takes it (a column each)."""

    id: str
    graph: str
    start: tuple
    goals: list            # the legs' goals, as the scene wrote them
    loop: bool
    speed: float
    repath: bool
    radius: float
    walks: bool            # in its graph's crowd
    leave: bool            # leaves the map when it arrives
    targets: list | None   # walkers: the legs' goals as the crowd takes them
    exit: int = -1         # the exit region it leaves the map in (Simulation.exits)


def agent_row(sim, a, start) -> Row:
    """The row of agent spec ``a`` starting at ``start`` (its node's
    point); a walker's start must lie on the crowd's ground and its disc
    is kept from the crowd members placed after it."""
    walks = walks_of(sim, a, f"agent {a.id!r}")
    radius = a.radius if a.radius is not None else default_radius(sim, a.graph)
    targets = None
    if walks:
        _on_ground(sim, a.graph, start, f"start of agent {a.id!r}", a.start_where)
        targets = [sim._centre(a.graph, g) for g in a.goals]
        place = spots(sim, a.graph)
        place.add(place.keys(start)[0], radius)
    return Row(a.id, a.graph, start, a.goals, a.loop, a.speed, a.repath, float(radius),
               walks, False, targets)


def walks_of(sim, spec, what: str) -> bool:
    """Whether agent or crowd ``spec`` walks as a crowd: its own
    ``avoidance``, else the settings', where its graph has a crowd.
    ``avoidance: true`` on a graph that cannot have one, or a walker that
    would not re-plan (``repath: false``), is a ``SceneError``."""
    said = spec.avoidance is not None
    wanted = spec.avoidance if said else sim.scene.settings.avoidance
    if not wanted:
        return False
    crowd, why = crowd_of(sim, spec.graph)
    if crowd is None:
        if said:
            raise spec.where.error(f"'avoidance: true' of {what}: graph {spec.graph!r} "
                                   f"cannot walk its agents as a crowd: {why}")
        return False
    if not spec.repath:
        raise spec.where.error(
            f"{what} says 'repath: false', but agents that walk as a crowd on graph "
            f"{spec.graph!r} plan again whenever the map cuts their way; add "
            f"'avoidance: false' to walk its first path as a point that stops at a new wall")
    return True


def crowd_of(sim, graph_id):
    """``(crowd, None)``: the crowd the walkers of ``graph_id`` walk in
    (made the first time, with the graph's ``crowd:`` parameters), or
    ``(None, why)`` when the graph cannot have one. Parameters the crowd
    refuses are a ``SceneError`` at the graph's ``crowd``."""
    if graph_id not in sim.walking:
        spec = sim.scene.graph_spec(graph_id)
        lay = sim.layers.get(graph_id)
        crowd, why = None, None
        if lay is None:
            why = "it has no scene layer"
        else:
            try:
                crowd = sim.world.add_crowd(("scene", graph_id), graph=graph_id,
                                            **{**CROWD_DEFAULTS, **spec.crowd})
            except NavError as exc:
                if spec.crowd and "add_crowd" in exc.message:
                    raise spec.crowd_where.error(f"'crowd' of graph {graph_id!r}: "
                                                 f"{exc.message}") from None
                why = exc.message
        sim.walking[graph_id] = (crowd, why)
    return sim.walking[graph_id]


def check_crowd_params(sim) -> None:
    """A graph that sets ``crowd:`` must be one whose agents can walk as
    a crowd, with parameters the crowd takes."""
    for spec in sim.scene.graphs:
        if spec.crowd:
            crowd, why = crowd_of(sim, spec.id)
            if crowd is None:
                raise spec.crowd_where.error(f"'crowd' of graph {spec.id!r}: its agents "
                                             f"cannot walk as a crowd: {why}")


def default_radius(sim, graph_id) -> float:
    """The graph's agent radius (a navmesh's ``agent_radius``), else
    ``DEFAULT_RADIUS`` map units (a road map's unit is a fraction of a
    degree: its agents are drawn as symbols, not to scale)."""
    lay = sim.layers.get(graph_id)
    r = lay.agent_radius() if lay is not None else None
    if r is not None and r > 0:
        return float(r)
    return DEFAULT_RADIUS * (lay.unit if lay is not None else 1.0)


def radii(sim, c) -> np.ndarray:
    """The radius of each member of crowd spec ``c``: one number, drawn
    from ``[low, high]`` (its own generator, so that sizes leave the
    draws of places and speeds as they were), or the graph's default."""
    if c.radius is None:
        return np.full(c.count, default_radius(sim, c.graph))
    if not isinstance(c.radius, tuple):
        return np.full(c.count, float(c.radius))
    seed = sim.scene.settings.seed if c.seed is None else c.seed
    rng = np.random.default_rng([seed, len(c.id), *c.id.encode(), 1])
    return rng.uniform(*c.radius, c.count)


def largest_radius(sim, graph_id) -> float:
    """The largest radius of an agent of the scene on ``graph_id``."""
    out = default_radius(sim, graph_id)
    for spec in sim.scene.agents + sim.scene.crowds:
        if spec.graph == graph_id and spec.radius is not None:
            r = spec.radius
            out = max(out, r[1] if isinstance(r, tuple) else r)
    return out


def spots(sim, graph_id) -> spawn.Spots:
    """The discs placed so far on ``graph_id``; on a 3D level two overlap
    only within the crowd's ``height`` of each other (one above the
    other on two floors do not)."""
    if graph_id not in sim._spots:
        crowd, _ = crowd_of(sim, graph_id)
        tall = crowd.height if sim.layers[graph_id].dims == 3 else np.inf
        sim._spots[graph_id] = spawn.Spots(largest_radius(sim, graph_id), tall,
                                           sim.layers[graph_id])
    return sim._spots[graph_id]


def spread(sim, c, region, sizes, rng) -> np.ndarray:
    """Starts for the members of crowd spec ``c`` in ``region``, their
    discs (``sizes``) clear of each other and of every walker placed on
    the graph before; a region without room for all is a ``SceneError``."""
    lay = sim.layers[c.graph]
    label = f"'from' of crowd {c.id!r}"
    got = spawn.spread(lay, region, sizes, rng, sim._start_walls(c.graph),
                       spots(sim, c.graph))
    if got is None:
        raise c.start_where.error(f"{label} {lay.show(region)} holds no walkable "
                                  f"{lay.node_word}")
    points, placed = got
    if placed < c.count:
        raise c.start_where.error(
            f"{label} {lay.show(region)} has room for {placed} of its {c.count} agents "
            f"(radius {_sizes(sizes)}) without overlapping; give it a larger region, or fewer or "
            f"smaller agents")
    _on_ground(sim, c.graph, points, label, c.start_where)
    return points


def goals_apart(sim, c, region, points, sizes) -> np.ndarray:
    """The goals ``points`` drawn for the members of crowd spec ``c`` from
    ``region`` with those closer to another member's goal than their two
    radii (``sizes``; on a 3D level, on one floor) drawn again, from a
    generator of their own (so the draws of speeds stay as they were); a
    region without room for all is a ``SceneError`` at the crowd's
    ``to``."""
    lay = sim.layers[c.graph]
    seed = sim.scene.settings.seed if c.seed is None else c.seed
    rng = np.random.default_rng([seed, len(c.id), *c.id.encode(), 2])
    crowd, _ = crowd_of(sim, c.graph)
    tall = crowd.height if lay.dims == 3 else np.inf
    usable = sim.world.graph(c.graph).walkable
    points, placed = spawn.apart(lay, region, points, sizes, rng, usable,
                                 spawn.Spots(float(sizes.max()), tall, lay))
    if placed < c.count:
        raise c.goal_where.error(
            f"'to' of crowd {c.id!r} {lay.show(region)} has room for the goals of {placed} "
            f"of its {c.count} agents (radius {_sizes(sizes)}) apart; give it a larger "
            f"region, or fewer or smaller agents")
    return points


def _sizes(sizes) -> str:
    return f"{sizes.max():g}" if sizes.min() == sizes.max() \
        else f"{sizes.min():g} to {sizes.max():g}"


def _on_ground(sim, graph_id, points, what, where) -> None:
    """Every point lies on walkable ground of the graph, where a crowd
    places agents (``locate_many``: a navmesh's polygons, shrunk by its
    agent radius; a level's polygon under a 3D point); ``SceneError`` at
    ``where`` otherwise."""
    graph = sim.world.graph(graph_id)
    pts = np.asarray(points, dtype=np.float64).reshape(-1, sim.layers[graph_id].dims)
    nodes = graph.locate_many(pts)
    bad = nodes < 0
    bad[~bad] = ~graph.walkable[nodes[~bad]]
    if bad.any():
        p = [round(v, 6) for v in pts[int(np.flatnonzero(bad)[0])].tolist()]
        raise where.error(f"{what} {p} is off the walkable ground of graph {graph_id!r}, "
                          f"where agents that walk as a crowd must stand")
