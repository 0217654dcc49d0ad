"""Turn restrictions: OpenStreetMap ``type=restriction`` relations read for
one profile, and ``turns=`` tables of arrays (by road index) and of GeoJSON
roads (by way id), as turn rules between directed segments
(:class:`~navcore_roads.segments.Turns`).

A relation binds the profile when it has ``restriction:<transport>`` for
one of the profile's ``restriction_tags`` (the first present wins), or a
plain ``restriction`` when the profile reads those (``restrictions``) and
no transport of the profile is listed in ``except=`` (``except=bicycle``
frees bikes, not cars). With a ``via`` node, ``no_*`` forbids the turns
from the ``from`` way onto the ``to`` way at the via node; ``only_*``
forbids every other turn out of the via node for traffic arriving on the
``from`` way. These are rules between two segments (``Turns.frm``/``to``).

With ``via`` ways (one, or several forming a chain in member order) the
rule is about a sequence: the ``from`` way must end at an end of the first
via way, each via way start where the one before ends, and the ``to`` way
start at the end of the last, every via way driven whole in that
direction. ``no_*`` forbids driving from the ``from`` way along the whole
chain onto the ``to`` way; ``only_*`` forbids leaving the end of the chain
anywhere but onto the ``to`` way for traffic that came from the ``from``
way along the whole chain (as OSRM reads it: turning off the chain before
its end is free). Each is a forbidden sequence of segments
(``Turns.seq``), routed exactly by copies of the via edges
(``navcore_roads.via``).

What is not applied is counted in ``report["skipped"]`` rather than
failing the load, as OSRM does: relations whose only restriction is
conditional (``restriction:conditional``, ``restriction:<transport>:conditional``),
relations for other transports or excepting the profile's, malformed
relations (a missing or repeated role, a member of the wrong type, both
via nodes and via ways, a via way listed twice, a kind that is neither
``no_*`` nor ``only_*``, a chain of via ways that its ``from`` way joins
at both ends), and relations whose ways or node the profile's roads do not
hold (a way the profile cannot drive, or cannot drive in the chain's
direction, a way that does not end or start at the via node, via ways
with a gap or in the wrong order, a via way that branches or is a ring).
"""
from __future__ import annotations

import numpy as np

from navcore import validate
from navcore.errors import GraphError

from ..segments import Segments, Turns

#: the reasons a relation is skipped, in report order
SKIPPED = ("conditional", "other transport", "excepted", "malformed",
           "not on the roads read")


def relation_rule(tags: dict, members, profile):
    """One relation (its tags, and members as ``(type, ref, role)``) read
    for ``profile``: ``(kind, from ways, via node, to ways)`` with kind
    ``"no"`` or ``"only"`` (the via node an id, or via ways a tuple of
    way ids in member order), or ``(reason, None, None, None)`` with one of
    ``SKIPPED`` when it does not apply."""
    value, general = None, False
    for transport in profile.restriction_tags:
        value = tags.get(f"restriction:{transport}")
        if value is not None:
            break
    if value is None and profile.restrictions:
        value, general = tags.get("restriction"), True
    if value is None:
        if any(k.startswith("restriction") and k.endswith(":conditional") for k in tags):
            return "conditional", None, None, None
        return "other transport", None, None, None
    if general:
        exempt = {v.strip() for v in tags.get("except", "").split(";")}
        if exempt.intersection(profile.restriction_tags):
            return "excepted", None, None, None
    value = value.strip()
    kind = "no" if value.startswith("no_") else "only" if value.startswith("only_") else None
    frm, to, via_nodes, via_ways = [], [], [], []
    for mtype, ref, role in members:
        if role == "from" and mtype == "w":
            frm.append(ref)
        elif role == "to" and mtype == "w":
            to.append(ref)
        elif role == "via" and mtype == "n":
            via_nodes.append(ref)
        elif role == "via" and mtype == "w":
            via_ways.append(ref)
        elif role in ("from", "to", "via"):
            return "malformed", None, None, None
    if kind is None or not frm or not to or (via_nodes and via_ways):
        return "malformed", None, None, None
    if via_ways:
        if (kind == "only" and len(to) != 1) or len(set(via_ways)) != len(via_ways):
            return "malformed", None, None, None
        return kind, frm, tuple(via_ways), to
    if len(via_nodes) != 1 or (kind == "only" and len(to) != 1):
        return "malformed", None, None, None
    return kind, frm, via_nodes[0], to


