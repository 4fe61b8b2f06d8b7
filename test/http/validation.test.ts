// HTTP validation table: every rule the schemas implement, one request each to
// POST /v1/verdicts with a minimal valid snapshot plus one broken object. Each case asserts
// 422, the exact JSON path of the offending value, the object identity and a message that
// says what is wrong. Then the body plumbing: 400 / 413 / 415 and multi-document YAML.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';

// ---------------------------------------------------------------------------------------
// Fixtures

type Obj = Record<string, unknown>;

const errors: unknown[] = [];
const app = createApp({ logError: (e) => errors.push(e) });

const NAMESPACE: Obj = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', labels: { team: 'x' } } };

function pod(name: string, ip: string, ports: { name: string; containerPort: number; protocol?: string }[] = []): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'x', labels: { app: name } },
    spec: { nodeName: 'node-1', containers: [{ name: 'main', ports }] },
    status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] },
  };
}

/** The minimal valid snapshot: items[0..2]; the object under test is items[3]. */
const BASE: Obj[] = [NAMESPACE, pod('a', '10.0.0.1'), pod('b', '10.0.0.2', [{ name: 'http', containerPort: 80 }])];
const AT = '$.snapshot.items[3]';
const FLOWS = [{ from: 'x/a', to: 'x/b', port: 80 }];

function request(extra: Obj | Obj[] | null, flows: unknown = FLOWS): Obj {
  const items = extra === null ? BASE : [...BASE, ...(Array.isArray(extra) ? extra : [extra])];
  return { snapshot: { apiVersion: 'v1', kind: 'List', items }, flows };
}

async function post(body: unknown, init: { contentType?: string; raw?: boolean; path?: string; app?: ReturnType<typeof createApp> } = {}) {
  errors.length = 0;
  const res = await (init.app ?? app).request(init.path ?? '/v1/verdicts', {
    method: 'POST',
    headers: { 'content-type': init.contentType ?? 'application/json' },
    body: init.raw ? (body as string) : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, json, errors: [...errors] };
}

function expectErrorBody(r: Awaited<ReturnType<typeof post>>, status: number, error: string): void {
  const why = `status ${r.status}, body ${r.text.slice(0, 2000)}${r.errors.length ? `, logged: ${r.errors.map((e) => (e as Error)?.stack ?? String(e)).join('\n')}` : ''}`;
  expect(r.status, why).toBe(status);
  expect(r.contentType, why).toMatch(/^application\/json/);
  expect(r.json, why).toBeTypeOf('object');
  expect(r.json.error, why).toBe(error);
  expect(r.json.message, why).toBeTypeOf('string');
  expect(r.json.message.length, why).toBeGreaterThan(0);
}

// --- policy templates (each one valid on its own; see "templates are valid" below) ---

const np = (spec: Obj, name = 'np'): Obj => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name, namespace: 'x' },
  spec: { podSelector: {}, ...spec },
});
const npIngressPort = (port: Obj): Obj => np({ ingress: [{ from: [{ podSelector: {} }], ports: [port] }] });
const npIngressPeer = (peer: Obj): Obj => np({ ingress: [{ from: [peer] }] });
const npSelector = (podSelector: Obj): Obj => np({ podSelector });

const legacy = (spec: Obj): Obj => ({
  apiVersion: 'extensions/v1beta1',
  kind: 'NetworkPolicy',
  metadata: { name: 'legacy', namespace: 'x' },
  spec: { podSelector: {}, ...spec },
});

const ANP_V = 'policy.networking.k8s.io/v1alpha1';
const anp = (spec: Obj, name = 'anp'): Obj => ({
  apiVersion: ANP_V,
  kind: 'AdminNetworkPolicy',
  metadata: { name },
  spec: { priority: 10, subject: { namespaces: {} }, ...spec },
});
const banp = (spec: Obj, name = 'default'): Obj => ({
  apiVersion: ANP_V,
  kind: 'BaselineAdminNetworkPolicy',
  metadata: { name },
  spec: { subject: { namespaces: {} }, ...spec },
});
const anpIn = (rule: Obj): Obj => anp({ ingress: [{ action: 'Allow', from: [{ namespaces: {} }], ...rule }] });
const anpOut = (rule: Obj): Obj => anp({ egress: [{ action: 'Allow', to: [{ namespaces: {} }], ...rule }] });

const cnp = (spec: Obj, name = 'cnp'): Obj => ({
  apiVersion: 'policy.networking.k8s.io/v1alpha2',
  kind: 'ClusterNetworkPolicy',
  metadata: { name },
  spec: { tier: 'Admin', priority: 10, subject: { namespaces: {} }, ...spec },
});
const cnpOut = (rule: Obj): Obj => cnp({ egress: [{ action: 'Accept', to: [{ namespaces: {} }], ...rule }] });
const cnpProto = (entry: Obj): Obj => cnpOut({ protocols: [entry] });

const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

const NP_ID = { kind: 'NetworkPolicy', namespace: 'x', name: 'np' };
const LEGACY_ID = { kind: 'NetworkPolicy', namespace: 'x', name: 'legacy' };
const ANP_ID = { kind: 'AdminNetworkPolicy', name: 'anp' };
const BANP_ID = { kind: 'BaselineAdminNetworkPolicy', name: 'default' };
const CNP_ID = { kind: 'ClusterNetworkPolicy', name: 'cnp' };

// ---------------------------------------------------------------------------------------
// The table

interface Case {
  readonly name: string;
  /** The broken object appended to the minimal snapshot (at items[3]); or a whole body. */
  readonly object?: Obj;
  readonly body?: unknown;
  readonly path: string;
  /** Identity of the offending snapshot object; null for request-level issues (flows, snapshot shape). */
  readonly id: { kind: string; namespace?: string; name: string } | null;
  readonly message: RegExp;
}

