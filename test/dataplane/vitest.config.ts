// `npm run test:dataplane`: the real-kernel test alone, one file at a time (it owns network
// namespaces and the nft/iptables state inside them), with the switch that lets it run.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/dataplane/**/*.test.ts'],
    env: { NETPOLC_DATAPLANE: '1' },
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
