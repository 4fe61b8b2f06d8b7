// The lint stage's door for other layers: policy lints over a built Cluster and their
// catalogue (lint.ts runs them; each lint is its own module).
export { lint, LINTS, type LintInfo } from './lint.js';
export { objectKey } from './types.js';
export type { Finding, FindingObject, LintCode, LintOptions, Severity } from './types.js';
