"""``navcore view`` in a real browser, on a grid, a navmesh and a road
scene: the page draws the map pixel for pixel as the PNG renderer does,
agents move, pause holds, step plays exactly one frame, a clicked pair
of points gets ``world.find_path``'s answer, layers change the picture,
hover names the node, and nothing is logged as an error."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import navcore
from hooktags import exercises
from viewkit import Page

from navcore_draw.canvas import WALL

SCENES = Path(__file__).resolve().parents[2] / "scenes"


@pytest.fixture(scope="module", params=["dungeon", "courtyard", "monaco"])
def shown(request, browser):
    from navcore_view.viewer import view_scene
    sim = navcore.load_scene(SCENES / f"{request.param}.yaml")
    viewer = view_scene(sim, autoplay=False)
    page = Page(browser, viewer)
    yield sim, viewer, page
    errors = list(page.errors)
    page.close()
    viewer.close()
    sim.close()
    assert not errors, f"console errors on {request.param}: {errors}"


def test_the_page_draws_the_renderers_map(shown):
    from navcore_scenes.render import picture
    sim, viewer, page = shown
    page.pause()
    for name in ("agents", "paths", "query", "search", "polygons"):
        page.layer(name, False)
    s = viewer.session
    truth = picture(sim, s.graph_id, s.scale).rgb
    got = page.canvas()
    assert got.shape == truth.shape
    assert np.array_equal(got, truth), f"{(got != truth).any(axis=2).sum()} pixels differ"
    # not blank: walls and several area colours, as the renderer draws them
    colours = {tuple(c) for c in got.reshape(-1, 3)[::7]}
    assert tuple(WALL) in colours and len(colours) >= 2
    assert page.js("V.tiles") == len(s.tiles)
    for name in ("agents", "paths", "query", "search"):
        page.layer(name, True)


def test_agents_move_pause_holds_and_step_plays_one_frame(shown):
    sim, viewer, page = shown
    page.play()
    f0 = page.js("V.frame")
    page.wait(f"V.frame >= {f0 + 5}")
    a, pos_a = page.shot(), np.array(page.js("Array.from(V.pos)"))
    page.wait(f"V.frame >= {page.js('V.frame') + 10}")
    b, pos_b = page.shot(), np.array(page.js("Array.from(V.pos)"))
    assert pos_a.shape == pos_b.shape and pos_a.size > 0
    assert np.abs(pos_a - pos_b).max() > 0, "no agent moved"
    assert (a != b).any(), "the picture did not change while agents moved"

    page.pause()
    frame = page.js("V.frame")
    assert frame == sim.frame
    held = page.shot()
    time.sleep(0.4)
    assert page.js("V.frame") == frame == sim.frame
    assert np.array_equal(held, page.shot())

    pos = np.array(page.js("Array.from(V.pos)"))
    page.page.click("#step")
    page.wait(f"V.frame === {frame + 1}")
    time.sleep(0.3)
    assert page.js("V.frame") == frame + 1 == sim.frame
    assert not page.js("V.playing")
    moved = np.array(page.js("Array.from(V.pos)"))
    # the shown graph's agents, then those of graphs sharing its space
    order = np.concatenate([idx for _, idx, _, _ in viewer.session.agent_groups])
    assert np.allclose(moved.reshape(-1, 2), sim.agents.pos[order, :2], atol=1e-3), \
        "the page's agents are not the scene's after the step"
    assert moved.shape == pos.shape


@exercises("navcore_view")
def test_a_clicked_pair_gets_find_paths_answer(shown):
    sim, viewer, page = shown
    page.pause()
    gid = viewer.session.graph_id
    at = sim.agents.pos[:, :2]
    # two agents far apart: both stand on walkable ground
    far = np.argmax(np.hypot(*(at - at[0]).T))
    a, b = at[0], at[far]
    page.page.evaluate("window.navcoreViewer.lastQuery = null")
    page.click_world(*a)
    page.click_world(*b)
    page.wait("V.lastQuery !== null")
    q = page.js("V.lastQuery")
    assert "error" not in q, q
    px = 1.5 / viewer.session.map_info["scale"] / viewer.session.map_info["aspect"]
    assert np.allclose(q["from"], a, atol=px * 2) and np.allclose(q["to"], b, atol=px * 2)
    truth = sim.world.find_path(gid, tuple(q["from"]), tuple(q["to"]))
    assert q["status"] == truth.status.value
    if truth.found:
        assert q["cost"] == pytest.approx(truth.cost, rel=1e-12)
        assert q["expanded"] == truth.expanded and q["nodes"] == len(truth.nodes)
        assert len(q["points"]) == len(truth.points)
    text = page.page.inner_text("#query")
    assert q["status"] in text and str(q["expanded"]) in text


def _searched_pair(sim, gid, algorithm):
    """Two agents as far apart as a found path between them goes (agents
    stand on walkable ground; a pair in two areas needs no search)."""
    at = sim.agents.pos[:, :2]
    for k in np.argsort(-np.hypot(*(at - at[0]).T)):
        r = sim.world.find_path(gid, tuple(at[0]), tuple(at[k]), algorithm=algorithm)
        if r.found and r.expanded > 1:
            return at[0], at[k]
    pytest.fail("no two agents with a path between them")


def test_the_search_nodes_layer_shows_the_nodes_the_query_closed(shown):
    sim, viewer, page = shown
    page.pause()
    gid = viewer.session.graph_id
    # a navmesh's own search (Polyanya, "auto") closes intervals of edges,
    # drawn as segments; its polygon search closes polygons
    navmesh = sim.world.graph(gid).kind == "navmesh"
    for algorithm in ("polygon_astar", "auto") if navmesh else ("auto",):
        _shows_the_closed_nodes(sim, viewer, page, gid, algorithm)


def _shows_the_closed_nodes(sim, viewer, page, gid, algorithm):
    page.page.select_option("#algorithm", algorithm)
    page.layer("search", True)
    page.page.evaluate("window.navcoreViewer.lastQuery = null")
    a, b = _searched_pair(sim, gid, algorithm)
    page.click_world(*a)
    page.click_world(*b)
    page.wait("V.lastQuery !== null")
    q = page.js("V.lastQuery")
    assert "error" not in q and q["closed_why"] is None, q
    truth, closed = sim.world.closed_nodes(gid, tuple(q["from"]), tuple(q["to"]),
                                           algorithm=algorithm)
    assert q["closed_total"] == truth.expanded == q["expanded"] > 0
    if isinstance(closed, navcore.SearchIntervals):
        assert q["closed"] == np.unique(closed.polygons[:, 1]).tolist()
        assert q["closed_segments"] == closed.segments.ravel().tolist()
    else:
        assert q["closed"] == np.unique(closed).tolist() and q["closed_segments"] is None
    assert page.js("V.searchedPixels") > 0
    on = page.shot()
    page.layer("search", False)
    time.sleep(0.1)
    off = page.shot()
    assert (on != off).any(), f"the search nodes layer drew nothing for {algorithm!r}"
    page.layer("search", True)
    page.page.select_option("#algorithm", "auto")


def test_toggling_layers_changes_the_picture(shown):
    sim, viewer, page = shown
    page.pause()
    before = page.shot()
    page.layer("polygons", True)
    time.sleep(0.1)
    outlined = page.shot()
    assert (outlined != before).any(), "polygon outlines drew nothing"
    page.layer("polygons", False)
    time.sleep(0.1)
    before = page.shot()
    page.layer("areas", False, viewer.session)
    one_colour = page.shot()
    areas = sim.world.areas(viewer.session.graph_id)
    if np.unique(areas[areas >= 0]).size > 1:      # a map of one area looks the same
        assert (one_colour != before).any(), "turning areas off changed nothing"
    page.layer("areas", True, viewer.session)
    again = page.shot()
    diff = (again != before).any(axis=2)
    assert not diff.any(), f"{diff.sum()} pixels differ at {np.argwhere(diff)[:5].tolist()}"


def test_tile_and_traffic_layers_are_offered_where_they_draw_and_change_the_picture(shown):
    sim, viewer, page = shown
    page.pause()
    kind = sim.world.graph(viewer.session.graph_id).kind
    offers = viewer.session.offers()
    assert offers["tiles"] == (kind == "navmesh") and offers["traffic"] == (kind == "roads")
    for name in ("tiles", "traffic"):
        assert page.page.locator(f"#offer-{name}").is_visible() == offers[name]
        if not offers[name]:
            continue
        before = page.shot()
        page.layer(name, True, viewer.session)
        shown_on = page.shot()
        assert (shown_on != before).any(), f"the {name} layer drew nothing"
        page.layer(name, False, viewer.session)
        diff = (page.shot() != before).any(axis=2)
        assert not diff.any(), f"{diff.sum()} pixels differ after the {name} layer went off"


def test_hover_names_the_node_its_area_and_cost(shown):
    sim, viewer, page = shown
    page.pause()
    gid = viewer.session.graph_id
    x, y = sim.agents.pos[0, :2]
    node = page.js(f"V.nodeAtWorld({x}, {y})")
    if node < 0:                      # a road's agent between two drawn pixels
        pytest.skip("no node drawn under the first agent")
    page.page.evaluate("window.navcoreViewer.lastInfo = null")
    p = page.js(f"V.clientPoint({x}, {y})")
    page.page.mouse.move(p["x"], p["y"])
    page.wait("V.lastInfo !== null")
    info = page.js("V.lastInfo")
    node = info["node"]              # the pixel under the pointer (a road is 2 px wide)
    assert info["area"] == int(sim.world.areas(gid)[node])
    assert info["walkable"] == bool(sim.world.graph(gid).walkable[node])
    assert info["label"] in page.page.inner_text("#hover")
