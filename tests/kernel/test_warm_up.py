"""Kernels are ready before the first frame: after ``add_graph``
no ``tick`` loads or compiles a numba kernel, and ``World(warm_up=...)``
and ``ready()`` behave as documented.

The load check runs each scenario in a fresh interpreter, the only place
where "not loaded yet" is true (in this process earlier tests have loaded
everything). There it snapshots how many compiled signatures every numba
dispatcher holds after the graph is added and compares after each tick:
a kernel loaded from numba's cache or compiled during a frame shows up as
a new signature.
"""
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

import navcore

ROOT = Path(__file__).resolve().parents[2]
JIT_OFF = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")

PROBE = """
import gc, json, sys
import numpy as np
from numba.core.dispatcher import Dispatcher
import navcore

def signatures():
    return {f"{d.py_func.__module__}.{d.py_func.__qualname__}": len(d.signatures)
            for d in gc.get_objects() if isinstance(d, Dispatcher)}

loaded_in_ticks = {}
def tick(world):
    before = signatures()
    world.tick(1 / 60)
    for name, n in signatures().items():
        if n != before.get(name, 0):
            loaded_in_ticks[name] = n - before.get(name, 0)

world = navcore.World(frame_budget_ms=16.0)
"""

SCENARIOS = {
    "grid": """
rng = np.random.default_rng(3)
walk = rng.random((48, 64)) > 0.25
walk[0, :] = walk[:, 0] = True
world.add_graph("g", type="grid", array=walk)
h = world.request_path("g", (0, 0), (63, 0), repath=True)
tick(world)
world.update("g", rect=(0, 0, 8, 8), walkable=False)
world.request_path("g", (0, 20), (60, 40))
tick(world)
world.update("g", rect=(0, 0, 8, 8), walkable=True)
world.update("g", rect=(10, 10, 4, 4), cost=2.5)
tick(world)
world.update("g", cells=[(5, 5)], walkable=False)
tick(world)
""",
    "grid_sliced": """
world = navcore.World(frame_budget_ms=0.02)      # every search is stepped over frames
rng = np.random.default_rng(5)
walk = rng.random((120, 120)) > 0.3
walk[0, :] = walk[:, 0] = walk[-1, :] = walk[:, -1] = True
world.add_graph("g", type="grid", array=walk)
hs = [world.request_path("g", (0, 0), (119, 119), algorithm=a)
      for a in ("auto", "astar", "dijkstra", "auto", "astar", "dijkstra")]
while not all(h.done for h in hs):
    tick(world)
world.update("g", rect=(50, 50, 4, 4), walkable=False)
h = world.request_path("g", (119, 0), (0, 119))
while not h.done:
    tick(world)
""",
    # background search threads load nothing either, in a tick or between
    "grid_background": """
world = navcore.World(workers=1, background=True)
rng = np.random.default_rng(5)
walk = rng.random((120, 120)) > 0.3
walk[0, :] = walk[:, 0] = walk[-1, :] = walk[:, -1] = True
world.add_graph("g", type="grid", array=walk)
start = signatures()
hs = [world.request_path("g", (0, 0), (119, 119), algorithm=a)
      for a in ("auto", "astar", "dijkstra")]
while not all(h.done for h in hs):
    tick(world)
world.update("g", rect=(50, 50, 4, 4), walkable=False)
h = world.request_path("g", (119, 0), (0, 119), repath=True)
while not h.done:
    tick(world)
for name, n in signatures().items():
    if n != start.get(name, 0):
        loaded_in_ticks[name] = n - start.get(name, 0)
world.close()
""",
    "csr": """
rng = np.random.default_rng(4)
src = rng.integers(0, 300, 1500); dst = rng.integers(0, 300, 1500)
world.add_graph("c", type="csr", src=src, dst=dst, cost=rng.random(1500) + 0.1,
                directed=True, num_nodes=300)
world.request_path("c", 0, 299, repath=True)
tick(world)
world.update("c", nodes=[5, 6, 7], walkable=False)
world.request_path("c", 1, 298)
tick(world)
world.update("c", nodes=[5, 6, 7], walkable=True)
tick(world)
""",
    # views built after add_graph (contract, simplify): their builders
    # load what queries on them run, the ticks' batches and stepped
    # searches included, and an update that stales or patches them
    "csr_views": """
from navcore_csr import contract, simplify
rng = np.random.default_rng(4)
# first, a graph whose first 4096+ nodes are blocked: the warm-ups looked
# for walkable nodes among those only, and loaded nothing on it
n = 5000
world.add_graph("b", type="csr", src=np.arange(n - 1), dst=np.arange(1, n), directed=False,
                walkable=np.arange(n) >= 4500)
world.request_path("b", 4600, 4990)
tick(world)
src = rng.integers(0, 300, 1500); dst = rng.integers(0, 300, 1500)
g = world.add_graph("c", type="csr", src=src, dst=dst, cost=rng.random(1500) + 0.1,
                    directed=True, num_nodes=300)
# a lattice of 1-cost streets with long corridors: two-way, with positions
side = 24
ids = np.arange(side * side).reshape(side, side)
keep = np.zeros((side, side), bool); keep[::4, :] = keep[:, ::4] = True
a = np.concatenate([ids[:, :-1][keep[:, :-1] & keep[:, 1:]], ids[:-1, :][keep[:-1] & keep[1:]]])
b = np.concatenate([ids[:, 1:][keep[:, :-1] & keep[:, 1:]], ids[1:, :][keep[:-1] & keep[1:]]])
xy = np.stack([ids.ravel() % side, ids.ravel() // side], 1).astype(float)
u = world.add_graph("u", type="csr", src=a, dst=b, cost=np.ones(a.size), positions=xy,
                    directed=False, num_nodes=side * side)
contract(g)
contract(u)
simplify(u, levels=2)                     # patches run on both levels
simplify(g)
world.request_path("c", 0, 299, repath=True)
world.request_path("c", 3, 250, algorithm="ch")
world.request_path("u", 0, side * side - 1, repath=True)
world.request_path("u", 4, side * side - 5, algorithm="simplified")
world.request_path("u", 8, side * side - 9, algorithm="ch")
tick(world)
world.update("u", nodes=[ids[4, 2]], walkable=False)     # the simplified view is patched
world.update("c", nodes=[5, 6, 7], walkable=False)       # the hierarchy goes stale
world.request_path("u", 1, side * side - 2, algorithm="simplified")
world.request_path("c", 1, 298)
tick(world)
world.update("u", nodes=[ids[4, 2]], walkable=True)
tick(world)
contract(g)
world.frame_budget_ms = 0.001                             # every search is stepped
hs = [world.request_path(gid, 0, n - 1, algorithm=alg)
      for gid, n in (("c", 300), ("u", side * side))
      for alg in ("auto", "astar", "dijkstra", "ch")]
while not all(h.done for h in hs):
    tick(world)
""",
    "grid_views": """
from navcore_csr import contract, simplify
from navcore_grid import landmarks
rng = np.random.default_rng(6)
walk = rng.random((40, 50)) > 0.25
walk[0, :] = walk[:, 0] = walk[-1, :] = walk[:, -1] = True
# first, a map whose first 4096+ cells are walls (0) and whose costs
# differ: the areas' warm-up looked for a walkable cell among those only,
# and left the lattice update kernel to the first tick; JPS (costs all 1)
# did not apply, so its kernels were left to the tick after the costs
# evened out
walled = np.zeros((90, 64)); walled[70:, :] = rng.random((20, 64)) > 0.3
walled[[70, 89], :] = 1.0; walled[80:83, 40:43] = 3.0
world.add_graph("w", type="grid", array=walled)
world.update("w", rect=(10, 75, 3, 3), walkable=False)
tick(world)
world.update("w", rect=(40, 80, 3, 3), cost=1.0)          # JPS serves it from here
world.request_path("w", (0, 89), (63, 70), repath=True)
tick(world)
g = world.add_graph("g", type="grid", array=walk)
landmarks(g, 4)
world.request_path("g", (0, 0), (49, 39), repath=True)
world.request_path("g", (0, 39), (49, 0), algorithm="astar")
tick(world)
world.update("g", rect=(20, 20, 3, 3), walkable=False)    # landmarks stay current
world.request_path("g", (49, 0), (0, 39), algorithm="dijkstra")
tick(world)
world.update("g", rect=(20, 20, 3, 3), walkable=True)     # ... stale after this
tick(world)
landmarks(g)
world.frame_budget_ms = 0.001                             # every search is stepped
hs = [world.request_path("g", (0, 0), (49, 39), algorithm=a)
      for a in ("auto", "astar", "dijkstra", "jps")]
while not all(h.done for h in hs):
    tick(world)
world.frame_budget_ms = 16.0
simplify(g)
contract(g)
world.request_path("g", (0, 0), (49, 39), repath=True)
world.request_path("g", (0, 39), (49, 0), algorithm="simplified")
world.request_path("g", (49, 0), (0, 39), algorithm="ch")
tick(world)
world.update("g", rect=(30, 10, 2, 2), walkable=False)
world.request_path("g", (0, 0), (49, 39), algorithm="simplified")
tick(world)
world.frame_budget_ms = 0.001
hs = [world.request_path("g", (0, 0), (49, 39), algorithm=a)
      for a in ("auto", "astar", "simplified")]
while not all(h.done for h in hs):
    tick(world)
""",
    "navmesh": """
world.add_graph("m", type="navmesh", bounds=(0, 0, 40, 30),
                obstacles=[[[5, 5], [9, 5], [9, 12], [5, 12]],
                           [[20, 10], [26, 10], [23, 18]]])
world.request_path("m", (1.0, 1.0), (38.0, 28.0), repath=True)
tick(world)
world.update("m", add_obstacle=[[14, 2], [18, 2], [18, 26], [14, 26]], obstacle_id="wall")
world.request_path("m", (1.0, 28.0), (38.0, 2.0))
tick(world)
world.update("m", remove_obstacle="wall")
tick(world)
""",
    "navmesh_sliced": """
world = navcore.World(frame_budget_ms=0.005)     # every search is stepped over frames
obstacles = [[[5, 5], [9, 5], [9, 12], [5, 12]], [[20, 10], [26, 10], [23, 18]],
             [[12, 0], [13, 0], [13, 22], [12, 22]], [[30, 8], [31, 8], [31, 30], [30, 30]]]
world.add_graph("m", type="navmesh", bounds=(0, 0, 40, 30), obstacles=obstacles)
world.add_graph("s", type="navmesh", bounds=(0, 0, 40, 30), obstacles=obstacles,
                tile_size=0)
for gid in ("m", "s"):
    hs = [world.request_path(gid, (1.0, 1.0), (38.0, 28.0), algorithm=a)
          for a in ("auto", "polyanya", "funnel", "polygon_astar", "auto", "funnel")]
    while not all(h.done for h in hs):
        tick(world)
    # an update between: the static mesh blocks a polygon, the tiled one is
    # re-tiled, while searches are under way
    hs = [world.request_path(gid, (1.0, 28.0), (38.0, 2.0), algorithm=a)
          for a in ("polyanya", "funnel")]
    tick(world)
    if gid == "m":
        world.update(gid, add_obstacle=[[14, 2], [18, 2], [18, 26], [14, 26]],
                     obstacle_id="wall")
    else:
        world.update(gid, nodes=[int(world.graph(gid).node_of((20.0, 25.0)))],
                     walkable=False)
    while not all(h.done for h in hs):
        tick(world)
    # a game's own stepped search (not a tick's), its partial path read
    # between frames: no kernel loads either
    for algo in ("polyanya", "funnel"):
        before = signatures()
        search = world.begin_search(gid, (1.0, 2.0), (38.0, 27.0), algorithm=algo)
        search.step(1)
        search.result(partial=True)
        search.close()
        for name, n in signatures().items():
            if n != before.get(name, 0):
                loaded_in_ticks[name] = n - before.get(name, 0)
""",
    # find_path and World.find_path's ends (not a tick's batch) right after
    # add_graph: a query's two ends are located in one kernel of their own
    "navmesh_find_path": """
world.add_graph("m", type="navmesh", bounds=(0, 0, 40, 30),
                obstacles=[[[5, 5], [9, 5], [9, 12], [5, 12]]])
world.add_graph("s", type="navmesh", bounds=(0, 0, 40, 30), tile_size=0,
                obstacles=[[[5, 5], [9, 5], [9, 12], [5, 12]]])
for gid in ("m", "s"):
    before = signatures()
    world.find_path(gid, (1.0, 1.0), (38.0, 28.0))
    world.find_path(gid, np.array([1.0, 28.0]), np.array([38.0, 2.0]))
    for name, n in signatures().items():
        if n != before.get(name, 0):
            loaded_in_ticks[name] = n - before.get(name, 0)
""",
    # the crowd hooks right after add_graph and after updates (a crowd
    # calls them in its step, inside a tick): their kernels are warm too
    "crowd_hooks": """
walls = world.plugins.caller("navcore_walls")
move = world.plugins.caller("navcore_move_along_surface")
def crowd_calls(gid):
    before = signatures()
    g = world.graph(gid)
    walls(world, g)
    start = np.array([[1.5, 1.5], [3.2, 2.7], [-4.0, 2.0]])
    end = np.array([[6.5, 1.5], [3.2, 9.0], [2.0, 2.0]])
    points, nodes = move(world, g, start, np.full(3, -1, dtype=np.int32), end)
    move(world, g, points, nodes, start)
    move(world, g, np.empty((0, 2)), np.empty(0, dtype=np.int32), np.empty((0, 2)))
    for name, n in signatures().items():
        if n != before.get(name, 0):
            loaded_in_ticks[name] = n - before.get(name, 0)
walk = np.ones((12, 16), dtype=bool); walk[2:9, 4] = False
world.add_graph("g", type="grid", array=walk)
obstacles = [[[5, 2], [8, 2], [8, 6], [5, 6]]]
world.add_graph("m", type="navmesh", bounds=(0, 0, 20, 10), obstacles=obstacles)
world.add_graph("s", type="navmesh", bounds=(0, 0, 20, 10), obstacles=obstacles, tile_size=0)
for gid in ("g", "m", "s"):
    crowd_calls(gid)
world.update("g", rect=(8, 0, 1, 6), walkable=False)
world.update("m", add_obstacle=[[12, 1], [14, 1], [14, 8], [12, 8]], obstacle_id="wall")
world.update("s", nodes=[int(world.graph("s").node_of((15.0, 8.0)))], walkable=False)
tick(world)
for gid in ("g", "m", "s"):
    crowd_calls(gid)
""",
    # a crowd's step inside tick: add_crowd loads the step's kernels
    "crowd": """
walk = np.ones((12, 16), dtype=bool); walk[2:9, 4] = False
world.add_graph("g", type="grid", array=walk)
world.add_graph("m", type="navmesh", bounds=(0, 0, 20, 10),
                obstacles=[[[5, 2], [8, 2], [8, 6], [5, 6]]])
for gid in ("g", "m"):
    crowd = world.add_crowd("c" + gid, graph=gid, radius=0.3)
    crowd.add([(1.5, 1.5), (1.5, 2.5), (2.5, 1.5), (10.5, 9.5)],
              goals=[(10.5, 8.5), (11.5, 8.5), (12.5, 8.5), (1.5, 1.5)])
for _ in range(40):
    tick(world)
world.update("g", rect=(8, 0, 1, 6), walkable=False)
for _ in range(10):
    tick(world)
""",
    # two agents meet head-on in a passage one cell wide: one backs out
    # (the jam's kernels are loaded with the crowd too)
    "crowd_head_on": """
world.add_graph("g", type="grid", rows=["...#####...", "...#####...", "...........",
                                        "...#####...", "...#####..."])
crowd = world.add_crowd("c", graph="g", radius=0.4, max_speed=1.5)
crowd.add([(0.5, 2.5), (10.5, 2.5)], goals=[(10.5, 2.5), (0.5, 2.5)])
before = signatures()               # once round the ticks: a scan per tick is slow
for _ in range(300):
    world.tick(0.1)
    if crowd.arrived.all():
        break
for name, n in signatures().items():
    if n != before.get(name, 0):
        loaded_in_ticks[name] = n - before.get(name, 0)
assert crowd.arrived.all(), crowd.state_names()
""",
    # a crowd on a grid whose units share a goal walks a flow field: its
    # kernels are loaded when the crowd is made, not in its first steps
    "crowd_flow_field": """
walk = np.ones((12, 16), dtype=bool); walk[2:9, 4] = False
world.add_graph("g", type="grid", array=walk)
crowd = world.add_crowd("c", graph="g", radius=0.3)
crowd.add([(0.5 + i, 0.5) for i in range(10)], goals=(14.5, 10.5))
crowd.add([(0.5, 10.5), (1.5, 11.5)], goals=(3.5, 3.5))
for _ in range(3):
    tick(world)
world.update("g", rect=(8, 0, 1, 6), walkable=False)
tick(world)
""",
    # ... and on a navmesh: the field's kernels are loaded with the graph
    "crowd_flow_field_navmesh": """
world.add_graph("m", type="navmesh", bounds=(0, 0, 20, 10),
                obstacles=[[[5, 2], [8, 2], [8, 6], [5, 6]]])
crowd = world.add_crowd("c", graph="m", radius=0.3)
crowd.add([(0.5 + i, 0.5) for i in range(10)], goals=(14.5, 8.5))
for _ in range(3):
    tick(world)
world.update("m", add_obstacle=[[12, 1], [14, 1], [14, 8], [12, 8]], obstacle_id="wall")
tick(world)
tick(world)
""",
    # a crowd on a 3D level: walking down a ramp, under a floor, up a
    # link (an off-mesh jump), and placed again after an update
    "crowd_level": """
floor = np.array([[0, 0, 0], [24, 0, 0], [24, 0, 10], [0, 0, 10]], dtype=float)
upper = np.array([[0, 4, 0], [10, 4, 0], [10, 4, 10], [0, 4, 10]], dtype=float)
ramp = np.array([[10, 4, 6], [20, 0, 6], [20, 0, 10], [10, 4, 10]], dtype=float)
quads = np.array([[0, 2, 1], [0, 3, 2]])
g = world.add_graph("s", type="level", vertices=np.vstack([floor, upper, ramp]),
                    triangles=np.vstack([quads, quads + 4, quads + 8]),
                    links=[{"start": (12.0, 0.2, 2.0), "end": (8.0, 4.2, 2.0), "kind": "jump"}])
crowd = world.add_crowd("c", graph="s", radius=0.3, max_speed=3.0)
crowd.add([(5.0, 4.2, 3.0), (15.0, 0.2, 2.0), (2.0, 0.2, 2.0)],
          goals=[(2.0, 0.2, 8.0), (3.0, 4.2, 2.0), (6.0, 0.2, 2.0)])
for _ in range(150):
    tick(world)
assert "on_link" in crowd.state_names()
world.update("s", nodes=[int(g.nearest_polys([(5.0, 0.2, 3.0)])[0][0])], walkable=False)
for _ in range(10):
    tick(world)
""",
    "roads": """
g = world.add_graph("r", type="roads", osm=sys.argv[1])
a, b = 0, g.num_nodes - 1
world.request_path("r", a, b, repath=True)
tick(world)
e = int(g.csr.targets[g.csr.offsets[a]])
world.update("r", edges=[(a, e)], cost=float("inf"))
world.request_path("r", b, a)
tick(world)
world.update("r", edges=[(a, e)], factor=2.0)
tick(world)
world.update("r", edges=[(a, e)], reset=True)
tick(world)
""",
    "roads_sliced": """
world = navcore.World(frame_budget_ms=0.02)      # long searches are stepped over frames
g = world.add_graph("r", type="roads", osm=sys.argv[1])
a, b = 0, g.num_nodes - 1
e = int(g.csr.targets[g.csr.offsets[a]])
for ends in ((a, b), (b, a)):
    hs = [world.request_path("r", *ends, algorithm=x)
          for x in ("auto", "dijkstra", "astar", "bidijkstra") * 2]
    hs.append(world.request_path("r", *ends, algorithm="astar", max_nodes=40, partial=True))
    points = [tuple(g.positions[v] + 1e-5) for v in ends]      # phantom nodes on roads
    hs += [world.request_path("r", *points, algorithm=x) for x in ("auto", "bidijkstra")]
    while not all(h.done for h in hs):
        tick(world)
    world.update("r", edges=[(a, e)], factor=2.0)
    tick(world)
""",
    "roads_views": """
import navcore_roads
world = navcore.World(frame_budget_ms=0.02)      # ch searches are stepped over frames
g = world.add_graph("r", type="roads", osm=sys.argv[1])
navcore_roads.contract(g, progress=False)         # views built after add_graph
navcore_roads.contract(g, customizable=True)
a, b = 0, g.num_nodes - 1
e = int(g.csr.targets[g.csr.offsets[a]])
hs = [world.request_path("r", a, b, algorithm=x)
      for x in ("ch", "cch", "auto", "ch", "ch", "cch", "cch")]
while not all(h.done for h in hs):
    tick(world)
world.update("r", edges=[(a, e)], factor=2.0)     # customized again; the plain one is stale
tick(world)
world.update("r", edges=[(a, e)], factor=3.0)     # partial customizations from here on
tick(world)
world.update("r", edges=[(a, e)], reset=True)
tick(world)
hs = [world.request_path("r", b, a, algorithm=x) for x in ("cch", "auto", "cch", "cch")]
while not all(h.done for h in hs):
    tick(world)
""",
    "roads_batches": """
import navcore_roads
world = navcore.World(workers=2)                  # batches searched on two threads
g = world.add_graph("r", type="roads", osm=sys.argv[1])
navcore_roads.contract(g, progress=False)
navcore_roads.contract(g, customizable=True)
rng = np.random.default_rng(1)
for algorithm in ("ch", "cch"):
    for k in (3, 200):            # a few (one thread) and many (two where both cores are free)
        pairs = rng.integers(0, g.num_nodes, (k, 2)).tolist()
        hs = [world.request_path("r", a, b, algorithm=algorithm) for a, b in pairs]
        while not all(h.done for h in hs):
            tick(world)
""",
}


