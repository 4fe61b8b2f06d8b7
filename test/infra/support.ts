// Snapshots to publish and clients that misbehave on purpose, for the store tests.
import { afterAll, beforeAll } from 'vitest';
import { startLocalDynamo, type LocalDynamo } from '../../infra/dynamodb-local.js';
import type { ItemBackend } from '../../infra/store/backend.js';
import { DynamoDbBackend } from '../../infra/store/dynamodb.js';
import { MemoryBackend } from '../../infra/store/memory.js';
import { createSnapshotStore } from '../../infra/store/snapshot-store.js';
import { readFileSync } from 'node:fs';
import { buildCluster } from '../../core/cluster.js';
import { portableSha256Hex } from '../../core/compile/table-id.js';
import { compileSets } from '../../core/sets/compile.js';
import { IdRecord } from '../../core/sets/id-record.js';
import { SET_IR_VERSION, type IrSet, type RuleTable, type SetNode, type SetPod } from '../../core/sets/ir.js';
import { contentId } from '../../core/sets/ids.js';
import { createDynamoDbClient } from '../../infra/store/dynamodb.js';
import type { CompiledSnapshot } from '../../infra/store/types.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import type { CompiledState } from '../../core/sets/next-version.js';
import { snapshotHash } from '../../core/snapshot/hash.js';

