#!/usr/bin/env node
// `npx netpolc …`: runs the TypeScript CLI through tsx's loader (no build step to go stale).
import { register } from 'tsx/esm/api';

register();
await import('../functions/cli/run.ts');
