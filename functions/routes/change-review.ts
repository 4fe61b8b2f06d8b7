// The routes a pull-request pipeline calls to review a policy change: POST /v1/previews and
// POST /v1/lint (one registration, so the app factory names them once).
import type { OpenAPIHono } from '@hono/zod-openapi';
import { lintRoutes } from './lint.js';
import { previewRoutes } from './previews.js';

export function changeReviewRoutes(app: OpenAPIHono): void {
  previewRoutes(app);
  lintRoutes(app);
}
