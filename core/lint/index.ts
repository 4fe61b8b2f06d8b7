// The lint stage's door for other layers: policy lints over a built Cluster and their
// catalogue (lint.ts runs them; each lint is its own module).
export { LINT_LIMITS, uncheckedText, type Unchecked } from './budget.js';
export { lint, lintRun, LINTS, type LintInfo, type LintRun } from './lint.js';
export { findingKey, objectKey } from './types.js';
export type { Finding, FindingObject, LintCode, LintLimits, LintOptions, Severity } from './types.js';
