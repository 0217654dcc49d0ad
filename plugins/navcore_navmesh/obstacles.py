"""Navmesh updates: obstacles that come and go, regions blocked and lifted.

    world.update("m", add_obstacle=[[4, 4], [6, 4], [5, 6]], obstacle_id="crate")
    world.update("m", remove_obstacle="crate")
    world.update("m", region=polygon, walkable=False)     # or rect=(x, y, w, h)
    world.update("m", rect=(2, 0, 1, 10), walkable=True)  # lift (part of) it again

Like every update they are checked at once (``UpdateError``: an unknown
or duplicate obstacle id, also counting what is already queued; an invalid
polygon; a malformed rectangle; and nothing is queued) and applied at the
next ``World.tick``, all of a tick's updates of a graph as one batch.

* ``add_obstacle=`` takes a shapely polygon (or multipolygon), a plain
  ring ``[[x, y], ...]`` or a list of them (one obstacle), with an
  ``obstacle_id=`` of your choice (any hashable); ``remove_obstacle=id``
  takes it away again.
* ``walkable=False`` over ``region=`` (a polygon, as above) or
  ``rect=(x, y, w, h)`` (the grid's rectangle order, in world units) blocks
  that area; a ``rect=`` that runs past the map's bounds (or lies beyond
  them) is an ``UpdateError``, the sign of a box written as two corners; ``walkable=True`` over a region lifts earlier blocks there
  (it never opens walls of the map, nor obstacles, which go by id). The
  last write wins where writes overlap, as on a grid.
* An obstacle or a blocked region keeps agents' centres ``agent_radius``
  away, like the walls of the static build: it is grown by the radius with
  mitre joins (``build.grow``). Obstacles that overlap or touch are grown
  as their union (``Cluster``), as the static ``obstacles=`` are
  (``build.spaces``), so a mesh given obstacles at run time has the free
  space of one built with them, whatever the order they came in.
* The generic ``nodes=``/``edges=`` updates of the csr plugin (walkable
  flags of polygons, costs of moves between them) still apply; a polygon
  that a later obstacle re-triangulates away takes its flag with it.

Only navmeshes built in tiles (``type: navmesh``) take obstacles and
regions; a mesh made from arrays takes the generic updates only.
"""
from __future__ import annotations


import numpy as np
import shapely
from shapely.geometry import box

from navcore import limits, validate
from navcore.errors import GraphError, UpdateError
from navcore.types import Update

from . import build
from .build import MITRE_LIMIT
from .tiles import node_many, node_with_grid

_OBSTACLE_KEYS = ("add_obstacle", "obstacle_id", "remove_obstacle")
_REGION_KEYS = ("region", "rect")
_GENERIC_KEYS = ("nodes", "edges", "cost")
#: the key of ``TiledMesh.tile_obs`` that lists the clusters reaching no
#: tile (obstacles beyond the map), which new obstacles may still meet
OFF_GRID = -1
VOCABULARY = ("add_obstacle= with obstacle_id=, remove_obstacle=, region= or rect= with "
              "walkable=, or the generic nodes= with walkable= / edges= with cost=")


class Obstacle:
    """An obstacle as given (``polygon``), with its box."""

    __slots__ = ("id", "polygon", "bounds")

    def __init__(self, oid, polygon):
        self.id = oid
        self.polygon = polygon
        self.bounds = tuple(polygon.bounds)

    def __repr__(self) -> str:
        return f"Obstacle({self.id!r}, {self.polygon.wkt[:60]})"


class Cluster:
    """Obstacles that overlap or touch, one after another (``members``,
    their ids), carved as one: their union (``raw``) grown by the agent
    radius and noded with the tile grid (``grown``, with its box
    ``bounds``). A static build shrinks the free space left by the union
    of its obstacles, so a corner of one obstacle inside another makes no
    mitre spike; growing each obstacle on its own would let such a spike
    poke out of the other's grown outline, and runtime obstacles would
    block more than the same obstacles built in. Apart obstacles grow
    alike either way (the mitre outline of disjoint shapes is the union of
    theirs), so only what overlaps is grown together. Every tile a cluster
    reaches cuts the same ``grown`` object, so their borders match."""

    __slots__ = ("members", "raw", "grown", "bounds")

    def __init__(self, members, raw, grown):
        self.members = members
        self.raw = raw
        self.grown = grown
        self.bounds = tuple(grown.bounds)

    @classmethod
    def many(cls, members, raws, radius, grid) -> list:
        """A cluster for each of ``members`` (tuples of ids) and ``raws``
        (their unions), grown and noded in one pass over them all."""
        raw = np.empty(len(raws), dtype=object)
        raw[:] = raws
        grown = node_many(build.grow(raw, radius), grid)
        return [cls(m, r, g) for m, r, g in zip(members, raws, grown)]

    def __repr__(self) -> str:
        return f"Cluster({sorted(map(repr, self.members))})"


