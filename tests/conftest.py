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
