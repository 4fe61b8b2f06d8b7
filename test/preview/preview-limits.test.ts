// The connectivity delta's limit (core/preview/delta.ts PREVIEW_LIMITS): class changes counted as
// they are found, refused past the limit with a message, never a heap run out after minutes.
// And the address classes that keep a small input's classes few (core/classes/addresses.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LimitError } from '../../core/limits.js';
import { PREVIEW_LIMITS, preview, type TablesDelta } from '../../core/preview/index.js';
import { run as cli, tempDir } from '../support/cli.js';
import { lintRun } from '../../core/lint/index.js';
import { adminNetworkPolicy, clusterOf, namespace, networkPolicy, node, pod, snapshotOf, type K8sObject } from '../support/cluster-builders.js';
import { exceptedAddresses } from '../support/hostile.js';

/** 40 pods in 4 namespaces; with `rules`, an AdminNetworkPolicy allowing and denying port ranges between them. */
function cluster(rules: number): K8sObject[] {
  const objects: K8sObject[] = [node('n1', '172.18.0.2')];
  for (let n = 0; n < 4; n++) objects.push(namespace(`ns${n}`, { labels: { team: `t${n}` } }));
  for (let i = 0; i < 40; i++) objects.push(pod(`ns${i % 4}/p${i}`, { ip: `10.1.0.${i + 1}`, node: 'n1', labels: { app: `a${i % 5}` } }));
  if (rules > 0) {
    const ingress = Array.from({ length: rules }, (_, r) => ({
      name: `r${r}`,
      action: r % 2 === 0 ? 'Deny' : 'Allow',
      from: [{ pods: { namespaceSelector: { matchLabels: { team: `t${r % 4}` } }, podSelector: { matchLabels: { app: `a${r % 5}` } } } }],
      ports: [{ portRange: { protocol: 'TCP', start: 1000 + 10 * r, end: 1005 + 10 * r } }],
    }));
    objects.push(adminNetworkPolicy('ranges', 1, { subject: { namespaces: {} }, ingress }));
  }
  return objects;
}

describe('preview limits', () => {
  const sent = { base: snapshotOf(cluster(0)), head: snapshotOf(cluster(12)) };
  const full = preview(sent, { tables: false, lint: false });
  const classChanges = full.changes.reduce((n, a) => n + a.parts.length, 0);

  it('previews a change at exactly its class changes as the limit, and refuses it one short', () => {
    expect(classChanges).toBeGreaterThan(10);
    expect(preview(sent, { tables: false, lint: false, maxClassChanges: classChanges })).toEqual(full);
    expect(() => preview(sent, { tables: false, lint: false, maxClassChanges: classChanges - 1 })).toThrow(
      new LimitError(`the change alters connectivity in more than ${classChanges - 1} ways (class pair, port range, decision before and after; the limit): preview it in smaller steps, a few policies at a time`),
    );
  });

  it('the default limit is far above what this change needs, and the README states it', () => {
    expect(PREVIEW_LIMITS.classChanges).toBeGreaterThan(1000 * classChanges);
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain(`${PREVIEW_LIMITS.classChanges.toLocaleString('en-US')} class changes (class pair, port range, decision before and after) in a preview's connectivity delta`);
  });

  it('previews a head whose flat tables pass their limit with its set-form table delta', () => {
    // The head's flat tables pass their limit (test/compile/flat-limits.test.ts's snapshot): the
    // table delta is the set form agents load, one set and one table per direction, not those.
    const dir = tempDir({ 'base.json': JSON.stringify({ items: cluster(0) }), 'head.json': JSON.stringify({ items: [...cluster(0), excepted()] }) });
    const r = cli(['preview', '--base', `${dir}/base.json`, '--head', `${dir}/head.json`, '--no-lint', '--allow-removed-flows', '--output', 'json']);
    expect(r.code, r.err).toBe(0);
    const tables = JSON.parse(r.out).tables as TablesDelta;
    expect(Object.keys(tables.nodes)).toEqual(['n1']);
    const n1 = tables.nodes.n1!;
    expect(n1.setsAdded).toHaveLength(1);
    expect(n1.rulesAdded).toBe(1);
    expect(n1.podsRebound).toBe(10);
    expect(tables.stats.head.members).toBeGreaterThan(1000);
  });
});

/** Ingress to every pod of ns0 from a /16 less 400 scattered /32s on 1,000 single ports: over a million flat rules. */
function excepted(): K8sObject {
  const except = Array.from({ length: 400 }, (_, e) => `192.168.${e & 255}.${1 + 2 * (e >> 8)}/32`);
  const ports = Array.from({ length: 1000 }, (_, k) => ({ port: 1000 + 2 * k, protocol: 'TCP' }));
  return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'wide', namespace: 'ns0' }, spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '192.168.0.0/16', except } }], ports }] } };
}

describe('addresses by class, not by interval', () => {
  // 192.0.0.0/8 less 20,000 /32s: 40,000 elementary intervals, which the preview and the lints
  // once compared one by one (9 s of preview; lint questions past their pair limit).
  const head = exceptedAddresses(20_000);
  const base = head.filter((o) => o.metadata.name !== 'second');

  it('previews a change over a /8 less 20,000 excepts with two IPv4 address classes and one IPv6', () => {
    const opened = [...base.filter((o) => o.kind !== 'NetworkPolicy')];
    const p = preview({ base: snapshotOf(base), head: snapshotOf(opened) }, { tables: false, lint: false });
    expect(p.summary.classes.external).toBe(3);
    // Deleting the policy opens ingress from everything it did not allow: the excepted /32s and
    // the addresses outside the /8 are one class, listed by their CIDRs.
    const external = p.endpoints.filter((e) => e.kind === 'external');
    const closed = external.find((e) => e.kind === 'external' && e.cidrs.includes('192.168.0.0/32'));
    expect(closed?.kind === 'external' && closed.cidrs.includes('0.0.0.0/1')).toBe(true);
    expect(closed?.kind === 'external' && closed.cidrs.includes('192.168.0.1/32')).toBe(false);
    expect(p.summary.added.pairs).toBeGreaterThan(0);
    expect(p.summary.removed.pairs).toBe(0);
  });

  it("reads one rule's 5,000 /32 ipBlock peers as one address class, in previews and lints", () => {
    const from = Array.from({ length: 5000 }, (_, k) => ({ ipBlock: { cidr: `192.168.${k >> 6}.${(k & 63) * 4}/32` } }));
    const peers = [...base.filter((o) => o.kind !== 'NetworkPolicy'), ...['first', 'second'].map((name) => networkPolicy(`a/${name}`, { podSelector: {}, ingress: [{ from }] }))];
    const p = preview({ base: snapshotOf(peers), head: snapshotOf(peers.slice(0, -1)) }, { tables: false, lint: true });
    expect(p.summary.classes.external).toBe(3);
    expect(p.lint?.unchecked ?? []).toEqual([]);
  });

  it('lints it with every question answered', () => {
    const r = lintRun(clusterOf(head));
    expect(r.unchecked).toEqual([]);
    expect(r.findings.map((f) => `${f.code} ${f.object.name} ${f.path}`)).toEqual(['np-rule-redundant second spec.ingress[0]']);
  });
});