def _polygon(value, what):
    """One shapely geometry from the polygon(s) ``value``, or UpdateError."""
    try:
        polys = build.polygons(value, what)
    except GraphError as exc:
        raise UpdateError(str(exc)) from None
    if not polys:
        raise UpdateError(f"{what} must be a polygon, got an empty list")
    geom = polys[0] if len(polys) == 1 else shapely.union_all(polys)
    if geom.is_empty or not geom.area > 0:
        raise UpdateError(f"{what} has no area: {value!r}")
    return geom


def _rect(value):
    try:
        x, y, w, h = (float(v) for v in value)
    except (TypeError, ValueError, OverflowError):
        raise UpdateError(f"rect must be (x, y, w, h) in world units, got {value!r}") from None
    if not all(abs(v) <= limits.MAX_COORDINATE for v in (x, y, x + w, y + h)) \
            or w <= 0 or h <= 0:
        raise UpdateError(f"rect must be finite (x, y, w, h) within "
                          f"±{limits.MAX_COORDINATE:g}, with w > 0 and h > 0, got {value!r}")
    return box(x, y, x + w, y + h)


def map_bounds(graph) -> tuple:
    """``(x0, y0, x1, y1)`` of the place as the map draws it (the ground
    before the agent radius was taken off it), else of the mesh as built."""
    ground = graph.ground
    return tuple(float(c) for c in (ground.bounds if ground is not None
                                    else graph.tiles.grid.bounds))


def _check_inside(graph, geom, value):
    """A ``rect=`` that runs past the map is refused, not clipped: a box
    written as corners ``(x0, y0, x1, y1)`` reads as a corner and a size
    and runs past the map (or lies beyond it), so clipping it would block
    the wrong place without a word."""
    x0, y0, x1, y1 = map_bounds(graph)
    tol = 1e-9 * max(x1 - x0, y1 - y0, 1.0)
    bx0, by0, bx1, by1 = geom.bounds
    if bx0 < x0 - tol or by0 < y0 - tol or bx1 > x1 + tol or by1 > y1 + tol:
        where = "lies outside" if (bx0 >= x1 or bx1 <= x0 or by0 >= y1 or by1 <= y0) \
            else "runs past"
        raise UpdateError(f"rect={tuple(value)!r} (x, y, w, h) covers x {bx0:g}..{bx1:g}, "
                          f"y {by0:g}..{by1:g}, which {where} the bounds of navmesh "
                          f"{graph.graph_id!r} (x {x0:g}..{x1:g}, y {y0:g}..{y1:g}); "
                          f"rect is (x, y, width, height), not two corners")


def _will_have(world, graph, oid) -> bool:
    """Whether the graph has obstacle ``oid`` once the queued updates are in
    (the queue, not every obstacle, is walked)."""
    have = oid in graph.tiles.obstacles
    for upd in world.queued_updates(graph.graph_id) if world is not None else ():
        if upd.kind == "add_obstacle" and upd.params["obstacle"].id == oid:
            have = True
        elif upd.kind == "remove_obstacle" and upd.params["id"] == oid:
            have = False
    return have


def _obstacle_ids(world, graph):
    """The obstacle ids the graph will have once the queued updates are in."""
    ids = set(graph.tiles.obstacles)
    for upd in world.queued_updates(graph.graph_id) if world is not None else ():
        if upd.kind == "add_obstacle":
            ids.add(upd.params["obstacle"].id)
        elif upd.kind == "remove_obstacle":
            ids.discard(upd.params["id"])
    return ids


