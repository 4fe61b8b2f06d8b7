// Import boundaries: each layer imports only itself and the layers upstream of it (schemas ←
// core ← infra ← functions), reaching a core stage only through its index.ts; core is pure and
// free of cycles. Run in `npm test` by test/unit/boundaries.test.ts, and by hand with
// `npm run lint:boundaries`.
// Paths are relative to the repository root; packages resolve under node_modules (a symlink in
// some checkouts, hence the unanchored node_modules in the patterns).

/** Packages core may not use: the HTTP framework, the AWS SDK, the store. */
const IMPURE_PACKAGES = '(hono|dynalite|@hono/[^/]+|@aws-sdk/[^/]+)(/|$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'schemas-not-to-downstream',
      comment: 'schemas parses and validates at the edge and knows nothing of the layers that use it.',
      severity: 'error',
      from: { path: '^schemas/' },
      to: { path: '^(core|infra|functions)/' },
    },
    {
      name: 'core-not-to-infra-or-functions',
      comment: 'core is the pure middle of the flow: it may use schemas and itself, never the store or the server.',
      severity: 'error',
      from: { path: '^core/' },
      to: { path: '^(infra|functions)/' },
    },
    {
      name: 'infra-not-to-functions',
      comment: 'infra holds store adapters behind functions, so it may not reach back into the server.',
      severity: 'error',
      // functions may import every layer, so it has no rule of its own.
      from: { path: '^infra/' },
      to: { path: '^functions/' },
    },
    {
      name: 'core-through-its-doors',
      comment: 'functions and infra reach a core stage only through its index.ts, so each stage shows the surface other layers use in one place.',
      severity: 'error',
      // Top-level core modules (core/cluster.ts, …) are doors of their own.
      from: { path: '^(functions|infra)/' },
      to: { path: '^core/[^/]+/', pathNot: '^core/[^/]+/index\\.ts$' },
    },
    {
      name: 'core-not-through-doors',
      comment: 'doors are for other layers; inside core, modules import each other directly so the doors add no cycles.',
      severity: 'error',
      from: { path: '^core/' },
      to: { path: '^core/[^/]+/index\\.ts$' },
    },
    {
      name: 'core-no-node-builtins',
      comment: 'core is pure computation with no I/O, the same under every adapter (Node, Lambda, Worker).',
      severity: 'error',
      from: { path: '^core/' },
      // node:fs and fs alike (dependency-cruiser drops the node: prefix).
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-no-server-or-store-packages',
      comment: 'core does not depend on the HTTP framework, the AWS SDK or the local store, which belong to functions and infra.',
      severity: 'error',
      from: { path: '^core/' },
      // Resolved under node_modules, or as written when the package cannot be resolved.
      to: { path: [`^${IMPURE_PACKAGES}`, `(^|/)node_modules/${IMPURE_PACKAGES}`] },
    },
    {
      name: 'core-no-circular',
      comment: 'a cycle among core modules hides which stage owns what.',
      severity: 'error',
      from: { path: '^core/' },
      to: { circular: true, viaOnly: { path: '^core/' } },
    },
    {
      name: 'routes-not-to-routes',
      comment: 'a route file reads the request, calls services and shapes the answer: what two routes share is a service (functions/services/) or a shared declaration (functions/openapi.ts), never another route file.',
      severity: 'error',
      from: { path: '^functions/routes/' },
      to: { path: '^functions/routes/' },
    },
    {
      name: 'routes-not-to-infra',
      comment: 'the store is reached through services (functions/services/), so a route never depends on how versions are stored.',
      severity: 'error',
      from: { path: '^functions/routes/' },
      to: { path: '^infra/' },
    },
    {
      name: 'services-not-to-routes',
      comment: 'services hold the use cases behind the routes and know nothing of how a route declares or answers them.',
      severity: 'error',
      from: { path: '^functions/services/' },
      to: { path: '^functions/routes/' },
    },
    {
      name: 'relative-import-resolves',
      comment: 'an import that resolves to no file has no layer, so the rules above could not see it cross one.',
      severity: 'error',
      from: { path: '^(schemas|core|infra|functions)/' },
      to: { couldNotResolve: true, path: '^\\.' },
    },
  ],
  options: {
    // Packages are leaves: enough to see which one is imported, not worth parsing.
    doNotFollow: { path: '(^|/)node_modules/' },
    // Type-only imports couple layers too; keep them in the graph.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    progress: { type: 'none' },
  },
};
