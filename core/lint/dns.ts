// egress-blocks-dns: egress isolation (or an admin/baseline Deny) that also stops pods from
// reaching cluster DNS, the classic "default-deny egress broke name resolution".
//
// Kubernetes NetworkPolicy docs: "When a pod is isolated for egress, the only allowed
// connections from the pod are those allowed by the egress list of some NetworkPolicy that
// applies to the pod for egress" — DNS included, which default-deny egress policies often
// forget; an Admin/Baseline Deny does the same from above. The DNS pods are the upstream
// kube-dns/CoreDNS deployment's: namespace kube-system, label k8s-app=kube-dns, port 53 on UDP
// (every query) and TCP (truncated answers, zone transfers). NetworkPolicy applies after
// service translation, so pod-to-pod port 53 is what a rule has to allow.
//
// Each class of pods (cells.ts) is asked, through resolveFlow and the engine's egress side,
// whether it may reach each kube-dns pod on UDP 53 and TCP 53; a denial is reported on the
// object that decided it. Exact for the DNS pods in the snapshot; conservative where they are
// absent (nothing reported: a snapshot without kube-system says nothing about DNS) and on the
// ingress side of the DNS pods (not this lint's question). Severity: warning when UDP 53 is
// denied (resolution fails), info when only TCP 53 is (large answers fail).
import type { Cluster } from '../cluster.js';
import { evaluateSide, type SideVerdict } from '../evaluate/engine.js';
import { subjectSelects } from '../evaluate/match.js';
import { FlowError, resolveFlow } from '../evaluate/resolve.js';
import { describePolicy, type Policy, type Protocol } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { subjectClasses } from './cells.js';
import { finding, listSome, objectKey, rulePath, type Finding } from './types.js';

export const KUBE_DNS = { namespace: 'kube-system', labelKey: 'k8s-app', labelValue: 'kube-dns', port: 53 } as const;

const PROTOCOLS: readonly Protocol[] = ['UDP', 'TCP'];

interface Blame {
  readonly policy: Policy;
  readonly path: string;
  readonly reason: string;
  readonly networkPolicy: boolean;
}

interface Group extends Blame {
  readonly pods: PodInfo[];
  readonly classes: Set<PodInfo>;
  readonly protocols: Set<Protocol>;
}

export function egressBlocksDns(cluster: Cluster): Finding[] {
  const dnsPods = (cluster.podsByNamespace.get(KUBE_DNS.namespace) ?? []).filter((p) => p.labels[KUBE_DNS.labelKey] === KUBE_DNS.labelValue);
  if (dnsPods.length === 0) return [];
  const groups = new Map<string, Group>();
  for (const members of subjectClasses(cluster.pods.filter((p) => !dnsPods.includes(p)))) {
    const subject = members[0]!;
    for (const protocol of PROTOCOLS) {
      const blame = firstDenial(cluster, subject, dnsPods, protocol);
      if (!blame) continue;
      const key = `${objectKey(blame.policy.ref)}|${blame.path}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { ...blame, pods: [], classes: new Set(), protocols: new Set() }));
      if (!g.classes.has(subject)) g.pods.push(...members);
      g.classes.add(subject);
      g.protocols.add(protocol);
    }
  }
  return [...groups.values()].map((g) => {
    const protos = PROTOCOLS.filter((p) => g.protocols.has(p)).map((p) => `${p} ${KUBE_DNS.port}`).join(' and ');
    const n = g.pods.length;
    return finding(
      g.policy,
      'egress-blocks-dns',
      g.protocols.has('UDP') ? 'warning' : 'info',
      g.path,
      `egress to kube-dns (${KUBE_DNS.namespace} pods with ${KUBE_DNS.labelKey}=${KUBE_DNS.labelValue}) on ${protos} is denied for ${n} pod${n > 1 ? 's' : ''} (${listSome(g.pods.map((p) => p.key))}): ${g.reason}`,
      g.networkPolicy
        ? `add an egress rule to namespace ${KUBE_DNS.namespace} pods with ${KUBE_DNS.labelKey}=${KUBE_DNS.labelValue} on UDP and TCP ${KUBE_DNS.port}`
        : `add an Allow rule for kube-dns on UDP and TCP ${KUBE_DNS.port} before this rule, or narrow the Deny`,
    );
  });
}

function firstDenial(cluster: Cluster, subject: PodInfo, dnsPods: readonly PodInfo[], protocol: Protocol): Blame | null {
  for (const dns of dnsPods) {
    let flow;
    try {
      flow = resolveFlow(cluster, { from: { pod: subject.key }, to: { pod: dns.key }, port: KUBE_DNS.port, protocol });
    } catch (e) {
      if (e instanceof FlowError) continue; // no common address family: not a flow
      throw e;
    }
    const v = evaluateSide(cluster, 'egress', subject, flow.to, flow);
    if (!v.allowed) return blame(cluster, subject, v);
  }
  return null;
}

function blame(cluster: Cluster, subject: PodInfo, v: SideVerdict): Blame | null {
  if (v.tier === 'networkpolicy') {
    // Isolation without an allowing rule: every v1 policy selecting the pod for egress shares the blame.
    const isolating = (cluster.policies.byNamespace.get(subject.namespace) ?? []).filter((p) => !p.legacy && p.egress !== null && subjectSelects(cluster, p, subject));
    const first = isolating[0];
    if (!first) return null;
    const names = isolating.map((p) => p.ref.name).join(', ');
    // An isolating policy with no egress rules is a default deny; blame its policyTypes.
    const path = first.egress!.length > 0 ? 'spec.egress' : 'spec.policyTypes';
    return { policy: first, path, reason: `isolated for egress by NetworkPolicy ${names} and no egress rule allows DNS`, networkPolicy: true };
  }
  if (!v.policy || !v.rule) return null;
  const key = objectKey(v.policy);
  const policy = cluster.policies.all.find((p) => objectKey(p.ref) === key);
  if (!policy) return null;
  return { policy, path: rulePath('egress', v.rule.index), reason: `denied by ${describePolicy(v.policy)} egress rule ${v.rule.index}${v.rule.name ? ` "${v.rule.name}"` : ''}`, networkPolicy: false };
}
