// Random set forms, beyond what compileSets emits today (any tier may hold any action, ports
// sets in either direction, empty sets, mixed families, ports lists over several protocols):
// every renderer of the set form, read back by its own simulator, equals the reference reading
// (core/sets/simulate.ts).
import fc from 'fast-check';
import { assertProperty, propertyRuns } from '../support/property.js';
import { describe, expect, it } from 'vitest';
import type { IrSet, PortSpec, RuleTable, SetIr, SetNode, SetPod, SetRule } from '../../core/sets/ir.js';
import { SET_IR_VERSION } from '../../core/sets/ir.js';
import { IdRecord } from '../../core/sets/id-record.js';
import { SetIrSimulator } from '../../core/sets/simulate.js';
import { DATAPLANES, rendersSets } from '../../core/render/index.js';
import type { FlowQuery } from '../../core/render/types.js';
import { flowArb } from '../support/random-snapshot.js';

const RUNS = propertyRuns(1000);

const POD_IPS = [['10.0.1.10', 'fd00::1:a'], ['10.0.1.20'], ['10.0.2.30', 'fd00::2:1e'], ['10.0.3.40', 'fd00::3:28'], ['10.0.0.50']];
const NODE_IPS: Record<string, string[]> = { n1: ['172.18.0.2', 'fc00::2'], n2: ['172.18.0.3'] };
// Pairwise disjoint, as a compiled set's merged blocks are.
const V4 = ['10.0.0.0/24', '10.0.1.0/28', '10.0.1.16/28', '10.0.2.0/23', '172.18.0.2/32', '192.0.2.0/24'];
const V6 = ['fd00::1:0/112', 'fd00::2:0/112', 'fd00::3:28/128', 'fc00::2/128', '2001:db8::/32'];
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'] as const;
const PORTS = [53, 80, 443, 5432, 8080];

const addressSet = fc.record({ v4: fc.uniqueArray(fc.constantFrom(...V4), { maxLength: 2 }), v6: fc.uniqueArray(fc.constantFrom(...V6), { maxLength: 2 }) }).map(
  ({ v4, v6 }): IrSet => ({ kind: 'addresses', definition: { type: 'cidrs', cidrs: [...v4, ...v6], except: [] }, v4: [...v4].sort(), v6: [...v6].sort(), hash: 'm0' }),
);
const portSet = fc.uniqueArray(fc.tuple(fc.constantFrom(...POD_IPS.flat()), fc.constantFrom(...PROTOCOLS), fc.constantFrom(...PORTS)), { maxLength: 6, selector: (e) => e.join('|') }).map(
  (elements): IrSet => ({ kind: 'ports', definition: { type: 'named-port', of: null, port: 'p', protocol: null }, elements: sortElements(elements), hash: 'm0' }),
);

function sortElements(e: [string, (typeof PROTOCOLS)[number], number][]): [string, (typeof PROTOCOLS)[number], number][] {
  return [...e].sort((a, b) => (a[0].includes(':') ? 1 : 0) - (b[0].includes(':') ? 1 : 0) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0) || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) || a[2] - b[2]);
}

const portSpecs = fc.option(fc.array(fc.tuple(fc.constantFrom(...PROTOCOLS), fc.constantFrom(1, 53, 80, 443), fc.constantFrom(80, 443, 8080, 65535)).map(([p, a, b]): PortSpec => [p, Math.min(a, b), Math.max(a, b)]), { minLength: 1, maxLength: 3 }), { nil: null });
const setRule = (actions: readonly SetRule['action'][]) => fc.record({ action: fc.constantFrom(...actions), set: fc.option(fc.nat(5), { nil: null }), ports: portSpecs });

const tableArb = fc.record({
  direction: fc.constantFrom('ingress' as const, 'egress' as const),
  admin: fc.array(setRule(['allow', 'deny', 'pass']), { maxLength: 3 }),
  isolated: fc.boolean(),
  np: fc.array(setRule(['allow']), { maxLength: 3 }),
  baseline: fc.array(setRule(['allow', 'deny', 'pass']), { maxLength: 3 }),
});

