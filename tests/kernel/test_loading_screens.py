"""Loading screens: ``World(on_progress=)``, ``World.warm_up(progress=)``,
``navcore.warm_up`` and ``navcore warm-up`` report how a warm-up goes, and
``World.warm_up`` after ``navcore_roads.contract`` loads the hierarchies'
query kernels (no query pays for them afterwards)."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import navcore

from hooktags import exercises

ROOT = Path(__file__).resolve().parents[2]
JIT_OFF = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


def _ring(world, gid):
    return world.add_graph(gid, type="csr", src=[0, 1, 2], dst=[1, 2, 0], cost=[1.0] * 3)


def _steps_only(seen):
    return [(d, t, n) for d, t, n in seen if not n.startswith("compiling ")]


def _counts_up_to_the_total(seen):
    done = [d for d, _, _ in seen]
    totals = {t for _, t, _ in seen}
    return len(totals) == 1 and done == sorted(done) and done[-1] == totals.pop()


def test_add_graph_reports_each_plugin_warm_up_ending_at_the_total():
    seen = []
    world = navcore.World(on_progress=lambda *a: seen.append(a))
    _ring(world, "ring")
    steps = _steps_only(seen)
    plugins = [n.split(":")[0] for _, _, n in steps]
    assert "csr" in plugins and "scheduler" in plugins
    assert [d for d, _, _ in steps] == list(range(1, len(steps) + 1))
    assert _counts_up_to_the_total(seen)
    assert all(n.endswith("graph 'ring'") for _, _, n in steps)


def test_world_warm_up_over_several_graphs_counts_them_all():
    world = navcore.World(warm_up=False)
    _ring(world, "a")
    _ring(world, "b")
    seen = []
    world.warm_up(progress=lambda *a: seen.append(a))
    steps = _steps_only(seen)
    assert _counts_up_to_the_total(seen) and steps[-1][0] == steps[-1][1]
    assert {n.split("graph ")[1] for _, _, n in steps} == {"'a'", "'b'"}
    assert len(steps) % 2 == 0                        # the same plugins for each


def test_progress_must_be_callable():
    with pytest.raises(navcore.FrameError, match="on_progress"):
        navcore.World(on_progress=3)
    world = navcore.World()
    with pytest.raises(navcore.FrameError, match="progress"):
        world.warm_up(progress="bar")


@exercises("navcore_sample_graph")
def test_navcore_warm_up_builds_and_warms_each_type_named():
    seen = []
    took = navcore.warm_up(["csr", "grid"], progress=lambda *a: seen.append(a))
    assert list(took) == ["csr", "grid"] and all(s >= 0 for s in took.values())
    assert _steps_only(seen) == [(1, 2, "csr"), (2, 2, "grid")]
    assert _counts_up_to_the_total(seen)
    with pytest.raises(navcore.UnknownGraphTypeError, match="'hexes'.*csr, grid"):
        navcore.warm_up("hexes")
    with pytest.raises(navcore.PluginError, match="progress"):
        navcore.warm_up("csr", progress=1)


class RingPlugin:
    """A graph type without a sample graph."""

    @navcore.hookimpl
    def navcore_graph_types(self):
        def build(world, graph_id):
            return navcore.NavGraph.from_edges([0, 1], [1, 0], world=world)
        return {"ring": build}


def test_a_type_without_a_sample_graph_is_skipped_unless_named():
    seen = []
    took = navcore.warm_up(None, plugins=[RingPlugin()], autoload=False,
                           progress=lambda *a: seen.append(a))
    assert took["ring"] is None and took["csr"] is not None
    assert (took and _steps_only(seen)[-1][0] == len(took))
    assert any("ring (no sample graph" in n for _, _, n in seen)
    with pytest.raises(navcore.PluginError, match="no sample graph of type 'ring'"):
        navcore.warm_up(["ring"], plugins=[RingPlugin()], autoload=False)


def test_cli_warm_up_command_runs():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "plugins")]))
    out = subprocess.run([sys.executable, "-m", "navcore", "warm-up", "csr"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("csr: ") and "warmed up csr (1/1)" in out.stderr
    bad = subprocess.run([sys.executable, "-m", "navcore", "warm-up", "hexes"], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=600)
    assert bad.returncode == 2 and "unknown graph type 'hexes'" in bad.stderr


PROBE = """
import gc, json, sys
import numpy as np
from numba.core.dispatcher import Dispatcher
import navcore, navcore_roads

def signatures():
    return {f"{d.py_func.__module__}.{d.py_func.__qualname__}": len(d.signatures)
            for d in gc.get_objects() if isinstance(d, Dispatcher)}

world = navcore.World()
g = world.add_graph("r", type="roads", osm=sys.argv[1])
navcore_roads.contract(g)
c = world.add_graph("c", type="roads", osm=sys.argv[1])
navcore_roads.contract(c, customizable=True)
world.warm_up()
before = signatures()
s, t = np.arange(0, 40, 2), np.arange(1, 41, 2)
for gid, algorithm in (("r", "ch"), ("c", "cch")):
    world.find_path(gid, 0, g.num_nodes - 1, algorithm=algorithm)
    world.distance_matrix(gid, s, t)
    world.distance_matrix(gid, s, t[:3])
    world.distance_pairs(gid, s, t)
loaded = {k: n - before.get(k, 0) for k, n in signatures().items() if n != before.get(k, 0)}
print(json.dumps(loaded))
world.scheduler.close()
"""


@pytest.mark.skipif(JIT_OFF, reason="no numba dispatchers without the JIT")
def test_world_warm_up_after_contract_loads_the_hierarchy_kernels(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text(textwrap.dedent(PROBE))
    out = subprocess.run([sys.executable, str(path),
                          str(ROOT / "scenes" / "maps" / "monaco.osm.gz")],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded == {}, f"kernels loaded by the first hierarchy queries: {loaded}"


def test_readme_shipping_example(capsys):
    import re
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Shipping a game with navcore.*?```python\n(.*?)```", text,
                      re.S).group(1)
    scope = {}
    exec(compile(block, "README.md", "exec"), scope)
    shown = capsys.readouterr().out.split("\r")
    assert shown[-1].startswith("2/2 roads")
    scope["world"].scheduler.close()
