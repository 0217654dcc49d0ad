"""Every MovingAI scenario in ../shared/data solved optimally by A* and JPS.

The default run solves a spread subset of each file; ``-m slow`` runs all.
"""
import json
import subprocess
import sys

import numpy as np
import pytest

from conftest import MOVINGAI
from navcore_grid import run_scenarios

SCENS = sorted(MOVINGAI.glob("*.scen")) if MOVINGAI.is_dir() else []
needs_data = pytest.mark.skipif(not SCENS, reason=f"MovingAI data not found at {MOVINGAI} "
                                                  f"(../shared is not beside the repo)")


@needs_data
@pytest.mark.parametrize("scen", SCENS, ids=lambda p: p.name.split(".")[0])
@pytest.mark.parametrize("algorithm", ["astar", "jps"])
def test_scenario_subset(scen, algorithm):
    report = run_scenarios(scen, algorithm=algorithm, limit=None if "arena" in scen.name
                           else 150)
    assert report["mismatches"] == 0, report["mismatch_examples"]


@needs_data
@pytest.mark.parametrize("scen", [p for p in SCENS if p.name.split(".")[0] in
                                  ("random512-40-0", "maze512-4-0", "den312d", "Berlin_0_256")],
                         ids=lambda p: p.name.split(".")[0])
@pytest.mark.parametrize("algorithm", ["astar", "jps"])
def test_scenario_subset_with_landmarks(scen, algorithm):
    report = run_scenarios(scen, algorithm=algorithm, limit=120, landmarks=6)
    assert report["mismatches"] == 0, report["mismatch_examples"]


@needs_data
@pytest.mark.slow
@pytest.mark.parametrize("scen", SCENS, ids=lambda p: p.name.split(".")[0])
@pytest.mark.parametrize("algorithm", ["astar", "jps"])
@pytest.mark.parametrize("landmarks", [None, 8], ids=["octile", "landmarks8"])
def test_scenario_all_queries(scen, algorithm, landmarks):
    report = run_scenarios(scen, algorithm=algorithm, landmarks=landmarks)
    assert report["queries"] > 100 and report["mismatches"] == 0, \
        report["mismatch_examples"]


@needs_data
def test_cli_reports_and_fails_on_a_wrong_optimal(tmp_path):
    src = MOVINGAI / "arena.map.scen"
    ok = subprocess.run([sys.executable, "-m", "navcore", "scen", str(src),
                         "--json", str(tmp_path / "r.json")],
                        capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert "160 queries, algorithm auto, 0 mismatches" in ok.stdout
    assert json.loads((tmp_path / "r.json").read_text())["queries"] == 160
    lines = src.read_text().splitlines()
    fields = lines[5].split("\t")
    fields[8] = str(float(fields[8]) + 1.0)
    lines[5] = "\t".join(fields)
    bad = tmp_path / "arena.map.scen"
    bad.write_text("\n".join(lines) + "\n")
    out = subprocess.run([sys.executable, "-m", "navcore", "scen", str(bad),
                          "--maps", str(MOVINGAI), "--algorithm", "jps"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 1
    assert "1 mismatches" in out.stdout and "line 6:" in out.stdout
    missing = subprocess.run([sys.executable, "-m", "navcore", "scen", str(bad)],
                             capture_output=True, text=True, timeout=300)
    assert missing.returncode == 2 and "not found next to the scenario" in missing.stderr
