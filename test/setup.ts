// Property tests explore new random cases on every local run (fast-check prints the seed of
// a failure). CI uses one fixed seed so a landing is judged on the change, not on the draw;
// PROPERTY_SEED pins any run to a given seed. A property may still draw its own seed on every
// run, CI included (test/support/property.ts: freshSeed); every one prints its replay command.
import fc from 'fast-check';

const seed = process.env.PROPERTY_SEED ?? (process.env.CI ? '20261121' : undefined);
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) });
