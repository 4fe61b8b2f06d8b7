// simulate(compile(s), flow) == verdict(s, flow) on random snapshots and flows.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from '../../core/compile/compile.js';
import { globalTable } from '../../core/compile/combine.js';
import { IrSimulator } from '../../core/compile/simulate.js';
import { tableId } from '../../core/compile/table-id.js';
import { checkedFlows, flowArb, snapshotArb, generatedCluster } from '../support/random-snapshot.js';
import { assertProperty, propertyRuns } from '../support/property.js';

const RUNS = propertyRuns(1000);

describe('compiled tables equal the verdict engine', () => {
  it(`on ${RUNS} random snapshots, 40 flows each`, () => {
    assertProperty(
      fc.property(snapshotArb, fc.array(flowArb, { minLength: 40, maxLength: 40 }), (snapshot, flows) => {
        const cluster = generatedCluster(snapshot);
        const { ir } = compile(cluster);
        // Ids are content addresses however the compiler assembled them, and the global table
        // is BuildGlobalTable over the node's own tables.
        for (const node of Object.values(ir.nodes)) {
          for (const [id, rules] of Object.entries(node.tables)) expect(tableId(rules)).toBe(id);
          expect(node.tables[node.global!]).toEqual(globalTable(node, 'from-pod'));
        }
        const sim = new IrSimulator(ir);
        for (const f of checkedFlows(cluster, ir, flows)) {
          const { src, dst, verdict } = f;
          const s = sim.simulate(src, dst, f.protocol, f.port);
          if (s.allowed !== verdict.allowed) {
            const trace = (side: typeof verdict.egress) => side?.trace.map((t) => t.message).join(' → ');
            throw new Error(
              [
                `flow ${src} → ${dst} ${f.port}/${f.protocol}: verdict ${verdict.allowed ? 'allow' : 'deny'}${verdict.reason ? ` (${verdict.reason})` : ''}, tables ${s.allowed ? 'allow' : 'deny'}`,
                `egress trace: ${trace(verdict.egress)}`,
                `ingress trace: ${trace(verdict.ingress)}`,
                `egress table ${s.egress?.table} (rule ${s.egress?.index}): ${JSON.stringify(s.egress ? sim.table(s.egress.table) : null)}`,
                `ingress table ${s.ingress?.table} (rule ${s.ingress?.index}): ${JSON.stringify(s.ingress ? sim.table(s.ingress.table) : null)}`,
              ].join('\n'),
            );
          }
        }
      }),
      { file: import.meta.url, env: ['PROPERTY_RUNS', 'PROPERTY_DEPTH'], numRuns: RUNS },
    );
  });
});
