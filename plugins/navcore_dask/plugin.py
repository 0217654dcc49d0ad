"""The Dask plugin's hooks: a graph's snapshots on Dask clusters are
released as soon as an applied update makes them stale or the graph leaves
its world, so a cluster never holds an old version between jobs. The jobs
themselves are plain functions (``navcore_dask.distance_matrix``, ...);
model code lives beside this file and imports Dask only when used."""
from __future__ import annotations

import navcore

from . import shipping


@navcore.hookimpl
def navcore_graph_updated(graph):
    shipping.release(graph)


@navcore.hookimpl
def navcore_graph_removed(graph):
    shipping.release(graph)
