"""Scenes run through world.tick: agents walk their paths at their speed,
events and obstacles change the graphs, agents repath. Expected distances
and frame counts are worked out by hand in the comments; the scenes that
check them exactly walk their agents as points (``avoidance: false``:
a point walks its path exactly), and tests/scenes/test_scene_crowds.py
checks the same rules for agents that walk as crowds."""
import json
import math

import numpy as np
import pytest

import navcore
from navcore_scenes.agents import MOVING, Agents
from navcore.cli import main


def _sim(text, **kw):
    return navcore.Simulation.from_text(text, "s.yaml",
                                        world=navcore.World(autoload=False, **kw))


@pytest.mark.nojit
def test_door_closes_guard_waits_door_opens_guard_arrives():
    sim = _sim("""
settings: {dt: 0.1, avoidance: false}
graphs:
  - id: keep
    type: grid
    rows: ["....#....", ".........", "....#...."]
    doors: {gate: [4, 1, 1, 1]}
agents:
  - {id: guard, start: [0, 1], goal: [8, 1], speed: 1, repath: true}
events:
  - {at: 2, close: gate}
  - {at: 50, open: gate}
""")
    for _ in range(30):
        sim.step()
    # frame 1: served, walks 0.1; frame 2: the gate closes, the re-plan is
    # unreachable, the guard asks again from where it is and walks on
    # meanwhile (0.1); frame 3: that answer is unreachable too: it waits
    assert sim.agents.pos[0] == pytest.approx([0.7, 1.5])
    summary = sim.run(170)
    # frame 50: areas merge, the request is re-planned; 0.2 back to the
    # centre of (0, 1), then 8 cells
    assert summary["agents"]["arrived"] == 1
    assert summary["path_length"]["total"] == pytest.approx(8.4)
    assert summary["repaths"] == 2          # the close and the open
    assert summary["unreachable"] == 2      # the re-plan and the fresh request from (0.7, 1.5)
    assert [(e["frame"], e["what"], e["areas_before"], e["areas_after"])
            for e in summary["events"]] == [(2, "close gate", 1, 2), (50, "open gate", 2, 1)]
    assert sim.agents.pos[0] == pytest.approx([8.5, 1.5])


@pytest.mark.nojit
def test_waypoints_loop_one_leg_per_ten_frames():
    # deterministic: requests served by a node budget, so a tick slowed by
    # a busy machine cannot push a leg into the next frame
    sim = _sim("""
settings: {dt: 0.1, deterministic: true, avoidance: false}
graphs: [{id: hall, type: grid, rows: ["......"]}]
agents:
  - {id: p, start: [0, 0], waypoints: [[5, 0], [0, 0]], loop: true, speed: 5}
""", deterministic=True)
    summary = sim.run(100)
    # each leg: served in one tick, then 10 frames of 0.5 cells = 5 cells,
    # the next request is served in the following tick
    assert summary["legs_completed"] == 10
    assert summary["path_length"]["total"] == pytest.approx(50.0)
    assert summary["agents"]["patrolling"] == 1 and summary["agents"]["arrived"] == 0


@pytest.mark.nojit
def test_goal_event_sends_the_agent_back():
    sim = _sim("""
settings: {dt: 0.5, avoidance: false}
graphs: [{id: hall, type: grid, rows: [".........."]}]
agents: [{id: a, start: [0, 0], goal: [9, 0], speed: 1}]
events: [{at: 5, goal: {agent: a, to: [0, 0]}}]
""")
    summary = sim.run(20)
    # 4 frames of 0.5 out, then 2 cells back
    assert summary["agents"]["arrived"] == 1
    assert summary["path_length"]["total"] == pytest.approx(4.0)
    assert sim.agents.pos[0] == pytest.approx([0.5, 0.5])
    assert summary["events"][0]["what"] == "goal of a -> [0, 0]"


@pytest.mark.nojit
def test_cost_event_makes_agents_walk_around_mud():
    sim = _sim("""
settings: {avoidance: false}
graphs: [{id: field, type: grid, rows: [".......", ".......", "......."]}]
agents: [{id: a, start: [0, 1], goal: [6, 1], speed: 10}]
events: [{at: 0, cost: {rect: [1, 1, 5, 1], value: 10}}]
""")
    summary = sim.run(40)
    # around the mud: a diagonal, 4 straight cells, a diagonal
    assert summary["agents"]["arrived"] == 1
    assert summary["path_length"]["total"] == pytest.approx(4 + 2 * math.sqrt(2))
    assert summary["events"][0]["what"] == "cost [1, 1, 5, 1] = 10"


