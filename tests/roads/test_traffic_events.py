"""The ``traffic`` scene event on Monaco's streets: it sets exactly the
costs it says (checked against costs worked out here from the segments'
lengths and speeds, and routes against scipy's Dijkstra), drivers whose
route it cuts re-plan onto the shortest path of the new weights, a reopen
gives back the loaded answers, mistakes are reported at file:line:column,
and the rush_hour scene replays to the same summary."""
import json
import re
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

import navcore
from navcore.cli import main
from navcore_scenes.summary import results

from roadtruth import csgraph_of, phantom_reference

SCENES = Path(__file__).resolve().parents[2] / "scenes"
HARBOUR_ROAD = 4227276             # Boulevard Albert 1er, both ways
BOX = (7.416, 43.730, 7.431, 43.742)
CENTRE = (7.4235, 43.7360)


def scene(events, agents="", graph="{id: s, type: roads, osm: maps/monaco.osm.gz}"):
    text = (f"settings: {{dt: 0.5, frames: 200, deterministic: true, "
            f"frame_budget_nodes: 1000000}}\n"
            f"graphs: [{graph}]\n{agents}events:\n{events}")
    # named inside scenes/ so that maps/monaco.osm.gz is found next to it
    return navcore.Simulation.from_text(text, SCENES / "traffic-test.yaml")


def play(sim, frames):
    for _ in range(frames - sim.frame):
        sim.step()


def loaded_segment_costs(g):
    seg = g.segments
    return seg.length / (seg.speed / 3.6)


def edge_costs_of(g, seg_cost):
    return np.add.reduceat(seg_cost[g.chain], g.chain_start[:-1])


def inbound_in_box(g):
    """Segments on the graph with an end in BOX that head toward CENTRE,
    worked out here (east and north on a local flat map)."""
    seg = g.segments
    lon, lat = seg.lon, seg.lat
    inside = (lon >= BOX[0]) & (lon <= BOX[2]) & (lat >= BOX[1]) & (lat <= BOX[3])
    on = (inside[seg.src] | inside[seg.dst]) & (g.seg_edge >= 0)
    k = np.cos(np.radians(lat[seg.src]))
    east, north = (lon[seg.dst] - lon[seg.src]) * k, lat[seg.dst] - lat[seg.src]
    to_e = (CENTRE[0] - (lon[seg.src] + lon[seg.dst]) / 2) * k
    to_n = CENTRE[1] - (lat[seg.src] + lat[seg.dst]) / 2
    return on & (east * to_e + north * to_n > 0)


def test_speed_factor_and_reopen_set_exactly_the_costs_they_say():
    events = (f"  - {{at: 1, traffic: {{id: rush, box: {list(BOX)}, toward: {list(CENTRE)}, "
              f"speed: 12}}}}\n"
              f"  - {{at: 2, traffic: {{id: crash, way: {HARBOUR_ROAD}, factor: 3}}}}\n"
              f"  - {{at: 3, traffic: {{reopen: rush}}}}\n"
              f"  - {{at: 4, traffic: {{reopen: crash}}}}\n")
    with scene(events) as sim:
        g = sim.world.graph("s")
        seg = g.segments
        loaded = g.csr.cost.copy()
        free = loaded_segment_costs(g)
        assert np.allclose(edge_costs_of(g, free), loaded, rtol=1e-12)
        rush = inbound_in_box(g)
        way = (seg.way == HARBOUR_ROAD) & (g.seg_edge >= 0)
        assert 100 < rush.sum() < (g.seg_edge >= 0).sum() / 2 and (way & rush).any()

        play(sim, 1)
        want = np.where(rush, seg.length / (12 / 3.6), free)
        assert np.allclose(g.csr.cost, edge_costs_of(g, want), rtol=1e-12)
        play(sim, 2)                                  # a jam on a way through it
        want = np.where(way, want * 3, want)
        assert np.allclose(g.csr.cost, edge_costs_of(g, want), rtol=1e-12)
        # routes on the changed weights are scipy's
        rng = np.random.default_rng(4)
        s, t = rng.integers(0, g.num_nodes, 20), rng.integers(0, g.num_nodes, 20)
        truth = dijkstra(csgraph_of(g), indices=s)[np.arange(20), t]
        assert np.allclose([sim.world.find_path("s", int(a), int(b)).cost
                            for a, b in zip(s, t)], truth, rtol=1e-9)
        play(sim, 3)                                  # the rush ends, the jam stays
        want = np.where(way, free * 3, free)
        assert np.allclose(g.csr.cost, edge_costs_of(g, want), rtol=1e-12)
        play(sim, 4)
        assert np.array_equal(g.csr.cost, loaded)     # as loaded, bit for bit
        assert [e["what"] for e in sim.log][2:] == [
            "traffic 'rush' reopened (%d road segments)" % rush.sum(),
            "traffic 'crash' reopened (%d road segments)" % way.sum()]


