"""``navcore_dask.connect`` and the client checks, without a cluster."""
import pytest

import navcore
import navcore_dask

pytest.importorskip("dask.distributed")


@pytest.mark.nojit
@pytest.mark.parametrize("address, words", [
    (42, "scheduler address"), ("", "empty"), ("   ", "empty"),
    ("tcp://127.0.0.1:1", "no Dask scheduler answered"),
    ("nonsense://x", "no Dask scheduler answered")])
def test_bad_address_is_a_cluster_error(address, words):
    with pytest.raises(navcore_dask.ClusterError, match=words) as err:
        navcore_dask.connect(address, timeout=2)
    assert isinstance(err.value, navcore.NavError)


@pytest.mark.nojit
@pytest.mark.parametrize("kw, words", [
    ({"timeout": 0}, "timeout"), ({"timeout": True}, "timeout"),
    ({"n_workers": 0}, "n_workers"), ({"threads_per_worker": 1.5}, "threads_per_worker")])
def test_bad_options_are_refused_before_a_cluster_starts(kw, words):
    with pytest.raises(navcore_dask.ClusterError, match=words):
        navcore_dask.connect(**kw)


@pytest.mark.nojit
def test_a_client_is_needed():
    g = navcore.NavGraph.from_edges([0], [1])
    for bad in (None, "tcp://127.0.0.1:8786", object()):
        with pytest.raises(navcore_dask.ClusterError, match="dask.distributed.Client"):
            navcore_dask.distance_matrix(bad, g, [0], [1])


SCRIPT = """
import navcore, navcore_dask
def main():
    world = navcore.World()
    g = world.add_graph("g", type="csr", src=[0, 1], dst=[1, 2], cost=[1.0, 2.0])
    with navcore_dask.connect(n_workers=1, timeout=60) as client:
        print(navcore_dask.distance_matrix(client, g, [0], [2]).tolist())
"""


def _run_script(tmp_path, text):
    import subprocess
    import sys
    script = tmp_path / "game.py"
    script.write_text(text)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)


def test_an_unguarded_script_is_told_to_add_the_main_guard(tmp_path):
    """A script that connects at its top level: each worker process imports
    it again; the worker's connect() and the script's both say why."""
    out = _run_script(tmp_path, SCRIPT + "main()\n")
    assert out.returncode != 0
    assert "ClusterError" in out.stderr
    assert "if __name__ == \"__main__\":" in out.stderr.splitlines()[-1]
    assert "while a worker process was starting" in out.stderr


def test_the_guarded_script_of_the_readme_runs(tmp_path):
    """The README's example has the guard, and a script shaped like it runs."""
    import re
    from pathlib import Path
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    start = readme.index("## Dask: matrices")
    block = re.search(r"```python\n(.*?)```", readme[start:], re.S).group(1)
    assert "\nif __name__ == \"__main__\":" in block and "\ndef main():" in block
    out = _run_script(tmp_path, SCRIPT + "if __name__ == '__main__':\n    main()\n")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[[3.0]]"
