// A cluster snapshot as `kubectl get … -o json` prints it: a List, `{items: […]}` or a bare
// array. Each item is dispatched on apiVersion+kind to its schema; every problem is
// reported with the item's identity and a JSON path, and nothing partial is returned.
import { objectKey } from './object-key.js';
import { z } from './zod.js';
import { NamespaceSchema, NodeSchema, PodSchema, ServiceSchema } from './k8s/core.js';
import { LegacyNetworkPolicySchema, NetworkPolicySchema } from './k8s/network-policy.js';
import { AdminNetworkPolicySchema, BaselineAdminNetworkPolicySchema } from './k8s/admin-network-policy.js';
import { ClusterNetworkPolicySchema } from './k8s/cluster-network-policy.js';
import { PodTemplateObjectSchema, WORKLOAD_KIND_NAMES, WORKLOAD_SCHEMAS } from './k8s/workload.js';
import { formatPath, type ValidationIssue } from './issues.js';
import { semanticIssues } from './object-checks.js';
import { currentWorkload, legacyVersionsOf } from './k8s/workload-versions.js';
import { inKeyOrder } from './k8s/meta.js';

export const SNAPSHOT_LIMITS = {
  /** Objects in one snapshot (the L benchmark has ~176k). */
  maxObjects: 250_000,
} as const;

export { formatPath, ValidationIssueSchema, type ValidationIssue } from './issues.js';

/** The schema of each supported apiVersion/kind. */
export const KIND_SCHEMAS = {
  'v1/Namespace': NamespaceSchema,
  'v1/Pod': PodSchema,
  'v1/Node': NodeSchema,
  'v1/Service': ServiceSchema,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicySchema,
  'extensions/v1beta1/NetworkPolicy': LegacyNetworkPolicySchema,
  'policy.networking.k8s.io/v1alpha1/AdminNetworkPolicy': AdminNetworkPolicySchema,
  'policy.networking.k8s.io/v1alpha1/BaselineAdminNetworkPolicy': BaselineAdminNetworkPolicySchema,
  'policy.networking.k8s.io/v1alpha2/ClusterNetworkPolicy': ClusterNetworkPolicySchema,
  ...WORKLOAD_SCHEMAS,
  'v1/PodTemplate': PodTemplateObjectSchema,
} as const;

// The same schemas compiled ahead of time (zod's z.compile): a valid object takes generated code
// without zod's per-field dispatch and payload objects (the M snapshot validates in ~150 ms
// instead of ~350), an invalid one falls back to the schema's own parser, so issues and their
// paths are the same (test/snapshot/compiled-schemas.property.test.ts). Where code generation is
// not allowed (a Worker) the schemas are used as they are: z.compile would hand them back
// unchanged, after writing their code (~30 ms of a Worker's ~150 ms start, bench/bundles.ts).
const COMPILED: Readonly<Record<string, z.ZodTypeAny>> = z.core.util.allowsEval.value ? Object.fromEntries(Object.entries(KIND_SCHEMAS).map(([k, s]) => [k, z.compile(s as z.ZodTypeAny)])) : KIND_SCHEMAS;

/** The schema objects of `apiVersion/kind` are parsed with (compiled), or undefined for a kind not supported. */
export const kindSchema = (apiVersionKind: string): z.ZodTypeAny | undefined => (Object.hasOwn(COMPILED, apiVersionKind) ? COMPILED[apiVersionKind] : undefined);

type Schemas = typeof KIND_SCHEMAS;
export type SnapshotObject = { [K in keyof Schemas]: z.infer<Schemas[K]> }[keyof Schemas];
export const SUPPORTED_KINDS = Object.keys(KIND_SCHEMAS);
const KIND_BY_LOWER: ReadonlyMap<string, string> = new Map(SUPPORTED_KINDS.map((k) => k.slice(k.lastIndexOf('/') + 1)).map((k) => [k.toLowerCase(), k]));
/**
 * The kind netpolc reads that `kind` spells in another case ("networkpolicy" → NetworkPolicy),
 * else undefined. Kinds are case-sensitive: the API server knows no kind "networkpolicy", and
 * reading it as a kind netpolc ignores would drop what the author meant.
 */
export function miscasedKind(kind: string): string | undefined {
  const meant = KIND_BY_LOWER.get(kind.toLowerCase());
  return meant === kind ? undefined : meant;
}

export const miscasedKindMessage = (kind: string): string => `unknown kind "${kind}" (kinds are case-sensitive); did you mean ${miscasedKind(kind)}?`;

/** Kinds whose objects live in a namespace (`default` when metadata.namespace is absent). */
export const NAMESPACED_KINDS: ReadonlySet<string> = new Set(['Pod', 'Service', 'NetworkPolicy', ...WORKLOAD_KIND_NAMES, 'PodTemplate']);

