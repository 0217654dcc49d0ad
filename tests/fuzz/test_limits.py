"""The size limits: the README's Limits table agrees with navcore/limits.py,
and each limit is a clear error before anything large is allocated, with
the world unchanged."""
import re
from pathlib import Path

import numpy as np
import pytest

import navcore
from navcore import limits
from navcore.graph import NavGraph

pytestmark = pytest.mark.nojit

README = Path(__file__).resolve().parents[2] / "README.md"
_ROW = re.compile(r"^\| `(\w+)`: (.+?) \| ([\d,.]+(?:e\d+)?)(?: \w+)? \| (.+?) \|$")


def _table():
    section = README.read_text().split("### Limits\n", 1)[1].split("\n## ", 1)[0]
    rows = [_ROW.match(line) for line in section.splitlines() if line.startswith("| `")]
    assert rows and all(rows), "every table row is | `NAME`: what | value | error |"
    return {m.group(1): (m.group(3).replace(",", ""), m.group(4)) for m in rows}


def test_table_lists_every_limit_with_its_value():
    table = _table()
    constants = {k: v for k, v in vars(limits).items() if k.isupper()}
    assert set(table) == set(constants)
    for name, (text, _) in table.items():
        assert float(text) == constants[name], name


def test_table_names_real_errors():
    for name, (_, errors) in _table().items():
        for err in re.findall(r"`(\w+Error)`", errors):
            assert issubclass(getattr(navcore, err), navcore.NavError), (name, err)


def test_node_ids_past_int32_are_capacity_errors():
    w = navcore.World()
    for params in (dict(src=[0], dst=[1], num_nodes=2 ** 31),
                   dict(src=[0], dst=[2 ** 31])):
        with pytest.raises(navcore.CapacityError, match="int32 node-id limit"):
            w.add_graph("x", type="csr", **params)
    assert w.graphs == {}


def test_a_graph_that_would_not_fit_in_memory_is_refused_before_allocating(monkeypatch):
    # 2**31 - 2 nodes fit int32 ids but would take ~200 GB: refused from
    # the estimate at once (this test would otherwise allocate 17 GB of offsets)
    monkeypatch.setattr(limits, "available_memory", lambda: 8 * 10 ** 9)
    w = navcore.World()
    with pytest.raises(navcore.CapacityError,
                       match=r"of 2147483646 nodes and 1 edges needs about 206.2 GB of memory; "
                             r"6.4 GB of the 8.0 GB available may be used"):
        w.add_graph("x", type="csr", src=[0], dst=[1], num_nodes=2 ** 31 - 2)
    with pytest.raises(navcore.CapacityError):
        NavGraph.from_edges([0], [1], num_nodes=10 ** 8)      # 9.6 GB > 6.4 GB
    assert w.graphs == {}
    g = NavGraph.from_edges([0], [1], num_nodes=1000)          # small graphs still build
    assert g.num_nodes == 1000


def test_memory_check_uses_the_estimate_and_the_fraction():
    n = 10 ** 6
    need = n * limits.BYTES_PER_NODE + 10 * limits.BYTES_PER_EDGE
    assert limits.graph_bytes(n, 10) == need
    limits.check_memory("x", need, available=int(need / limits.MEMORY_FRACTION) + 1)
    with pytest.raises(navcore.CapacityError):
        limits.check_memory("x", need, available=int(need / limits.MEMORY_FRACTION) - 10)


def test_available_memory_reads_the_system():
    avail = limits.available_memory()
    assert avail is None or avail > 0


def test_a_huge_grid_is_refused_before_its_padded_arrays(monkeypatch):
    monkeypatch.setattr(limits, "available_memory", lambda: 10 ** 6)
    w = navcore.World()
    with pytest.raises(navcore.CapacityError, match="a grid of 200 x 100 cells needs"):
        w.add_graph("g", type="grid", array=np.ones((100, 200), bool))
    assert w.graphs == {}


def test_scene_edge_arrays_naming_ten_million_nodes_are_a_scene_error(tmp_path):
    # dst: [10000000] built ten million isolated nodes (16 GB, 35 s in the
    # hierarchy's areas) before anything said it was a typo
    path = tmp_path / "big.yaml"
    path.write_text("graphs:\n  - id: net\n    type: csr\n    src: [0]\n"
                    "    dst: [10000000]\n")
    with pytest.raises(navcore.SceneError, match=r"big.yaml:5:10: .*dst names node 10000000"):
        navcore.load_scene(path)
    path.write_text("graphs:\n  - id: net\n    type: csr\n    src: [0, 1]\n"
                    "    dst: [1, 2]\n    num_nodes: 5000000\n")
    with pytest.raises(navcore.SceneError, match=r"big.yaml:6:16: .*num_nodes names node"):
        navcore.load_scene(path)
    path.write_text("graphs:\n  - id: net\n    type: csr\n    src: [0]\n    dst: [999]\n")
    assert navcore.load_scene(path).world.graph("net").num_nodes == 1000