def test_a_driver_re_plans_onto_the_shortest_path_when_a_crash_closes_the_road():
    agents = "agents: [{id: car, start: [7.4250, 43.7385], goal: [7.4200, 43.7310], speed: 3}]\n"
    events = (f"  - {{at: 5, traffic: {{id: crash, way: {HARBOUR_ROAD}, close: true}}}}\n"
              f"  - {{at: 30, traffic: {{reopen: crash}}}}\n")
    with scene(events, agents) as sim:
        g = sim.world.graph("s")

        def route():
            # from the road point the car asked from to the road beside the goal
            r = sim.agents.handles[0].result()
            segs = np.concatenate([g.edge_segments(e) for e in g.path_edges(r.nodes)])
            truth = phantom_reference(g, [r.points[0]], [(7.4200, 43.7310)])[0, 0]
            return r, set(g.segments.way[segs].tolist()), truth

        play(sim, 4)
        before, ways, truth = route()
        assert HARBOUR_ROAD in ways and before.cost == pytest.approx(truth, rel=1e-9)
        play(sim, 5)                                  # closed, and re-planned at once
        after, ways, truth = route()
        assert HARBOUR_ROAD not in ways
        assert after.cost == pytest.approx(truth, rel=1e-9) and after.cost > before.cost
        assert sim.agents.repaths[0] == 1 and sim.log[0]["replanned"] == 1
        play(sim, 30)                                 # reopened: every driver asks again
        again, ways, truth = route()
        assert sim.agents.repaths[0] == 2
        assert HARBOUR_ROAD in ways and again.cost == pytest.approx(truth, rel=1e-9)


BAD = [
    ("{speed: -5, box: [7.416, 43.730, 7.431, 43.742]}", "-5",
     "'speed' of 'traffic' must be a number > 0, got -5"),
    ("{way: 4227276, close: false}", "false",
     "'close' of 'traffic' takes true (to open the roads again, reopen the change by "
     "its id), got false"),
    ("{way: 4227276, sped: 3}", "sped", "unknown key 'sped' in 'traffic'; did you mean "
                                        "'speed'?"),
    ("{reopen: crush}", "crush", "nothing to reopen as 'crush' on graph 's': no earlier "
                                 "traffic event has that id (in force then: crash)"),
    ("{way: 12, factor: 2}", "12", "'way' of 'traffic': road graph 's' has no way 12 (not "
                                   "routable, or dropped at load)"),
    ("{edges: [[0, 1]], close: true, toward: [7.42, 43.73]}", "toward",
     "'toward' chooses lanes of a 'box' or 'way' (edges have a direction already)"),
    ("{box: [8.0, 43.0, 8.1, 43.1], factor: 2}", "[8.0",
     "'box' of 'traffic' [8.0, 43.0, 8.1, 43.1] does not overlap graph 's'"),
    ("{id: crash, way: 4227276, factor: 2}", "crash,",
     "traffic 'crash' is still in force (reopen it first, or give this change another id)"),
]


@pytest.mark.nojit
@pytest.mark.parametrize("value, token, message", BAD, ids=[b[1] for b in BAD])
def test_bad_traffic_values_are_reported_at_file_line_column(value, token, message):
    first = f"  - {{at: 5, traffic: {{id: crash, way: {HARBOUR_ROAD}, close: true}}}}\n"
    last = f"  - {{at: 9, traffic: {value}}}\n"
    with pytest.raises(navcore.SceneError) as err:
        scene(first + last)
    e = err.value
    assert isinstance(e, navcore.NavError)
    assert (e.line, e.column) == (5, last.index(token) + 1)
    assert e.message.startswith(message)
    assert Path(e.path).name == "traffic-test.yaml"


