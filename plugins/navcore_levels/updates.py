"""Run-time obstacles and area volumes on a level graph built in tiles
(DetourTileCache's temporary obstacles):

    world.update("lvl", add_obstacle={"box": [[x0, y0, z0], [x1, y1, z1]]},
                 obstacle_id="crate1")
    world.update("lvl", add_obstacle={"cylinder": {"center": (x, y, z), "radius": r,
                                                   "height": h}}, obstacle_id="barrel")
    world.update("lvl", add_obstacle={"convex": [[x, z], ...], "ymin": lo, "ymax": hi},
                 obstacle_id="car")
    world.update("lvl", remove_obstacle="crate1")
    world.update("lvl", areas=[{"box": [[x0, y0, z0], [x1, y1, z1]], "area": "water"},
                               {"convex": [[x, z], ...], "ymin": lo, "ymax": hi,
                                "area": "mud"}])

Specs in the level's axes (``navcore_levels.obstacles``). ``areas=``
replaces the level's area volumes, all of them (``[]`` removes them
all), with a list in the form ``add_graph``'s ``areas=`` takes
(``navcore_levels.areas``; it takes nothing else with it). A volume may
name a new area type: as at build, a new name gets the lowest id no name
of the level has (counting the names of ``areas=`` updates already
queued), and ``graph.area_names`` gains it when the update is applied;
the names the level has keep their ids (a name is never taken away, so
``exclude_areas=["mud"]`` stays a valid query after the mud is gone).

Like every update they are checked at once (``UpdateError``, nothing
queued: a malformed spec or volume, naming ``areas[i]``, an obstacle
wholly outside the level, a duplicate id or an unknown one on removal,
counting what is queued) and applied at the next ``World.tick``, a
tick's updates of the graph as one batch (the last ``areas=`` of the
batch wins): the tiles the batch's added and removed obstacles reach,
and those whose volumes change (the volumes that reach a tile's padded
grid, in order, are not those that did; ``changed_tiles``), are rebuilt
once from their cached compact heightfields (``rebuild_obstacles``; the
other tiles are kept), stitched again, and the new polygons swapped into
the graph the world holds (``LayeredMeshGraph.replace_layers``). The mesh
then equals a build from scratch of the level with those obstacles and
volumes (``build_tiled(..., volumes=, obstacles=)``, or ``add_graph``
with those ``areas=``); obstacles keep ``agent_radius`` off, as walls do
(marked before the erosion); volumes are marked after it, as at build.
``graph.level_volumes`` holds the volumes in force (checked, in
Recast's y-up frame).

A level built whole (``tile_size=0``) refuses both with an
``UpdateError`` naming ``tile_size``: it has no tiles to rebuild, and
rebuilding the whole level on every change is what tiles avoid. A level
loaded from a bake (``mesh=``) refuses them too, naming the bake: it has
no triangles to rebuild from.

The rebuild runs inside the tick (on dungeon.obj with 48-cell tiles
about a quarter of a millisecond a tile; ``bench/level_obstacles.py``),
unless it would not fit the world's frame budget: then a scheduler job rebuilds the
tiles and a later tick swaps the result in (``Rebuilds``).

Polygon ids: the stitched mesh numbers polygons tile by tile, so a
rebuilt tile can shift the ids of later tiles. The batch's dirty nodes
are every id whose polygon (corners, heights, neighbours, area type) is
not what it was, so ``World.is_current`` and the areas follow. The node count never
shrinks (the update protocol's rule): a mesh with fewer polygons than
before is padded with unwalkable isolated specks. ``nodes=``/``walkable=``
flags stay on the ids whose polygons are unchanged (rebuilt polygons
come back walkable); the polygon graph's edge costs are those of the new
mesh (centroid distances): ``edges=`` cost changes do not survive an
obstacle or ``areas=`` update.
"""
from __future__ import annotations

import threading

import numpy as np

from navcore import validate
from navcore.errors import UpdateError
from navcore.types import Update