def osm_turns(segments: Segments, rules, skipped: dict) -> Segments:
    """``segments`` with the turn rules of ``rules`` (``(kind, from ways,
    via node id or via way ids, to ways)`` of ``relation_rule``): via
    nodes as forbidden segment pairs, via ways as forbidden segment
    sequences; ``skipped`` (reason -> count) goes into the report."""
    skipped = {reason: skipped.get(reason, 0) for reason in SKIPPED}
    src = segments.src.astype(np.int64)
    dst = segments.dst.astype(np.int64)
    way = segments.way
    n = segments.num_nodes
    frm_out, to_out, sequences = [], [], []
    applied = 0
    # segments by (way, end node) and (way, start node): one sort each
    ends_key = np.lexsort((dst, way))
    starts_key = np.lexsort((src, way))
    out_order = np.argsort(src, kind="stable")
    out_off = np.searchsorted(src[out_order], np.arange(n + 1))

    def lookup(order, node_of, w, v):
        lo = np.searchsorted(way[order], w, side="left")
        hi = np.searchsorted(way[order], w, side="right")
        run = order[lo:hi]
        return run if v is None else run[node_of[run] == v]

    for kind, from_ways, via, to_ways in rules:
        if isinstance(via, tuple):
            chain = _via_chain(src, dst, [lookup(ends_key, dst, w, None) for w in from_ways],
                               [lookup(ends_key, dst, w, None) for w in via],
                               [lookup(starts_key, src, w, None) for w in to_ways])
            if isinstance(chain, str):
                skipped[chain] += 1
                continue
            f, path, t, end = chain
            if kind == "only":
                t = np.setdiff1d(out_order[out_off[end]:out_off[end + 1]], t)
            applied += 1
            sequences += [[int(a), *path, int(b)] for a in f for b in t]
            continue
        at = int(np.searchsorted(segments.node_id, via))
        if at >= n or segments.node_id[at] != via:
            skipped["not on the roads read"] += 1
            continue
        f = np.concatenate([lookup(ends_key, dst, w, at) for w in from_ways])
        t = np.concatenate([lookup(starts_key, src, w, at) for w in to_ways])
        if f.size == 0 or t.size == 0:
            skipped["not on the roads read"] += 1
            continue
        if kind == "only":
            t = np.setdiff1d(out_order[out_off[at]:out_off[at + 1]], t)
        a, b = np.repeat(f, t.size), np.tile(t, f.size)
        # from a way onto itself through a node inside it: the U-turn back,
        # not the way going on (no_u_turn from W via v to W)
        along = (way[a] == way[b]) & (dst[b] != src[a])
        applied += 1
        frm_out.append(a[~along])
        to_out.append(b[~along])
    frm = np.concatenate(frm_out) if frm_out else np.zeros(0, np.int64)
    to = np.concatenate(to_out) if to_out else np.zeros(0, np.int64)
    report = {"restrictions": applied, "skipped": {k: v for k, v in skipped.items() if v}}
    out = _with_turns(segments, frm, to, np.full(frm.size, np.inf), report)
    if not sequences:
        return out
    from dataclasses import replace
    seq_off = np.zeros(len(sequences) + 1, dtype=np.int64)
    np.cumsum([len(q) for q in sequences], out=seq_off[1:])
    return replace(out, turns=replace(out.turns, seq_off=seq_off,
                                      seq=np.concatenate(sequences).astype(np.int64)))


