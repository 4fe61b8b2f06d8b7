// The routes a pull-request pipeline calls to review a policy change: POST /v1/previews and
// POST /v1/lint (one registration, so the app factory names them once).
import type { Sha256Hex } from '../../core/compile/index.js';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { lintRoutes } from './lint.js';
import { previewRoutes } from './previews.js';

export function changeReviewRoutes(app: OpenAPIHono, sha256Hex?: Sha256Hex): void {
  previewRoutes(app, sha256Hex);
  lintRoutes(app);
}