from navcore.errors import GraphError

from .areas import area_table
from .obstacles import obstacle
from .tiles import changed_tiles, rebuild_obstacles, volume_key

KINDS = ("add_obstacle", "remove_obstacle", "areas", "level_rebuilt")
_KEYS = ("add_obstacle", "obstacle_id", "remove_obstacle", "areas", "level_rebuilt")
#: the update the plugin queues at the start of a tick when a background
#: rebuild has finished: ``world.update(gid, level_rebuilt=True)`` swaps it
#: in (nothing happens when none is ready)
ADOPT = "level_rebuilt"


def _level(graph):
    """Whether ``graph`` is a level graph (``build_level_graph`` made it)."""
    return hasattr(graph, "level_obstacles")


def _ids_after_queue(world, graph) -> dict:
    """The obstacle ids the graph will have once the queued updates are in
    (id -> True)."""
    ids = dict.fromkeys(graph.level_obstacles, True)
    for upd in world.queued_updates(graph.graph_id) if world is not None else ():
        if upd.kind == "add_obstacle":
            ids[upd.params["id"]] = True
        elif upd.kind == "remove_obstacle":
            ids.pop(upd.params["id"], None)
    return ids


def _names_after_queue(world, graph) -> dict:
    """The area names the graph will know once the queued ``areas=``
    updates are in (name -> id)."""
    names = dict(graph.area_names)
    for upd in world.queued_updates(graph.graph_id) if world is not None else ():
        if upd.kind == "areas":
            names.update(upd.params["names"])
    return names


def _untiled(graph, keys) -> str:
    """Why a level without tiles refuses the updates ``keys``."""
    what = ("takes no areas= updates: new area volumes rebuild the tiles they reach"
            if "areas" in keys else "takes no obstacles: an obstacle rebuilds the tiles it "
            "reaches")
    if getattr(graph, "level_baked", False):
        return (f"level {graph.graph_id!r} was loaded from a bake (mesh=), whose polygons are "
                f"fixed, so it {what}; add the level from its triangles (level= or "
                f"vertices=/triangles=) with tile_size=N (e.g. tile_size=48 cells)")
    return (f"level {graph.graph_id!r} was built whole (tile_size=0), so it {what}; add the "
            f"level with tile_size=N (e.g. tile_size=48 cells)")


def _areas_update(world, graph, params) -> Update:
    """``areas=[volumes]``: the level's new area volumes, checked as
    ``add_graph``'s ``areas=`` (new names take the next free ids)."""
    gid = graph.graph_id
    if set(params) != {"areas"}:
        raise UpdateError(f"areas= takes nothing else (it replaces the level's area volumes), "
                          f"got {sorted(params)}")
    areas = params["areas"]
    if areas is None or isinstance(areas, (str, bytes, dict)) \
            or not hasattr(areas, "__iter__"):
        raise UpdateError(f"areas= must be a list of area volumes as add_graph's areas= "
                          f"takes them ([] removes them all), got {validate.describe(areas)}")
    try:
        table = area_table(list(areas), None, (), graph.up, _names_after_queue(world, graph))
    except GraphError as exc:
        raise UpdateError(f"level {gid!r}: {exc}") from None
    except (TypeError, ValueError):           # ragged lists, where numbers go
        raise UpdateError(f"level {gid!r}: areas= holds a malformed volume: "
                          f"{validate.describe(areas)}") from None
    return Update(gid, "areas", {"volumes": table.volumes, "names": table.names})


def _user_box(graph, lo, hi) -> str:
    """An x-z box of Recast's frame in the caller's ground axes."""
    if graph.up == "y":
        return f"x {lo[0]:g}..{hi[0]:g}, z {lo[1]:g}..{hi[1]:g}"
    return f"x {lo[0]:g}..{hi[0]:g}, y {-hi[1]:g}..{-lo[1]:g}"


