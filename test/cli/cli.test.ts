// The CLI as a pipeline runs it: the real bin, files, directories and stdin, exit codes.
import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CLUSTER, run, tempDir } from '../support/cli.js';
import { main } from '../../functions/cli/main.js';

describe('netpolc CLI', () => {
  it('answers a verdict from a file with both decision chains', () => {
    const r = run(['verdict', '--from', 'shop/web', '--to', 'payments/api', '--port', '443', CLUSTER]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('shop/web → payments/api 443/TCP: DENIED');
    expect(r.out).toContain('Deny by BaselineAdminNetworkPolicy default rule 0 "deny-pod-traffic"');
  });

  it('reads multi-document YAML from stdin (kubectl get -o yaml | netpolc …) and gates on --expect', () => {
    const items = (JSON.parse(readFileSync(CLUSTER, 'utf8')) as { items: unknown[] }).items;
    const yaml = items.map((o) => stringify(o)).join('---\n');
    const ok = run(['verdict', '--from', 'shop/web', '--to', 'shop/db', '--port', 'postgres', '--expect', 'allow', '-'], yaml);
    expect(ok.code).toBe(0);
    const gate = run(['verdict', '--from', 'payments/api', '--to', 'shop/db', '--port', '5432', '--expect', 'allow', '--output', 'json'], yaml);
    expect(gate.code).toBe(1);
    expect(JSON.parse(gate.out).allowed).toBe(false);
    expect(gate.err).toContain('expected allow, got deny');
  });

  it('reads a directory of YAML and JSON files', () => {
    const items = (JSON.parse(readFileSync(CLUSTER, 'utf8')) as { items: { kind: string }[] }).items;
    const dir = tempDir({
      'workloads.json': JSON.stringify({ kind: 'List', items: items.filter((o) => !o.kind.includes('Policy')) }),
      'policies.yaml': items.filter((o) => o.kind.includes('Policy')).map((o) => stringify(o)).join('---\n'),
      'README.txt': 'not read',
    });
    const r = run(['matrix', '--port', '5432', '--namespace', 'shop', dir]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('5432/TCP (3 allowed, 1 denied)');
  });

  it('renders nftables for one node, ready for nft -f', () => {
    const r = run(['compile', '--format', 'nftables', '--node', 'node-1', CLUSTER]);
    expect(r.code).toBe(0);
    expect(r.out.startsWith('# netpolc')).toBe(true);
    expect(r.out).toContain('table inet netpolc {');
    expect(r.err).toMatch(/compiled 2 pods into \d+ tables/);
  });

  it('prints one part of the iptables artifact as raw text for its tool, and the hooks to insert once', () => {
    const ipv4 = run(['compile', '--format', 'iptables', '--node', 'node-1', '--part', 'ipv4', CLUSTER]);
    expect(ipv4.code).toBe(0);
    expect(ipv4.out).toMatch(/^# netpolc: iptables-restore --noflush payload for node node-1/);
    expect(ipv4.out).toMatch(/^\*filter$[\s\S]*^COMMIT$/m);
    expect(ipv4.err).toContain('iptables -C FORWARD -j NETPOLC-FORWARD || iptables -I FORWARD 1 -j NETPOLC-FORWARD');
    const ipset = run(['compile', '--format', 'iptables', '--node', 'node-1', '--part', 'ipset', CLUSTER]);
    expect(ipset.out).toMatch(/^create npc-s[0-9a-f]{16}-4 hash:net family inet -exist$/m);
    // Without one node, or for another format, --part is a usage error.
    expect(run(['compile', '--format', 'iptables', '--part', 'ipv4', CLUSTER]).code).toBe(2);
    expect(run(['compile', '--format', 'nftables', '--node', 'node-1', '--part', 'ipv4', CLUSTER]).code).toBe(2);
    // A node the snapshot does not name is a usage error, not an answer without it.
    const unknown = run(['compile', '--node', 'nope', CLUSTER]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('--node: no node "nope" in the snapshot (it names 2: node-1, node-2)');
  });

  it('points invalid input at file, document and path, exit 2', () => {
    const bad = stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p', namespace: 'x' }, spec: { podSelector: {}, ingress: [{ ports: [{ port: 80, endPort: 79 }] }] } });
    const r = run(['verdict', '--from', 'x/a', '--to', 'x/b', '--port', '80', '-'], `${stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } })}---\n${bad}`);
    expect(r.code).toBe(2);
    expect(r.err).toContain('<stdin> (document 2): $.spec.ingress[0].ports[0].endPort (NetworkPolicy x/p): must be greater than or equal to `port` (80)');
  });

  it('rejects bad usage with the usage text, exit 2', () => {
    const r = run(['verdict', '--from', 'x/a', CLUSTER]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('usage: netpolc');
    expect(run(['frobnicate']).code).toBe(2);
  });
});

describe('the CLI on an answer too large to write', () => {
  it('says what to ask for instead and exits 2, as the API answers 413', () => {
    const err: string[] = [];
    // What JSON.stringify throws past the runtime's longest string (~512 MiB).
    const io = { out: () => { throw new RangeError('Invalid string length'); }, err: (s: string) => void err.push(s), stdin: () => '' };
    expect(main(['compile', '--format', 'ir', CLUSTER], io)).toBe(2);
    expect(err.at(-1)).toBe('the answer is larger than this runtime can write as one text (about 512 MiB of JSON); ask for --format ir (shared sets), one --node, or a smaller snapshot');
  });
});
