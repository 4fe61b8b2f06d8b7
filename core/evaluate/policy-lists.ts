// The lists of policies that select subjects, interned: a list equal element by element to an
// earlier one is that object, with its rule hits made once per start index. Pods of a namespace,
// and the namespaces an AdminNetworkPolicy picks, mostly have the same lists (L: 10⁵ pods over
// a few thousand lists), and building a list and its hits for every subject was most of finding
// its policies. A trie over the policies in order: a list is the node reached by its policies.
import { rulesFor, type Direction, type Policy, type Rule } from '../policy/model.js';

/** A rule of a subject's policies for a direction; `index` numbers them across the tiers. */
export interface RuleHit {
  readonly policy: Policy;
  readonly rule: Rule;
  /** Position among the subject's rules for the direction (SubjectPolicies.hits). */
  readonly index: number;
}

/** One list: reached from its parent by one more policy. Its array is made when first read, so the prefixes a walk passes hold none. */
export class PolicyList {
  private next: Map<Policy, PolicyList> | undefined;
  private array: readonly Policy[] | undefined;
  private hitsByStart: Map<number, readonly RuleHit[]> | undefined;
  private nonLegacy: readonly Policy[] | undefined;

  constructor(
    private readonly dir: Direction,
    private readonly parent: PolicyList | null,
    private readonly last: Policy | null,
  ) {}

  /** This list with `policy` after it. */
  with(policy: Policy): PolicyList {
    const next = (this.next ??= new Map());
    let child = next.get(policy);
    if (!child) next.set(policy, (child = new PolicyList(this.dir, this, policy)));
    return child;
  }

  get policies(): readonly Policy[] {
    if (this.array) return this.array;
    const out: Policy[] = [];
    for (let at: PolicyList | null = this; at?.last; at = at.parent) out.push(at.last);
    return (this.array = out.reverse());
  }

  /** Every rule of the policies for the direction, in order, numbered from `start`. */
  hits(start: number): readonly RuleHit[] {
    const known = this.hitsByStart?.get(start);
    if (known) return known;
    const out: RuleHit[] = [];
    for (const policy of this.policies) for (const rule of rulesFor(policy, this.dir) ?? []) out.push({ policy, rule, index: start + out.length });
    (this.hitsByStart ??= new Map()).set(start, out);
    return out;
  }

  /** The policies that are not of the legacy form. */
  get isolating(): readonly Policy[] {
    return (this.nonLegacy ??= this.policies.filter((p) => !p.legacy));
  }
}

const roots = new WeakMap<object, Record<Direction, PolicyList>>();

/** The empty list of a cluster (any object that lives as long as its policies) and direction: every list of theirs is reached from it. */
export function emptyPolicyList(cluster: object, dir: Direction): PolicyList {
  let byDir = roots.get(cluster);
  if (!byDir) roots.set(cluster, (byDir = { ingress: new PolicyList('ingress', null, null), egress: new PolicyList('egress', null, null) }));
  return byDir[dir];
}