def make_update(world, graph, params) -> Update | None:
    """``World.update`` on a level graph: the obstacle and ``areas=``
    updates; ``None`` for the others (the navmesh and csr plugins answer)."""
    if not _level(graph) or not set(params) & set(_KEYS):
        return None
    gid = graph.graph_id
    keys = set(params)
    tiled = graph.level_tiles
    if tiled is None:
        raise UpdateError(_untiled(graph, keys))
    if ADOPT in keys:
        if keys != {ADOPT} or params[ADOPT] is not True:
            raise UpdateError(f"level_rebuilt=True takes nothing else (the level plugin "
                              f"queues it when a background rebuild is ready), got "
                              f"{sorted(params)}")
        return Update(gid, ADOPT, {})
    if "areas" in keys:
        return _areas_update(world, graph, params)
    if "add_obstacle" in keys:
        oid = validate.obstacle_id(params)
        if oid in _ids_after_queue(world, graph):
            raise UpdateError(f"level {gid!r} already has an obstacle {oid!r} (or one is "
                              f"queued); remove_obstacle it first")
        ob = obstacle(params["add_obstacle"], graph.up, _names_after_queue(world, graph))
        blo, bhi = tiled.bmin[[0, 2]], tiled.bmax[[0, 2]]
        if (ob.hi < blo).any() or (ob.lo > bhi).any():
            raise UpdateError(f"obstacle {oid!r} covers {_user_box(graph, ob.lo, ob.hi)}, "
                              f"wholly outside level {gid!r} "
                              f"({_user_box(graph, blo, bhi)}); mind the up axis "
                              f"(up={graph.up!r})")
        return Update(gid, "add_obstacle", {"id": oid, "obstacle": ob})
    if keys != {"remove_obstacle"}:
        raise UpdateError(f"remove_obstacle= takes nothing else, got {sorted(params)}; "
                          f"obstacle_id= goes with add_obstacle=")
    oid = params["remove_obstacle"]
    try:
        known = oid in _ids_after_queue(world, graph)
    except TypeError:                       # unhashable: no obstacle has it
        known = False
    if not known:
        have = sorted(map(repr, _ids_after_queue(world, graph)))
        raise UpdateError(f"level {gid!r} has no obstacle {oid!r}; it has "
                          f"{', '.join(have[:10]) or 'none'}{', ...' if len(have) > 10 else ''}")
    return Update(gid, "remove_obstacle", {"id": oid})


