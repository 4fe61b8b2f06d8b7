// Do the set answers agree with the single-flow ones? "what can X reach", "who can reach Y"
// (for one endpoint, and member by member for a name of several) and the matrix against "can A
// reach B on P?" (and "can A reach B?" for port ranges), pair by pair. Each check returns the
// disagreements as sentences; empty means consistent.
import { answer, reach, type SetGroupAnswer } from '../../core/ask/answer.js';
import { podOf } from '../../core/ask/describe.js';
import type { Query } from '../../core/ask/parse.js';
import type { Cluster } from '../../core/cluster.js';
import { matrix } from '../../core/evaluate/matrix.js';
import { FlowError, type EndpointSpec } from '../../core/evaluate/resolve.js';
import { reachEach, type Reaches } from '../../core/ask/set-group.js';
import { PROTOCOLS, type Protocol } from '../../core/policy/model.js';

const label = (e: EndpointSpec) => ('pod' in e ? e.pod : e.ip);

/** "can A reach B on P?" as asked; an error answer (no shared address family) is no flow. */
export function canReach(cluster: Cluster, from: EndpointSpec, to: EndpointSpec, port: number, protocol: Protocol): boolean {
  const a = answer(cluster, { kind: 'can', from, to, port, protocol });
  if (a.kind === 'error') return false;
  if (a.kind !== 'can') throw new Error(`expected a can answer, got ${a.kind}`);
  return a.allowed;
}

/** "can A reach B?" without a port: the allowed ranges of one protocol. */
function canPorts(cluster: Cluster, from: EndpointSpec, to: EndpointSpec, protocol: Protocol): [number, number][] {
  const a = answer(cluster, { kind: 'can', from, to, port: null, protocol });
  if (a.kind === 'error') return [];
  if (a.kind !== 'can-ports') throw new Error(`expected a can-ports answer, got ${a.kind}`);
  return a.ranges[protocol] ?? [];
}

/**
 * "what can `fixed` reach" and "who can reach `fixed`", on `port` and on every port of
 * `protocol`, against the single-flow answers for every other pod.
 */
export function reachMismatches(cluster: Cluster, fixed: EndpointSpec, port: number, protocol: Protocol): string[] {
  const out: string[] = [];
  const fixedPod = podOf(cluster, fixed);
  const others = cluster.pods.filter((p) => p !== fixedPod);
  for (const kind of ['what', 'who'] as const) {
    const pair = (key: string): [EndpointSpec, EndpointSpec] => (kind === 'what' ? [fixed, { pod: key }] : [{ pod: key }, fixed]);
    const on = (p: number | null): Query => (kind === 'what' ? { kind, from: fixed, port: p, protocol } : { kind, to: fixed, port: p, protocol });
    const one = reach(cluster, on(port) as Extract<Query, { kind: typeof kind }>);
    const every = reach(cluster, on(null) as Extract<Query, { kind: typeof kind }>);
    for (const classes of [one, every]) {
      const listed = classes.flatMap((c) => c.members.map((m) => m.key)).sort();
      if (listed.join() !== others.map((p) => p.key).sort().join()) out.push(`${kind} ${label(fixed)}: classes list ${listed.join(', ')}`);
    }
    let allowed = 0;
    for (const c of one) {
      for (const m of c.members) {
        const want = canReach(cluster, ...pair(m.key), port, protocol);
        if (want) allowed++;
        const got = (c.ranges?.[protocol] ?? []).length > 0;
        if (got !== want) out.push(`${kind} ${label(fixed)} on ${protocol} ${port}: ${m.key} ${got ? 'listed' : 'not listed'}, but "can" says ${want ? 'yes' : 'no'} (class of ${c.members.map((x) => x.key).join(', ')})`);
      }
    }
    const sentence = answer(cluster, on(port));
    if (sentence.kind !== kind || sentence.reachable !== allowed) out.push(`${kind} ${label(fixed)} on ${protocol} ${port}: "${sentence.text}", but "can" allows ${allowed} of ${others.length}`);
    for (const c of every) {
      for (const m of c.members) {
        const got = JSON.stringify(c.ranges?.[protocol] ?? []);
        const want = JSON.stringify(canPorts(cluster, ...pair(m.key), protocol));
        if (got !== want) out.push(`${kind} ${label(fixed)} on every ${protocol} port: ${m.key} gets ${got}, "can" without a port says ${want} (class of ${c.members.map((x) => x.key).join(', ')})`);
      }
    }
  }
  return out;
}

