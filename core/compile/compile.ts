// Compiles a cluster into per-node rule tables: one ingress and one egress table per pod,
// computed once per policy signature and shared by content address.
// Stages: group (signatures) → classes (peer identity classes) → partition (cells, verdicts)
// → emit (rules) → combine (node-global table).
import type { Cluster } from '../cluster.js';
import { formatIp, type IpAddr } from '../net/ip.js';
import type { Direction } from '../policy/model.js';
import { globalOfRuns, type GlobalPod } from './combine.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { addressIndex } from './address-index.js';
import { baseClassing, featuresOf, isBroad, refineClassing, type BaseClassing, type Feature } from './classes.js';
import { emitTable } from './emit.js';
import { FLAT_LIMITS, nodeOverLimit, TableOverLimit, tableOverLimit, type FlatLimits } from './flat-limits.js';
import { CompileScratch } from './scratch.js';
import { groupsByIdentity, type Group } from './group.js';
import type { Ir, IrNode, IrPod, IrRule } from './ir.js';
import { partition } from './partition.js';
import { canonicalOfRuns, rulesOfRuns, type RuleRun } from './runs.js';
import { concatCanonical, idOfCanonical, type Sha256Hex } from './table-id.js';
import { clusterNodeNames } from '../snapshot/node-names.js';
import { nameRecord } from '../names-record.js';

export interface CompileOptions {
  /** Only these nodes (all by default). */
  readonly nodes?: readonly string[];
  /** SHA-256 for table ids; the portable one by default (table-id.ts). */
  readonly sha256Hex?: Sha256Hex;
  /** What the flat form may cost (flat-limits.ts); FLAT_LIMITS by default. */
  readonly limits?: FlatLimits;
}

export interface CompileStats {
  readonly pods: number;
  readonly groups: number;
  readonly tables: number;
  readonly rules: number;
}

/** A signature's table: its runs (for canonical forms) and its rules (for the IR). */
interface SignatureTable {
  readonly runs: readonly RuleRun[];
  readonly rules: readonly IrRule[];
}

interface Pending {
  readonly group: Group;
  readonly features: readonly Feature[];
  readonly broadKey: string;
}

/**
 * One table per policy signature. Signatures are compiled ordered by their set of broad
 * features, so each base classing is built once and dropped once its signatures are done.
 */
function compileSignatures(cluster: Cluster, pending: ReadonlyMap<string, Pending>, limits: FlatLimits): Map<string, SignatureTable> {
  const index = addressIndex(cluster);
  const order = [...pending.entries()].sort(([ka, a], [kb, b]) => (a.broadKey < b.broadKey ? -1 : a.broadKey > b.broadKey ? 1 : ka < kb ? -1 : ka > kb ? 1 : 0));
  const out = new Map<string, SignatureTable>();
  let base = null as { key: string; classing: BaseClassing } | null;
  const scratch = new CompileScratch();
  for (const [signature, { group, features, broadKey }] of order) {
    if (base?.key !== broadKey) base = { key: broadKey, classing: baseClassing(cluster, features.filter((f) => isBroad(index, f)), scratch) };
    const classing = refineClassing(cluster, base.classing, features.filter((f) => !isBroad(index, f)), scratch);
    let runs: RuleRun[];
    try {
      runs = emitTable(partition(cluster, group, classing, limits.verdictsPerTable), group.dir, scratch, limits.rulesPerNode);
    } catch (e) {
      if (e instanceof TableOverLimit) throw tableOverLimit(group.dir, group.representative.key, e);
      throw e;
    }
    out.set(signature, { runs, rules: rulesOfRuns(runs) });
  }
  return out;
}

