// Compiles a cluster into the set form (ir.ts): one tiered table per group of pods whose
// policies say the same thing (compile/group.ts), over sets shared by every table and node.
// Stages: group → tables (with their sets' definitions) → members (once per set) → nodes.
import type { Cluster } from '../cluster.js';
import { groupsByIdentity } from '../compile/group.js';
import { portableSha256Hex, type Sha256Hex } from '../compile/table-id.js';
import { formatIp } from '../net/ip.js';
import type { Direction } from '../policy/model.js';
import { SET_IR_VERSION, type IrSet, type RuleTable, type RuleTableId, type SetId, type SetIr, type SetNode, type SetPod } from './ir.js';
import { IdRecord } from './id-record.js';
import type { MemberChange } from './member-edit.js';
import { SetRegistry } from './registry.js';
import { RuleTables } from './tables.js';
import { tableId } from './texts.js';
import { byText, includesSorted, sortOnce } from '../sorted.js';
import { clusterNodeNames } from '../snapshot/node-names.js';
import { nameRecord, own } from '../names-record.js';

export interface SetCompileOptions {
  /** Only these nodes (all by default). */
  readonly nodes?: readonly string[];
  /** SHA-256 for ids; the portable one by default (compile/table-id.ts). */
  readonly sha256Hex?: Sha256Hex;
}

export interface SetCompileStats {
  readonly pods: number;
  /** Pod groups whose tables this run compiled (with reuse, only those of changed pods). */
  readonly groups: number;
  readonly tables: number;
  /** Set rules over all distinct tables. */
  readonly rules: number;
  readonly sets: number;
  /** Address blocks and port elements over all sets. */
  readonly members: number;
}


// A node's pods come in key order (the cluster lists them so): sorted only when they do not.
const byKey = <T>(entries: [string, T][]): Record<string, T> => Object.fromEntries(sortOnce(entries, (x, y) => byText(x[0], y[0])));

/** How the ids some node uses differ from the earlier version's. */
interface IdChange {
  /** Ids no earlier node used. */
  readonly added: readonly string[];
  /** Earlier ids no node uses any more. */
  readonly dropped: ReadonlySet<string>;
}

/** The used ids with their bodies (a compile without an earlier version). */
function record<T>(used: ReadonlySet<string>, body: (id: string) => T): IdRecord<T> {
  return IdRecord.of([...used].map((id) => [id, body(id)] as const));
}

/**
 * The earlier version's record with what changed (id-record.ts): ids that came with their
 * bodies, earlier ids whose bodies changed, ids that went. A pod change mostly changes members of
 * a few sets, not which sets and tables exist: the earlier record is shared, not copied.
 */
function recordAfter<T>(earlier: IdRecord<T>, change: IdChange, replaced: ReadonlyMap<string, T>, added: (id: string) => T): IdRecord<T> {
  const set = new Map(replaced);
  for (const id of change.added) set.set(id, added(id));
  return earlier.after({ set, dropped: change.dropped });
}

const rulesOf = (t: RuleTable) => t.admin.length + t.networkPolicy.rules.length + t.baseline.length;
const membersOf = (s: IrSet) => (s.kind === 'addresses' ? s.v4.length + s.v6.length : s.elements.length);

/**
 * Tables, rules, sets and members of a set form. From an earlier version, its counts move by the
 * ids that came and went and the sets whose members were resolved again (a table's id is its
 * content), instead of counting 10⁵ entries again.
 */
function counts(ir: SetIr, reuse: SetReuse | undefined, change: { sets: IdChange; tables: IdChange; newSets: readonly SetId[] } | null): Pick<SetCompileStats, 'tables' | 'rules' | 'sets' | 'members'> {
  const before = reuse?.earlierStats;
  if (before?.members !== undefined && before.sets !== undefined && change) {
    const earlier = reuse!.earlier;
    let { tables, rules, sets, members } = before;
    for (const id of change.tables.added) [tables, rules] = [tables + 1, rules + rulesOf(ir.tables.get(id)!)];
    for (const id of change.tables.dropped) [tables, rules] = [tables - 1, rules - rulesOf(earlier.tables.get(id)!)];
    for (const id of change.newSets) members += membersOf(ir.sets.get(id)!) - (earlier.sets.has(id) ? membersOf(earlier.sets.get(id)!) : 0);
    for (const id of change.sets.dropped) members -= membersOf(earlier.sets.get(id)!);
    sets += change.sets.added.length - change.sets.dropped.size;
    return { tables, rules, sets, members };
  }
  let rules = 0;
  for (const [, t] of ir.tables.entries()) rules += rulesOf(t);
  let members = 0;
  for (const [, set] of ir.sets.entries()) members += membersOf(set);
  return { tables: ir.tables.size, rules, sets: ir.sets.size, members };
}

