// One clause that says why a verdict is what it is: which rule on which side decided, and the
// Admin-tier Pass that handed the decision down. Shared by chat-ops answers and previews.
import { describePolicy } from '../policy/model.js';
import type { SideVerdict, Verdict } from './engine.js';

const ruleText = (s: SideVerdict) => `${describePolicy(s.policy!)} rule ${s.rule!.index}${s.rule!.name ? ` "${s.rule!.name}"` : ''}`;

/** A Pass is part of why: the Admin tier delegated the decision. */
function passedDown(s: SideVerdict): string {
  const pass = s.trace.find((t) => t.outcome === 'pass');
  return pass?.policy ? ` after ${describePolicy(pass.policy)} passed it down` : '';
}

/** "denied at ingress by NetworkPolicy shop/db rule 0", "allowed by default: no policy decides", … */
export function reasonOf(v: Verdict): string {
  if (v.reason === 'loopback') return 'a pod can always reach itself';
  if (v.reason === 'node-local') return "traffic from the pod's own node is always allowed";
  const sides = (['egress', 'ingress'] as const).flatMap((dir) => (v[dir] ? [{ dir, s: v[dir]! }] : []));
  if (v.allowed) {
    const decided = sides.filter(({ s }) => s.policy !== null);
    if (decided.length === 0) return `allowed by default${sides.map(({ s }) => passedDown(s)).find((p) => p) ?? ': no policy decides'}`;
    return decided.map(({ dir, s }) => `${decided.length > 1 ? `${dir} ` : ''}allowed by ${ruleText(s)}${passedDown(s)}`).join(' and ');
  }
  return sides
    .filter(({ s }) => !s.allowed)
    .map(({ dir, s }) => deniedAt(dir, s))
    .join(' and ');
}

/** What denies on one side: "by NetworkPolicy shop/db rule 0", or its isolation ("isolated for ingress by db; no rule allows this flow"). */
export const denialOf = (s: SideVerdict): string => (s.policy ? `by ${ruleText(s)}${passedDown(s)}` : `${s.trace[s.trace.length - 1]?.message}`);

/**
 * "denied at ingress by NetworkPolicy shop/db rule 0" (`where`: " on every port" after the side);
 * no deciding policy on a denied side: NetworkPolicy isolation, whose message names the policies.
 */
export const deniedAt = (dir: 'egress' | 'ingress', s: SideVerdict, where = ''): string => `denied at ${dir}${where}${s.policy ? ' ' : ': '}${denialOf(s)}`;