def apply_updates(world, graph, batch) -> np.ndarray | None:
    """Apply a batch with obstacle or ``areas=`` updates to a level graph
    (``None`` for any other batch: the csr plugin applies the generic
    ones). The generic ``nodes=`` walkable flags of the batch apply first,
    to the polygons as they are; then the touched tiles are rebuilt and
    swapped in, here or (when the estimate exceeds the frame budget) on a
    scheduler worker (``Rebuilds``). Nothing changes when anything fails."""
    if not _level(graph) or not any(u.kind in KINDS for u in batch):
        return None
    obstacles = dict(graph.level_obstacles)
    volumes = graph.level_volumes
    names = dict(graph.area_names)
    walkable = graph.walkable.copy()
    adopt = False
    for upd in batch:
        p = upd.params
        if upd.kind == "areas":
            volumes = p["volumes"]
            names.update(p["names"])
        elif upd.kind == "add_obstacle":
            if p["id"] in obstacles:
                raise UpdateError(f"level {graph.graph_id!r} already has an obstacle "
                                  f"{p['id']!r}")
            obstacles[p["id"]] = p["obstacle"]
        elif upd.kind == "remove_obstacle":
            if obstacles.pop(p["id"], None) is None:
                raise UpdateError(f"level {graph.graph_id!r} has no obstacle {p['id']!r}")
        elif upd.kind == "walkable":
            walkable[p["nodes"]] = p["walkable"]
        elif upd.kind == ADOPT:
            adopt = True
        elif upd.kind != "cost":            # reset by the rebuild (module docstring)
            raise UpdateError(f"update kind {upd.kind!r} does not apply to level graphs")
    rebuilds = rebuilds_of(graph)
    wanted = list(obstacles.values())
    tiled = rebuilds.take(wanted, volumes) if adopt else None
    if tiled is None:
        shown = graph.level_tiles
        count = len(changed_tiles(shown, wanted, volumes))
        if rebuilds.defer(world, count):
            # the polygons stay as they are until the job's result is in
            # (a later tick); the obstacles, volumes and names are the
            # graph's from now on
            rebuilds.request(world, shown, wanted, volumes)
            changed = np.flatnonzero(walkable != graph.walkable)
            graph.walkable[changed] = walkable[changed]
            graph.level_obstacles, graph.level_volumes = obstacles, volumes
            graph.area_names = names
            graph.version += 1
            return changed.astype(np.int32)
        tiled = rebuilds.rebuild(shown, wanted, volumes)
        return _swap(world, graph, tiled, obstacles, walkable, names)
    try:
        return _swap(world, graph, tiled, obstacles, walkable, names)
    except UpdateError as exc:
        # a job's rebuild that cannot be swapped in: the graph took its
        # obstacles and volumes when the job was asked for, so it drops
        # those the mesh it keeps does not have (the next batch rebuilds
        # from there)
        kept = graph.level_tiles
        have = {id(ob) for ob in kept.obstacles}
        gone = [repr(k) for k, ob in graph.level_obstacles.items() if id(ob) not in have]
        dropped = [f"obstacles {', '.join(gone)}"] if gone else []
        graph.level_obstacles = {k: ob for k, ob in graph.level_obstacles.items()
                                 if id(ob) in have}
        if not _same_volumes(kept.volumes, graph.level_volumes):
            dropped.append("the new areas= volumes")
            graph.level_volumes = list(kept.volumes)
        graph.version += 1
        raise UpdateError(f"{exc}; {' and '.join(dropped)} were dropped (rebuilt in the "
                          f"background; the level keeps the mesh it has)") from None


def _same_volumes(a, b) -> bool:
    """Whether two lists of checked area volumes mark the same."""
    return len(a) == len(b) and all(volume_key(x) == volume_key(y) for x, y in zip(a, b))


def _swap(world, graph, tiled, obstacles, walkable, names) -> np.ndarray:
    """Swap the stitched mesh of ``tiled`` into ``graph``; the dirty nodes."""
    from .graph import layered_graph

    stitched = tiled.stitch()
    mesh = stitched.mesh
    if mesh.poly_count == 0:
        raise UpdateError(f"the obstacles and area volumes would leave level "
                          f"{graph.graph_id!r} no walkable polygon")
    n_old = graph.num_nodes
    pad = max(n_old - mesh.poly_count, 0)
    new = layered_graph(world, mesh, stitched.detail, graph.level_config, graph.up,
                        graph.extents, pad=pad)
    same = _unchanged(graph, new)
    n_new = new.num_nodes
    walk = new.walkable.copy()
    was = _match(graph, new)
    kept = np.flatnonzero(was >= 0)
    walk[kept] = walkable[was[kept]]
    area_ids = np.zeros(n_new, dtype=mesh.areas.dtype)
    area_ids[:mesh.poly_count] = mesh.areas
    n = min(n_old, n_new)
    # a polygon whose area type alone changed is dirty too (area filters)
    dirty = np.flatnonzero(~same[:n] | (walk[:n_old] != graph.walkable)
                           | (area_ids[:n] != np.asarray(graph.area_ids)[:n]))
    dirty = np.concatenate([dirty, np.arange(n_old, n_new)]).astype(np.int32)
    # everything above is checked and built: from here on nothing fails
    graph.replace_layers(new, walk)
    graph.level_tiles = tiled
    graph.level_obstacles = obstacles
    graph.level_volumes = list(tiled.volumes)
    graph.area_names = names
    graph.area_ids = area_ids
    # what a bake saves and a picture draws: the mesh now
    graph.level_mesh, graph.level_detail = mesh, stitched.detail
    graph.version += 1
    graph.locate_index()                 # built now, not by the frame's first query
    return dirty