/** The sets a table names. */
function setsOf(table: RuleTable): SetId[] {
  const out: SetId[] = [];
  for (const tier of [table.admin, table.networkPolicy.rules, table.baseline]) for (const r of tier) if (r.set !== null) out.push(r.set);
  return out;
}

/**
 * What a compile may take from an earlier version's set form instead of computing it
 * (incremental.ts decides what cannot have changed). Without it, everything is computed.
 */
export interface SetReuse {
  /** A pod's binding (addresses and table ids), when it cannot differ from the earlier version's. */
  bindings(pod: Cluster['pods'][number]): SetPod | undefined;
  /** A pod's table for one direction, when that cannot differ from the earlier version's though its binding may. */
  keptTable?(pod: Cluster['pods'][number], dir: Direction): RuleTableId | undefined;
  /**
   * A pod's earlier table for one direction, when its NetworkPolicy and Baseline tiers cannot
   * differ from that table's though its Admin tier may (only Admin-tier policies changed for it).
   */
  keptTiers?(pod: Cluster['pods'][number], dir: Direction): RuleTable | undefined;
  /** A table of the earlier version, by id. */
  table(id: RuleTableId): RuleTable | undefined;
  /**
   * Sets of the earlier version whose members may differ (a changed pod may be in them on one
   * side only, or with other addresses or ports), each with what leaves and enters it, or null
   * when that cannot be told exactly (then it is resolved again). Every other earlier set keeps
   * its members, even when a changed pod's new table names it again.
   */
  memberChanges(): Iterable<MemberChange>;
  /** A node of the earlier version: kept as it is when its addresses and every binding are. */
  earlierNode(name: string): SetNode | undefined;
  /** The earlier node, when no changed pod was or is on it: kept without looking at its pods. */
  untouchedNode(name: string): SetNode | undefined;
  /** The earlier version's set form (every node compiled), to keep its set and table lists. */
  readonly earlier: SetIr;
  /** Its counts, when known: moved by what changed instead of counted again. */
  readonly earlierStats?: SetCompileStats | undefined;
}

/**
 * How the ids some node uses differ from the earlier version's: what touched nodes use now and
 * no earlier node did is added; what they (or nodes now gone) stopped using is dropped unless
 * another node still uses it.
 */
function usedAfter(earlierIds: IdRecord<unknown>, earlier: SetIr['nodes'], nodes: Record<string, SetNode>, touched: readonly string[], pick: (n: SetNode) => readonly string[]): IdChange {
  const added = new Set<string>();
  const candidates = new Set<string>();
  for (const name of new Set([...touched, ...Object.keys(earlier).filter((n) => !Object.hasOwn(nodes, n))])) {
    const [before, after] = [own(earlier, name), own(nodes, name)];
    // The same list (nodeOf keeps it when equal): nothing added or dropped.
    if (before && after && pick(before) === pick(after)) continue;
    for (const id of after ? pick(after) : []) if (!earlierIds.has(id)) added.add(id);
    for (const id of before ? pick(before) : []) if (!after || !includesSorted(pick(after), id)) candidates.add(id);
  }
  const all = Object.values(nodes);
  const dropped = new Set<string>();
  let listed = 0;
  for (const n of all) listed += pick(n).length;
  if (candidates.size * all.length > listed) {
    // A change that touches most nodes (a broad AdminNetworkPolicy edit: 10⁴ candidates over
    // 10³ nodes at L) reads every list once, rather than every list once per candidate.
    const used = new Set<string>();
    for (const n of all) for (const id of pick(n)) used.add(id);
    for (const id of candidates) if (!used.has(id)) dropped.add(id);
  } else for (const id of candidates) if (!all.some((n) => includesSorted(pick(n), id))) dropped.add(id);
  return { added: [...added], dropped };
}

/**
 * A node's bindings and the sets and tables they need, sorted. Lists equal to the earlier node's
 * are its arrays: what a version from changes stores is told by identity (a pod change on a
 * node rarely changes which sets it needs).
 */
