"""``Session``: what a viewer shows, read from the world on the thread
that ticks it.

The map is the draw plugin's picture of the shown graph
(``navcore_draw.picture.map_canvas``: every connected area in its
colour, walls dark, floor under a moving obstacle dark red, closed roads
dark red), cut into ``TILE`` x ``TILE`` tiles of pixels, each sent as
zlib-compressed RGB bytes followed by the int32 node each pixel shows
(``-1``: none; the page's hover and polygon outlines read it). The
picture is drawn again only when the graph's version or the page's
options change, at most every ``REDRAW_S`` seconds while playing, and
only the tiles whose pixels changed are sent again.

Each frame adds a small message: the frame number, the frame's times
(``FrameStats``) against the budget, the agents shown (a scene's agents
and crowds, and the world's ``world.crowds`` on the graph) and, every
few frames when there are many, their remaining paths.

Nothing is taken while no page is connected (``pages`` is 0): a frame
then only marks the session ``behind``, and a page that connects while
it is behind waits for ``refresh`` (on the driver's thread) before its
greeting, so it never sees a stale map or frame. ``captures`` counts the
frames taken.

Everything here runs on the driver's thread (the one that ticks the
world); the server's thread reads only what ``publish`` swapped in under
``lock``: immutable bytes and tuples.
"""
from __future__ import annotations

import math
import threading
import time
import zlib

import numpy as np

from navcore import validate
from navcore.errors import NavError, QueryError
from navcore.types import SearchIntervals

from navcore_draw import picture as P
from navcore_draw.canvas import COVERED

from . import wire

#: pixels on a side of a map tile
TILE = 128
#: while playing, the map is drawn again at most this often (seconds)
REDRAW_S = 0.1
#: agents whose paths are sent every frame; beyond, every PATH_EVERY frames
#: (a road scene's 300 cars' routes are most of a frame's bytes)
PATH_AGENTS = 100
PATH_EVERY = 5
#: at most this many points of one path are sent
PATH_POINTS = 128
#: at most this many of the nodes a clicked query closed are sent (its
#: "search nodes" layer; the count is sent whole)
CLOSED_SHOWN = 250_000
#: an agent's colour index in the page's palette: a scene agent's state
#: (``navcore_scenes.agents``: waiting 0, moving 1, arrived 2, stuck 3,
#: retrying 4) in the scenes plugin's pictures' colours (moving white,
#: waiting and retrying yellow, arrived green, stuck red); a crowd's
#: member walking is ``CROWD``, arrived ``ARRIVED``
MOVING, ARRIVED, CROWD = 1, 2, 5
PALETTE = {0: [255, 214, 10], MOVING: [255, 255, 255], ARRIVED: [60, 220, 90],
           3: [255, 40, 40], 4: [255, 214, 10], CROWD: [120, 200, 255]}


def _agent_palette() -> dict:
    palette = dict(PALETTE)
    try:
        from navcore_scenes.render import AGENT
    except ImportError:                        # no scenes plugin: crowds only
        return palette
    palette.update({int(k): list(v) for k, v in AGENT.items()})
    return palette