class Rebuilds:
    """A level graph's tile rebuilds that do not fit a frame, run as a job
    of the world's scheduler, one at a time, as the roads plugin's
    customizable hierarchy customizes (``RoadCCH.follow``): a batch whose
    tiles would take longer than the world's ``frame_budget_ms`` (by the
    last rebuild's seconds per tile) in a world with scheduler workers
    that is not deterministic is rebuilt by a job; its result waits in
    ``ready`` and is swapped in by the update (``level_rebuilt=True``)
    that ``navcore_frame_start`` queues when it is there, if the graph's
    obstacles and area volumes are still those it was built for (a newer
    batch supersedes it: the job rebuilds for the latest ones next).
    Until then paths run on the mesh as it was. Elsewhere rebuilds run
    inside the tick."""

    def __init__(self):
        self._lock = threading.Lock()
        self._next = None                 # (tiled, obstacles, volumes) to rebuild next
        self.ready = None                 # a finished TiledLevel waiting for a tick
        self._idle = threading.Event()
        self._idle.set()
        #: the last rebuild's wall seconds per tile rebuilt (0 before any)
        self.tile_seconds = 0.0
        #: rebuilds run by scheduler jobs, and inside ticks
        self.background = self.inline = 0

    def defer(self, world, tiles: int) -> bool:
        """Whether ``tiles`` tile rebuilds go to a job (see the class)."""
        sched = getattr(world, "scheduler", None)
        if getattr(world, "deterministic", False) or sched is None \
                or not getattr(sched, "workers", 0):
            return False
        budget = float(getattr(world, "frame_budget_ms", np.inf)) / 1e3
        return tiles * self.tile_seconds > budget or not self._idle.is_set()

    def rebuild(self, tiled, obstacles, volumes):
        """``rebuild_obstacles`` here, timed for the next estimate."""
        spent = {}
        out = rebuild_obstacles(tiled, obstacles, volumes=volumes, timings=spent)
        if len(out.rebuilt):
            self.tile_seconds = spent["tiles"] / len(out.rebuilt)
        self.inline += 1
        return out

    def request(self, world, tiled, obstacles, volumes) -> None:
        with self._lock:
            self._next = (tiled, list(obstacles), list(volumes))
            if not self._idle.is_set():
                return                    # the running job takes it next
            self._idle.clear()
        world.scheduler.schedule(self._job)

    def _job(self) -> None:
        while True:
            with self._lock:
                if self._next is None:
                    self._idle.set()
                    return
                tiled, obstacles, volumes = self._next
                self._next = None
            try:
                spent = {}
                out = rebuild_obstacles(tiled, obstacles, volumes=volumes, timings=spent)
            except BaseException:
                with self._lock:
                    self._next = None
                    self._idle.set()
                raise
            with self._lock:
                if len(out.rebuilt):
                    self.tile_seconds = spent["tiles"] / len(out.rebuilt)
                self.ready = out
                self.background += 1

    def take(self, obstacles, volumes):
        """The ready result if it was built for ``obstacles`` (by identity)
        and area ``volumes``, else None (dropped when stale)."""
        with self._lock:
            out, self.ready = self.ready, None
        if out is None or {id(o) for o in out.obstacles} != {id(o) for o in obstacles} \
                or not _same_volumes(out.volumes, volumes):
            return None
        return out

    @property
    def pending(self) -> bool:
        """A job is queued or running, or its result waits for a tick."""
        return not self._idle.is_set() or self.ready is not None

    def wait(self, timeout: float | None = None) -> bool:
        """Block until no job runs (its result is swapped in by the next
        tick); False on timeout."""
        return self._idle.wait(timeout)


