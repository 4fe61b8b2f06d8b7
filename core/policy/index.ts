// The policy stage's door for other layers: every policy kind as one tiered rule shape.
export { describePolicy } from './model.js';
