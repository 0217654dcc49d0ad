"""The README's navmesh example runs and prints what it claims."""
import re
from pathlib import Path

import pytest

# small meshes: the kernels also run as plain Python (make test-nojit)
pytestmark = pytest.mark.nojit

ROOT = Path(__file__).resolve().parents[2]


def test_readme_navmesh_example(capsys):
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Navmeshes.*?```python\n(.*?)```", text, re.S).group(1)
    exec(compile(block, "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    claimed = re.findall(r"^# (.*)$", block, re.M)      # what each print shows
    assert claimed[0].startswith("found") and out == claimed
