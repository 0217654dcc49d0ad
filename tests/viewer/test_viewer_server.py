"""The viewer's server without a browser: token and Host checks (403),
``navcore view`` ending cleanly when the scene ends and on Ctrl-C, and
``navcore.view`` refusing what is not a world."""
from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import navcore
from hooktags import exercises

pytest.importorskip("aiohttp") if not os.environ.get("NAVCORE_REQUIRE_PEERS") else None

ROOT = Path(__file__).resolve().parents[2]
SCENE = """
settings: {dt: 0.05, frames: 8}
graphs: [{id: hall, type: grid, rows: ["........", "........", "........"]}]
agents: [{id: a, start: [0, 0], goal: [7, 2], speed: 4}]
"""


def _get(port, path, host=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", path, headers={"Host": host or f"127.0.0.1:{port}"})
    r = c.getresponse()
    return r.status, r.read()


@exercises("navcore_view")
def test_requests_without_the_token_or_from_elsewhere_are_refused():
    world = navcore.World()
    world.add_graph("g", type="grid", rows=["....", "...."])
    with navcore.view(world, open_browser=False) as v:
        parts = urlsplit(v.url)
        port, token = parts.port, v.token
        assert parts.hostname == "127.0.0.1"
        assert _get(port, f"/?token={token}")[0] == 200
        assert _get(port, f"/viewer.js?token={token}")[0] == 200
        assert _get(port, "/")[0] == 403
        assert _get(port, "/?token=wrong")[0] == 403
        assert _get(port, f"/ws?token=x{token}")[0] == 403
        assert _get(port, "/favicon.ico")[0] == 403
        # a name rebound onto 127.0.0.1 by another site: refused by Host
        assert _get(port, f"/?token={token}", host=f"evil.example:{port}")[0] == 403
    with pytest.raises(navcore.QueryError, match="needs a navcore.World"):
        navcore.view("not a world")
    with pytest.raises(navcore.UnknownGraphError):
        navcore.view(world, "nope", open_browser=False)


def _cli(tmp_path, *args):
    scene = tmp_path / "hall.yaml"
    scene.write_text(SCENE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen([sys.executable, "-m", "navcore", "view", str(scene),
                             "--no-browser", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def _url(proc) -> str:
    line = proc.stdout.readline()
    assert " at http://127.0.0.1:" in line, line
    return line.split(" at ", 1)[1].strip()


def test_navcore_view_ends_when_the_scene_ends(tmp_path, browser):
    proc = _cli(tmp_path)
    try:
        url = _url(proc)
        page = browser.new_page()
        page.goto(url)                   # the first page starts the scene
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert "ended after 8 frames" in out
        assert "Traceback" not in err
        page.wait_for_function("window.navcoreViewer.ended !== null", timeout=10000)
        page.close()
    finally:
        proc.kill()


def test_navcore_view_stops_on_ctrl_c(tmp_path):
    proc = _cli(tmp_path, "--paused")
    try:
        _url(proc)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert "interrupted after 0 frames" in err and "Traceback" not in err
    finally:
        proc.kill()


def _viewed_world():
    world = navcore.World()
    world.add_graph("g", type="grid", rows=["......", "......"])
    world.add_graph("h", type="grid", rows=["....", "...."])
    return world, navcore.view(world, "g", open_browser=False)


def _hooked(world):
    return [name for name in world.plugins.names() if str(name).startswith("navcore_view_")]


@exercises("navcore_view")
def test_bad_page_requests_are_answered_with_errors_and_the_game_ticks_on():
    world, viewer = _viewed_world()
    try:
        answers = []
        for request in ({"op": "options", "self": True},
                        {"op": "path", "from": [10 ** 400, 0], "to": [1, 1]},
                        {"op": "path", "from": "12", "to": [1, 1]},
                        {"op": "path", "from": [True, 0], "to": [1, 1]},
                        {"op": "nonsense"}, ["not", "a", "dict"]):
            viewer.driver.submit(request, answers.append)
        world.tick(0.05)                       # the requests are answered at its end
        assert len(answers) == 6
        assert all(a["type"] == "error" for a in answers), answers
        viewer.driver.submit({"op": "path", "from": [0.5, 0.5], "to": [5.5, 1.5]},
                             answers.append)
        world.tick(0.05)
        want = world.find_path("g", (0.5, 0.5), (5.5, 1.5))
        assert answers[-1]["cost"] == pytest.approx(want.cost)
    finally:
        viewer.close()


@exercises("navcore_view")
def test_removing_the_shown_graph_shows_another_and_never_breaks_tick():
    world, viewer = _viewed_world()
    try:
        world.remove_graph("g")
        world.tick(0.05)
        assert viewer.session.graph_id == "h"
        assert viewer.session.greeting["graph"] == "h"
        world.add_graph("h2", type="grid", rows=["........"] * 4)
        world.remove_graph("h")
        world.add_graph("h", type="grid", rows=["..", ".."])     # same id, new graph
        world.tick(0.05)
        assert viewer.session.graph is world.graph(viewer.session.graph_id)
        for g in list(world.graphs):
            world.remove_graph(g)
        world.tick(0.05)
        assert viewer.session.ended
    finally:
        viewer.close()


@exercises("navcore_view")
def test_a_refused_view_leaves_no_hook_and_a_closed_one_takes_its_hook_away():
    world = navcore.World()
    world.add_graph("g", type="grid", rows=["...."])
    for port in (-1, "80", True):
        with pytest.raises(navcore.QueryError):
            navcore.view(world, port=port, open_browser=False)
    assert _hooked(world) == []
    viewer = navcore.view(world, open_browser=False)
    assert len(_hooked(world)) == 1
    viewer.close()
    assert _hooked(world) == []


@exercises("navcore_view")
def test_the_last_page_closing_resumes_a_game_it_paused():
    import threading
    world, viewer = _viewed_world()
    try:
        viewer.driver.submit({"op": "pause"}, lambda a: None)
        ticked = threading.Event()

        def game():
            world.tick(0.05)                   # held here by the pause
            world.tick(0.05)
            ticked.set()
        t = threading.Thread(target=game, daemon=True)
        t.start()
        assert not ticked.wait(0.3)
        viewer.driver.disconnected(0)
        assert ticked.wait(10.0)
    finally:
        viewer.close()

def test_navcore_view_stops_on_ctrl_c_while_loading(tmp_path):
    # a plugin whose import takes long: Ctrl-C lands while the scene loads
    (tmp_path / "slow_to_load.py").write_text(
        "import sys, time\nprint('loading', flush=True)\ntime.sleep(60)\n")
    scene = tmp_path / "hall.yaml"
    scene.write_text(SCENE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    proc = subprocess.Popen([sys.executable, "-m", "navcore", "view", str(scene),
                             "--no-browser", "--plugin", "slow_to_load"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout.readline().strip() == "loading"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert "Traceback" not in err and "http://" not in out
        assert err.strip().splitlines()[-1] == f"navcore view: interrupted while loading {scene}"
    finally:
        proc.kill()
