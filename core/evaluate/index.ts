// The evaluate stage's door for other layers: single-flow verdicts with their decision chains,
// and the connectivity matrix.
export type { AddressRegion } from './cidr.js';
export type { SideVerdict, Verdict } from './engine.js';
export { endLabel } from './expand.js';
export { matrix } from './matrix.js';
export { FlowError, findEndpoint, type EndpointSpec } from './resolve.js';
export { verdictFor, type FlowVerdict, type GroupVerdict } from './verdicts.js';
