"""Exports of road routes and graphs (``navcore_roads.to_geojson``,
``Routes.__geo_interface__``, ``navcore_roads.to_networkx``, ``navcore
roads --geojson``), against independent truth: the shared extract's
lengths and costs (scipy's Dijkstra, ``roadtruth``), the graph's own edge
lengths, networkx's and osmnx's own searches on the export."""
import json
import sys

import numpy as np
import pytest

import navcore
import navcore_roads
from navcore.cli import main
from navcore.errors import GraphError

from roadtruth import ROADS, need, pairs

MONACO = "monaco.osm.gz"


def monaco(weight="time", keep="largest_scc"):
    need("monaco")
    w = navcore.World()
    return w, w.add_graph("m", type="roads", osm=ROADS / MONACO, weight=weight, keep=keep)


@pytest.fixture(scope="module")
def by_distance():
    return monaco("distance", keep="all")


@pytest.fixture(scope="module")
def by_time():
    return monaco("time")


def haversine_along(coords):
    """Metres along [lon, lat] positions: the shared truth's formula
    (README: haversine on a sphere of R = 6371008.8 m), written out here."""
    c = np.radians(np.asarray(coords, dtype=float))
    lon, lat = c[:, 0], c[:, 1]
    a = (np.sin(np.diff(lat) / 2) ** 2
         + np.cos(lat[:-1]) * np.cos(lat[1:]) * np.sin(np.diff(lon) / 2) ** 2)
    return float((2 * 6371008.8 * np.arcsin(np.sqrt(a))).sum())


def check_feature(f):
    """A GeoJSON Feature as RFC 7946 has it, that JSON can carry."""
    assert f["type"] == "Feature" and set(f) == {"type", "geometry", "properties"}
    json.loads(json.dumps(f, allow_nan=False))
    g = f["geometry"]
    if g is not None:
        assert g["type"] == "LineString" and len(g["coordinates"]) >= 2
        assert all(len(p) == 2 and all(type(x) is float for x in p) for p in g["coordinates"])


def test_a_route_between_points_is_a_linestring_of_lon_lat_along_the_road(by_distance):
    w, g = by_distance
    a, b = (7.4205, 43.7335), (7.4275, 43.7420)            # lon, lat inside Monaco
    r = w.find_path("m", a, b)
    assert r.found
    f = navcore_roads.to_geojson(r, g)
    check_feature(f)
    coords = np.array(f["geometry"]["coordinates"])
    # [lon, lat]: Monaco is at 7.4 E, 43.7 N; the ends are the points
    # snapped onto the roads, which lie a few metres from the ones asked for
    assert (np.abs(coords[:, 0] - 7.42) < 0.02).all()
    assert (np.abs(coords[:, 1] - 43.73) < 0.02).all()
    s = navcore_roads.snap(g, [a, b])
    assert coords[0].tolist() == s.points[0].tolist()
    assert coords[-1].tolist() == s.points[1].tolist()
    assert coords.shape[0] > r.nodes.size + 2                # along the roads' shapes
    p = f["properties"]
    assert p["status"] == "found" and p["cost"] == r.cost and p["nodes"] == r.nodes.tolist()
    assert p["osm_ids"] == g.osm_ids[r.nodes].tolist() and p["weight"] == "distance"
    # by distance the cost is the search's sum of segment lengths (the
    # phantom ends' share of theirs as a fraction): the drawn line measures it
    assert p["length"] == pytest.approx(r.cost, rel=1e-7)
    assert haversine_along(coords) == pytest.approx(r.cost, rel=1e-7)


def test_routes_between_the_truths_nodes_measure_its_lengths(by_distance):
    w, g = by_distance
    p = pairs("monaco", "pairs")
    d = np.load(ROADS / "monaco.graph.npz")
    # most of the truth's nodes are shape nodes, compressed into edges: the
    # routes go between their positions, which snap onto the nodes themselves
    for s, t, want in list(zip(p["source"].astype(int), p["target"].astype(int),
                               p["length_m"]))[:25]:
        a, b = (d["lon"][s], d["lat"][s]), (d["lon"][t], d["lat"][t])
        f = navcore_roads.to_geojson(w.find_path("m", a, b), g)
        check_feature(f)
        coords = f["geometry"]["coordinates"]
        assert coords[0] == list(a) and coords[-1] == list(b)
        assert f["properties"]["length"] == pytest.approx(want, rel=1e-9, abs=1e-6)
        assert haversine_along(coords) == pytest.approx(want, rel=1e-9, abs=1e-6)