export function compile(cluster: Cluster, opts: CompileOptions = {}): { ir: Ir; stats: CompileStats } {
  const want = opts.nodes ? new Set(opts.nodes) : null;
  const nodeNames = clusterNodeNames(cluster);
  const index = addressIndex(cluster);

  // Pass 1: the signature of every compiled pod and direction. Host-network pods get no tables:
  // they are not policy subjects.
  const subjects = cluster.pods.filter((pod) => pod.nodeName !== null && (!want || want.has(pod.nodeName)) && !pod.hostNetwork && pod.ips.length > 0);
  const pending = new Map<string, Pending>();
  const signatureOf = new Map<PodInfo, Record<Direction, string>>();
  const subjectsOn = new Map<string, PodInfo[]>();
  const groupOf = groupsByIdentity(cluster);
  for (const pod of subjects) {
    const sig = {} as Record<Direction, string>;
    for (const dir of ['ingress', 'egress'] as const) {
      const group = groupOf(pod, dir);
      sig[dir] = group.signature;
      if (!pending.has(group.signature)) {
        const features = featuresOf(cluster, group);
        pending.set(group.signature, { group, features, broadKey: features.filter((f) => isBroad(index, f)).map((f) => f.id).join(',') });
      }
    }
    signatureOf.set(pod, sig);
    const onNode = subjectsOn.get(pod.nodeName!);
    if (onNode) onNode.push(pod);
    else subjectsOn.set(pod.nodeName!, [pod]);
  }

  // Pass 2: each signature's table, once.
  const limits = opts.limits ?? FLAT_LIMITS;
  const bySignature = compileSignatures(cluster, pending, limits);
  const hash = opts.sha256Hex;
  // Canonical forms of the shared tables, encoded once: a node's ingress tables are its
  // node-address rules followed by a shared table.
  const canonical = new Map<string, string>();
  const canonicalOf = (signature: string) => canonical.get(signature) ?? canonical.set(signature, canonicalOfRuns(bySignature.get(signature)!.runs)).get(signature)!;
  const egressIds = new Map<string, string>();

  // Pass 3: per node, bindings and the node's tables.
  const nodes = nameRecord<IrNode>();
  let pods = 0;
  let rules = 0;
  const allTables = new Set<string>();
  for (const nodeName of nodeNames) {
    if (want && !want.has(nodeName)) continue;
    const nodeIps: readonly IpAddr[] = cluster.nodeByName.get(nodeName)?.ips ?? [];
    const podEntries: Record<string, IrPod> = {};
    const tables: Record<string, readonly IrRule[]> = {};
    // "The node's own addresses are permitted into its pods": one leading rule per address,
    // so the rest of the table is compiled once per signature and shared across nodes.
    const nodeRuns: RuleRun[] =
      nodeIps.length === 0
        ? []
        : [
            {
              action: 'PERMIT',
              protocol: 'ANY',
              srcPortRange: null,
              dstPortRange: null,
              varies: 'srcNetwork',
              fixed: '',
              networks: nodeIps.map((ip) => `${formatIp(ip.family, ip.value)}/${ip.family === 4 ? 32 : 128}`),
              family: nodeIps.every((ip) => ip.family === nodeIps[0]!.family) ? nodeIps[0]!.family : undefined,
            },
          ];
    const nodeRules = rulesOfRuns(nodeRuns);
    const nodeCanonical = canonicalOfRuns(nodeRuns);
    const ingressIds = new Map<string, string>();
    // Rules in the node's distinct tables so far, and then in its global table, against the limit.
    let ruleTotal = 0;
    const tooMany = () => nodeOverLimit(nodeName, limits);
    const tableFor = (signature: string, dir: Direction): string => {
      const prefixed = dir === 'ingress' && nodeRules.length > 0;
      const ids = prefixed ? ingressIds : egressIds;
      let id = ids.get(signature);
      if (id === undefined) {
        id = idOfCanonical(prefixed ? concatCanonical(nodeCanonical, canonicalOf(signature)) : canonicalOf(signature), hash);
        ids.set(signature, id);
      }
      if (!tables[id]) {
        const table = prefixed ? nodeRules.concat(bySignature.get(signature)!.rules) : bySignature.get(signature)!.rules;
        tables[id] = table;
        if ((ruleTotal += table.length) > limits.rulesPerNode) throw tooMany();
      }
      return id;
    };
    const globalPods: [string, GlobalPod][] = [];
    for (const pod of subjectsOn.get(nodeName) ?? []) {
      const sig = signatureOf.get(pod)!;
      const ips = pod.ips.map((ip) => formatIp(ip.family, ip.value));
      podEntries[pod.key] = { ips, ingress: tableFor(sig.ingress, 'ingress'), egress: tableFor(sig.egress, 'egress') };
      globalPods.push([pod.key, { ips, parts: [nodeRuns, bySignature.get(sig.ingress)!.runs] }]);
      pods++;
    }
    // Contiv's node-global table (from-pod orientation): local pods' ingress rules for traffic entering the node.
    globalPods.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const global = globalOfRuns(globalPods.map(([, p]) => p), 'from-pod', limits.rulesPerNode - ruleTotal, tooMany);
    const globalId = idOfCanonical(global.canonical, hash);
    tables[globalId] = global.rules;
    const sortedTables = Object.fromEntries(Object.keys(tables).sort().map((id) => [id, tables[id]!]));
    for (const [id, t] of Object.entries(sortedTables)) {
      allTables.add(id);
      rules += t.length;
    }
    nodes[nodeName] = { pods: podEntries, tables: sortedTables, global: globalId };
  }
  return { ir: { nodes }, stats: { pods, groups: pending.size, tables: allTables.size, rules } };
}
