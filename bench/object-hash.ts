// What a whole publish does with every parsed object besides compiling: the snapshot hash
// (canonical JSON and SHA-256 of each object, runs, their digests) and the stored object groups
// (each run's canonical JSON), timed three times, with the hash and the bytes so two checkouts
// can be held to the same output. Run it from each checkout, alternating:
//   node --max-old-space-size=6000 --import tsx bench/object-hash.ts [S|M|L]
import { GENERATORS, type SizeName } from './generate.js';
import { parseSnapshot } from '../schemas/snapshot.js';
import { hashObjects } from '../core/snapshot/hash.js';
import { encodeGroup, objectGroups } from '../infra/store/objects.js';
import { nodeSha256Hex } from '../functions/node-sha256.js';

const size = (process.argv[2] ?? 'M') as SizeName;
const text = JSON.stringify(GENERATORS[size]());
for (let r = 0; r < 3; r++) {
  const parsed = parseSnapshot(JSON.parse(text));
  if (!parsed.ok) throw new Error('the generated snapshot does not parse');
  const { objects } = parsed.snapshot;
  let s = performance.now();
  const hashed = hashObjects(objects, nodeSha256Hex);
  const hashMs = performance.now() - s;
  s = performance.now();
  let bytes = 0;
  for (const g of objectGroups(objects, nodeSha256Hex, hashed)) bytes += encodeGroup(g).length;
  const groupsMs = performance.now() - s;
  console.log(`${size} hash ${hashMs.toFixed(0)} ms, object groups encoded ${groupsMs.toFixed(0)} ms, ${bytes} bytes, snapshot hash ${hashed.hash.slice(0, 16)}`);
}
