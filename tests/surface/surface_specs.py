"""One valid call of every public callable of every plugin.

``specs(plugin)`` lists a ``Spec`` per callable: its name (``module.name``
or ``module.Class.method``, as ``test_public_surface`` enumerates the
surface) and a ``make()`` giving ``(fn, args, kwargs)`` that must succeed.
``walk.py`` then replaces each argument in turn with hostile values.

The objects the calls run on are small (a 3 x 4 grid, a 5-node CSR graph,
a room-sized mesh, a triangle of roads) so the whole walk stays fast.
Specs whose calls change their object (updates, growth) are ``fresh``:
built anew for every call, so one hostile call that is accepted cannot
leave a broken object behind for the next.

``Arg(value, hostile=False)`` marks an argument the walk leaves as given
(with the reason next to it).
"""
from __future__ import annotations

import functools
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np


class Arg:
    """A valid argument the walk does not replace (``hostile=False``), or
    replaces with every hostile value but those labelled in ``skip``."""

    def __init__(self, value, hostile=True, skip=()):
        self.value = value
        self.hostile = hostile
        self.skip = frozenset(skip)


#: labels of the hostile values that are valid counts, only large:
#: ``run(frames=10**6)`` plays a million frames, as asked
LARGE = ("10**6", "2**31", "2**63", "10**30", "np.uint64(2**64-1)")


def _plain(value):
    return value.value if isinstance(value, Arg) else value


@dataclass
class Spec:
    name: str
    make: object
    fresh: bool = False

    @functools.cached_property
    def _cached(self):
        return self.make()

    def sample(self):
        _, args, kwargs = self._cached
        return list(args), dict(kwargs)

    def build(self):
        fn, args, kwargs = self.make() if self.fresh else self._cached
        return fn, [_plain(a) for a in args], {k: _plain(v) for k, v in kwargs.items()}


#: the walk's files: the parent's folder for all its children, or one of
#: this process's own (made by ``walk.py``, not by importing this module)
TMP = Path(os.environ.get("NAVCORE_SURFACE_TMP")
           or Path(tempfile.gettempdir()) / f"navcore-surface-{os.getpid()}")


def call(fn, *args, **kwargs):
    return fn, args, kwargs


# ---------------------------------------------------------------- fixtures

@functools.lru_cache(None)
def _world():
    import navcore
    return navcore.World(autoload=True, workers=1)


def csr_graph(fresh=False):
    import navcore
    w = navcore.World(workers=1) if fresh else _world()
    name = "c" if fresh else "csr"
    if name in w.graphs:
        return w.graphs[name]
    return w.add_graph(name, type="csr", src=[0, 1, 2, 3, 0], dst=[1, 2, 3, 4, 4],
                       cost=[1.0, 1.0, 1.0, 1.0, 5.0], num_nodes=5,
                       positions=[(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)], directed=False)


def grid_graph(fresh=False):
    import navcore
    w = navcore.World(workers=1) if fresh else _world()
    name = "g" if fresh else "grid"
    if name in w.graphs:
        return w.graphs[name]
    return w.add_graph(name, type="grid", rows=["....", ".#..", "...."])


def mesh_graph(fresh=False):
    import navcore
    w = navcore.World(workers=1) if fresh else _world()
    name = "m" if fresh else "mesh"
    if name in w.graphs:
        return w.graphs[name]
    return w.add_graph(name, type="navmesh", bounds=(0, 0, 10, 6),
                       obstacles=[[(4, 0), (6, 0), (6, 4), (4, 4)]])


def level_graph(fresh=False):
    """A level of two floors joined by a ramp (the levels plugin's sample)."""
    import navcore
    from navcore_levels.graph import sample_graph
    w = navcore.World(workers=1) if fresh else _world()
    name = "l" if fresh else "level"
    if name in w.graphs:
        return w.graphs[name]
    return sample_graph(w, name)


def road_graph(fresh=False):
    import navcore
    w = navcore.World(workers=1) if fresh else _world()
    name = "r" if fresh else "roads"
    if name in w.graphs:
        return w.graphs[name]
    return w.add_graph(name, type="roads", src=[0, 1, 2, 3], dst=[1, 2, 3, 0],
                       length=[100.0] * 4, speed=36.0, oneway=False, keep="all",
                       compress=False,
                       positions=[(0, 0), (0.001, 0), (0.001, 0.001), (0, 0.001)])


def _file(name, text):
    path = TMP / name
    if not path.exists():
        path.write_text(text) if isinstance(text, str) else path.write_bytes(text)
    return path


MAP = "type octile\nheight 3\nwidth 4\nmap\n....\n.@..\n....\n"
SCEN = "version 1\n0\tm.map\t4\t3\t0\t0\t3\t2\t3.82842712\n"


# ---------------------------------------------------------------- plugins