const CASES: Case[] = [
  // ---- networking.k8s.io/v1 NetworkPolicy: ports (ValidateNetworkPolicyPort) ----
  { name: 'NP endPort without port', object: npIngressPort({ endPort: 90 }), path: `${AT}.spec.ingress[0].ports[0].endPort`, id: NP_ID, message: /`port` is not specified/ },
  { name: 'NP endPort with a named port', object: npIngressPort({ port: 'http', endPort: 90 }), path: `${AT}.spec.ingress[0].ports[0].endPort`, id: NP_ID, message: /non-numeric/ },
  { name: 'NP endPort < port', object: npIngressPort({ port: 90, endPort: 80 }), path: `${AT}.spec.ingress[0].ports[0].endPort`, id: NP_ID, message: /greater than or equal to `port`/ },
  { name: 'NP endPort out of range', object: npIngressPort({ port: 80, endPort: 65536 }), path: `${AT}.spec.ingress[0].ports[0].endPort`, id: NP_ID, message: /between 1 and 65535/ },
  { name: 'NP port 0', object: npIngressPort({ port: 0 }), path: `${AT}.spec.ingress[0].ports[0].port`, id: NP_ID, message: /1 and 65535/ },
  { name: 'NP port 65536', object: npIngressPort({ port: 65536 }), path: `${AT}.spec.ingress[0].ports[0].port`, id: NP_ID, message: /1 and 65535/ },
  { name: 'NP port on an egress rule', object: np({ egress: [{ to: [{ podSelector: {} }], ports: [{ port: 0 }] }] }), path: `${AT}.spec.egress[0].ports[0].port`, id: NP_ID, message: /1 and 65535/ },
  // A non-integer hits the union of number and name; the message must still say what is wrong.
  { name: 'NP port not an integer', object: npIngressPort({ port: 1.5 }), path: `${AT}.spec.ingress[0].ports[0].port`, id: NP_ID, message: /integer|65535|IANA_SVC_NAME/ },
  { name: 'NP bad protocol', object: npIngressPort({ protocol: 'ICMP', port: 80 }), path: `${AT}.spec.ingress[0].ports[0].protocol`, id: NP_ID, message: /"TCP", "UDP", "SCTP"/ },
  { name: 'NP lower-case protocol', object: npIngressPort({ protocol: 'tcp', port: 80 }), path: `${AT}.spec.ingress[0].ports[0].protocol`, id: NP_ID, message: /"TCP", "UDP", "SCTP"/ },
  { name: 'NP named port upper case', object: npIngressPort({ port: 'HTTP' }), path: `${AT}.spec.ingress[0].ports[0].port`, id: NP_ID, message: /IANA_SVC_NAME/ },
  { name: 'NP named port longer than 15', object: npIngressPort({ port: 'abcdefghijklmnop' }), path: `${AT}.spec.ingress[0].ports[0].port`, id: NP_ID, message: /IANA_SVC_NAME.*15/ },
  { name: 'NP named port with "--"', object: npIngressPort({ port: 'my--port' }), path: `${AT}.spec.ingress[0].ports[0].port`, id: NP_ID, message: /"--"/ },
  { name: 'NP named port of digits only', object: npIngressPort({ port: '8080' }), path: `${AT}.spec.ingress[0].ports[0].port`, id: NP_ID, message: /at least one letter/ },
  { name: 'NP named port starting with "-"', object: npIngressPort({ port: '-http' }), path: `${AT}.spec.ingress[0].ports[0].port`, id: NP_ID, message: /IANA_SVC_NAME/ },

  // ---- peers (ValidateNetworkPolicyPeer / ValidateIPBlock) ----
  { name: 'NP peer with no field', object: npIngressPeer({}), path: `${AT}.spec.ingress[0].from[0]`, id: NP_ID, message: /must specify a peer/ },
  { name: 'NP egress peer with no field', object: np({ egress: [{ to: [{ podSelector: null }] }] }), path: `${AT}.spec.egress[0].to[0]`, id: NP_ID, message: /must specify a peer/ },
  { name: 'NP ipBlock with podSelector', object: npIngressPeer({ podSelector: {}, ipBlock: { cidr: '10.0.0.0/8' } }), path: `${AT}.spec.ingress[0].from[0].ipBlock`, id: NP_ID, message: /both .*ipBlock/ },
  { name: 'NP ipBlock with namespaceSelector', object: npIngressPeer({ namespaceSelector: {}, ipBlock: { cidr: '10.0.0.0/8' } }), path: `${AT}.spec.ingress[0].from[0].ipBlock`, id: NP_ID, message: /both .*ipBlock/ },
  { name: 'NP ipBlock invalid CIDR', object: npIngressPeer({ ipBlock: { cidr: '10.0.0.0/33' } }), path: `${AT}.spec.ingress[0].from[0].ipBlock.cidr`, id: NP_ID, message: /invalid CIDR/ },
  { name: 'NP ipBlock address without prefix', object: npIngressPeer({ ipBlock: { cidr: '10.0.0.1' } }), path: `${AT}.spec.ingress[0].from[0].ipBlock.cidr`, id: NP_ID, message: /invalid CIDR/ },
  { name: 'NP ipBlock without cidr', object: npIngressPeer({ ipBlock: { except: [] } }), path: `${AT}.spec.ingress[0].from[0].ipBlock.cidr`, id: NP_ID, message: /must be specified/ },
  // ip-num's validator passes these zoned texts and its constructor throws on them: once a 500.
  { name: 'NP ipBlock zoned IPv6 CIDR, prefix past 128', object: npIngressPeer({ ipBlock: { cidr: 'fe80::1%eth0/129' } }), path: `${AT}.spec.ingress[0].from[0].ipBlock.cidr`, id: NP_ID, message: /invalid CIDR/ },
  { name: 'NP ipBlock zoned IPv6 CIDR (Go net.ParseCIDR rejects zones)', object: npIngressPeer({ ipBlock: { cidr: 'fe80::1%eth0/64' } }), path: `${AT}.spec.ingress[0].from[0].ipBlock.cidr`, id: NP_ID, message: /invalid CIDR/ },
  { name: 'NP ipBlock empty zone', object: npIngressPeer({ ipBlock: { cidr: '::%/1' } }), path: `${AT}.spec.ingress[0].from[0].ipBlock.cidr`, id: NP_ID, message: /invalid CIDR/ },
  { name: 'NP except invalid CIDR', object: npIngressPeer({ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/99'] } }), path: `${AT}.spec.ingress[0].from[0].ipBlock.except[0]`, id: NP_ID, message: /invalid CIDR/ },
  { name: 'NP except equal to cidr', object: npIngressPeer({ ipBlock: { cidr: '10.0.0.0/8', except: ['10.0.0.0/8'] } }), path: `${AT}.spec.ingress[0].from[0].ipBlock.except[0]`, id: NP_ID, message: /strict subset/ },
  { name: 'NP except wider than cidr', object: npIngressPeer({ ipBlock: { cidr: '10.0.0.0/16', except: ['10.1.0.0/24', '10.0.0.0/8'] } }), path: `${AT}.spec.ingress[0].from[0].ipBlock.except[1]`, id: NP_ID, message: /strict subset/ },
  { name: 'NP except outside cidr', object: npIngressPeer({ ipBlock: { cidr: '10.0.0.0/16', except: ['192.168.0.0/24'] } }), path: `${AT}.spec.ingress[0].from[0].ipBlock.except[0]`, id: NP_ID, message: /strict subset/ },
  { name: 'NP except of the other family', object: npIngressPeer({ ipBlock: { cidr: '10.0.0.0/8', except: ['fd00::/64'] } }), path: `${AT}.spec.ingress[0].from[0].ipBlock.except[0]`, id: NP_ID, message: /strict subset/ },
  { name: 'NP IPv6 except equal to cidr', object: npIngressPeer({ ipBlock: { cidr: 'fd00::/64', except: ['fd00::/64'] } }), path: `${AT}.spec.ingress[0].from[0].ipBlock.except[0]`, id: NP_ID, message: /strict subset/ },

  // ---- policyTypes ----
  { name: 'NP three policyTypes', object: np({ policyTypes: ['Ingress', 'Egress', 'Ingress'] }), path: `${AT}.spec.policyTypes`, id: NP_ID, message: /more than two policyTypes/ },
  { name: 'NP unknown policyType', object: np({ policyTypes: ['Ingress', 'Sideways'] }), path: `${AT}.spec.policyTypes[1]`, id: NP_ID, message: /"Ingress", "Egress"/ },

  // ---- label selectors (ValidateLabelSelector) ----
  { name: 'selector In without values', object: npSelector({ matchExpressions: [{ key: 'app', operator: 'In', values: [] }] }), path: `${AT}.spec.podSelector.matchExpressions[0].values`, id: NP_ID, message: /must be specified when `operator` is 'In'/ },
  { name: 'selector NotIn with values missing', object: npSelector({ matchExpressions: [{ key: 'app', operator: 'NotIn' }] }), path: `${AT}.spec.podSelector.matchExpressions[0].values`, id: NP_ID, message: /must be specified when `operator` is 'NotIn'/ },
  { name: 'selector Exists with values', object: npSelector({ matchExpressions: [{ key: 'app', operator: 'Exists', values: ['a'] }] }), path: `${AT}.spec.podSelector.matchExpressions[0].values`, id: NP_ID, message: /may not be specified when `operator` is 'Exists'/ },
  { name: 'selector DoesNotExist with values', object: npSelector({ matchExpressions: [{ key: 'app', operator: 'DoesNotExist', values: ['a'] }] }), path: `${AT}.spec.podSelector.matchExpressions[0].values`, id: NP_ID, message: /may not be specified when `operator` is 'DoesNotExist'/ },
  { name: 'selector unknown operator', object: npSelector({ matchExpressions: [{ key: 'app', operator: 'Equals', values: ['a'] }] }), path: `${AT}.spec.podSelector.matchExpressions[0].operator`, id: NP_ID, message: /In|NotIn|Exists|DoesNotExist|operator/ },
  { name: 'selector bad expression key', object: npSelector({ matchExpressions: [{ key: 'bad key', operator: 'Exists' }] }), path: `${AT}.spec.podSelector.matchExpressions[0].key`, id: NP_ID, message: /qualified name/ },
  { name: 'selector bad expression value', object: npSelector({ matchExpressions: [{ key: 'app', operator: 'In', values: ['ok', '-bad-'] }] }), path: `${AT}.spec.podSelector.matchExpressions[0].values[1]`, id: NP_ID, message: /label value/ },
  { name: 'selector bad matchLabels value', object: npSelector({ matchLabels: { app: 'has space' } }), path: `${AT}.spec.podSelector.matchLabels.app`, id: NP_ID, message: /label value/ },
  { name: 'selector matchLabels value over 63 chars', object: npSelector({ matchLabels: { app: 'a'.repeat(64) } }), path: `${AT}.spec.podSelector.matchLabels.app`, id: NP_ID, message: /63/ },
  // The message must say why the key is bad (qualified name), not only that it is.
  { name: 'selector bad matchLabels key', object: npSelector({ matchLabels: { 'bad key': 'v' } }), path: `${AT}.spec.podSelector.matchLabels["bad key"]`, id: NP_ID, message: /qualified name/ },
  { name: 'selector matchLabels key with two "/"', object: npSelector({ matchLabels: { 'a/b/c': 'v' } }), path: `${AT}.spec.podSelector.matchLabels["a/b/c"]`, id: NP_ID, message: /qualified name/ },
  { name: 'peer namespaceSelector bad value', object: npIngressPeer({ namespaceSelector: { matchLabels: { team: 'x!' } } }), path: `${AT}.spec.ingress[0].from[0].namespaceSelector.matchLabels.team`, id: NP_ID, message: /label value/ },
  { name: 'Pod label with a bad value', object: { ...pod('c', '10.0.0.3'), metadata: { name: 'c', namespace: 'x', labels: { app: '-c' } } }, path: `${AT}.metadata.labels.app`, id: { kind: 'Pod', namespace: 'x', name: 'c' }, message: /label value/ },

  // ---- extensions/v1beta1 (the proposal form) ----
  { name: 'legacy NP with egress', object: legacy({ egress: [{}] }), path: `${AT}.spec.egress`, id: LEGACY_ID, message: /ingress-only|networking\.k8s\.io\/v1/ },
  { name: 'legacy NP with policyTypes', object: legacy({ policyTypes: ['Ingress'] }), path: `${AT}.spec.policyTypes`, id: LEGACY_ID, message: /ingress-only|networking\.k8s\.io\/v1/ },
  { name: 'legacy NP with an ipBlock peer', object: legacy({ ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }] }), path: `${AT}.spec.ingress[0].from[0]`, id: LEGACY_ID, message: /podSelector or namespaceSelector/ },
  { name: 'legacy NP peer with podSelector and namespaceSelector', object: legacy({ ingress: [{ from: [{ podSelector: {}, namespaceSelector: {} }] }] }), path: `${AT}.spec.ingress[0].from[0]`, id: LEGACY_ID, message: /exactly one of podSelector or namespaceSelector/ },
  // A peer that has a selector *and* an ipBlock: the ipBlock must not be dropped silently
  // (the schema rejects egress/policyTypes for that very reason).
  { name: 'legacy NP peer with podSelector and ipBlock', object: legacy({ ingress: [{ from: [{ podSelector: { matchLabels: { app: 'none' } }, ipBlock: { cidr: '10.0.0.0/8' } }] }] }), path: `${AT}.spec.ingress[0].from[0].ipBlock`, id: LEGACY_ID, message: /ipBlock/ },
  { name: 'legacy NP bad port', object: legacy({ ingress: [{ ports: [{ port: 70000 }] }] }), path: `${AT}.spec.ingress[0].ports[0].port`, id: LEGACY_ID, message: /1 and 65535/ },

  // ---- Namespace: the proposal's isolation annotation ----
  {
    name: 'legacy namespace annotation is not JSON',
    object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'y', annotations: { 'net.beta.kubernetes.io/network-policy': '{ingress: DefaultDeny' } } },
    path: `${AT}.metadata.annotations["net.beta.kubernetes.io/network-policy"]`,
    id: { kind: 'Namespace', name: 'y' },
    message: /must be JSON/,
  },
  {
    name: 'legacy namespace annotation with an unknown isolation',
    object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'y', annotations: { 'net.beta.kubernetes.io/network-policy': '{"ingress": {"isolation": "AllowAll"}}' } } },
    path: `${AT}.metadata.annotations["net.beta.kubernetes.io/network-policy"].ingress.isolation`,
    id: { kind: 'Namespace', name: 'y' },
    message: /DefaultDeny/,
  },

  // ---- AdminNetworkPolicy (v1alpha1) ----
  { name: 'ANP priority -1', object: anp({ priority: -1 }), path: `${AT}.spec.priority`, id: ANP_ID, message: /greater than or equal to 0/ },
  { name: 'ANP priority 1001', object: anp({ priority: 1001 }), path: `${AT}.spec.priority`, id: ANP_ID, message: /less than or equal to 1000/ },
  { name: 'ANP priority not an integer', object: anp({ priority: 1.5 }), path: `${AT}.spec.priority`, id: ANP_ID, message: /integer/ },
  { name: 'ANP priority missing', object: { ...anp({}), spec: { subject: { namespaces: {} } } }, path: `${AT}.spec.priority`, id: ANP_ID, message: /integer from 0 to 1000/ },
  { name: 'ANP subject with two fields', object: anp({ subject: { namespaces: {}, pods: { namespaceSelector: {}, podSelector: {} } } }), path: `${AT}.spec.subject`, id: ANP_ID, message: /exactly one of namespaces, pods/ },
  { name: 'ANP subject with no field', object: anp({ subject: {} }), path: `${AT}.spec.subject`, id: ANP_ID, message: /exactly one of namespaces, pods/ },
  { name: 'ANP subject selector invalid', object: anp({ subject: { namespaces: { matchLabels: { team: '!' } } } }), path: `${AT}.spec.subject.namespaces.matchLabels.team`, id: ANP_ID, message: /label value/ },
  { name: 'ANP peer with two fields', object: anpIn({ from: [{ namespaces: {}, pods: { namespaceSelector: {}, podSelector: {} } }] }), path: `${AT}.spec.ingress[0].from[0]`, id: ANP_ID, message: /exactly one of namespaces, pods/ },
  { name: 'ANP egress peer with no field', object: anpOut({ to: [{}] }), path: `${AT}.spec.egress[0].to[0]`, id: ANP_ID, message: /exactly one of/ },
  { name: 'ANP pods peer selector invalid', object: anpIn({ from: [{ pods: { namespaceSelector: {}, podSelector: { matchExpressions: [{ key: 'app', operator: 'In' }] } } }] }), path: `${AT}.spec.ingress[0].from[0].pods.podSelector.matchExpressions[0].values`, id: ANP_ID, message: /must be specified/ },
  { name: 'ANP ports entry with two fields', object: anpIn({ ports: [{ portNumber: { port: 80 }, namedPort: 'http' }] }), path: `${AT}.spec.ingress[0].ports[0]`, id: ANP_ID, message: /exactly one of portNumber, namedPort, portRange/ },
  { name: 'ANP ports entry with no field', object: anpIn({ ports: [{}] }), path: `${AT}.spec.ingress[0].ports[0]`, id: ANP_ID, message: /exactly one of portNumber, namedPort, portRange/ },
  { name: 'ANP empty ports list', object: anpIn({ ports: [] }), path: `${AT}.spec.ingress[0].ports`, id: ANP_ID, message: /at least 1/ },
  { name: 'ANP portNumber 0', object: anpIn({ ports: [{ portNumber: { protocol: 'TCP', port: 0 } }] }), path: `${AT}.spec.ingress[0].ports[0].portNumber.port`, id: ANP_ID, message: /1 and 65535/ },
  { name: 'ANP portNumber bad protocol', object: anpIn({ ports: [{ portNumber: { protocol: 'ICMP', port: 80 } }] }), path: `${AT}.spec.ingress[0].ports[0].portNumber.protocol`, id: ANP_ID, message: /"TCP", "UDP", "SCTP"/ },
  { name: 'ANP portRange start > end', object: anpIn({ ports: [{ portRange: { start: 90, end: 80 } }] }), path: `${AT}.spec.ingress[0].ports[0].portRange.end`, id: ANP_ID, message: /Start port must be less than End port/ },
  { name: 'ANP portRange start == end', object: anpIn({ ports: [{ portRange: { protocol: 'UDP', start: 80, end: 80 } }] }), path: `${AT}.spec.ingress[0].ports[0].portRange.end`, id: ANP_ID, message: /Start port must be less than End port/ },
  { name: 'ANP namedPort with a networks peer', object: anpOut({ to: [{ namespaces: {} }, { networks: ['10.0.0.0/8'] }], ports: [{ portNumber: { port: 80 } }, { namedPort: 'http' }] }), path: `${AT}.spec.egress[0].ports[1]`, id: ANP_ID, message: /cannot be set with named ports/ },
  { name: 'ANP namedPort with a nodes peer', object: anpOut({ to: [{ nodes: {} }], ports: [{ namedPort: 'http' }] }), path: `${AT}.spec.egress[0].ports[0]`, id: ANP_ID, message: /cannot be set with named ports/ },
  { name: 'ANP networks invalid CIDR', object: anpOut({ to: [{ networks: ['10.0.0.0/8', '10.0.0.0/40'] }] }), path: `${AT}.spec.egress[0].to[0].networks[1]`, id: ANP_ID, message: /Invalid CIDR/ },
  { name: 'ANP networks duplicates', object: anpOut({ to: [{ networks: ['10.0.0.0/8', '10.0.0.0/8'] }] }), path: `${AT}.spec.egress[0].to[0].networks`, id: ANP_ID, message: /duplicate/ },
  { name: 'ANP networks more than 25', object: anpOut({ to: [{ networks: times(26, (i) => `10.${i}.0.0/16`) }] }), path: `${AT}.spec.egress[0].to[0].networks`, id: ANP_ID, message: /at most 25/ },
  { name: 'ANP networks empty', object: anpOut({ to: [{ networks: [] }] }), path: `${AT}.spec.egress[0].to[0].networks`, id: ANP_ID, message: /at least 1/ },
  { name: 'ANP networks not a list of strings', object: anpOut({ to: [{ networks: [10] }] }), path: `${AT}.spec.egress[0].to[0].networks`, id: ANP_ID, message: /list of strings/ },
  { name: 'ANP more than 100 ingress rules', object: anp({ ingress: times(101, () => ({ action: 'Deny', from: [{ namespaces: {} }] })) }), path: `${AT}.spec.ingress`, id: ANP_ID, message: /at most 100 rules/ },
  { name: 'ANP more than 100 egress rules', object: anp({ egress: times(101, () => ({ action: 'Deny', to: [{ namespaces: {} }] })) }), path: `${AT}.spec.egress`, id: ANP_ID, message: /at most 100 rules/ },
  { name: 'ANP more than 100 peers', object: anpIn({ from: times(101, () => ({ namespaces: {} })) }), path: `${AT}.spec.ingress[0].from`, id: ANP_ID, message: /at most 100 items/ },
  { name: 'ANP more than 100 ports', object: anpIn({ ports: times(101, (i) => ({ portNumber: { port: i + 1 } })) }), path: `${AT}.spec.ingress[0].ports`, id: ANP_ID, message: /at most 100 items/ },
  { name: 'ANP empty from list', object: anpIn({ from: [] }), path: `${AT}.spec.ingress[0].from`, id: ANP_ID, message: /at least 1/ },
  { name: 'ANP rule without from', object: anp({ ingress: [{ action: 'Allow' }] }), path: `${AT}.spec.ingress[0].from`, id: ANP_ID, message: /^Required value$/ },
  { name: 'ANP ingress peer with nodes', object: anpIn({ from: [{ nodes: {} }] }), path: `${AT}.spec.ingress[0].from[0].nodes`, id: ANP_ID, message: /not allowed here/ },
  { name: 'ANP ingress peer with networks', object: anpIn({ from: [{ networks: ['10.0.0.0/8'] }] }), path: `${AT}.spec.ingress[0].from[0].networks`, id: ANP_ID, message: /not allowed here/ },
  { name: 'ANP bad action', object: anpIn({ action: 'Accept' }), path: `${AT}.spec.ingress[0].action`, id: ANP_ID, message: /"Allow", "Deny", "Pass"/ },
  { name: 'ANP rule name over 100 characters', object: anpIn({ name: 'r'.repeat(101) }), path: `${AT}.spec.ingress[0].name`, id: ANP_ID, message: /100 characters/ },
  { name: 'ANP draft related with a bad value', object: anpIn({ from: [{ namespaces: { related: 'Other' } }] }), path: `${AT}.spec.ingress[0].from[0].namespaces.related`, id: ANP_ID, message: /"Self", "NotSelf"/ },

  // ---- BaselineAdminNetworkPolicy (v1alpha1) ----
  { name: 'BANP Pass action', object: banp({ ingress: [{ action: 'Pass', from: [{ namespaces: {} }] }] }), path: `${AT}.spec.ingress[0].action`, id: BANP_ID, message: /"Allow", "Deny"/ },
  { name: 'BANP name not "default"', object: banp({}, 'baseline'), path: `${AT}.metadata.name`, id: { kind: 'BaselineAdminNetworkPolicy', name: 'baseline' }, message: /metadata\.name="default"/ },
  { name: 'BANP egress domainNames peer', object: banp({ egress: [{ action: 'Deny', to: [{ domainNames: ['example.com'] }] }] }), path: `${AT}.spec.egress[0].to[0].domainNames`, id: BANP_ID, message: /not allowed here/ },
  { name: 'BANP rule name over 100 characters', object: banp({ egress: [{ name: 'n'.repeat(101), action: 'Deny', to: [{ namespaces: {} }] }] }), path: `${AT}.spec.egress[0].name`, id: BANP_ID, message: /100 characters/ },

  // ---- ClusterNetworkPolicy (v1alpha2) ----
  { name: 'CNP invalid tier', object: cnp({ tier: 'Application' }), path: `${AT}.spec.tier`, id: CNP_ID, message: /"Admin", "Baseline"/ },
  { name: 'CNP priority 1001', object: cnp({ priority: 1001 }), path: `${AT}.spec.priority`, id: CNP_ID, message: /less than or equal to 1000/ },
  { name: 'CNP priority -1', object: cnp({ priority: -1 }), path: `${AT}.spec.priority`, id: CNP_ID, message: /greater than or equal to 0/ },
  { name: 'CNP more than 25 egress rules', object: cnp({ egress: times(26, () => ({ action: 'Deny', to: [{ namespaces: {} }] })) }), path: `${AT}.spec.egress`, id: CNP_ID, message: /at most 25 rules/ },
  { name: 'CNP more than 25 ingress rules', object: cnp({ ingress: times(26, () => ({ action: 'Deny', from: [{ namespaces: {} }] })) }), path: `${AT}.spec.ingress`, id: CNP_ID, message: /at most 25 rules/ },
  { name: 'CNP more than 25 peers', object: cnpOut({ to: times(26, () => ({ namespaces: {} })) }), path: `${AT}.spec.egress[0].to`, id: CNP_ID, message: /at most 25 items/ },
  { name: 'CNP more than 25 protocols', object: cnpOut({ protocols: times(26, (i) => ({ tcp: { destinationPort: { number: i + 1 } } })) }), path: `${AT}.spec.egress[0].protocols`, id: CNP_ID, message: /at most 25 items/ },
  { name: 'CNP tcp: {}', object: cnpProto({ tcp: {} }), path: `${AT}.spec.egress[0].protocols[0].tcp.destinationPort`, id: CNP_ID, message: /must be specified/ },
  { name: 'CNP destinationPort with number and range', object: cnpProto({ udp: { destinationPort: { number: 53, range: { start: 1, end: 2 } } } }), path: `${AT}.spec.egress[0].protocols[0].udp.destinationPort`, id: CNP_ID, message: /exactly one of number, range/ },
  { name: 'CNP destinationPort with neither', object: cnpProto({ sctp: { destinationPort: {} } }), path: `${AT}.spec.egress[0].protocols[0].sctp.destinationPort`, id: CNP_ID, message: /exactly one of number, range/ },
  { name: 'CNP range start == end', object: cnpProto({ tcp: { destinationPort: { range: { start: 80, end: 80 } } } }), path: `${AT}.spec.egress[0].protocols[0].tcp.destinationPort.range.end`, id: CNP_ID, message: /Start port must be less than End port/ },
  { name: 'CNP destinationPort number 0', object: cnpProto({ tcp: { destinationPort: { number: 0 } } }), path: `${AT}.spec.egress[0].protocols[0].tcp.destinationPort.number`, id: CNP_ID, message: /1 and 65535/ },
  { name: 'CNP protocol entry with two fields', object: cnpProto({ tcp: { destinationPort: { number: 80 } }, destinationNamedPort: 'http' }), path: `${AT}.spec.egress[0].protocols[0]`, id: CNP_ID, message: /exactly one of tcp, udp, sctp, destinationNamedPort/ },
  { name: 'CNP destinationNamedPort with a nodes peer', object: cnpOut({ to: [{ nodes: {} }], protocols: [{ destinationNamedPort: 'http' }] }), path: `${AT}.spec.egress[0].protocols[0]`, id: CNP_ID, message: /cannot be set with named ports/ },
  { name: 'CNP Allow instead of Accept', object: cnp({ ingress: [{ action: 'Allow', from: [{ namespaces: {} }] }] }), path: `${AT}.spec.ingress[0].action`, id: CNP_ID, message: /"Accept", "Deny", "Pass"/ },
  { name: 'CNP networks invalid CIDR', object: cnpOut({ to: [{ networks: ['fd00::/200'] }] }), path: `${AT}.spec.egress[0].to[0].networks[0]`, id: CNP_ID, message: /Invalid CIDR/ },
  { name: 'CNP ingress peer with networks', object: cnp({ ingress: [{ action: 'Deny', from: [{ networks: ['10.0.0.0/8'] }] }] }), path: `${AT}.spec.ingress[0].from[0].networks`, id: CNP_ID, message: /not allowed here/ },
  { name: 'CNP subject with no field', object: cnp({ subject: {} }), path: `${AT}.spec.subject`, id: CNP_ID, message: /exactly one of namespaces, pods/ },
  { name: 'CNP rule with the v1alpha1 ports field', object: cnp({ egress: [{ action: 'Deny', to: [{ namespaces: {} }], ports: [{ portNumber: { port: 9999 } }] }] }), path: `${AT}.spec.egress[0].ports`, id: CNP_ID, message: /names it `protocols`.*match every port/ },
  { name: 'CNP domainNames not a domain name', object: cnpOut({ to: [{ domainNames: ['not a domain!'] }] }), path: `${AT}.spec.egress[0].to[0].domainNames[0]`, id: CNP_ID, message: /invalid domain name "not a domain!"/ },
  { name: 'CNP pods peer without podSelector', object: cnpOut({ to: [{ pods: { namespaceSelector: {} } }] }), path: `${AT}.spec.egress[0].to[0].pods.podSelector`, id: CNP_ID, message: /Required value: podSelector/ },
  { name: 'CNP rule name over 100 characters', object: cnpOut({ name: 'c'.repeat(101) }), path: `${AT}.spec.egress[0].name`, id: CNP_ID, message: /100 characters/ },

  // ---- Pod, Node, metadata ----
  { name: 'Pod with an invalid podIP', object: pod('c', '10.0.0.300'), path: `${AT}.status.podIP`, id: { kind: 'Pod', namespace: 'x', name: 'c' }, message: /invalid IP address "10\.0\.0\.300"/ },
  { name: 'Pod with an invalid podIPs entry', object: { ...pod('c', '10.0.0.3'), status: { podIP: '10.0.0.3', podIPs: [{ ip: '10.0.0.3' }, { ip: 'fd00::zz' }] } }, path: `${AT}.status.podIPs[1].ip`, id: { kind: 'Pod', namespace: 'x', name: 'c' }, message: /invalid IP address/ },
  { name: 'Pod container port 0', object: pod('c', '10.0.0.3', [{ name: 'http', containerPort: 0 }]), path: `${AT}.spec.containers[0].ports[0].containerPort`, id: { kind: 'Pod', namespace: 'x', name: 'c' }, message: /1 and 65535/ },
  { name: 'Pod container port with a bad name', object: pod('c', '10.0.0.3', [{ name: 'HTTP', containerPort: 80 }]), path: `${AT}.spec.containers[0].ports[0].name`, id: { kind: 'Pod', namespace: 'x', name: 'c' }, message: /IANA_SVC_NAME/ },
  { name: 'Node with an invalid InternalIP', object: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, status: { addresses: [{ type: 'Hostname', address: 'node-1' }, { type: 'InternalIP', address: '172.18.0' }] } }, path: `${AT}.status.addresses[1].address`, id: { kind: 'Node', name: 'node-1' }, message: /invalid IP address/ },
  { name: 'object without a name', object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: '' } }, path: `${AT}.metadata.name`, id: { kind: 'Namespace', name: '' }, message: /must be specified/ },
  { name: 'duplicate objects', object: pod('a', '10.0.0.9'), path: AT, id: { kind: 'Pod', namespace: 'x', name: 'a' }, message: /duplicate object.*\$\.snapshot\.items\[1\]/ },
  {
    name: 'duplicate objects, one with the namespace defaulted',
    body: request([np({}, 'same'), { ...np({}, 'same'), metadata: { name: 'same' } }, { ...np({}, 'same'), metadata: { name: 'same', namespace: 'default' } }]),
    path: '$.snapshot.items[5]',
    id: { kind: 'NetworkPolicy', namespace: 'default', name: 'same' },
    message: /duplicate object.*\$\.snapshot\.items\[4\]/,
  },
  { name: 'unsupported apiVersion for NetworkPolicy', object: { ...np({}), apiVersion: 'networking.k8s.io/v2' }, path: `${AT}.apiVersion`, id: NP_ID, message: /unsupported apiVersion "networking\.k8s\.io\/v2".*networking\.k8s\.io\/v1/ },
  { name: 'unsupported apiVersion for AdminNetworkPolicy', object: { ...anp({}), apiVersion: 'policy.networking.k8s.io/v1alpha2' }, path: `${AT}.apiVersion`, id: ANP_ID, message: /unsupported apiVersion.*v1alpha1/ },
  { name: 'unsupported apiVersion for ClusterNetworkPolicy', object: { ...cnp({}), apiVersion: 'policy.networking.k8s.io/v1alpha1' }, path: `${AT}.apiVersion`, id: CNP_ID, message: /unsupported apiVersion.*v1alpha2/ },
  { name: 'a label selector with a field it does not have', object: np({ podSelector: { matchLabel: { app: 'db' } } }), path: `${AT}.spec.podSelector`, id: NP_ID, message: /unknown field "matchLabel" in a label selector/ },
  { name: 'a kind netpolc reads, in another case', object: { ...np({}), kind: 'networkpolicy' }, path: `${AT}.kind`, id: { ...NP_ID, kind: 'networkpolicy' }, message: /unknown kind "networkpolicy" \(kinds are case-sensitive\); did you mean NetworkPolicy\?/ },
  { name: 'object without kind', object: { apiVersion: 'v1', metadata: { name: 'k' } }, path: `${AT}.kind`, id: { kind: undefined as unknown as string, name: 'k' }, message: /apiVersion and kind/ },
  { name: 'item that is not an object', object: 'pod' as unknown as Obj, path: AT, id: null, message: /Kubernetes object/ },
  { name: 'non-object snapshot', body: { snapshot: 'cluster', flows: FLOWS }, path: '$.snapshot', id: null, message: /List/ },
  { name: 'snapshot missing', body: { flows: FLOWS }, path: '$.snapshot', id: null, message: /./ },
  { name: 'item in a nested List', body: { snapshot: { kind: 'List', items: [...BASE, { kind: 'List', items: [npIngressPort({ port: 0 })] }] }, flows: FLOWS }, path: '$.snapshot.items[3].items[0].spec.ingress[0].ports[0].port', id: NP_ID, message: /1 and 65535/ },
  { name: 'bare-array snapshot', body: { snapshot: [...BASE, npIngressPort({ port: 0 })], flows: FLOWS }, path: '$.snapshot[3].spec.ingress[0].ports[0].port', id: NP_ID, message: /1 and 65535/ },

  // ---- flows ----
  { name: 'flow from an unknown pod', body: request(null, [{ from: 'x/nope', to: 'x/b', port: 80 }]), path: '$.flows[0].from', id: null, message: /no pod "x\/nope"/ },
  { name: 'flow to an unknown pod (second flow)', body: request(null, [FLOWS[0], { from: 'x/a', to: { pod: 'y/b' }, port: 80 }]), path: '$.flows[1].to', id: null, message: /no pod "y\/b"/ },
  { name: 'flow to a named port the destination lacks', body: request(null, [{ from: 'x/a', to: 'x/b', port: 'metrics' }]), path: '$.flows[0].port', id: null, message: /no TCP port named "metrics".*http/ },
  { name: 'flow to a named port with the wrong protocol', body: request(null, [{ from: 'x/a', to: 'x/b', port: 'http', protocol: 'UDP' }]), path: '$.flows[0].port', id: null, message: /no UDP port named "http"/ },
  { name: 'flow to a named port of an address', body: request(null, [{ from: 'x/a', to: { ip: '192.0.2.1' }, port: 'http' }]), path: '$.flows[0].port', id: null, message: /needs a destination pod/ },
  { name: 'flow from a bad IP', body: request(null, [{ from: { ip: '300.1.1.1' }, to: 'x/b', port: 80 }]), path: '$.flows[0].from', id: null, message: /not an IPv4 or IPv6 address/ },
  { name: 'flow with an ipFamily the pod lacks', body: request(null, [{ from: 'x/a', to: 'x/b', port: 80, ipFamily: 'IPv6' }]), path: '$.flows[0].from', id: null, message: /no IPv6 address/ },
  { name: 'flow with an ipFamily the address lacks', body: request(null, [{ from: { ip: 'fd00::1' }, to: 'x/b', port: 80, ipFamily: 'IPv4' }]), path: '$.flows[0].from', id: null, message: /not IPv4/ },
  { name: 'flow between families', body: request(null, [{ from: { ip: 'fd00::1' }, to: 'x/b', port: 80 }]), path: '$.flows[0].to', id: null, message: /share no IP family/ },
  { name: 'flow with port 0', body: request(null, [{ from: 'x/a', to: 'x/b', port: 0 }]), path: '$.flows[0].port', id: null, message: /./ },
  { name: 'flow with a bad protocol', body: request(null, [{ from: 'x/a', to: 'x/b', port: 80, protocol: 'ICMP' }]), path: '$.flows[0].protocol', id: null, message: /"TCP", "UDP", "SCTP"/ },
  // A name without a namespace is found in the one namespace holding it (`a` is x/a): one nothing holds.
  { name: 'flow endpoint not "namespace/pod"', body: request(null, [{ from: 'nosuch', to: 'x/b', port: 80 }]), path: '$.flows[0].from', id: null, message: /./ },
  { name: 'empty flows list', body: request(null, []), path: '$.flows', id: null, message: /at least 1 flow/ },
  { name: 'flows missing', body: { snapshot: { items: BASE } }, path: '$.flows', id: null, message: /./ },
];

