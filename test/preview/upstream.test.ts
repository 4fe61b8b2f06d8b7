// Previews against the upstream suites ported as data. For every multi-step case and family,
// each change (a step's own apply/delete, sent as a pull request would) is previewed and
//  1. where both states probe the same (from, to, port, protocol), the preview reports exactly
//     the cells whose expected verdict differs between them (steps without apply/delete probe
//     the state before them; where the port records a disagreement with upstream, the
//     spec-derived `allowed` is the expectation, as in test/upstream.test.ts);
//  2. over every pod pair, every probed port and the node and probed addresses, the preview
//     reports exactly the cells whose verdict the engine changes (upstream probes few pairs
//     per step, so 1. alone covers little of the npapi suites).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCluster, type Cluster } from '../../core/cluster.js';
import { formatIp, parseIp } from '../../core/net/ip.js';
import { applyChanges, preview } from '../../core/preview/index.js';
import { ipKey } from '../../core/snapshot/cluster.js';
import { parseSnapshot, type ParsedSnapshot } from '../../schemas/snapshot.js';
import { bruteForceCells, cell, previewCells, type PortProto } from '../support/preview-cells.js';
import { expectations, FIXTURES, loadSuite, probedPods, replay, substitute, type EndpointRef, type Family, type ReplayedStep } from '../support/upstream.js';

const SUITES = ['k8s-e2e-netpol', 'npapi-v1alpha1', 'npapi-v1alpha2'].filter((s) => existsSync(join(FIXTURES, s, 'base.json')));

function parsed(items: unknown[], at: string): ParsedSnapshot {
  const p = parseSnapshot({ items }, at);
  if (!p.ok) throw new Error(`${at}: ${JSON.stringify(p.issues.slice(0, 3))}`);
  return p.snapshot;
}

/** A probe end as the preview names it: a pod's key (also for its address), else the address. */
function endName(clusters: { base: Cluster; head: Cluster }, e: EndpointRef): string | null {
  if (typeof e === 'string') return e;
  const ip = parseIp(e.ip)!;
  const [b, h] = [clusters.base.ipOwners.get(ipKey(ip)), clusters.head.ipOwners.get(ipKey(ip))];
  if (b?.kind === 'pod' || h?.kind === 'pod') return b?.kind === 'pod' && h?.kind === 'pod' && b.pod.key === h.pod.key ? b.pod.key : null;
  return e.ip;
}

/** Expected verdict of every probed cell of a step. */
function expected(step: ReplayedStep, family: Family, clusters: { base: Cluster; head: Cluster }): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const pods = probedPods(step.objects);
  for (const probe of step.step.probes ?? []) {
    for (const e of expectations(probe, pods, step.objects, family)) {
      const [from, to] = [endName(clusters, e.from), endName(clusters, e.to)];
      if (from === null || to === null || from === to) continue; // loopback: always allowed
      out.set(cell(from, to, e, family), e.allowed);
    }
  }
  return out;
}

/** States of a case: a step without apply or delete probes the same snapshot as the step before. */
function states(steps: ReplayedStep[]): ReplayedStep[][] {
  const out: ReplayedStep[][] = [];
  for (const s of steps) {
    if (out.length > 0 && !s.step.apply?.length && !s.step.delete?.length) out[out.length - 1]!.push(s);
    else out.push([s]);
  }
  return out;
}

/** Expected verdicts of a state (all its steps' probes; they must agree). */
function expectedOf(state: ReplayedStep[], family: Family, clusters: { base: Cluster; head: Cluster }): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const step of state) {
    for (const [k, v] of expected(step, family, clusters)) {
      if (out.has(k) && out.get(k) !== v) throw new Error(`fixture: ${k} expected both ways in one state`);
      out.set(k, v);
    }
  }
  return out;
}

interface Transition {
  readonly index: number;
  readonly before: ReplayedStep[];
  readonly after: ReplayedStep[];
  readonly base: ParsedSnapshot;
  readonly head: ParsedSnapshot;
  readonly clusters: { base: Cluster; head: Cluster };
}

