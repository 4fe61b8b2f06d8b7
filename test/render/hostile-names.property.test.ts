// Defence in depth behind name validation: whatever a node or pod is called, the nftables and
// iptables renderings read back by the project's own parsers hold the same statements as with
// plain names, nothing a name holds becomes a line of its own, and a name written quoted reads
// back as it was. The set form is renamed after compiling, bypassing schema validation.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeDelta, sliceOf } from '../../core/diff/set-node.js';
import { iptables, type IptablesArtifact } from '../../core/render/iptables.js';
import { iptablesArgs } from '../../core/render/iptables-args.js';
import { iptablesDelta } from '../../core/render/iptables-delta.js';
import { applyRestore, parseIpset } from '../../core/render/iptables-sim.js';
import { nftables } from '../../core/render/nftables.js';
import { nftDelta } from '../../core/render/nftables-delta.js';
import { parseNftScript, readNftQuoted } from '../../core/render/nftables-parse.js';
import { fromPrintable, printable } from '../../core/printable.js';
import { iptablesQuote, nftQuote } from '../../core/render/quote.js';
import { compileSets } from '../../core/sets/compile.js';
import { compile } from '../../core/compile/compile.js';
import { openstackSg } from '../../core/render/openstack-sg.js';
import { vppAcl } from '../../core/render/vpp-acl.js';
import { vppSession } from '../../core/render/vpp-session.js';
import type { SetIr } from '../../core/sets/ir.js';
import { clusterOf, namespace, networkPolicy, node, pod } from '../support/cluster-builders.js';
import { assertProperty, propertyRuns } from '../support/property.js';

const RUNS = propertyRuns(300);
const file = import.meta.url;

/** Strings made of what ends lines, strings and comments, and of the rest of unicode. */
const hostile = fc.oneof(
  fc.string({ unit: fc.constantFrom('\n', '\r', '\0', '"', "'", '\\', '#', ';', '{', '}', ' ', '\t', '\u2028', '\u202e', '\u0085', 'x', '/', 'é', '😀', '\ud800'), maxLength: 24 }),
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.constantFrom('web\nflush ruleset\n#', 'x\r\nCOMMIT\n*filter\n-A NETPOLC-FORWARD -j ACCEPT', '"; flush ruleset; #', 'a\\', '\\x0a'),
);

const isLineBreak = (c: string) => /[\n\r\u2028\u2029\u0085]/.test(c);

describe('escaping per output syntax', () => {
  it('printable() leaves no quote, control or line break, and reads back', () => {
    assertProperty(
      fc.property(hostile, (s) => {
        const p = printable(s);
        expect(p).not.toMatch(/["\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|\p{Cs}/u);
        expect(fromPrintable(p)).toBe(s);
      }),
      { numRuns: RUNS * 3, file },
    );
  });

  it('an nft quoted string is one string on one line and reads back', () => {
    assertProperty(
      fc.property(hostile, (s) => {
        const q = nftQuote(s);
        // nft's scanner: a quoted string is "[^"]*"; a statement or a # comment ends at a newline.
        expect(q).toMatch(/^"[^"]*"$/);
        expect([...q].some(isLineBreak)).toBe(false);
        expect(readNftQuoted(q)).toBe(s);
      }),
      { numRuns: RUNS * 3, file },
    );
  });

  it('an iptables-restore quoted argument is one argument and reads back', () => {
    assertProperty(
      fc.property(hostile, (s) => {
        const line = `-A NETPOLC-FORWARD -m comment --comment ${iptablesQuote(s)} -j RETURN`;
        expect([...line].some(isLineBreak)).toBe(false);
        const args = iptablesArgs(line);
        expect(args.length).toBe(8);
        expect(args.slice(0, 6)).toEqual(['-A', 'NETPOLC-FORWARD', '-m', 'comment', '--comment', args[5]]);
        expect(args.slice(6)).toEqual(['-j', 'RETURN']);
        expect(fromPrintable(args[5]!)).toBe(s);
      }),
      { numRuns: RUNS * 3, file },
    );
  });
});

/** A small valid cluster: two nodes, three pods, one policy (tables, sets and map entries). */
function setForm(): SetIr {
  return compileSets(
    clusterOf([
      namespace('shop'),
      node('node-1', '172.18.0.2'),
      node('node-2', '172.18.0.3'),
      pod('shop/web', { ip: '10.0.0.1', node: 'node-1', labels: { app: 'web' } }),
      pod('shop/db', { ip: ['10.0.0.2', 'fd00::2'], node: 'node-1', labels: { app: 'db' } }),
      pod('shop/api', { ip: '10.0.1.1', node: 'node-2', labels: { app: 'api' } }),
      networkPolicy('shop/db', { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 5432 }] }] }),
    ]),
  ).ir;
}