describe('POST /v1/verdicts validation: one rule per request', () => {
  it('the minimal snapshot and every policy template are valid (200)', async () => {
    const valid = [
      null,
      np({ ingress: [{ from: [{ podSelector: {}, namespaceSelector: {} }, { ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }], ports: [{ port: 'http' }, { port: 80, endPort: 90 }, { protocol: 'UDP', port: 53 }] }], policyTypes: ['Ingress', 'Egress'] }),
      legacy({ ingress: [{ from: [{ podSelector: {} }], ports: [{ port: 80 }] }] }),
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'y', annotations: { 'net.beta.kubernetes.io/network-policy': '{"ingress": {"isolation": "DefaultDeny"}}' } } },
      anpIn({ ports: [{ portNumber: { port: 80 } }, { namedPort: 'http' }, { portRange: { start: 80, end: 90 } }] }),
      anpOut({ to: [{ networks: ['10.0.0.0/8'] }, { nodes: {} }], ports: [{ portRange: { start: 1, end: 2 } }] }),
      banp({ ingress: [{ action: 'Deny', from: [{ pods: { namespaceSelector: {}, podSelector: {} } }] }] }),
      cnpOut({ protocols: [{ tcp: { destinationPort: { number: 80 } } }, { udp: { destinationPort: { range: { start: 1, end: 2 } } } }] }),
      cnp({ tier: 'Baseline', ingress: [{ action: 'Pass', from: [{ namespaces: {} }], protocols: [{ destinationNamedPort: 'http' }] }] }),
    ];
    for (const o of valid) {
      const r = await post(request(o));
      expect(r.status, `${JSON.stringify(o)} → ${r.text.slice(0, 1000)}`).toBe(200);
      expect(r.json.verdicts).toHaveLength(1);
    }
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const r = await post(c.body ?? request(c.object!));
    expectErrorBody(r, 422, 'invalid');
    const issues: { path: string; message: string; object?: { kind?: string; namespace?: string; name?: string } }[] = r.json.issues;
    expect(Array.isArray(issues), r.text).toBe(true);
    const atPath = issues.filter((i) => i.path === c.path);
    expect(atPath, `no issue at ${c.path}; issues: ${JSON.stringify(issues, null, 1)}`).not.toHaveLength(0);
    const issue = atPath.find((i) => c.message.test(i.message));
    expect(issue, `no message matching ${c.message} at ${c.path}; got ${JSON.stringify(atPath.map((i) => i.message))}`).toBeDefined();
    if (c.id === null) {
      expect(issue!.object).toBeUndefined();
    } else {
      expect(issue!.object, JSON.stringify(issue)).toBeDefined();
      expect({ kind: issue!.object!.kind, namespace: issue!.object!.namespace, name: issue!.object!.name }).toEqual(c.id);
    }
  });
});

