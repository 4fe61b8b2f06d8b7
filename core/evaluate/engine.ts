// The verdict engine: per side (egress of the source pod, ingress of the destination pod)
// the tiers Admin → NetworkPolicy → Baseline → default allow, each answering allow, deny or
// pass (kube-network-policies engine.go); a flow is allowed iff both sides allow.
import type { Cluster } from '../cluster.js';
import { describePolicy, type Direction, type Policy, type PolicyRef, type Protocol, type Rule } from '../policy/model.js';
import { clusterAddressSlots } from '../classes/addresses.js';
import { labelKey } from '../classes/features.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { decide, destinationOf, peerCandidates, subjectPolicies, type Decision, type PeerCandidates, type RuleHit, type SubjectPolicies, type TraceTier } from './decide.js';
import { subjectPod, type Endpoint, type Flow } from './endpoint.js';

export type { TraceTier };

export interface RuleRef {
  readonly index: number;
  readonly name?: string;
}

export interface TraceStep {
  readonly tier: TraceTier;
  readonly outcome: 'allow' | 'deny' | 'pass' | 'no-match';
  readonly policy?: PolicyRef;
  readonly rule?: RuleRef;
  readonly message: string;
}

export interface SideVerdict {
  readonly allowed: boolean;
  readonly tier: TraceTier;
  readonly policy: PolicyRef | null;
  readonly rule: RuleRef | null;
  readonly trace: readonly TraceStep[];
}

export interface Verdict {
  readonly allowed: boolean;
  readonly reason?: 'loopback' | 'node-local';
  readonly egress: SideVerdict | null;
  readonly ingress: SideVerdict | null;
}

function ruleRef(r: Rule): RuleRef {
  return r.name ? { index: r.index, name: r.name } : { index: r.index };
}

function ruleText(p: Policy, r: Rule): string {
  return `${describePolicy(p.ref)} rule ${r.index}${r.name ? ` "${r.name}"` : ''}`;
}

const ACTION_WORD = { allow: 'Allow', deny: 'Deny', pass: 'Pass' } as const;

function clusterTierStep(tier: 'admin' | 'baseline', hit: RuleHit | null): TraceStep {
  if (!hit) return { tier, outcome: 'no-match', message: `no ${tier === 'admin' ? 'Admin' : 'Baseline'}-tier rule matches` };
  const { policy, rule } = hit;
  const word = policy.ref.kind === 'ClusterNetworkPolicy' && rule.action === 'allow' ? 'Accept' : ACTION_WORD[rule.action];
  return { tier, outcome: rule.action, policy: policy.ref, rule: ruleRef(rule), message: `${word} by ${ruleText(policy, rule)}` };
}

/** The decision chain of one side: one step per tier reached, the deciding one last. */
function traceOf(sp: SubjectPolicies, d: Decision): TraceStep[] {
  const trace = [clusterTierStep('admin', d.admin)];
  if (d.tier === 'admin') return trace;
  if (d.tier === 'networkpolicy') {
    if (d.np) trace.push({ tier: 'networkpolicy', outcome: 'allow', policy: d.np.policy.ref, rule: ruleRef(d.np.rule), message: `Allow by ${ruleText(d.np.policy, d.np.rule)}` });
    else {
      const why = [
        ...(sp.isolating.length > 0 ? [`isolated for ${sp.dir} by ${sp.isolating.map((p) => p.ref.name).join(', ')}`] : []),
        ...(sp.legacyIsolated ? [`namespace ${sp.subject.namespace} has the DefaultDeny ingress isolation annotation`] : []),
      ].join('; ');
      trace.push({ tier: 'networkpolicy', outcome: 'deny', message: `${why}; no rule allows this flow` });
    }
    return trace;
  }
  trace.push({ tier: 'networkpolicy', outcome: 'no-match', message: `no NetworkPolicy selects the pod for ${sp.dir}` });
  trace.push(clusterTierStep('baseline', d.baseline));
  if (d.tier === 'default') trace.push({ tier: 'default', outcome: 'allow', message: 'no tier decided; default allow' });
  return trace;
}

// Which policies select a subject, per cluster and direction: a question over many ports or
// many peers (a who-list of 16 ports: ~30k evaluations at M) asks about the same subjects again,
// and finding their policies was a quarter of its time. Bounded: past MEMO_LIMIT subjects the
// direction's memo starts again.
const subjectMemo = new WeakMap<Cluster, Record<Direction, Map<PodInfo, SubjectPolicies>>>();
const MEMO_LIMIT = 50_000;

export function policiesOf(cluster: Cluster, dir: Direction, subject: PodInfo): SubjectPolicies {
  let byDir = subjectMemo.get(cluster);
  if (!byDir) subjectMemo.set(cluster, (byDir = { ingress: new Map(), egress: new Map() }));
  const memo = byDir[dir];
  let sp = memo.get(subject);
  if (!sp) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(subject, (sp = subjectPolicies(cluster, dir, subject)));
  }
  return sp;
}

