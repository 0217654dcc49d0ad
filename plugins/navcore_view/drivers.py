"""Who ticks the world a viewer shows, and where the page's requests run.

Every read of the world and every query a page asks for runs on the
thread that ticks it, between two frames, so a viewer never races the
frame's updates:

* ``SceneDriver`` plays a ``navcore.Simulation`` on its own thread
  (``navcore view SCENE.yaml``): a frame every ``dt / speed`` seconds
  while playing, none while paused, exactly one for "step"; the page's
  requests run between frames. The scene ends after its
  ``settings.frames`` (or ``frames``).
* ``WorldDriver`` hooks a game's own world (``navcore.view(world)``):
  at the end of each ``world.tick`` (``navcore_frame_end``, on the game's
  thread) it takes the frame and runs the page's waiting requests; while
  the page has it paused, ``tick`` stays there (serving requests) until
  play, step or the viewer closes.

A request is a dict from the page (``{"op": ...}``); ``submit`` queues
it with a function that takes the reply (called on the driver's thread).
"""
from __future__ import annotations

import queue
import threading
import time

import navcore
from navcore.errors import NavError, QueryError

#: the speeds a page may choose (times the scene's own pace)
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
#: a paused driver looks at its queue this often (seconds)
POLL_S = 0.05
#: a playing scene rests at least this long between frames (seconds), even
#: when it is behind its pace: the server's thread needs the interpreter
#: lock many times per message, and a driver that never sleeps starves it
#: (the page would see a frame a second on a loaded machine)
REST_S = 0.01


class Driver:
    """The requests both drivers answer."""

    def __init__(self, session, playing: bool):
        self.session = session
        self.playing = playing
        self.speed = 1.0
        self.steps = 0                       # frames "step" asked for, still to play
        self.stopping = threading.Event()
        self.requests: queue.Queue = queue.Queue()
        self.error = None                    # what ended the run, when something failed

    def submit(self, request, reply) -> None:
        """Queue a page's ``request``; ``reply(answer)`` is called on the
        driver's thread. Thread-safe."""
        self.requests.put((request, reply))

    def stop(self) -> None:
        self.stopping.set()
        self.requests.put((None, None))      # wakes a driver waiting on its queue

    def disconnected(self, clients_left: int) -> None:
        """A page closed, ``clients_left`` are still open."""

    def control(self) -> dict:
        return {"type": "control", "playing": self.playing, "speed": self.speed,
                "frame": self.session.frame, "ended": self.session.ended}

    def serve(self, timeout: float | None) -> None:
        """Answer the queued requests, waiting up to ``timeout`` seconds for
        the first (``None``: do not wait)."""
        try:
            item = self.requests.get(timeout=timeout) if timeout else \
                self.requests.get_nowait()
        except queue.Empty:
            return
        while True:
            request, reply = item
            if request is not None:
                try:
                    answer = self.answer(request)
                except Exception as exc:        # a page must never break the game's tick
                    answer = {"type": "error", "op": request.get("op") if
                              isinstance(request, dict) else None,
                              "message": f"the viewer failed on this request: "
                                         f"{type(exc).__name__}: {exc}"}
                reply(answer)
            try:
                item = self.requests.get_nowait()
            except queue.Empty:
                return

    def answer(self, request) -> dict:
        op = request.get("op") if isinstance(request, dict) else None
        try:
            if op == "play":
                self.playing, self.steps = True, 0
                return self.control()
            if op == "pause":
                self.playing = False
                self.session.draw_map(force=True)
                self.session.capture(self.last_stats, playing=False)
                return self.control()
            if op == "step":
                self.playing = False
                self.steps += 1
                return self.control()
            if op == "speed":
                value = request.get("value")
                if value not in SPEEDS:
                    raise QueryError(f"speed must be one of {', '.join(map(str, SPEEDS))}, "
                                     f"got {value!r}")
                self.speed = float(value)
                return self.control()
            if op == "path":
                return self.session.path(request.get("from"), request.get("to"),
                                         request.get("algorithm", "auto"))
            if op == "refresh":
                greeting = self.session.refresh(self.last_stats, self.playing)
                return self.control() | greeting
            if op == "info":
                return self.session.info(request.get("node"))
            if op == "options":
                opts = {k: v for k, v in request.items() if k not in ("op", "id")}
                self.session.set_options(opts)
                self.session.capture(self.last_stats, playing=self.playing)
                return {"type": "options", "options": self.session.options}
            if op == "graph":
                wanted = request.get("id")
                match = [g for g in self.session.graph_ids() if g == wanted or
                         repr(g) == wanted]
                if not match:
                    raise QueryError(f"no graph {wanted!r} to show")
                self.session.select(match[0])
                self.session.capture(self.last_stats, playing=self.playing)
                return self.session.greet()
            raise QueryError(f"unknown request {op!r}")
        except NavError as exc:
            return {"type": "error", "op": op, "message": exc.message}

    last_stats = None