// ---------------------------------------------------------------------------------------
// Selectors must not be widened silently.

describe('a selector the API server would reject is not silently widened', () => {
  it('matchLabels key "__proto__" is rejected, not dropped (which would make the selector match every pod)', async () => {
    // JSON.parse keeps "__proto__" as an own key; "__proto__" is not a qualified name.
    const items = JSON.stringify(BASE).slice(1, -1);
    const body = `{"snapshot":{"kind":"List","items":[${items},{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"np","namespace":"x"},"spec":{"podSelector":{"matchLabels":{"__proto__":"never"}},"policyTypes":["Ingress"]}}]},"flows":[{"from":"x/a","to":"x/b","port":80}]}`;
    const r = await post(body, { raw: true });
    expect(r.status, r.text.slice(0, 1500)).toBe(422);
    expect(r.json.issues.map((i: { path: string }) => i.path)).toContain(`${AT}.spec.podSelector.matchLabels.__proto__`);
  });
});

// ---------------------------------------------------------------------------------------
// Body plumbing

describe('request bodies', () => {
  it('malformed JSON → 400', async () => {
    const r = await post('{"snapshot": [', { raw: true });
    expectErrorBody(r, 400, 'bad_request');
    expect(r.json.message).toMatch(/malformed JSON/);
  });

  it('JSON with a trailing comma → 400', async () => {
    const r = await post('{"snapshot": [], "flows": [],}', { raw: true });
    expectErrorBody(r, 400, 'bad_request');
  });

  it('a snapshot of thousands of broken objects → 422 listing the first 100 and counting the rest', async () => {
    const broken = Array.from({ length: 5000 }, (_, i) => ({ ...pod(`bad${i}`, '10.0.1.1'), spec: { containers: 'x' } }));
    const r = await post(request(broken));
    expectErrorBody(r, 422, 'invalid');
    expect(r.json.issues).toHaveLength(100);
    expect(r.json.issuesOmitted).toBe(4900);
    expect(r.json.message).toBe('5000 problems in the request; issues lists the first 100');
    expect(r.json.issues[0].path).toBe(`${AT}.spec.containers`);
  });

  it('empty body → 400', async () => {
    const r = await post('  \n', { raw: true });
    expectErrorBody(r, 400, 'bad_request');
  });

  it('malformed YAML → 400', async () => {
    const r = await post('flows: [{from: x/a, to: x/b\nsnapshot: {', { raw: true, contentType: 'application/yaml' });
    expectErrorBody(r, 400, 'bad_request');
    expect(r.json.message).toMatch(/malformed YAML/);
  });

  it('YAML with a duplicate key → 400', async () => {
    const r = await post('flows: []\nflows: []\n', { raw: true, contentType: 'text/yaml' });
    expectErrorBody(r, 400, 'bad_request');
  });

  it('YAML with two request documents → 400', async () => {
    const r = await post('flows: []\n---\nflows: []\n', { raw: true, contentType: 'application/x-yaml' });
    expectErrorBody(r, 400, 'bad_request');
    expect(r.json.message).toMatch(/at most one request document/);
  });

  it('unsupported content-type → 415', async () => {
    const r = await post('<snapshot/>', { raw: true, contentType: 'application/xml' });
    expectErrorBody(r, 415, 'unsupported_media_type');
    expect(r.json.message).toMatch(/application\/xml/);
  });

  it('form content-type → 415', async () => {
    const r = await post('a=b', { raw: true, contentType: 'application/x-www-form-urlencoded' });
    expectErrorBody(r, 415, 'unsupported_media_type');
  });

  it('body over the limit → 413 (createApp({maxBodyBytes: 1000}))', async () => {
    const small = createApp({ maxBodyBytes: 1000, logError: (e) => errors.push(e) });
    const big = request(times(5, (i) => pod(`p${i}`, `10.0.1.${i}`)));
    expect(JSON.stringify(big).length).toBeGreaterThan(1000);
    const r = await post(big, { app: small });
    expectErrorBody(r, 413, 'too_large');
    expect(r.json.message).toMatch(/1000 bytes/);
    const m = await post({ snapshot: BASE, pods: { names: times(100, (i) => `x/pod-${i}`) } }, { app: small, path: '/v1/matrix' });
    expectErrorBody(m, 413, 'too_large');
  });

  it('a body under the limit still works with a small limit', async () => {
    const small = createApp({ maxBodyBytes: 1000, logError: (e) => errors.push(e) });
    const r = await post({ snapshot: [pod('a', '10.0.0.1'), pod('b', '10.0.0.2')], flows: FLOWS }, { app: small });
    expect(r.status, r.text).toBe(200);
  });

  it('a valid multi-document YAML body works (200): the request document plus objects and a List', async () => {
    const yaml = [
      'flows:',
      '- {from: x/a, to: x/b, port: http}',
      '- from: {ip: 10.0.0.1}',
      '  to: x/b',
      '  port: 80',
      '---',
      'apiVersion: v1',
      'kind: Namespace',
      'metadata: {name: x}',
      '---',
      'apiVersion: v1',
      'kind: List',
      'items:',
      '- apiVersion: v1',
      '  kind: Pod',
      '  metadata: {name: a, namespace: x, labels: {app: a}}',
      '  status: {podIP: 10.0.0.1}',
      '- apiVersion: v1',
      '  kind: Pod',
      '  metadata: {name: b, namespace: x, labels: {app: b}}',
      '  spec:',
      '    containers:',
      '    - name: main',
      '      ports: [{name: http, containerPort: 8080}]',
      '  status: {podIP: 10.0.0.2}',
      '---',
      'apiVersion: networking.k8s.io/v1',
      'kind: NetworkPolicy',
      'metadata: {name: deny-all, namespace: x}',
      'spec:',
      '  podSelector: {matchLabels: {app: b}}',
      '  ingress: []',
      '',
    ].join('\n');
    const r = await post(yaml, { raw: true, contentType: 'application/yaml; charset=utf-8' });
    expect(r.status, r.text.slice(0, 1500)).toBe(200);
    expect(r.json.verdicts).toHaveLength(2);
    expect(r.json.verdicts[0].flow).toMatchObject({ from: 'x/a', to: 'x/b', port: 8080, protocol: 'TCP' });
    expect(r.json.verdicts[0].allowed).toBe(false);
    expect(r.json.verdicts[0].ingress.tier).toBe('networkpolicy');
  });

  it('a YAML body reports issues with paths into the assembled snapshot', async () => {
    const yaml = 'flows: [{from: x/a, to: x/b, port: 80}]\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: x}\nstatus: {podIP: not-an-ip}\n';
    const r = await post(yaml, { raw: true, contentType: 'application/yaml' });
    expectErrorBody(r, 422, 'invalid');
    expect(r.json.issues).toContainEqual(expect.objectContaining({ path: '$.snapshot.items[0].status.podIP', object: expect.objectContaining({ kind: 'Pod', name: 'a' }) }));
  });

  it('unknown route → 404 JSON', async () => {
    const r = await post({}, { path: '/v1/nothing' });
    expectErrorBody(r, 404, 'not_found');
  });
});

