// Words of a question are looked up in tables of the grammar and of the snapshot; a word that
// is a member of Object.prototype ("constructor", "__proto__", "toString") must be read as any
// other word — an answer or a 422-style failure — never a crash (a port word "constructor" once
// found Object's constructor in a plain-object table and threw deep in the port arithmetic).
import { describe, expect, it } from 'vitest';
import { ask } from '../../core/ask/answer.js';
import { isParseFailure } from '../../core/ask/parse.js';
import { clusterOf, namespace, networkPolicy, node, pod } from '../support/cluster-builders.js';

const cluster = clusterOf([
  node('n1', '172.18.0.2'),
  namespace('shop'),
  pod('shop/web', { ip: '10.244.1.10', node: 'n1', labels: { app: 'web' } }),
  pod('shop/db', { ip: '10.244.1.20', node: 'n1', labels: { app: 'db' }, ports: [{ name: 'postgres', containerPort: 5432 }] }),
  networkPolicy('shop/db', { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 'postgres' }] }] }),
]);

const WORDS = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'];

describe('words that are members of Object.prototype', () => {
  const questions = WORDS.flatMap((w) => [
    `can shop/web reach shop/db on ${w}?`,
    `can shop/web reach shop/db on ${w}/tcp`,
    `can shop/web reach shop/db ${w}`,
    `can ${w} reach shop/db on 5432`,
    `can shop/web reach ${w} on 5432`,
    `can shop/web reach shop/${w}`,
    `can shop/web reach ${w}/svc/${w}`,
    `who can reach shop/db on ${w}`,
    `what can ${w} reach`,
    `can shop/web ${w} shop/db`,
    `${w} can shop/web reach shop/db`,
    `can shop/web reach shop/db in ${w}`,
  ]);
  it(`are read as words in ${questions.length} questions: an answer or a reason, never a crash`, () => {
    for (const q of questions) {
      const a = ask(cluster, q);
      if (isParseFailure(a)) expect(a.error, q).toMatch(/\S/);
      else expect(a.text, q).toMatch(/\S/);
    }
  });
  it('as a port word, the destination has no port of that name', () => {
    for (const w of ['constructor', 'tostring', 'valueof', 'hasownproperty']) {
      const a = ask(cluster, `can shop/web reach shop/db on ${w}?`);
      const text = isParseFailure(a) ? a.error : a.text;
      expect(text, w).toContain(`no port named "${w}"`);
    }
  });
});
