"""navcore_dask: distance matrices and path batches of one graph on a Dask
cluster (``pip install 'navcore[dask]'``).

    import navcore, navcore_dask
    world = navcore.World()
    city = world.add_graph("city", type="roads", osm="city.osm.pbf", contract=True)
    with navcore_dask.connect() as client:          # a LocalCluster; or connect("tcp://host:8786")
        m = navcore_dask.distance_matrix(client, city, sources, targets)

What is sent when: the first job on a graph pickles it with its views (CSR,
contraction hierarchies, areas) and scatters that snapshot to every worker
(``broadcast=True``); later jobs on the same version send only the tiles'
node ids. An applied update (a new ``graph.version``) or a view built since
releases the old snapshot on the cluster, and the next job scatters the new
one before any of its tiles is submitted. Each worker unpickles a snapshot
once, on its first tile, into a ``navcore.World`` of its own, and answers
tiles through the same plugins and numba kernels as ``World`` does here.

Dask is imported only when a function here is called; without the extra
they raise ``ClusterError`` saying how to install it.
"""
from .cluster import ClusterError, connect
from .jobs import distance_matrix, distance_pairs, find_paths
from .shipping import scattered
from .workers import worker_counts

__all__ = ["connect", "distance_matrix", "distance_pairs", "find_paths", "ClusterError",
           "scattered", "worker_counts"]
