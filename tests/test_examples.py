"""The quickstart and the README's code run and print what they claim."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
    block = re.search(r"```python\n(import navcore\n\nworld = navcore.World\(workers=2.*?)```",
                      text, re.S).group(1)
    exec(compile(block, "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["guard: found", "guard: unreachable", "guard: found", "2 1"]
