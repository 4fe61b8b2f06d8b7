// "can A reach B on 80 and 443?": each port is answered as its own one-port question would be,
// and the sentence says which ports are allowed and which not, with the rule deciding each.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ask, chainLines, type Answer } from '../../core/ask/answer.js';
import { isParseFailure } from '../../core/ask/parse.js';
import { assertProperty } from '../support/property.js';
import { askedOf } from '../support/ask.js';
import { clusterOf } from '../support/cluster-builders.js';
import { snapshotArb } from '../support/random-snapshot.js';

const example = clusterOf((JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'cluster.json'), 'utf8')) as { items: unknown[] }).items);
const asked = askedOf(example);

describe('a list of ports', () => {
  it('says which ports are allowed and which not, each with its deciding rule, and carries each port\'s chain', () => {
    const a = asked('can shop/web reach shop/db on 5432 and 80?', 'can-list');
    expect(a).toMatchObject({ allowed: 'some', allowedPorts: [5432], deniedPorts: [80] });
    expect(a.text).toBe('On some ports: shop/web can reach shop/db on TCP 5432 — allowed by NetworkPolicy shop/db-from-web rule 0 after AdminNetworkPolicy tenant-guardrails passed it down; not on TCP 80 — denied at ingress: isolated for ingress by db-from-web; no rule allows this flow.');
    expect(a.answers).toEqual([ask(example, 'can shop/web reach shop/db on 5432?'), ask(example, 'can shop/web reach shop/db on 80?')]);
    const lines = chainLines(a);
    expect(lines.filter((l) => l.startsWith('TCP 5432: '))).toHaveLength(2);
    expect(lines.filter((l) => l.startsWith('TCP 80: ')).at(-1)).toMatch(/ingress of shop\/db: .*⇒ denied$/);
  });

  it('one verdict and one reason for every port: said once', () => {
    const a = asked('can shop/web reach shop/db on 5433-5435', 'can-list');
    expect(a).toMatchObject({ allowed: 'none', deniedPorts: [5433, 5434, 5435] });
    expect(a.text).toBe('No: shop/web cannot reach shop/db on TCP 5433, 5434 and 5435 — denied at ingress: isolated for ingress by db-from-web; no rule allows this flow.');
  });

  it('a port said twice is one port: the one-port answer', () => {
    expect(ask(example, 'can shop/web reach shop/db on 5432, 5432')).toEqual(ask(example, 'can shop/web reach shop/db on 5432'));
  });

  it('an unknown endpoint is one error, not one per port', () => {
    const a = asked('can nobody/x reach shop/db on 1 and 2', 'error');
    expect(a.text).toMatch(/no pod "nobody\/x"/);
  });
});

// Every port of a random list, on random snapshots: the list's answer holds the one-port answers.
describe('a list of ports answers as its one-port questions', () => {
  it('on random snapshots, pods and port lists', () => {
    const arb = fc.record({ snapshot: snapshotArb, from: fc.nat(), to: fc.nat(), ports: fc.uniqueArray(fc.constantFrom(53, 80, 443, 5432, 8080, 9090), { minLength: 2, maxLength: 4 }), protocol: fc.constantFrom('', 'udp ', 'tcp ') });
    assertProperty(
      fc.property(arb, (c) => {
        const cluster = clusterOf(c.snapshot.items);
        const pods = (c.snapshot.items as { kind: string; metadata: { name: string; namespace: string } }[]).filter((i) => i.kind === 'Pod').map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
        const [from, to] = [pods[c.from % pods.length]!, pods[c.to % pods.length]!];
        const list = ask(cluster, `can ${from} reach ${to} on ${c.protocol}${c.ports.join(' and ')}`);
        const ones = c.ports.map((p) => ask(cluster, `can ${from} reach ${to} on ${c.protocol}${p}`) as Answer);
        if (isParseFailure(list)) throw new Error(list.error);
        if (ones.every((o) => o.kind === 'error' || o.kind === 'no-verdict')) return expect(list).toEqual(ones[0]);
        expect(list.kind).toBe('can-list');
        if (list.kind !== 'can-list') return;
        const answered = ones.filter((o) => o.kind !== 'error' && o.kind !== 'no-verdict');
        expect(list.answers).toEqual(answered);
        const yes = c.ports.filter((_, i) => ones[i]!.kind === 'can' && (ones[i] as { allowed: boolean }).allowed);
        expect(list.allowedPorts).toEqual(yes);
        expect([...list.allowedPorts, ...list.deniedPorts].sort()).toEqual(c.ports.filter((_, i) => (answered as Answer[]).includes(ones[i]!)).sort());
        expect(list.text.startsWith(list.allowed === 'all' ? 'Yes: ' : list.allowed === 'none' ? 'No: ' : 'On some ports: ')).toBe(true);
      }),
      { file: import.meta.url, numRuns: 200 },
    );
  });
});
