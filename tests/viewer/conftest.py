"""A real browser for the viewer's tests: headless Chromium from Debian's
``chromium`` package (``/usr/bin/chromium``, or ``$NAVCORE_CHROMIUM``)
driven through playwright, one per test module.

Without the browser or playwright a test is skipped, except in CI (``CI``
or ``NAVCORE_REQUIRE_PEERS`` set to ``true``/``1``; ``.ci/run`` sets the
latter and installs the ``chromium`` package), where it fails: the
viewer's tests never skip silently there."""
from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = os.environ.get("NAVCORE_CHROMIUM") or shutil.which("chromium") or \
    "/usr/bin/chromium"


def _required() -> bool:
    return any(os.environ.get(k, "").lower() in ("1", "true")
               for k in ("CI", "NAVCORE_REQUIRE_PEERS"))


def _missing(why: str):
    if _required():
        pytest.fail(f"the viewer's tests need {why} (required in CI)")
    pytest.skip(f"the viewer's tests need {why}")


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright: pip install playwright")
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        _missing("aiohttp: pip install aiohttp")
    if not os.path.exists(CHROMIUM):
        _missing(f"Chromium at {CHROMIUM}: apt-get install chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM,
                              args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()
