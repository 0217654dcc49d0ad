"""Derived views: structures computed from a graph and tied to its version.

A contraction hierarchy, a simplified graph, a grid's landmarks, the
areas plugin's areas, a navmesh's locate index: each is computed from
a graph and answers exactly only for the graph it was computed from. They
all follow one protocol:

* A view subclasses :class:`DerivedView` and records the graph's
  ``version`` when it is built. It is ``current`` while the graph still
  has that version; every applied update batch bumps the version.
* ``graph.view(key)`` returns the view stored under ``key`` only while it
  is current (``None`` otherwise), so a stale view is never used for an
  exact answer: callers fall back to another search.
* Building is explicit: ``graph.view(key, build)`` builds (``build(graph)``)
  when there is no current view, and for views that only speed queries up
  only functions that exist to build pass ``build`` (``contract(graph)``,
  ``simplify(graph)``, ``landmarks(graph)``): a query never builds one.
  State a query cannot answer without is made on first need (the A*
  heuristic scale, one pass over the edges; the areas of a graph added
  before the areas plugin was registered).
* A view that can follow an update (patch itself in place, or check that
  the batch changed nothing it depends on) does so in the
  ``navcore_graph_updated`` hook and then calls :meth:`mark_current`.
* A view keeps its data (arrays, savable without pickle) apart from its
  query state: scratch memory lives in per-thread query objects
  (:meth:`DerivedView.thread_local`), as RoutingKit separates
  ``ContractionHierarchy`` from ``ContractionHierarchyQuery``.

>>> import navcore
>>> g = navcore.NavGraph.from_edges([0, 1], [1, 2])
>>> class Degrees(navcore.DerivedView):
...     def __init__(self, graph):
...         super().__init__(graph)
...         self.out = graph.csr.offsets[1:] - graph.csr.offsets[:-1]
>>> g.view("degrees") is None                  # never built
True
>>> g.view("degrees", Degrees).out.tolist()    # built on request
[1, 1, 0]
>>> g.version += 1                             # what an applied update does
>>> g.view("degrees") is None, g.stored_view("degrees").current
(True, False)
"""
from __future__ import annotations

import threading


class DerivedView:
    """Base of every structure derived from one version of a graph."""

    def __init__(self, graph):
        #: the graph this view was derived from
        self.graph = graph
        #: the graph version it answers for
        self.version = graph.version
        self._tls = threading.local()

    @property
    def current(self) -> bool:
        """Whether the graph is unchanged since the view was built (or
        last brought up to date with :meth:`mark_current`)."""
        return self.version == self.graph.version

    def mark_current(self) -> None:
        """The view has followed the graph's latest update (it patched
        itself, or the update changed nothing it depends on)."""
        self.version = self.graph.version

    def thread_local(self, make):
        """This thread's query state for the view, made by ``make()`` on
        the thread's first query (one scratch set per thread, Detour's
        model: queries on several workers never share buffers)."""
        state = getattr(self._tls, "state", None)
        if state is None:
            state = self._tls.state = make()
        return state