def csr_specs():
    import navcore_csr as C
    g = csr_graph
    specs = [
        Spec("navcore_csr.build_csr",
             lambda: call(C.build_csr, [0, 1], [1, 2], {"cost": [1.0, 2.0]}, 3,
                          sort=True, dedup=True)),
        Spec("navcore_csr.astar", lambda: call(C.astar, g(), 0, 4, heuristic="euclidean",
                                               algorithm="astar")),
        Spec("navcore_csr.dijkstra", lambda: call(C.dijkstra, g(), 0, 4)),
        Spec("navcore_csr.bfs", lambda: call(C.bfs, g(), 0, 4)),
        Spec("navcore_csr.closed_nodes", lambda: call(C.closed_nodes, g())),
        Spec("navcore_csr.dijkstra_all", lambda: call(C.dijkstra_all, g(), 0)),
        Spec("navcore_csr.distance_matrix", lambda: call(C.distance_matrix, g(), [0, 1], [3, 4])),
        Spec("navcore_csr.distance_pairs", lambda: call(C.distance_pairs, g(), [0, 1], [3, 4])),
        Spec("navcore_csr.path_costs", lambda: call(C.path_costs, g(), [0, 1, 2, 3, 4], [0, 3, 5])),
        Spec("navcore_csr.reachable", lambda: call(C.reachable, g(), 0, 4)),
        Spec("navcore_csr.reachable_counts", lambda: call(C.reachable_counts, g(), threads=1)),
        Spec("navcore_csr.heuristic_scale", lambda: call(C.heuristic_scale, g(), "euclidean")),
        Spec("navcore_csr.scratch_for", lambda: call(C.scratch_for, g())),
        Spec("navcore_csr.begin_astar",
             lambda: call(C.begin_astar, g(), _request(g(), 0, 4), heuristic="euclidean")),
        Spec("navcore_csr.SearchScratch", lambda: call(C.SearchScratch, 5)),
        Spec("navcore_csr.SearchScratch.next_gen", lambda: call(C.SearchScratch(5).next_gen)),
        Spec("navcore_csr.simplify", lambda: call(C.simplify, g(True), levels=2), fresh=True),
        Spec("navcore_csr.simplified_path",
             lambda: call(C.simplified_path, _simplified()[0], 0, 4)),
        Spec("navcore_csr.simplified_view", lambda: call(C.simplified_view, g())),
        Spec("navcore_csr.SimplifiedGraph", lambda: call(C.SimplifiedGraph, g(), levels=2)),
        Spec("navcore_csr.SimplifiedGraph.find_path",
             lambda: call(_simplified()[1].find_path, 0, 4)),
        Spec("navcore_csr.SimplifiedGraph.stats", lambda: call(_simplified()[1].stats)),
        Spec("navcore_csr.SimplifiedGraph.warm_up", lambda: call(_simplified()[1].warm_up)),
        Spec("navcore_csr.contract", lambda: call(C.contract, g(True), witness_limit=50),
             fresh=True),
        Spec("navcore_csr.contracted_path", lambda: call(C.contracted_path, _contracted()[0], 0, 4)),
        Spec("navcore_csr.contracted_view", lambda: call(C.contracted_view, g())),
        Spec("navcore_csr.load_contracted", lambda: call(C.load_contracted, _contracted()[0],
                                                         _saved_ch())),
        Spec("navcore_csr.ContractedGraph", lambda: call(C.ContractedGraph, g(), 50)),
        Spec("navcore_csr.ContractedGraph.find_path",
             lambda: call(_contracted()[1].find_path, 0, 4)),
        Spec("navcore_csr.ContractedGraph.query", lambda: call(_contracted()[1].query)),
        Spec("navcore_csr.ContractedGraph.save",
             lambda: call(_contracted()[1].save, TMP / "ch-save.npz")),
        Spec("navcore_csr.ContractedGraph.stats", lambda: call(_contracted()[1].stats)),
        Spec("navcore_csr.ContractedGraph.warm_up", lambda: call(_contracted()[1].warm_up)),
        Spec("navcore_csr.HierarchyQuery.find_path",
             lambda: call(_contracted()[1].query().find_path, 0, 4)),
        Spec("navcore_csr.HierarchyQuery.search",
             lambda: call(_contracted()[1].query().search, 0, 4)),
        Spec("navcore_csr.HierarchyQuery.distance",
             lambda: call(_contracted()[1].query().distance, 0, 4)),
        Spec("navcore_csr.HierarchyQuery.path", lambda: call(_contracted()[1].query().path, 0, 4)),
        Spec("navcore_csr.HierarchyQuery.distances",
             lambda: call(_contracted()[1].query().distances, [0, 1], [2, 4])),
        Spec("navcore_csr.HierarchyQuery.paths",
             lambda: call(_contracted()[1].query().paths, [0, 1], [2, 4])),
        Spec("navcore_csr.HierarchyQuery.matrix",
             lambda: call(_contracted()[1].query().matrix, [0, 1], [2, 4])),
        Spec("navcore_csr.DirectedHierarchy.build",
             lambda: call(C.DirectedHierarchy.build, *_csr_arcs(), witness_limit=50,
                          priority_limit=10, progress=None, threads=1)),
        Spec("navcore_csr.DirectedHierarchy.from_arrays",
             lambda: call(C.DirectedHierarchy.from_arrays, _contracted()[1].hierarchy.arrays())),
        Spec("navcore_csr.DirectedHierarchy.arrays",
             lambda: call(_contracted()[1].hierarchy.arrays)),
        Spec("navcore_csr.DirectedHierarchy.stats", lambda: call(_contracted()[1].hierarchy.stats)),
        Spec("navcore_csr.DirectedHierarchy.query",
             lambda: call(_contracted()[1].hierarchy.query, 1)),
        Spec("navcore_csr.DirectedHierarchy.drawing",
             lambda: call(_contracted()[1].hierarchy.drawing, *_csr_drawing_arrays())),
        Spec("navcore_csr.HierarchyQuery.drawn_path",
             lambda: call(_contracted()[1].query().drawn_path, 0, 4, _csr_drawing())),
        Spec("navcore_csr.HierarchyQuery.drawn_result",
             lambda: call(_contracted()[1].query().drawn_result, 0, 4, _csr_drawing())),
        Spec("navcore_csr.CSR.check_node", lambda: call(g().csr.check_node, 1)),
        Spec("navcore_csr.CSR.degree", lambda: call(g().csr.degree, 1)),
        Spec("navcore_csr.CSR.edge_data", lambda: call(g().csr.edge_data, 1, "cost")),
        Spec("navcore_csr.CSR.edge_positions", lambda: call(g().csr.edge_positions, [0, 1], [1, 2])),
        Spec("navcore_csr.CSR.neighbors", lambda: call(g().csr.neighbors, 1)),
        Spec("navcore_csr.CSR.reverse", lambda: call(g().csr.reverse)),
        Spec("navcore_csr.CSR.set_cost", lambda: call(C.build_csr([0, 1], [1, 2], {"cost": [1.0, 2.0]}, 3).set_cost,
                                                       [0], [3.0]), fresh=True),
        Spec("navcore_csr.ReverseCSR.neighbors", lambda: call(g().csr.reverse().neighbors, 1)),
    ]
    return specs


def _request(graph, s, t):
    import navcore
    return navcore.PathRequest(graph.graph_id, s, t, "astar", s, t, {})


def _csr_arcs():
    c = csr_graph().csr
    return c.offsets, c.targets, np.array(c.cost)


def _csr_drawing_arrays():
    c = csr_graph().csr
    return (c.targets, np.arange(c.num_edges + 1), np.zeros((c.num_edges, 2)),
            csr_graph().positions)


def _csr_drawing():
    return _contracted()[1].hierarchy.drawing(*_csr_drawing_arrays())


def _csr_parts():
    c = csr_graph().csr
    return c.offsets, c.targets, dict(c.data), c.num_nodes, True, True


@functools.lru_cache(None)
def _simplified():
    import navcore_csr as C
    g = csr_graph()
    return g, C.simplify(g, levels=2)