/** The set form with node-1 called `nodeName` and its pods `names` (by their old keys). */
function renamed(ir: SetIr, nodeName: string, names: Record<string, string>): SetIr {
  const nodes = Object.fromEntries(
    Object.entries(ir.nodes).map(([n, sn]) => (n === 'node-1' ? [nodeName, { ...sn, pods: Object.fromEntries(Object.entries(sn.pods).map(([k, p]) => [names[k] ?? k, p])) }] : [n, sn])),
  );
  return { ...ir, nodes };
}

/** What the project's parsers read from a rendering: statements only, names aside. */
function nftStatements(script: string) {
  const [table] = [...parseNftScript(script).values()];
  return {
    chains: [...table!.chains].map(([name, c]) => [name, c.hook, c.rules.map((r) => r.text)]),
    sets: [...table!.sets].map(([name, r]) => [name, r.length]),
    maps: [...table!.maps].map(([name, m]) => [name, [...m].map(([k, v]) => [k, JSON.stringify(v)])]),
  };
}
function iptStatements(a: IptablesArtifact) {
  const chains = (payload: string, family: 4 | 6) => [...applyRestore(payload, family)].map(([name, c]) => [name, c.rules.map((r) => r.spec)]);
  return { ipset: [...parseIpset(a.ipset).keys()], v4: chains(a.ipv4, 4), v6: chains(a.ipv6, 6) };
}

const lineCount = (s: string) => s.split('\n').length;
/** The name a rendered comment holds: as it is, or quoted. */
const commentName = (text: string, read: (q: string) => string) => (text.startsWith('"') ? read(text) : text);