@pytest.mark.nojit
def test_obstacle_bounces_and_leaves_a_closed_door_closed():
    sim = _sim("""
settings: {dt: 0.1}
graphs:
  - {id: hall, type: grid, rows: ["......"], doors: {d: {rect: [3, 0, 1, 1], open: false}}}
obstacles: [{id: cart, rect: [0, 0, 1, 1], velocity: [10, 0]}]
""")
    graph = sim.world.graph("hall")
    # one cell per frame, reflected at x = 5 and x = 0
    for x in [1, 2, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2]:
        sim.step()
        expected = np.ones(6, dtype=bool)
        expected[[3, x]] = False
        assert graph.walkable.tolist() == expected.tolist()


@pytest.mark.nojit
def test_crowd_cells_come_from_their_rectangles_and_the_seed():
    text = """
settings: {seed: 4, avoidance: false}
graphs: [{id: f, type: grid, rows: ["#.........", "..........", ".........."]}]
crowds: [{id: c, count: 30, from: [0, 0, 3, 3], to: [7, 0, 3, 3], speed: [1, 2]}]
"""
    a, b = _sim(text), _sim(text)
    assert np.array_equal(a.agents.pos, b.agents.pos)
    x, y = a.agents.pos[:, 0], a.agents.pos[:, 1]
    assert ((x > 0) & (x < 3) & (y > 0) & (y < 3)).all()
    assert not ((x == 0.5) & (y == 0.5)).any()          # never in the wall
    assert ((a.agents.speed >= 1) & (a.agents.speed <= 2)).all()
    assert [g[0][0] >= 7 for g in a.agents.goals] == [True] * 30
    c = _sim(text.replace("seed: 4", "seed: 5"))
    assert not np.array_equal(a.agents.pos, c.agents.pos)


def _polyline(rng):
    k = int(rng.integers(1, 8))
    p = rng.uniform(0, 50, size=(k, 2))
    if k > 2:
        p[1] = p[0]                          # a segment of length 0
    return p


@pytest.mark.nojit
def test_agents_move_along_polylines_like_a_naive_walker():
    world = navcore.World(autoload=False)
    world.add_graph("g", type="grid", rows=["." * 50] * 50)
    rng = np.random.default_rng(0)
    n = 40
    polys = [_polyline(rng) for _ in range(n)]
    speeds = rng.uniform(0.5, 6, n)
    agents = Agents(world, [f"a{i}" for i in range(n)], ["g"] * n,
                    [tuple(p[0]) for p in polys], [[(1, 1)]] * n, [False] * n,
                    speeds, [False] * n)
    since = np.zeros(n, dtype=int)          # frame each agent got its polyline
    travelled = np.zeros(n)
    dt = 0.25
    for frame in range(1, 61):
        if frame == 1 or frame % 7 == 0:     # new polylines for some agents, now and then
            for i in (range(n) if frame == 1 else rng.choice(n, 15, replace=False)):
                if frame > 1:
                    travelled[i] += _length_walked(polys[i], speeds[i] * dt * (frame - 1 - since[i]))
                    polys[i] = np.vstack((agents.pos[i], _polyline(rng)))
                agents.follow(i, polys[i])
                since[i] = frame - 1
        agents.move(dt)
        for i, p in enumerate(polys):
            expect = _walk(p, speeds[i] * dt * (frame - since[i]))
            assert agents.pos[i] == pytest.approx(expect), (i, frame)
    for i, p in enumerate(polys):
        travelled[i] += _length_walked(p, speeds[i] * dt * (60 - since[i]))
    assert agents.travelled == pytest.approx(travelled)


def _length_walked(poly, distance):
    return min(distance, np.linalg.norm(np.diff(poly, axis=0), axis=1).sum())


def _walk(poly, distance):
    """Where a walker is after ``distance`` along ``poly``, one segment at a time."""
    for a, b in zip(poly[:-1], poly[1:]):
        seg = float(np.hypot(*(b - a)))
        if distance <= seg:
            return a + (b - a) * (distance / seg if seg else 0.0)
        distance -= seg
    return poly[-1]


@pytest.mark.nojit
def test_frame_times_are_reported_against_the_budget():
    sim = _sim("""
settings: {frame_budget_ms: 1.5}
graphs: [{id: hall, type: grid, rows: ["......"]}]
agents: [{id: a, start: [0, 0], goal: [5, 0]}]
""")
    summary = sim.run(7)
    f = summary["timing"]["frame_ms"]
    assert summary["frames"] == 7 and len(sim.frame_ms) == 7
    assert f["budget"] == 1.5
    assert f["p50"] == pytest.approx(np.percentile(sim.frame_ms, 50))
    assert f["over_budget"] == sum(t > 1.5 for t in sim.frame_ms)
    assert f["max"] == max(sim.frame_ms)


# -- command line ------------------------------------------------------------------

