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
