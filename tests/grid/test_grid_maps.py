"""MovingAI map parsing: good files load, bad ones name file and line."""
import numpy as np
import pytest

import navcore
from navcore_grid import parse_map, parse_rows, read_map, read_scen
from reference import grid_dijkstra

GOOD = "type octile\nheight 2\nwidth 3\nmap\n.@G\nTS.\n"


@pytest.mark.nojit
@pytest.mark.parametrize("text", [GOOD, GOOD.replace("\n", "\r\n"), GOOD.rstrip("\n"),
                                  GOOD + "\n\n"])
def test_crlf_missing_final_newline_and_trailing_blank_lines_load(text):
    walk = parse_map(text)
    assert walk.tolist() == [[True, False, True], [False, True, True]]


@pytest.mark.nojit
@pytest.mark.parametrize("text, line, message", [
    ("tipe octile\nheight 2\nwidth 3\nmap\n...\n...\n", 1, "expected 'type octile'"),
    ("type octile\nheight x\nwidth 3\nmap\n...\n...\n", 2, "expected 'height N'"),
    ("type octile\nheight 2\nwidth 3\nmop\n...\n...\n", 4, "expected 'map'"),
    ("type octile\nheight 2\nwidth 3\nmap\n...\n....\n", 6, "row has 4 characters"),
    ("type octile\nheight 2\nwidth 3\nmap\n...\n.x.\n", 6, "unknown map character 'x'"),
    ("type octile\nheight 3\nwidth 3\nmap\n...\n...\n", 7, "file is truncated"),
    ("type octile\nheight 1\nwidth 3\nmap\n...\n...\n", 6, "more map rows"),
    ("type octile\nheight 99999\nwidth 99999\nmap\n...\n", 2, "exceeds the int32"),
    ("type octile\nheight 2\n", 3, "file ends in the header"),
    ("type octile\nheight 0\nwidth 3\nmap\n", 2, "height must be positive"),
])
def test_malformed_maps_give_the_line(tmp_path, text, line, message):
    path = tmp_path / "bad.map"
    path.write_text(text)
    with pytest.raises(navcore.MapFormatError, match=message) as info:
        read_map(path)
    assert info.value.line == line
    assert str(info.value).startswith(f"{path}:{line}")


@pytest.mark.nojit
def test_bad_character_reports_the_column_and_world_is_unchanged(tmp_path):
    path = tmp_path / "bad.map"
    path.write_text("type octile\nheight 1\nwidth 4\nmap\n..?.\n")
    w = navcore.World(autoload=False)
    with pytest.raises(navcore.MapFormatError) as info:
        w.add_graph("m", type="grid", map=str(path))
    assert (info.value.line, info.value.column) == (5, 3)
    assert w.graphs == {}
    with pytest.raises(navcore.MapFormatError, match="map file not found"):
        w.add_graph("m", type="grid", map=str(tmp_path / "nope.map"))


SWAMPS = ["....S....", ".@@.W.@@.", "....S....", "@@@.S.@@@", "G...S...G"]


@pytest.mark.nojit
@pytest.mark.parametrize("passable", [None, ".GS", ".G", ".GSW", "GS.T"])
def test_passable_names_the_floor_characters(tmp_path, passable):
    path = tmp_path / "swamp.map"
    path.write_text(f"type octile\nheight {len(SWAMPS)}\nwidth {len(SWAMPS[0])}\nmap\n"
                    + "\n".join(SWAMPS) + "\n")
    floor = set(".GS" if passable is None else passable)
    truth = [[c in floor for c in row] for row in SWAMPS]       # by hand, from the rule
    assert read_map(path, passable=passable).tolist() == truth
    w = navcore.World(autoload=False)
    kw = {} if passable is None else {"passable": passable}
    g = w.add_graph("g", type="grid", map=str(path), **kw)
    assert g.walkable.reshape(len(SWAMPS), -1).tolist() == truth
    # paths across the swamp column, against a reference Dijkstra on the rule
    dist = grid_dijkstra(truth, start=(0, 0))
    for goal in [(8, 0), (8, 4), (5, 2)]:
        r = w.find_path("g", (0, 0), goal)
        want = dist.get(goal, float("inf"))
        assert (r.cost == pytest.approx(want)) if want < float("inf") else not r.found


@pytest.mark.nojit
def test_passable_is_checked(tmp_path):
    path = tmp_path / "swamp.map"
    path.write_text("type octile\nheight 1\nwidth 3\nmap\n.SW\n")
    w = navcore.World(autoload=False)
    for bad, message in [("", "non-empty string"), (".X", "'X' is not one"),
                         (["."], "non-empty string"), (3, "got 3"), (".#", "'#' is not one")]:
        with pytest.raises(navcore.GraphError, match=f"passable.*{message}"):
            w.add_graph("g", type="grid", map=str(path), passable=bad)
        with pytest.raises(navcore.GraphError, match="passable"):
            read_map(path, passable=bad)
    with pytest.raises(navcore.GraphError, match="passable='.G' .* goes with map="):
        w.add_graph("g", type="grid", rows=["..."], passable=".G")
    assert w.graphs == {}
    # the error for an unknown character lists the rule in force
    path.write_text("type octile\nheight 1\nwidth 3\nmap\n.S?\n")
    with pytest.raises(navcore.MapFormatError, match=r"passable: \.G, blocked: @OSTW"):
        read_map(path, passable=".G")


