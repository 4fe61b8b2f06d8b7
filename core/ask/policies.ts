// "which policies apply to shop/db?", "is shop/db isolated?": the policies that select a pod, per
// direction and tier, as the verdict engine reads them (evaluate/decide.ts subjectPolicies), and
// whether the NetworkPolicy tier isolates it. A name for several pods (a workload, a Service) is
// answered per set of pods that the same policies select.
import type { Cluster } from '../cluster.js';
import { subjectPolicies, type SubjectPolicies } from '../evaluate/decide.js';
import { FlowError } from '../evaluate/resolve.js';
import { describePolicy, type Direction, type PolicyRef } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { describePods, MAX_GROUPS_IN_TEXT, podsNamed } from './describe.js';
import type { Query } from './query.js';

type PoliciesQuery = Extract<Query, { kind: 'policies' }>;

/** One direction of a pod: the policies selecting it for that direction, in tier order. */
export interface SideSelection {
  /** Whether a NetworkPolicy (or, for ingress, the proposal's DefaultDeny annotation) isolates the pod. */
  readonly isolated: boolean;
  readonly admin: readonly PolicyRef[];
  readonly networkPolicy: readonly PolicyRef[];
  readonly baseline: readonly PolicyRef[];
  /** Ingress: the namespace's `net.beta.kubernetes.io/network-policy` DefaultDeny annotation isolates it. */
  readonly legacyIsolated: boolean;
}

export interface PoliciesGroup {
  readonly pods: number;
  readonly members: readonly string[];
  readonly ingress: SideSelection;
  readonly egress: SideSelection;
}

export interface PoliciesAnswer {
  readonly kind: 'policies';
  readonly text: string;
  readonly query: Query;
  readonly subject: string;
  readonly pods: number;
  /** Pods the same policies select, the biggest set first. */
  readonly groups: readonly PoliciesGroup[];
}

function side(sp: SubjectPolicies): SideSelection {
  const refs = (ps: SubjectPolicies['admin']) => ps.map((p) => p.ref);
  return { isolated: sp.isolating.length > 0 || sp.legacyIsolated, admin: refs(sp.admin), networkPolicy: refs(sp.nps), baseline: refs(sp.baseline), legacyIsolated: sp.legacyIsolated };
}

const names = (refs: readonly PolicyRef[]) => refs.map(describePolicy).join(', ');

/** "Ingress: isolated by NetworkPolicy shop/db-from-web (Admin tier: AdminNetworkPolicy tenant-guardrails)". */
function sideText(dir: Direction, s: SideSelection): string {
  const by = [...(s.isolated && s.networkPolicy.length > 0 ? [names(s.networkPolicy)] : []), ...(s.legacyIsolated ? ["its namespace's DefaultDeny annotation"] : [])];
  const isolation = s.isolated
    ? `isolated by ${by.join(' and ')}`
    : `not isolated, no NetworkPolicy selects it for ${dir}${s.networkPolicy.length > 0 ? ` (${names(s.networkPolicy)} only in the proposal's form, which does not isolate)` : ''}`;
  const tiers = [...(s.admin.length > 0 ? [`Admin tier: ${names(s.admin)}`] : []), ...(s.baseline.length > 0 ? [`Baseline tier: ${names(s.baseline)}`] : [])];
  return `${dir === 'ingress' ? 'Ingress' : 'Egress'}: ${isolation}${tiers.length > 0 ? ` (${tiers.join('; ')})` : ''}`;
}

const key = (s: SideSelection) => JSON.stringify(s);

export function answerPolicies(cluster: Cluster, q: PoliciesQuery): PoliciesAnswer {
  const pods = podsNamed(cluster, q.subject, '"which policies apply"');
  const subjects = pods.filter((p) => !p.hostNetwork);
  const asked = 'pod' in q.subject ? q.subject.pod : q.subject.ip;
  // A bare name that is one pod is named by its key ("db" asked: "shop/db"); anything else as asked.
  const subject = !asked.includes('/') && pods.length === 1 ? pods[0]!.key : asked;
  if (subjects.length === 0) throw new FlowError('to', `${subject} is host-network only: "NetworkPolicy behavior for hostNetwork pods is undefined", and netpolc selects no host-network pod (docs/semantics.md)`);
  const groups = new Map<string, { members: PodInfo[]; ingress: SideSelection; egress: SideSelection }>();
  for (const pod of subjects) {
    const [ingress, egress] = [side(subjectPolicies(cluster, 'ingress', pod)), side(subjectPolicies(cluster, 'egress', pod))];
    const k = `${key(ingress)}|${key(egress)}`;
    (groups.get(k) ?? groups.set(k, { members: [], ingress, egress }).get(k)!).members.push(pod);
  }
  const sorted = [...groups.values()].sort((a, b) => b.members.length - a.members.length);
  const out: PoliciesGroup[] = sorted.map((g) => ({ pods: g.members.length, members: describePods(cluster, g.members, null), ingress: g.ingress, egress: g.egress }));
  const both = (g: PoliciesGroup) => `${sideText('ingress', g.ingress)}. ${sideText('egress', g.egress)}`;
  const listed = out.length === 1 ? [both(out[0]!)] : out.slice(0, MAX_GROUPS_IN_TEXT).map((g) => `${g.members.join(', ')} — ${both(g)}`);
  if (out.length > MAX_GROUPS_IN_TEXT) listed.push(`And ${out.length - MAX_GROUPS_IN_TEXT} more sets of pods`);
  const count = subjects.length === 1 ? '' : ` (${subjects.length} pods${out.length > 1 ? `, ${out.length} sets of policies` : ''})`;
  const hosts = pods.length - subjects.length;
  const note = hosts > 0 ? ` ${hosts} host-network pod${hosts === 1 ? ' is' : 's are'} left out: no policy selects them.` : '';
  const isolation = (dir: Direction) => {
    const n = out.filter((g) => g[dir].isolated).reduce((a, g) => a + g.pods, 0);
    return n === subjects.length ? `isolated for ${dir}` : n === 0 ? `not isolated for ${dir}` : `isolated for ${dir} in ${n} of ${subjects.length} pods`;
  };
  const lead = q.isolation ? `${subject}${count} is ${isolation('ingress')} and ${isolation('egress')}. ` : `${subject}${count}: `;
  return { kind: 'policies', text: `${lead}${listed.join('. ')}.${note}`, query: q, subject, pods: subjects.length, groups: out };
}
