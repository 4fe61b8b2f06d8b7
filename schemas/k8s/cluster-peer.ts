// Subjects, peers and ports shared by AdminNetworkPolicy/BaselineAdminNetworkPolicy
// (v1alpha1) and ClusterNetworkPolicy (v1alpha2), normalised to one tagged shape.
//
// Two spellings are accepted (docs/api-versions.md):
//  - the current upstream types: `namespaces: <LabelSelector>`,
//    `pods: {namespaceSelector, podSelector}`, `subject: {namespaces | pods}`;
//  - the KEP-2091 draft (seed): `namespaces: {related | namespaceSelector | sameLabels |
//    notSameLabels}`, `pods: {namespaces: <that>, podSelector}` and the examples'
//    `subject: {namespaceSelector}` shorthand.
import { z } from '../zod.js';
import { parseCidr } from './ip.js';
import { inKeyOrder, LabelSelectorSchema, type LabelSelector } from './meta.js';

export type NamespaceMatch =
  | { type: 'selector'; selector: LabelSelector }
  | { type: 'related'; relation: 'Self' | 'NotSelf' }
  | { type: 'sameLabels'; keys: string[] }
  | { type: 'notSameLabels'; keys: string[] };

export type ClusterPeer =
  | { type: 'namespaces'; namespaces: NamespaceMatch }
  | { type: 'pods'; namespaces: NamespaceMatch; podSelector: LabelSelector }
  | { type: 'nodes'; selector: LabelSelector }
  | { type: 'networks'; cidrs: string[] }
  | { type: 'domainNames'; names: string[] }
  // "If an implementation sees no fields are set then it can infer that the deployed CRD
  // is of an incompatible version with an unknown field. In that case it should fail closed."
  | { type: 'unknown'; fields: string[] };

export type ClusterSubject = { namespaces: NamespaceMatch; podSelector: LabelSelector | null };

export type ClusterPort =
  | { type: 'range'; protocol: 'TCP' | 'UDP' | 'SCTP'; start: number; end: number }
  | { type: 'named'; name: string };

const DRAFT_NS_KEYS = ['related', 'namespaceSelector', 'sameLabels', 'notSameLabels'] as const;

type Ctx = z.RefinementCtx;

function issue(ctx: Ctx, path: (string | number)[], message: string): typeof z.NEVER {
  ctx.addIssue({ code: 'custom', path, message });
  return z.NEVER;
}

/** Parses a selector value and reports its problems under `path`. */
function selector(raw: unknown, ctx: Ctx, path: (string | number)[]): LabelSelector {
  const parsed = LabelSelectorSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    for (const i of parsed.error.issues) ctx.addIssue({ code: 'custom', path: [...path, ...(i.path as (string | number)[])], message: i.message });
    return { matchLabels: {}, matchExpressions: [] };
  }
  return parsed.data;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringList(raw: unknown, ctx: Ctx, path: (string | number)[], what: string): string[] {
  if (!Array.isArray(raw) || raw.some((s) => typeof s !== 'string')) return (issue(ctx, path, `${what} must be a list of strings`), []);
  return raw as string[];
}

/** `namespaces` in either spelling. */
function namespaceMatch(raw: unknown, ctx: Ctx, path: (string | number)[]): NamespaceMatch {
  if (!isObject(raw)) return { type: 'selector', selector: selector(raw, ctx, path) };
  const draft = DRAFT_NS_KEYS.filter((k) => raw[k] !== undefined && raw[k] !== null);
  if (draft.length === 0) return { type: 'selector', selector: selector(raw, ctx, path) };
  if (draft.length > 1) issue(ctx, path, `exactly one of ${DRAFT_NS_KEYS.join(', ')} may be set (found ${draft.join(', ')})`);
  const key = draft[0]!;
  switch (key) {
    case 'related': {
      const v = raw.related;
      if (v === 'Self' || v === 'NotSelf') return { type: 'related', relation: v };
      // The KEP's own example writes `related: self`.
      if (v === 'self' || v === 'notSelf' || v === 'notself') return { type: 'related', relation: v === 'self' ? 'Self' : 'NotSelf' };
      issue(ctx, [...path, 'related'], 'supported values: "Self", "NotSelf"');
      return { type: 'related', relation: 'Self' };
    }
    case 'namespaceSelector':
      return { type: 'selector', selector: selector(raw.namespaceSelector, ctx, [...path, 'namespaceSelector']) };
    case 'sameLabels':
    case 'notSameLabels':
      return { type: key, keys: stringList(raw[key], ctx, [...path, key], key) };
  }
  return { type: 'selector', selector: { matchLabels: {}, matchExpressions: [] } };
}

/** `pods: {namespaceSelector | namespaces, podSelector}`, in either spelling. */
function podsSelection(pods: unknown, ctx: Ctx): { namespaces: NamespaceMatch; podSelector: LabelSelector } | null {
  if (!isObject(pods)) return (issue(ctx, ['pods'], 'must be an object with namespaceSelector (or namespaces) and podSelector'), null);
  const namespaces: NamespaceMatch =
    pods.namespaces !== undefined
      ? namespaceMatch(pods.namespaces, ctx, ['pods', 'namespaces'])
      : { type: 'selector', selector: selector(pods.namespaceSelector, ctx, ['pods', 'namespaceSelector']) };
  return { namespaces, podSelector: selector(pods.podSelector, ctx, ['pods', 'podSelector']) };
}

