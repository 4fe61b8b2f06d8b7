// A version from changes where a pod gains a label named `constructor` (a valid key that every
// plain object answers for): the sets whose selectors read it are found as relabelled, and the
// version equals a whole compile of the same objects.
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { compileSets } from '../../core/sets/compile.js';
import { compiledState, nextVersion } from '../../core/sets/next-version.js';
import { changedLabelKeys } from '../../core/sets/set-index.js';
import { namespace, networkPolicy, node, pod, snapshotOf } from '../support/cluster-builders.js';

const parsed = snapshotOf;

describe('label keys named like Object.prototype members', () => {
  it('changedLabelKeys sees a constructor label added, removed or changed', () => {
    expect(changedLabelKeys({ app: 'x' }, { app: 'x', constructor: 'y' })).toEqual(['constructor']);
    expect(changedLabelKeys({ app: 'x', constructor: 'y' }, { app: 'x' })).toEqual(['constructor']);
    expect(changedLabelKeys({ constructor: 'y' }, { constructor: 'z' })).toEqual(['constructor']);
    expect(changedLabelKeys({ toString: 'y' }, { toString: 'y' })).toEqual([]);
  });

  it('a pod relabelled with constructor=x joins the sets that select it, as a whole compile has it', () => {
    // Ingress to shop/db only from pods labelled constructor=x.
    const policy = networkPolicy('shop/db-from-x', { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { constructor: 'x' } } }] }] });
    const web = (labels: Record<string, string>) => pod('shop/web', { ip: '10.0.0.2', node: 'n1', labels });
    const common = [node('n1', '172.18.0.2'), namespace('shop'), policy, pod('shop/db', { ip: '10.0.0.1', node: 'n1', labels: { app: 'db' } })];
    const base = compiledState(parsed([...common, web({ app: 'web' })])).state;
    const next = nextVersion(base, { apply: parsed([web({ app: 'web', constructor: 'x' })]), delete: [] });
    if (!next.ok) throw new Error(JSON.stringify(next.issues));
    const whole = compileSets(buildCluster(parsed([...common, web({ app: 'web', constructor: 'x' })])));
    expect(JSON.stringify(next.state.ir)).toBe(JSON.stringify(whole.ir));
  });
});
