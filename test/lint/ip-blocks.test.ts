// ipblock-except-not-subset and ipblock-except-covers-cidr.
import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../core/cluster.js';
import { lint, type Finding } from '../../core/lint/index.js';
import { parseCidr, type IpRange } from '../../core/net/ip.js';
import type { Peer, Policy, Rule } from '../../core/policy/model.js';
import { buildPolicySet } from '../../core/policy/policy-set.js';
import { clusterOf, namespace, networkPolicy, node, pod, type K8sObject } from '../support/cluster-builders.js';

const base = (): K8sObject[] => [namespace('x'), node('n1', '172.18.0.2'), pod('x/a', { ip: '10.0.1.10', node: 'n1', labels: { app: 'a' } })];
const withBlock = (cidr: string, except: string[]): K8sObject => networkPolicy('x/block', { podSelector: {}, ingress: [{ from: [{ podSelector: {} }, { ipBlock: { cidr, except } }] }] });

const codes = new Set(['ipblock-except-not-subset', 'ipblock-except-covers-cidr']);
const ofCluster = (cluster: Cluster): Finding[] => lint(cluster).filter((f) => codes.has(f.code));
const found = (...objects: K8sObject[]): Finding[] => ofCluster(clusterOf([...base(), ...objects]));

const cidr = (text: string): IpRange => parseCidr(text)!;

/**
 * The API server (and parseSnapshot) reject an except that is not a strict subset of its
 * cidr, so such a peer can only reach the lint through the normalised model: build a valid
 * cluster, then give the ipBlock peer the excepts directly, as a cluster built some other way
 * would carry them.
 */
function withModelExcepts(except: string[]): Cluster {
  const cluster = clusterOf([...base(), withBlock('10.0.0.0/16', ['10.0.1.0/24'])]);
  const edit = (p: Policy): Policy => {
    if (p.ref.name !== 'block') return p;
    const rule = (r: Rule): Rule => ({ ...r, peers: r.peers.map((peer): Peer => (peer.type === 'cidrs' ? { ...peer, except: except.map(cidr) } : peer)) });
    return { ...p, ingress: p.ingress!.map(rule) };
  };
  return { ...cluster, policies: buildPolicySet(cluster.policies.all.map(edit)) };
}

describe('ipblock-except-not-subset', () => {
  it('cannot come through parseSnapshot: the schema rejects it with a 422-style issue', () => {
    expect(() => clusterOf([...base(), withBlock('10.0.0.0/16', ['192.168.0.0/24'])])).toThrow(/strict subset/);
  });

  it('fires (error) on the normalised model for an except outside, containing or equal to the cidr', () => {
    const f = ofCluster(withModelExcepts(['10.0.1.0/24', '192.168.0.0/24', '10.0.0.0/8', 'fd00::/64']));
    const notSubset = f.filter((x) => x.code === 'ipblock-except-not-subset');
    expect(notSubset.map((x) => [x.severity, x.path])).toEqual([
      ['error', 'spec.ingress[0].from[1].ipBlock.except[1]'],
      ['error', 'spec.ingress[0].from[1].ipBlock.except[2]'],
      ['error', 'spec.ingress[0].from[1].ipBlock.except[3]'],
    ]);
    expect(notSubset[0]!.object).toEqual({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', namespace: 'x', name: 'block' });
    expect(notSubset[0]!.message).toContain('except 192.168.0.0/24 is not inside the cidr 10.0.0.0/16');
    expect(notSubset[1]!.message).toContain('except 10.0.0.0/8 contains the cidr 10.0.0.0/16');
    // 10.0.0.0/8 also swallows the whole cidr.
    expect(f.filter((x) => x.code === 'ipblock-except-covers-cidr').map((x) => x.path)).toEqual(['spec.ingress[0].from[1].ipBlock']);
  });

  it('flags an except equal to the cidr', () => {
    expect(ofCluster(withModelExcepts(['10.0.0.0/16'])).map((x) => [x.code, x.message.includes('equals')])).toEqual([
      ['ipblock-except-not-subset', true],
      ['ipblock-except-covers-cidr', false],
    ]);
  });

  it('does not fire on strict subsets', () => {
    expect(ofCluster(withModelExcepts(['10.0.1.0/24', '10.0.2.128/25']))).toEqual([]);
  });
});

describe('ipblock-except-covers-cidr', () => {
  it('fires (warning) when valid excepts together cover the whole cidr', () => {
    const f = found(withBlock('10.0.0.0/8', ['10.0.0.0/9', '10.128.0.0/10', '10.192.0.0/10']));
    expect(f).toEqual([expect.objectContaining({ code: 'ipblock-except-covers-cidr', severity: 'warning', path: 'spec.ingress[0].from[1].ipBlock' })]);
    expect(f[0]!.message).toContain('the excepts cover all of 10.0.0.0/8');
  });

  it('does not fire when one address is left', () => {
    expect(found(withBlock('10.0.0.0/8', ['10.0.0.0/9', '10.128.0.0/10', '10.192.0.0/11', '10.224.0.0/12', '10.240.0.0/13', '10.248.0.0/14', '10.252.0.0/15', '10.254.0.0/16', '10.255.0.0/17', '10.255.128.0/18', '10.255.192.0/19', '10.255.224.0/20', '10.255.240.0/21', '10.255.248.0/22', '10.255.252.0/23', '10.255.254.0/24', '10.255.255.0/25', '10.255.255.128/26', '10.255.255.192/27', '10.255.255.224/28', '10.255.255.240/29', '10.255.255.248/30', '10.255.255.252/31', '10.255.255.254/32']))).toEqual([]);
  });
});
