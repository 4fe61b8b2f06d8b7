// Shared pieces of Kubernetes object metadata and label selectors, validated as the API
// server validates them (apimachinery validation.ValidateLabelSelector, ValidateLabels).
import { z } from '../zod.js';
import { isDns1123Subdomain, NAME_RULES, nameSchema, type NameRule } from './names.js';

/**
 * z.object with its shape's keys sorted. zod writes a parsed object's keys in shape order, so the
 * objects a snapshot parses to come out in canonical key order (as do label maps, sorted below),
 * and their canonical JSON, which the snapshot hash and the store write for every object, is
 * JSON.stringify's (core/snapshot/hash.ts canonicalJson). Every object schema of a Kubernetes
 * kind is made with it; a transform that builds an object writes its keys sorted.
 */
export function sortedObject<S extends z.ZodRawShape>(shape: S): z.ZodObject<S> {
  return z.object(Object.fromEntries(Object.keys(shape).sort().map((k) => [k, shape[k]])) as S);
}

/**
 * The same value with every object's keys in sorted order (see sortedObject), for what a
 * transform builds; parts already in order (and frozen values such as z.NEVER) are kept as they are.
 */
export function inKeyOrder<T>(v: T): T {
  if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return v;
  let changed = false;
  const keep = (x: unknown) => {
    const y = inKeyOrder(x);
    if (y !== x) changed = true;
    return y;
  };
  if (Array.isArray(v)) {
    const out = v.map(keep);
    return (changed ? out : v) as T;
  }
  const keys = Object.keys(v);
  changed = keys.some((k, i) => i > 0 && k < keys[i - 1]!);
  const entries = (changed ? [...keys].sort() : keys).map((k) => [k, keep((v as Record<string, unknown>)[k])] as const);
  return (changed ? Object.fromEntries(entries) : v) as T;
}

/** A map with its keys in sorted order (see sortedObject): itself when they already are. */
export function sortedRecord<T>(map: Record<string, T>): Record<string, T> {
  const keys = Object.keys(map);
  for (let i = 1; i < keys.length; i++) if (keys[i]! < keys[i - 1]!) return Object.fromEntries(keys.sort().map((k) => [k, map[k]!]));
  return map;
}

// Qualified name: optional DNS-subdomain prefix, "/", name of ≤63 chars (validation.IsQualifiedName).
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

export function isQualifiedName(key: string): boolean {
  const parts = key.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1]!;
  if (name.length === 0 || name.length > 63 || !NAME_PART.test(name)) return false;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (!isDns1123Subdomain(prefix)) return false;
  }
  return true;
}

// Label value: empty, or ≤63 chars of alphanumerics, '-', '_', '.', alphanumeric at both ends.
export function isLabelValue(v: string): boolean {
  return v === '' || (v.length <= 63 && NAME_PART.test(v));
}

const KEY_MESSAGE = 'must be a qualified name: an optional DNS subdomain prefix and "/", then at most 63 characters of alphanumerics, "-", "_" or ".", starting and ending with an alphanumeric';
const VALUE_MESSAGE = 'a label value must be empty or at most 63 characters of alphanumerics, "-", "_" or ".", starting and ending with an alphanumeric';
const LabelKey = z.string().refine(isQualifiedName, { message: KEY_MESSAGE });
const LabelValue = z.string({ error: 'a label value must be a string' }).refine(isLabelValue, { message: VALUE_MESSAGE });

/**
 * A label map, checked on the raw object's own keys: a record schema would drop a
 * `__proto__` key unchecked (JSON.parse makes it an own property), turning a selector into
 * the empty one that matches everything.
 */
export const LabelsSchema = z.unknown().transform((raw, ctx): Record<string, string> => {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    ctx.addIssue({ code: 'custom', message: 'must be a map of label keys to values' });
    return z.NEVER;
  }
  const out: Record<string, string> = {};
  for (const key of Object.keys(raw)) {
    const value = (raw as Record<string, unknown>)[key];
    if (!isQualifiedName(key)) ctx.addIssue({ code: 'custom', path: [key], message: `invalid label key ${JSON.stringify(key)}: ${KEY_MESSAGE}` });
    else if (typeof value !== 'string') ctx.addIssue({ code: 'custom', path: [key], message: 'a label value must be a string' });
    else if (!isLabelValue(value)) ctx.addIssue({ code: 'custom', path: [key], message: `invalid label value ${JSON.stringify(value)}: ${VALUE_MESSAGE}` });
    else out[key] = value;
  }
  // Checked in the order given (so are the issues), kept in key order.
  return sortedRecord(out);
});
export type LabelMap = z.infer<typeof LabelsSchema>;

export const LabelSelectorRequirementSchema = sortedObject({
    key: LabelKey,
    operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
    values: z.array(LabelValue).nullish().transform((v) => v ?? []),
  })
  .superRefine((req, ctx) => {
    const needsValues = req.operator === 'In' || req.operator === 'NotIn';
    if (needsValues && req.values.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['values'], message: `must be specified when \`operator\` is '${req.operator}'` });
    }
    if (!needsValues && req.values.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['values'], message: `may not be specified when \`operator\` is '${req.operator}'` });
    }
  });