/** Every cell of the matrix over all pods (host-network ones too) against "can A reach B on P?". */
export function matrixMismatches(cluster: Cluster, port: number, protocol: Protocol): string[] {
  const out: string[] = [];
  const [table] = matrix(cluster, cluster.pods, [{ port, protocol }], null);
  cluster.pods.forEach((a, i) =>
    cluster.pods.forEach((b, j) => {
      const want = canReach(cluster, { pod: a.key }, { pod: b.key }, port, protocol);
      if (table!.allowed[i]![j] !== want) out.push(`matrix ${a.key} → ${b.key} on ${protocol} ${port}: ${table!.allowed[i]![j]}, "can" says ${want}`);
    }),
  );
  return out;
}

/**
 * "who can reach `name`" and "what can `name` reach" for a name of several endpoints, on `port`
 * (or on every port when null): each member's pods against "can A reach B" for that member (on
 * its own port: a Service's targetPort), what all share against every member, and the answer's
 * counts against both. A name a question cannot take (a Service as a source, no such pods) must
 * be an error answer.
 */
export function groupReachMismatches(cluster: Cluster, name: EndpointSpec, port: number | null, protocol: Protocol | null): string[] {
  const out: string[] = [];
  for (const kind of ['what', 'who'] as const) {
    const q = kind === 'what' ? { kind, from: name, port, protocol } : { kind, to: name, port, protocol };
    const asked = `${kind} ${label(name)} on ${protocol ?? 'any protocol'} ${port ?? 'every port'}`;
    let r: Reaches;
    try {
      r = reachEach(cluster, q);
    } catch (e) {
      if (!(e instanceof FlowError)) throw e;
      const a = answer(cluster, q);
      if (a.kind !== 'error' && a.kind !== 'no-verdict') out.push(`${asked}: reachEach refuses (${e.message}) but the answer is ${a.kind}`);
      continue;
    }
    const a = answer(cluster, q);
    if (a.kind !== `${kind}-group`) {
      out.push(`${asked}: answered ${a.kind}, expected ${kind}-group: ${a.text}`);
      continue;
    }
    const g = a as SetGroupAnswer;
    if (g.commonPods !== r.common.size) out.push(`${asked}: ${g.commonPods} in common, reachEach has ${r.common.size}`);
    r.members.forEach((m, i) => {
      const pair = (key: string): [EndpointSpec, EndpointSpec] => (kind === 'what' ? [m.fixed, { pod: key }] : [{ pod: key }, m.fixed]);
      let allowed = 0;
      for (const p of cluster.pods) {
        if (p === m.pod) continue;
        const where = `${asked}, member ${m.label}, pod ${p.key}`;
        // Listed for the member: in what all share, or beyond it.
        const listed = r.common.has(p) || m.reached.has(p);
        if (r.common.has(p) && r.common.get(p) !== m.reached.get(p) && m.port === null) out.push(`${where}: shared on ${r.common.get(p)}, but the member has ${m.reached.get(p) ?? 'nothing'}`);
        if (m.port !== null) {
          const p1 = typeof m.port === 'number' ? m.port : null;
          if (p1 === null) continue;
          const want = canReach(cluster, ...pair(p.key), p1, m.protocol ?? protocol ?? 'TCP');
          if (want) allowed++;
          if (listed !== want) out.push(`${where}: ${listed ? 'listed' : 'not listed'}, but "can" on ${p1} says ${want ? 'yes' : 'no'}`);
        } else {
          const c = m.classes.find((x) => x.members.includes(p));
          let any = false;
          for (const pr of protocol ? [protocol] : PROTOCOLS) {
            const want = canPorts(cluster, ...pair(p.key), pr);
            any ||= want.length > 0;
            if (JSON.stringify(c?.ranges?.[pr] ?? []) !== JSON.stringify(want)) out.push(`${where}: ${pr} ranges ${JSON.stringify(c?.ranges?.[pr] ?? [])}, "can" without a port says ${JSON.stringify(want)}`);
          }
          if (any) allowed++;
          if (listed !== any) out.push(`${where}: ${listed ? 'listed' : 'not listed'}, but "can" without a port allows ${any ? 'some' : 'no'} port`);
        }
      }
      const shown = g.members[i];
      if (shown && shown.reachable !== allowed) out.push(`${asked}, member ${m.label}: answer says ${shown.reachable}, "can" allows ${allowed}`);
      if (shown && shown.beyondPods !== [...m.reached.keys()].filter((p) => !r.common.has(p)).length) out.push(`${asked}, member ${m.label}: beyond ${shown.beyondPods}`);
    });
  }
  return out;
}