/** Each change of a case, with the head built from the step's own apply/delete, as a pull request would send it. */
function transitions(suite: ReturnType<typeof loadSuite>, c: (typeof suite.cases)[number], family: Family): Transition[] {
  const list = states(replay(suite, c, family));
  const out: Transition[] = [];
  for (let i = 0; i + 1 < list.length; i++) {
    const [before, after] = [list[i]!, list[i + 1]!];
    const first = after[0]!;
    const base = parsed(before[before.length - 1]!.objects, '$.base');
    const applied = first.step.apply ? substitute(first.step.apply, first.objects, family) : [];
    const head = applyChanges(base, { apply: parsed(applied, '$.changes.apply'), delete: first.step.delete ?? [] });
    if (!head.ok) throw new Error(JSON.stringify(head.issues));
    out.push({ index: first.index, before, after, base, head: head.snapshot, clusters: { base: buildCluster(base), head: buildCluster(head.snapshot) } });
  }
  return out;
}

const portsOf = (keys: readonly string[]): PortProto[] => [...new Map(keys.map((k) => /(\d+)\/(TCP|UDP|SCTP)/.exec(k)!).map((m) => [m[0], { port: Number(m[1]), protocol: m[2] as PortProto['protocol'] }])).values()];
const addressesOf = (keys: readonly string[]) => [...new Set(keys.flatMap((k) => k.split(' ').slice(0, 3).filter((t) => parseIp(t) !== null)))];

for (const folder of SUITES) {
  const suite = loadSuite(folder);
  describe(`preview: ${folder}`, () => {
    const cases = suite.cases.filter((c) => c.steps.length > 1);
    const totals = { compared: 0, changedExpected: 0, changedBrute: 0 };
    for (const c of cases) {
      for (const family of c.families ?? (['IPv4', 'IPv6'] as Family[])) {
        it(`${c.name} [${family}]: changed cells = cells whose expected verdict differs between the steps`, () => {
          for (const t of transitions(suite, c, family)) {
            const [before, after] = [expectedOf(t.before, family, t.clusters), expectedOf(t.after, family, t.clusters)];
            const domain = [...before.keys()].filter((k) => after.has(k));
            if (domain.length === 0) continue;
            const p = preview({ base: t.base, head: t.head }, { tables: false, lint: false });
            const inDomain = new Set(domain);
            const got = [...previewCells(p, t.clusters, portsOf(domain), addressesOf(domain))].filter((k) => inDomain.has(k)).sort();
            const want = domain.filter((k) => before.get(k) !== after.get(k)).sort();
            expect({ step: t.index, got }).toEqual({ step: t.index, got: want });
            totals.compared += domain.length;
            totals.changedExpected += want.length;
          }
        });
        it(`${c.name} [${family}]: changed cells = brute force over every pod pair, probed port and address`, () => {
          for (const t of transitions(suite, c, family)) {
            const probed = [...expectedOf(t.before, family, t.clusters).keys(), ...expectedOf(t.after, family, t.clusters).keys()];
            const nodeIps = t.clusters.head.nodes.flatMap((n) => n.ips.map((ip) => formatIp(ip.family, ip.value)));
            const [ports, addresses] = [portsOf(probed), [...new Set([...addressesOf(probed), ...nodeIps])]];
            const p = preview({ base: t.base, head: t.head }, { tables: false, lint: false });
            const want = bruteForceCells(t.clusters, ports, addresses);
            expect({ step: t.index, got: [...previewCells(p, t.clusters, ports, addresses)].sort() }).toEqual({ step: t.index, got: [...want].sort() });
            totals.changedBrute += want.size;
          }
        });
      }
    }
    // Runs after the cases (vitest keeps declaration order): the comparisons must not all be vacuous.
    it('compared probed cells and found changes', () => {
      expect(totals.compared).toBeGreaterThan(0);
      expect(totals.changedExpected).toBeGreaterThan(0);
      expect(totals.changedBrute).toBeGreaterThan(0);
    });
  });
}