@functools.lru_cache(None)
def _contracted():
    import navcore_csr as C
    g = csr_graph()
    return g, C.contract(g, witness_limit=50)


@functools.lru_cache(None)
def _saved_ch():
    path = TMP / "ch.npz"
    _contracted()[1].save(path)
    return path


def grid_specs():
    import navcore_grid as G
    g = grid_graph
    return [
        Spec("navcore_grid.GridGraph", lambda: call(G.GridGraph, np.ones((3, 4), bool),
                                                   np.ones((3, 4)), connectivity=8,
                                                   diagonal_cost=1.5, corner_cutting=False)),
        Spec("navcore_grid.GridGraph.cell_of", lambda: call(g().cell_of, 5)),
        Spec("navcore_grid.GridGraph.node_id", lambda: call(g().node_id, 1, 2)),
        Spec("navcore_grid.GridGraph.locate", lambda: call(g().locate, (1.0, 2.0))),
        Spec("navcore_grid.GridGraph.locate_many", lambda: call(g().locate_many, [(1.0, 2.0)])),
        Spec("navcore_grid.GridGraph.node_of", lambda: call(g().node_of, (1, 2))),
        Spec("navcore_grid.GridGraph.points_of", lambda: call(g().points_of, [0, 5])),
        Spec("navcore_grid.GridGraph.cost_stats", lambda: call(g().cost_stats)),
        Spec("navcore_grid.GridGraph.lattice", lambda: call(g().lattice)),
        Spec("navcore_grid.GridGraph.has_positions", lambda: call(g().has_positions)),
        Spec("navcore_grid.parse_map", lambda: call(G.parse_map, MAP, "<map>", passable=".")),
        Spec("navcore_grid.parse_rows", lambda: call(G.parse_rows, ["..", "#."], "<rows>")),
        Spec("navcore_grid.read_map", lambda: call(G.read_map, _file("m.map", MAP), ".")),
        Spec("navcore_grid.read_scen", lambda: call(G.read_scen, _scen())),
        Spec("navcore_grid.passable_characters", lambda: call(G.passable_characters, ".G")),
        Spec("navcore_grid.tolerance", lambda: call(G.tolerance, np.array([3.82]),
                                                    np.array([2]))),
        Spec("navcore_grid.run_scenarios", lambda: call(G.run_scenarios, _scen(), TMP,
                                                        "auto", None, 1, None)),
        Spec("navcore_grid.grid_astar", lambda: call(G.grid_astar, g(), 0, 11, heuristic=True,
                                                     algorithm="astar")),
        Spec("navcore_grid.grid_jps", lambda: call(G.grid_jps, g(), 0, 11)),
        Spec("navcore_grid.jps_applies", lambda: call(G.jps_applies, g())),
        Spec("navcore_grid.maze_cells", lambda: call(G.maze_cells, 3, 2, seed=1)),
        Spec("navcore_grid.maze_edges", lambda: call(G.maze_edges, 3, 2, seed=1)),
        Spec("navcore_grid.landmarks", lambda: call(G.landmarks, grid_graph(True), 2),
             fresh=True),
        Spec("navcore_grid.landmarks_of", lambda: call(G.landmarks_of, g())),
        Spec("navcore_grid.Landmarks", lambda: call(G.Landmarks, grid_graph(True), 2),
             fresh=True),
        Spec("navcore_grid.Landmarks.args", lambda: call(_landmarks().args)),
    ]


def _scen():
    _file("m.map", MAP)
    return _file("m.map.scen", SCEN)


@functools.lru_cache(None)
def _landmarks():
    import navcore_grid as G
    return G.landmarks(grid_graph(), 2)


def areas_specs():
    import navcore_areas as H

    def h(fresh=False):
        return H.hierarchy_of(grid_graph(fresh))
    return [
        Spec("navcore_areas.hierarchy_of", lambda: call(H.hierarchy_of, grid_graph())),
        Spec("navcore_areas.Hierarchy", lambda: call(H.Hierarchy, grid_graph(True)),
             fresh=True),
        Spec("navcore_areas.Hierarchy.area", lambda: call(h().area, 3)),
        Spec("navcore_areas.Hierarchy.areas", lambda: call(h().areas, [0, 3])),
        Spec("navcore_areas.Hierarchy.same_area", lambda: call(h().same_area, [0, 1], [3, 4])),
        Spec("navcore_areas.Hierarchy.forward_reach", lambda: call(h().forward_reach, 0)),
        Spec("navcore_areas.Hierarchy.nearest_reachable",
             lambda: call(h().nearest_reachable, (2.0, 2.0), 0)),
        Spec("navcore_areas.Hierarchy.hierarchical_nodes",
             lambda: call(h().hierarchical_nodes)),
        Spec("navcore_areas.Hierarchy.hierarchical_sizes",
             lambda: call(h().hierarchical_sizes)),
        Spec("navcore_areas.Hierarchy.recalculate", lambda: call(h(True).recalculate),
             fresh=True),
        Spec("navcore_areas.Hierarchy.warm_up", lambda: call(h().warm_up)),
    ]


def _replace_mesh(g):
    """``g.replace_mesh`` with ``g``'s own arrays (the mesh stays as it was)."""
    return call(g.replace_mesh, g.vertices, g.poly_start, g.poly_verts, csr=g.csr,
                positions=g.positions, walkable=g.walkable, poly_adj=g.poly_adj,
                poly_opposite=g.poly_opposite, poly_next=g.poly_next, corner=g.corner)


def _replace_layers():
    """``g.replace_layers`` of a fresh level with another fresh level's
    layers (one walkable flag per polygon): two builds, not one per argument."""
    g = level_graph(True)
    return call(g.replace_layers, level_graph(True), np.ones(g.num_nodes, dtype=bool))