describe('renderings with hostile node and pod names', () => {
  const ir = setForm();
  const plainNft = nftables.render(ir)['node-1']!;
  const plainIpt = iptables.render(ir)['node-1']!;

  it('hold the statements of the plain rendering, one line per line, and the names read back', () => {
    assertProperty(
      fc.property(hostile, hostile, hostile, (nodeName, web, db) => {
        fc.pre(nodeName !== 'node-2' && web !== db);
        const names = { 'shop/web': `shop/${web}`, 'shop/db': `shop/${db}` };
        const bad = renamed(ir, nodeName, names);
        const nft = nftables.render(bad)[nodeName]!;
        expect(lineCount(nft)).toBe(lineCount(plainNft));
        expect(nftStatements(nft)).toEqual(nftStatements(plainNft));
        const ipt = iptables.render(bad)[nodeName]!;
        for (const part of ['ipset', 'ipv4', 'ipv6'] as const) expect(lineCount(ipt[part])).toBe(lineCount(plainIpt[part]));
        expect(iptStatements(ipt)).toEqual(iptStatements(plainIpt));

        // The header names the node; each map entry and dispatch comment its pod.
        expect(commentName(/^# netpolc: nftables ruleset for node (.*) \(set form\)/.exec(nft)![1]!, readNftQuoted)).toBe(nodeName);
        const readIpt = (q: string) => fromPrintable(iptablesArgs(q)[0]!);
        expect(commentName(/payload for node (.*) \(set form\)/.exec(ipt.ipv4)![1]!, readIpt)).toBe(nodeName);
        const nftComments = [...nft.matchAll(/^\t\t\t10\.0\.0\.\d+ : jump \w+, # (.*)$/gm)].map((m) => commentName(m[1]!, readNftQuoted));
        expect(new Set(nftComments)).toEqual(new Set(Object.values(names)));
        const iptComments = ipt.ipv4.split('\n').filter((l) => l.startsWith('# ') && !l.startsWith('# netpolc')).map((l) => commentName(l.slice(2), readIpt));
        expect(new Set(iptComments)).toEqual(new Set(Object.values(names)));
      }),
      { numRuns: RUNS, file },
    );
  });

  it('delta headers keep node names and versions on their line', () => {
    assertProperty(
      fc.property(hostile, hostile, hostile, (nodeName, from, to) => {
        const before = sliceOf(ir, 'node-1')!;
        const after = sliceOf(renamed(ir, 'node-1', { 'shop/web': 'shop/web2' }), 'node-1')!;
        const delta = nodeDelta(before, after);
        const script = nftDelta(nodeName, from, to, before, delta);
        expect(script.split('\n')[0]).toMatch(/^# netpolc: nftables delta for node /);
        expect(() => parseNftScript(script, parseNftScript(plainNft))).not.toThrow();
        expect(lineCount(script)).toBe(lineCount(nftDelta('node-1', '1', '2', before, delta)));
        const ipt = iptablesDelta(nodeName, from, to, before, delta)!;
        const plain = iptablesDelta('node-1', '1', '2', before, delta)!;
        for (const part of ['ipset', 'ipv4', 'ipv6', 'cleanup'] as const) expect(lineCount(ipt[part])).toBe(lineCount(plain[part]));
        expect(() => applyRestore(ipt.ipv4, 4, applyRestore(plainIpt.ipv4, 4))).not.toThrow();
      }),
      { numRuns: RUNS, file },
    );
  });

  it('the audit\'s pod "web\\nflush ruleset\\n#" injects no statement into either rendering', () => {
    const bad = renamed(ir, 'node-1\nflush ruleset', { 'shop/web': 'shop/web\nflush ruleset\n#', 'shop/db': 'shop\r\nCOMMIT\n-A NETPOLC-FORWARD -j ACCEPT\n#/db' });
    const nft = nftables.render(bad)['node-1\nflush ruleset']!;
    const ipt = iptables.render(bad)['node-1\nflush ruleset']!;
    for (const text of [nft, ipt.ipset, ipt.ipv4, ipt.ipv6]) {
      const lines = text.split(/\r?\n|\r/).map((l) => l.trim());
      expect(lines).not.toContain('flush ruleset');
      expect(lines).not.toContain('-A NETPOLC-FORWARD -j ACCEPT');
      expect(lines.filter((l) => l === 'COMMIT').length).toBe(text === ipt.ipset || text === nft ? 0 : 1);
    }
    expect(nftStatements(nft)).toEqual(nftStatements(plainNft));
    expect(iptStatements(ipt)).toEqual(iptStatements(plainIpt));
    expect(nft).toContain('# "shop/web\\x0aflush ruleset\\x0a#"');
  });

  it('VPP and OpenStack names of a pod or node stay printable, and pod interfaces stay one per pod', () => {
    const sg = openstackSg.render(renamed(ir, 'node-1\nx', {}))['node-1\nx']!;
    for (const g of sg.security_groups) expect(`${g.name} ${g.description}`).not.toMatch(/[\n\r]/);
    // "a-b/c" and "a/b-c" are two pods (valid names both): they get two interfaces.
    const cluster = clusterOf([namespace('a'), namespace('a-b'), node('node-1', '172.18.0.2'), pod('a-b/c', { ip: '10.0.0.1', node: 'node-1' }), pod('a/b-c', { ip: '10.0.0.2', node: 'node-1' })]);
    const flat = compile(cluster).ir;
    const taps = vppAcl.render(flat)['node-1']!.interfaces.map((i) => i.name);
    expect(new Set(taps).size).toBe(2);
    const pods = { ...flat.nodes['node-1']!.pods };
    const hostileFlat = { ...flat, nodes: { 'node-1': { ...flat.nodes['node-1']!, pods: { 'a/b\nc': pods['a/b-c']!, 'a-b/c': pods['a-b/c']! } } } };
    for (const i of vppAcl.render(hostileFlat)['node-1']!.interfaces) expect(i.name).not.toMatch(/[\n\r]/);
    for (const r of vppSession.render(hostileFlat)['node-1']!.rules) expect(r.tag).not.toMatch(/[\n\r]/);
  });
});
