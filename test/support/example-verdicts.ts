// The documented answers to examples/verdicts-request.json, asserted the same way on every
// runtime (in-process hono, workerd, Lambda) so the README's promise is checked once.
import { expect } from 'vitest';

export function expectExampleVerdicts(body: { verdicts: any[]; warnings: string[] }): void {
  const { verdicts, warnings } = body;
  expect(warnings).toEqual([]);
  expect(verdicts.map((v) => v.allowed)).toEqual([true, false, true, false, true]);

  // shop/web → shop/db 5432: Admin passes shop traffic down, the NetworkPolicy allows it.
  expect(verdicts[0].ingress).toMatchObject({ allowed: true, tier: 'networkpolicy', policy: { kind: 'NetworkPolicy', namespace: 'shop', name: 'db-from-web' }, rule: { index: 0 } });
  expect(verdicts[0].ingress.trace.map((t: any) => `${t.tier}:${t.outcome}`)).toEqual(['admin:pass', 'networkpolicy:allow']);
  expect(verdicts[0].egress).toMatchObject({ allowed: true, tier: 'default', policy: null, rule: null });

  // payments/api → shop/db on the named port: isolated by the NetworkPolicy, no rule matches.
  expect(verdicts[1].flow).toEqual({ from: 'payments/api', to: 'shop/db', port: 5432, protocol: 'TCP', ipFamily: 'IPv4' });
  expect(verdicts[1].ingress).toMatchObject({ allowed: false, tier: 'networkpolicy', policy: null });

  // monitoring → shop/db: Admin Allow is final.
  expect(verdicts[2].ingress).toMatchObject({ tier: 'admin', rule: { index: 0, name: 'allow-monitoring' } });

  // shop/web → payments/api: Pass → no NetworkPolicy → Baseline Deny (the README's excerpt).
  expect(verdicts[3].ingress.trace.map((t: any) => t.message)).toEqual([
    'Pass by AdminNetworkPolicy tenant-guardrails rule 1 "delegate-shop"',
    'no NetworkPolicy selects the pod for ingress',
    'Deny by BaselineAdminNetworkPolicy default rule 0 "deny-pod-traffic"',
  ]);
  expect(verdicts[3].ingress.policy).toEqual({ apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'BaselineAdminNetworkPolicy', name: 'default' });

  // An external address has no egress side.
  expect(verdicts[4].egress).toBeNull();
  expect(verdicts[4].flow.from).toBe('203.0.113.7');
}
