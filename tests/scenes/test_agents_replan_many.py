"""The scene's agents answer a round's re-plans at once
(``replan_from.many``, ``Agents._asked_from_many``): the same start points
and bookkeeping as asking each agent (``_asked_from``), buried agents
stepping out included, on one graph and on two; and a scene with moving
obstacles and re-plans plays to the same results with and without it.
These are the agents that walk their paths as points (``avoidance:
false``); those that walk as crowds plan through their crowd."""
import json

import numpy as np
import pytest

import navcore
from navcore_scenes import agents as agents_module
from navcore_scenes.summary import results

SCENE = """
name: crossing
settings: {dt: 0.1, frames: 120, frame_budget_ms: 10000, seed: 4, avoidance: false}
graphs:
  - id: field
    type: grid
    rows: ["..............................",
           "..............................",
           ".........#####................",
           "..............................",
           "..................######......",
           "..............................",
           "..............................",
           ".....####.....................",
           "..............................",
           ".............................."]
    doors: {gap: [12, 4, 3, 3]}
%s
crowds:
  - {id: red, count: 25, graph: field, from: [0, 0, 5, 10], to: [25, 0, 5, 10], speed: [3, 5]}
  - {id: blue, count: 25, graph: field, from: [25, 0, 5, 10], to: [0, 0, 5, 10], speed: [3, 5]}
%s
obstacles:
  - {id: cart, graph: field, rect: [10, 1, 3, 2], velocity: [0.5, 2]}
  - {id: ox, graph: field, rect: [20, 6, 2, 2], velocity: [-2, 0.5]}
events:
  - {at: 20, graph: field, close: gap}
  - {at: 60, graph: field, open: gap}
"""
SECOND = """  - id: yard
    type: grid
    rows: ["..........", "..........", "..........", ".........."]"""
YARD_CROWD = ("  - {id: hens, count: 10, graph: yard, from: [0, 0, 3, 4], "
              "to: [7, 0, 3, 4], speed: 2}")


def _sim(two_graphs=False):
    text = SCENE % ((SECOND, YARD_CROWD) if two_graphs else ("", ""))
    return navcore.Simulation.from_text(text, "crossing.yaml",
                                        world=navcore.World(autoload=False))


@pytest.mark.nojit
@pytest.mark.parametrize("two_graphs", [False, True])
def test_many_answers_as_each_agent_would_buried_ones_included(two_graphs):
    sim = _sim(two_graphs)
    for _ in range(15):
        sim.step()
    ag = sim.agents
    field = sim.world.graph("field")
    # bury a few agents: walls dropped on the cells they stand in
    buried = [0, 7, 30]
    cells = [field.cell_of(field.node_of(tuple(ag.pos[i].tolist()))) for i in buried]
    sim.world.update("field", cells=cells, walkable=False)
    sim.world.tick()
    ag.pos[3] = (-5.0, 2.0)                  # outside the grid: node -1
    handles = [h for h in ag.handles if h is not None]
    assert len(handles) == len(ag.ids)
    order = np.random.default_rng(1).permutation(len(handles))
    handles = [handles[k] for k in order]
    ag.s[:] = np.arange(len(ag.ids)) * 0.25
    ag.asked_s[:] = -1.0
    got = ag._asked_from_many(handles)
    asked_many = ag.asked_s.copy()
    ag.asked_s[:] = -1.0
    want = [ag._asked_from(h.replan_from.i) for h in handles]
    assert got == want
    assert all(type(p) is tuple and all(type(v) is float for v in p) for p in got)
    np.testing.assert_array_equal(asked_many, ag.asked_s)
    stepped = [got[k] != tuple(ag.pos[handles[k].replan_from.i].tolist())
               for k in range(len(handles))]
    assert sum(stepped) >= 2                 # buried ones really stepped out


def _play(monkeypatch, batched):
    if not batched:
        monkeypatch.setattr(agents_module._StartOf, "__init__", _without_many)
    sim = _sim(two_graphs=True)
    summary = sim.run()
    monkeypatch.undo()
    return json.dumps(results(summary), sort_keys=True), sim


def _without_many(self, agents, i):
    self.agents, self.i, self.many = agents, i, None


@pytest.mark.nojit
def test_a_scene_plays_the_same_with_and_without_many(monkeypatch):
    calls = []
    real = agents_module.Agents._asked_from_many

    def counting(self, handles):
        calls.append(len(handles))
        return real(self, handles)

    monkeypatch.setattr(agents_module.Agents, "_asked_from_many", counting)
    batched, sim = _play(monkeypatch, True)
    assert calls and sum(calls) >= 20          # re-plans were answered in rounds
    assert sim.agents.repaths.sum() > 0
    calls.clear()
    one_by_one, _ = _play(monkeypatch, False)
    assert not calls
    assert batched == one_by_one