class Session:
    """The shown graph of ``world`` (or of ``sim``, a ``navcore.Simulation``)."""

    def __init__(self, world, graph_id=None, sim=None):
        self.world, self.sim = world, sim
        self.lock = threading.Lock()
        #: the map's options (drawn by the plugins: ``navcore_draw.Canvas``)
        self.options = {"areas": True, "borders": False, "tiles": False, "traffic": False}
        self.listeners: list = []           # called (no arguments) after publish
        self.epoch = 0                      # a new map frame: pages take every tile
        self.map_info: dict = {}
        self.tiles: dict = {}               # (tx, ty) -> (serial, compressed bytes)
        self.serial = 0
        self.frame_message = b""
        self.frame = 0
        self.ended = None                   # why the scene ended, once it has
        self.map_bytes = 0                  # bytes of the last full map sent
        self.pages = 0                      # pages connected (``attach``/``detach``)
        self.behind = False                 # a frame passed that was not taken
        self.captures = 0                   # frames taken
        self._rgb = self._node_at = None
        self._drawn_key = None
        self._drawn_at = 0.0
        self.select(self._pick(graph_id))

    # -- the graph shown ----------------------------------------------------
    def graph_ids(self) -> list:
        """The graphs a page may show: those that can be drawn."""
        ids = [g.id for g in self.sim.scene.graphs if g.id in self.sim.layers] \
            if self.sim is not None else list(self.world.graphs)
        return [g for g in ids if self._layer_of(g, quiet=True) is not None]

    def _pick(self, graph_id):
        if graph_id is not None:
            self.world.graph(graph_id)           # UnknownGraphError for a bad id
            self._layer_of(graph_id)             # QueryError when it cannot be drawn
            return graph_id
        ids = self.graph_ids()
        if not ids:
            raise QueryError("nothing to show: no graph of this world can be drawn")
        return ids[0]

    def _layer_of(self, graph_id, quiet=False):
        if self.sim is not None and graph_id in self.sim.layers:
            return self.sim.layers[graph_id]
        try:
            return P.frame_of(self.world, graph_id, self.world.graph(graph_id))
        except NavError:
            if quiet:
                return None
            raise

    def select(self, graph_id) -> None:
        """Show graph ``graph_id`` (checked by the caller)."""
        self.graph_id = graph_id
        self.graph = self.world.graph(graph_id)
        self.layer = self._layer_of(graph_id)
        self.scale = P.check_scale(*P.map_size(self.layer), None)
        self.dims = getattr(self.layer, "dims", 2)
        self.unit = float(getattr(self.layer, "unit", 1.0))
        r = self.layer.agent_radius()
        self.radius = float(r) if r is not None and r > 0 else P.AGENT_RADIUS * self.unit
        self._shown_agents()
        self._rgb = self._node_at = None
        self._drawn_key = None
        self.draw_map(force=True)

    def _shown_agents(self) -> None:
        """The scene's agents on the shown graph and on the graphs sharing
        its ``space``, grouped by graph (each is put on the ground by its
        own graph's layer)."""
        self.agent_groups = []
        if self.sim is None:
            return
        from navcore_scenes.render import shown_graphs
        ids = np.array(self.sim.agents.graph_ids, dtype=object)
        for g in shown_graphs(self.sim, self.graph_id):
            idx = np.flatnonzero(ids == g) if ids.size else np.zeros(0, np.int64)
            lay = self.sim.layers.get(g)
            r = lay.agent_radius() if lay is not None else None
            radius = float(r) if r is not None and r > 0 else P.AGENT_RADIUS * self.unit
            if idx.size:
                self.agent_groups.append((g, idx, lay, radius))

    # -- the map --------------------------------------------------------------
    def set_options(self, options: dict) -> None:
        for key, value in options.items():
            if key not in self.options:
                raise QueryError(f"unknown map option {key!r}; known: "
                                 f"{', '.join(self.options)}")
            self.options[key] = validate.boolean(value, key, QueryError)
        self.draw_map(force=True)

    def _key(self):
        g = self.world.graph(self.graph_id)
        return (id(g), g.version, g.num_nodes, tuple(self.options.items()))

    def map_pending(self) -> bool:
        return self._key() != self._drawn_key

    def draw_map(self, force: bool = False) -> bool:
        """Draw the map again when it changed (and, unless ``force``,
        ``REDRAW_S`` passed since the last time); publish the changed
        tiles. Returns whether it drew."""
        key = self._key()
        now = time.perf_counter()
        if key == self._drawn_key or (not force and now - self._drawn_at < REDRAW_S):
            return False
        graph = self.world.graph(self.graph_id)
        self.graph = graph
        colours = P.node_colours(self.world, self.graph_id, graph, self.options["areas"])
        if self.sim is not None:
            colours[self.layer.obstacle_nodes()] = COVERED
        canvas = P.map_canvas(self.world, self.graph_id, graph, self.layer, self.scale,
                              colours, self.options["borders"], self.options["tiles"],
                              self.options["traffic"])
        rgb, node_at = canvas.rgb, canvas.node_at
        h, w = node_at.shape
        tiles = dict(self.tiles)
        if self._rgb is None or self._rgb.shape != rgb.shape:
            changed = np.ones(((h + TILE - 1) // TILE, (w + TILE - 1) // TILE), dtype=bool)
            tiles = {}
            epoch = self.epoch + 1
            info = {"width": w, "height": h, "tile": TILE,
                    "origin": [float(v) for v in canvas.origin],
                    "scale": float(canvas.scale), "aspect": float(canvas.aspect),
                    "y_up": bool(canvas.y_up), "graph": _json_id(self.graph_id),
                    "kind": graph.kind, "unit": self.unit, "radius": self.radius,
                    "dims": self.dims}
        else:
            diff = (rgb != self._rgb).any(axis=2) | (node_at != self._node_at)
            changed = _per_tile(diff)
            epoch, info = self.epoch, self.map_info
        serial = self.serial
        for ty, tx in zip(*np.nonzero(changed)):
            serial += 1
            y0, x0 = ty * TILE, tx * TILE
            body = rgb[y0:y0 + TILE, x0:x0 + TILE].tobytes() + \
                node_at[y0:y0 + TILE, x0:x0 + TILE].astype("<i4").tobytes()
            tiles[(int(tx), int(ty))] = (serial, zlib.compress(body, 1))
        self._rgb, self._node_at = rgb, node_at
        self._drawn_key, self._drawn_at = key, now
        with self.lock:
            self.tiles, self.serial, self.epoch, self.map_info = tiles, serial, epoch, info
            if changed.all():
                self.map_bytes = sum(len(b) for _, b in tiles.values())
        return True

    # -- frames -------------------------------------------------------------
    def capture(self, stats=None, playing: bool = False, always: bool = False) -> None:
        """Take the frame that just ended (``stats``: its ``FrameStats``;
        ``None`` before the first) and publish it; with no page connected
        (unless ``always``) only note that the session is ``behind``."""
        with self.lock:
            if not self.pages and not always:
                self.behind = True
                return
            self.behind = False
        self.captures += 1
        self.draw_map(force=not playing)
        frame = self.sim.frame if self.sim is not None else \
            (stats.frame if stats is not None else self.frame)
        self.frame = frame
        pos, state, radius, paths = self._agents(frame)
        header = {"type": "frame", "frame": int(frame), "playing": bool(playing),
                  "agents": int(len(state)), "stats": _stats(stats, self.world),
                  "ended": self.ended}
        blobs = [("pos", pos), ("state", state), ("radius", radius)]
        if paths is not None:
            offsets, points = paths
            header["paths"] = True
            blobs += [("path_offsets", offsets), ("path_points", points)]
        message = wire.pack(header, blobs)
        with self.lock:
            self.frame_message = message
        self.publish()

    def _agents(self, frame):
        parts_pos, parts_state, parts_r = [], [], []
        lines = [] if self._send_paths(frame) else None
        if self.sim is not None:
            agents = self.sim.agents
            remaining = agents.remaining_paths() if lines is not None and \
                self.agent_groups else None
            for g, idx, lay, radius in self.agent_groups:
                at = agents.pos[idx]
                parts_pos.append(self._ground(lay, at))
                parts_state.append(agents.state[idx].astype(np.uint8))
                parts_r.append(np.full(idx.size, radius))
                if remaining is not None:
                    moving = agents.state[idx] == MOVING
                    for i, m in zip(idx, moving):
                        line = remaining[i] if m else remaining[i][:1]
                        lines.append(self._ground(lay, line[:PATH_POINTS]))
        # a scene's agents are drawn above (those that walk as crowds too)
        crowds = [] if self.sim is not None else list(self.world.crowds.values())
        for crowd in crowds:
            if crowd.graph_id != self.graph_id or not len(crowd):
                continue
            parts_pos.append(np.asarray(crowd.positions, dtype=np.float64)[:, :2])
            parts_state.append(np.where(crowd.arrived, ARRIVED, CROWD).astype(np.uint8))
            parts_r.append(np.asarray(crowd.radii, dtype=np.float64))
            if lines is not None:
                lines.extend(crowd.positions[k:k + 1, :2] for k in range(len(crowd)))
        pos = np.concatenate(parts_pos).astype(np.float32) if parts_pos else \
            np.zeros((0, 2), np.float32)
        state = np.concatenate(parts_state) if parts_state else np.zeros(0, np.uint8)
        radius = np.concatenate(parts_r).astype(np.float32) if parts_r else \
            np.zeros(0, np.float32)
        paths = None
        if lines is not None:
            lengths = np.array([len(p) for p in lines], dtype=np.int64)
            offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.uint32)
            points = np.concatenate(lines).astype(np.float32) if lines else \
                np.zeros((0, 2), np.float32)
            paths = (offsets, points)
        return pos.reshape(-1), state, radius, paths

    def _send_paths(self, frame) -> bool:
        n = sum(idx.size for _, idx, _, _ in self.agent_groups)
        return n <= PATH_AGENTS or frame % PATH_EVERY == 0

    @staticmethod
    def _ground(layer, points) -> np.ndarray:
        points = np.asarray(points, dtype=np.float64)
        if layer is None or getattr(layer, "dims", 2) == 2:
            return points[:, :2]
        return np.asarray(layer.on_ground(points[:, :layer.dims]))[:, :2]

    def attach(self) -> bool:
        """A page connected (server's thread); returns whether it must wait
        for ``refresh`` (frames passed untaken since the last capture)."""
        with self.lock:
            self.pages += 1
            return self.behind

    def detach(self) -> None:
        """A page closed (server's thread)."""
        with self.lock:
            self.pages -= 1

    def refresh(self, stats, playing: bool) -> dict:
        """The map, the frame and the greeting as they are now, for a page
        that connected while the session was behind (driver's thread)."""
        self.draw_map(force=True)
        self.capture(stats, playing=playing, always=True)
        return self.greet()

    def publish(self) -> None:
        for listener in list(self.listeners):
            listener()

    def message_for(self, seen: dict, epoch: int):
        """``(message, epoch)``: the latest frame and the map tiles a page
        that holds ``seen`` (tile -> serial, updated here) of map
        ``epoch`` lacks. Called on the server's thread."""
        with self.lock:
            tiles, info, now_epoch = self.tiles, self.map_info, self.epoch
            serial = self.serial
            frame = self.frame_message
        if now_epoch != epoch:
            seen.clear()
        header = {"type": "map", "epoch": now_epoch, "tiles": [], "serial": serial}
        if now_epoch != epoch:
            header["map"] = info
        blobs = []
        for key, (serial, body) in tiles.items():
            if seen.get(key) != serial:
                seen[key] = serial
                header["tiles"].append({"x": key[0], "y": key[1], "blob": len(blobs)})
                blobs.append((f"t{len(blobs)}", body))
        out = []
        if header["tiles"] or "map" in header:
            out.append(wire.pack(header, blobs))
        if frame:
            out.append(frame)
        return out, now_epoch

    # -- what a page asks -----------------------------------------------------
    def hello(self) -> dict:
        """What a page is told when it connects (the shown graph, the graphs
        and algorithms offered, ...): made on the driver's thread, kept in
        ``greeting`` for the server's, which never reads the world."""
        algorithms = []
        try:
            algorithms = list(self.world.algorithms(self.graph_id))
        except NavError:
            pass
        palette = _agent_palette()
        settings = {"dt": None, "frames": None, "name": None}
        if self.sim is not None:
            s = self.sim.scene.settings
            settings = {"dt": s.dt, "frames": s.frames, "name": self.sim.scene.name}
        return {"type": "hello", "graph": _json_id(self.graph_id),
                "graphs": [_json_id(g) for g in self.graph_ids()],
                "algorithms": algorithms, "palette": palette,
                "budget_ms": float(self.world.frame_budget_ms), "options": self.options,
                "offers": self.offers(),
                "scene": settings, "mode": "scene" if self.sim is not None else "world"}

    def offers(self) -> dict:
        """The map options that draw something on the shown graph: tile
        borders on a tiled navmesh, traffic on roads."""
        graph = self.world.graph(self.graph_id)
        return {"areas": True, "borders": True,
                "tiles": getattr(graph, "tiles", None) is not None,
                "traffic": graph.kind == "roads"}

    def greet(self) -> dict:
        """Make ``greeting`` again (on the driver's thread); returns it."""
        greeting = self.hello()
        with self.lock:
            self.greeting = greeting
        return greeting

    #: the last ``hello``, for pages that connect (read under ``lock``)
    greeting: dict = {"type": "hello"}

    def path(self, start, goal, algorithm="auto") -> dict:
        """``world.find_path`` between two clicked points of the map."""
        a, b = _point(start, "from"), _point(goal, "to")
        if self.dims != 2:
            raise QueryError("paths are asked for on 2D maps; pick the ends of a path on a "
                             "3D level with world.find_path(graph_id, (x, y, z), ...)")
        if not isinstance(algorithm, str):
            raise QueryError(f"algorithm must be a name, got {algorithm!r}")
        closed, why = None, None
        try:
            r, closed = self.world.closed_nodes(self.graph_id, a, b, algorithm=algorithm)
        except QueryError as exc:
            # a search that keeps no record of its nodes (a contraction
            # hierarchy), or a bad request: find_path answers or says why
            why = exc.message
            r = self.world.find_path(self.graph_id, a, b, algorithm=algorithm)
        pts = self._ground(self.layer, r.points) if r.found and len(r.points) else \
            np.zeros((0, 2))
        out = {"type": "path", "from": list(a), "to": list(b), "status": r.status.value,
               "cost": r.cost if math.isfinite(r.cost) else None,
               "expanded": int(r.expanded), "nodes": int(len(r.nodes)),
               "algorithm": r.algorithm or algorithm, "points": pts.tolist(),
               "closed": None, "closed_total": None, "closed_why": why}
        out["closed_segments"] = None
        if isinstance(closed, SearchIntervals):
            # an interval search (Polyanya): its intervals as segments on
            # the map, the polygons they lead into tinted
            out["closed_total"] = int(len(closed.segments))
            out["closed"] = np.unique(closed.polygons[:, 1])[:CLOSED_SHOWN].tolist()
            out["closed_segments"] = closed.segments[:CLOSED_SHOWN].ravel().tolist()
        elif closed is not None:
            out["closed_total"] = int(closed.size)
            out["closed"] = np.unique(closed)[:CLOSED_SHOWN].tolist()
        return out

    def info(self, node) -> dict:
        """What the page shows on hover over node ``node``."""
        graph = self.world.graph(self.graph_id)
        if not validate.is_int(node) or not 0 <= node < graph.num_nodes:
            raise QueryError(f"node must be a node id of graph {self.graph_id!r} "
                             f"(0..{graph.num_nodes - 1}), got {node!r}")
        node = int(node)
        out = {"type": "info", "node": node, "kind": graph.kind,
               "walkable": bool(graph.walkable[node]), "label": _label(graph, node)}
        try:
            out["area"] = int(self.world.areas(self.graph_id)[node])
        except NavError:
            out["area"] = None
        csr = graph.csr
        costs = csr.cost[csr.offsets[node]:csr.offsets[node + 1]]
        finite = costs[np.isfinite(costs)]
        out["cost"] = float(finite.min()) if finite.size else None
        out["edges"] = int(costs.size)
        if graph.has_positions():
            out["at"] = [float(v) for v in np.asarray(graph.positions[node]).ravel()]
        return out


def _per_tile(mask: np.ndarray) -> np.ndarray:
    """Bool per ``TILE`` x ``TILE`` tile: whether any pixel of it is set."""
    h, w = mask.shape
    th, tw = (h + TILE - 1) // TILE, (w + TILE - 1) // TILE
    padded = np.zeros((th * TILE, tw * TILE), dtype=bool)
    padded[:h, :w] = mask
    return padded.reshape(th, TILE, tw, TILE).any(axis=(1, 3))


def _stats(stats, world) -> dict | None:
    if stats is None:
        return None
    return {"updates_ms": stats.time_updates_ms + stats.time_observers_ms,
            "requests_ms": stats.time_requests_ms, "move_ms": stats.time_move_ms,
            "total_ms": stats.time_total_ms, "budget_ms": float(world.frame_budget_ms),
            "served": stats.requests_served, "waiting": stats.requests_waiting,
            "expanded": stats.nodes_expanded, "moved": stats.agents_moved,
            "dirty": stats.dirty_nodes}


def _point(value, what) -> tuple:
    try:
        if isinstance(value, (str, bytes)) or any(isinstance(v, (str, bool)) for v in value):
            raise TypeError("not numbers")
        x, y = (float(v) for v in value)
    except (TypeError, ValueError, OverflowError):
        raise QueryError(f"{what} must be a point [x, y], got {value!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise QueryError(f"{what} must be a finite point, got {value!r}")
    return (x, y)


def _label(graph, node) -> str:
    width = getattr(graph, "width", None)
    if graph.kind == "grid" and width:
        return f"cell ({node % width}, {node // width})"
    word = {"navmesh": "polygon", "level": "polygon", "roads": "junction"}.get(graph.kind,
                                                                              "node")
    return f"{word} {node}"


def _json_id(graph_id):
    return graph_id if isinstance(graph_id, (str, int)) else repr(graph_id)