export interface PeerOptions {
  /** Peer kinds allowed on this side (ingress peers have no nodes/networks). */
  readonly allowed: readonly ('namespaces' | 'pods' | 'nodes' | 'networks' | 'domainNames')[];
  readonly maxNetworks: number;
}

export function clusterPeer(opts: PeerOptions) {
  // Kept in key order, as every parsed object is (meta.ts sortedObject).
  return z.unknown().transform((raw, ctx): ClusterPeer => inKeyOrder(peerOf(raw, ctx, opts)));
}

function peerOf(raw: unknown, ctx: Ctx, opts: PeerOptions): ClusterPeer {
    if (!isObject(raw)) return issue(ctx, [], 'a peer must be an object');
    const present = Object.keys(raw).filter((k) => raw[k] !== undefined && raw[k] !== null);
    const known = present.filter((k) => (opts.allowed as readonly string[]).includes(k));
    if (present.length === 0) return issue(ctx, [], `exactly one of ${opts.allowed.join(', ')} must be set`);
    if (known.length === 0) {
      const notHere = present.filter((k) => ['namespaces', 'pods', 'nodes', 'networks', 'domainNames'].includes(k));
      if (notHere.length > 0) return issue(ctx, [notHere[0]!], `not allowed here; this peer accepts ${opts.allowed.join(', ')}`);
      return { type: 'unknown', fields: present };
    }
    if (known.length > 1) return issue(ctx, [], `exactly one of ${opts.allowed.join(', ')} must be set (found ${known.join(', ')})`);
    const key = known[0]!;
    switch (key) {
      case 'namespaces':
        return { type: 'namespaces', namespaces: namespaceMatch(raw.namespaces, ctx, ['namespaces']) };
      case 'pods': {
        const pods = podsSelection(raw.pods, ctx);
        return pods ? { type: 'pods', ...pods } : z.NEVER;
      }
      case 'nodes':
        return { type: 'nodes', selector: selector(raw.nodes, ctx, ['nodes']) };
      case 'networks': {
        const cidrs = stringList(raw.networks, ctx, ['networks'], 'networks');
        if (cidrs.length === 0) issue(ctx, ['networks'], 'must have at least 1 item');
        if (cidrs.length > opts.maxNetworks) issue(ctx, ['networks'], `must have at most ${opts.maxNetworks} items`);
        cidrs.forEach((c, i) => {
          if (!parseCidr(c)) issue(ctx, ['networks', i], `Invalid CIDR format provided: "${c}"`);
        });
        if (new Set(cidrs).size !== cidrs.length) issue(ctx, ['networks'], 'duplicate entries are not allowed (listType=set)');
        return { type: 'networks', cidrs };
      }
      case 'domainNames':
        return { type: 'domainNames', names: stringList(raw.domainNames, ctx, ['domainNames'], 'domainNames') };
    }
    return { type: 'unknown', fields: [key] };
}

/** `subject`: exactly one of namespaces | pods, or the draft's `namespaceSelector` shorthand. */
export const ClusterSubjectSchema = z.unknown().transform((raw, ctx): ClusterSubject => inKeyOrder(subjectOf(raw, ctx)));

function subjectOf(raw: unknown, ctx: Ctx): ClusterSubject {
  if (!isObject(raw)) return issue(ctx, [], 'must be an object with exactly one of namespaces, pods');
  const keys = ['namespaces', 'pods', 'namespaceSelector'].filter((k) => raw[k] !== undefined && raw[k] !== null);
  if (keys.length !== 1) return issue(ctx, [], `exactly one of namespaces, pods must be set${keys.length ? ` (found ${keys.join(', ')})` : ''}`);
  const key = keys[0]!;
  if (key === 'namespaces') return { namespaces: namespaceMatch(raw.namespaces, ctx, ['namespaces']), podSelector: null };
  if (key === 'namespaceSelector') return { namespaces: { type: 'selector', selector: selector(raw.namespaceSelector, ctx, ['namespaceSelector']) }, podSelector: null };
  return podsSelection(raw.pods, ctx) ?? z.NEVER;
}

export const PortNumberValue = z
  .number({ error: 'must be an integer between 1 and 65535' })
  .int('must be an integer between 1 and 65535')
  .min(1, 'must be between 1 and 65535')
  .max(65535, 'must be between 1 and 65535');

export const ClusterProtocol = z.enum(['TCP', 'UDP', 'SCTP'], { error: 'supported values: "TCP", "UDP", "SCTP"' });

export function checkRange(r: { start: number; end: number }, ctx: Ctx, path: (string | number)[]): void {
  // v1alpha2 CEL "self.start < self.end"; v1alpha1 documents the same ("the Start value must be less than End").
  if (!(r.start < r.end)) ctx.addIssue({ code: 'custom', path: [...path, 'end'], message: 'Start port must be less than End port' });
}

/** Upstream CEL: "networks/nodes peer cannot be set with namedPorts since there are no namedPorts for networks/nodes". */
export function checkNamedPortPeers(peers: ClusterPeer[], ports: ClusterPort[] | null, ctx: Ctx, peersField: string, portsField: string): void {
  if (!ports || !ports.some((p) => p.type === 'named')) return;
  const bad = peers.findIndex((p) => p.type === 'networks' || p.type === 'nodes' || p.type === 'domainNames');
  if (bad >= 0) {
    const idx = ports.findIndex((p) => p.type === 'named');
    ctx.addIssue({ code: 'custom', path: [portsField, idx], message: `networks/nodes/domainNames peer (${peersField}[${bad}]) cannot be set with named ports since there are no named ports for networks/nodes/domainNames` });
  }
}