def make_update(world, graph, params) -> Update | None:
    """Validate ``World.update(**params)`` on a navmesh (``None``: the
    generic ``nodes=``/``edges=`` vocabulary, for the csr plugin)."""
    gid = graph.graph_id
    keys = set(params)
    ours = keys & set(_OBSTACLE_KEYS + _REGION_KEYS)
    if not ours and keys and keys <= {"nodes", "edges", "cost", "walkable"} \
            and keys & {"nodes", "edges"}:
        return None                          # the csr plugin's generic updates
    unknown = keys - set(_OBSTACLE_KEYS + _REGION_KEYS + _GENERIC_KEYS + ("walkable",))
    if unknown or not ours:
        raise UpdateError(f"unknown navmesh update {sorted(params)} for graph {gid!r}; "
                          f"use {VOCABULARY}")
    tm = getattr(graph, "tiles", None)
    if tm is None and graph.heights is not None:
        raise UpdateError(f"{gid!r} is a layered (3D level) navmesh: it takes no 2D "
                          f"regions (rect=, region=); nodes= / edges= updates, and on a level "
                          f"built in tiles add_obstacle= with 3D shapes ({{'box': [[x0, y0, "
                          f"z0], [x1, y1, z1]]}}, ...) and remove_obstacle=")
    if tm is None:
        raise UpdateError(f"navmesh {gid!r} was made from mesh arrays, not built in "
                          f"tiles, so it takes no obstacles or regions (only nodes= / "
                          f"edges= updates); build it with type: navmesh")
    if "add_obstacle" in keys:
        oid = validate.obstacle_id(params)
        if _will_have(world, graph, oid):
            raise UpdateError(f"navmesh {gid!r} already has an obstacle {oid!r} (or one "
                              f"is queued); remove_obstacle it first")
        geom = _polygon(params["add_obstacle"], "add_obstacle")
        return Update(gid, "add_obstacle", {"obstacle": Obstacle(oid, geom)})
    if "remove_obstacle" in keys:
        if keys != {"remove_obstacle"}:
            raise UpdateError(f"remove_obstacle= takes nothing else, got {sorted(params)}")
        oid = params["remove_obstacle"]
        if isinstance(oid, StaticId):
            raise UpdateError(f"{oid!r} of navmesh {gid!r} is one of the obstacles= it was "
                              f"built with, part of the build; only obstacles added with "
                              f"add_obstacle= can be removed")
        try:
            known = _will_have(world, graph, oid)
        except TypeError:                     # unhashable: no obstacle has it
            known = False
        if not known:
            have = sorted(map(repr, _obstacle_ids(world, graph)))
            raise UpdateError(f"navmesh {gid!r} has no obstacle {oid!r}; it has "
                              f"{', '.join(have[:10]) or 'none'}"
                              f"{', ...' if len(have) > 10 else ''}")
        return Update(gid, "remove_obstacle", {"id": oid})
    regions = [k for k in _REGION_KEYS if k in keys]
    if len(regions) != 1 or keys != {regions[0], "walkable"}:
        raise UpdateError(f"a navmesh region update takes exactly one of region=, rect= "
                          f"and walkable=; got {sorted(params)}")
    if "cost" in keys:
        raise UpdateError("navmesh regions take walkable= only")
    walkable = validate.boolean(params["walkable"], "walkable", UpdateError)
    if "rect" in keys:
        geom = _rect(params["rect"])
        _check_inside(graph, geom, params["rect"])
    else:
        geom = _polygon(params["region"], "region")
    # a blocked region's grown outline changes at most this far outside it
    # (mitre joins reach MITRE_LIMIT radii past a corner)
    reach = MITRE_LIMIT * tm.radius
    x0, y0, x1, y1 = geom.bounds
    return Update(gid, "region", {"region": geom, "walkable": walkable,
                                  "bounds": (x0 - reach, y0 - reach, x1 + reach, y1 + reach)})


