// The diff stage's door for other layers: what a node agent must change between two versions,
// for flat tables and for the set form.
export { diffNode, type NodeBindings } from './node-tables.js';
export { nodeDelta, type NodeSlice } from './set-node.js';
