// `npx tsx bench/preview.ts [S|M|L] [--no-tables] [--broad] [--np-only]`: a GitOps preview on a generated
// snapshot (bench/generate.ts). The head is the base with one NetworkPolicy and one
// AdminNetworkPolicy changed, as a pull request would change them:
//  - the first `allow-<app>-from-clients` NetworkPolicy of a prod namespace loses its first
//    client and opens TCP 9090 to the others (flows removed and added);
//  - the `partner-egress` ANP allows one more partner network, 192.0.2.0/24 (flows added), or
//    with --broad, `prod-isolation` denies staging as well as dev (prod × staging: many pairs);
//    with --np-only, no AdminNetworkPolicy changes (a pull request of one team's policy: the
//    head's set form is then compiled from the base's for the pods that policy selects).
// Prints the time of each preview stage, the connectivity preview without the rule-table
// delta, and the table delta on its own (it compiles both snapshots).
import { generateSnapshot, SIZES, type K8sObject, type SizeName } from './generate.js';
import { preview, type PreviewStage } from '../core/preview/index.js';
import { parseSnapshot, type ParsedSnapshot } from '../schemas/snapshot.js';

const args = process.argv.slice(2);
const size = (args.find((a) => /^[SML]$/.test(a)) ?? 'M') as SizeName;
const withTables = !args.includes('--no-tables');
const broad = args.includes('--broad');
const npOnly = args.includes('--np-only');

type Spec = Record<string, any>;

function changed(items: K8sObject[]): { items: K8sObject[]; what: string[] } {
  const out = structuredClone(items);
  const what: string[] = [];
  const np = out.find((o) => o.kind === 'NetworkPolicy' && /^allow-.*-from-clients$/.test(o.metadata.name) && (o.spec as Spec).ingress[0].from.length > 1 && /prod/.test(o.metadata.namespace ?? ''));
  if (!np) throw new Error('no prod allow-*-from-clients NetworkPolicy with two clients');
  const rule = (np.spec as Spec).ingress[0];
  rule.from = rule.from.slice(1);
  rule.ports = [...rule.ports, { protocol: 'TCP', port: 9090 }];
  what.push(`NetworkPolicy ${np.metadata.namespace}/${np.metadata.name}: first client removed, TCP 9090 added`);
  if (npOnly) return { items: out, what };
  const anpName = broad ? 'prod-isolation' : 'partner-egress';
  const anp = out.find((o) => o.kind === 'AdminNetworkPolicy' && o.metadata.name === anpName)!;
  const spec = anp.spec as Spec;
  if (broad) {
    spec.ingress[0].from = [{ namespaces: { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev', 'staging'] }] } }];
    what.push('AdminNetworkPolicy prod-isolation: ingress denies staging as well as dev');
  } else {
    spec.egress[0].to[0].networks = [...spec.egress[0].to[0].networks, '192.0.2.0/24'];
    what.push('AdminNetworkPolicy partner-egress: 192.0.2.0/24 added');
  }
  return { items: out, what };
}

function parsed(raw: unknown): ParsedSnapshot {
  const p = parseSnapshot(raw);
  if (!p.ok) throw new Error(JSON.stringify(p.issues.slice(0, 3)));
  return p.snapshot;
}

const ms = (t0: number) => Math.round(performance.now() - t0);

const list = generateSnapshot(SIZES[size]);
const head = changed(list.items);
let t0 = performance.now();
const snapshots = { base: parsed(list), head: parsed({ ...list, items: head.items }) };
const parseMs = ms(t0);

const run = (tables: boolean) => {
  const stages: Partial<Record<PreviewStage, number>> = {};
  const stage = <T>(name: PreviewStage, fn: () => T): T => {
    const s = performance.now();
    const out = fn();
    stages[name] = ms(s);
    return out;
  };
  const s = performance.now();
  const result = preview(snapshots, { tables, stage });
  return { result, stages, total: ms(s) };
};

console.log(`preview bench, size ${size}: ${list.items.length} objects; parse of both snapshots ${parseMs} ms`);
for (const w of head.what) console.log(`  change: ${w}`);
const connectivity = run(false);
const { summary } = connectivity.result;
console.log(`connectivity preview (no rule tables): ${connectivity.total} ms  ${JSON.stringify(connectivity.stages)}`);
console.log(`  classes: ${summary.classes.pods} pod, ${summary.classes.nodes} node, ${summary.classes.external} external; candidate class pairs ${summary.work.pairs}; side evaluations ${summary.work.evaluations} (${summary.work.sides} sides computed, ${summary.work.sidesReused} reused)`);
console.log(`  removed: ${summary.removed.aggregates} aggregates, ${summary.removed.pairs} endpoint pairs; added: ${summary.added.aggregates} aggregates, ${summary.added.pairs} endpoint pairs`);
console.log(`  class changes (parts): ${connectivity.result.changes.reduce((n, a) => n + a.parts.length, 0)}`);
for (const a of connectivity.result.changes.slice(0, 5)) console.log(`  ${a.change} ${a.pairs} pairs ${a.ports}: ${a.before.text} → ${a.after.text}`);
if (withTables) {
  t0 = performance.now();
  const full = run(true);
  const nodes = Object.keys(full.result.tables!.nodes).length;
  console.log(`with the rule-table delta: ${full.total} ms (tables stage ${full.stages.tables} ms: ${nodes} nodes change, ${full.result.tables!.unchangedNodes} unchanged)`);
}
