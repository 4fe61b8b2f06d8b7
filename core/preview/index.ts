// The preview stage's door for other layers: what a change to a cluster's manifests does to
// connectivity (preview.ts lists its stages), and that as a pull-request comment.
export {
  preview,
  withoutParts,
  type EndpointRef,
  type LintDelta,
  type Preview,
  type PreviewOptions,
  type PreviewStage,
  type PreviewSummary,
} from './preview.js';
export { applyChanges, type ObjectRef, type SnapshotChanges } from './changes.js';
export { groupText, type Aggregate, type EndpointGroup, type Explanation, type PartRef } from './aggregate.js';
export type { TablesDelta, NodeTablesDelta } from './tables.js';
export { previewMarkdown } from './markdown.js';
export { PREVIEW_LIMITS } from './delta.js';