def navmesh_specs():
    import navcore_navmesh as M
    m = mesh_graph
    return [
        Spec("navcore_navmesh.NavMeshGraph.from_polygons",
             lambda: call(M.NavMeshGraph.from_polygons, np.array([(0, 0), (1, 0), (1, 1), (0, 1.0)]),
                          np.array([0, 4]), np.array([0, 1, 2, 3]))),
        Spec("navcore_navmesh.NavMeshGraph.from_triangles",
             lambda: call(M.NavMeshGraph.from_triangles,
                          np.array([(0, 0), (1, 0), (1, 1), (0, 1.0)]),
                          np.array([(0, 1, 2), (0, 2, 3)]))),
        Spec("navcore_navmesh.NavMeshGraph.locate", lambda: call(m().locate, (1.0, 1.0))),
        Spec("navcore_navmesh.NavMeshGraph.locate_many",
             lambda: call(m().locate_many, [(1.0, 1.0), (9.0, 1.0)])),
        Spec("navcore_navmesh.NavMeshGraph.locate_index", lambda: call(m().locate_index)),
        Spec("navcore_navmesh.NavMeshGraph.node_of", lambda: call(m().node_of, (1.0, 1.0))),
        Spec("navcore_navmesh.NavMeshGraph.nodes_of",
             lambda: call(m().nodes_of, (1.0, 1.0), (9.0, 1.0))),
        Spec("navcore_navmesh.NavMeshGraph.end_nodes",
             lambda: call(m().end_nodes, (1.0, 1.0), m().node_of((1.0, 1.0)))),
        Spec("navcore_navmesh.NavMeshGraph.replace_mesh", lambda: _replace_mesh(m(True)),
             fresh=True),
        Spec("navcore_navmesh.NavMeshGraph.on_mesh", lambda: call(m().on_mesh, (1.0, 1.0))),
        Spec("navcore_navmesh.NavMeshGraph.polygon", lambda: call(m().polygon, 1)),
        Spec("navcore_navmesh.NavMeshGraph.polygon_points", lambda: call(m().polygon_points, 1)),
        Spec("navcore_navmesh.LocateIndex.locate_many",
             lambda: call(m().locate_index().locate_many, [(1.0, 1.0)])),
        Spec("navcore_navmesh.LocateIndex.locate_point",
             lambda: call(m().locate_index().locate_point, 1.0, 1.0)),
        Spec("navcore_navmesh.LocateIndex.nearest",
             lambda: call(m().locate_index().nearest, 5.0, 2.0, 3.0)),
        Spec("navcore_navmesh.length_3d",
             lambda: call(M.length_3d, np.array([(0, 0, 0), (3, 4, 0.0)]))),
        Spec("navcore_navmesh.LayeredMeshGraph.from_layers",
             lambda: call(M.LayeredMeshGraph.from_layers,
                          np.array([(0, 0, 0), (1, 0, 0), (1, 0, 1), (0, 0, 1.0)]),
                          np.array([0, 4]), np.array([0, 1, 2, 3]))),
        Spec("navcore_navmesh.LayeredMeshGraph.from_polygons",
             lambda: call(M.LayeredMeshGraph.from_polygons,
                          np.array([(0, 0), (1, 0), (1, 1), (0, 1.0)]), np.array([0, 4]),
                          np.array([0, 1, 2, 3]))),
        Spec("navcore_navmesh.LayeredMeshGraph.from_triangles",
             lambda: call(M.LayeredMeshGraph.from_triangles,
                          np.array([(0, 0), (1, 0), (1, 1.0)]), np.array([[0, 1, 2]]))),
        Spec("navcore_navmesh.LayeredMeshGraph.nearest_poly",
             lambda: call(level_graph().nearest_poly, (2.0, 0.0, 2.0))),
        Spec("navcore_navmesh.LayeredMeshGraph.locate",
             lambda: call(level_graph().locate, (2.0, 4.0, 2.0))),
        Spec("navcore_navmesh.LayeredMeshGraph.locate_many",
             lambda: call(level_graph().locate_many, np.array([(2.0, 0.0, 2.0)]))),
        Spec("navcore_navmesh.LayeredMeshGraph.node_of",
             lambda: call(level_graph().node_of, (2.0, 0.0, 2.0))),
        Spec("navcore_navmesh.LayeredMeshGraph.nodes_of",
             lambda: call(level_graph().nodes_of, (2.0, 0.0, 2.0), (2.0, 4.0, 2.0))),
        Spec("navcore_navmesh.LayeredMeshGraph.end_nodes",
             lambda: call(level_graph().end_nodes, (2.0, 0.0, 2.0), 0)),
        Spec("navcore_navmesh.LayeredMeshGraph.ground_end",
             lambda: call(level_graph().ground_end, (2.0, 0.0, 2.0), 0)),
        Spec("navcore_navmesh.LayeredMeshGraph.lift",
             lambda: call(level_graph().lift,
                          _world().find_path("level", 0, 0, algorithm="polyanya"))),
        Spec("navcore_navmesh.LayeredMeshGraph.nearest_polys",
             lambda: call(level_graph().nearest_polys, np.array([(2.0, 0.0, 2.0)]))),
        Spec("navcore_navmesh.LayeredMeshGraph.points_on",
             lambda: call(level_graph().points_on, [0], np.array([(2.0, 2.0)]))),
        Spec("navcore_navmesh.LayeredMeshGraph.to_ground",
             lambda: call(level_graph().to_ground, np.array([(2.0, 0.0, 2.0)]))),
        Spec("navcore_navmesh.LayeredMeshGraph.set_links",
             lambda: call(level_graph(True).set_links,
                          [{"start": (2.0, 0.2, 2.0), "end": (2.0, 4.2, 2.0), "kind": "ladder"}],
                          0.6), fresh=True),
        Spec("navcore_navmesh.LayeredMeshGraph.polygon", lambda: call(level_graph().polygon, 0)),
        Spec("navcore_navmesh.LayeredMeshGraph.polygon_points",
             lambda: call(level_graph().polygon_points, 0)),
        Spec("navcore_navmesh.LayeredMeshGraph.locate_index",
             lambda: call(level_graph().locate_index)),
        # outside an update batch every call is refused (GraphError)
        Spec("navcore_navmesh.LayeredMeshGraph.replace_layers", _replace_layers, fresh=True),
        Spec("navcore_navmesh.LayeredMeshGraph.on_mesh",
             lambda: call(level_graph().on_mesh, (2.0, 2.0))),
        Spec("navcore_navmesh.free_space",
             lambda: call(M.free_space, walkable=None, obstacles=[[(1, 1), (2, 1), (2, 2)]],
                          bounds=(0, 0, 4, 4), map=None, passable=None, agent_radius=0.1)),
        Spec("navcore_navmesh.map_free_space",
             lambda: call(M.map_free_space, _file("m.map", MAP), ".")),
        Spec("navcore_navmesh.polygons",
             lambda: call(M.polygons, [[(0, 0), (1, 0), (1, 1)]], "walkable")),
        Spec("navcore_navmesh.triangulate", lambda: call(M.triangulate, _free())),
        Spec("navcore_navmesh.pull", lambda: call(M.pull, m(), *_corridor(), 3)),
        Spec("navcore_navmesh.shortest_path",
             lambda: call(M.shortest_path, m(), (1.0, 1.0), (9.0, 1.0),
                          start_polygon=m().locate((1.0, 1.0)),
                          goal_polygon=m().locate((9.0, 1.0)), snapped=False)),
        Spec("navcore_navmesh.path_lengths",
             lambda: call(M.path_lengths, m(), [(1.0, 1.0)], [(9.0, 1.0)])),
        Spec("navcore_navmesh.MeshFlowField", lambda: call(M.MeshFlowField, m(), (9.0, 1.0))),
        Spec("navcore_navmesh.MeshFlowField.distances",
             lambda: call(M.MeshFlowField(m(), (9.0, 1.0)).distances, [(1.0, 1.0)])),
        Spec("navcore_navmesh.MeshFlowField.steer",
             lambda: call(M.MeshFlowField(m(), (9.0, 1.0)).steer, [(1.0, 1.0), (2.0, 1.0)],
                          np.array([m().locate((1.0, 1.0)), -1]), [(9.0, 1.0), (9.0, 1.5)],
                          [0.3, 0.5])),
        Spec("navcore_navmesh.MeshArrays",
             lambda: call(M.MeshArrays, np.array([(0, 0), (1, 0), (1, 1.0)]), np.array([0, 3]),
                          np.array([0, 1, 2]), None, 0.0, None)),
        Spec("navcore_navmesh.read_mesh", lambda: call(M.read_mesh, _saved_mesh())),
        Spec("navcore_navmesh.load_mesh", lambda: call(M.load_mesh, _saved_mesh())),
        Spec("navcore_navmesh.save_mesh", lambda: call(M.save_mesh, TMP / "save.npz", m())),
        Spec("navcore_navmesh.read_polyanya_mesh",
             lambda: call(M.read_polyanya_mesh, _saved_polyanya())),
        Spec("navcore_navmesh.write_polyanya_mesh",
             lambda: call(M.write_polyanya_mesh, TMP / "w.mesh", m())),
    ]