def apply_updates(world, graph, batch) -> np.ndarray | None:
    """Apply a batch to a tiled navmesh: obstacles and regions first (each
    touched tile re-triangulated once, for the state after the whole
    batch), then the generic walkable flags and costs of the polygons that
    survive it, in order; returns the dirty nodes. Nothing changes when
    anything fails. ``None`` for meshes not built in tiles (the csr
    plugin's generic updates apply to them)."""
    tm = getattr(graph, "tiles", None)
    if tm is None:
        return None
    grid = tm.grid
    obstacles = tm.obstacles
    copied = False
    touched, regions = set(), set()
    blocked, region_changed = tm.blocked, False
    walk, cost = [], []
    csr = graph.csr

    for upd in batch:
        p = upd.params
        if upd.kind in ("add_obstacle", "remove_obstacle"):
            if not copied:
                obstacles, copied = dict(obstacles), True
            if upd.kind == "add_obstacle":
                ob = p["obstacle"]
                if ob.id in obstacles:
                    raise UpdateError(f"navmesh {graph.graph_id!r} already has an "
                                      f"obstacle {ob.id!r}")
                obstacles[ob.id] = ob
            else:
                ob = obstacles.pop(p["id"], None)
                if ob is None:
                    raise UpdateError(f"navmesh {graph.graph_id!r} has no obstacle "
                                      f"{p['id']!r}")
        elif upd.kind == "region":
            g = p["region"]
            if p["walkable"]:
                if blocked is not None:
                    blocked = shapely.difference(blocked, g)
            else:
                blocked = g if blocked is None else shapely.union(blocked, g)
            if blocked is not None and (blocked.is_empty or not blocked.area > 0):
                blocked = None
            region_changed = True
            regions.update(grid.tiles(p["bounds"]).tolist())
        elif upd.kind == "walkable":
            walk.append((p["nodes"], p["walkable"]))
        elif upd.kind == "cost":
            pos = p["positions"]
            u = np.searchsorted(csr.offsets, pos, side="right") - 1
            cost.append((u, csr.targets[pos].astype(np.int64), p["cost"]))
        else:
            raise UpdateError(f"update kind {upd.kind!r} does not apply to navmeshes")

    clusters, tile_obs = tm.clusters, {}
    if copied:
        clusters, tile_obs = _regroup(tm, {**tm.static, **obstacles}, touched)
    blocked_grown = tm.blocked_grown
    if region_changed:
        blocked_grown = (None if blocked is None else
                         node_with_grid(build.grow(blocked, tm.radius), grid))
    # a tile is built again when its obstacles (by identity) or the blocked
    # regions over it changed
    cutters = {}
    for t in sorted(touched | regions):
        now = tile_obs[t] if t in tile_obs else tm.tile_obs.get(t, {})
        before = tm.tile_obs.get(t, {})
        same = now.keys() == before.keys() and all(now[i] is before[i] for i in now)
        if same and t not in regions:
            continue
        cutters[t] = _cutter(grid, t, now, blocked_grown)
    ch = tm.prepare(cutters, graph.walkable)
    if walk or cost:
        ch.own()
    n_before = len(ch.alive_before)
    survivor = ch.alive_before & ~ch.retired
    before = graph.walkable[:n_before]
    for nodes, value in walk:
        nodes = np.asarray(nodes, dtype=np.int64)
        ch.walkable[nodes[survivor[nodes]]] = value
    flipped = np.flatnonzero(ch.walkable[:n_before] != before)
    flipped = flipped[survivor[flipped]]
    ch.dirty.append(flipped)
    for u, v, c in cost:
        c = np.broadcast_to(np.asarray(c, dtype=np.float64), u.shape)
        ok = survivor[u] & survivor[v]
        u, v, c = u[ok], v[ok], c[ok]
        for k in range(ch.adj.shape[1]):
            m = ch.adj[u, k] == v
            ch.ecost[u[m], k] = c[m]
        ch.dirty += [u, v]
    dirty = ch.dirty_nodes()
    tm.commit(graph, world, ch, (obstacles, blocked, blocked_grown, tile_obs, clusters))
    return dirty


def _cutter(grid, t, clusters, blocked_grown):
    """What tile ``t`` loses: the grown outlines of ``clusters`` (``{id:
    Cluster}``, those reaching it) and of the blocked regions, as one
    geometry; None when nothing."""
    geoms = [c.grown for c in clusters.values()]
    if blocked_grown is not None:
        bx = grid.boxes([t])
        b = blocked_grown.bounds
        if b[0] <= bx[2][0] and b[2] >= bx[0][0] and b[1] <= bx[3][0] and b[3] >= bx[1][0]:
            geoms.append(blocked_grown)
    return None if not geoms else geoms[0] if len(geoms) == 1 else shapely.union_all(geoms)


