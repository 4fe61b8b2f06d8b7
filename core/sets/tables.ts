// A group's rules as a tiered table over sets. The tiers are the verdict engine's
// (evaluate/decide.ts walkTiers), kept as tiers instead of being flattened: Pass and isolation
// mean what they mean there. Each rule becomes one set rule per peer (peers are OR-ed, so
// consecutive rules with one action and port list are the rule), and egress named ports become
// rules over ports sets (they resolve on each destination pod). A rule's ipBlock/networks peers
// are one set.
import type { RuleHit } from '../evaluate/decide.js';
import type { Group, Tier } from '../compile/group.js';
import type { PortMatch, Rule } from '../policy/model.js';
import { ruleSetPeers } from '../policy/rule-addresses.js';
import type { PodInfo } from '../snapshot/cluster.js';
import type { PortSpec, RuleTable, SetRule } from './ir.js';
import type { SetRegistry } from './registry.js';
import { tieredTable, tierRules as tierRulesOf, type TierRules } from './texts.js';

/** Ingress named ports resolve on the subject: "a named port on the destination pod". */
function subjectPorts(subject: PodInfo, m: Extract<PortMatch, { type: 'named' }>): PortSpec[] {
  return subject.namedPorts.filter((np) => np.name === m.name && (m.protocol === null || m.protocol === np.protocol)).map((np) => [np.protocol, np.port, np.port] as const);
}

const portsText = (ports: readonly PortSpec[] | null): string => (ports === null ? '*' : ports.map((p) => p.join(':')).join(','));

interface RulePorts {
  /** What the rule's address rules match of ports (null: every port). */
  readonly ports: PortSpec[] | null;
  readonly key: string;
  /** Egress named ports, each a rule over a ports set. */
  readonly named: readonly Extract<PortMatch, { type: 'named' }>[];
}

// A rule's ports as tables write them, once per rule when they do not depend on the subject
// (no ingress named port): a policy's rule recurs in the table of every group it selects.
const portsOfRule: Record<'ingress' | 'egress', WeakMap<Rule, RulePorts>> = { ingress: new WeakMap(), egress: new WeakMap() };

function rulePorts(rule: Rule, group: Group): RulePorts {
  const known = portsOfRule[group.dir].get(rule);
  if (known) return known;
  const ranges: PortSpec[] = [];
  const named: Extract<PortMatch, { type: 'named' }>[] = [];
  let bySubject = false;
  for (const m of rule.ports ?? []) {
    if (m.type === 'range') ranges.push([m.protocol, m.lo, m.hi]);
    else if (group.dir === 'ingress') {
      bySubject = true;
      ranges.push(...subjectPorts(group.representative, m));
    } else named.push(m);
  }
  const ports = rule.ports === null ? null : ranges;
  const out = { ports, key: portsText(ports), named };
  if (!bySubject) portsOfRule[group.dir].set(rule, out);
  return out;
}

/** A tier's set rules, in order; a rule identical to an earlier one of its tier can never match first and is left out. */
function tierRules(registry: SetRegistry, group: Group, hits: readonly RuleHit[]): SetRule[] {
  const subject = group.representative;
  const out: SetRule[] = [];
  const seen = new Set<string>();
  for (const { rule } of hits) {
    // Legacy proposal: "ports: [] … matches no traffic"; such a rule never matches.
    if (rule.ports !== null && rule.ports.length === 0) continue;
    const { ports, key: portsKey, named } = rulePorts(rule, group);
    // A rule's CIDR peers are one set (policy/rule-addresses.ts ruleSetPeers).
    for (const peer of ruleSetPeers(rule)) {
      // A `none` peer (fail-closed Allow, domainNames) matches no endpoint.
      if (peer.type === 'none') continue;
      if (ports === null || ports.length > 0) {
        const set = registry.addresses(peer, subject);
        const key = `${set}|${portsKey}`;
        if (!seen.has(key)) {
          seen.add(key);
          out.push({ action: rule.action, set, ports });
        }
      }
      for (const m of named) {
        const set = registry.ports(peer, m, subject);
        const key = `${set}|*`;
        if (!seen.has(key)) {
          seen.add(key);
          out.push({ action: rule.action, set, ports: null });
        }
      }
    }
  }
  return out;
}

const NO_RULES = tierRulesOf([]);

/**
 * The tables of one compile. A tier's set rules depend only on what its rules say and, where
 * they read it, the subject's namespace and ports (Group.tiers), so tiers equal by that key are
 * compiled and written once and shared by every table that has them.
 */
export class RuleTables {
  private readonly tiers = new Map<string, TierRules>();

  constructor(private readonly registry: SetRegistry) {}

  /**
   * The group's table; `below`, when given, is a table whose NetworkPolicy and Baseline tiers are
   * the group's (the earlier version's, when only Admin-tier policies changed for the group's
   * pod): those are taken from it rather than compiled again.
   */
  of(group: Group, below?: RuleTable): RuleTable {
    const { sp } = group;
    // "if any NetworkPolicy selects the pod for that direction, the flow is allowed iff one of
    // their rules matches"; the proposal's namespace annotation isolates ingress by itself.
    const isolated = sp.isolating.length > 0 || sp.legacyIsolated;
    const np = !isolated ? NO_RULES : below ? tierRulesOf(below.networkPolicy.rules) : this.tier(group, 'np');
    return tieredTable(group.dir, this.tier(group, 'admin'), isolated, np, below ? tierRulesOf(below.baseline) : this.tier(group, 'baseline'));
  }

  private tier(group: Group, tier: Tier): TierRules {
    const key = `${tier}|${group.tiers[tier]}`;
    let rules = this.tiers.get(key);
    if (!rules) this.tiers.set(key, (rules = tierRulesOf(tierRules(this.registry, group, group.sp.hits[tier]))));
    return rules;
  }
}
