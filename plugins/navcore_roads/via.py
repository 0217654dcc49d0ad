"""Forbidden sequences of edges (OSM restrictions with via ways) routed
exactly by copies of their via edges, as OSRM does.

A rule such as "no left turn from A along the via ways onto B" forbids a
sequence of edges ``(a, w1, ..., wk, b)``, which no rule between two edges
can say: ``wk -> b`` is allowed for traffic that did not come from ``a``.
The searches under turn rules (``turns``) run on directed edges, so the
edges of a rule's via path get copies: a copy of ``w1`` for traffic that
came from ``a``, a copy of ``w2`` for traffic on that copy, and so on.
Turning from ``a`` onto the original ``w1`` is forbidden and onto the copy
allowed; from the last copy onto ``b`` is forbidden. Every other entry
uses the originals, so routes that never come from ``a`` are not touched.

In general a copy stands for a state of the automaton of every forbidden
sequence (Aho-Corasick): the longest run of edges just driven that begins
some forbidden sequence (two rules sharing via edges share copies while
their runs agree). From every edge (original or copy) onto an edge ``f``
exactly one of ``f`` and its copies is the next state and allowed (at the
turn's own cost between the original edges, so rules between two edges
apply to copies too), the others are forbidden, and ``f`` with all its
copies is forbidden where the run would complete a sequence.

A copy is a parallel edge with its original's junctions and cost, so a
route through copies is the same junctions and cost; ``ViaCopies`` keeps
the search's own CSR of originals and copies together (grouped by tail
junction) and maps its positions back to the road edges. Starting on a
copy, or ending on one, is never cheaper than on the original (a copy
allows a subset of what the original allows from then on), so seeds and
goals may include them. Graphs without via-way rules have none of this.
"""
from __future__ import annotations

import numpy as np


