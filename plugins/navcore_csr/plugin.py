"""The csr plugin's hooks: CSR storage, the ``csr`` graph type, generic
search (``trylast``: specialised planners answer first), reachability,
distance matrices, generic updates and pictures of graphs with
positions that no other plugin draws."""
from __future__ import annotations

import navcore
from navcore.plugins import forward, sample_hook
from navcore.graph import NavGraph

from . import contraction, drawing, isochrone, search, simplification, sliced, updates
from .storage import build_grouped, build_validated

ALGORITHMS = ("astar", "dijkstra", "bfs", "simplified", "ch")


def build_csr_graph(world, graph_id, *, src, dst, cost=None, num_nodes=None,
                    positions=None, directed=True, heuristic=None, walkable=None):
    """Any graph described as edge arrays; nodes are ``0..num_nodes-1``.

    Parameters:
        src: tail node of each edge (integers).
        dst: head node of each edge.
        cost: cost of each edge (>= 0; ``inf`` closes it); 1 per edge when
            not given.
        num_nodes: node count (default: one more than the largest id).
        positions: ``(N, 2)`` or ``(N, 3)`` node positions; with them A*
            uses the straight-line distance as its heuristic and
            ``locate`` finds the nearest node to a point.
        directed: ``False`` adds every edge in both directions.
        heuristic: the A* lower bound between positions:
            ``"euclidean"`` (the default with positions), ``"manhattan"``,
            ``"octile"`` or ``"zero"`` (the default without); no edge may
            cost less than the distance it measures.
        walkable: bool per node; ``False`` blocks a node as an update with
            ``walkable=False`` would.
    """
    return NavGraph.from_edges(src, dst, cost, num_nodes=num_nodes, positions=positions,
                               directed=directed, heuristic=heuristic,
                               walkable=walkable, world=world)


@navcore.hookimpl
def navcore_graph_types():
    return {"csr": build_csr_graph}