// ---------------------------------------------------------------------------------------
// Bodies that must never produce a 500 (found while writing this file; see the report).

describe('adversarial bodies answer 4xx, never 500', () => {
  it('deeply nested Lists in the snapshot (kubectl-style List of List of …) → 422, not a stack overflow', async () => {
    const depth = 10_000;
    const body = `{"snapshot":${'{"kind":"List","items":['.repeat(depth)}${']}'.repeat(depth)},"flows":[{"from":"x/a","to":"x/b","port":80}]}`;
    const r = await post(body, { raw: true });
    expect(r.errors.map((e) => String(e)), 'no error may be logged').toEqual([]);
    expect([400, 413, 422]).toContain(r.status);
    expect(r.json.error).toBeTypeOf('string');
  });

  it('YAML with 100 aliases of one anchor → 400 (or a normal answer), not a 500', async () => {
    const yaml = `a: &a x\nb: [${Array(100).fill('*a').join(', ')}]\n`;
    const r = await post(yaml, { raw: true, contentType: 'application/yaml' });
    expect(r.errors.map((e) => String(e)), 'no error may be logged').toEqual([]);
    expect([400, 422]).toContain(r.status);
    expect(r.json.error).toBeTypeOf('string');
  });

  it('YAML with an alias to an anchor that does not exist → 400, not a 500', async () => {
    for (const yaml of ['x: *a\n', 'flows:\n- *a\n', '<<: *a\n']) {
      const r = await post(yaml, { raw: true, contentType: 'application/yaml' });
      expect(r.errors.map((e) => String(e)), `${JSON.stringify(yaml)}: no error may be logged`).toEqual([]);
      expectErrorBody(r, 400, 'bad_request');
    }
  });

  it('YAML nested deeper than the parser can go → 400', async () => {
    const r = await post(`${'['.repeat(20_000)}${']'.repeat(20_000)}`, { raw: true, contentType: 'application/yaml' });
    expect(r.errors.map((e) => String(e))).toEqual([]);
    expectErrorBody(r, 400, 'bad_request');
  });

  it('JSON nested 100k deep → 4xx', async () => {
    const r = await post(`{"snapshot":${'['.repeat(100_000)}${']'.repeat(100_000)},"flows":[{"from":"x/a","to":"x/b","port":80}]}`, { raw: true });
    expect(r.errors.map((e) => String(e))).toEqual([]);
    expect([400, 422]).toContain(r.status);
  });
});