class ViaCopies:
    """The edge-based search graph of a road graph with forbidden edge
    sequences: ``offsets``/``targets``/``edge_src`` (junctions as the road
    graph's, ``m'`` edges: the originals and the copies, grouped by tail),
    its reverse (``r_off``, ``r_eid``), ``orig`` (the road edge of each
    position), ``pos`` (the position of each road edge) and the rules
    between positions as ``EdgeTurns`` keeps them (``off``, ``to``,
    ``cost``, ``moves``). ``copies``: how many copies there are."""

    def __init__(self, graph, turns, patterns):
        csr = graph.csr
        m = csr.num_edges
        heads = csr.targets.astype(np.int64)
        tails = graph.edge_src.astype(np.int64)
        #: the forbidden runs of road edges it was made from
        self.patterns = patterns
        full = set(patterns)
        states = sorted({p[:i] for p in patterns for i in range(2, len(p))})
        # an id per state: the originals 0..m-1, then one per copy
        ident = {q: m + i for i, q in enumerate(states)}
        over = np.concatenate((np.arange(m, dtype=np.int64),
                               np.array([q[-1] for q in states], dtype=np.int64)))
        total = over.size
        same = {}                                    # road edge -> its copies' ids
        for q in states:
            same.setdefault(q[-1], []).append(ident[q])
        # where a run can go on: the junctions copies leave from; the
        # rules from edges into them are rewritten below, the others kept
        hubs = np.unique(tails[over[m:]])
        if turns is None:
            rule_from = rule_to = np.zeros(0, dtype=np.int64)
            rule_cost = np.zeros(0)
        else:
            rule_from = np.repeat(np.arange(m, dtype=np.int64), np.diff(turns.off))
            rule_to, rule_cost = turns.to, turns.cost
        at_hub = np.isin(heads[rule_from], hubs)
        # (e, f) -> its rule's cost, for the moves rewritten: from edges into
        # hubs and from the copies (of edges that may end anywhere)
        copied = np.zeros(m, dtype=bool)
        copied[over[m:]] = True
        need = at_hub | copied[rule_from]
        pair = dict(zip(zip(rule_from[need].tolist(), rule_to[need].tolist()),
                        rule_cost[need].tolist()))

        def step(q, f):
            """The state after driving ``f`` in state ``q`` (a tuple of
            edges), or -1 when that completes a forbidden sequence."""
            s = q + (f,)
            for i in range(len(s) - 2):
                if s[i:] in full:
                    return -1
            for i in range(len(s) - 1):
                if s[i:] in ident:
                    return ident[s[i:]]
            return f

        frm, to, cost = [], [], []
        into = np.flatnonzero(np.isin(heads, hubs))
        runs = [((int(e),), int(e)) for e in into] + [(q, ident[q]) for q in states]
        for q, x in runs:
            e = q[-1]
            v = int(heads[e])
            for f in range(int(csr.offsets[v]), int(csr.offsets[v + 1])):
                nxt = step(q, f)
                for y in [f, *same.get(f, ())]:
                    c = pair.get((e, f), 0.0) if y == nxt else np.inf
                    if c != 0.0:
                        frm.append(x)
                        to.append(y)
                        cost.append(c)
        # the search's CSR: every id grouped by tail junction
        order = np.lexsort((np.arange(total), tails[over]))
        pos_of = np.empty(total, dtype=np.int64)
        pos_of[order] = np.arange(total)
        self.orig = over[order]
        self.pos = pos_of[:m]
        self.copies = total - m
        self.targets = csr.targets[self.orig]
        self.edge_src = graph.edge_src[self.orig]
        self.offsets = np.zeros(csr.num_nodes + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.edge_src, minlength=csr.num_nodes), out=self.offsets[1:])
        self.r_eid = np.argsort(self.targets, kind="stable").astype(np.int64)
        self.r_off = np.zeros(csr.num_nodes + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.targets, minlength=csr.num_nodes), out=self.r_off[1:])
        # the rules, by from position
        a = pos_of[np.concatenate((rule_from[~at_hub], np.array(frm, dtype=np.int64)))]
        b = pos_of[np.concatenate((rule_to[~at_hub], np.array(to, dtype=np.int64)))]
        c = np.concatenate((rule_cost[~at_hub], np.array(cost, dtype=np.float64)))
        keep = c > 0
        a, b, c = a[keep], b[keep], c[keep]
        by = np.lexsort((b, a))
        self.to, self.cost = b[by], c[by]
        self.off = np.zeros(total + 1, dtype=np.int64)
        np.cumsum(np.bincount(a, minlength=total), out=self.off[1:])
        self.moves = int(np.diff(self.offsets)[self.targets].sum())
        # copies per road edge (a CSR), for goals on a road edge
        copy_pos = np.sort(pos_of[m:])
        copy_of = self.orig[copy_pos]
        by = np.argsort(copy_of, kind="stable")
        self.copy_pos = copy_pos[by]
        self.copy_off = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(np.bincount(copy_of, minlength=m), out=self.copy_off[1:])
        self._cost = (-1, None)

    @property
    def num_rules(self) -> int:
        return int(self.to.size)

    def edge_cost(self, csr) -> np.ndarray:
        """The cost of every position now: its road edge's (refreshed when
        the road costs change)."""
        version, cost = self._cost
        if version != csr.cost_version or cost is None:
            cost = csr.cost[self.orig]
            self._cost = (csr.cost_version, cost)
        return cost

    def seeds(self, edges) -> np.ndarray:
        """Positions of road ``edges`` (-1 stays -1)."""
        edges = np.asarray(edges, dtype=np.int64)
        return np.where(edges >= 0, self.pos[np.maximum(edges, 0)], -1)

    def goals(self, edges, cost):
        """``(positions, costs)`` of goal road ``edges`` (``(..., k)``,
        -1 none) with their costs: each edge's position and its copies'
        (more columns), the same cost each."""
        edges = np.asarray(edges, dtype=np.int64)
        safe = np.maximum(edges, 0)
        count = np.where(edges >= 0, self.copy_off[safe + 1] - self.copy_off[safe], 0)
        width = int(count.max()) if count.size else 0
        cols, costs = [self.seeds(edges)], [cost]
        last = self.copy_pos.size - 1              # there is a copy: a rule has one
        for j in range(width):
            has = count > j
            cols.append(np.where(has, self.copy_pos[np.minimum(self.copy_off[safe] + j, last)],
                                 -1))
            costs.append(np.where(has, cost, np.inf))
        return (np.ascontiguousarray(np.concatenate(cols, axis=-1), dtype=np.int64),
                np.ascontiguousarray(np.concatenate(costs, axis=-1), dtype=np.float64))


def edge_patterns(graph, turns):
    """``(patterns, dropped)``: the forbidden segment sequences of
    ``turns`` (``segments.Turns``) as tuples of road edges (the via
    segments of one edge once: ``build_road_graph`` keeps each sequence's
    first and last junctions nodes), and how many lie on roads the graph
    dropped."""
    if not turns.num_sequences:
        return [], 0
    edge = graph.seg_edge[turns.seq]
    patterns, dropped = set(), 0
    off = turns.seq_off.tolist()
    for i in range(len(off) - 1):
        run = edge[off[i]:off[i + 1]]
        if (run < 0).any():
            dropped += 1
            continue
        keep = np.ones(run.size, dtype=bool)
        keep[1:] = run[1:] != run[:-1]
        patterns.add(tuple(run[keep].tolist()))
    return sorted(patterns), dropped
