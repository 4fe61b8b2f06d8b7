// A question asked of a cluster in a test: it must parse and answer with the kind expected
// (the answer's text is shown when it does not).
import { expect } from 'vitest';
import { ask, type Answer } from '../../core/ask/answer.js';
import { isParseFailure } from '../../core/ask/parse.js';
import type { Cluster } from '../../core/cluster.js';

export function askedOf(cluster: Cluster): <K extends Answer['kind']>(question: string, kind: K, other?: Cluster) => Answer & { kind: K } {
  return (question, kind, other = cluster) => {
    const a = ask(other, question);
    if (isParseFailure(a)) throw new Error(`unparsed: ${a.error}`);
    expect(a.kind, a.text).toBe(kind);
    return a as Answer & { kind: typeof kind };
  };
}
