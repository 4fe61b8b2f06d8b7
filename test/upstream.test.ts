// Every probed pair of the upstream suites (ported as data) against the verdict engine.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSnapshot } from '../schemas/snapshot.js';
import { buildCluster } from '../core/cluster.js';
import { evaluate } from '../core/evaluate/engine.js';
import { resolveFlow, type EndpointSpec } from '../core/evaluate/resolve.js';
import { compile } from '../core/compile/compile.js';
import { IrSimulator } from '../core/compile/simulate.js';
import { compileSets } from '../core/sets/compile.js';
import { SetIrSimulator } from '../core/sets/simulate.js';
import { formatIp, parseIp } from '../core/net/ip.js';
import type { Cluster } from '../core/cluster.js';
import { expectations, FIXTURES, loadSuite, probedPods, replay, type EndpointRef, type Family } from './support/upstream.js';

const SUITES = ['k8s-e2e-netpol', 'npapi-v1alpha1', 'npapi-v1alpha2'].filter((s) => existsSync(join(FIXTURES, s, 'base.json')));

const spec = (e: EndpointRef): EndpointSpec => (typeof e === 'string' ? { pod: e } : { ip: e.ip });

/** The address a probe endpoint has in a family, as the dataplane sees it. */
function address(cluster: Cluster, e: EndpointRef, family: Family): string | null {
  if (typeof e !== 'string') return formatIp(parseIp(e.ip)!.family, parseIp(e.ip)!.value);
  const ip = cluster.podByKey.get(e)?.ips.find((i) => i.family === (family === 'IPv4' ? 4 : 6));
  return ip ? formatIp(ip.family, ip.value) : null;
}

/** Pairs where the port records upstream expecting otherwise than the API text says. */
function disagreements(folder: string): string[] {
  const out: string[] = [];
  for (const c of loadSuite(folder).cases)
    for (const s of c.steps)
      for (const p of s.probes ?? [])
        for (const pair of p.pairs ?? []) if (pair.disagreement) out.push(`${c.name}: ${JSON.stringify(pair.from)} → ${JSON.stringify(pair.to)} ${p.port}/${p.protocol}: ${pair.disagreement}`);
  return out;
}

for (const folder of SUITES) {
  const suite = loadSuite(folder);
  describe(folder, () => {
    it('has cases', () => {
      expect(suite.cases.length).toBeGreaterThan(0);
      for (const d of disagreements(folder)) console.warn(`[${folder}] disagreement with upstream: ${d}`);
    });
    for (const c of suite.cases) {
      for (const family of c.families ?? (['IPv4', 'IPv6'] as Family[])) {
        it(`${c.name} [${family}] — ${c.upstreamTest}`, () => {
          let checked = 0;
          const failures: string[] = [];
          for (const { index, step, objects } of replay(suite, c, family)) {
            if (!step.probes?.length) continue;
            const parsed = parseSnapshot({ items: objects });
            if (!parsed.ok) throw new Error(`step ${index}: snapshot invalid: ${JSON.stringify(parsed.issues.slice(0, 5), null, 2)}`);
            const cluster = buildCluster(parsed.snapshot);
            const sim = new IrSimulator(compile(cluster).ir);
            const setSim = new SetIrSimulator(compileSets(cluster).ir);
            const pods = probedPods(objects);
            for (const probe of step.probes) {
              for (const exp of expectations(probe, pods, objects, family)) {
                const flow = resolveFlow(cluster, { from: spec(exp.from), to: spec(exp.to), port: exp.port, protocol: exp.protocol, ipFamily: family });
                const v = evaluate(cluster, flow);
                checked++;
                if (v.allowed !== exp.allowed) {
                  const why = [v.egress && `egress: ${v.egress.trace.map((t) => t.message).join(' → ')}`, v.ingress && `ingress: ${v.ingress.trace.map((t) => t.message).join(' → ')}`].filter(Boolean).join(' | ');
                  failures.push(`step ${index} ${JSON.stringify(exp.from)} → ${JSON.stringify(exp.to)} ${exp.port}/${exp.protocol}: expected ${exp.allowed ? 'allow' : 'deny'}, got ${v.allowed ? 'allow' : 'deny'} (${v.reason ?? why})`);
                }
                // The compiled tables must say the same (issue: "Every upstream-derived case … through the compiled IR").
                const src = address(cluster, exp.from, family);
                const dst = address(cluster, exp.to, family);
                if (src && dst) {
                  const s = sim.simulate(src, dst, exp.protocol, exp.port);
                  if (s.allowed !== exp.allowed) {
                    failures.push(`ir-flat step ${index} ${src} → ${dst} ${exp.port}/${exp.protocol}: expected ${exp.allowed ? 'allow' : 'deny'}, tables say ${s.allowed ? 'allow' : 'deny'} (egress ${s.egress?.table} rule ${s.egress?.index}, ingress ${s.ingress?.table} rule ${s.ingress?.index})`);
                  }
                  const t = setSim.simulate(src, dst, exp.protocol, exp.port);
                  if (t.allowed !== exp.allowed) {
                    failures.push(`ir step ${index} ${src} → ${dst} ${exp.port}/${exp.protocol}: expected ${exp.allowed ? 'allow' : 'deny'}, set form says ${t.allowed ? 'allow' : 'deny'} (egress ${JSON.stringify(t.egress)}, ingress ${JSON.stringify(t.ingress)})`);
                  }
                }
              }
            }
          }
          expect(failures).toEqual([]);
          expect(checked).toBeGreaterThan(0);
        });
      }
    }
  });
}
