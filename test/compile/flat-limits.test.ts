// The flat form refuses what it cannot hold as it counts (core/compile/flat-limits.ts): each
// limit at its exact boundary, and the refusal through the CLI, which has no other budget.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { compile } from '../../core/compile/compile.js';
import { FLAT_LIMITS, type FlatLimits } from '../../core/compile/flat-limits.js';
import { LimitError } from '../../core/limits.js';
import { VPP_ACL_LIMITS } from '../../core/render/vpp-acl.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { run } from '../support/cli.js';
import { exceptedPorts } from '../support/hostile.js';

const INSTEAD = 'the set form (format=ir) and the formats that keep sets (nftables, iptables) hold these policies without expanding them';
const list = (items: unknown[]) => ({ apiVersion: 'v1', kind: 'List', items });

describe('flat form limits', () => {
  const parsed = parseSnapshot(list(exceptedPorts(40, 20)));
  if (!parsed.ok) throw new Error('snapshot invalid');
  const cluster = buildCluster(parsed.snapshot);
  const { ir } = compile(cluster);
  const node = ir.nodes['n1']!;
  const nodeRules = Object.values(node.tables).reduce((n, t) => n + t.length, 0);
  // The three pods share one ingress table; the node's own address leads it (one rule).
  const ingress = node.tables[node.pods['x/p0']!.ingress]!;
  const tableRules = ingress.length - 1;
  const within = (limits: Partial<FlatLimits>) => () => compile(cluster, { limits: { ...FLAT_LIMITS, ...limits } }).ir;

  it('the snapshot is what the limits are tested on: one large shared table, copied into the global table per pod', () => {
    expect(Object.keys(node.pods)).toEqual(['x/p0', 'x/p1', 'x/p2']);
    expect(new Set(Object.values(node.pods).map((p) => p.ingress)).size).toBe(1);
    expect(tableRules).toBeGreaterThan(1000);
    expect(nodeRules).toBeGreaterThan(3 * tableRules);
  });

  it('compiles a node at exactly its rule count, and refuses it one rule short, naming the node', () => {
    expect(within({ rulesPerNode: nodeRules })()).toEqual(ir);
    expect(within({ rulesPerNode: nodeRules - 1 })).toThrow(new LimitError(`node n1: flat tables need more than ${nodeRules - 1} rules on this node (the limit): ${INSTEAD}`));
    // Short by the global table alone: its rules are counted as they are built.
    expect(within({ rulesPerNode: nodeRules - node.tables[node.global!]!.length })).toThrow(/^node n1: flat tables need more than/);
  });

  it('refuses a table whose rules pass the limit when it is emitted, before any node holds it', () => {
    expect(within({ rulesPerNode: tableRules - 1 })).toThrow(new LimitError(`flat tables: the ingress table of pod x/p0 (and of every pod whose policies say the same) needs more than ${tableRules - 1} rules (the limit per node): ${INSTEAD}`));
    // At exactly its size the table is emitted; the node holding it is what goes over.
    expect(within({ rulesPerNode: tableRules })).toThrow(/^node n1: /);
  });

  it('refuses a partition past its verdicts, at the exact product of cells and port segments', () => {
    // Raise the limit to each refused table's product until the whole cluster compiles: the
    // last limit is the largest product, and one less is refused.
    let limit = 1;
    for (;;) {
      try {
        expect(within({ verdictsPerTable: limit })()).toEqual(ir);
        break;
      } catch (e) {
        const m = /needs more than \d+ verdicts, one per address cell and port segment \((\d+) × (\d+); the limit per table\)/.exec((e as Error).message);
        if (!(e instanceof LimitError) || !m) throw e;
        expect(Number(m[1]) * Number(m[2])).toBeGreaterThan(limit);
        limit = Number(m[1]) * Number(m[2]);
      }
    }
    expect(limit).toBeGreaterThan(1);
    expect(within({ verdictsPerTable: limit - 1 })).toThrow(LimitError);
  });

  it('through the CLI: a few kilobytes over the real limit are a message and exit 2 for every flat-form format, and the set form compiles', () => {
    const text = JSON.stringify(list(exceptedPorts()));
    expect(text.length).toBeLessThan(64 * 1024);
    for (const format of ['ir-flat', 'vpp-acl']) {
      const r = run(['compile', '--format', format, '-'], text);
      expect(r.code, format).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toContain(`node n1: flat tables need more than ${FLAT_LIMITS.rulesPerNode} rules on this node (the limit)`);
      expect(r.err).not.toMatch(/^\s+at /m);
    }
    for (const format of ['ir']) expect(run(['compile', '--format', format, '-'], text).code, format).toBe(0);
  });

  it('the README and docs/dataplanes.md state the limits as the code has them', () => {
    const root = join(import.meta.dirname, '..', '..');
    const [readme, docs] = ['README.md', 'docs/dataplanes.md'].map((f) => readFileSync(join(root, f), 'utf8').replace(/\s+/g, ' '));
    const n = (x: number) => x.toLocaleString('en-US');
    expect(readme).toContain(`${n(FLAT_LIMITS.rulesPerNode)} flat rules`);
    expect(readme).toContain(`${n(VPP_ACL_LIMITS.rules)} VPP ACL rules`);
    expect(docs).toContain(`at most ${n(FLAT_LIMITS.rulesPerNode)} rules in one node's tables`);
    expect(docs).toContain(`and ${FLAT_LIMITS.verdictsPerTable / 1e6} million verdicts`);
    expect(docs).toContain(`${n(VPP_ACL_LIMITS.rules)} ACL rules`);
    expect(docs).toContain(`${VPP_ACL_LIMITS.lookups / 1e6} million lookups combining pod pairs`);
  });
});