def sample_graph(world, graph_id):
    """A 3x3 lattice of 1-cost streets, contracted and simplified (for
    ``navcore.warm_up``)."""
    import numpy as np
    from .contraction import contract
    from .simplification import simplify
    src = [0, 1, 3, 4, 6, 7, 0, 3, 1, 4, 2, 5]
    dst = [1, 2, 4, 5, 7, 8, 3, 6, 4, 7, 5, 8]
    xy = np.array([(i % 3, i // 3) for i in range(9)], dtype=np.float64)
    graph = world.add_graph(graph_id, type="csr", src=src, dst=dst, cost=np.ones(12),
                            positions=xy, directed=False)
    contract(graph)
    simplify(graph)
    return graph


navcore_sample_graph = sample_hook("csr", sample_graph)


@navcore.hookimpl(trylast=True)
def navcore_storage_build(src, dst, data, num_nodes, options):
    if options.get("offsets") is not None:
        return build_grouped(options["offsets"], dst, data, num_nodes,
                             options.get("sort", True), options.get("dedup", True))
    return build_validated(src, dst, data, num_nodes,
                           options.get("sort", True), options.get("dedup", True))


@navcore.hookimpl
def navcore_algorithms(graph):
    # Every NavGraph can hand out a CSR view, so these apply wherever edge
    # costs are path lengths. Do not touch graph.csr here: on a grid that
    # would build the whole view.
    return list(ALGORITHMS) if graph.edge_costs_are_lengths else None


@navcore.hookimpl
def navcore_query_options(graph):
    return search.query_options(graph)


@navcore.hookimpl(trylast=True)
def navcore_find_path(graph, request):
    algo = request.algorithm
    s, t = request.start_node, request.goal_node
    if algo == "auto" or algo == "astar":
        h = request.options.get("heuristic", graph.heuristic)
        # s and t are checked node ids (World.prepare_path, World.solve)
        return search.astar_between(graph, s, t, h,
                                    "astar" if h != "zero" else "dijkstra")
    if algo == "dijkstra":
        return search.run_astar(graph, s, t, "zero", "dijkstra")
    if algo == "bfs":
        return search.bfs(graph, s, t)
    if algo == "simplified":
        return simplification.simplified_path(graph, s, t)
    if algo == "ch":
        return contraction.contracted_between(graph, s, t)
    return None


@navcore.hookimpl(trylast=True)
def navcore_begin_search(world, graph, request):
    return sliced.begin(graph, request) or navcore.Search.whole(world, graph, request)


@navcore.hookimpl(specname="navcore_begin_search", tryfirst=True)
def begin_search_on_built_view(world, graph, request):
    # a built view's query is a short one (a few hundred expansions at
    # most), run whole in the first step, where find_path would use it
    if request.algorithm == "auto" and _built_view(graph) is not None:
        return navcore.Search.whole(world, graph, request)
    return None


def _built_view(graph):
    """The view ``auto`` queries on ``graph`` use: a current contraction
    hierarchy, else a current simplified view that pays; or None."""
    ch = graph.view(contraction.VIEW_KEY)
    if ch is not None:
        return ch
    view = graph.view(simplification.VIEW_KEY)
    return view if view is not None and view.pays else None


@navcore.hookimpl(specname="navcore_find_path", tryfirst=True)
def find_path_on_built_view(graph, request):
    """``auto`` uses a view the user built while it is current: first a
    contraction hierarchy (built for exactly this), else a simplified view
    that searches at most a quarter of the nodes (on corridor-rich graphs
    it beats the backend's own search; on open maps it does not). A stale
    view is left alone (``navcore.views``): queries never build one."""
    if request.algorithm != "auto":
        return None
    ch = graph.view(contraction.VIEW_KEY)       # contracted_view, on every query
    if ch is not None:
        # the ends are checked (World.prepare_path) and the view current
        return ch.query()._search(request.start_node, request.goal_node)
    view = graph.view(simplification.VIEW_KEY)
    if view is None or not view.pays:
        return None
    return view.find_path(request.start_node, request.goal_node)


@navcore.hookimpl(specname="navcore_find_paths", tryfirst=True)
def find_paths_on_built_view(graph, batch):
    """Batches (the scheduler's): where ``find_path_on_built_view`` would
    answer (``auto`` with a current view the user built), the pairs are
    left to it, one at a time."""
    if batch.algorithm != "auto":
        return
    if contraction.contracted_view(graph) is not None:
        batch.defer(batch.todo())
        return
    view = simplification.simplified_view(graph)
    if view is not None and view.pays:
        batch.defer(batch.todo())


@navcore.hookimpl(trylast=True)
def navcore_find_paths(batch):
    # the generic searches answer one request at a time (navcore_find_path)
    batch.defer(batch.todo())


@navcore.hookimpl
def navcore_graph_updated(graph, dirty):
    simplification.on_update(graph, dirty)


@navcore.hookimpl
def navcore_warm_up(graph):
    search.warm_up(graph)
    simplification.warm_up(graph)
    contraction.warm_up(graph)
    isochrone.warm_up(graph)


navcore_closed_nodes = forward(search.search_closed, trylast=True)
navcore_path_costs = forward(search.path_costs, trylast=True)
navcore_reachable = forward(search.reachable, trylast=True)


@navcore.hookimpl(trylast=True)
def navcore_distance_matrix(graph, sources, targets):
    # a current contraction hierarchy (contract(graph)) answers by buckets
    out = contraction.contracted_matrix(graph, sources, targets)
    return search.distance_matrix(graph, sources, targets) if out is None else out


@navcore.hookimpl(trylast=True)
def navcore_matrix_search_side(graph, num_sources, num_targets):
    if contraction.contracted_view(graph) is not None:
        return contraction.bucket_search_side(num_sources, num_targets)
    return search.matrix_search_side(graph, num_sources, num_targets)


@navcore.hookimpl(trylast=True)
def navcore_distance_pairs(graph, sources, targets):
    out = contraction.contracted_pairs(graph, sources, targets)
    return search.distance_pairs(graph, sources, targets) if out is None else out


navcore_isochrone = forward(isochrone.isochrone, trylast=True)

navcore_make_update = forward(updates.make_update, trylast=True)
navcore_apply_updates = forward(updates.apply_updates, trylast=True)


@navcore.hookimpl(trylast=True)
def navcore_draw_graph(graph, canvas):
    # any graph with node positions that its own plugin does not draw
    return drawing.draw(graph, canvas)
