// "which policies apply to X", "is X isolated": the policies selecting a pod per direction and
// tier, on the chat phrasings' cluster (test/fixtures/ask-phrasing.yaml), and held to the verdict
// engine: a pod isolated for a direction is exactly one whose flows the NetworkPolicy tier decides
// when no Admin rule does.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ask } from '../../core/ask/answer.js';
import { parseQuestion } from '../../core/ask/parse.js';
import type { PoliciesAnswer } from '../../core/ask/policies.js';
import { evaluate } from '../../core/evaluate/engine.js';
import { resolveFlow } from '../../core/evaluate/resolve.js';
import { clusterOf, loadYaml } from '../support/cluster-builders.js';

const objects = (loadYaml(join(import.meta.dirname, '..', 'fixtures', 'ask-phrasing.yaml'))[0] as unknown as { items: unknown[] }).items;
const cluster = clusterOf(objects);
const policies = (q: string) => {
  const a = ask(cluster, q);
  expect(a, q).toMatchObject({ kind: 'policies' });
  return a as PoliciesAnswer;
};
const names = (refs: readonly { kind: string; namespace?: string; name: string }[]) => refs.map((r) => `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`);

describe('which policies apply to a pod', () => {
  it('reads the ways people ask it as one question', () => {
    const q = { kind: 'policies', subject: { pod: 'prod/db' }, isolation: false };
    for (const s of ['which policies apply to prod/db', 'what network policies select prod/db?', 'which netpols affect prod/db', 'what policies does prod/db have', 'what policies is prod/db selected by', 'does prod/db have a network policy', 'is prod/db selected by any policy', 'which policies apply to db -n prod']) expect(parseQuestion(s), s).toEqual(q);
    for (const s of ['is prod/db isolated?', 'is prod/db protected by a network policy', 'is prod/db locked down for ingress', 'what is blocking traffic to prod/db', 'what blocks access to db in prod']) expect(parseQuestion(s), s).toEqual({ ...q, isolation: true });
    // With a port, "what blocks traffic to Y on P" asks who can reach Y there.
    expect(parseQuestion('what is blocking traffic to prod/db on 5432')).toEqual(parseQuestion('who can reach prod/db on 5432'));
    // Reach questions keep their reading.
    expect(parseQuestion('is prod/db reachable from prod/backend')).toMatchObject({ kind: 'can' });
  });

  it('names the policies per direction and tier, as the engine selects them', () => {
    const a = policies('which policies apply to prod/db');
    expect(a.groups).toHaveLength(1);
    const [g] = a.groups;
    expect(g!.ingress.isolated).toBe(true);
    expect(names(g!.ingress.networkPolicy).sort()).toEqual(['NetworkPolicy prod/allow-backend-to-db', 'NetworkPolicy prod/allow-monitoring-metrics', 'NetworkPolicy prod/default-deny-ingress']);
    expect(names(g!.ingress.admin)).toContain('AdminNetworkPolicy isolate-prod-from-staging');
    // Only Ingress policies select db: egress is not isolated.
    expect(g!.egress).toMatchObject({ isolated: false, networkPolicy: [] });
    expect(a.text).toMatch(/^prod\/db: Ingress: isolated by NetworkPolicy /);
    // The backend's egress policy isolates its egress too.
    expect(policies('which policies apply to prod/deploy/backend').groups[0]!.egress).toMatchObject({ isolated: true });
  });

  it('answers a name for several pods per set of pods the same policies select', () => {
    const a = policies('which policies apply to ns/prod');
    expect(a.pods).toBe(cluster.podsByNamespace.get('prod')!.filter((p) => !p.hostNetwork).length);
    expect(a.groups.reduce((n, g) => n + g.pods, 0)).toBe(a.pods);
    expect(new Set(a.groups.map((g) => JSON.stringify([g.ingress, g.egress]))).size).toBe(a.groups.length);
    expect(policies('is ns/prod isolated').text).toMatch(/^ns\/prod \(\d+ pods, \d+ sets of policies\) is isolated for ingress and isolated for egress in \d+ of \d+ pods\./);
  });

  it('holds "isolated" to the engine: the NetworkPolicy tier decides a flow no Admin rule decides', () => {
    for (const pod of cluster.pods.filter((p) => !p.hostNetwork && p.ips.length > 0)) {
      const g = policies(`which policies apply to ${pod.key}`).groups[0]!;
      // From an address no policy names, on a port no rule names: only isolation can deny it.
      const v = evaluate(cluster, resolveFlow(cluster, { from: { ip: '198.51.100.7' }, to: { pod: pod.key }, port: 31337, protocol: 'TCP' }));
      const decidedByNp = v.ingress!.tier === 'networkpolicy';
      if (v.ingress!.tier !== 'admin') expect(decidedByNp, pod.key).toBe(g.ingress.isolated);
    }
  });

  it('refuses what no policy selects, saying why', () => {
    expect(ask(cluster, 'which policies apply to 8.8.8.8')).toMatchObject({ kind: 'error', text: expect.stringContaining('takes a pod, a workload or a Service') });
    expect(ask(cluster, 'which policies apply to prod/nosuch')).toMatchObject({ kind: 'error' });
    expect(ask(cluster, 'is the internet isolated')).toMatchObject({ kind: 'error', text: expect.stringContaining('and the internet is not one') });
  });
});
