"""Deterministic scenes (``settings: {deterministic: true}``): the results
part of the summary (everything but ``timing``) is the same JSON, byte for
byte, for 0, 1 and 2 workers and on every run (their agents walk as
crowds: positions, arrivals and re-plans included); the settings are
checked like every other."""
import json
from pathlib import Path

import pytest

import navcore
from navcore_scenes.scene import parse_scene
from navcore_scenes.summary import format_summary, results

SCENES = Path(__file__).resolve().parents[2] / "scenes"


def _results(name, workers, frames, nodes):
    text = (SCENES / name).read_text()
    sc = parse_scene(text, SCENES / name)
    sc.settings.workers = workers
    sc.settings.deterministic = True
    sc.settings.frame_budget_nodes = nodes
    slices = []              # frames that searched and served nothing: a search's slices

    def look(sim):
        st = sim.world.last_stats
        slices.append(st.requests_served == 0 and st.nodes_expanded > 0)
    with navcore.Simulation(sc) as sim:
        summary = sim.run(frames, on_frame=look)
    summary["timing"]["slices"] = sum(slices)
    assert set(summary) - set(results(summary)) == {"timing"}
    assert summary["timing"]["frame_ms"]["p50"] >= 0      # timing is reported apart
    return json.dumps(results(summary), indent=2), summary


@pytest.mark.parametrize("name, frames, nodes, sliced", [("maze.yaml", 300, 5000, False),
                                                         ("maze.yaml", 300, 150, True),
                                                         ("battlefield.yaml", 120, 2000, False)])
def test_deterministic_scene_results_are_byte_identical_for_0_1_2_workers_and_two_runs(
        name, frames, nodes, sliced):
    first, summary = _results(name, 0, frames, nodes)
    for workers in (1, 2, 2):
        assert _results(name, workers, frames, nodes)[0] == first, workers
    assert summary["deterministic"] and summary["frame_budget_nodes"] == nodes
    assert summary["requests"]["waiting_max"] > 0        # the budget binds
    assert summary["requests"]["nodes_expanded"] > 0
    if sliced:        # requests that needed many frames each, stepped across them
        assert summary["timing"]["slices"] > frames // 4


@pytest.mark.nojit
@pytest.mark.parametrize("settings, message", [
    ("{deterministic: 1}", "'deterministic' of settings must be true or false, got 1"),
    ("{deterministic: 'true'}", "'deterministic' of settings must be true or false"),
    ("{frame_budget_nodes: -5}", "'frame_budget_nodes' of settings must be a whole number "
                                 ">= 0, got -5"),
    ("{frame_budget_nodes: 1.5}", "'frame_budget_nodes' of settings must be a whole number"),
    ("{determinstic: true}", "unknown key 'determinstic' in settings; did you mean "
                             "'deterministic'?"),
])
def test_deterministic_settings_are_checked(settings, message):
    text = f"settings: {settings}\ngraphs: [{{id: a, type: grid, rows: ['..']}}]\n"
    with pytest.raises(navcore.SceneError, match=message.replace("?", r"\?")) as info:
        parse_scene(text, "s.yaml")
    assert str(info.value).startswith("s.yaml:1:")


@pytest.mark.nojit
def test_a_deterministic_scene_runs_in_a_deterministic_world_only():
    text = ("settings: {deterministic: true, frame_budget_nodes: 10}\n"
            "graphs: [{id: a, type: grid, rows: ['....']}]\n"
            "agents: [{id: x, start: [0, 0], goal: [3, 0]}]\n")
    with pytest.raises(navcore.SceneError, match="not deterministic"):
        navcore.Simulation.from_text(text, world=navcore.World())
    sim = navcore.Simulation.from_text(
        text, world=navcore.World(deterministic=True, frame_budget_nodes=10))
    s = sim.run(20)
    assert s["deterministic"] and s["agents"]["arrived"] == 1
    sim = navcore.Simulation.from_text(text)
    assert sim.world.deterministic and sim.world.frame_budget_nodes == 10
    assert "deterministic: at most 10 nodes" in format_summary(sim.run(20))
