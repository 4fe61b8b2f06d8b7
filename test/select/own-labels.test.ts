// Label keys are read as the object's own labels. `constructor` (and `toString`, `valueOf`, …)
// are valid label keys, and a plain object's `labels.constructor` is Object's when the object
// has no such label: a sameLabels peer on it selected every namespace as "sharing" that value.
import { describe, expect, it } from 'vitest';
import { compileSets } from '../../core/sets/compile.js';
import { SetIrSimulator } from '../../core/sets/simulate.js';
import { adminNetworkPolicy, clusterOf, namespace, node, pod, verdict } from '../support/cluster-builders.js';

/** Deny ingress from the namespaces sharing the subject's `constructor` label (KEP-2091's sameLabels). */
const anp = adminNetworkPolicy('same-constructor', 10, { subject: { namespaceSelector: {} }, ingress: [{ action: 'Deny', from: [{ namespaces: { sameLabels: ['constructor'] } }] }] });

function objects(labels: Record<string, string>) {
  return [node('node-1', '10.240.0.1'), namespace('a', { labels }), namespace('b', { labels }), anp, pod('a/x', { ip: '10.0.1.1', node: 'node-1' }), pod('b/y', { ip: '10.0.2.1', node: 'node-1' })];
}

describe('labels are read as own properties', () => {
  it.each([
    ['neither namespace has the label: sameLabels selects nothing, nothing is denied', {}, true],
    ['both have constructor=blue: they share it, and the Deny applies', { constructor: 'blue' }, false],
  ])('%s', (_, labels, allowed) => {
    const cluster = clusterOf(objects(labels));
    expect(verdict(cluster, 'a/x', 'b/y', 80).allowed).toBe(allowed);
    // The set form says the same.
    expect(new SetIrSimulator(compileSets(cluster).ir).simulate('10.0.1.1', '10.0.2.1', 'TCP', 80).allowed).toBe(allowed);
  });
});
