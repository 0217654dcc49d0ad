"""The README's road example runs and prints what its comments say."""
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_road_example(capsys):
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Road networks.*?```python\n(.*?)```", text, re.S).group(1)
    here = os.getcwd()
    os.chdir(ROOT)                    # the example names scenes/maps/monaco.osm.gz
    try:
        exec(compile(block, "README.md", "exec"), {})
    finally:
        os.chdir(here)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "402 3002"
    assert out[1] == re.search(r"# (found .*?)  ", block).group(1).strip()
    assert out[2:] == ["ch", "bidijkstra", "cch True"]


def test_readme_isochrone_example(capsys):
    import textwrap
    text = (ROOT / "README.md").read_text()
    block = textwrap.dedent(re.search(r"\* Isochrones:.*?```python\n(.*?)```", text,
                                      re.S).group(1))
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        import navcore
        world = navcore.World()
        world.add_graph("monaco", type="roads", osm="scenes/maps/monaco.osm.gz")
        exec(compile(block, "README.md", "exec"), {"world": world})
    finally:
        os.chdir(here)
    out = capsys.readouterr().out.splitlines()
    comments = re.findall(r"# (\d[\d ]*?)  ", block)      # "153 29 179", "3 Polygon"
    assert out[0] == comments[0].strip()
    edges = re.search(r"(\d+) of the (\d+) part way", block)
    assert out[1] == f"{edges.group(2)} {edges.group(1)}"
    assert out[2] == "3 Polygon"
