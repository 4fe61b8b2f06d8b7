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
    // No deciding policy on a denied side: NetworkPolicy isolation, whose message names the policies.
    .map(({ dir, s }) => (s.policy ? `denied at ${dir} by ${ruleText(s)}${passedDown(s)}` : `denied at ${dir}: ${s.trace[s.trace.length - 1]?.message}`))
    .join(' and ');
}