@functools.lru_cache(None)
def _free():
    import navcore_navmesh as M
    return M.free_space(bounds=(0, 0, 4, 4), obstacles=[[(1, 1), (2, 1), (2, 2)]])


@functools.lru_cache(None)
def _corridor():
    import navcore_csr as C
    g = mesh_graph()
    s, t = g.locate((1.0, 1.0)), g.locate((9.0, 1.0))
    corridor = C.astar(g, s, t).nodes
    return corridor, (1.0, 1.0), (9.0, 1.0)


@functools.lru_cache(None)
def _saved_mesh():
    import navcore_navmesh as M
    path = TMP / "mesh.npz"
    M.save_mesh(path, mesh_graph())
    return path


@functools.lru_cache(None)
def _saved_polyanya():
    import navcore_navmesh as M
    path = TMP / "mesh.mesh"
    M.write_polyanya_mesh(path, mesh_graph())
    return path


def roads_specs():
    import navcore_roads as R
    r = road_graph
    return [
        Spec("navcore_roads.routes", lambda: call(R.routes, r(), [0, 1], [2, 3])),
        Spec("navcore_roads.Routes.nodes", lambda: call(_routes().nodes, 0)),
        Spec("navcore_roads.Routes.points", lambda: call(_routes().points, 0)),
        Spec("navcore_roads.Routes.route_edges", lambda: call(_routes().route_edges, 0)),
        Spec("navcore_roads.to_geojson", lambda: call(R.to_geojson, _road_route(), r())),
        *([Spec("navcore_roads.to_networkx", lambda: call(R.to_networkx, r(),
                                                          node_keys="index"))]
          if has_networkx() else []),
        Spec("navcore_roads.contract", lambda: call(R.contract, r(True), progress=None,
                                                    witness_limit=50, customizable=False,
                                                    order=None), fresh=True),
        Spec("navcore_roads.load_hierarchy", lambda: call(R.load_hierarchy, _road_ch()[0],
                                                          _saved_road_ch())),
        Spec("navcore_roads.RoadHierarchy.query", lambda: call(_road_ch()[1].query)),
        Spec("navcore_roads.RoadHierarchy.save",
             lambda: call(_road_ch()[1].save, TMP / "rch-save.npz")),
        Spec("navcore_roads.RoadHierarchy.stats", lambda: call(_road_ch()[1].stats)),
        Spec("navcore_roads.RoadHierarchy.route", lambda: call(_road_ch()[1].route, 0, 2)),
        Spec("navcore_roads.HierarchyQuery.drawn_path",
             lambda: call(_road_ch()[1].query().drawn_path, 0, 2, _road_ch()[1]._drawing)),
        Spec("navcore_roads.HierarchyQuery.drawn_result",
             lambda: call(_road_ch()[1].query().drawn_result, 0, 2, _road_ch()[1]._drawing)),
        Spec("navcore_roads.HierarchyQuery.distance",
             lambda: call(_road_ch()[1].query().distance, 0, 2)),
        Spec("navcore_roads.HierarchyQuery.path", lambda: call(_road_ch()[1].query().path, 0, 2)),
        Spec("navcore_roads.HierarchyQuery.distances",
             lambda: call(_road_ch()[1].query().distances, [0, 1], [2, 3])),
        Spec("navcore_roads.HierarchyQuery.paths",
             lambda: call(_road_ch()[1].query().paths, [0, 1], [2, 3])),
        Spec("navcore_roads.HierarchyQuery.matrix",
             lambda: call(_road_ch()[1].query().matrix, [0, 1], [2, 3])),
        # node to node, as every graph's hierarchy query (World.find_path
        # answers between phantom nodes)
        Spec("navcore_roads.HierarchyQuery.find_path",
             lambda: call(_road_ch()[1].query().find_path, 0, 2)),
        Spec("navcore_roads.HierarchyQuery.search",
             lambda: call(_road_ch()[1].query().search, 0, 2)),
        Spec("navcore_roads.RoadCCH.query", lambda: call(_road_cch()[1].query)),
        Spec("navcore_roads.RoadCCH.save", lambda: call(_road_cch()[1].save, TMP / "cch.npz")),
        Spec("navcore_roads.RoadCCH.stats", lambda: call(_road_cch()[1].stats)),
        Spec("navcore_roads.RoadCCH.estimate_seconds", lambda: call(_road_cch()[1].estimate_seconds)),
        Spec("navcore_roads.RoadCCH.wait", lambda: call(_road_cch()[1].wait, 1.0)),
        Spec("navcore_roads.RoadCCH.costs", lambda: call(_road_cch()[1].costs)),
        Spec("navcore_roads.RoadCCH.adopt", lambda: call(_road_cch()[1].adopt)),
        Spec("navcore_roads.RoadCCH.customize", lambda: call(_road_cch()[1].customize)),
        Spec("navcore_roads.RoadCCH.follow", lambda: _fresh_cch_follow(), fresh=True),
        Spec("navcore_roads.CCHQuery.distance",
             lambda: call(_road_cch()[1].query().distance, 0, 2)),
        Spec("navcore_roads.CCHQuery.path", lambda: call(_road_cch()[1].query().path, 0, 2)),
        Spec("navcore_roads.CCHQuery.distances",
             lambda: call(_road_cch()[1].query().distances, [0, 1], [2, 3])),
        Spec("navcore_roads.CCHQuery.paths",
             lambda: call(_road_cch()[1].query().paths, [0, 1], [2, 3])),
        Spec("navcore_roads.CCHQuery.matrix",
             lambda: call(_road_cch()[1].query().matrix, [0, 1], [2, 3])),
        Spec("navcore_roads.DirectedHierarchy.build",
             lambda: call(R.DirectedHierarchy.build, *_arcs(), witness_limit=50,
                          priority_limit=10, progress=None, threads=1)),
        Spec("navcore_roads.DirectedHierarchy.from_arrays",
             lambda: call(R.DirectedHierarchy.from_arrays, _directed().arrays())),
        Spec("navcore_roads.DirectedHierarchy.arrays", lambda: call(_directed().arrays)),
        Spec("navcore_roads.DirectedHierarchy.stats", lambda: call(_directed().stats)),
        Spec("navcore_roads.DirectedHierarchy.query", lambda: call(_directed().query, 1)),
        Spec("navcore_roads.DirectedHierarchy.drawing",
             lambda: call(_directed().drawing, road_graph().csr.targets,
                          road_graph().chain_start, road_graph().chain_xy,
                          road_graph().positions)),
        Spec("navcore_roads.RoadGraph.locate", lambda: call(r().locate, (0.0005, 0.0))),
        Spec("navcore_roads.RoadGraph.locate_many",
             lambda: call(r().locate_many, [(0.0005, 0.0)])),
        Spec("navcore_roads.RoadGraph.edge_segments", lambda: call(r().edge_segments, 0)),
        Spec("navcore_roads.RoadGraph.route_points", lambda: call(r().route_points, [0, 2])),
        Spec("navcore_roads.RoadGraph.path_edges", lambda: call(r().path_edges, [0, 1, 2])),
        Spec("navcore_roads.Segments", lambda: call(R.Segments, *_segment_parts())),
        Spec("navcore_roads.build_road_graph",
             lambda: call(R.build_road_graph, R.Segments(*_segment_parts()), weight="time",
                          keep="all", compress=True, profile=None, world=None)),
        Spec("navcore_roads.snap", lambda: call(R.snap, r(), [(0.0005, 0.0)])),
        Spec("navcore_roads.haversine_m", lambda: call(R.haversine_m, 0.0, 0.0, 0.001, 0.001)),
    ]


