"""Off-mesh links on level graphs (``links=``: jumps, ladders, doors,
teleporters), searched exactly by ``find_path`` (``navcore_navmesh.links``).

Truths: hand-made levels of flat rectangles, where each walk between two
points of one rectangle is the straight line (so a path through a link
costs the straight horizontal lengths to and from it plus the link's
cost, computable by hand), and the same level searched without links."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import navcore
from navcore.types import PathLink, PathStatus

from levelkit import join, quad

CELL = 0.5
H = 0.2                        # a walkable surface at y lies at y + cell_height in the mesh


#: a floor (x 0..10, y 0) and a platform 3 higher (x 12..22), two apart:
#: no walkable geometry joins them
PLATFORMS = join(quad(0, 10, 0, 10, 0.0), quad(12, 22, 0, 10, 3.0))
LOW, HIGH = (2.0, H, 2.0), (20.0, 3 + H, 8.0)
UP = {"start": (8.0, H, 5.0), "end": (14.0, 3 + H, 5.0), "kind": "jump"}

#: a U of floor: two strips (z 0..4 and z 8..12) joined at x 16..20 only
U_FLOOR = join(quad(0, 20, 0, 4, 0.0), quad(16, 20, 4, 8, 0.0), quad(0, 20, 8, 12, 0.0))
U_START, U_GOAL = (2.0, H, 2.0), (6.0, H, 10.0)
ACROSS = {"start": (4.0, H, 2.0), "end": (4.0, H, 10.0), "kind": "teleport"}


def level(world, gid, geometry, links=None, **settings):
    v, t = geometry
    return world.add_graph(gid, type="level", vertices=v, triangles=t, cell_size=CELL,
                           links=links, **settings)


def flat(a, b) -> float:
    """The horizontal (x, z) distance between two y-up points."""
    return math.hypot(a[0] - b[0], a[2] - b[2])


def same_path(a, b):
    assert a.status is b.status
    assert a.points.tolist() == b.points.tolist()
    assert a.cost == b.cost and a.links == b.links
    assert np.asarray(a.nodes).tolist() == np.asarray(b.nodes).tolist()


@pytest.fixture(scope="module")
def world():
    w = navcore.World()
    level(w, "plain", PLATFORMS)
    level(w, "up", PLATFORMS, [UP])
    level(w, "oneway", PLATFORMS, [dict(UP, bidirectional=False)])
    level(w, "u_plain", U_FLOOR)
    level(w, "u_short", U_FLOOR, [ACROSS])
    level(w, "u_dear", U_FLOOR, [dict(ACROSS, cost=100.0)])
    return w


def test_a_path_exists_only_through_the_link_and_reports_it(world):
    assert world.find_path("plain", LOW, HIGH).status is PathStatus.UNREACHABLE
    r = world.find_path("up", LOW, HIGH)
    assert r.found
    link_cost = math.dist(UP["start"], UP["end"])          # the default: 3D length
    want = flat(LOW, UP["start"]) + link_cost + flat(UP["end"], HIGH)
    assert r.cost == pytest.approx(want, abs=1e-9)
    assert r.links == (PathLink(0, "jump", 1),)
    p = r.points
    assert len(p) == 4
    np.testing.assert_allclose(p[0], LOW, atol=1e-6)
    np.testing.assert_allclose(p[1], UP["start"], atol=1e-6)   # the link's start...
    np.testing.assert_allclose(p[2], UP["end"], atol=1e-6)     # ...then its end
    np.testing.assert_allclose(p[3], HIGH, atol=1e-6)
    # the polygons: those of the low floor, then the platform's
    g = world.graphs["up"]
    assert g.locate(LOW) == r.nodes[0] and g.locate(HIGH) == r.nodes[-1]


def test_a_bidirectional_link_is_taken_backwards(world):
    r = world.find_path("up", HIGH, LOW)
    assert r.found and r.links == (PathLink(0, "jump", 1),)
    np.testing.assert_allclose(r.points[1], UP["end"], atol=1e-6)
    np.testing.assert_allclose(r.points[2], UP["start"], atol=1e-6)
    assert r.cost == pytest.approx(world.find_path("up", LOW, HIGH).cost, abs=1e-9)


def test_a_one_way_link_is_used_one_way_only(world):
    there = world.find_path("oneway", LOW, HIGH)
    assert there.found and there.links == (PathLink(0, "jump", 1),)
    back = world.find_path("oneway", HIGH, LOW)
    assert back.status is PathStatus.UNREACHABLE and back.links == ()


def test_a_cheap_shortcut_is_taken_and_a_dear_one_is_not(world):
    around = world.find_path("u_plain", U_START, U_GOAL)
    assert around.found and around.links == ()
    short = world.find_path("u_short", U_START, U_GOAL)
    want = flat(U_START, ACROSS["start"]) + 8.0 + flat(ACROSS["end"], U_GOAL)
    assert want < around.cost
    assert short.cost == pytest.approx(want, abs=1e-9)
    assert short.links == (PathLink(0, "teleport", 1),)
    dear = world.find_path("u_dear", U_START, U_GOAL)
    assert 100.0 > around.cost
    assert dear.links == ()
    assert dear.points.tolist() == around.points.tolist() and dear.cost == around.cost


def test_a_link_at_the_query_ends_gives_no_repeated_points(world):
    # the walks to and from the link have no length: the path is the link
    r = world.find_path("u_short", ACROSS["start"], ACROSS["end"])
    assert r.cost == pytest.approx(8.0, abs=1e-9)
    assert r.links == (PathLink(0, "teleport", 0),) and len(r.points) == 2


def test_requests_and_stepped_searches_equal_find_path(world):
    cases = [("up", LOW, HIGH), ("up", HIGH, LOW), ("oneway", HIGH, LOW),
             ("u_short", U_START, U_GOAL), ("u_dear", U_START, U_GOAL)]
    for gid, a, b in cases:
        whole = world.find_path(gid, a, b)
        s = world.begin_search(gid, a, b)
        while not s.step(1):
            pass
        same_path(s.result(), whole)
        assert s.result().expanded == whole.expanded
        capped = world.find_path(gid, a, b, max_nodes=10**6)
        same_path(capped, whole)
        h = world.request_path(gid, a, b)
        for _ in range(50):
            world.tick()
            if h.done:
                break
        same_path(h.result(), whole)


def test_a_capped_search_stops_and_gives_a_partial_path_from_the_start(world):
    whole = world.find_path("u_short", U_START, (18.0, H, 2.0))
    assert whole.expanded > 1
    r = world.find_path("u_short", U_START, (18.0, H, 2.0), max_nodes=1, partial=True)
    # the first walk weighed starts at the start: its partial path
    assert r.status is PathStatus.PARTIAL and r.links == ()
    np.testing.assert_allclose(r.points[0], U_START, atol=1e-6)


def test_funnel_and_polygon_searches_refuse_links(world):
    for algo in ("funnel", "polygon_astar", "polygon_dijkstra"):
        with pytest.raises(navcore.QueryError, match="polyanya"):
            world.find_path("up", LOW, HIGH, algorithm=algo)
        with pytest.raises(navcore.QueryError, match="polyanya"):
            world.begin_search("up", LOW, HIGH, algorithm=algo)
    assert world.find_path("u_plain", U_START, U_GOAL, algorithm="funnel").found


def test_isochrones_refuse_a_level_with_links_rather_than_leave_them_out(world):
    # the platform is reachable only by the link: a search of the polygon
    # graph (no links) would say it is not
    assert world.find_path("up", LOW, HIGH).found
    with pytest.raises(navcore.QueryError, match="off-mesh links"):
        world.isochrone("up", LOW, np.inf)
    iso = world.isochrone("plain", LOW, np.inf)
    assert world.graph("plain").locate(HIGH) not in iso.nodes.tolist()


def test_links_survive_walkable_updates():
    w = navcore.World()
    g = level(w, "x", PLATFORMS, [UP], verts_per_poly=3)       # triangles: several a floor
    at_end = int(g.links.polygon[0, 1])
    row = g.poly_adj[g.poly_start[at_end]:g.poly_start[at_end + 1]]
    goal = int(row[row >= 0][0])             # the platform's polygon beside the link's end
    before = w.find_path("x", LOW, goal)
    assert before.found and before.links == (PathLink(0, "jump", 1),)
    w.update("x", nodes=[at_end], walkable=False)
    w.tick()
    assert w.find_path("x", LOW, goal).status is PathStatus.UNREACHABLE
    w.update("x", nodes=[at_end], walkable=True)
    w.tick()
    same_path(w.find_path("x", LOW, goal), before)


def test_a_level_without_links_is_as_before(world):
    g = world.graphs["plain"]
    assert g.links is None and g.paths_follow_edges
    w = navcore.World()
    level(w, "empty", PLATFORMS, [])
    assert w.graphs["empty"].links is None
    for a, b in ((LOW, (8.0, H, 8.0)), (HIGH, (14.0, 3 + H, 1.0)), (LOW, HIGH)):
        r, e = world.find_path("plain", a, b), w.find_path("empty", a, b)
        same_path(r, e)
        assert r.links == () and r.expanded == e.expanded


BAD = [
    ("abc", "links must be a list"),
    ([{"start": (8.0, H, 5.0)}], "links[0] has no 'end'"),
    ([UP, [1, 2]], "links[1] must be a dict"),
    ([UP, dict(UP, start=(float("nan"), H, 5.0))], "links[1]['start']"),
    ([dict(UP, end=(14.0, 3.2))], "links[0]['end'] must be a 3D point"),
    ([dict(UP, end="here")], "links[0]['end'] must be a 3D point"),
    ([dict(UP, cost=-1.0)], "links[0]['cost']"),
    ([dict(UP, cost=float("inf"))], "links[0]['cost']"),
    ([dict(UP, radius=-0.5)], "links[0]['radius']"),
    ([dict(UP, bidirectional="yes")], "links[0]['bidirectional']"),
    ([dict(UP, kind=3)], "links[0]['kind'] must be a string"),
    ([dict(UP, speed=2)], "links[0] has unknown key 'speed'"),
    ([UP, dict(UP, end=(50.0, 0.0, 50.0))], "links[1]: its end"),
    ([dict(UP, start=(8.0, 2.0, 5.0))], "links[0]: its start"),      # above the floor's climb
    ([dict(UP, end=(11.0, 3 + H, 5.0), radius=0.1)], "links[0]: its end"),
]


@pytest.mark.parametrize("links, message", BAD)
def test_bad_links_are_refused_with_their_index(links, message):
    w = navcore.World()
    with pytest.raises(navcore.GraphError) as err:
        level(w, "bad", PLATFORMS, links)
    assert message in str(err.value)
    assert "bad" not in w.graphs


def test_readme_links_example(capsys):
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = text.split("#### Off-mesh links")[1]
    block = section.split("```python\n")[1].split("```")[0]
    exec(compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    claimed = [ln[2:] for ln in block.splitlines() if ln.startswith("# ")
               and not ln.startswith("# a yard")]
    assert printed == claimed


def test_reachable_counts_links_one_way_ones_one_way(world):
    assert world.reachable("up", LOW, HIGH) and world.reachable("up", HIGH, LOW)
    assert world.reachable("oneway", LOW, HIGH) and not world.reachable("oneway", HIGH, LOW)
    assert not world.reachable("plain", LOW, HIGH)
    got = world.reachable_many("oneway", [LOW, HIGH, LOW, HIGH], [HIGH, LOW, LOW, HIGH])
    assert got.tolist() == [True, False, True, True]
    # each against find_path, the truth of what a path can do
    for a, b in ((LOW, HIGH), (HIGH, LOW)):
        assert world.reachable("oneway", a, b) == world.find_path("oneway", a, b).found


def test_links_chain_across_three_platforms():
    w = navcore.World()
    top = (32.0, 6 + H, 5.0)
    level(w, "c", join(*[quad(0, 10, 0, 10, 0.0), quad(12, 22, 0, 10, 3.0),
                         quad(24, 34, 0, 10, 6.0)]),
          [dict(UP, bidirectional=False),
           {"start": (20.0, 3 + H, 5.0), "end": (26.0, 6 + H, 5.0), "bidirectional": False,
            "cost": 1.5, "kind": "ladder"}])
    assert w.reachable("c", LOW, top) and not w.reachable("c", top, LOW)
    r = w.find_path("c", LOW, top)
    want = flat(LOW, UP["start"]) + math.dist(UP["start"], UP["end"]) + 6.0 + 1.5 + 6.0
    assert r.cost == pytest.approx(want, abs=1e-9)
    assert r.links == (PathLink(0, "jump", 1), PathLink(1, "ladder", 3))
    assert w.find_path("c", top, LOW).status is PathStatus.UNREACHABLE


def test_a_baked_level_takes_links(world, tmp_path):
    from navcore_levels import save_level_mesh
    path = tmp_path / "platforms.npz"
    save_level_mesh(path, world.graphs["plain"])
    w = navcore.World()
    w.add_graph("baked", type="level", mesh=str(path), links=[UP])
    same_path(w.find_path("baked", LOW, HIGH), world.find_path("up", LOW, HIGH))


def test_links_attach_again_when_the_polygons_are_replaced(world):
    # what a rebuild of the polygons (tiles) leaves: links attached to
    # other arrays; the next query attaches them to the polygons as they are
    from navcore_navmesh.links import LINKS_KEY, LinkSpace
    w = navcore.World()
    g = level(w, "x", PLATFORMS, [UP, dict(UP, start=(8.0, H, 8.0))])
    before = w.find_path("x", LOW, HIGH)
    g.links.geometry = (g.vertices.copy(), g.poly_start.copy())
    g.drop_view(LINKS_KEY)
    space = g.view(LINKS_KEY, LinkSpace)
    assert space.poly[2:].tolist() == g.links.polygon.reshape(-1).tolist()
    same_path(w.find_path("x", LOW, HIGH), before)
    # an end that no longer attaches: that link is not taken, the other is
    g.links.start[0] = (50.0, 0.0, 50.0)
    g.drop_view(LINKS_KEY)
    r = w.find_path("x", LOW, HIGH)
    assert r.links == (PathLink(1, "jump", 1),)
    assert r.cost > before.cost


def test_heuristic_is_no_option_of_a_linked_level(world):
    # polygon_astar, the only search that reads heuristic=, refuses links:
    # the option would be taken and ignored
    with pytest.raises(navcore.QueryError, match="heuristic"):
        world.find_path("up", LOW, HIGH, heuristic="euclidean")
    assert world.find_path("plain", LOW, LOW, algorithm="polygon_astar",
                           heuristic="euclidean").found
