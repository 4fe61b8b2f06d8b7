// Response bodies of /v1/clusters/{cluster}/…: stored versions, the latest pointer and node
// tables (functions/routes/clusters.ts and node-tables.ts, functions/services/), and the members some of their errors add.
import { z } from '@hono/zod-openapi';
import { COMPILE_FORMATS } from '../formats.js';
import { ErrorSchema } from './verdicts.js';
import { SetIrSchema } from './compile.js';

const Counts = z.record(z.string(), z.number().int());

export const VersionSummarySchema = z
  .object({
    cluster: z.string(),
    version: z.string(),
    snapshotHash: z.string().openapi({ description: 'SHA-256 of the snapshot objects: two versions with the same hash have the same content' }),
    nodeCount: z.number().int(),
    tableCount: z.number().int(),
    setCount: z.number().int().optional(),
    objects: Counts.openapi({ description: 'objects read, by kind' }),
    ignored: Counts.optional().openapi({ description: 'objects of kinds netpolc does not read, by kind' }),
    compile: z.object({ pods: z.number().int(), groups: z.number().int(), tables: z.number().int(), rules: z.number().int(), sets: z.number().int().optional(), members: z.number().int().optional(), durationMs: z.number().optional() }).loose(),
    publishedAt: z.string(),
    expiresAt: z.string().nullable().openapi({ description: 'null while the version is latest' }),
  })
  .loose()
  .openapi('VersionSummary');

export const VersionHeaderSchema = VersionSummarySchema.extend({ nodes: z.array(z.string()) }).openapi('VersionHeader');

export const VersionPageSchema = z.object({
  versions: z.array(VersionSummarySchema),
  cursor: z.string().nullable().openapi({ description: 'pass back as ?cursor= for the next page; null when there is none' }),
});

export const PublishResponseSchema = z
  .object({
    cluster: z.string(),
    version: z.string(),
    status: z.enum(['created', 'unchanged']),
    latest: z.boolean().openapi({ description: 'whether the version is now the latest' }),
    header: VersionHeaderSchema,
    versionDerived: z.boolean().optional().openapi({ description: 'POST without a resourceVersion: the version was derived from the content' }),
    message: z.string().optional(),
    base: z.string().optional().openapi({ description: 'a version from changes: the base version' }),
    changed: z.number().int().optional().openapi({ description: 'a version from changes: objects changed (an object sent as the base holds it once read, such as a workload or pod whose status alone changed, is none)' }),
    incremental: z.boolean().optional().openapi({ description: 'a version from changes: compiled from the base incrementally' }),
    warm: z.boolean().optional().openapi({ description: "a version from changes: the base's compiled state was in memory" }),
  })
  .openapi('PublishResult');

export const LatestMovedSchema = z.object({ cluster: z.string(), latest: z.string(), previous: z.string().nullable() });

const Json = z.record(z.string(), z.unknown());
const Whole = { cluster: z.string(), node: z.string(), version: z.string(), full: z.literal(true) };
const Delta = { cluster: z.string(), node: z.string(), from: z.string(), to: z.string(), full: z.literal(false) };
export const NodeTablesResponseSchema = z
  .union([
    z.object({ ...Whole, format: z.literal('ir'), ir: SetIrSchema }),
    z.object({ ...Delta, format: z.literal('ir'), delta: Json.openapi({ description: 'sets added, removed and changed (members), tables added and removed, bindings changed' }) }),
    z.object({ ...Whole, pods: Json, tables: Json, global: z.string().nullable() }).openapi({ description: 'format=ir-flat' }),
    z.object({ ...Delta, tablesAdded: Json, tablesRemoved: z.array(z.string()), bindingsChanged: Json, global: z.string().nullable() }).openapi({ description: 'format=ir-flat&since=' }),
    z.object({ ...Whole, format: z.enum(COMPILE_FORMATS), rendered: Json }).openapi({ description: 'a dataplane format rendered as JSON' }),
    z.object({ ...Delta, format: z.literal('iptables'), rendered: Json.openapi({ description: 'ipset, ipv4, ipv6, hooks and cleanup' }) }),
  ])
  .openapi('NodeTables', { description: "A node's part of a stored version: whole (full: true) or the delta from `since` (full: false)" });

/** Errors of stored-cluster writes: the latest version they were judged against, what did not read back. */
export const ClusterErrorSchema = ErrorSchema.extend({
  latest: z.string().nullable().optional().openapi({ description: '409/412: the latest version (null: the cluster has none)' }),
  version: z.string().optional().openapi({ description: '412 with stored: the version stored but not made latest' }),
  stored: z.boolean().optional().openapi({ description: '412: the version was stored before the check at the pointer swap failed' }),
  missing: z.array(z.string()).optional().openapi({ description: '409 on PUT …/latest: the items of the version that do not read back' }),
}).openapi('ClusterError');

export const HealthSchema = z.object({ status: z.literal('ok') });
const ComputeReadiness = z.string().optional().openapi({ description: 'the Node server: "N of M threads started" (requests that compute wait for a started thread); absent where requests compute on the thread that serves them' });
export const ReadinessSchema = z.object({ status: z.literal('ok'), store: z.string().openapi({ description: '"reachable", or "none configured"' }), compute: ComputeReadiness });
/** /readyz when the store cannot be read or no compute thread has started: the shared error members and the readiness members. */
export const UnreadySchema = ErrorSchema.extend({ status: z.literal('unavailable'), store: z.string().openapi({ description: '"reachable", "none configured", or unreachable: the cause' }), compute: ComputeReadiness }).openapi('Unready');

/** POST /v1/store/collect (infra/store/types.ts CollectResult). */
export const CollectResultSchema = z
  .object({
    versions: z.number().int().openapi({ description: 'versions whose items were kept (unexpired, or expired less than the grace ago)' }),
    marked: z.number().int().openapi({ description: 'content items those versions read' }),
    scanned: z.number().int().openapi({ description: 'content items found' }),
    deleted: z.number().int(),
    bytesFreed: z.number().int().openapi({ description: 'body bytes of the deleted items, every chunk' }),
    keptMarked: z.number().int(),
    keptYoung: z.number().int().openapi({ description: 'unreferenced, kept because stamped within the grace' }),
    keptLinked: z.number().int().openapi({ description: 'manifests kept because a kept manifest links to them' }),
    raced: z.number().int().openapi({ description: 'deletes that did not apply: a publish stamped the item meanwhile' }),
    graceSeconds: z.number().int(),
    cutoff: z.string().openapi({ description: 'ISO 8601: unreferenced items stamped before this were deleted' }),
  })
  .openapi('CollectResult');
