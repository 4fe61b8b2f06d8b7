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
  // "No" on every port says why, with the chain of a port of that protocol the engine denies.
  if (!a.allowed && (!a.denial || a.example?.allowed !== false || a.example.protocol !== protocol)) throw new Error(`"${a.text}": no denial or no denied example (${JSON.stringify(a.example)})`);
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
    // Each endpoint the name stands for (a Service's backing pod on each of its ports) is one member
    // of the answer: reached when reached on any of its ports.
    r.targets.forEach((t, i) => {
      let allowed = 0;
      for (const p of cluster.pods) {
        if (p === t.pod) continue;
        const where = `${asked}, member ${t.label}, pod ${p.key}`;
        if (r.common.has(p) && !t.reached.has(p)) out.push(`${where}: shared, but not reached`);
        let any = false;
        for (const m of t.members) {
          if (r.common.has(p) && t.members.length === 1 && m.port === null && r.common.get(p) !== m.reached.get(p)) out.push(`${where}: shared on ${r.common.get(p)}, but the member has ${m.reached.get(p) ?? 'nothing'}`);
          const pair = (key: string): [EndpointSpec, EndpointSpec] => (kind === 'what' ? [m.fixed, { pod: key }] : [{ pod: key }, m.fixed]);
          if (m.port !== null) {
            if (typeof m.port !== 'number') continue;
            const want = canReach(cluster, ...pair(p.key), m.port, m.protocol ?? protocol ?? 'TCP');
            any ||= want;
            if (m.reached.has(p) !== want) out.push(`${where} (${m.label}): ${m.reached.has(p) ? 'listed' : 'not listed'}, but "can" on ${m.port} says ${want ? 'yes' : 'no'}`);
          } else {
            const c = m.classes.find((x) => x.members.includes(p));
            let some = false;
            for (const pr of protocol ? [protocol] : PROTOCOLS) {
              const want = canPorts(cluster, ...pair(p.key), pr);
              some ||= want.length > 0;
              if (JSON.stringify(c?.ranges?.[pr] ?? []) !== JSON.stringify(want)) out.push(`${where}: ${pr} ranges ${JSON.stringify(c?.ranges?.[pr] ?? [])}, "can" without a port says ${JSON.stringify(want)}`);
            }
            any ||= some;
            if (m.reached.has(p) !== some) out.push(`${where}: ${m.reached.has(p) ? 'listed' : 'not listed'}, but "can" without a port allows ${some ? 'some' : 'no'} port`);
          }
        }
        if (any) allowed++;
        if (t.reached.has(p) !== any) out.push(`${where}: ${t.reached.has(p) ? 'listed' : 'not listed'}, but "can" allows ${any ? 'some' : 'no'} port`);
      }
      const shown = g.members[i];
      if (shown && t.members.every((m) => typeof m.port !== 'string') && shown.reachable !== allowed) out.push(`${asked}, member ${t.label}: answer says ${shown.reachable}, "can" allows ${allowed}`);
      if (shown && shown.beyondPods !== [...t.reached.keys()].filter((p) => !r.common.has(p)).length) out.push(`${asked}, member ${t.label}: beyond ${shown.beyondPods}`);
    });
    // The sentence counts endpoints (pods, regions), never endpoint and port, and the shared pods.
    const endpoints = new Set(r.members.map((m) => `${label(m.fixed)}|${m.region?.name ?? ''}`)).size;
    const counted = /^(?:No pod (?:can reach|is reached by) any of the (\d+) |.*?(?:each of the (\d+) |the one ))/i.exec(g.text);
    const n = counted ? Number(counted[1] ?? counted[2] ?? 1) : null;
    if (n !== endpoints) out.push(`${asked}: the sentence counts ${n} endpoints, the name stands for ${endpoints}: ${g.text}`);
    const k = g.commonPods;
    const head = kind === 'who' ? (k === 0 ? 'No pod can reach' : `${k} pod${k === 1 ? '' : 's'} can reach`) : (k === 0 ? 'No pod is reached by' : `can reach ${k} pod${k === 1 ? '' : 's'}`);
    if (!g.text.split(' (')[0]!.includes(head)) out.push(`${asked}: the sentence does not say "${head}": ${g.text}`);
  }
  return out;
}