@pytest.mark.nojit
def test_inline_rows_and_arrays():
    assert parse_rows(["#. ", "@GS"]).tolist() == [[False, True, True], [False, True, True]]
    with pytest.raises(navcore.MapFormatError, match="row has 2 characters") as info:
        parse_rows(["...", ".."])
    assert info.value.line == 2
    w = navcore.World(autoload=False)
    g = w.add_graph("c", type="grid", array=np.array([[1.0, np.inf], [2.0, 0.5]]))
    assert g.walkable.tolist() == [True, False, True, True]
    assert g.cost.tolist() == [[1.0, 1.0], [2.0, 0.5]]
    for bad, message in [(dict(), "exactly one of map=, rows=, array="),
                         (dict(rows=["."], array=np.ones((1, 1), bool)), "got rows, array"),
                         (dict(array=np.array([[-1.0]])), r"cell \(0, 0\) has cost -1.0"),
                         (dict(array=np.array([["a"]])), "must be bool"),
                         (dict(rows=["."], connectivity=6), "connectivity must be 4 or 8"),
                         (dict(rows=["."], diagonal_cost=0), "diagonal_cost must be")]:
        with pytest.raises(navcore.GraphError, match=message):
            w.add_graph("x", type="grid", **bad)
    assert list(w.graphs) == ["c"]


@pytest.mark.nojit
def test_scenario_parsing(tmp_path):
    path = tmp_path / "a.map.scen"
    path.write_text("version 1\n0\tmaps/a.map\t3\t2\t0\t0\t2\t1\t2.41421356\n"
                    "1\ta.map\t3\t2\t2\t1\t0\t0\t2.41421\n")
    scen = read_scen(path)
    assert len(scen) == 2 and scen.start.tolist() == [[0, 0], [2, 1]]
    assert scen.decimals.tolist() == [8, 5] and scen.line.tolist() == [2, 3]
    path.write_text("version 1\n0\ta.map\t3\t2\t0\t0\n")
    with pytest.raises(navcore.MapFormatError, match="expected 9 fields") as info:
        read_scen(path)
    assert info.value.line == 2


@pytest.mark.nojit
@pytest.mark.parametrize("fields, message", [
    ("0\ta.map\t3\t2\t0\t0\t99999999999999999999999\t1\t2.4",
     "goal x must lie in \\[0, 1048576\\], got 99999999999999999999999"),
    ("0\ta.map\t3\t-2\t0\t0\t2\t1\t2.4", "map height must lie in"),
    ("0\ta.map\t3\t2\t0\t0\t2\t1\tnan", "optimal length must be a finite number"),
    ("0\ta.map\t3\t2\t0\t0\t2\t1\t-1", "optimal length must be"),
    ("0\ta.map\t3\t2\t0\t0\t2\t1\t1e999", "optimal length must be"),
    ("0\t" + "m" * 300 + ".map\t3\t2\t0\t0\t2\t1\t2.4", "map name of 304 characters"),
])
def test_scenario_values_out_of_range_are_map_format_errors(tmp_path, fields, message):
    path = tmp_path / "a.map.scen"
    path.write_text("version 1\n" + fields + "\n")
    with pytest.raises(navcore.MapFormatError, match=message) as info:
        read_scen(path)
    assert info.value.line == 2


@pytest.mark.nojit
def test_a_folder_given_as_a_scenario_or_map_is_a_map_format_error(tmp_path):
    with pytest.raises(navcore.MapFormatError, match="cannot read scenario file"):
        read_scen(tmp_path)
    with pytest.raises(navcore.MapFormatError, match="cannot read map file"):
        read_map(tmp_path)


@pytest.mark.nojit
def test_scen_command_refuses_a_negative_limit(tmp_path, capsys):
    from navcore.cli import main
    from navcore_grid.scen import run_scenarios
    path = tmp_path / "a.map.scen"
    path.write_text("version 1\n0\ta.map\t3\t2\t0\t0\t2\t1\t2.41421356\n")
    (tmp_path / "a.map").write_text("type octile\nheight 2\nwidth 3\nmap\n...\n...\n")
    with pytest.raises(SystemExit) as info:
        main(["scen", str(path), "--limit", "-1"])
    assert info.value.code == 2
    assert "--limit: must be a whole number >= 0, got '-1'" in capsys.readouterr().err
    with pytest.raises(navcore.MapFormatError, match="limit must be a whole number"):
        run_scenarios(path, limit=-1)
    assert run_scenarios(path, limit=0)["queries"] == 0
    assert run_scenarios(path, limit=5)["queries"] == 1


@pytest.mark.nojit
def test_the_grid_builds_its_csr_view_through_the_storage_hook():
    seen = []

    class Watcher:          # a storage plugin that watches and passes the call on
        @navcore.hookimpl(tryfirst=True)
        def navcore_storage_build(self, src, dst, num_nodes, options):
            seen.append((src, len(dst), num_nodes, options["offsets"] is not None))

    world = navcore.World(plugins=[Watcher()])
    g = world.add_graph("g", type="grid", rows=["...", ".#."])
    csr = g.csr
    assert seen[-1] == (None, csr.num_edges, 6, True)   # in CSR order already: no src
    assert csr.offsets.tolist() == [0, 3, 8, 11, 14, 19, 22]   # every in-bounds neighbour
    assert world.find_path("g", (0, 1), (2, 1), algorithm="bfs").found
