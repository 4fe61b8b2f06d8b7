// "can A reach B on 80 and 443?": each port is answered as its own one-port question would be,
// and the sentence says which ports are allowed and which not, with the rule deciding each.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ask, chainLines } from '../../core/ask/answer.js';
import { askedOf } from '../support/ask.js';
import { clusterOf } from '../support/cluster-builders.js';

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

  it('a name for several endpoints: each port answered for each member; ports alike share one sentence', () => {
    const same = asked('can the internet reach shop/db on 80 and 5432', 'can-list');
    expect(same.answers.map((a) => a.kind)).toEqual(['can-group', 'can-group']);
    expect(same).toMatchObject({ allowed: 'none', deniedPorts: [80, 5432] });
    expect(same.text).toMatch(/^No: the internet cannot reach shop\/db on TCP 80 and 5432 \(the internet → 2 address regions/);
    const mixed = asked('can shop/web reach shop/app=db on 5432 and 80 and 81', 'can-list');
    expect(mixed).toMatchObject({ allowed: 'some', allowedPorts: [5432], deniedPorts: [80, 81] });
    expect(mixed.text).toMatch(/^Port by port: TCP 5432: Yes: shop\/web can reach shop\/app=db on TCP 5432 .*; TCP 80 and 81: No: shop\/web cannot reach shop\/app=db on TCP 80 and 81 .*\.$/);
  });

  it('who and what: each port\'s own answer, said port by port', () => {
    const who = asked('who can reach shop/db on 5432 and 80', 'who-list');
    expect(who.answers).toEqual([ask(example, 'who can reach shop/db on 5432'), ask(example, 'who can reach shop/db on 80')]);
    expect(who.text).toBe('Port by port: TCP 5432: 2 of 3 other pods can reach shop/db on TCP 5432: monitoring/prometheus, shop/web; TCP 80: 1 of 3 other pods can reach shop/db on TCP 80: monitoring/prometheus.');
    const what = asked('what can shop/web reach on 5433 or 80', 'what-list');
    expect(what.answers).toEqual([ask(example, 'what can shop/web reach on 5433'), ask(example, 'what can shop/web reach on 80')]);
    expect(what.text).toBe('shop/web can reach no pod on TCP 5433 and 80 (0 of 3 other pods).');
  });

  it('exposed and metadata: each port\'s own answer, ports alike in one sentence, each port\'s chain', () => {
    const exposed = asked('is anything exposed to the internet in shop on 5432 and 80', 'exposed-list');
    expect(exposed.answers).toEqual([ask(example, 'is anything exposed to the internet in shop on 5432'), ask(example, 'is anything exposed to the internet in shop on 80')]);
    expect(exposed.text).toMatch(/^Yes: 1 of 2 pods of namespace shop accept traffic from the internet on TCP 5432 and 80 \(evaluated from 203\.0\.113\.7 and 2001:db8::7\): shop\/web \(TCP 5432 and 80 from 203\.0\.113\.7\)/);
    const metadata = asked('which pods can reach the cloud metadata address on 80 and 443', 'metadata-list');
    expect(metadata.answers).toEqual([ask(example, 'which pods can reach the cloud metadata address on 80'), ask(example, 'which pods can reach the cloud metadata address on 443')]);
    expect(metadata.text).toBe('4 of 4 pods can reach the cloud metadata address (169.254.169.254, fd00:ec2::254) on TCP 80 and 443: all 4 pods in the cluster.');
    const lines = chainLines(metadata);
    for (const port of [80, 443]) expect(lines.some((l) => l.includes(`→ 169.254.169.254 on TCP ${port}: egress of `)), String(port)).toBe(true);
    expect(asked('is anything exposed to the internet in nope on 80 and 443', 'error').text).toMatch(/no namespace "nope"/);
  });

  it('a port said twice is one port: the one-port answer', () => {
    expect(ask(example, 'can shop/web reach shop/db on 5432, 5432')).toEqual(ask(example, 'can shop/web reach shop/db on 5432'));
  });

  it('an unknown endpoint is one error, not one per port', () => {
    const a = asked('can nobody/x reach shop/db on 1 and 2', 'error');
    expect(a.text).toMatch(/no pod "nobody\/x"/);
  });
});