class StaticId:
    """The obstacle id of the ``k``-th of the ``obstacles=`` a mesh was
    built with: part of the build, so no update removes it."""

    __slots__ = ("k",)

    def __init__(self, k: int):
        self.k = k

    def __repr__(self) -> str:
        return f"<static obstacle {self.k}>"


def seed(tm, polygons) -> dict:
    """Register the ``obstacles=`` of a build (polygons) with the tiled
    mesh ``tm`` (which has none yet) as obstacles are registered at run
    time, grown as clusters of those that overlap, so a run-time obstacle
    that meets one later is grown together with it; returns the cutters
    (``{tile: geometry}``) the build cuts from the tiles."""
    obstacles = {}
    for k, poly in enumerate(polygons):
        oid = StaticId(k)
        obstacles[oid] = Obstacle(oid, poly)
    tm.clusters, tm.tile_obs = _regroup(tm, obstacles, set())
    tm.static = obstacles
    return {t: _cutter(tm.grid, t, now, None) for t, now in tm.tile_obs.items()
            if t != OFF_GRID}


def _regroup(tm, obstacles, touched):
    """``(clusters, tile_obs)`` for the obstacles after a batch
    (``obstacles``, id -> Obstacle, the static ones included) from the
    mesh's (``tm.static`` and ``tm.obstacles``, ``tm.clusters``): the
    clusters of removed obstacles and those the new ones meet are broken up, and their obstacles still there, with the
    new ones, grouped again (``Cluster``); ``clusters`` maps each obstacle
    id to its cluster, ``tile_obs`` the tiles whose clusters changed to
    them all (``{id(cluster): cluster}``, a copy; ``OFF_GRID`` for those
    reaching none). The tiles of the clusters gone and made are added to
    ``touched``."""
    grid, before = tm.grid, {**tm.static, **tm.obstacles}
    gone = [i for i, ob in before.items() if obstacles.get(i) is not ob]
    new = [ob for i, ob in obstacles.items() if before.get(i) is not ob]
    broken = {id(c): c for c in (tm.clusters[i] for i in gone)}
    everyone = None
    for ob in new if tm.clusters else ():          # no clusters yet: none to meet
        tiles = grid.tiles(ob.bounds).tolist()
        if tiles:
            near = {k: c for t in tiles + [OFF_GRID]
                    for k, c in tm.tile_obs.get(t, {}).items()}
        else:                   # beyond the map: what it meets may be anywhere
            if everyone is None:
                everyone = {id(c): c for c in tm.clusters.values()}
            near = everyone
        near = [c for k, c in near.items() if k not in broken]
        if near:
            meets = shapely.intersects(ob.polygon, np.array([c.raw for c in near],
                                                             dtype=object))
            broken.update((id(c), c) for c, m in zip(near, meets.tolist()) if m)
    pool = list(dict.fromkeys([i for c in broken.values() for i in c.members
                               if i in obstacles] + [ob.id for ob in new]))
    made = []
    if pool:
        polys = np.array([obstacles[i].polygon for i in pool], dtype=object)
        groups = {}
        for k, g in enumerate(build.meeting_groups(polys).tolist()):
            groups.setdefault(g, []).append(k)
        groups = list(groups.values())
        made = Cluster.many([tuple(pool[k] for k in ks) for ks in groups],
                            [polys[ks[0]] if len(ks) == 1 else shapely.union_all(polys[ks])
                             for ks in groups], tm.radius, grid)
    clusters = dict(tm.clusters)
    for c in broken.values():
        for i in c.members:
            clusters.pop(i, None)
    for c in made:
        clusters.update((i, c) for i in c.members)
    tile_obs = {}

    def obs_of(t):
        got = tile_obs.get(t)
        if got is None:
            got = tile_obs[t] = dict(tm.tile_obs.get(t, ()))
        return got

    for c in broken.values():
        obs_of(OFF_GRID).pop(id(c), None)
        for t in grid.tiles(c.bounds).tolist():
            obs_of(t).pop(id(c), None)
            touched.add(t)
    for c in made:
        tiles = grid.tiles(c.bounds).tolist()
        for t in tiles or [OFF_GRID]:
            obs_of(t)[id(c)] = c
        touched.update(tiles)
    return clusters, tile_obs
