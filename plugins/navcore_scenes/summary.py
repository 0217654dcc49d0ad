"""What a simulation run did: a JSON-ready dict and the text ``navcore run`` prints."""
from __future__ import annotations

import numpy as np


def _percentiles(values) -> dict:
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return {"p50": 0.0, "p99": 0.0, "max": 0.0}
    p50, p99 = np.percentile(v, [50, 99])
    return {"p50": float(p50), "p99": float(p99), "max": float(v.max())}


def summarize(sim, wall_s: float) -> dict:
    """The summary of ``sim`` after its frames so far (``wall_s``: the
    run's wall-clock seconds).

    Everything but ``timing`` is what happened in the game (``results``
    gives that part alone); ``timing`` holds the clock's measurements
    (wall time, frame, update and request times, warm-up). In a
    deterministic scene (``settings: {deterministic: true}``) the results
    are the same, byte for byte as JSON, on every run, machine and number
    of workers."""
    a = sim.agents
    s = sim.scene.settings
    budget = s.frame_budget_ms
    frame_ms = np.asarray(sim.frame_ms, dtype=np.float64)
    ids = [g.id for g in sim.scene.graphs]
    return {
        "scene": sim.scene.name,
        "file": str(sim.scene.path),
        "frames": sim.frame,
        "dt": s.dt,
        "simulated_s": sim.frame * s.dt,
        "deterministic": bool(getattr(sim.world, "deterministic", False)),
        "background": bool(getattr(sim.world, "background", False)),
        "frame_budget_nodes": getattr(sim.world, "frame_budget_nodes", None)
        if s.frame_budget_nodes is None else s.frame_budget_nodes,
        "agents": {"total": len(a.ids), **a.counts()},
        "path_length": {"total": float(a.travelled.sum()),
                        "mean": float(a.travelled.mean()) if a.ids else 0.0},
        "legs_completed": int(a.legs_done.sum()),
        "links_planned": {f"{g} {kind}": n for (g, kind), n in sorted(a.links_planned.items())},
        # off-mesh links the crowds' agents stepped onto (a level's walkers)
        "links_taken": {f"{g} {kind}": n for g, (c, _) in getattr(sim, "walking", {}).items()
                        if c is not None
                        for kind, n in sorted(getattr(c, "links_taken", {}).items())},
        "repaths": int(a.repaths.sum()),
        "unreachable": int(a.unreachable.sum()),
        "requests": {"served": sim.served, "waiting_max": sim.waiting_max,
                     "nodes_expanded": sim.nodes_expanded},
        "areas_now": {str(g): sim.count_areas(g) for g in ids},
        "crowds": _crowds(sim),
        # flow fields the graphs' crowds made (one per shared goal and map version)
        "flow_fields": {str(g): int(getattr(c, "fields_made", 0))
                        for g, (c, _) in getattr(sim, "walking", {}).items() if c is not None},
        "events": list(sim.log),
        "per_agent": [{"id": aid, "state": _state(a, i), "travelled": float(a.travelled[i]),
                       "legs": int(a.legs_done[i]), "repaths": int(a.repaths[i])}
                      for i, aid in enumerate(a.ids)],
        "timing": {
            "wall_s": wall_s,
            "frame_ms": {"budget": budget, **_percentiles(frame_ms),
                         "over_budget": int((frame_ms > budget).sum()),
                         "updates": _percentiles(sim.update_ms),
                         "requests": _percentiles(sim.request_ms)},
            "warm_up_ms": sim.warm_up_s * 1e3,
            "step_ms": _percentiles(sim.step_ms),
        },
    }


def _crowds(sim) -> dict:
    """Per crowd of the scene: its agents, how many arrived and left the
    map, and when (seconds of game time: the first, the median, and the
    last when all have, else ``None``)."""
    a, dt = sim.agents, sim.scene.settings.dt
    out = {}
    for c in sim.scene.crowds:
        rows = np.asarray(sim.crowds[c.id], dtype=np.int64)
        at = a.arrived_at[rows]
        done = np.sort(at[at >= 0]) * dt
        out[c.id] = {"agents": int(rows.size), "arrived": int(done.size),
                     "left": int(a.gone[rows].sum()),
                     "first_arrival_s": float(done[0]) if done.size else None,
                     "median_arrival_s": float(np.median(done)) if done.size else None,
                     "all_arrived_s": float(done[-1]) if done.size == rows.size else None}
    return out


def results(summary: dict) -> dict:
    """The summary without its ``timing``: what happened, not how long it
    took (byte-identical JSON on every run of a deterministic scene)."""
    return {k: v for k, v in summary.items() if k != "timing"}


