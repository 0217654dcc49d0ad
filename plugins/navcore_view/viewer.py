"""``Viewer``: a running viewer (its session, driver and server), and the
two ways to start one: ``view_world`` (``navcore.view``) and
``view_scene`` (``navcore view SCENE.yaml``)."""
from __future__ import annotations

import threading
import webbrowser

from navcore import validate
from navcore.errors import QueryError

from .drivers import SceneDriver, WorldDriver
from .server import Server
from .session import Session


class Viewer:
    """A viewer that is running: ``url`` (with its token), ``session``
    (what it shows), ``close()``; ``wait()`` blocks until a scene's run
    ends or ``close``. A ``with`` block closes it."""

    def __init__(self, session, driver, port):
        self.session, self.driver = session, driver
        self.server = Server(session, driver, port)
        self._closed = threading.Event()
        self._closing = threading.Lock()
        self.server.start()
        driver.start()

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def token(self) -> str:
        return self.server.token

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the run to end (a scene's last frame, ``close``);
        returns whether it did within ``timeout`` seconds."""
        return self._closed.wait(timeout)

    def close(self) -> None:
        """Stop the driver (a paused ``tick`` returns) and the server."""
        with self._closing:                 # a second caller waits for the first
            if self._closed.is_set():
                return
            self.driver.stop()
            thread = getattr(self.driver, "thread", None)
            if thread is not None and thread is not threading.current_thread() \
                    and thread.is_alive():
                thread.join(10.0)
            self.server.stop()
            self._closed.set()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        return f"<navcore viewer {self.url}>"


def view_world(world, graph_id=None, port=None, open_browser=True) -> Viewer:
    """``navcore.view``: show ``world`` while its game ticks it."""
    open_browser = validate.boolean(open_browser, "open_browser", QueryError)
    session = Session(world, graph_id)
    viewer = Viewer(session, WorldDriver(session, world), port)
    _open(viewer, open_browser)
    return viewer


def view_scene(sim, graph_id=None, port=None, open_browser=False, frames=None,
               autoplay=True) -> Viewer:
    """Play ``sim`` (a ``navcore.Simulation``) on its own thread and show
    it; it starts when the first page connects (``autoplay``) and the
    server stops when the scene ends (after ``frames``, by default its
    ``settings.frames``)."""
    session = Session(sim.world, graph_id, sim=sim)
    driver = SceneDriver(session, sim, frames)
    driver.autoplay = bool(autoplay)
    viewer = Viewer(session, driver, port)
    driver.on_end.append(lambda: threading.Thread(target=viewer.close, daemon=True).start())
    _open(viewer, open_browser)
    return viewer


def _open(viewer, open_browser) -> None:
    if open_browser:
        webbrowser.open(viewer.url)
