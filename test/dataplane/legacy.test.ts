// Cases of the legacy NetworkPolicy e2e suite (network_legacy.go, ported in
// test/fixtures/upstream/k8s-e2e-netpol/network-legacy.cases.json) in a real kernel. They bring
// their own namespaces and pods (a server and its clients), so each case gets a topology of the
// base model plus its own pods, and is replayed as kernel.test.ts replays the others.
import { afterAll, describe, it } from 'vitest';
import { loadSuite, type Family, type K8sObject, type Suite, type UpstreamCase } from '../support/upstream.js';
import { Agent, buildTopology, run, teardown } from './netns.js';
import { installOthers } from './probe.js';
import { BLOCKER, NO_IPV6, NO_SCTP, PREFIX, runCase } from './replay.js';

/**
 * Policies without policyTypes (the API default decides isolation, egress rules included), an
 * except-CIDR and a second policy allowing the excepted address at once, and egress to a named
 * port: what the legacy suite adds over the cases kernel.test.ts runs.
 */
const LEGACY = ['legacy-egress-one-named-port', 'legacy-ipblock-cidr-and-except-overlap', 'legacy-ingress-and-egress-together'];

const key = (o: K8sObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** The base objects and every Namespace and Pod the case applies (a relabelled pod keeps its address: the first is enough). */
function objectsOf(suite: Suite, c: UpstreamCase): K8sObject[] {
  const byKey = new Map(suite.base.map((o) => [key(o), o]));
  for (const step of c.steps) for (const o of step.apply ?? []) if ((o.kind === 'Pod' || o.kind === 'Namespace') && !byKey.has(key(o))) byKey.set(key(o), o);
  return [...byKey.values()];
}

describe('real kernel: k8s-e2e-netpol legacy suite', () => {
  if (BLOCKER) {
    it.skip(`skipped: ${BLOCKER}`, () => {});
    return;
  }
  const suite = loadSuite('k8s-e2e-netpol');
  const prefix = `${PREFIX}leg-`;
  afterAll(() => {
    teardown(prefix);
  });

  for (const name of LEGACY) {
    const c = suite.cases.find((x) => x.name === name);
    if (!c) throw new Error(`k8s-e2e-netpol has no case ${name}`);
    it(`${name} — ${c.upstreamTest}`, async () => {
      teardown(prefix);
      const topo = buildTopology(objectsOf(suite, c), prefix, !NO_IPV6);
      const agents = new Map<string, Agent>();
      try {
        const ports = [...new Set(c.steps.flatMap((s) => (s.probes ?? []).map((p) => p.port)))].sort((a, b) => a - b);
        for (const ns of new Set([...topo.nodes.values(), ...topo.pods.values()].map((x) => x.ns))) agents.set(ns, await Agent.start(ns, { ports, ipv6: !NO_IPV6, sctp: !NO_SCTP }));
        installOthers(topo, !NO_IPV6);
        const families = (c.families ?? (['IPv4', 'IPv6'] as Family[])).filter((f) => f === 'IPv4' || !NO_IPV6);
        for (const family of families) await runCase(suite, c, family, topo, agents);
      } finally {
        await Promise.all([...agents.values()].map((a) => a.stop()));
        teardown(prefix);
        if (run('ip', ['netns', 'list']).split('\n').some((l) => l.startsWith(prefix))) throw new Error(`network namespaces ${prefix}* left behind`);
      }
    }, 240_000);
  }
});