@functools.lru_cache(None)
def _road_route():
    return _world().find_path("roads", 0, 2)


def has_networkx() -> bool:
    """networkx is not a navcore dependency: ``to_networkx`` is walked
    where it is installed (without it every call is the GraphError that
    says so, tests/roads/test_road_exports.py)."""
    try:
        import networkx  # noqa: F401
    except ImportError:
        return False
    return True


@functools.lru_cache(None)
def _routes():
    import navcore_roads as R
    return R.routes(road_graph(), [0, 1], [2, 3])


@functools.lru_cache(None)
def _road_ch():
    import navcore_roads as R
    g = road_graph()
    return g, R.contract(g, witness_limit=50)


@functools.lru_cache(None)
def _saved_road_ch():
    path = TMP / "rch.npz"
    _road_ch()[1].save(path)
    return path


@functools.lru_cache(None)
def _road_cch():
    import navcore
    import navcore_roads as R
    w = navcore.World(workers=1)
    g = w.add_graph("r", type="roads", src=[0, 1, 2, 3], dst=[1, 2, 3, 0],
                    length=[100.0] * 4, speed=36.0, oneway=False, keep="all", compress=False,
                    positions=[(0, 0), (0.001, 0), (0.001, 0.001), (0, 0.001)])
    return g, R.contract(g, customizable=True)


def _fresh_cch_follow():
    import navcore_roads as R
    g = road_graph(True)
    return call(R.contract(g, customizable=True).follow, g.world if hasattr(g, "world")
                else None)


def _arcs():
    c = road_graph().csr
    return c.offsets, c.targets, c.cost


@functools.lru_cache(None)
def _directed():
    import navcore_roads as R
    return R.DirectedHierarchy.build(*_arcs(), witness_limit=50)


def _segment_parts():
    n = np.arange(3, dtype=np.int64)
    return (n, np.array([0.0, 0.001, 0.002]), np.zeros(3), np.array([0, 1]), np.array([1, 2]),
            np.array([100.0, 100.0]), np.array([10.0, 10.0]), np.array([0, 0]),
            np.array([0, 0]), ("residential",), None, "arrays")


SCENE = """\
settings: {frames: 3}
graphs:
  - id: field
    type: grid
    rows: ["......", "..##..", "......"]
    doors: {gap: [2, 1, 2, 1]}
agents:
  - {id: a, graph: field, start: [0, 0], goal: [5, 2]}
"""


