"""Shared helpers of the benchmark scripts in ``bench/``.

Conventions every script follows:

* Timings are medians over rounds; libraries are interleaved inside a round
  (the order rotates each round) so drift on a noisy machine hits all of them.
* Results are ratios against peers measured in the same run, never timed
  assertions. ``ratio = navcore time / peer time``: below 1 navcore is faster.
* Results go to ``bench/results/<name>.json`` (git-ignored).
"""
from __future__ import annotations

import datetime as _dt
import gc
import json
import os
import platform
import statistics
import sys
import time
from importlib import metadata
from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parent / "results"

now = time.perf_counter


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def timed(fn, *args, **kwargs):
    """``(seconds, result)`` of one call, garbage collector paused."""
    gc_was = gc.isenabled()
    gc.disable()
    try:
        t = now()
        out = fn(*args, **kwargs)
        return now() - t, out
    finally:
        if gc_was:
            gc.enable()


def interleaved(cases: dict, rounds: int) -> dict:
    """Time every callable of ``cases`` ``rounds`` times, rotating the order
    each round. Returns ``{name: [seconds, ...]}`` (results are discarded)."""
    names = list(cases)
    times = {name: [] for name in names}
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            t, out = timed(cases[name])
            del out
            times[name].append(t)
            gc.collect()
    return times


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def versions(*dists) -> dict:
    out = {"python": platform.python_version()}
    for d in dists:
        try:
            out[d] = metadata.version(d)
        except metadata.PackageNotFoundError:
            out[d] = None
    return out


def machine() -> dict:
    return {"platform": platform.platform(), "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
            "date": _dt.datetime.now().strftime("%Y-%m-%d %H:%M")}


def fmt_s(s) -> str:
    """Seconds in a readable unit."""
    if s is None:
        return "-"
    if s >= 1.0:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.0f} us"


def fmt_ratio(r) -> str:
    if r is None:
        return "-"
    if r >= 10:
        return f"{r:.0f}x"
    if r >= 0.1:
        return f"{r:.2f}x"
    return f"{r:.3f}x"


def fmt_bytes(b) -> str:
    if b is None:
        return "-"
    for unit in ("B", "KB", "MB", "GB"):
        if abs(b) < 1024 or unit == "GB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024.0
    return str(b)


def print_table(title: str, headers, rows) -> None:
    """A Markdown table (readable in a terminal, pasteable into docs)."""
    rows = [[str(c) for c in row] for row in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in rows)) if rows else len(str(h))
              for i, h in enumerate(headers)]
    print(f"\n### {title}\n")
    print("| " + " | ".join(str(h).ljust(w) for h, w in zip(headers, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
    sys.stdout.flush()


def log(msg: str) -> None:
    print(f"  .. {msg}", file=sys.stderr, flush=True)


def write_json(name: str, payload: dict) -> Path:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2, default=_json_default) + "\n")
    return path


def _json_default(o):
    try:
        import numpy as np
        if isinstance(o, np.generic):
            return o.item()
        if isinstance(o, np.ndarray):
            return o.tolist()
    except ImportError:
        pass
    return str(o)