// A field a label selector does not have (`matchLabel`, `matchExpression`) is refused, not
// dropped: dropped, the selector would be the empty one, which "selects all pods" (or all
// namespaces), and a policy meant for a few pods would apply to every one. The API server refuses
// it too under kubectl's default strict field validation ("unknown field").
const unknownSelectorFields = (keys: readonly string[]) =>
  `unknown field${keys.length === 1 ? '' : 's'} ${keys.map((k) => JSON.stringify(k)).join(', ')} in a label selector (it has matchLabels and matchExpressions); ignoring ${keys.length === 1 ? 'it' : 'them'} could widen what the selector picks, up to everything`;

// Keys in sorted order, as sortedObject writes them.
export const LabelSelectorSchema = z.strictObject(
  {
    matchExpressions: z.array(LabelSelectorRequirementSchema).nullish().transform((v) => v ?? []),
    matchLabels: LabelsSchema.nullish().transform((v) => v ?? {}),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? unknownSelectorFields(issue.keys) : undefined) },
);
export type LabelSelector = z.infer<typeof LabelSelectorSchema>;

/** A selector field where JSON null means the empty selector (kubectl prints `podSelector: {}` either way). */
export const NullableSelectorSchema = LabelSelectorSchema.nullish().transform((v) => v ?? { matchExpressions: [], matchLabels: {} });

/**
 * Object metadata whose name follows `rule`, as ValidateObjectMeta checks it with the kind's
 * name validation function; `metadata.namespace`, where given, is a DNS-1123 label
 * (ValidateObjectMeta: ValidateNamespaceName). `maxName`: a kind's own tighter limit.
 */
export function objectMeta(rule: NameRule, maxName = rule.max) {
  return sortedObject({
    name: nameSchema(rule, maxName),
    namespace: nameSchema(NAME_RULES.dns1123Label).optional(),
    labels: LabelsSchema.nullish().transform((v) => v ?? {}),
    annotations: z.record(z.string(), z.string()).nullish().transform((v) => (v ? sortedRecord(v) : {})),
    resourceVersion: z.string().optional(),
  });
}

/** Metadata of objects a controller manages (pods, ReplicaSets, Jobs). */
export function ownedMeta(rule: NameRule, maxName = rule.max) {
  return sortedObject({
    ...objectMeta(rule, maxName).shape,
    // "ownerReferences: List of objects depended by this object … If this object is managed by
    // a controller, then an entry in this list will point to this controller, with the
    // controller field set to true." Only what following a pod to its workload needs.
    ownerReferences: z
      .array(sortedObject({ kind: z.string().min(1, 'must be specified'), name: z.string().min(1, 'must be specified'), controller: z.boolean().nullish() }))
      .nullish()
      .transform((v) => v ?? []),
  });
}

/** Metadata of most kinds: names are DNS-1123 subdomains (NameIsDNSSubdomain; custom resources too). */
export const ObjectMetaSchema = objectMeta(NAME_RULES.dns1123Subdomain);
export const OwnedMetaSchema = ownedMeta(NAME_RULES.dns1123Subdomain);

export const Protocol = z.enum(['TCP', 'UDP', 'SCTP'], {
  error: 'supported values: "TCP", "UDP", "SCTP"',
});
export type Protocol = z.infer<typeof Protocol>;

export const PortNumber = z
  .number({ error: (issue) => (issue.input === undefined ? 'Required value' : 'must be an integer between 1 and 65535, inclusive') })
  .int('must be an integer between 1 and 65535, inclusive')
  .min(1, 'must be between 1 and 65535, inclusive')
  .max(65535, 'must be between 1 and 65535, inclusive');

// IANA_SVC_NAME (validation.IsValidPortName): ≤15 chars, lower-case alphanumerics and '-',
// at least one letter, no leading/trailing or double '-'.
export function isValidPortName(name: string): boolean {
  return (
    name.length >= 1 &&
    name.length <= 15 &&
    /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(name) &&
    !name.includes('--') &&
    /[a-z]/.test(name)
  );
}
export const PortName = z.string().refine(isValidPortName, {
  message: 'must be an IANA_SVC_NAME: at most 15 lower-case alphanumerics or "-", with at least one letter, not starting or ending with "-", no "--"',
});

/** intstr port: a number 1–65535 or an IANA_SVC_NAME, with a message for anything else. */
export const PortNumberOrName = z.unknown().transform((v, ctx): number | string => {
  const schema = typeof v === 'number' ? PortNumber : typeof v === 'string' ? PortName : null;
  if (!schema) {
    ctx.addIssue({ code: 'custom', message: 'must be a port number (1–65535) or a named port' });
    return z.NEVER;
  }
  const r = schema.safeParse(v);
  if (!r.success) {
    for (const i of r.error.issues) ctx.addIssue({ code: 'custom', message: i.message });
    return z.NEVER;
  }
  return r.data;
});