function nodeOf(addresses: string[], pods: [string, SetPod][], tables: ReadonlySet<RuleTableId>, setsOfTable: (id: RuleTableId) => SetId[], earlier: SetNode | undefined): SetNode {
  const tableList = sameOr([...tables].sort(), earlier?.tables);
  // A table's id is its content, so the same tables name the same sets.
  if (earlier && tableList === earlier.tables) return { addresses, pods: byKey(pods), sets: earlier.sets, tables: tableList };
  const sets = new Set<SetId>();
  for (const id of tables) for (const s of setsOfTable(id)) sets.add(s);
  return { addresses, pods: byKey(pods), sets: sameOr([...sets].sort(), earlier?.sets), tables: tableList };
}

const sameOr = <T>(list: T[], earlier: readonly T[] | undefined): readonly T[] => (earlier && earlier.length === list.length && earlier.every((x, i) => x === list[i]) ? earlier : list);

/**
 * What a compile with reuse made anew, against the earlier version's set form: sets whose body
 * is new (a new id, or members resolved again), tables not in the earlier version, and nodes
 * whose record is new. Everything else is the earlier version's objects, as they were.
 */
export interface SetFormChange {
  readonly from: SetIr;
  readonly sets: readonly SetId[];
  /** Those of `sets` whose members were edited from the earlier members, not resolved again. */
  readonly edited: readonly SetId[];
  readonly tables: readonly RuleTableId[];
  readonly nodes: readonly string[];
}

