// Every renderer's simulator, reading only the rendered output, equals the verdict engine.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { compile } from '../../core/compile/compile.js';
import { compileSets } from '../../core/sets/compile.js';
import { DATAPLANES, renderFormat } from '../../core/render/index.js';
import { LimitError } from '../../core/limits.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { checkedFlows, flowArb, snapshotArb } from '../support/random-snapshot.js';
import { assertProperty, propertyRuns } from '../support/property.js';

const RUNS = propertyRuns(1000);
/** Formats whose model cannot match SCTP ports (documented in their modules). */
const NO_SCTP_PORTS = new Set(['vpp-acl', 'vpp-session']);

describe('renderers equal the verdict engine', () => {
  it(`${Object.keys(DATAPLANES).join(', ')} on ${RUNS} random snapshots`, () => {
    let checked = 0;
    let refused = 0;
    let run = 0;
    assertProperty(
      fc.property(snapshotArb, fc.array(flowArb, { minLength: 30, maxLength: 30 }), (snapshot, flows) => {
        const parsed = parseSnapshot(snapshot);
        if (!parsed.ok) throw new Error('invalid generated snapshot');
        const cluster = buildCluster(parsed.snapshot);
        const { ir } = compile(cluster);
        const sets = compileSets(cluster).ir;
        // Rendering twice and comparing bytes is costly on multi-MB outputs: every 20th snapshot.
        const checkDeterminism = run++ % 20 === 0;
        const rendered = Object.entries(DATAPLANES).flatMap(([format, dp]) => {
          let out;
          try {
            out = renderFormat(dp, () => sets, () => ir);
          } catch (e) {
            // A documented refusal (vpp-session's per-node rule limit), not a wrong answer.
            if (e instanceof LimitError) return (refused++, []);
            throw e;
          }
          if (checkDeterminism) expect(JSON.stringify(renderFormat(dp, () => sets, () => ir)), `${format} is deterministic`).toBe(JSON.stringify(out));
          return [{ format, out, sim: dp.simulator(out) }];
        });
        for (const f of checkedFlows(cluster, ir, flows)) {
          const { src, dst, verdict: v } = f;
          for (const r of rendered) {
            if (f.protocol === 'SCTP' && NO_SCTP_PORTS.has(r.format)) continue;
            const got = r.sim.allowed({ src, dst, protocol: f.protocol, port: f.port });
            checked++;
            if (got !== v.allowed) {
              const trace = (s: typeof v.egress) => s?.trace.map((t) => t.message).join(' → ');
              throw new Error(`${r.format}: ${src} → ${dst} ${f.port}/${f.protocol}: engine ${v.allowed}, rendered ${got}\negress: ${trace(v.egress)}\ningress: ${trace(v.ingress)}\n${JSON.stringify(r.out, null, 1).slice(0, 6000)}`);
            }
          }
        }
      }),
      { file: import.meta.url, numRuns: RUNS },
    );
    expect(checked).toBeGreaterThan(RUNS);
    // Refusals must stay rare, or the vpp-session check would be hollow.
    expect(refused).toBeLessThan(RUNS / 20);
    console.log(`renderer checks: ${checked} flow comparisons, ${refused} vpp-session renders refused over the rule limit`);
  }, 600_000);
});