export interface ParsedSnapshot {
  readonly objects: SnapshotObject[];
  /** Objects of kinds policy evaluation does not read (Deployments, ConfigMaps, …), by kind. */
  readonly ignored: Record<string, number>;
  readonly resourceVersion: string | undefined;
  /** Where each object sits in the input, by `kind/namespace/name` (e.g. `$.items[3]`), so later stages can point at it. */
  readonly paths: ReadonlyMap<string, string>;
  /** Lenient reading only: the invalid objects and documents left out, each with its problem. */
  readonly leftOut?: readonly ValidationIssue[];
}

export interface ParseOptions {
  /**
   * Leave invalid objects out and report them (`leftOut`) instead of failing: `--keep-going`,
   * `?lenient=true`. The answer is then about the rest; the default stays strict.
   */
  readonly lenient?: boolean;
  /** Problems found before parsing (unparsable YAML documents), reported with the left-out objects. */
  readonly leftOut?: readonly ValidationIssue[];
}

/**
 * Counts by kind as `ignored` holds them, starting from `from`: an object without a prototype,
 * so a kind written `__proto__` or `constructor` is counted like any other word, not read from
 * (or written into) Object.prototype.
 */
export function kindCounts(from: Readonly<Record<string, number>> = {}): Record<string, number> {
  return Object.assign(Object.create(null) as Record<string, number>, from);
}

/** The counts of a snapshot with changes applied: the base's, plus those of the objects applied. */
export function addedKindCounts(base: Readonly<Record<string, number>>, applied: Readonly<Record<string, number>>): Record<string, number> {
  const out = kindCounts(base);
  for (const [kind, n] of Object.entries(applied)) out[kind] = (out[kind] ?? 0) + n;
  return out;
}

export type SnapshotParse = { ok: true; snapshot: ParsedSnapshot } | { ok: false; issues: ValidationIssue[] };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}


const MAX_LIST_DEPTH = 8;

/** API groups of other network-policy engines (cilium.io, projectcalico.org, crd.projectcalico.org): their objects are read as not evaluated, not as errors. */
const FOREIGN_POLICY_GROUPS = ['cilium.io', 'projectcalico.org'];

/**
 * The items of a List: `kind: List` (what kubectl prints for several resources) or a typed
 * list (`NetworkPolicyList`, `DeploymentList`, as `kubectl get netpol -o yaml` prints over the
 * API's list type), whose items may leave out `apiVersion` and `kind`: "Items is the list of
 * <Kind>" (the list's apiVersion, its kind without `List`). Null when `v` is not a List.
 */
export function listItems(v: unknown): unknown[] | null {
  if (!isObject(v) || typeof v.kind !== 'string' || !v.kind.endsWith('List') || !Array.isArray(v.items)) return null;
  if (v.kind === 'List') return v.items;
  const kind = v.kind.slice(0, -'List'.length);
  const apiVersion = typeof v.apiVersion === 'string' ? v.apiVersion : undefined;
  return v.items.map((item) => (isObject(item) && item.kind === undefined ? { ...(apiVersion && item.apiVersion === undefined ? { apiVersion } : {}), kind, ...item } : item));
}

/**
 * Flattens nested Lists (kubectl prints one per `get` when several are concatenated),
 * iteratively and to a bounded depth, so hostile nesting cannot exhaust the stack.
 */
function flatten(raw: unknown[], base: string, out: { item: unknown; path: string }[], issues: ValidationIssue[]): void {
  const stack: { items: unknown[]; path: string; depth: number; next: number }[] = [{ items: raw, path: base, depth: 0, next: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next >= top.items.length) {
      stack.pop();
      continue;
    }
    const i = top.next++;
    const item = top.items[i];
    const path = `${top.path}[${i}]`;
    const items = listItems(item);
    if (items) {
      if (top.depth + 1 > MAX_LIST_DEPTH) issues.push({ path, message: `Lists nested deeper than ${MAX_LIST_DEPTH} levels are not accepted` });
      else stack.push({ items, path: `${path}.items`, depth: top.depth + 1, next: 0 });
    } else out.push({ item, path });
  }
}

