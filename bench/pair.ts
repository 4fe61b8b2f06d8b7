// One figure of a command compared between two checkouts, run alternately in ABBA order (A B,
// B A, A B, …) so that neither side always runs second: on a shared machine the second run of a
// back-to-back pair has read 5–10% slower (bench/README.md, session 18), which a fixed order
// books to one side. Prints each pair, the ratio B/A (median, range, pairs where B was lower),
// and the same pairs read as second/first run, to show the order effect apart from the change.
//   node --import tsx bench/pair.ts --a DIR --b DIR [--pairs 6] [--figure REGEX] [--same REGEX] -- CMD ARG…
// CMD runs with each checkout as its working directory. --figure: a regular expression whose
// first group is the figure on the command's output (default: compile-ab.ts's median). --same: one
// whose first group must read the same on both sides (default: the output hash compile-ab.ts
// prints, when there is one); a difference stops the run, as a timing of different output means nothing.
//   node --import tsx bench/pair.ts --a ../base --b . -- node --expose-gc --import tsx bench/compile-ab.ts sets M 7
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

interface Args {
  readonly a: string;
  readonly b: string;
  readonly pairs: number;
  readonly figure: RegExp;
  readonly same: RegExp;
  readonly command: readonly string[];
}

function parseArgs(argv: readonly string[]): Args {
  const cut = argv.indexOf('--');
  if (cut < 0 || cut === argv.length - 1) throw new Error('usage: bench/pair.ts --a DIR --b DIR [--pairs N] [--figure REGEX] [--same REGEX] -- CMD ARG…');
  const opts = new Map<string, string>();
  for (let i = 0; i < cut; i += 2) opts.set(argv[i]!.replace(/^--/, ''), argv[i + 1] ?? '');
  const [a, b] = [opts.get('a'), opts.get('b')];
  if (!a || !b) throw new Error('--a and --b name the two checkouts');
  const pairs = Number(opts.get('pairs') ?? 6);
  if (!Number.isInteger(pairs) || pairs < 1) throw new Error('--pairs is a whole number ≥ 1');
  return { a: resolve(a), b: resolve(b), pairs, figure: new RegExp(opts.get('figure') ?? 'median of \\d+: ([0-9.]+)'), same: new RegExp(opts.get('same') ?? 'output ([0-9a-f]+)'), command: argv.slice(cut + 1) };
}

/** One run of the command in `dir`: its figure and what must read the same on both sides. */
function run(args: Args, dir: string): { figure: number; same: string | null } {
  const [cmd, ...rest] = args.command;
  const r = spawnSync(cmd!, rest, { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`${args.command.join(' ')} in ${dir} exited ${r.status ?? r.signal}:\n${r.stderr}`);
  const figure = args.figure.exec(r.stdout)?.[1];
  if (figure === undefined) throw new Error(`no figure (${args.figure}) in the output of ${dir}:\n${r.stdout}`);
  return { figure: Number(figure), same: args.same.exec(r.stdout)?.[1] ?? null };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const args = parseArgs(process.argv.slice(2));
const ratios: number[] = [];
const secondOverFirst: number[] = [];
for (let i = 0; i < args.pairs; i++) {
  const bFirst = i % 2 === 1;
  const first = run(args, bFirst ? args.b : args.a);
  const second = run(args, bFirst ? args.a : args.b);
  const [a, b] = bFirst ? [second, first] : [first, second];
  if (a.same !== b.same) throw new Error(`the two sides differ (${args.same}): A ${a.same}, B ${b.same}`);
  ratios.push(b.figure / a.figure);
  secondOverFirst.push(second.figure / first.figure);
  console.log(`pair ${i + 1} (${bFirst ? 'B first' : 'A first'}): A ${a.figure}  B ${b.figure}  B/A ${(b.figure / a.figure).toFixed(3)}`);
}
const range = (xs: readonly number[]) => `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`;
console.log(`B/A over ${args.pairs} pairs: median ${median(ratios).toFixed(3)} (${range(ratios)}), B lower in ${ratios.filter((r) => r < 1).length}`);
console.log(`second run / first run, whichever side: median ${median(secondOverFirst).toFixed(3)} (${range(secondOverFirst)})`);