SMALL = """\
name: small
settings: {dt: 0.1, frames: 50}
graphs: [{id: hall, type: grid, rows: ["......", "......"]}]
agents: [{id: a, start: [0, 0], goal: [5, 1], speed: 10}]
events: [{at: 3, block: [2, 0, 1, 1]}]
"""


@pytest.mark.nojit
def test_navcore_run_prints_a_summary_and_writes_json(tmp_path, capsys):
    scene = tmp_path / "small.yaml"
    scene.write_text(SMALL)
    out = tmp_path / "out" / "small.json"
    assert main(["run", str(scene), "--frames", "20", "--json", str(out),
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert f"{scene}: small: 20 frames of 0.1 s (2.0 s simulated)" in text
    assert "agents: 1/1 arrived" in text
    assert "frame     3  block [2, 0, 1, 1] [hall]  areas 1 -> 1" in text
    assert "budget 2 ms" in text
    data = json.loads(out.read_text())
    assert data["frames"] == 20 and data["agents"]["arrived"] == 1
    assert data["per_agent"][0]["id"] == "a"


@pytest.mark.nojit
def test_navcore_validate_and_run_exit_2_on_a_broken_scene(tmp_path, capsys):
    good = tmp_path / "good.yaml"
    good.write_text(SMALL)
    bad = tmp_path / "bad.yaml"
    bad.write_text(SMALL.replace("speed: 10", "sped: 10"))
    assert main(["validate", str(good)]) == 0
    assert capsys.readouterr().out == (
        f"{good}: ok: 'small': 1 graph (grid 6x2), 1 agent, 0 moving obstacles, 1 event, "
        f"50 frames of 0.1 s, budget 2 ms\n")
    assert main(["validate", str(good), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err == (f"navcore: error: {bad}:4:47: unknown key 'sped' in agent 'a'; "
                   f"did you mean 'speed'?\n")
    assert main(["run", str(bad)]) == 2
    assert "unknown key 'sped'" in capsys.readouterr().err


@pytest.mark.nojit
def test_progress_bar_counts_the_frames(capsys):
    sim = _sim(SMALL)
    sim.run(12, progress=True)
    err = capsys.readouterr().err
    assert "small:" in err and "0/12 [" in err      # redrawn at most every 0.1 s


@pytest.mark.nojit
def test_an_agent_buried_by_a_wall_steps_out_and_goes_on():
    sim = _sim("""
settings: {dt: 0.1, avoidance: false}
graphs: [{id: hall, type: grid, rows: ["....", "...."]}]
agents: [{id: a, start: [0, 0], goal: [3, 0], speed: 10}]
events: [{at: 1, block: [0, 0, 1, 1]}]
""")
    sim.run(10)
    # frame 1: the wall lands before the request is served: invalid start;
    # the agent waits RETRY_FRAMES (10) frames on the spot
    assert sim.agents.counts()["retry"] == 1
    assert sim.agents.pos[0] == pytest.approx([0.5, 0.5])
    summary = sim.run(10)
    # frame 11: it asks again from the nearest free cell, (1, 0), and walks
    # there and on to (3, 0): 3 cells at 1 cell per frame
    assert summary["agents"]["arrived"] == 1
    assert summary["path_length"]["total"] == pytest.approx(3.0)
    assert sim.agents.pos[0] == pytest.approx([3.5, 0.5])


@pytest.mark.nojit
def test_mud_leaves_walls_walls_and_an_infinite_cost_makes_walls():
    sim = _sim("""
graphs: [{id: f, type: grid, rows: ["..#..", "....."]}]
events:
  - {at: 1, cost: {rect: [1, 0, 3, 2], value: 2.5}}
  - {at: 2, cost: {rect: [0, 1, 1, 1], value: .inf}}
  - {at: 3, unblock: [2, 0, 1, 1]}
""")
    g = sim.world.graph("f")
    sim.step()
    assert g.walkable.reshape(2, 5).tolist() == [[True, True, False, True, True]] + [[True] * 5]
    assert g.cost.tolist() == [[1, 2.5, 2.5, 2.5, 1], [1, 2.5, 2.5, 2.5, 1]]
    sim.step()
    assert g.walkable.reshape(2, 5)[1].tolist() == [False, True, True, True, True]
    sim.step()     # the rock is cleared: mud under it
    assert g.walkable.reshape(2, 5)[0].tolist() == [True] * 5
    assert g.cost[0, 2] == 2.5


@pytest.mark.nojit
def test_an_opened_door_leaves_the_walls_it_was_drawn_over():
    sim = _sim("""
settings: {frames: 10}
graphs:
  - {id: a, type: grid, rows: ["...#...", "...#..."], doors: {wide: [2, 0, 3, 1]}}
events:
  - {at: 2, close: wide}
  - {at: 4, open: wide}
""")
    s = sim.run()
    assert [e["areas_after"] for e in s["events"]] == [2, 2]   # (3, 0) stays a wall
    assert not sim.world.graph("a").walkable[3] and sim.world.graph("a").walkable[2]


@pytest.mark.nojit
def test_an_agent_that_does_not_repath_stops_at_a_wall_instead_of_walking_through():
    sim = _sim("""
settings: {dt: 0.1, frames: 120}
graphs:
  - {id: k, type: grid, rows: ["....#....", ".........", "....#...."], doors: {gate: [4, 1, 1, 1]}}
agents:
  - {id: ghost, start: [0, 1], goal: [8, 1], speed: 2, repath: false, avoidance: false}
events:
  - {at: 5, close: gate}
""")
    s = sim.run()
    assert s["agents"]["stuck"] == 1 and s["agents"]["arrived"] == 0
    assert sim.agents.pos[0][0] < 4.0                 # held before the closed door


@pytest.mark.nojit
def test_agents_on_a_graph_with_positions_take_node_ids():
    sim = _sim("""
settings: {dt: 0.1, frames: 40}
graphs:
  - {id: town, type: csr, src: [0, 1, 2], dst: [1, 2, 3], cost: [1, 1, 1],
     positions: [[0, 0], [1, 0], [2, 0], [3, 0]], directed: false}
agents:
  - {id: bus, start: 0, goal: 3, speed: 2}
""")
    s = sim.run()
    assert s["agents"]["arrived"] == 1 and s["path_length"]["total"] == pytest.approx(3.0)


@pytest.mark.nojit
def test_run_checks_its_output_paths_before_playing(tmp_path, capsys):
    scene = tmp_path / "s.yaml"
    scene.write_text("settings: {frames: 3}\ngraphs: [{id: a, type: grid, rows: ['....']}]\n")
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["run", str(scene), "--json", str(blocker / "out.json")]) == 2
    assert "cannot make its folder" in capsys.readouterr().err
    assert main(["run", str(scene), "--render", str(tmp_path)]) == 2
    assert "is a folder, not a file" in capsys.readouterr().err
    assert main(["render", str(scene), "-o", str(tmp_path / "x.png"), "--scale", "9999"]) == 2
    assert "at most 16384 pixels a side" in capsys.readouterr().err


@pytest.mark.nojit
def test_ctrl_c_prints_what_was_played_and_exits_130(tmp_path, capsys, monkeypatch):
    scene = tmp_path / "s.yaml"
    scene.write_text("settings: {frames: 50}\ngraphs: [{id: a, type: grid, rows: ['....']}]\n")
    real = navcore.Simulation.step

    def step(self):
        if self.frame == 7:
            raise KeyboardInterrupt
        return real(self)

    monkeypatch.setattr(navcore.Simulation, "step", step)
    assert main(["run", str(scene), "--no-progress"]) == 130
    out = capsys.readouterr()
    assert ": 7 frames of" in out.out and "interrupted after 7 frames" in out.err


@pytest.mark.nojit
def test_plugin_option_loads_a_module_for_the_scene(tmp_path, capsys, monkeypatch):
    (tmp_path / "ringplug.py").write_text(
        "import numpy as np, navcore\n"
        "@navcore.hookimpl\n"
        "def navcore_graph_types():\n"
        "    def build(world, graph_id, n=5):\n"
        "        pos = np.column_stack((np.arange(n), np.zeros(n)))\n"
        "        return navcore.NavGraph.from_edges(range(n - 1), range(1, n), positions=pos,\n"
        "                                           directed=False, world=world)\n"
        "    return {'line': build}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    scene = tmp_path / "s.yaml"
    scene.write_text("settings: {frames: 30, dt: 0.1}\ngraphs: [{id: l, type: line}]\n"
                     "agents: [{id: x, start: 0, goal: 4, speed: 4}]\n")
    assert main(["validate", str(scene)]) == 2
    assert "unknown graph type 'line'" in capsys.readouterr().err
    assert main(["run", str(scene), "--plugin", "ringplug", "--no-progress"]) == 0
    assert "agents: 1/1 arrived" in capsys.readouterr().out
    assert main(["run", str(scene), "--plugin", "no_such_module_x"]) == 2
    assert "--plugin no_such_module_x: cannot import it" in capsys.readouterr().err


@pytest.mark.nojit
def test_an_agent_whose_own_cell_becomes_a_wall_walks_out_and_arrives():
    sim = _sim("""
settings: {dt: 0.1, frames: 300}
graphs: [{id: a, type: grid, rows: ["............", "............", "............",
                                     "............", "............"]}]
agents: [{id: x, start: [0, 2], goal: [11, 2], speed: 1.5}]
events: [{at: 12, block: [1, 2, 1, 1]}]
""")
    s = sim.run()
    assert s["agents"]["arrived"] == 1 and s["agents"]["stuck"] == 0