// Which of a subject's rules a peer's peers match, per cluster: a matrix or a who-list asks it
// of every pod pair, and with thousands of rules it was most of their time. Peers alike to
// every rule share it: what match.ts reads of a pod is its namespace and labels (selectors),
// of a node the node, and of any endpoint its address through the rules' CIDR peers (its
// address class, classes/addresses.ts). Bounded like the subject memo.
const candidateMemo = new WeakMap<Cluster, { readonly subjects: Map<SubjectPolicies, number>; readonly byKey: Map<string, PeerCandidates> }>();
const CANDIDATES_LIMIT = 1_000_000;
const labelKeys = new WeakMap<PodInfo, string>();

function peerKey(cluster: Cluster, peer: Endpoint): string {
  const at = peer.ip ? clusterAddressSlots(cluster).slot(peer.ip) : '-';
  if (peer.kind === 'external') return `e${at}`;
  if (peer.kind === 'node') return `n${peer.node?.idx ?? '-'}|${at}`;
  // A host-network pod is never a pod peer ("host-network pods are never … pod/namespace peers").
  if (peer.pod.hostNetwork) return `h${at}`;
  let labels = labelKeys.get(peer.pod);
  if (labels === undefined) labelKeys.set(peer.pod, (labels = labelKey(peer.pod.labels)));
  return `p${peer.pod.nsIdx}|${labels}|${at}`;
}

function candidatesOf(cluster: Cluster, sp: SubjectPolicies, peer: Endpoint): PeerCandidates {
  let m = candidateMemo.get(cluster);
  if (!m) candidateMemo.set(cluster, (m = { subjects: new Map(), byKey: new Map() }));
  if (m.byKey.size >= CANDIDATES_LIMIT || m.subjects.size >= MEMO_LIMIT) {
    m.byKey.clear();
    m.subjects.clear();
  }
  let id = m.subjects.get(sp);
  if (id === undefined) m.subjects.set(sp, (id = m.subjects.size));
  const key = `${id}#${peerKey(cluster, peer)}`;
  let c = m.byKey.get(key);
  if (!c) m.byKey.set(key, (c = peerCandidates(cluster, sp, peer)));
  return c;
}

/** One side of a flow: the subject's policies for dir against the peer, tier by tier (decide.ts). */
export function evaluateSide(cluster: Cluster, dir: Direction, subject: PodInfo, peer: Endpoint, flow: Flow): SideVerdict {
  return sideEvaluator(cluster, dir, subject, peer)(flow.port, flow.protocol);
}

/**
 * One side towards one peer, on any port: the subject's policies and the rules whose peers match
 * are found once (the costly part: every rule's peers against the endpoint), then each port
 * only walks those candidates (decide.ts). evaluateSide is one call of it.
 */
export function sideEvaluator(cluster: Cluster, dir: Direction, subject: PodInfo, peer: Endpoint): (port: number, protocol: Protocol) => SideVerdict {
  const sp = policiesOf(cluster, dir, subject);
  const candidates = candidatesOf(cluster, sp, peer);
  const dest = destinationOf(dir, subject, peer);
  return (port, protocol) => {
    const d = decide(sp, candidates, port, protocol, dest);
    const hit = d.tier === 'admin' ? d.admin : d.tier === 'networkpolicy' ? d.np : d.tier === 'baseline' ? d.baseline : null;
    return { allowed: d.allowed, tier: d.tier, policy: hit?.policy.ref ?? null, rule: hit ? ruleRef(hit.rule) : null, trace: traceOf(sp, d) };
  };
}

export function evaluate(cluster: Cluster, flow: Flow): Verdict {
  const { from, to } = flow;
  // A pod to itself is always allowed (upstream e2e AllowLoopback; the kernel never leaves the
  // pod), but not through a Service: "A Pod connecting to a Service IP that the service proxy
  // load-balances back to the same Pod is subject to ClusterNetworkPolicy" (network-policy-api
  // api-overview). That packet leaves the pod and comes back pod → pod, as any other flow.
  if (from.kind === 'pod' && to.kind === 'pod' && from.pod === to.pod && !to.viaService) return { allowed: true, reason: 'loopback', egress: null, ingress: null };
  const dst = subjectPod(to);
  // "traffic to and from the node where a Pod is running is always allowed" (kubelet probes;
  // the proposal: "elif traffic.source == pod.node.kubelet: return True").
  if (dst && from.kind === 'node' && from.node !== null && from.node.name === dst.nodeName) {
    return { allowed: true, reason: 'node-local', egress: null, ingress: null };
  }
  const src = subjectPod(from);
  const egress = src ? evaluateSide(cluster, 'egress', src, to, flow) : null;
  const ingress = dst ? evaluateSide(cluster, 'ingress', dst, from, flow) : null;
  return { allowed: (egress?.allowed ?? true) && (ingress?.allowed ?? true), egress, ingress };
}
