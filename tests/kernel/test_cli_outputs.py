"""Every command checks its output paths before its work, and a closed
pipe ends a command quietly with a non-zero status."""
import subprocess
import sys
from pathlib import Path

import pytest

from navcore.cli import EXIT_BROKEN_PIPE, main

ROOT = Path(__file__).resolve().parents[2]


def _commands(tmp_path, bad):
    scen = tmp_path / "one.map.scen"
    scen.write_text("version 1\n0\tone.map\t4\t2\t0\t0\t3\t0\t3\n")
    (tmp_path / "one.map").write_text("type octile\nheight 2\nwidth 4\nmap\n....\n....\n")
    return [["scen", str(scen), "--json", bad],
            ["areas", str(tmp_path / "one.map"), "--json", bad],
            ["bake", str(ROOT / "scenes" / "courtyard.yaml"), "-o", bad + ".npz"],
            ["run", str(ROOT / "scenes" / "dungeon.yaml"), "--json", bad]]


@pytest.mark.nojit
@pytest.mark.parametrize("k", range(4))
def test_an_unwritable_output_fails_before_the_work(tmp_path, capsys, monkeypatch, k):
    blocker = tmp_path / "file"
    blocker.write_text("")
    cmd = _commands(tmp_path, str(blocker / "out.json"))[k]
    # the work itself must not start: every command's work reads its input
    # through one of these, and they now raise
    import navcore_grid.scen
    import navcore_areas.cli
    import navcore_navmesh.cli
    import navcore_scenes.cli

    def refuse(*a, **k):
        raise AssertionError("the work started before the output path was checked")
    monkeypatch.setattr(navcore_grid.scen, "run_scenarios", refuse)
    monkeypatch.setattr(navcore_areas.cli, "run_areas", refuse)
    monkeypatch.setattr(navcore_navmesh.cli, "_from_scene", refuse)
    monkeypatch.setattr(navcore_scenes.cli, "_play", refuse)
    assert main(cmd) == 2
    err = capsys.readouterr().err
    assert "navcore: error: " in err and "cannot make its folder" in err


@pytest.mark.nojit
def test_an_output_that_is_a_folder_is_refused(tmp_path, capsys):
    cmd = _commands(tmp_path, str(tmp_path))[1]
    assert main(cmd) == 2
    assert f"--json {tmp_path}: is a folder, not a file" in capsys.readouterr().err


def test_a_closed_pipe_ends_quietly_with_a_non_zero_status(tmp_path):
    # `navcore run SCENE | true`: the reader is gone before the summary is
    # printed; the output is lost, so the status says so, without a traceback
    proc = subprocess.Popen([sys.executable, "-m", "navcore", "run",
                             str(ROOT / "scenes" / "dungeon.yaml"), "--frames", "5",
                             "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()                         # the reader goes away at once
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == EXIT_BROKEN_PIPE
    assert "Traceback" not in err and "BrokenPipe" not in err, err