const setIrArb = fc
  .tuple(fc.array(fc.oneof(addressSet, portSet), { minLength: 1, maxLength: 6 }), fc.array(tableArb, { minLength: 1, maxLength: 4 }), fc.array(fc.record({ node: fc.constantFrom('n1', 'n2'), ingress: fc.nat(), egress: fc.nat() }), { minLength: POD_IPS.length, maxLength: POD_IPS.length }))
  .map(([setList, tableList, placement]): SetIr => {
    const sets: Record<string, IrSet> = Object.fromEntries(setList.map((s, i) => [`s${i}`, s]));
    const ids = Object.keys(sets);
    const fix = (r: { action: SetRule['action']; set: number | null; ports: readonly PortSpec[] | null }): SetRule => {
      const set = r.set === null ? null : ids[r.set % ids.length]!;
      // A ports set carries its own ports (ir.ts): such a rule has ports null.
      return { action: r.action, set, ports: set !== null && sets[set]!.kind === 'ports' ? null : r.ports };
    };
    const tables: Record<string, RuleTable> = {};
    const tableIds = tableList.map((t, i) => {
      const id = `r${i}${t.direction[0]}`;
      tables[id] = { direction: t.direction, admin: t.admin.map(fix), networkPolicy: { isolated: t.isolated, rules: t.isolated ? t.np.map(fix) : [] }, baseline: t.baseline.map(fix) };
      return id;
    });
    const pick = (dir: 'ingress' | 'egress', n: number) => {
      const matching = tableIds.filter((id) => tables[id]!.direction === dir);
      return matching.length > 0 ? matching[n % matching.length]! : null;
    };
    const nodes: Record<string, { addresses: string[]; pods: Record<string, SetPod> }> = { n1: { addresses: NODE_IPS.n1!, pods: {} }, n2: { addresses: NODE_IPS.n2!, pods: {} } };
    placement.forEach((p, i) => {
      const ingress = pick('ingress', p.ingress);
      const egress = pick('egress', p.egress);
      if (ingress && egress) nodes[p.node]!.pods[`ns/p${i}`] = { ips: POD_IPS[i]!, ingress, egress };
    });
    const finished: Record<string, SetNode> = {};
    for (const [name, n] of Object.entries(nodes)) {
      const used = [...new Set(Object.values(n.pods).flatMap((p) => [p.ingress, p.egress]))].sort();
      const usedSets = [...new Set(used.flatMap((t) => [tables[t]!.admin, tables[t]!.networkPolicy.rules, tables[t]!.baseline].flat().flatMap((r) => (r.set ? [r.set] : []))))].sort();
      finished[name] = { addresses: n.addresses, pods: n.pods, sets: usedSets, tables: used };
    }
    return { version: SET_IR_VERSION, sets: IdRecord.fromObject(sets), tables: IdRecord.fromObject(tables), nodes: finished };
  });

const ADDRESSES = [...POD_IPS.flat(), '172.18.0.2', '172.18.0.3', 'fc00::2', '10.0.1.99', '192.0.2.9', 'fd00::1:ff', '2001:db8::1'];

describe('renderers of the set form equal its reference reading', () => {
  const formats = Object.entries(DATAPLANES).filter(([, d]) => rendersSets(d));
  it('renders at least nftables from the set form', () => expect(formats.map(([f]) => f)).toContain('nftables'));
  for (const [format, dataplane] of formats) {
    it(`${format}: on ${RUNS} random set forms, 40 flows each`, () => {
      let checked = 0;
      assertProperty(
        fc.property(setIrArb, fc.array(flowArb, { minLength: 40, maxLength: 40 }), (ir, flows) => {
          if (!rendersSets(dataplane)) return;
          const rendered = dataplane.render(ir);
          const sim = dataplane.simulator(rendered);
          const want = new SetIrSimulator(ir);
          for (const f of flows) {
            const [src, dst] = [ADDRESSES[f.from % ADDRESSES.length]!, ADDRESSES[f.to % ADDRESSES.length]!];
            if (src.includes(':') !== dst.includes(':') || src === dst) continue;
            const flow: FlowQuery = { src, dst, port: f.port, protocol: f.protocol };
            const expected = want.simulate(src, dst, f.protocol, f.port);
            checked++;
            const got = sim.allowed(flow);
            if (got !== expected.allowed) {
              throw new Error([`flow ${src} → ${dst} ${f.port}/${f.protocol}: set form ${expected.allowed ? 'allow' : 'deny'} (${JSON.stringify([expected.egress, expected.ingress])}), ${format} ${got ? 'allow' : 'deny'}`, JSON.stringify(ir, null, 1), JSON.stringify(rendered, null, 1)].join('\n'));
            }
          }
        }),
        { numRuns: RUNS, file: import.meta.url },
      );
      expect(checked).toBeGreaterThan(RUNS);
    }, 300_000);
  }
});