def _via_chain(src, dst, from_segs, via_segs, to_segs):
    """The chain of a via-way relation on the segments: ``(from segments
    into its start, via segments in driving order, to segments out of its
    end, end node)``, or the ``SKIPPED`` reason it does not apply. Each
    argument holds, per way, the segments of that way (either direction)."""
    if any(s.size == 0 for s in (*from_segs, *via_segs, *to_segs)):
        return "not on the roads read"              # a way the profile does not drive
    frm = np.concatenate(from_segs)
    to = np.concatenate(to_segs)
    first = via_segs[0]
    ends = [v for v in np.unique(np.r_[src[first], dst[first]]).tolist()
            if len(_neighbours(src, dst, first, v)) == 1]
    found = []
    for start in ends:
        into = frm[dst[frm] == start]
        if into.size == 0:
            continue
        path, at = [], start
        for segs in via_segs:
            part = _drive(src, dst, segs, at)
            if part is None:
                break
            path += part
            at = int(dst[part[-1]])
        else:
            out = to[src[to] == at]
            if out.size:
                found.append((into, path, out, at))
    if not found:
        return "not on the roads read"
    if len(found) > 1:                  # from and to ways at both ends: which way round?
        return "malformed"
    return found[0]


def _neighbours(src, dst, segs, v) -> set:
    """Nodes joined to ``v`` by ``segs`` (either direction)."""
    return set(dst[segs[src[segs] == v]].tolist()) | set(src[segs[dst[segs] == v]].tolist())


def _drive(src, dst, segs, start):
    """The segments of one way (``segs``) driven from its end node
    ``start`` to its other end, in order; None when ``start`` is not an
    end of it, the way branches or runs in a ring, or a segment on the way
    is not drivable in that direction."""
    if len(_neighbours(src, dst, segs, start)) != 1:
        return None
    path, prev, at = [], -1, start
    for _ in range(segs.size + 1):
        nxt = _neighbours(src, dst, segs, at) - {prev}
        if not nxt:
            return path or None
        if len(nxt) > 1:
            return None
        v = nxt.pop()
        step = segs[(src[segs] == at) & (dst[segs] == v)]
        if step.size == 0:
            return None                 # one-way against the chain
        path.append(int(step[0]))
        prev, at = at, v
        if at == start:
            return None                 # a ring
    return None


def table_turns(segments: Segments, turns, num_edges: int, back) -> Segments:
    """``segments`` of arrays (edge ``i`` is segment ``i``; the two-way
    edges ``back`` also run backwards as segments ``num_edges + k``) with
    the ``turns=`` table: rows ``(from edge, to edge)`` (forbidden) or
    ``(from edge, to edge, cost)`` (extra cost; ``inf`` forbids). A turn
    applies at each junction where ``from`` (either way it runs) ends and
    ``to`` starts; ``GraphError`` for edges that do not exist or never
    meet, or a negative or NaN cost."""
    ids, cost = _table(turns, "edge")
    bad = np.flatnonzero(((ids < 0) | (ids >= num_edges)).any(axis=1))
    if bad.size:
        raise GraphError(f"turns[{int(bad[0])}] = {ids[bad[0]].tolist()} names an edge "
                         f"that does not exist (there are {num_edges} edges: 0..{num_edges - 1})")
    # the segments of each edge: itself, and its reverse when it is two-way
    seg_of = [np.arange(num_edges)[:, None], np.full((num_edges, 1), -1)]
    seg_of[1][np.flatnonzero(back), 0] = num_edges + np.arange(int(np.count_nonzero(back)))
    runs = np.hstack(seg_of)                                # (edges, 2) segments, -1 none
    a = runs[ids[:, 0]]                                     # (k, 2)
    b = runs[ids[:, 1]]
    src, dst = segments.src, segments.dst
    frm, to, costs, row_met = [], [], [], np.zeros(ids.shape[0], bool)
    for i in range(2):
        for j in range(2):
            sa, sb = a[:, i], b[:, j]
            ok = (sa >= 0) & (sb >= 0)
            ok[ok] = dst[sa[ok]] == src[sb[ok]]
            frm.append(sa[ok])
            to.append(sb[ok])
            costs.append(cost[ok])
            row_met |= ok
    if not row_met.all():
        r = int(np.flatnonzero(~row_met)[0])
        e, f = int(ids[r, 0]), int(ids[r, 1])
        raise GraphError(f"turns[{r}]: edge {e} ({src[e]}->{dst[e]}) never ends where "
                         f"edge {f} ({src[f]}->{dst[f]}) starts, so there is no turn "
                         f"between them")
    report = {"restrictions": int(ids.shape[0]), "skipped": {}}
    return _with_turns(segments, np.concatenate(frm), np.concatenate(to),
                       np.concatenate(costs), report)


