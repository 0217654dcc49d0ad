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
