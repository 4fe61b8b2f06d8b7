// How AdminNetworkPolicy/BaselineAdminNetworkPolicy (v1alpha1) and ClusterNetworkPolicy
// (v1alpha2) select namespaces and pods: the `namespaces` and `pods` of a peer or subject,
// and the subject itself.
//
// Two spellings are accepted (docs/semantics.md, "KEP-2091 draft spellings"):
//  - the current upstream types: `namespaces: <LabelSelector>`,
//    `pods: {namespaceSelector, podSelector}`, `subject: {namespaces | pods}`;
//  - the KEP-2091 draft (seed): `namespaces: {related | namespaceSelector | sameLabels |
//    notSameLabels}`, `pods: {namespaces: <that>, podSelector}` and the examples'
//    `subject: {namespaceSelector}` shorthand.
// Where a draft spelling is read, the result names it (`draft`, relative to the peer or subject),
// so a v1alpha2 object that uses one is warned about (core/policy/draft-spellings.ts).
import { z } from '../zod.js';
import { inKeyOrder, LabelSelectorSchema, type LabelSelector } from './meta.js';

export type NamespaceMatch =
  | { type: 'selector'; selector: LabelSelector }
  | { type: 'related'; relation: 'Self' | 'NotSelf' }
  | { type: 'sameLabels'; keys: string[] }
  | { type: 'notSameLabels'; keys: string[] };

/**
 * Where a KEP-2091 draft spelling was read, relative to the peer or subject holding it:
 * `namespaces.related`, `namespaces.sameLabels`, `namespaces.notSameLabels`,
 * `namespaces.namespaceSelector`, `pods.namespaces` or (a subject) `namespaceSelector`.
 */
export type DraftSpelling = string;

export type ClusterSubject = { namespaces: NamespaceMatch; podSelector: LabelSelector | null; draft?: DraftSpelling };

export type ClusterApiVersion = 'v1alpha1' | 'v1alpha2';

const DRAFT_NS_KEYS = ['related', 'namespaceSelector', 'sameLabels', 'notSameLabels'] as const;

export type Ctx = z.RefinementCtx;
export type Path = (string | number)[];

export function issue(ctx: Ctx, path: Path, message: string): typeof z.NEVER {
  ctx.addIssue({ code: 'custom', path, message });
  return z.NEVER;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The keys of `raw` set to something other than null (a CRD prunes null values of non-nullable fields). */
export const presentKeys = (raw: Record<string, unknown>): string[] => Object.keys(raw).filter((k) => raw[k] !== undefined && raw[k] !== null);

/** Parses a selector value and reports its problems under `path`. */
export function selector(raw: unknown, ctx: Ctx, path: Path): LabelSelector {
  const parsed = LabelSelectorSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    for (const i of parsed.error.issues) ctx.addIssue({ code: 'custom', path: [...path, ...(i.path as Path)], message: i.message });
    return { matchLabels: {}, matchExpressions: [] };
  }
  return parsed.data;
}

export function stringList(raw: unknown, ctx: Ctx, path: Path, what: string): string[] {
  if (!Array.isArray(raw) || raw.some((s) => typeof s !== 'string')) return (issue(ctx, path, `${what} must be a list of strings`), []);
  return raw as string[];
}

/** `namespaces` in either spelling, with the draft key read when it is a draft one. */
function namespaceMatch(raw: unknown, ctx: Ctx, path: Path): { match: NamespaceMatch; draft: string | null } {
  if (!isObject(raw)) return { match: { type: 'selector', selector: selector(raw, ctx, path) }, draft: null };
  const draft = DRAFT_NS_KEYS.filter((k) => raw[k] !== undefined && raw[k] !== null);
  if (draft.length === 0) return { match: { type: 'selector', selector: selector(raw, ctx, path) }, draft: null };
  // The draft's NamespacedPeer: "Exactly one of the selector pointers must be set". A selector
  // field beside it (`matchLabels`) would be dropped, changing what the peer selects.
  const others = presentKeys(raw).filter((k) => !(DRAFT_NS_KEYS as readonly string[]).includes(k));
  if (draft.length > 1 || others.length > 0) issue(ctx, path, `exactly one of ${DRAFT_NS_KEYS.join(', ')} may be set, and nothing beside it (found ${[...draft, ...others].join(', ')})`);
  const key = draft[0]!;
  switch (key) {
    case 'related': {
      const v = raw.related;
      if (v === 'Self' || v === 'NotSelf') return { match: { type: 'related', relation: v }, draft: key };
      // The KEP's own example writes `related: self`.
      if (v === 'self' || v === 'notSelf' || v === 'notself') return { match: { type: 'related', relation: v === 'self' ? 'Self' : 'NotSelf' }, draft: key };
      issue(ctx, [...path, 'related'], 'supported values: "Self", "NotSelf"');
      return { match: { type: 'related', relation: 'Self' }, draft: key };
    }
    case 'namespaceSelector':
      return { match: { type: 'selector', selector: selector(raw.namespaceSelector, ctx, [...path, 'namespaceSelector']) }, draft: key };
    case 'sameLabels':
    case 'notSameLabels':
      return { match: { type: key, keys: stringList(raw[key], ctx, [...path, key], key) }, draft: key };
  }
  return { match: { type: 'selector', selector: { matchLabels: {}, matchExpressions: [] } }, draft: null };
}