def test_a_time_route_measures_its_edges_lengths(by_time):
    w, g = by_time
    for s, t in ((0, 300), (17, 250), (399, 3)):
        r = w.find_path("m", s, t)
        f = navcore_roads.to_geojson(r, g)
        check_feature(f)
        want = g.edge_length[g.path_edges(r.nodes)].sum()
        assert f["properties"]["length"] == pytest.approx(want, rel=1e-9)
        assert f["properties"]["cost"] == r.cost and f["properties"]["weight"] == "time"


def test_unreachable_and_empty_routes(by_distance):
    w, g = by_distance
    p = pairs("monaco", "pairs_any")
    d = np.load(ROADS / "monaco.graph.npz")
    i = int(np.flatnonzero(np.isinf(p["length_m"]))[0])       # the truth has no route
    s, t = int(p["source"][i]), int(p["target"][i])
    r = w.find_path("m", (d["lon"][s], d["lat"][s]), (d["lon"][t], d["lat"][t]))
    assert not r.found
    f = navcore_roads.to_geojson(r, g)
    check_feature(f)
    assert f["geometry"] is None and f["properties"]["status"] == "unreachable"
    assert f["properties"]["cost"] is None and f["properties"]["nodes"] == []
    # a route to where it starts: one position, drawn twice (a LineString has two)
    f = navcore_roads.to_geojson(w.find_path("m", 7, 7), g)
    check_feature(f)
    assert f["geometry"]["coordinates"] == [g.positions[7].tolist()] * 2
    assert f["properties"]["length"] == 0.0 and f["properties"]["cost"] == 0.0


def test_routes_are_a_feature_collection(by_distance):
    w, g = by_distance
    # junctions of the whole extract (keep="all"): some pairs have no route
    s, t = np.random.default_rng(3).integers(0, g.num_nodes, (2, 30))
    s[-1] = t[-1]
    rs = navcore_roads.routes(g, s, t)
    assert np.isinf(rs.costs).any() and np.isfinite(rs.costs).any()
    fc = navcore_roads.to_geojson(rs)
    assert fc == rs.__geo_interface__
    assert fc["type"] == "FeatureCollection" and len(fc["features"]) == len(rs)
    json.dumps(fc, allow_nan=False)
    for i, f in enumerate(fc["features"]):
        check_feature(f)
        props = f["properties"]
        assert (props["route"], props["source"], props["target"]) == (i, s[i], t[i])
        if np.isinf(rs.costs[i]):
            assert f["geometry"] is None and props["status"] == "unreachable"
            continue
        assert props["cost"] == rs.costs[i] == pytest.approx(w.find_path("m", int(s[i]),
                                                                        int(t[i])).cost)
        assert props["nodes"] == rs.nodes(i).tolist()
        assert f["geometry"]["coordinates"] == rs.points(i).tolist() or s[i] == t[i]
        # by distance: the cost, and the lengths of the edges taken
        assert props["length"] == pytest.approx(rs.costs[i], rel=1e-9, abs=1e-9)
        assert props["length"] == pytest.approx(g.edge_length[rs.route_edges(i)].sum(),
                                                rel=1e-9, abs=1e-9)


def test_export_mistakes_are_graph_errors(by_distance):
    w, g = by_distance
    r = w.find_path("m", 0, 5)
    with pytest.raises(GraphError, match="does not know the graph"):
        navcore_roads.to_geojson(r)
    w2, other = monaco("distance", keep="all")
    with pytest.raises(GraphError, match="found on another graph than 'm'"):
        navcore_roads.to_geojson(r, other)
    with pytest.raises(GraphError, match="an object with a __geo_interface__, got 42"):
        navcore_roads.to_geojson(42)
    # a result made elsewhere (no version) whose points are not (lon, lat)
    made = navcore.PathResult("found", np.array([0, 1], np.int32), np.zeros((2, 3)), 1.0)
    with pytest.raises(GraphError, match=r"shape \(k, 2\), got shape \(2, 3\)"):
        navcore_roads.to_geojson(made, g)
    rs = navcore_roads.routes(g, [0], [5])
    with pytest.raises(GraphError, match="graph= goes with a PathResult only"):
        navcore_roads.to_geojson(rs, g)
    grid = navcore.World().add_graph("g", type="grid", rows=["...", "..."])
    with pytest.raises(GraphError, match="must be a RoadGraph"):
        navcore_roads.to_geojson(r, grid)
    with pytest.raises(GraphError, match="must be a RoadGraph"):
        navcore_roads.to_networkx(grid)
    with pytest.raises(GraphError, match="node_keys"):
        navcore_roads.to_networkx(g, node_keys="osm")