def rebuilds_of(graph) -> Rebuilds:
    """The level graph's ``Rebuilds`` (made on first use)."""
    r = getattr(graph, "level_rebuilds", None)
    if r is None:
        r = graph.level_rebuilds = Rebuilds()
    return r


def frame_start(world) -> None:
    """Queue the swap of every level graph's finished background rebuild."""
    for gid, graph in list(world.graphs.items()):
        r = getattr(graph, "level_rebuilds", None)
        if r is not None and r.ready is not None:
            world.update(gid, level_rebuilt=True)


def _rings(g) -> np.ndarray:
    """One opaque key per polygon of ``g``: its corners' ground
    coordinates and heights in order (NaN-padded to the longest ring)."""
    count = np.diff(g.poly_start)
    width = int(count.max()) if len(count) else 0
    rows = np.full((g.num_nodes, width, 3), np.nan)
    node = np.repeat(np.arange(g.num_nodes), count)
    slot = np.arange(len(g.poly_verts)) - np.repeat(g.poly_start[:-1], count)
    corners = g.poly_verts
    rows[node, slot, :2] = g.vertices[corners]
    rows[node, slot, 2] = g.heights[corners]
    flat = np.ascontiguousarray(rows.reshape(g.num_nodes, -1))
    return flat.view(np.dtype((np.void, flat.shape[1] * 8))).ravel()


def _match(old, new) -> np.ndarray:
    """int64 ``(new.num_nodes,)``: the id in ``old`` of the polygon with
    the same corners (ground coordinates and heights, in order) as each
    polygon of ``new``, -1 where none has (ids shift when an earlier
    tile's polygon count changes)."""
    a, b = _rings(old), _rings(new)
    if a.dtype != b.dtype:           # longest rings differ: keys padded to one width
        width = max(a.dtype.itemsize, b.dtype.itemsize)
        a, b = _widen(a, width), _widen(b, width)
    order = np.argsort(a, kind="stable")
    ranked = a[order]
    pos = np.minimum(np.searchsorted(ranked, b), len(a) - 1)
    return np.where(ranked[pos] == b, order[pos], -1).astype(np.int64)


def _widen(keys, width) -> np.ndarray:
    """``keys`` (void) as void keys of ``width`` bytes, NaN-padded."""
    n, have = len(keys), keys.dtype.itemsize
    raw = np.full(n * width // 8, np.nan).reshape(n, width // 8)
    raw[:, :have // 8] = np.frombuffer(keys.tobytes(), np.float64).reshape(n, have // 8)
    return np.ascontiguousarray(raw).view(np.dtype((np.void, width))).ravel()


def _unchanged(old, new) -> np.ndarray:
    """bool ``(new.num_nodes,)``: node ids below ``old.num_nodes`` whose
    polygon in ``new`` has the same corners (ground coordinates and
    heights, in order) and the same neighbours as in ``old``."""
    n = min(old.num_nodes, new.num_nodes)
    out = np.zeros(new.num_nodes, dtype=np.bool_)
    if n == 0:
        return out
    ocount = np.diff(old.poly_start[:n + 1])
    ncount = np.diff(new.poly_start[:n + 1])
    cand = np.flatnonzero(ocount == ncount)
    if cand.size == 0:
        return out
    k = ocount[cand]
    node = np.repeat(cand, k)
    offset = np.arange(k.sum()) - np.repeat(np.cumsum(k) - k, k)
    oi = old.poly_start[node] + offset
    ni = new.poly_start[node] + offset
    ov, nv = old.poly_verts[oi], new.poly_verts[ni]
    eq = (old.vertices[ov] == new.vertices[nv]).all(axis=1) \
        & (old.heights[ov] == new.heights[nv]) & (old.poly_adj[oi] == new.poly_adj[ni])
    bad = np.zeros(old.num_nodes, dtype=np.bool_)
    bad[node[~eq]] = True
    out[cand] = ~bad[cand]
    return out