class SceneDriver(Driver):
    """Plays ``sim`` on its own thread; ``frames`` (default: the scene's
    ``settings.frames``) end it. Paused until the first page connects
    unless ``playing``."""

    def __init__(self, session, sim, frames=None, playing=False):
        super().__init__(session, playing)
        self.sim = sim
        self.frames = sim.scene.settings.frames if frames is None else int(frames)
        self.dt = sim.scene.settings.dt
        self.on_end = []                      # called (no arguments) when the run ends
        self.thread = threading.Thread(target=self._run, name="navcore-view-scene",
                                       daemon=True)

    def start(self) -> None:
        self.session.greet()
        self.session.capture(None, playing=self.playing, always=True)
        self.thread.start()

    def connected(self) -> None:
        """A page connected: a run waiting for its first page starts."""
        if not getattr(self, "_started_by_page", False):
            self._started_by_page = True
            if not self.playing and self.sim.frame == 0 and self.autoplay:
                self.submit({"op": "play"}, lambda answer: None)

    autoplay = True

    def _run(self) -> None:
        next_at = time.perf_counter()
        try:
            while not self.stopping.is_set():
                now = time.perf_counter()
                wait = POLL_S if not (self.playing or self.steps) else \
                    max(REST_S, min(POLL_S, next_at - now))
                self.serve(wait)
                if self.stopping.is_set():
                    break
                now = time.perf_counter()
                if self.steps or (self.playing and now >= next_at):
                    if self.sim.frame >= self.frames:
                        self.session.ended = "the scene ended"
                        self.playing = False
                        self.session.capture(self.last_stats, playing=False)
                        break
                    self.last_stats = self.sim.step()
                    if self.steps:
                        self.steps -= 1
                    next_at = max(next_at + self.dt / self.speed, now - self.dt)
                    self.session.capture(self.last_stats,
                                         playing=self.playing and not self.steps)
                elif not self.playing and self.session.map_pending():
                    self.session.draw_map(force=True)
                    self.session.capture(self.last_stats, playing=False)
        except NavError as exc:
            self.error = exc
            self.session.ended = f"the scene failed: {exc}"
            self.session.capture(self.last_stats, playing=False)
        finally:
            for call in list(self.on_end):
                call()


class WorldDriver(Driver):
    """Hooks ``world``'s frames: registered on its plugins, taken out by
    ``stop``."""

    def __init__(self, session, world):
        super().__init__(session, True)
        self.world = world
        self.thread = None

    def start(self) -> None:
        """Take the world's frames from now on (registered here, once the
        server runs, so a viewer refused before leaves no hook behind)."""
        self.session.greet()
        self.session.capture(None, playing=True, always=True)
        self.world.plugins.register(self, name=f"navcore_view_{id(self):x}")

    def disconnected(self, clients_left: int) -> None:
        """The last page closed: a game it had paused goes on."""
        if clients_left == 0:
            self.submit({"op": "play"}, lambda answer: None)

    def connected(self) -> None:
        pass

    def stop(self) -> None:
        super().stop()
        try:
            self.world.plugins.unregister(self)
        except (NavError, ValueError):
            pass

    @navcore.hookimpl
    def navcore_frame_end(self, world, frame, stats):
        if world is not self.world or self.stopping.is_set():
            return
        self.last_stats = stats
        if not self._showable():
            return
        self.session.capture(stats, playing=self.playing)
        self.serve(None)
        if self.steps:
            self.steps -= 1
            self.session.capture(stats, playing=False)
            return
        while not self.playing and not self.steps and not self.stopping.is_set():
            self.serve(POLL_S)
            if self.session.map_pending():
                self.session.draw_map(force=True)
                self.session.capture(stats, playing=False)
        if self.steps:
            self.steps -= 1

    def _showable(self) -> bool:
        """Whether the shown graph is still the world's: one removed or
        replaced makes the viewer show another graph (or, with none left,
        tell the page), never an error in the game's tick."""
        graph = self.world.graphs.get(self.session.graph_id)
        if graph is self.session.graph:
            return True
        ids = self.session.graph_ids()
        if not ids:
            self.session.ended = "the world has no graph left to show"
            self.session.publish()
            return False
        self.session.select(self.session.graph_id if graph is not None else ids[0])
        self.session.greet()
        return True