def test_a_graph_without_coordinates_has_no_route_to_draw(tmp_path):
    gr = tmp_path / "three.gr"
    gr.write_text("p sp 3 3\na 1 2 10\na 2 3 10\na 3 1 10\n")
    w = navcore.World()
    g = w.add_graph("d", type="roads", dimacs=gr)
    r = w.find_path("d", 0, 2)
    with pytest.raises(GraphError, match="has no coordinates"):
        navcore_roads.to_geojson(r, g)
    with pytest.raises(GraphError, match="has no coordinates"):
        navcore_roads.to_geojson(navcore_roads.routes(g, [0], [2]))


def test_to_networkx_without_networkx_says_how_to_install_it(by_time, monkeypatch):
    monkeypatch.setitem(sys.modules, "networkx", None)        # import networkx fails
    with pytest.raises(GraphError, match="pip install networkx"):
        navcore_roads.to_networkx(by_time[1])


# -- networkx ------------------------------------------------------------------

def test_networkx_export_has_osmnx_names_and_answers_navcores_costs(by_time):
    nx = pytest.importorskip("networkx", reason="networkx is not installed")
    w, g = by_time
    G = navcore_roads.to_networkx(g)
    assert isinstance(G, nx.MultiDiGraph) and G.graph["crs"] == "epsg:4326"
    assert G.number_of_nodes() == g.num_nodes and G.number_of_edges() == g.csr.num_edges
    key = g.osm_ids
    for i in (0, 100, 401):
        d = G.nodes[int(key[i])]
        assert (d["x"], d["y"]) == tuple(g.positions[i]) and d["street_count"] >= 1
    names = {"osmid", "length", "highway", "oneway", "speed_kph", "travel_time", "cost"}
    assert all(names <= set(d) for *_, d in G.edges(keys=True, data=True))
    shaped = [(u, v, d) for u, v, d in G.edges(data=True) if "geometry" in d]
    assert shaped
    for u, v, d in shaped:
        xy = np.array(d["geometry"].coords)
        assert tuple(xy[0]) == (G.nodes[u]["x"], G.nodes[u]["y"])
        assert tuple(xy[-1]) == (G.nodes[v]["x"], G.nodes[v]["y"])
        assert haversine_along(xy) == pytest.approx(d["length"], rel=1e-9)
    # a two-way road is an edge each way with the same length; a one-way one is not
    for u, v, d in G.edges(data=True):
        back = [e["length"] for e in G.get_edge_data(v, u, default={}).values()]
        assert d["oneway"] == (not any(abs(x - d["length"]) < 1e-9 for x in back))
    assert any(d["oneway"] for *_, d in G.edges(data=True))
    # networkx's own Dijkstra on the export: navcore's costs
    sources = [0, 57, 300]
    m = w.distance_matrix("m", sources, np.arange(g.num_nodes))
    for row, s in zip(m, sources):
        got = nx.single_source_dijkstra_path_length(G, int(key[s]), weight="travel_time")
        assert np.allclose([got[int(k)] for k in key], row, rtol=1e-9, atol=1e-9)
    r = w.find_path("m", 5, 300)
    path = nx.dijkstra_path(G, int(key[5]), int(key[300]), weight="cost")
    assert nx.path_weight(G, path, "travel_time") == pytest.approx(r.cost, rel=1e-12)