def _state(agents, i) -> str:
    from .agents import STATE_NAMES
    return STATE_NAMES[agents.state[i]]


def _crowd_line(name, c) -> str:
    word = "out" if c["left"] == c["agents"] else "arrived"
    text = f"{name} {c['arrived']}/{c['agents']} {word}"
    if c["all_arrived_s"] is not None:
        return text + f", all by {c['all_arrived_s']:.1f} s (median {c['median_arrival_s']:.1f} s)"
    if c["arrived"]:
        return text + f" (the first at {c['first_arrival_s']:.1f} s)"
    return text


def format_summary(s: dict) -> str:
    """The summary as a few lines of text."""
    ag = s["agents"]
    lines = [
        f"{s['file']}: {s['scene']}: {s['frames']} frames of {s['dt']:g} s "
        f"({s['simulated_s']:.1f} s simulated) in {s['timing']['wall_s']:.2f} s",
        f"agents: {ag['arrived']}/{ag['total']} arrived, {ag['moving']} moving, "
        f"{ag['waiting'] + ag['retry']} waiting for a path, {ag['stuck']} stuck"
        + (f" ({ag['patrolling']} patrol in loops)" if ag["patrolling"] else ""),
        f"path length travelled: mean {s['path_length']['mean']:.1f}, total "
        f"{s['path_length']['total']:.1f}; {s['legs_completed']} legs completed; "
        f"{s['repaths']} repaths; {s['unreachable']} unreachable results; "
        f"{s['requests']['served']} requests served (at most "
        f"{s['requests']['waiting_max']} waiting)",
    ]
    if s["events"]:
        lines.append("events:")
        # areas are counted before and after a frame's events on a graph,
        # so events that share a frame and graph are listed on one line
        groups: dict = {}
        for ev in s["events"]:
            groups.setdefault((ev["frame"], ev["graph"]), []).append(ev)
        for (frame, graph_id), evs in groups.items():
            areas = ""
            if evs[-1]["areas_after"] is not None:
                areas = f"  areas {evs[0]['areas_before']} -> {evs[-1]['areas_after']}"
            graph = f" [{graph_id}]" if graph_id is not None else ""
            what = "; ".join(ev["what"] for ev in evs)
            replanned = evs[-1].get("replanned")
            replanned = f"  {replanned} re-planned since" if replanned else ""
            lines.append(f"  frame {frame:>5}  {what}{graph}{areas}{replanned}")
    if s.get("crowds"):
        lines.append("crowds: " + "; ".join(_crowd_line(k, c) for k, c in s["crowds"].items()))
    if any(s.get("flow_fields", {}).values()):
        lines.append("flow fields made (one per shared goal and map version): " + ", ".join(
            f"{g} {n}" for g, n in s["flow_fields"].items()))
    if s["links_planned"]:
        lines.append("off-mesh links on the paths followed: " + ", ".join(
            f"{name} {n}" for name, n in s["links_planned"].items()))
    if s.get("links_taken"):
        lines.append("off-mesh links the crowds took: " + ", ".join(
            f"{name} {n}" for name, n in s["links_taken"].items()))
    lines.append("areas now: " + ", ".join(f"{g} {n}" for g, n in s["areas_now"].items()))
    t = s["timing"]
    f = t["frame_ms"]
    if s["deterministic"]:
        lines.append(f"deterministic: at most {s['frame_budget_nodes']} nodes expanded per "
                     f"frame (one request more when one crosses it), no clock; "
                     f"{s['requests']['nodes_expanded']} in all")
    if s.get("background"):
        lines.append("background: requests searched across frames on the worker threads; "
                     "a tick publishes what finished and never waits for a search")
    lines.append(f"frame time (world.tick): p50 {f['p50']:.3f} ms, p99 {f['p99']:.3f} ms, "
                 f"max {f['max']:.3f} ms; budget {f['budget']:g} ms: {f['over_budget']} of "
                 f"{s['frames']} frames over")
    u, r = f["updates"], f["requests"]
    lines.append(f"  of which updates and areas: p50 {u['p50']:.3f} ms, p99 {u['p99']:.3f} ms; "
                 f"path requests: p50 {r['p50']:.3f} ms, p99 {r['p99']:.3f} ms "
                 f"(kernels loaded before frame 1 in {t['warm_up_ms']:.0f} ms)")
    st = t["step_ms"]
    lines.append(f"whole frame (events, obstacles, tick, agents): p50 {st['p50']:.3f} ms, "
                 f"p99 {st['p99']:.3f} ms")
    return "\n".join(lines)
