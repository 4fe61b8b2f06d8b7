// named-port-unresolved: a named port that no pod it could resolve on defines, so the port
// entry matches nothing.
//
// NetworkPolicyPort: "This can either be a numerical or named port on a pod"; ANP namedPort:
// "NamedPort selects a port on a pod(s) based on name"; the destination
// is the subject for ingress and the peer pod for egress (docs/semantics.md "Named ports
// resolve on the destination pod"). A named port never matches a node or an external address.
//
// Ingress: none of the pods the policy selects defines the name (policies selecting nothing
// are left to selects-no-pods). Egress: no pod in the snapshot defines it, or pods do but
// none of the rule's peer pods. The protocol counts: a NetworkPolicy `port: dns` (TCP by
// default) does not resolve on a UDP port named dns. Exact for the snapshot.
import type { Cluster } from '../cluster.js';
import { namespacesPicked, rulePeersMatch } from '../evaluate/match.js';
import { selectedPods } from './cells.js';
import { rulesFor, type Direction, type PortMatch, type Rule } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { finding, listSome, portsField, ruleLabel, rulePath, type Finding } from './types.js';

const DIRECTIONS: readonly Direction[] = ['ingress', 'egress'];

type Named = Extract<PortMatch, { type: 'named' }>;

const defines = (pod: PodInfo, m: Named): boolean => pod.namedPorts.some((np) => np.name === m.name && (m.protocol === null || np.protocol === m.protocol));

const portText = (m: Named): string => `${m.protocol ? `${m.protocol} ` : ''}port named "${m.name}"`;

export function unresolvedNamedPorts(cluster: Cluster): Finding[] {
  const out: Finding[] = [];
  const definersOf = new Map<string, PodInfo[]>();
  const definers = (m: Named): PodInfo[] => {
    const key = `${m.name}/${m.protocol ?? '*'}`;
    let list = definersOf.get(key);
    if (!list) definersOf.set(key, (list = cluster.pods.filter((p) => !p.hostNetwork && defines(p, m))));
    return list;
  };
  for (const policy of cluster.policies.all) {
    const subjects = selectedPods(cluster, policy);
    // Peers may be relative to the subject's namespace (Self, sameLabels): one viewpoint per namespace.
    const viewpoints = [...new Map(subjects.map((s) => [s.nsIdx, s])).values()];
    for (const dir of DIRECTIONS) {
      for (const rule of rulesFor(policy, dir) ?? []) {
        // The rule's candidate peers, found once for all its named ports.
        let candidates: readonly PodInfo[] | undefined;
        const candidatesOnce = () => (candidates ??= candidatePods(cluster, rule, viewpoints));
        (rule.ports ?? []).forEach((m, k) => {
          if (m.type !== 'named') return;
          const why = dir === 'ingress' ? ingressProblem(subjects, m) : egressProblem(cluster, rule, viewpoints, candidatesOnce, m, definers(m));
          if (!why) return;
          out.push(
            finding(
              policy,
              'named-port-unresolved',
              'warning',
              `${rulePath(dir, rule.index)}.${portsField(policy)}[${k}]`,
              `${ruleLabel(dir, rule)}: ${why}, so this port entry matches nothing`,
              `use the name a ${dir === 'ingress' ? 'selected' : 'destination'} pod gives its containerPort (check the protocol too), or a port number`,
            ),
          );
        });
      }
    }
  }
  return out;
}

function ingressProblem(subjects: readonly PodInfo[], m: Named): string | null {
  if (subjects.length === 0 || subjects.some((p) => defines(p, m))) return null;
  return `none of the ${subjects.length} pod${subjects.length > 1 ? 's' : ''} the policy selects (${listSome(subjects.map((p) => p.key))}) defines a ${portText(m)}`;
}

/**
 * The pods `rule`'s peers can match from some viewpoint, a superset (as cells.ts candidates):
 * a pods peer only looks in the namespaces it matches; an address peer may match any pod.
 */
function candidatePods(cluster: Cluster, rule: Rule, viewpoints: readonly PodInfo[]): readonly PodInfo[] {
  const namespaces = new Set<number>();
  for (const peer of rule.peers) {
    if (peer.type === 'cidrs' || peer.type === 'any') return cluster.pods;
    if (peer.type !== 'pods') continue;
    for (const s of viewpoints) for (const ns of namespacesPicked(cluster, peer.namespaces, s)) namespaces.add(ns);
  }
  return [...namespaces].sort((a, b) => a - b).flatMap((ns) => cluster.podsByNamespace.get(cluster.namespaces[ns]!.name) ?? []);
}

function egressProblem(cluster: Cluster, rule: Rule, viewpoints: readonly PodInfo[], candidatePeers: () => readonly PodInfo[], m: Named, definers: readonly PodInfo[]): string | null {
  if (definers.length === 0) return `no pod in the snapshot defines a ${portText(m)}`;
  if (viewpoints.length === 0) return null;
  const isPeer = (pod: PodInfo) =>
    viewpoints.some((s) => (pod.ips.length > 0 ? pod.ips : [null]).some((ip) => rulePeersMatch(cluster, rule, { kind: 'pod', pod, ip }, s)));
  // Only the pods a peer can match are tried: a rule towards one namespace costs that namespace.
  const candidates = candidatePeers();
  if (candidates.some((p) => !p.hostNetwork && defines(p, m) && isPeer(p))) return null;
  // Only now, with a finding to explain, list the destination pods.
  const peers = candidates.filter((p) => !p.hostNetwork && isPeer(p)).sort((a, b) => a.idx - b.idx);
  if (peers.length === 0) return null;
  return `none of the rule's ${peers.length} destination pod${peers.length > 1 ? 's' : ''} (${listSome(peers.map((p) => p.key))}) defines a ${portText(m)}; ${listSome(definers.map((p) => p.key))} do${definers.length > 1 ? '' : 'es'}`;
}
