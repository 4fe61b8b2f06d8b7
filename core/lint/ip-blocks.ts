// ipblock-except-not-subset and ipblock-except-covers-cidr.
//
// IPBlock: "except is a slice of CIDRs that should not be included within an IPBlock … Except
// values will be rejected if they are outside the cidr range"; the API server's
// ValidateIPBlock requires each except to be "a strict subset of `cidr`".
//
// How this is detected although schema validation exists: parseSnapshot enforces the strict
// subset rule (schemas/k8s/network-policy.ts IPBlockSchema), so a snapshot that went through
// it never reaches this lint with a bad except. The lint therefore reads the normalised model
// (Peer `cidrs`: ranges and excepts as integer intervals), not the YAML: it holds for any
// Cluster however it was built — an object applied by a preview without re-validation, a
// snapshot taken from an API server that predates the check, a test — and it needs no
// re-parsing. An except equal to the cidr, of the other family, or reaching past it, is
// flagged (error: the API server would reject the object).
//
// The valid-but-useless case passes validation: several excepts, each a strict subset, that
// together cover the whole cidr (`10.0.0.0/8` except `10.0.0.0/9` and `10.128.0.0/9`). The
// peer then matches no address (warning). Both checks are exact interval arithmetic.
import type { Cluster } from '../cluster.js';
import { rangeToCidrs, type IpRange } from '../net/ip.js';
import { rulesFor, type Direction, type Peer, type Policy } from '../policy/model.js';
import { normalise, sameSet, subtract, isSubset } from './ip-sets.js';
import { finding, peerField, ruleLabel, rulePath, type Finding } from './types.js';

const DIRECTIONS: readonly Direction[] = ['ingress', 'egress'];

const cidrText = (ranges: readonly IpRange[]): string => normalise(ranges).flatMap(rangeToCidrs).join(', ');

export function ipBlockExcepts(cluster: Cluster): Finding[] {
  const out: Finding[] = [];
  for (const policy of cluster.policies.all) {
    for (const dir of DIRECTIONS) {
      for (const rule of rulesFor(policy, dir) ?? []) {
        rule.peers.forEach((peer, p) => {
          if (peer.type !== 'cidrs' || peer.except.length === 0) return;
          out.push(...checkPeer(policy, dir, `${ruleLabel(dir, rule)} peer ${p}`, `${rulePath(dir, rule.index)}.${peerField(dir)}[${p}]`, peer));
        });
      }
    }
  }
  return out;
}

function checkPeer(policy: Policy, dir: Direction, label: string, at: string, peer: Extract<Peer, { type: 'cidrs' }>): Finding[] {
  // NetworkPolicy spells it ipBlock {cidr, except}; ANP/CNP networks carry no excepts today.
  const block = policy.ref.kind === 'NetworkPolicy' ? `${at}.ipBlock` : `${at}.networks`;
  const cidr = cidrText(peer.ranges);
  const out: Finding[] = [];
  peer.except.forEach((ex, k) => {
    const inside = isSubset([ex], peer.ranges);
    const strict = inside && !sameSet([ex], peer.ranges);
    if (strict) return;
    const what = !inside ? (isSubset(peer.ranges, [ex]) ? 'contains' : 'is not inside') : 'equals';
    out.push(
      finding(
        policy,
        'ipblock-except-not-subset',
        'error',
        `${block}.except[${k}]`,
        `${label}: except ${cidrText([ex])} ${what} the cidr ${cidr}; the API server rejects an except that is not a strict subset of cidr`,
        inside ? 'drop the ipBlock peer (it would match nothing) or narrow the except' : `remove the except or change it to a range inside ${cidr}`,
      ),
    );
  });
  if (subtract(peer.ranges, peer.except).length === 0) {
    out.push(
      finding(
        policy,
        'ipblock-except-covers-cidr',
        'warning',
        block,
        `${label}: the excepts cover all of ${cidr}, so this ${dir === 'ingress' ? 'source' : 'destination'} peer matches no address`,
        'remove the peer, or drop the excepts that together cover the whole cidr',
      ),
    );
  }
  return out;
}