export function compileSets(cluster: Cluster, opts: SetCompileOptions = {}, reuse?: SetReuse): { ir: SetIr; stats: SetCompileStats; change?: SetFormChange } {
  const want = opts.nodes ? new Set(opts.nodes) : null;
  const sha256Hex = opts.sha256Hex ?? portableSha256Hex;
  const registry = new SetRegistry(cluster, sha256Hex);
  const groupOf = groupsByIdentity(cluster);
  const ruleTables = new RuleTables(registry);
  const tableIdOf = new Map<string, RuleTableId>();
  const tables = new Map<RuleTableId, RuleTable>();
  const tableFor = (pod: Cluster['pods'][number], dir: Direction): RuleTableId => {
    const group = groupOf(pod, dir);
    let id = tableIdOf.get(group.signature);
    if (id === undefined) {
      // Pods of a group have the same tiers: the first pod's earlier table serves them all.
      const table = ruleTables.of(group, reuse?.keptTiers?.(pod, dir));
      id = tableId(table, sha256Hex);
      tableIdOf.set(group.signature, id);
      if (!tables.has(id)) tables.set(id, table);
    }
    return id;
  };

  const setsByTable = new Map<RuleTableId, SetId[]>();
  const tableBody = (id: RuleTableId): RuleTable => {
    const t = tables.get(id) ?? reuse?.table(id);
    if (!t) throw new Error(`table ${id} is neither compiled nor in the earlier version`);
    return t;
  };
  const setsOfTable = (id: RuleTableId): SetId[] => setsByTable.get(id) ?? setsByTable.set(id, setsOf(tableBody(id))).get(id)!;

  const podsOn = cluster.podsByNode;
  const nodeNames = clusterNodeNames(cluster);
  const nodes = nameRecord<SetNode>();
  const usedTables = new Set<RuleTableId>();
  const touched: string[] = [];
  let podCount = 0;
  // Pods on untouched nodes: counted from the earlier version's count when it is known (10⁵ pods at L).
  const earlierPods = reuse?.earlierStats?.pods;
  let untouchedPods = 0;
  let anyUntouched = false;
  for (const name of nodeNames) {
    if (want && !want.has(name)) continue;
    const untouched = reuse?.untouchedNode(name);
    if (untouched) {
      nodes[name] = untouched;
      anyUntouched = true;
      if (earlierPods === undefined) untouchedPods += Object.keys(untouched.pods).length;
      continue;
    }
    touched.push(name);
    const pods: [string, SetPod][] = [];
    const nodeTables = new Set<RuleTableId>();
    const earlier = reuse?.earlierNode(name);
    let allKept = earlier !== undefined;
    // Host-network pods and pods without addresses get no tables: they are not policy subjects.
    for (const pod of podsOn.get(name) ?? []) {
      if (pod.hostNetwork || pod.ips.length === 0) continue;
      const kept = reuse?.bindings(pod);
      if (kept) {
        nodeTables.add(kept.ingress).add(kept.egress);
        pods.push([pod.key, kept]);
        if (earlier?.pods[pod.key] !== kept) allKept = false;
        continue;
      }
      allKept = false;
      const ingress = reuse?.keptTable?.(pod, 'ingress') ?? tableFor(pod, 'ingress');
      const egress = reuse?.keptTable?.(pod, 'egress') ?? tableFor(pod, 'egress');
      nodeTables.add(ingress).add(egress);
      pods.push([pod.key, { ips: pod.ips.map((ip) => formatIp(ip.family, ip.value)), ingress, egress }]);
    }
    const addresses = (cluster.nodeByName.get(name)?.ips ?? []).map((ip) => formatIp(ip.family, ip.value));
    // The same bindings and addresses: the same node, its set and table lists included.
    const same = allKept && earlier !== undefined && Object.keys(earlier.pods).length === pods.length && earlier.addresses.join() === addresses.join();
    const node: SetNode = same ? earlier : nodeOf(addresses, pods, nodeTables, setsOfTable, earlier);
    // The sets used are those of the tables used (a node's sets are its tables' sets), each
    // table's listed once rather than once per node (10⁶ set ids over the nodes of L).
    if (!reuse) for (const t of node.tables) usedTables.add(t);
    podCount += pods.length;
    nodes[name] = node;
  }
  if (anyUntouched && earlierPods !== undefined) {
    // The earlier count less what the touched nodes (and the nodes gone) held then.
    untouchedPods = earlierPods;
    for (const name in reuse!.earlier.nodes) if (!Object.hasOwn(nodes, name) || !reuse!.untouchedNode(name)) untouchedPods -= Object.keys(reuse!.earlier.nodes[name]!.pods).length;
  }
  podCount += untouchedPods;
  const newSets: SetId[] = [];
  const edited: SetId[] = [];
  const resolved = (id: SetId): IrSet => {
    newSets.push(id);
    if (registry.has(id)) return registry.get(id);
    // A set this compile did not name (its pods' tables were kept): the earlier definition says what to resolve.
    const earlier = reuse?.earlier.sets.get(id);
    const set = earlier && registry.fromDefinition(id, earlier.definition);
    if (!set) throw new Error(`set ${id} is neither compiled nor resolvable from the earlier version`);
    return set;
  };
  let sets: IdRecord<IrSet>;
  let usedTableEntries: IdRecord<RuleTable>;
  let change: { sets: IdChange; tables: IdChange } | null = null;
  if (reuse) {
    change = { sets: usedAfter(reuse.earlier.sets, reuse.earlier.nodes, nodes, touched, (n) => n.sets), tables: usedAfter(reuse.earlier.tables, reuse.earlier.nodes, nodes, touched, (n) => n.tables) };
    const replaced = new Map<SetId, IrSet>();
    for (const { id, edit } of reuse.memberChanges()) {
      const earlier = reuse.earlier.sets.get(id);
      if (!earlier || change.sets.dropped.has(id)) continue;
      const set = edit && registry.edited(id, earlier, edit);
      // What left came back: the earlier body stays, and is not new.
      if (set === earlier) continue;
      if (set) {
        newSets.push(id);
        edited.push(id);
      }
      replaced.set(id, set ?? resolved(id));
    }
    sets = recordAfter(reuse.earlier.sets, change.sets, replaced, resolved);
    usedTableEntries = recordAfter(reuse.earlier.tables, change.tables, new Map(), tableBody);
  } else {
    const usedSets = new Set<SetId>();
    for (const t of usedTables) for (const s of setsOfTable(t)) usedSets.add(s);
    sets = record(usedSets, resolved);
    usedTableEntries = record(usedTables, tableBody);
  }
  const ir: SetIr = { version: SET_IR_VERSION, sets, tables: usedTableEntries, nodes };
  const stats: SetCompileStats = { pods: podCount, groups: tableIdOf.size, ...counts(ir, reuse, change ? { ...change, newSets } : null) };
  if (!reuse) return { ir, stats };
  const earlier = reuse.earlier;
  const formChange: SetFormChange = {
    from: earlier,
    sets: newSets,
    edited,
    tables: [...tables.keys()].filter((id) => usedTableEntries.has(id) && !earlier.tables.has(id)),
    nodes: touched.filter((name) => own(nodes, name) !== own(earlier.nodes, name)),
  };
  return { ir, stats, change: formChange };
}