def scenes_specs():
    import navcore_scenes as S

    @functools.lru_cache(None)
    def sim():
        return S.Simulation.from_text(SCENE, "s.yaml")
    return [
        Spec("navcore_scenes.parse_scene", lambda: call(S.parse_scene, SCENE, "s.yaml")),
        Spec("navcore_scenes.read_scene", lambda: call(S.read_scene, _file("s.yaml", SCENE))),
        Spec("navcore_scenes.Simulation",
             lambda: call(lambda *a: S.Simulation(*a).close(), S.parse_scene(SCENE, "s.yaml"),
                          None, ())),
        Spec("navcore_scenes.Simulation.from_text",
             lambda: call(lambda *a: S.Simulation.from_text(*a).close(), SCENE, "s.yaml",
                          None)),
        Spec("navcore_scenes.Simulation.from_file",
             lambda: call(lambda *a: S.Simulation.from_file(*a).close(),
                          _file("s.yaml", SCENE), None, ())),
        Spec("navcore_scenes.Simulation.set_goal", lambda: call(sim().set_goal, "a", (4, 2))),
        Spec("navcore_scenes.Simulation.set_walkable",
             lambda: call(sim().set_walkable, "field", [0, 2, 1, 1], True)),
        Spec("navcore_scenes.Simulation.set_cost",
             lambda: call(sim().set_cost, "field", [0, 2, 1, 1], 2.0)),
        Spec("navcore_scenes.Simulation.set_door",
             lambda: call(sim().set_door, "field", "gap", True)),
        Spec("navcore_scenes.Simulation.replan", lambda: call(sim().replan, "field")),
        Spec("navcore_scenes.Simulation.step", lambda: call(sim().step)),
        Spec("navcore_scenes.Simulation.run", lambda: call(sim().run, Arg(1, skip=LARGE), False, None)),
        Spec("navcore_scenes.Simulation.count_areas", lambda: call(sim().count_areas, "field")),
        Spec("navcore_scenes.Scene.graph_spec", lambda: call(sim().scene.graph_spec, "field")),
    ]


def scheduler_specs():
    import navcore
    from navcore_scheduler import JobScheduler

    @functools.lru_cache(None)
    def world():
        w = navcore.World(workers=1)
        w.add_graph("g", type="grid", rows=["....", "...."])
        return w

    @functools.lru_cache(None)
    def jobs():
        return JobScheduler(0)

    def handle():
        h = world().scheduler.request_path("g", 0, 5)
        # a frame's budget is wall-clock time: on a busy machine one tick
        # may end before the search, and wait(1e9) would then wait for ever
        for _ in range(1000):
            if h.done:
                break
            world().tick()
        return h
    return [
        Spec("navcore_scheduler.Scheduler.request_path",
             lambda: call(world().scheduler.request_path, "g", 0, 5, algorithm="auto",
                          callback=None, repath=False, replan_from=None)),
        Spec("navcore_scheduler.Scheduler.schedule",
             lambda: call(world().scheduler.schedule, Arg(int, hostile=False), 3,
                          depends_on=())),
        Spec("navcore_scheduler.JobScheduler",
             lambda: call(lambda n: JobScheduler(n).close(), 0)),
        Spec("navcore_scheduler.JobScheduler.schedule",
             lambda: call(jobs().schedule, Arg(int, hostile=False), 3, depends_on=())),
        Spec("navcore_scheduler.JobScheduler.run_on_workers",
             lambda: call(jobs().run_on_workers, Arg(int, hostile=False), None, False)),
        Spec("navcore_scheduler.JobHandle.complete",
             lambda: call(jobs().schedule(int, 3).complete, 1.0)),
        Spec("navcore_scheduler.PathHandle.wait", lambda: call(handle().wait, 1.0)),
        Spec("navcore_scheduler.PathHandle.result", lambda: call(handle().result)),
        Spec("navcore_scheduler.PathHandle.cancel", lambda: call(handle().cancel)),
    ]


def dask_specs():
    import navcore_dask as D
    return [Spec("navcore_dask.scattered", lambda: call(D.scattered, csr_graph()))]


FLOOR = np.array([[0, 0, 0], [6, 0, 0], [6, 0, 6], [0, 0, 6]], dtype=float)
FLOOR_TRIS = np.array([[0, 2, 1], [0, 3, 2]])


@functools.lru_cache(None)
def _built_level():
    from navcore_levels import build_navmesh_arrays
    return build_navmesh_arrays(FLOOR, FLOOR_TRIS)


@functools.lru_cache(None)
def _tiled_level():
    from navcore_levels import LevelConfig, build_tiled
    return build_tiled(FLOOR, FLOOR_TRIS, LevelConfig(tile_size=10))


def _baked_level():
    from navcore_levels import save_level_mesh
    path = TMP / "baked.npz"
    if not path.exists():
        save_level_mesh(path, level_graph())
    return path


