// A list of ports answers as its one-port questions: on random snapshots, pods and port lists,
// "can A reach B on P1 and P2 …" (and "who can reach B …", "what can A reach …", "is anything
// exposed to the internet in ns N …", "which pods can reach the cloud metadata address …") holds
// each port's own answer; for "can", the allowed ports are exactly those whose one-port answer is Yes,
// and the sentence opens with all, none or some.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ask, type Answer } from '../../core/ask/answer.js';
import { isParseFailure } from '../../core/ask/parse.js';
import { clusterOf } from '../support/cluster-builders.js';
import { assertProperty, propertyRuns } from '../support/property.js';
import { snapshotArb } from '../support/random-snapshot.js';

describe('a list of ports answers as its one-port questions', () => {
  it('on random snapshots, pods and port lists', () => {
    const arb = fc.record({ snapshot: snapshotArb, kind: fc.constantFrom('can', 'who', 'what', 'exposed', 'metadata'), from: fc.nat(), to: fc.nat(), ports: fc.uniqueArray(fc.constantFrom(53, 80, 443, 5432, 8080, 9090), { minLength: 2, maxLength: 4 }), protocol: fc.constantFrom('', 'udp ', 'tcp ') });
    assertProperty(
      fc.property(arb, (c) => {
        const cluster = clusterOf(c.snapshot.items);
        const pods = (c.snapshot.items as { kind: string; metadata: { name: string; namespace: string } }[]).filter((i) => i.kind === 'Pod').map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
        const [from, to] = [pods[c.from % pods.length]!, pods[c.to % pods.length]!];
        const questions: Record<typeof c.kind, (on: string) => string> = {
          can: (on) => `can ${from} reach ${to} on ${on}`,
          who: (on) => `who can reach ${to} on ${on}`,
          what: (on) => `what can ${from} reach on ${on}`,
          exposed: (on) => `is anything exposed to the internet in ${to.split('/')[0]} on ${on}`,
          metadata: (on) => `which pods can reach the cloud metadata address on ${on}`,
        };
        const question = questions[c.kind];
        const list = ask(cluster, question(`${c.protocol}${c.ports.join(' and ')}`));
        const ones = c.ports.map((p) => ask(cluster, question(`${c.protocol}${p}`)) as Answer);
        // Answers keep port-independent work per cluster (metadata classes, the pods' partition
        // and subjects' policies of who/what, the engine's subject policies): after the list, the
        // same as on a cluster never asked.
        expect(ones[1]).toEqual(ask(clusterOf(c.snapshot.items), question(`${c.protocol}${c.ports[1]}`)));
        // So does a named port asked after numbered ones, and a numbered one after it.
        for (const on of [`${c.protocol}web`, `${c.protocol}${c.ports[0]}`]) expect(ask(cluster, question(on))).toEqual(ask(clusterOf(c.snapshot.items), question(on)));
        if (isParseFailure(list)) throw new Error(list.error);
        if (ones.every((o) => o.kind === 'error' || o.kind === 'no-verdict')) return expect(list).toEqual(ones[0]);
        expect(list.kind).toBe(`${c.kind}-list`);
        const answered = ones.filter((o) => o.kind !== 'error' && o.kind !== 'no-verdict');
        if (list.kind === 'who-list' || list.kind === 'what-list' || list.kind === 'exposed-list' || list.kind === 'metadata-list') {
          expect(list.answers).toEqual(answered);
          // Ports alike share one sentence, so it names each answered port at least once.
          for (const p of c.ports.filter((_, i) => (answered as Answer[]).includes(ones[i]!))) expect(list.text).toMatch(new RegExp(`\\b${p}\\b`));
          return;
        }
        if (list.kind !== 'can-list') return;
        expect(list.answers).toEqual(answered);
        const yes = c.ports.filter((_, i) => ones[i]!.kind === 'can' && (ones[i] as { allowed: boolean }).allowed);
        expect(list.allowedPorts).toEqual(yes);
        expect([...list.allowedPorts, ...list.deniedPorts].sort()).toEqual(c.ports.filter((_, i) => (answered as Answer[]).includes(ones[i]!)).sort());
        expect(list.text.startsWith(list.allowed === 'all' ? 'Yes: ' : list.allowed === 'none' ? 'No: ' : 'On some ports: ')).toBe(true);
      }),
      { file: import.meta.url, numRuns: propertyRuns(800) },
    );
  });
});
