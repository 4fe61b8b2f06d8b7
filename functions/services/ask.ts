// Questions in words against a cluster, sent along or stored: one answer, or why the question
// cannot be answered (a form the grammar does not read, a pod or port the snapshot lacks), which
// the route words for its client. "What changed … since version N" about a stored version loads
// version N too (a 404 naming the latest when it is not stored).
import { ACCEPTED_FORMS, answerRead, answerSince, isParseFailure, readQuestion, type Answer } from '../../core/ask/index.js';
import type { Cluster } from '../../core/cluster.js';
import { ApiError } from '../errors.js';
import type { StoredClusters } from './stored-clusters.js';

/** The stored version a question was answered from. */
export interface AnsweredFrom {
  readonly cluster: string;
  readonly version: string;
}

/** An answer to give: one that names what the snapshot lacks is a question to fix instead. */
export type GivenAnswer = Exclude<Answer, { kind: 'error' }>;

export type AskOutcome =
  | { readonly kind: 'answer'; readonly answer: GivenAnswer; readonly cluster: Cluster; readonly stored: AnsweredFrom | null }
  | { readonly kind: 'unreadable'; readonly message: string; readonly acceptedForms?: readonly string[] };

/** No question at all (GET …/ask without ?q=): what to ask instead. */
export const NO_QUESTION: AskOutcome = { kind: 'unreadable', message: 'ask with ?q=<question>', acceptedForms: ACCEPTED_FORMS };

/** The version a "what changed … since version N" question compares against: a 404 naming the latest when N is not stored. */
async function since(clusters: StoredClusters, name: string, version: string): Promise<Cluster> {
  try {
    return (await clusters.load(name, version)).cluster;
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== 'not_found') throw e;
    const latest = await clusters.load(name, undefined).then((s) => s.version, () => null);
    throw new ApiError('not_found', `version ${version} of cluster ${name} is not stored (or expired)${latest === null ? '' : `; the latest is version ${latest}`}`);
  }
}

/** `stored` and `clusters`: the question is about a stored version, whose other versions "since" may name. */
export async function askCluster(cluster: Cluster, question: string, stored: AnsweredFrom | null, clusters: StoredClusters | null): Promise<AskOutcome> {
  const read = readQuestion(question);
  if (isParseFailure(read)) return { kind: 'unreadable', message: read.error, acceptedForms: read.acceptedForms };
  const query = read.query;
  const a: Answer = query.kind === 'changed' && stored && clusters
    ? answerSince(await since(clusters, stored.cluster, query.since), cluster, query, { since: query.since, version: stored.version })
    : answerRead(cluster, read);
  // A pod or named port that is not in the snapshot: the question's to fix.
  if (a.kind === 'error') return { kind: 'unreadable', message: a.text };
  return { kind: 'answer', answer: a, cluster, stored };
}

/** A question about a stored version (the latest when `version` is undefined). */
export async function askStored(clusters: StoredClusters, name: string, version: string | undefined, question: string): Promise<AskOutcome> {
  const stored = await clusters.load(name, version);
  return askCluster(stored.cluster, question, { cluster: name, version: stored.version }, clusters);
}
