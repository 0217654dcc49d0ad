"""``navcore.view(world)`` from a game's own loop, in a real browser: a
crowd walks across a grid while the game ticks on its own thread; the
page shows it moving, pausing in the page holds the game's ``tick``
until play, and closing one of two pages leaves the other receiving
frames."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import navcore
from viewkit import Page

ROWS = ["." * 24] * 8


class Game:
    """A game's loop on its own thread: ``world.tick`` as fast as it
    goes (with a short rest), counting the ticks that returned."""

    def __init__(self, world, dt=0.05):
        self.world, self.dt = world, dt
        self.ticks = 0
        self.error = None
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        try:
            while not self.done.is_set():
                self.world.tick(self.dt)
                self.ticks += 1
                time.sleep(0.01)
        except BaseException as exc:              # noqa: BLE001 - the test reports it
            self.error = exc

    def stop(self):
        self.done.set()
        self.thread.join(10.0)
        assert not self.thread.is_alive(), "the game's tick never returned"
        assert self.error is None, self.error


@pytest.fixture
def game(browser):
    world = navcore.World()
    world.add_graph("yard", type="grid", rows=ROWS)
    crowd = world.add_crowd("walkers", graph="yard", radius=0.3)
    starts = [(0.5, 0.5 + 2 * k) for k in range(4)]
    crowd.add(starts, max_speed=2.0)
    crowd.set_goals(crowd.ids, [(23.5, 7.5 - 2 * k) for k in range(4)])
    viewer = navcore.view(world, open_browser=False)
    loop = Game(world)
    yield world, crowd, viewer, loop
    viewer.close()                                 # a paused tick returns
    loop.stop()
    world.close()


def test_a_crowd_walks_on_the_page_and_pause_holds_the_games_tick(game, browser):
    world, crowd, viewer, loop = game
    page = Page(browser, viewer)
    try:
        page.wait("V.agents === 4 && V.frame >= 3")
        a, pos_a = page.shot(), np.array(page.js("Array.from(V.pos)"))
        page.wait(f"V.frame >= {page.js('V.frame') + 8}")
        b, pos_b = page.shot(), np.array(page.js("Array.from(V.pos)"))
        assert pos_a.shape == pos_b.shape == (8,)
        assert np.abs(pos_a - pos_b).max() > 0.1, "the crowd did not move on the page"
        assert (a != b).any(), "the picture did not change while the crowd walked"

        page.pause()
        held = loop.ticks
        time.sleep(0.5)
        assert loop.ticks == held, "the game ticked while the page was paused"
        # the game is held inside tick: the page shows the crowd as it stands
        shown = np.array(page.js("Array.from(V.pos)")).reshape(-1, 2)
        assert np.allclose(shown, crowd.positions, atol=1e-4)
        frame = world.frame
        assert page.js("V.frame") == frame

        page.page.click("#step")
        # the held tick returns and the game's next tick is held showing its
        # frame; the number is taken before the click, since reading
        # world.frame after it races the step (it may still be the old one
        # while the page already shows the new)
        page.wait(f"V.frame === {frame + 1}")
        time.sleep(0.3)
        assert loop.ticks == held + 1, "step did not let exactly one tick through"
        assert world.frame == frame + 1 and page.js("V.frame") == frame + 1

        page.play()
        page.wait(f"V.frame >= {page.js('V.frame') + 5}")
        assert loop.ticks > held + 1, "play did not release the game"
        assert not page.errors, page.errors
    finally:
        page.close()


def test_closing_one_of_two_pages_leaves_the_other_running(game, browser):
    world, crowd, viewer, loop = game
    first, second = Page(browser, viewer), Page(browser, viewer)
    try:
        first.wait("V.frame >= 2")
        second.wait("V.frame >= 2")
        assert len(viewer.server.clients) == 2
        first.close()
        deadline = time.monotonic() + 10
        while len(viewer.server.clients) != 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(viewer.server.clients) == 1, "the closed page's socket stayed open"
        ticks = loop.ticks
        frame = second.js("V.frame")
        second.wait(f"V.frame >= {frame + 10}")
        assert loop.ticks > ticks and not second.js("V.closed")
        assert viewer.server.thread.is_alive() and loop.error is None
        assert not second.errors, second.errors
    finally:
        second.close()


def test_nothing_is_taken_while_no_page_watches_and_a_late_page_gets_it_all(browser):
    world = navcore.World()
    world.add_graph("yard", type="grid", rows=ROWS)
    crowd = world.add_crowd("walkers", graph="yard", radius=0.3)
    crowd.add([(0.5, 0.5), (0.5, 4.5)], max_speed=2.0)
    crowd.set_goals(crowd.ids, [(23.5, 7.5), (23.5, 1.5)])
    viewer = navcore.view(world, open_browser=False)
    try:
        taken = viewer.session.captures
        for _ in range(20):
            world.tick(0.05)
        assert viewer.session.captures == taken, "frames were taken for nobody"

        page = browser.new_page(viewport={"width": 1200, "height": 800}, bypass_csp=True)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(viewer.url)
        deadline = time.monotonic() + 10
        while not viewer.server.clients and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)
        # the page waits for the game's next tick: no stale map or frame before it
        assert page.evaluate("window.navcoreViewer.hello") is None
        assert page.evaluate("window.navcoreViewer.messages") == 0
        world.tick(0.05)
        page.wait_for_function("window.navcoreViewer.ready && window.navcoreViewer.hello",
                               timeout=10000)
        v = page.evaluate("({frame: window.navcoreViewer.frame, graph: "
                          "window.navcoreViewer.hello.graph, "
                          "pos: Array.from(window.navcoreViewer.pos)})")
        assert v["frame"] == world.frame == 21 and v["graph"] == "yard"
        assert np.allclose(np.reshape(v["pos"], (-1, 2)), crowd.positions, atol=1e-4)
        watched = viewer.session.captures
        world.tick(0.05)
        assert viewer.session.captures == watched + 1
        assert not errors, errors

        page.close()
        while viewer.server.clients and time.monotonic() < deadline:
            time.sleep(0.02)
        left = viewer.session.captures
        for _ in range(10):
            world.tick(0.05)
        assert viewer.session.captures == left, "frames were taken after the page closed"
    finally:
        viewer.close()
        world.close()