def way_turns(segments: Segments, turns) -> Segments:
    """``segments`` of GeoJSON roads with the ``turns=`` table: rows
    ``(from way id, to way id)`` (forbidden) or ``(from way id, to way id,
    cost)``, applied at every node where a segment of the ``from`` way ends
    and one of the ``to`` way starts; ``GraphError`` for a way id no road
    has, or two ways that never meet."""
    ids, cost = _table(turns, "way id")
    way = segments.way
    order = np.argsort(way, kind="stable")
    known = way[order]
    lo = np.searchsorted(known, ids, side="left")
    hi = np.searchsorted(known, ids, side="right")
    bad = np.flatnonzero((hi == lo).any(axis=1))
    if bad.size:
        r = int(bad[0])
        missing = int(ids[r, 0] if hi[r, 0] == lo[r, 0] else ids[r, 1])
        raise GraphError(f"turns[{r}] names way {missing}, which no road has (a way's id "
                         f"is its osm_id or id property, or the feature's id)")
    frm, to, costs = [], [], []
    for r in range(ids.shape[0]):
        a = order[lo[r, 0]:hi[r, 0]]
        b = order[lo[r, 1]:hi[r, 1]]
        meet = segments.dst[a][:, None] == segments.src[b][None, :]
        i, j = np.nonzero(meet)
        if i.size == 0:
            raise GraphError(f"turns[{r}]: way {int(ids[r, 0])} never ends where way "
                             f"{int(ids[r, 1])} starts, so there is no turn between them")
        frm.append(a[i])
        to.append(b[j])
        costs.append(np.full(i.size, cost[r]))
    report = {"restrictions": int(ids.shape[0]), "skipped": {}}
    if not frm:
        return _with_turns(segments, np.zeros(0), np.zeros(0), np.zeros(0), report)
    return _with_turns(segments, np.concatenate(frm), np.concatenate(to),
                       np.concatenate(costs), report)


def _table(turns, what):
    """``(ids (k, 2) int64, cost (k,))`` of a ``turns=`` table whose rows
    name ``what``s: ``(from, to)`` (cost inf, forbidden) or ``(from, to,
    cost)``; ``GraphError`` for another shape, ids that are not whole
    numbers, a negative or NaN cost."""
    table = validate.array(turns, "turns", GraphError)
    if table.ndim == 1 and table.size == 0:
        table = table.reshape(0, 2)
    if table.ndim != 2 or table.shape[1] not in (2, 3) or table.dtype.kind not in "iuf":
        raise GraphError(f"turns must be rows of (from {what}, to {what}) or (from {what}, "
                         f"to {what}, cost) numbers, got shape {table.shape} dtype "
                         f"{table.dtype}")
    ids = table[:, :2]
    if ids.dtype.kind == "f":
        whole = (np.isfinite(ids) & (ids == np.round(ids))
                 & (np.abs(ids) < 2.0 ** 62)).all(axis=1)
        if not whole.all():
            bad = int(np.flatnonzero(~whole)[0])
            raise GraphError(f"turns[{bad}] = {table[bad].tolist()}: {what}s must be whole "
                             f"numbers")
    ids = ids.astype(np.int64)
    cost = np.full(ids.shape[0], np.inf) if table.shape[1] == 2 else \
        table[:, 2].astype(np.float64)
    bad = np.flatnonzero(np.isnan(cost) | (cost < 0))
    if bad.size:
        raise GraphError(f"turns[{int(bad[0])}] cost {cost[bad[0]]} must be >= 0 "
                         f"(inf forbids the turn)")
    return ids, cost


def _with_turns(segments, frm, to, cost, report) -> Segments:
    from dataclasses import replace
    return replace(segments, turns=Turns(frm.astype(np.int64), to.astype(np.int64),
                                         cost.astype(np.float64), report))
