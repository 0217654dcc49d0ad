"""The quickstart and the README's code run and print what they claim."""
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def test_quickstart_runs():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "quickstart.py")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "0 -> 5: found, cost 280 m, via [0, 1, 4, 5]" in out.stdout
    assert "after closing 1-2: cost 360 m" in out.stdout
    assert "dungeon (0,0) -> (4,5): found, cost 11.000, jps" in out.stdout
    assert ".#.#*##.#." in out.stdout                      # the path through the door
    assert "after closing the door at (4,3): unreachable" in out.stdout


def test_readme_python_example(capsys):
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```python\n(import numpy.*?)```", text, re.S).group(1)
    exec(compile(block, "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["found 2.0 [0 1 3]", "[0 2 3]"]


def test_readme_areas_example(capsys):
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```python\n(import navcore\n\nworld = navcore.World\(\)\n"
                      r"world.add_graph\(\"dungeon\".*?)```", text, re.S).group(1)
    exec(compile(block, "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["True", "False", "unreachable", "0 1",
                     "[ 0  0  0  0 -1  1  1  1  1]", "[ True False]", "3"]


def test_readme_frames_example(capsys):
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```python\n(import navcore\n\n# a whole 60 fps frame.*?)```",
                      text, re.S).group(1)
    exec(compile(block, "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["guard: found", "guard: unreachable", "guard: found", "2 1"]


def test_readme_game_loop_example(capsys):
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```python\n(import navcore\n\nworld = navcore.World\(frame_budget_ms=2.0\)"
                      r".*?)```", text, re.S).group(1)
    exec(compile(block, "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    # 4 diagonals and 5 straight moves round the wall: 5 + 4 * sqrt(2)
    assert lines == ["1 1 found 10.657", "[0.5, 2.5] [9.5, 2.5] 10", "unreachable 1",
                     "found 2 True"]


def _game_loop_block():
    text = (ROOT / "README.md").read_text()
    return re.search(r"```python\n(import navcore\n\nworld = navcore.World\(frame_budget_ms=2.0\)"
                     r".*?)```", text, re.S).group(1)


def test_readme_game_loop_example_on_a_cold_cache(tmp_path):
    # a machine's first run: numba compiles every kernel (an empty cache
    # directory), and still no frame slips, because add_graph compiles
    # what the frames will run before the loop starts
    script = tmp_path / "game_loop.py"
    script.write_text(_game_loop_block())
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=600, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.splitlines() == ["1 1 found 10.657", "[0.5, 2.5] [9.5, 2.5] 10",
                                       "unreachable 1", "found 2 True"]


def test_readme_scene_example(tmp_path, capsys):
    import navcore
    from navcore.cli import main

    text = (ROOT / "README.md").read_text()
    scene = tmp_path / "keep.yaml"
    scene.write_text(re.search(r"```yaml\n(name: keep\n.*?)```", text, re.S).group(1))
    assert main(["validate", str(scene)]) == 0
    with navcore.Simulation.from_file(scene) as sim:
        summary = sim.run()
    # the wall at x = 11 has one gap, the gate: closing it splits the keep
    assert [(e["frame"], e["areas_before"], e["areas_after"]) for e in summary["events"]] \
        == [(60, 1, 2), (120, 2, 2), (160, 2, 1), (200, 1, 1), (300, 1, 1)]
    states = {a["id"]: a["state"] for a in summary["per_agent"]}
    # agents walk as discs: the scout stops within its radius of the cell's centre
    assert states["scout"] == "arrived"
    assert np.hypot(*(sim.agents.pos[1] - [0.5, 0.5])) <= sim.agents.radius[1]
    assert all(states[f"peasant-{k}"] == "arrived" for k in range(20))
    assert summary["agents"]["total"] == 22


def test_readme_corridors_example(capsys):
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```python\n(import navcore\nfrom navcore_csr import simplify\n.*?)```",
                      text, re.S).group(1)
    exec(compile(block, "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["2 240 8191", "simplified True", "unreachable True"]


def test_readme_contraction_example(capsys):
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```python\n(import navcore\nimport numpy as np\nfrom navcore_csr "
                      r"import contract.*?)```", text, re.S).group(1)
    exec(compile(block, "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["ch True True", "True", "False jps"]


def test_readme_sliced_search_example(capsys):
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```python\n(import navcore\n\nworld = navcore.World\(\)\n"
                      r"world.add_graph\(\"g\".*?)```", text, re.S).group(1)
    exec(compile(block, "README.md", "exec"), {})
    assert capsys.readouterr().out.splitlines() == ["5 11.0", "partial [0 1 2 3 4]"]