@pytest.mark.nojit
def test_speeds_need_a_time_weighted_graph():
    graph = "{id: s, type: roads, osm: maps/monaco.osm.gz, weight: distance}"
    event = f"  - {{at: 1, traffic: {{way: {HARBOUR_ROAD}, speed: 20}}}}\n"
    with pytest.raises(navcore.SceneError) as err:
        scene(event, graph=graph)
    assert (err.value.line, err.value.column) == (4, event.index("20") + 1)
    assert err.value.message == ("'speed' of 'traffic': speed= changes travel times; road "
                                 "graph 's' is weighted by distance")


def test_the_rush_hour_scene_replays_the_same_summary(tmp_path, capsys):
    path = SCENES / "rush_hour.yaml"
    runs = []
    for _ in range(2):
        with navcore.load_scene(path) as sim:
            runs.append(json.dumps(results(sim.run()), indent=1))
    assert runs[0] == runs[1]
    summary = json.loads(runs[0])
    names = {re.match(r"traffic '([\w-]+)'", e["what"]).group(1) for e in summary["events"]}
    assert names == {"rush", "harbour-jam", "crash"}
    crash = [e for e in summary["events"] if "crash" in e["what"]]
    assert crash[0]["areas_after"] > crash[0]["areas_before"] == 1   # dead ends cut off
    assert crash[1]["areas_after"] == 1
    assert all(e["replanned"] > 0 for e in summary["events"])
    assert summary["agents"]["stuck"] == 0
    png = tmp_path / "rush.png"
    assert main(["run", str(path), "--frames", "60", "--render", str(png),
                 "--no-progress"]) == 0
    assert png.stat().st_size > 0 and "traffic 'rush'" in capsys.readouterr().out


def test_edges_close_one_direction_and_away_from_takes_the_outbound_lanes():
    with scene("") as probe:                           # the first edge and its ends
        g = probe.world.graph("s")
        u, v = int(g.edge_src[0]), int(g.csr.targets[0])
    events = (f"  - {{at: 1, traffic: {{edges: [[{u}, {v}]], close: true}}}}\n"
              f"  - {{at: 2, traffic: {{box: {list(BOX)}, away_from: {list(CENTRE)}, "
              f"factor: 4}}}}\n")
    with scene(events) as sim:
        g = sim.world.graph("s")
        free = loaded_segment_costs(g)
        play(sim, 1)
        closed = np.zeros(g.segments.num_segments, bool)
        closed[g.edge_segments(0)] = True
        assert np.allclose(g.csr.cost, edge_costs_of(g, np.where(closed, np.inf, free)))
        back = (g.edge_src == v) & (g.csr.targets == u)
        assert back.any() and np.isfinite(g.csr.cost[back]).all()   # the other way is open
        play(sim, 2)
        seg = g.segments
        lon, lat = seg.lon, seg.lat
        inside = (lon >= BOX[0]) & (lon <= BOX[2]) & (lat >= BOX[1]) & (lat <= BOX[3])
        box = (inside[seg.src] | inside[seg.dst]) & (g.seg_edge >= 0)
        outbound = box & ~inbound_in_box(g)
        want = np.where(closed, np.inf, np.where(outbound, free * 4, free))
        assert np.allclose(g.csr.cost, edge_costs_of(g, want), rtol=1e-12)


@pytest.mark.nojit
@pytest.mark.parametrize("value, message", [
    ([10 ** 7], "has segments 0.."), ([True], "must be a list of segment ids"),
    ([], "must be a list of segment ids")])
def test_road_updates_refuse_bad_segment_ids(value, message):
    with scene("  - {at: 1, traffic: {way: 4227276, factor: 2}}\n") as sim:
        with pytest.raises(navcore.UpdateError, match=message):
            sim.world.update("s", segments=value, factor=2.0)
        assert sim.world.pending_updates("s") == 0
