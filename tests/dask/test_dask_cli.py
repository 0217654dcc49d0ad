"""``navcore roads FILE --matrix N --dask [ADDRESS]``."""
import json
from pathlib import Path

import pytest

from daskcluster import local_cluster

from navcore.cli import main

pytest.importorskip("dask.distributed")
MONACO = str(Path(__file__).resolve().parents[2] / "scenes" / "maps" / "monaco.osm.gz")


def _matrix(capsys, *extra):
    assert main(["roads", MONACO, "--contract", "--matrix", "40", "--json", "-", *extra]) == 0
    return json.loads(capsys.readouterr().out)["matrix"]


def test_matrix_on_a_scheduler_address_equals_the_local_one(capsys):
    here = _matrix(capsys)
    with local_cluster() as client:
        there = _matrix(capsys, "--dask", client.scheduler.address)
    assert (there["reachable"], there["mean"]) == (here["reachable"], here["mean"])


def test_dask_mistakes_are_one_line_and_status_2(capsys):
    assert main(["roads", MONACO, "--dask"]) == 2
    assert "--dask answers --matrix N" in capsys.readouterr().err
    assert main(["roads", MONACO, "--matrix", "3", "--dask", "not-an-address"]) == 2
    assert "no Dask scheduler answered" in capsys.readouterr().err