/** The README's example cluster, compiled by the real compiler. */
export function exampleSnapshot(): CompiledSnapshot {
  const raw: unknown = JSON.parse(readFileSync(new URL('../../examples/cluster.json', import.meta.url), 'utf8'));
  const parsed = parseSnapshot(raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const { ir, stats } = compileSets(buildCluster(parsed.snapshot));
  return { snapshotHash: 'example-1', objects: { Pod: stats.pods }, compile: stats, ir, items: parsed.snapshot.objects };
}

/** A table whose content is distinct per seed: an allow on its own port per seed. */
export function tableOf(seeds: readonly number[], direction: 'ingress' | 'egress' = 'ingress', set: string | null = null): RuleTable {
  return { direction, admin: [], networkPolicy: { isolated: true, rules: seeds.map((i) => ({ action: 'allow', set, ports: [['TCP', 1 + (i % 65000), 1 + (i % 65000)]] })) }, baseline: [] };
}

const id = (prefix: 'r' | 's', value: unknown) => contentId(prefix, JSON.stringify(value), portableSha256Hex);

/** An address set with `count` /32 members from `base` (its definition names `name`, so its id is stable). */
export function addressSet(name: string, count: number, base = 0): [string, IrSet] {
  const definition = { type: 'cidrs', cidrs: [name], except: [] } as const;
  const v4 = Array.from({ length: count }, (_, i) => `10.${((base + i) >> 16) & 255}.${((base + i) >> 8) & 255}.${(base + i) & 255}/32`);
  return [id('s', definition), { kind: 'addresses', definition: { type: 'cidrs', cidrs: [name], except: [] }, v4, v6: [], hash: contentId('m', JSON.stringify([v4, []]), portableSha256Hex) }];
}

export interface SyntheticSpec {
  readonly nodes: number;
  readonly podsPerNode: number;
  /** Changes the egress tables and the members of the shared set (and the hash): versions with different variants share ingress tables only. */
  readonly variant: number;
  /** Gives node-0 a set of this many members (~18 bytes each), to be stored in chunks. */
  readonly bigSetMembers?: number;
  readonly hash?: string;
}

export function syntheticSnapshot(spec: SyntheticSpec): CompiledSnapshot {
  const tables: Record<string, RuleTable> = {};
  const sets: Record<string, IrSet> = {};
  const nodes: Record<string, SetNode> = {};
  const add = (t: RuleTable): string => {
    const tid = id('r', t);
    tables[tid] = t;
    return tid;
  };
  // One set every node uses: its id stays, its members follow the variant.
  const [sharedId, shared] = addressSet('shared', 3, 1000 * spec.variant);
  sets[sharedId] = shared;
  for (let n = 0; n < spec.nodes; n++) {
    const pods: Record<string, SetPod> = {};
    const nodeSets = [sharedId];
    let big: string | null = null;
    if (n === 0 && spec.bigSetMembers) {
      const [bigId, set] = addressSet('big', spec.bigSetMembers, 13 * spec.variant);
      sets[bigId] = set;
      nodeSets.push(bigId);
      big = bigId;
    }
    const used = new Set<string>();
    for (let p = 0; p < spec.podsPerNode; p++) {
      const ingress = add(tableOf([p % 3], 'ingress', big && p === 0 ? big : sharedId));
      const egress = add(tableOf([1000 + spec.variant, p % 2], 'egress', sharedId));
      used.add(ingress).add(egress);
      pods[`ns-${n}/pod-${p}`] = { ips: [`10.244.${n}.${p + 1}`], ingress, egress };
    }
    nodes[`node-${n}`] = { addresses: [`172.18.${n >> 8}.${n & 255}`], pods, sets: nodeSets.sort(), tables: [...used].sort() };
  }
  const pods = spec.nodes * spec.podsPerNode;
  return {
    snapshotHash: spec.hash ?? `synthetic-${spec.variant}`,
    objects: { Pod: pods, Node: spec.nodes },
    compile: { pods, groups: 3, tables: Object.keys(tables).length, rules: 0, durationMs: 1 },
    ir: { version: SET_IR_VERSION, sets: IdRecord.fromObject(sets), tables: IdRecord.fromObject(tables), nodes },
    // No cluster objects behind synthetic tables; the example snapshot carries real ones.
    items: [],
  };
}

export type Send = (command: { readonly constructor: { readonly name: string }; readonly input: unknown }) => Promise<unknown>;
export type SendWrapper = (command: Parameters<Send>[0], send: Send) => Promise<unknown>;

/** A real client to the same endpoint whose send goes through `wrap` first (the SDK itself stays real). */
export function wrappedClient(endpoint: string, wrap: SendWrapper): ReturnType<typeof createDynamoDbClient> {
  const client = createDynamoDbClient({ endpoint, dummyCredentials: true });
  const send = client.send.bind(client) as unknown as Send;
  (client as unknown as { send: Send }).send = (command) => wrap(command, send);
  return client;
}

export const WRITES = new Set(['BatchWriteItemCommand', 'PutItemCommand', 'UpdateItemCommand']);

/** The same command class with another input (to send part of a batch). */
export function rebuild(command: Parameters<Send>[0], input: unknown): Parameters<Send>[0] {
  return new (command.constructor as new (input: unknown) => Parameters<Send>[0])(input);
}

/** Throws on the (n+1)-th write request, as a crash at that point would leave things. */
export function failAfterWrites(n: number): SendWrapper & { readonly fired: () => boolean } {
  let writes = 0;
  let fired = false;
  const wrap: SendWrapper = async (command, send) => {
    if (WRITES.has(command.constructor.name) && writes++ >= n) {
      fired = true;
      throw new Error(`injected failure at write ${n}`);
    }
    return send(command);
  };
  return Object.assign(wrap, { fired: () => fired });
}

/** A DynamoDB error as the SDK would throw it (matched by name). */
export function awsError(name: string): Error {
  const e = new Error(`injected ${name}`);
  e.name = name;
  return e;
}

/**
 * The two item backends every store test runs against: DynamoDB's API on an in-process dynalite
 * (started before the file's tests, closed after) and the in-memory one.
 */
export function realAndMemoryBackends(): Record<string, () => ItemBackend> {
  let local: LocalDynamo;
  beforeAll(async () => {
    local = await startLocalDynamo();
  });
  afterAll(async () => {
    await local.close();
  });
  return {
    dynamodb: () => new DynamoDbBackend({ client: local.client, tableName: local.tableName }),
    memory: () => new MemoryBackend(),
  };
}

/** A compiled state (and the change it was compiled from) as the store publishes it. */
export const compiledSnapshotOf = (state: CompiledState, change?: CompiledSnapshot['change']): CompiledSnapshot => ({
  snapshotHash: snapshotHash(state.snapshot.objects),
  objects: {},
  compile: { pods: 0, groups: 0, tables: state.ir.tables.size, rules: 0, sets: state.ir.sets.size },
  ir: state.ir,
  items: state.snapshot.objects,
  ...(change ? { change } : {}),
});

/** Every node's tables and set bodies of a version of cluster `c`, as a new process without a cache reads them. */
export async function bodiesRead(backend: ItemBackend, version: string, now: number): Promise<Record<string, unknown>> {
  const store = createSnapshotStore(backend, { now: () => now, contentCacheBytes: 0 });
  const out: Record<string, unknown> = {};
  for (const node of (await store.getHeader('c', version))!.nodes) {
    const m = (await store.getNodeTables('c', version, node))!;
    const bodies = await store.getSets(Object.values(m.sets), m.packIndex);
    const tables = await store.getTables(m.tableIds, m.packIndex);
    out[node] = { sets: Object.values(m.sets).map((id) => bodies.get(id) ?? 'missing'), tables: m.tableIds.map((id) => tables.get(id) ?? 'missing') };
  }
  return out;
}
