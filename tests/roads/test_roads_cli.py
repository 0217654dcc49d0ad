"""``navcore roads``: load, report, route and matrix from the command line."""
import json

import numpy as np

from navcore.cli import main

from roadtruth import ROADS, need, pairs


def test_route_and_matrix_from_an_osm_file(tmp_path, capsys):
    need("helsinki")
    out = tmp_path / "sub" / "report.json"
    assert main(["roads", str(ROADS / "Helsinki.osm.pbf"), "--from", "24.94,60.17",
                 "--to", "24.95,60.175", "--matrix", "20", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "nodes" in text and "route found" in text and "20 x 20 matrix" in text
    report = json.loads(out.read_text())
    assert report["nodes"] < report["source_nodes"]
    route = report["route"]
    assert route["status"] == "found" and len(route["points"]) > route["junctions"]
    assert all(m < 200 for m in route["snapped_m"])
    assert report["matrix"]["reachable"] == 400           # the largest SCC is kept


def test_dimacs_with_its_coordinates_answers_the_truth(capsys):
    need("monaco")
    p = pairs("monaco")
    assert main(["roads", str(ROADS / "monaco.gr"), "--keep", "all", "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["nodes"] == 3002 and report["weight"] == "time"
    assert np.isfinite(p["dimacs_dm"]).all()


def test_mistakes_are_one_line_and_status_2(tmp_path, capsys):
    need("monaco")
    gr = str(ROADS / "monaco.gr")
    for args, words in ((["roads", str(tmp_path / "x.txt")], "not a road file"),
                        (["roads", gr, "--from", "7.4,43.7"], "--from and --to"),
                        (["roads", gr, "--matrix", "0"], "positive size"),
                        (["roads", gr, "--profile", "bike"], "--profile applies"),
                        (["roads", gr, "--turn-costs"], "--turn-costs applies to OSM"),
                        (["roads", gr, "--json", str(tmp_path)], "is a folder"),
                        (["roads", str(tmp_path / "missing.gr")], "cannot read")):
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1, err


def test_turn_costs_from_the_command_line(capsys):
    need("monaco")
    args = ["roads", str(ROADS / "monaco.osm.gz"), "--from", "7.4165,43.7285", "--to",
            "7.4335,43.7445", "--json", "-"]
    assert main(args) == 0
    free = json.loads(capsys.readouterr().out)
    assert main(args + ["--turn-costs"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "turn_costs" not in free
    tc = report["turn_costs"]
    assert tc["profile"] == "car" and tc["forbidden_u_turns"] > 0 and tc["rules"] > 0
    assert report["route"]["cost"] > free["route"]["cost"]


def test_customizable_hierarchy_from_the_command_line(capsys):
    need("monaco")
    p = pairs("monaco")
    assert main(["roads", str(ROADS / "monaco.gr"), "--keep", "all", "--customizable",
                 "--matrix", "5", "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["cch"]["arcs"] > 0 and report["cch"]["tree_depth"] > 0
    assert np.isfinite(p["dimacs_dm"]).all()


def test_a_matrix_too_large_for_memory_is_one_line_and_status_2(tmp_path, capsys):
    # 10**8 x 10**8 float64s: refused before the network is read and the
    # 2 x 10**8 ends are drawn (1.6 GB), with the CapacityError's message
    gr = tmp_path / "three.gr"
    gr.write_text("p sp 3 3\na 1 2 10\na 2 3 10\na 3 1 10\n")
    assert main(["roads", str(gr), "--matrix", "100000000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("navcore: error: --matrix 100000000: a 100000000 x 100000000 "
                          "distance matrix needs about 80000000.0 GB of memory")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert main(["roads", str(gr), "--matrix", "3"]) == 0