/** A peer's or subject's `namespaces`, with where a draft spelling was read. */
export function namespacesSelection(raw: unknown, ctx: Ctx, path: Path): { namespaces: NamespaceMatch; draft?: DraftSpelling } {
  const { match, draft } = namespaceMatch(raw, ctx, path);
  return { namespaces: match, ...(draft ? { draft: `namespaces.${draft}` } : {}) };
}

/**
 * `pods: {namespaceSelector | namespaces, podSelector}`, in either spelling, at `path` (the `pods` field).
 * podSelector is required in every version: v1alpha2 NamespacedPod "+required" (CRD
 * `required: [podSelector]`), v1alpha1 "All fields in this package are required unless
 * Explicitly marked optional", the draft "The `Namespaces` and `PodSelector` fields are
 * required". namespaceSelector is required in v1alpha1 (unmarked) and "+optional" in v1alpha2
 * ("if empty, it selects all Namespaces").
 */
export function podsSelection(pods: unknown, ctx: Ctx, path: Path, version: ClusterApiVersion): { namespaces: NamespaceMatch; podSelector: LabelSelector; draft?: DraftSpelling } | null {
  if (!isObject(pods)) return (issue(ctx, path, 'must be an object with namespaceSelector (or namespaces) and podSelector'), null);
  const hasDraft = pods.namespaces !== undefined && pods.namespaces !== null;
  const hasSelector = pods.namespaceSelector !== undefined && pods.namespaceSelector !== null;
  if (hasDraft && hasSelector) issue(ctx, path, 'exactly one of namespaceSelector, namespaces (its KEP-2091 draft spelling) may be set');
  if (pods.podSelector === undefined || pods.podSelector === null) {
    issue(ctx, [...path, 'podSelector'], 'Required value: podSelector must be set (`podSelector: {}` selects every pod of the namespaces); it is not read as the empty selector');
  }
  if (version === 'v1alpha1' && !hasDraft && !hasSelector) {
    issue(ctx, [...path, 'namespaceSelector'], 'Required value: v1alpha1 NamespacedPod requires namespaceSelector (`namespaceSelector: {}` selects every namespace)');
  }
  const podSelector = selector(pods.podSelector, ctx, [...path, 'podSelector']);
  if (hasDraft) {
    const { match } = namespaceMatch(pods.namespaces, ctx, [...path, 'namespaces']);
    return { namespaces: match, podSelector, draft: `${String(path[path.length - 1])}.namespaces` };
  }
  return { namespaces: { type: 'selector', selector: selector(pods.namespaceSelector, ctx, [...path, 'namespaceSelector']) }, podSelector };
}

/**
 * `subject`: exactly one of namespaces | pods, or the draft's `namespaceSelector` shorthand.
 * "Exactly one field must be set" (MaxProperties=1, MinProperties=1): a field beside the one
 * known (`podSelector` next to `namespaces`) is rejected rather than dropped, which would
 * widen the subject.
 */
export function clusterSubject(version: ClusterApiVersion) {
  return z.unknown().transform((raw, ctx): ClusterSubject => inKeyOrder(subjectOf(raw, ctx, version)));
}

function subjectOf(raw: unknown, ctx: Ctx, version: ClusterApiVersion): ClusterSubject {
  if (!isObject(raw)) return issue(ctx, [], 'must be an object with exactly one of namespaces, pods');
  const present = presentKeys(raw);
  const keys = present.filter((k) => ['namespaces', 'pods', 'namespaceSelector'].includes(k));
  if (keys.length !== 1) return issue(ctx, [], `exactly one of namespaces, pods must be set${present.length ? ` (found ${present.join(', ')})` : ''}`);
  if (present.length > 1) return issue(ctx, [], `exactly one field may be set (MaxProperties=1); found ${present.join(', ')}: ignoring ${present.filter((k) => k !== keys[0]).join(', ')} would change which pods the policy applies to`);
  const key = keys[0]!;
  if (key === 'namespaces') return { ...namespacesSelection(raw.namespaces, ctx, ['namespaces']), podSelector: null };
  if (key === 'namespaceSelector') return { namespaces: { type: 'selector', selector: selector(raw.namespaceSelector, ctx, ['namespaceSelector']) }, podSelector: null, draft: 'namespaceSelector' };
  return podsSelection(raw.pods, ctx, ['pods'], version) ?? z.NEVER;
}