export function parseSnapshot(raw: unknown, base = '$', options: ParseOptions = {}): SnapshotParse {
  let list: unknown[];
  let listPath: string;
  let resourceVersion: string | undefined;
  if (Array.isArray(raw)) {
    list = raw;
    listPath = base;
  } else if (isObject(raw) && Array.isArray(raw.items)) {
    list = listItems(raw) ?? raw.items;
    listPath = `${base}.items`;
    const meta = raw.metadata;
    if (isObject(meta) && typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '') resourceVersion = meta.resourceVersion;
  } else {
    return { ok: false, issues: [{ path: base, message: 'a snapshot must be a Kubernetes List ({"kind": "List", "items": [...]}), an object with "items", or an array of objects' }] };
  }

  const entries: { item: unknown; path: string }[] = [];
  const nesting: ValidationIssue[] = [];
  flatten(list, listPath, entries, nesting);
  if (nesting.length > 0) return { ok: false, issues: nesting.slice(0, 1) };
  if (entries.length > SNAPSHOT_LIMITS.maxObjects) {
    return { ok: false, issues: [{ path: listPath, message: `too many objects: ${entries.length} (the limit is ${SNAPSHOT_LIMITS.maxObjects})` }] };
  }

  const issues: ValidationIssue[] = [];
  const objects: SnapshotObject[] = [];
  const ignored = kindCounts();
  const seen = new Map<string, string>();

  const leftOut: ValidationIssue[] = [...(options.leftOut ?? [])];
  let lastAccepted: SnapshotObject | null = null;
  for (const { item, path } of entries) {
    const before = issues.length;
    accept(item, path);
    // Lenient: an object with a problem is left out, its problems reported; the rest is answered.
    if (options.lenient && issues.length > before) {
      leftOut.push(...issues.splice(before));
      if (objects.length > 0 && objects[objects.length - 1] === lastAccepted) {
        objects.pop();
        for (const [k, at] of seen) if (at === path) seen.delete(k);
      }
    }
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, snapshot: { objects, ignored, resourceVersion, paths: seen, ...(options.lenient ? { leftOut } : {}) } };

  function accept(item: unknown, path: string): void {
    lastAccepted = null;
    if (!isObject(item)) {
      issues.push({ path, message: 'each item must be a Kubernetes object' });
      return;
    }
    const apiVersion = typeof item.apiVersion === 'string' ? item.apiVersion : undefined;
    const kind = typeof item.kind === 'string' ? item.kind : undefined;
    const meta = isObject(item.metadata) ? item.metadata : {};
    const identity = {
      apiVersion,
      kind,
      namespace: typeof meta.namespace === 'string' ? meta.namespace : undefined,
      name: typeof meta.name === 'string' ? meta.name : undefined,
    };
    if (!apiVersion || !kind) {
      issues.push({ path: apiVersion ? `${path}.kind` : `${path}.apiVersion`, message: 'apiVersion and kind must be set', object: identity });
      return;
    }
    // Another version of a workload (extensions/v1beta1 Deployment, Kruise's Advanced StatefulSet): read as its apps/v1 kind.
    const current = currentWorkload(apiVersion, kind, item);
    if (current) item = current;
    const schema = kindSchema(`${current ? current.apiVersion : apiVersion}/${kind}`);
    if (!schema) {
      const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
      if (FOREIGN_POLICY_GROUPS.some((g) => group === g || group.endsWith(`.${g}`))) {
        // Cilium's and Calico's own policies select and allow traffic too; counted apart so the warning says they are not evaluated.
        const key = `${kind} (${apiVersion})`;
        ignored[key] = (ignored[key] ?? 0) + 1;
      } else if (['NetworkPolicy', 'AdminNetworkPolicy', 'BaselineAdminNetworkPolicy', 'ClusterNetworkPolicy', ...WORKLOAD_KIND_NAMES].includes(kind)) {
        const supported = [...SUPPORTED_KINDS.filter((k) => k.endsWith(`/${kind}`)).map((k) => k.slice(0, -kind.length - 1)), ...legacyVersionsOf(kind)];
        issues.push({ path: `${path}.apiVersion`, message: `unsupported apiVersion "${apiVersion}" for ${kind}; supported: ${supported.join(', ')}`, object: identity });
      } else if (miscasedKind(kind)) {
        issues.push({ path: `${path}.kind`, message: miscasedKindMessage(kind), object: identity });
      } else {
        // A kind netpolc reads, of another API group (Knative's serving.knative.dev/v1 Service):
        // named with its apiVersion, so the warning does not read as if Services were ignored.
        const key = KIND_BY_LOWER.get(kind.toLowerCase()) === kind ? `${kind} of ${apiVersion}` : kind;
        ignored[key] = (ignored[key] ?? 0) + 1;
      }
      return;
    }
    const parsed = schema.safeParse(item);
    if (!parsed.success) {
      for (const i of parsed.error.issues) issues.push({ path: formatPath(path, i.path), message: i.message, object: identity });
      return;
    }
    const obj = parsed.data as SnapshotObject;
    // Kept in key order, as parsed (k8s/meta.ts sortedObject).
    if (NAMESPACED_KINDS.has(obj.kind) && !obj.metadata.namespace) obj.metadata = inKeyOrder({ ...obj.metadata, namespace: 'default' });
    issues.push(...semanticIssues(obj, path, identity));
    // Kinds are unique across the accepted groups; extensions/v1beta1 and networking.k8s.io/v1
    // NetworkPolicies are the same resource served twice, so one name is one object.
    const key = objectKey({ kind, namespace: obj.metadata.namespace, name: obj.metadata.name });
    const dup = seen.get(key);
    if (dup) issues.push({ path, message: `duplicate object: the same ${kind} appears at ${dup}`, object: identity });
    else seen.set(key, path);
    objects.push(obj);
    lastAccepted = obj;
  }
}
