// The snapshot stage's door for other layers: a snapshot's content identity (hashes of its
// objects' canonical JSON), which the store keys versions by, and the nodes it names.
export { canonicalJson, formerSnapshotHash, objectDigest, objectRuns, objectsJson, parsedWithDigest, snapshotHash, type HashedObjects, type RunTexts } from './hash.js';
export { unknownNodes } from './node-names.js';
