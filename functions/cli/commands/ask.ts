// `netpolc ask "can shop/web reach shop/db on 5432?"`: the chat-ops answer from the command
// line. A question it cannot read, or about a pod the snapshot does not have, is exit 2.
import { parseArgs } from 'node:util';
import { ask, chainLines, isParseFailure, type Answer } from '../../../core/ask/index.js';
import { InputError, loadCluster, readSources } from '../input.js';
import { outputFormat, UsageError, type Io, type OutputFormat } from '../io.js';

function answerText(a: Exclude<Answer, { kind: 'error' }>, format: OutputFormat): string {
  const bullet = format === 'markdown' ? '- ' : '  ';
  // The sentence says it all but the decision chains: of a "can" answer, one line per side; of the examples of others.
  return [a.text, ...chainLines(a).map((d) => `${bullet}${d}`)].join('\n');
}

export function commandAsk(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { output: { type: 'string' } } });
  const format = outputFormat(values.output);
  const [question, ...inputs] = positionals;
  if (question === undefined) throw new UsageError('ask needs a question, e.g. netpolc ask "can shop/web reach shop/db on 5432?" cluster.yaml');
  const cluster = loadCluster(readSources(inputs, io), io.err, io.input?.keepGoing);
  const answer = ask(cluster, question);
  if (isParseFailure(answer)) throw new InputError(`cannot read the question: ${answer.error}\nquestions look like:\n${answer.acceptedForms.map((f) => `  ${f}`).join('\n')}`);
  if (answer.kind === 'error') throw new InputError(answer.text);
  io.out(format === 'json' ? JSON.stringify(answer, null, 2) : answerText(answer, format));
  return 0;
}
