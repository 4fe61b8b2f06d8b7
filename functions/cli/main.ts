// `netpolc` — the CLI over the same core as the API, one module per command
// (functions/cli/commands/). Exit codes a pipeline can gate on: 0 fine, 1 a gate failed
// (--expect mismatch, lint findings at --fail-on, a preview that removes allowed flows),
// 2 bad usage or input.
import { commandAsk } from './commands/ask.js';
import { commandCompile } from './commands/compile.js';
import { commandLint } from './commands/lint.js';
import { commandMatrix } from './commands/matrix.js';
import { commandPreview } from './commands/preview.js';
import { commandVerdict } from './commands/verdict.js';
import { InputError } from './input.js';
import { LimitError } from '../../core/limits.js';
import { UsageError, type Command, type InputOptions, type Io } from './io.js';

export type { Io } from './io.js';

const USAGE = `usage: netpolc <command> [options] [file|dir|- ...]
  verdict --from ENDPOINT --to ENDPOINT --port N|NAME [--protocol TCP|UDP|SCTP] [--ip-family IPv4|IPv6] [--expect allow|deny]
  matrix  [--port N[/PROTO] ...] [--namespace NS ...]
  compile --format ir|ir-flat|vpp-acl|vpp-session|nftables|iptables|openstack-sg [--node NAME ...] [--part ipset|ipv4|ipv6]
  lint    [--fail-on error|warning|info]                       exit 1 on findings at or above --fail-on (error)
  ask     "can shop/web reach shop/db on 5432?"                a chat-ops question
  preview --base DIR|FILE|- (--head DIR|FILE|- | --changes FILE) [--no-tables] [--no-lint] [--detail parts]
          [--allow-removed-flows]                               exit 1 when allowed flows are removed, unless allowed
common: --output text|json|markdown (default text); inputs are YAML/JSON files, directories, or stdin
        (kubectl get ns,pods,nodes,netpol,anp,banp -A -o yaml | netpolc verdict …)
        --exclude GLOB (repeatable) leaves out files and directories of a repository;
        --keep-going reports invalid objects and documents and leaves them out instead of stopping
endpoints: NS/POD, or a workload NS/KIND/NAME (deployment|deploy, statefulset|sts, daemonset|ds,
        replicaset|rs, replicationcontroller|rc, job, cronjob|cj, Argo rollout|ro, Kruise
        cloneset|clone), e.g. shop/deploy/web; a Service NS/svc/NAME; a label selector
        NS/KEY=VALUE[,…]; a node name; an IP; a CIDR (each region of it that policies treat alike,
        at most 256), e.g. 10.244.0.0/16`;

const COMMANDS: Record<string, Command> = { verdict: commandVerdict, matrix: commandMatrix, compile: commandCompile, lint: commandLint, ask: commandAsk, preview: commandPreview };

/** Options every command takes about its input, taken out of the arguments before the command reads them. */
function inputOptions(args: readonly string[]): { rest: string[]; input: InputOptions } {
  const rest: string[] = [];
  const exclude: string[] = [];
  let keepGoing = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      rest.push(...args.slice(i));
      break;
    }
    if (a === '--keep-going') keepGoing = true;
    else if (a.startsWith('--exclude=')) exclude.push(a.slice('--exclude='.length));
    else if (a === '--exclude') {
      const v = args[++i];
      if (v === undefined) throw new UsageError('--exclude needs a glob, e.g. --exclude "charts/**"');
      exclude.push(v);
    } else rest.push(a);
  }
  return { rest, input: { exclude, keepGoing } };
}

export function main(argv: readonly string[], io: Io): number {
  const [command, ...args] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.out(USAGE);
    return command ? 0 : 2;
  }
  const run = COMMANDS[command];
  if (!run) {
    io.err(`unknown command "${command}"\n${USAGE}`);
    return 2;
  }
  try {
    const { rest, input } = inputOptions(args);
    return run(rest, { ...io, input });
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`${(e as Error).message}\n${USAGE}`);
      return 2;
    }
    // Bad input, or a format that cannot express it within its documented limits: a message, not a stack.
    if (e instanceof InputError || e instanceof LimitError) {
      io.err((e as Error).message);
      return 2;
    }
    // An answer longer than the runtime's largest string: too much asked at once, as the API's 413 says.
    if (e instanceof RangeError && /string length/i.test(e.message)) {
      io.err('the answer is larger than this runtime can write as one text (about 512 MiB of JSON); ask for --format ir (shared sets), one --node, or a smaller snapshot');
      return 2;
    }
    throw e;
  }
}
