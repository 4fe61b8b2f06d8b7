// Small builders for hand-written test clusters: Kubernetes objects as `kubectl get -o json`
// prints them (only the fields policy evaluation reads), YAML fixture loading, and a one-call
// path from objects to a verdict through the real entry points
// (parseSnapshot → buildCluster → resolveFlow → evaluate).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { buildCluster, type Cluster } from '../../core/cluster.js';
import { evaluate, type SideVerdict, type TraceTier, type Verdict } from '../../core/evaluate/engine.js';
import { resolveFlow, type EndpointSpec } from '../../core/evaluate/resolve.js';
import { formatIp } from '../../core/net/ip.js';
import type { Protocol } from '../../core/policy/model.js';
import { parseSnapshot, type ParsedSnapshot } from '../../schemas/snapshot.js';

export type { Protocol };
export type Labels = Record<string, string>;

/** A Kubernetes object as it appears in a snapshot. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Labels; annotations?: Record<string, string>; [k: string]: unknown };
  [k: string]: unknown;
}

export function namespace(name: string, opts: { labels?: Labels; annotations?: Record<string, string> } = {}): K8sObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, ...(opts.labels ? { labels: opts.labels } : {}), ...(opts.annotations ? { annotations: opts.annotations } : {}) },
  };
}

/** A node with one InternalIP per address given. */
export function node(name: string, ...internalIPs: string[]): K8sObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    status: { addresses: [...internalIPs.map((address) => ({ type: 'InternalIP', address })), { type: 'Hostname', address: name }] },
  };
}

export interface ContainerPort {
  containerPort: number;
  name?: string;
  protocol?: Protocol;
}

export interface PodOptions {
  /** One address or several (status.podIPs order, primary first). */
  ip: string | string[];
  node: string;
  labels?: Labels;
  /** Ports of a single container named "main"; use `containers` for more. */
  ports?: ContainerPort[];
  containers?: { name: string; ports?: ContainerPort[] }[];
  hostNetwork?: boolean;
}

/** A Running pod; `key` is "namespace/name". */
export function pod(key: string, opts: PodOptions): K8sObject {
  const [ns, name] = splitKey(key);
  const ips = Array.isArray(opts.ip) ? opts.ip : [opts.ip];
  const containers = opts.containers ?? [{ name: 'main', ...(opts.ports ? { ports: opts.ports } : {}) }];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, ...(opts.labels ? { labels: opts.labels } : {}) },
    spec: { nodeName: opts.node, containers, ...(opts.hostNetwork ? { hostNetwork: true } : {}) },
    status: { phase: 'Running', podIP: ips[0], podIPs: ips.map((ip) => ({ ip })) },
  };
}

/** A networking.k8s.io/v1 NetworkPolicy; `key` is "namespace/name". */
export function networkPolicy(key: string, spec: Record<string, unknown>): K8sObject {
  const [ns, name] = splitKey(key);
  return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: ns }, spec };
}

function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  if (i <= 0 || i === key.length - 1) throw new Error(`expected "namespace/name", got "${key}"`);
  return [key.slice(0, i), key.slice(i + 1)];
}

export const SEED_FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'seeds');

