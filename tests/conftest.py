import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
MOVINGAI = SHARED / "data" / "movingai"
NOJIT = os.environ.get("NUMBA_DISABLE_JIT") == "1"

settings.register_profile("default", deadline=None,
                          max_examples=int(os.environ.get("NAVCORE_EXAMPLES", "60")),
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("nojit", deadline=None, max_examples=10,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("nojit" if NOJIT else "default")


@pytest.fixture
def world():
    import navcore
    return navcore.World(autoload=False)


@pytest.fixture
def section_held_elsewhere():
    """A probe: whether ``navcore.parallel``'s process-wide lock is held,
    tried from another thread (the lock is re-entrant, so the thread
    holding it could always take it again)."""
    import threading

    import navcore.parallel as par

    def probe() -> bool:
        out = []

        def attempt():
            got = par._LOCK.acquire(blocking=False)
            if got:
                par._LOCK.release()
            out.append(not got)
        th = threading.Thread(target=attempt)
        th.start()
        th.join()
        return out[0]
    return probe


#: Under ``make test`` (pytest-xdist, ``--dist loadgroup
#: --no-loadscope-reorder``) each test folder goes whole to one test
#: process, in this order. From an empty numba cache most of the suite's
#: time is compiling kernels: the backends' own folders come first, two
#: at a time, so each plugin's kernels compile in one process only, and
#: the folders that use every backend (conformance, kernel, surface,
#: scenes, dask) come when most kernels are in the on-disk cache.
FOLDER_ORDER = ("levels", "roads", "navmesh", "grid", "csr", "areas", "crowd",
                "conformance", "kernel", "dask", "surface", "scenes", "viewer",
                "scheduler", "fuzz", "draw")


def _folder(nodeid: str) -> str:
    """The test folder of a test (``tests/<folder>/...``), or ``doctests``
    for the doctests of ``navcore/`` and ``plugins/``."""
    parts = nodeid.split("::")[0].split("/")
    return parts[1] if parts[0] == "tests" and len(parts) > 2 else "doctests"


def pytest_xdist_make_scheduler(config, log):
    # xdist's own loadgroup reads xdist_group marks by renaming nodeids,
    # which pytest 9 no longer allows: the folder is the group here
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FolderScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return _folder(nodeid)
    return FolderScheduling(config, log)


def pytest_collection_modifyitems(config, items):
    # in a test process of ``--dist loadgroup`` (xdist sets ``loadgroup``
    # there): the folders in FOLDER_ORDER, the order they are handed out
    if getattr(config.option, "loadgroup", False):
        rank = {name: k for k, name in enumerate(FOLDER_ORDER)}
        items.sort(key=lambda item: rank.get(_folder(item.nodeid), len(rank)))