@pytest.mark.skipif(JIT_OFF, reason="no numba dispatchers without the JIT")
@pytest.mark.parametrize("kind", sorted(SCENARIOS))
def test_no_tick_loads_a_kernel_after_add_graph(kind, tmp_path):
    script = PROBE + textwrap.dedent(SCENARIOS[kind]) + (
        "\nprint(json.dumps(loaded_in_ticks))\nworld.scheduler.close()\n")
    path = tmp_path / "probe.py"
    path.write_text(script)
    out = subprocess.run([sys.executable, str(path),
                          str(ROOT / "scenes" / "maps" / "monaco.osm.gz")],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded == {}, f"kernels loaded inside a tick on a {kind} graph: {loaded}"


def _rows():
    return ["....#....", ".........", "....#...."]


def test_warm_up_argument_is_strict():
    for bad in (1, 0, "yes", "now", None, np.bool_(True)):
        with pytest.raises(navcore.FrameError, match="warm_up must be"):
            navcore.World(warm_up=bad)


def test_add_graph_warms_up_and_counts_the_time():
    w = navcore.World()
    assert w.warm_up_seconds == 0.0
    w.add_graph("g", type="grid", rows=_rows())
    assert w.warm_up_seconds > 0.0 and w.ready(0) is True


class _Recorder:
    """A plugin that records warm-up calls and can hold one up."""

    def __init__(self):
        self.calls = []
        self.gate = threading.Event()
        self.thread = []

    @navcore.hookimpl
    def navcore_warm_up(self, graph):
        self.thread.append(threading.current_thread().name)
        self.gate.wait(10)
        self.calls.append(graph.graph_id)


@pytest.mark.nojit
@pytest.mark.parametrize("kind", ["csr", "grid"])
def test_view_builders_and_world_warm_up_warm_the_views(kind, monkeypatch):
    # which views' warm_up ran (the probe above checks what they load in a
    # fresh process; this checks who calls them, and that stale ones are left)
    from navcore_csr import (ContractedGraph, SimplifiedGraph, contract, contracted_view,
                             simplify)
    warmed = []
    for cls in (ContractedGraph, SimplifiedGraph):
        def spy(self, _orig=cls.warm_up, _name=cls.__name__):
            warmed.append(_name)
            _orig(self)
        monkeypatch.setattr(cls, "warm_up", spy)
    w = navcore.World()
    if kind == "csr":
        g = w.add_graph("g", type="csr", src=[0, 1, 2, 3], dst=[1, 2, 3, 4],
                        cost=[1.0, 2.0, 3.0, 4.0], directed=False)
    else:
        g = w.add_graph("g", type="grid", rows=_rows())
    assert warmed == []
    contract(g)
    simplify(g)
    assert warmed == ["ContractedGraph", "SimplifiedGraph"]   # before they were kept
    contract(g)
    simplify(g)                                   # current: kept, not built again
    assert len(warmed) == 2
    w.warm_up("g")
    assert sorted(warmed[2:]) == ["ContractedGraph", "SimplifiedGraph"]
    w.update("g", nodes=[2], walkable=False) if kind == "csr" else \
        w.update("g", cells=[(1, 1)], walkable=False)
    w.tick()
    # the hierarchy is stale now (any update); the simplified view follows
    # the closed node in place and stays current
    assert contracted_view(g) is None
    w.warm_up("g")
    assert warmed[4:] == ["SimplifiedGraph"]


def test_warm_up_off_and_explicit_warm_up():
    rec = _Recorder()
    rec.gate.set()
    w = navcore.World(plugins=[rec], warm_up=False)
    w.add_graph("g", type="grid", rows=_rows())
    assert rec.calls == [] and w.warm_up_seconds == 0.0
    w.warm_up()
    assert rec.calls == ["g"]


def test_background_warm_up_is_waited_for_by_ready_queries_and_tick():
    rec = _Recorder()
    w = navcore.World(plugins=[rec], warm_up="background")
    w.add_graph("a", type="grid", rows=_rows())            # returns before the warm-up
    w.add_graph("b", type="grid", rows=_rows())
    assert rec.calls == [] and w.ready(timeout=0.05) is False
    assert rec.thread and rec.thread[0].startswith("navcore-warm-up")
    rec.gate.set()
    # a query waits for its graph's warm-up instead of racing it
    assert w.find_path("b", (0, 0), (8, 0)).status.value == "found"
    assert rec.calls == ["a", "b"]                         # in order, one at a time
    assert w.ready(0) is True
    w.tick()
    w.scheduler.close()


def test_tick_waits_for_background_warm_up():
    rec = _Recorder()
    w = navcore.World(plugins=[rec], warm_up="background")
    w.add_graph("g", type="grid", rows=_rows())
    threading.Timer(0.05, rec.gate.set).start()
    w.tick()
    assert rec.calls == ["g"] and w.ready(0)


def test_a_failed_background_warm_up_is_raised_by_ready():
    class Broken:
        @navcore.hookimpl
        def navcore_warm_up(self, graph):
            raise RuntimeError("kernel exploded")

    w = navcore.World(plugins=[Broken()], warm_up="background")
    w.add_graph("g", type="grid", rows=_rows())
    with pytest.raises(RuntimeError, match="kernel exploded"):
        w.ready()
    assert w.ready() is True                    # reported once
    assert w.find_path("g", (0, 0), (8, 0)).status.value == "found"


def test_a_failed_warm_up_leaves_the_world_unchanged():
    class Broken:
        @navcore.hookimpl
        def navcore_warm_up(self, graph):
            raise RuntimeError("kernel exploded")

    w = navcore.World(plugins=[Broken()])
    with pytest.raises(RuntimeError):
        w.add_graph("g", type="grid", rows=_rows())
    assert "g" not in w.graphs


@pytest.mark.skipif(JIT_OFF, reason="nothing compiles without the JIT")
def test_compile_progress_counts_compiles_and_reports_slow_ones():
    import io

    import numba

    from navcore.progress import compile_progress

    def make():
        @numba.njit          # a fresh dispatcher: compiled (not cached) on first call
        def twice(x):
            return 2 * x
        return twice

    quiet = io.StringIO()
    with compile_progress(file=quiet, delay=60.0) as counter:
        assert make()(3) == 6
    assert counter.compiled == 1 and quiet.getvalue() == ""     # fast: nothing shown
    shown = io.StringIO()
    with compile_progress(file=shown, delay=0.0) as counter:
        make()(4.5)
        make()(1)
    assert counter.compiled == 2
    assert "navcore: compiled 2 kernels in" in shown.getvalue()
    with compile_progress(file=shown, delay=0.0) as counter:
        pass
    assert counter.compiled == 0


def test_scene_summary_counts_the_warm_up_done_by_add_graph():
    from navcore_scenes import Simulation

    with Simulation.from_file(ROOT / "scenes" / "dungeon.yaml") as sim:
        assert sim.warm_up_s == sim.world.warm_up_seconds > 0


@pytest.mark.nojit
def test_heartbeat_names_a_long_stage_and_is_silent_for_short_ones():
    import io
    import time

    from navcore.progress import current_stage, heartbeat, stage

    out = io.StringIO()
    with heartbeat(file=out, delay=0.05, every=0.02):
        with stage("quick work"):
            pass
        with stage("reading a huge map"):
            assert current_stage()[0] == "reading a huge map"
            with stage("inner part"):
                assert current_stage()[0] == "inner part"
            time.sleep(0.3)
    assert current_stage() is None
    text = out.getvalue()
    assert "navcore: reading a huge map (still working after" in text
    assert text.count("reading a huge map") == 1 and "quick work" not in text


@pytest.mark.nojit
def test_add_graph_runs_as_a_named_stage():
    from navcore.progress import current_stage

    seen = []

    class Spy:
        @navcore.hookimpl
        def navcore_graph_built(self, graph):
            seen.append(current_stage()[0])

    w = navcore.World(plugins=[Spy()], warm_up=False)
    w.add_graph("g", type="grid", rows=_rows())
    assert seen == ["building the views of graph 'g' (areas, ...)"]


@pytest.mark.parametrize("walls_first", [0, 110])
def test_every_worker_thread_has_its_scratch_before_the_first_frame(walls_first):
    # a worker's first search used to allocate its scratch inside a frame
    # (78 ms on a 1000x1000 grid); the warm-up makes one on every worker,
    # also on a map whose first 4096+ cells are walls (the warm-ups looked
    # for a walkable cell among those only, and made none there)
    w = navcore.World(workers=2, frame_budget_ms=100.0)
    g = w.add_graph("g", type="grid", rows=["#" * 40] * walls_first + ["." * 40] * 30)
    made = len(g.scratch_sets)
    # this thread, both workers, the two-slot stack of the parallel rounds
    # (navcore_grid.parallel) and the pool's slot of stepped searches
    # (navcore_grid.sliced)
    assert made == 5
    hs = [w.request_path("g", (0, walls_first + y), (39, walls_first + 29 - y))
          for y in range(30)]
    w.scheduler.min_chunk_ms = 0            # every round goes to the workers
    w.tick()
    assert all(h.done for h in hs) and len(g.scratch_sets) == made
    w.scheduler.close()