def levels_specs():
    import navcore_levels as L
    from navcore_levels import LevelConfig
    built = _built_level
    def obj():
        return _file("floor.obj", "v 0 0 0\nv 6 0 0\nv 6 0 6\nv 0 0 6\nf 1 3 2\nf 1 4 3\n")
    return [
        Spec("navcore_levels.LevelConfig", lambda: call(LevelConfig, cell_size=0.25,
                                                         agent_radius=0.3)),
        Spec("navcore_levels.CompactHeightfield",
             lambda: call(L.CompactHeightfield, **vars(built().heightfield))),
        Spec("navcore_levels.PolyMesh", lambda: call(L.PolyMesh, **vars(built().polymesh))),
        Spec("navcore_levels.PolyMesh.world_vertices",
             lambda: call(built().polymesh.world_vertices)),
        Spec("navcore_levels.DetailMesh", lambda: call(L.DetailMesh, **vars(built().detail))),
        Spec("navcore_levels.DetailMesh.poly_triangles",
             lambda: call(built().detail.poly_triangles, 0)),
        Spec("navcore_levels.Level.tag_mask",
             lambda: call(L.level_from_arrays(FLOOR, FLOOR_TRIS,
                                              tags=["grass", "stone"]).tag_mask, "grass")),
        Spec("navcore_levels.level_from_arrays",
             lambda: call(L.level_from_arrays, FLOOR, FLOOR_TRIS, up="y")),
        Spec("navcore_levels.load_level", lambda: call(L.load_level, obj(), up="y")),
        Spec("navcore_levels.LevelMesh", lambda: call(L.LevelMesh, *vars(built()).values())),
        Spec("navcore_levels.LevelMesh.walkable_area", lambda: call(built().walkable_area)),
        Spec("navcore_levels.build_navmesh_arrays",
             lambda: call(L.build_navmesh_arrays, FLOOR, FLOOR_TRIS, LevelConfig(),
                          triangle_areas=np.array([63, 63], np.uint8), volumes=[],
                          timings={})),
        Spec("navcore_levels.build_agent_meshes",
             lambda: call(L.build_agent_meshes, FLOOR, FLOOR_TRIS,
                          {"a": LevelConfig(agent_radius=0.3)}, triangle_areas=None,
                          volumes=[], timings={})),
        Spec("navcore_levels.build_detail_mesh",
             lambda: call(L.build_detail_mesh, built().polymesh, built().heightfield, 1.8, 0.2,
                          edge_max_error=1.3)),
        Spec("navcore_levels.surface_heights",
             lambda: call(L.surface_heights, built().detail, np.array([0]),
                          np.array([(3.0, 3.0)]))),
        Spec("navcore_levels.surface_height",
             lambda: call(L.surface_height, built().detail, 0, 3.0, 3.0)),
        Spec("navcore_levels.TiledLevel", lambda: call(L.TiledLevel, *vars(_tiled_level())
                                                         .values())),
        Spec("navcore_levels.TiledLevel.tile_bounds", lambda: call(_tiled_level().tile_bounds, 0)),
        Spec("navcore_levels.TiledLevel.tiles_touching",
             lambda: call(_tiled_level().tiles_touching, (0.0, 0.0), (3.0, 3.0))),
        Spec("navcore_levels.TiledLevel.stitch", lambda: call(_tiled_level().stitch)),
        Spec("navcore_levels.build_tiled",
             lambda: call(L.build_tiled, FLOOR, FLOOR_TRIS, LevelConfig(tile_size=10),
                          workers=0)),
        Spec("navcore_levels.rebuild_tiles",
             lambda: call(L.rebuild_tiles, L.build_tiled(FLOOR, FLOOR_TRIS,
                                                         LevelConfig(tile_size=10)),
                          [0], FLOOR, FLOOR_TRIS), fresh=True),
        Spec("navcore_levels.rebuild_obstacles",
             lambda: call(L.rebuild_obstacles, _tiled_level(),
                          [{"box": [[1.0, -1.0, 1.0], [2.0, 1.0, 2.0]]}], workers=0), fresh=True),
        Spec("navcore_levels.obstacle",
             lambda: call(L.obstacle, {"cylinder": {"center": (1.0, 0.0, 1.0), "radius": 0.5,
                                                    "height": 1.0}}, "y")),
        Spec("navcore_levels.Obstacle",
             lambda: call(L.Obstacle, "box", (np.zeros(3), np.ones(3)), np.zeros(2),
                          np.ones(2))),
        Spec("navcore_levels.build_level_graph",
             lambda: call(L.build_level_graph, __import__("navcore").World(), "l",
                          vertices=FLOOR, triangles=FLOOR_TRIS, agent_radius=0.3),
             fresh=True),
        Spec("navcore_levels.save_level_mesh",
             lambda: call(L.save_level_mesh, TMP / "level.npz", level_graph())),
        Spec("navcore_levels.load_level_mesh", lambda: call(L.load_level_mesh, _baked_level())),
        Spec("navcore_levels.export_obj",
             lambda: call(L.export_obj, TMP / "level.obj", level_graph(), groups=None)),
        Spec("navcore_levels.length_3d",
             lambda: call(L.length_3d, np.array([(0, 0, 0), (3, 4, 0.0)]))),
    ]


def crowd_specs():
    import navcore
    import navcore_crowd

    @functools.lru_cache(None)
    def crowd():
        w = navcore.World(workers=1)
        w.add_graph("g", type="grid", rows=["......", "......"])
        c = w.add_crowd("c", graph="g")
        c.add([(0.5, 0.5), (2.5, 1.5), (4.5, 0.5)])
        return c

    def first():
        return crowd().ids[:1].copy()

    @functools.lru_cache(None)
    def on_level():
        w = navcore.World(workers=1)
        w.add_graph("l", type="level", vertices=[(0, 0, 0), (10, 0, 0), (10, 0, 10), (0, 0, 10)],
                    triangles=[(0, 2, 1), (0, 3, 2)])
        c = w.add_crowd("c", graph="l")
        c.add([(1.5, 0.2, 1.5), (5.0, 0.2, 5.0), (8.0, 0.2, 2.0)])
        return c

    def one():
        return on_level().ids[:1].copy()
    return [
        Spec("navcore_crowd.Crowd.add",
             lambda: call(crowd().add, [(1.5, 0.5)], goals=None, radius=None, max_speed=None)),
        Spec("navcore_crowd.Crowd.set_goals", lambda: call(crowd().set_goals, first(),
                                                           [(5.5, 1.5)])),
        Spec("navcore_crowd.Crowd.stop", lambda: call(crowd().stop, first())),
        Spec("navcore_crowd.Crowd.teleport", lambda: call(crowd().teleport, first(),
                                                          [(3.5, 0.5)])),
        Spec("navcore_crowd.Crowd.remove", lambda: call(crowd().remove, crowd().ids[-1:].copy())),
        Spec("navcore_crowd.Crowd.step", lambda: call(crowd().step, 0.1)),
        Spec("navcore_crowd.Crowd.state_names", lambda: call(crowd().state_names)),
        Spec("navcore_crowd.LevelCrowd.add",
             lambda: call(on_level().add, [(2.0, 0.2, 2.0)], goals=None, radius=None,
                          max_speed=None)),
        Spec("navcore_crowd.LevelCrowd.set_goals",
             lambda: call(on_level().set_goals, one(), [(8.0, 0.2, 8.0)])),
        Spec("navcore_crowd.LevelCrowd.stop", lambda: call(on_level().stop, one())),
        Spec("navcore_crowd.LevelCrowd.teleport",
             lambda: call(on_level().teleport, one(), [(3.0, 0.2, 3.0)])),
        Spec("navcore_crowd.LevelCrowd.remove",
             lambda: call(on_level().remove, on_level().ids[-1:].copy())),
        Spec("navcore_crowd.LevelCrowd.step", lambda: call(on_level().step, 0.1)),
        Spec("navcore_crowd.LevelCrowd.state_names", lambda: call(on_level().state_names)),
        Spec("navcore_crowd.FlowField",
             lambda: call(navcore_crowd.FlowField, crowd().graph, 3)),
        Spec("navcore_crowd.FlowField.chains",
             lambda: call(navcore_crowd.FlowField(crowd().graph, 3).chains, [0, 5], 4)),
    ]


SPECS = {"navcore_csr": csr_specs, "navcore_grid": grid_specs,
         "navcore_areas": areas_specs, "navcore_navmesh": navmesh_specs,
         "navcore_roads": roads_specs, "navcore_scenes": scenes_specs,
         "navcore_scheduler": scheduler_specs, "navcore_dask": dask_specs,
         "navcore_levels": levels_specs, "navcore_crowd": crowd_specs}


def specs(plugin: str) -> list:
    return SPECS[plugin]()
