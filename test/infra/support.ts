// Snapshots to publish and clients that misbehave on purpose, for the store tests.
import { readFileSync } from 'node:fs';
import { buildCluster } from '../../core/cluster.js';
import { compile } from '../../core/compile/compile.js';
import type { IrNode, IrPod, IrRule } from '../../core/compile/ir.js';
import { tableId } from '../../core/compile/table-id.js';
import { createDynamoDbClient } from '../../infra/store/dynamodb.js';
import type { CompiledSnapshot } from '../../infra/store/types.js';
import { parseSnapshot } from '../../schemas/snapshot.js';

/** The README's example cluster, compiled by the real compiler. */
export function exampleSnapshot(): CompiledSnapshot {
  const raw: unknown = JSON.parse(readFileSync(new URL('../../examples/cluster.json', import.meta.url), 'utf8'));
  const parsed = parseSnapshot(raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const { ir, stats } = compile(buildCluster(parsed.snapshot));
  return { snapshotHash: 'example-1', objects: { Pod: stats.pods }, compile: stats, nodes: ir.nodes, items: parsed.snapshot.objects };
}

const CATCH_ALL: IrRule = { action: 'DENY', protocol: 'ANY', srcNetwork: '', srcPortRange: null, dstNetwork: '', dstPortRange: null };

/** Distinct rule per i: a /32 and a port, so tables built from different i's differ. */
export function rule(i: number): IrRule {
  return { action: 'PERMIT', protocol: 'TCP', srcNetwork: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/32`, srcPortRange: null, dstNetwork: '', dstPortRange: [1 + (i % 65000), 1 + (i % 65000)] };
}

export const tableOf = (seeds: readonly number[]): readonly IrRule[] => [...seeds.map(rule), CATCH_ALL];

export interface SyntheticSpec {
  readonly nodes: number;
  readonly podsPerNode: number;
  /** Changes the egress tables (and the hash): versions with different variants share ingress and global tables only. */
  readonly variant: number;
  /** Adds one table of this many rules to node-0's first pod (~74 bytes a rule). */
  readonly bigTableRules?: number;
  readonly hash?: string;
}

export function syntheticSnapshot(spec: SyntheticSpec): CompiledSnapshot {
  const nodes: Record<string, IrNode> = {};
  const ids = new Set<string>();
  for (let n = 0; n < spec.nodes; n++) {
    const pods: Record<string, IrPod> = {};
    const tables: Record<string, readonly IrRule[]> = {};
    const add = (rules: readonly IrRule[]): string => {
      const id = tableId(rules);
      tables[id] = rules;
      ids.add(id);
      return id;
    };
    for (let p = 0; p < spec.podsPerNode; p++) {
      const big = n === 0 && p === 0 && spec.bigTableRules;
      const ingress = add(big ? tableOf(Array.from({ length: spec.bigTableRules! }, (_, i) => 100_000 + 13 * spec.variant + i)) : tableOf([p % 3]));
      const egress = add(tableOf([1000 + spec.variant, p % 2]));
      pods[`ns-${n}/pod-${p}`] = { ips: [`10.244.${n}.${p + 1}`], ingress, egress };
    }
    nodes[`node-${n}`] = { pods, tables, global: add(tableOf([5000 + n])) };
  }
  const pods = spec.nodes * spec.podsPerNode;
  return {
    snapshotHash: spec.hash ?? `synthetic-${spec.variant}`,
    objects: { Pod: pods, Node: spec.nodes },
    compile: { pods, groups: 3, tables: ids.size, rules: 0, durationMs: 1 },
    nodes,
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
