"""``navcore_dask.connect`` and the client checks, without a cluster."""
import pytest

import navcore
import navcore_dask

pytest.importorskip("dask.distributed")


@pytest.mark.nojit
@pytest.mark.parametrize("address, words", [
    (42, "scheduler address"), ("", "empty"), ("   ", "empty"),
    ("tcp://127.0.0.1:1", "no Dask scheduler answered"),
    ("nonsense://x", "no Dask scheduler answered")])
def test_bad_address_is_a_cluster_error(address, words):
    with pytest.raises(navcore_dask.ClusterError, match=words) as err:
        navcore_dask.connect(address, timeout=2)
    assert isinstance(err.value, navcore.NavError)


@pytest.mark.nojit
@pytest.mark.parametrize("kw, words", [
    ({"timeout": 0}, "timeout"), ({"timeout": True}, "timeout"),
    ({"n_workers": 0}, "n_workers"), ({"threads_per_worker": 1.5}, "threads_per_worker")])
def test_bad_options_are_refused_before_a_cluster_starts(kw, words):
    with pytest.raises(navcore_dask.ClusterError, match=words):
        navcore_dask.connect(**kw)


@pytest.mark.nojit
def test_a_client_is_needed():
    g = navcore.NavGraph.from_edges([0], [1])
    for bad in (None, "tcp://127.0.0.1:8786", object()):
        with pytest.raises(navcore_dask.ClusterError, match="dask.distributed.Client"):
            navcore_dask.distance_matrix(bad, g, [0], [1])