def test_networkx_export_by_index_keeps_parallel_roads():
    nx = pytest.importorskip("networkx", reason="networkx is not installed")
    w = navcore.World()
    # three one-way roads between 0 and 1 (two of them parallel), a two-way
    # road 1 - 2, counted by hand: 3 roads at node 0, 4 at node 1, 1 at node 2
    g = w.add_graph("p", type="roads", src=[0, 0, 1, 1], dst=[1, 1, 0, 2],
                    length=[300.0, 100.0, 50.0, 20.0], speed=36.0, way=[11, 12, 13, 14],
                    oneway=[True, True, True, False], keep="all")
    G = navcore_roads.to_networkx(g, node_keys="index")
    assert sorted(G.edges(keys=True)) == [(0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 2, 0),
                                          (2, 1, 0)]
    assert sorted(d["osmid"] for d in G.get_edge_data(0, 1).values()) == [11, 12]
    assert [d["oneway"] for d in G.get_edge_data(0, 1).values()] == [True, True]
    assert G.edges[1, 2, 0]["oneway"] is G.edges[2, 1, 0]["oneway"] is False
    assert nx.dijkstra_path_length(G, 0, 1, weight="length") == 100.0
    assert w.find_path("p", 0, 1).cost == nx.dijkstra_path_length(G, 0, 1, weight="cost") == 10.0
    assert "x" not in G.nodes[0] and "crs" not in G.graph    # no positions given
    assert [G.nodes[i]["street_count"] for i in range(3)] == [3, 4, 1]


def test_osmnx_takes_the_export(by_time):
    ox = pytest.importorskip("osmnx", reason="osmnx is not installed")
    import networkx as nx
    w, g = by_time
    G = navcore_roads.to_networkx(g)
    nodes, edges = ox.convert.graph_to_gdfs(G)
    assert len(nodes) == g.num_nodes and len(edges) == g.csr.num_edges
    assert {"x", "y", "street_count", "geometry"} <= set(nodes.columns)
    assert {"osmid", "length", "highway", "oneway", "travel_time", "geometry"} <= set(edges.columns)
    key = g.osm_ids
    for s, t in ((5, 300), (120, 44)):
        path = ox.routing.shortest_path(G, int(key[s]), int(key[t]), weight="travel_time")
        assert nx.path_weight(G, path, "travel_time") == pytest.approx(
            w.find_path("m", s, t).cost, rel=1e-12)
    # osmnx counts the undirected (u, v, key) edges at a node, so two one-way
    # roads joining the same two nodes in turn (keys 0 both) count once;
    # elsewhere the counts are osmnx's
    counts = ox.stats.count_streets_per_node(G)
    looped = set()
    for u, v, d in G.edges(data=True):
        if d["oneway"] and any(e["oneway"] for e in G.get_edge_data(v, u, default={}).values()):
            looped |= {u, v}
    assert len(looped) < g.num_nodes // 10
    assert all(counts[k] == G.nodes[k]["street_count"] for k in G.nodes if k not in looped)
    assert all(counts[k] <= G.nodes[k]["street_count"] for k in looped)
    # and osmnx's round trip back to a graph
    H = ox.convert.graph_from_gdfs(nodes, edges)
    assert H.number_of_edges() == G.number_of_edges()


# -- the command line ----------------------------------------------------------

def test_cli_writes_the_route_as_geojson(tmp_path, capsys):
    need("monaco")
    out, report = tmp_path / "route.geojson", tmp_path / "report.json"
    assert main(["roads", str(ROADS / MONACO), "--weight", "distance", "--from",
                 "7.4205,43.7335", "--to", "7.4275,43.7420", "--geojson", str(out),
                 "--json", str(report)]) == 0
    f = json.loads(out.read_text())
    check_feature(f)
    route = json.loads(report.read_text())["route"]
    assert f["geometry"]["coordinates"] == route["points"]
    assert f["properties"]["cost"] == route["cost"]
    assert haversine_along(f["geometry"]["coordinates"]) == pytest.approx(route["cost"],
                                                                          rel=1e-7)
    capsys.readouterr()
    assert main(["roads", str(ROADS / MONACO), "--from", "7.4205,43.7335", "--to",
                 "7.4275,43.7420", "--geojson", "-"]) == 0
    check_feature(json.loads(capsys.readouterr().out))


def test_cli_geojson_mistakes_are_one_line(tmp_path, capsys):
    need("monaco")
    osm = str(ROADS / MONACO)
    ends = ["--from", "7.4205,43.7335", "--to", "7.4275,43.7420"]
    for args, words in ((["roads", osm, "--geojson", str(tmp_path / "a.geojson")],
                         "give --from and --to"),
                        (["roads", osm, *ends, "--geojson", "-", "--json", "-"],
                         "both write to standard output"),
                        (["roads", osm, *ends, "--geojson", str(tmp_path)], "is a folder")):
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1, err
