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