/** Every document of a YAML file (relative to test/fixtures/seeds unless absolute). */
export function loadYaml(file: string): K8sObject[] {
  const path = file.startsWith('/') ? file : join(SEED_FIXTURES, file);
  const docs = parseAllDocuments(readFileSync(path, 'utf8'));
  const out: K8sObject[] = [];
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value = doc.toJS() as K8sObject | null;
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

/** A deep copy with `edit` applied, for variants of a fixture object. */
export function variant<T>(obj: T, edit: (copy: T) => void): T {
  const copy = structuredClone(obj);
  edit(copy);
  return copy;
}

/** Parses objects as the API does; throws with the schema issues if they are invalid. */
export function snapshotOf(objects: readonly unknown[]): ParsedSnapshot {
  const parsed = parseSnapshot({ kind: 'List', items: objects });
  if (!parsed.ok) throw new Error(`snapshot invalid:\n${JSON.stringify(parsed.issues, null, 2)}`);
  return parsed.snapshot;
}

/** Parses and indexes objects as the API does; throws with the schema issues if they are invalid. */
export function clusterOf(objects: readonly unknown[]): Cluster {
  return buildCluster(snapshotOf(objects));
}

/**
 * An endpoint in test notation: "ns/pod" is a pod, "node:NAME" is that node's first
 * InternalIP, anything else is an address.
 */
export function endpointSpec(cluster: Cluster, ref: string): EndpointSpec {
  if (ref.startsWith('node:')) {
    const n = cluster.nodeByName.get(ref.slice(5));
    const ip = n?.ips[0];
    if (!n || !ip) throw new Error(`no node with an address named "${ref.slice(5)}"`);
    return { ip: formatIp(ip.family, ip.value) };
  }
  if (ref.includes('/')) return { pod: ref };
  return { ip: ref };
}

/** The verdict for one flow, through resolveFlow and evaluate. */
export function verdict(cluster: Cluster, from: string, to: string, port: number | string, protocol: Protocol = 'TCP'): Verdict {
  return evaluate(cluster, resolveFlow(cluster, { from: endpointSpec(cluster, from), to: endpointSpec(cluster, to), port, protocol }));
}

/** One line per side: the decision chain, for failure messages. */
export function explain(v: Verdict): string {
  if (v.reason) return `allowed (${v.reason})`;
  const side = (name: string, s: SideVerdict | null) => (s ? `${name}: ${s.trace.map((t) => t.message).join(' → ')}` : `${name}: not evaluated`);
  return `${v.allowed ? 'allowed' : 'denied'} | ${side('egress', v.egress)} | ${side('ingress', v.ingress)}`;
}

/** Which tier (and policy, by name) decided one side, and which policy passed it down. */
export interface Decided {
  tier: TraceTier;
  /** Name of the deciding policy; null when no policy decided (default allow, NetworkPolicy isolation). */
  policy: string | null;
  /** Name of the policy whose Pass rule sent the flow to a lower tier; null if none did. */
  passedBy: string | null;
}

export function decidedBy(s: SideVerdict | null): Decided | null {
  if (!s) return null;
  const pass = s.trace.find((t) => t.outcome === 'pass');
  return { tier: s.tier, policy: s.policy?.name ?? null, passedBy: pass?.policy?.name ?? null };
}

/** One expected verdict. Endpoints use the notation of `endpointSpec`. */
export interface FlowCase {
  from: string;
  to: string;
  port: number | string;
  protocol: Protocol;
  allowed: boolean;
  /** Why the source text implies this verdict; part of the test title. */
  why: string;
  /** Expected `reason` of the verdict (node-local, loopback). */
  reason?: 'node-local' | 'loopback';
  /** Expected decision of a side; only the keys given are compared; null: side not evaluated. */
  ingress?: Partial<Decided> | null;
  egress?: Partial<Decided> | null;
  /** Set when the engine is known to disagree with the source text: the test is `it.fails`. */
  engineDisagrees?: string;
}

type CaseOptions = Partial<Pick<FlowCase, 'protocol' | 'reason' | 'ingress' | 'egress' | 'engineDisagrees'>>;

export const allow = (from: string, to: string, port: number | string, why: string, opts: CaseOptions = {}): FlowCase => ({ from, to, port, protocol: 'TCP', allowed: true, why, ...opts });
export const deny = (from: string, to: string, port: number | string, why: string, opts: CaseOptions = {}): FlowCase => ({ from, to, port, protocol: 'TCP', allowed: false, why, ...opts });

export function caseTitle(c: FlowCase): string {
  return `${c.from} → ${c.to} ${c.port}/${c.protocol}: ${c.allowed ? 'allowed' : 'denied'} — ${c.why}`;
}

/** Asserts one case; the verdict's decision chain is in every failure message. */
export function expectFlow(cluster: Cluster, c: FlowCase): void {
  const v = verdict(cluster, c.from, c.to, c.port, c.protocol);
  const why = explain(v);
  expect(v.allowed, why).toBe(c.allowed);
  if (c.reason !== undefined) expect(v.reason, why).toBe(c.reason);
  for (const side of ['ingress', 'egress'] as const) {
    const want = c[side];
    if (want === undefined) continue;
    const got = decidedBy(v[side]);
    if (want === null || got === null) {
      expect(got, `${side}: ${why}`).toEqual(want);
      continue;
    }
    const picked = Object.fromEntries(Object.keys(want).map((k) => [k, got[k as keyof Decided]]));
    expect(picked, `${side}: ${why}`).toEqual(want);
  }
}

/**
 * One test per case against a cluster built once (lazily, so a snapshot error fails the
 * tests rather than the collection). Cases with `engineDisagrees` run as `it.fails`.
 */
export function itFlows(objects: () => readonly unknown[], cases: readonly FlowCase[]): void {
  let cluster: Cluster | undefined;
  const get = () => (cluster ??= clusterOf(objects()));
  for (const c of cases) {
    const run = () => expectFlow(get(), c);
    if (c.engineDisagrees) it.fails(`${caseTitle(c)} [engine disagrees: ${c.engineDisagrees}]`, run);
    else it(caseTitle(c), run);
  }
}

/** A policy.networking.k8s.io/v1alpha1 AdminNetworkPolicy. */
export function adminNetworkPolicy(name: string, priority: number, spec: Record<string, unknown>): K8sObject {
  return { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name }, spec: { priority, ...spec } };
}

/** A policy.networking.k8s.io/v1alpha2 ClusterNetworkPolicy. */
export function clusterNetworkPolicy(name: string, tier: 'Admin' | 'Baseline', priority: number, spec: Record<string, unknown>): K8sObject {
  return { apiVersion: 'policy.networking.k8s.io/v1alpha2', kind: 'ClusterNetworkPolicy', metadata: { name }, spec: { tier, priority, ...spec } };
}

/** Two namespaces, one node, pods x/a, x/b and y/c labelled app=a|b|c: the lint tests' cluster. */
export function smallCluster(): K8sObject[] {
  return [
    namespace('x'),
    namespace('y'),
    node('n1', '172.18.0.2'),
    pod('x/a', { ip: '10.0.1.10', node: 'n1', labels: { app: 'a' } }),
    pod('x/b', { ip: '10.0.1.11', node: 'n1', labels: { app: 'b' } }),
    pod('y/c', { ip: '10.0.2.12', node: 'n1', labels: { app: 'c' } }),
  ];
}
