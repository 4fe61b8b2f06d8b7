// Loads the upstream suites ported as data (test/fixtures/upstream/FORMAT.md) and replays
// them step by step: a snapshot per step and family, and the expected verdict of every probe.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Family = 'IPv4' | 'IPv6';
export type EndpointRef = string | { ip: string };

export interface Probe {
  port: number;
  protocol: 'TCP' | 'UDP' | 'SCTP';
  default?: boolean;
  set?: { from: string; to: string; allowed: boolean }[];
  pairs?: { from: EndpointRef; to: EndpointRef; allowed: boolean; upstreamExpected?: boolean; disagreement?: string }[];
}

export interface Step {
  note?: string;
  apply?: K8sObject[];
  delete?: { kind: string; namespace?: string; name: string }[];
  probes?: Probe[];
}

export interface UpstreamCase {
  name: string;
  upstreamTest: string;
  families?: Family[];
  steps: Step[];
}

export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; [k: string]: unknown }; [k: string]: unknown };

export interface Suite {
  folder: string;
  base: K8sObject[];
  cases: (UpstreamCase & { file: string })[];
}

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'upstream');

export function loadSuite(folder: string): Suite {
  const dir = join(FIXTURES, folder);
  const base = (JSON.parse(readFileSync(join(dir, 'base.json'), 'utf8')) as { items: K8sObject[] }).items;
  const cases: Suite['cases'] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cases.json')).sort()) {
    const doc = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { cases: UpstreamCase[] };
    for (const c of doc.cases) cases.push({ ...c, file });
  }
  return { folder, base, cases };
}

const key = (o: { kind: string; metadata?: { namespace?: string; name: string }; namespace?: string; name?: string }) =>
  'metadata' in o && o.metadata ? `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}` : `${o.kind}/${o.namespace ?? ''}/${o.name}`;

/** Resolves {{ip ns/pod}}, {{nodeip n}}, {{hostmask}}, {{fam A B}} against the current objects. */
export function substitute<T>(value: T, objects: readonly K8sObject[], family: Family): T {
  const v4 = family === 'IPv4';
  const isV6 = (ip: string) => ip.includes(':');
  const podIp = (ref: string) => {
    const [ns, name] = ref.split('/');
    const pod = objects.find((o) => o.kind === 'Pod' && o.metadata.name === name && (o.metadata.namespace ?? 'default') === ns) as
      | { status?: { podIPs?: { ip: string }[] } }
      | undefined;
    const ip = pod?.status?.podIPs?.map((p) => p.ip).find((ip) => isV6(ip) !== v4);
    if (!ip) throw new Error(`placeholder: no ${family} address for pod ${ref}`);
    return ip;
  };
  const nodeIp = (name: string) => {
    const node = objects.find((o) => o.kind === 'Node' && o.metadata.name === name) as { status?: { addresses?: { type: string; address: string }[] } } | undefined;
    const ip = node?.status?.addresses?.filter((a) => a.type === 'InternalIP').map((a) => a.address).find((ip) => isV6(ip) !== v4);
    if (!ip) throw new Error(`placeholder: no ${family} InternalIP for node ${name}`);
    return ip;
  };
  const text = (s: string) =>
    s.replace(/\{\{\s*(ip|nodeip|hostmask|fam)\s*([^}]*?)\s*\}\}/g, (_m, verb: string, arg: string) => {
      if (verb === 'ip') return podIp(arg);
      if (verb === 'nodeip') return nodeIp(arg);
      if (verb === 'hostmask') return v4 ? '32' : '128';
      const [a, b] = arg.split(/\s+/);
      return (v4 ? a : b) ?? '';
    });
  const walk = (x: unknown): unknown => {
    if (typeof x === 'string') return x.includes('{{') ? text(x) : x;
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, walk(v)]));
    return x;
  };
  return walk(value) as T;
}

export interface ReplayedStep {
  index: number;
  step: Step;
  /** Objects after this step, placeholders resolved for the family. */
  objects: K8sObject[];
}

/** The cumulative state after each step of a case, for one family. */
export function replay(suite: Suite, c: UpstreamCase, family: Family): ReplayedStep[] {
  let objects = [...suite.base];
  const out: ReplayedStep[] = [];
  c.steps.forEach((step, index) => {
    const byKey = new Map(objects.map((o) => [key(o), o]));
    for (const d of step.delete ?? []) byKey.delete(key(d));
    for (const o of step.apply ?? []) byKey.set(key(o), o);
    objects = [...byKey.values()];
    out.push({ index, step, objects: substitute(objects, objects, family) });
  });
  return out;
}

export interface ExpectedPair {
  from: EndpointRef;
  to: EndpointRef;
  allowed: boolean;
  port: number;
  protocol: 'TCP' | 'UDP' | 'SCTP';
}

function matchesPattern(pattern: string, pod: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('/*')) return pod.startsWith(pattern.slice(0, -1));
  return pattern === pod;
}

/** Expands a probe into explicit expectations; `pods` are the Running non-host-network pods. */
export function expectations(probe: Probe, pods: readonly string[], objects: readonly K8sObject[], family: Family): ExpectedPair[] {
  const { port, protocol } = probe;
  if (probe.pairs) return substitute(probe.pairs, objects, family).map((p) => ({ ...p, port, protocol }));
  const out: ExpectedPair[] = [];
  for (const from of pods) {
    for (const to of pods) {
      let allowed = probe.default ?? true;
      for (const s of probe.set ?? []) if (matchesPattern(s.from, from) && matchesPattern(s.to, to)) allowed = s.allowed;
      // Upstream AllowLoopback: a pod always reaches itself.
      if (from === to) allowed = true;
      out.push({ from, to, allowed, port, protocol });
    }
  }
  return out;
}

export function probedPods(objects: readonly K8sObject[]): string[] {
  return objects
    .filter((o) => o.kind === 'Pod')
    .filter((o) => {
      const spec = o.spec as { hostNetwork?: boolean } | undefined;
      const status = o.status as { phase?: string } | undefined;
      return !spec?.hostNetwork && status?.phase !== 'Succeeded' && status?.phase !== 'Failed';
    })
    .map((o) => `${o.metadata.namespace ?? 'default'}/${o.metadata.name}`)
    .sort();
}
