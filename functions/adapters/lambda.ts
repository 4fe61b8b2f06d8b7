// AWS Lambda entry (API Gateway v1/v2, ALB, function URLs) via hono/aws-lambda: builds AppDeps
// from process.env on the first invocation, not at import time, and reuses the app for the
// warm container's later invocations.
import { handle, type LambdaContext, type LambdaEvent } from 'hono/aws-lambda';
import { createApp } from '../app.js';
import { depsFromEnv } from '../config.js';
import { nodeSha256Hex } from '../node-sha256.js';

export { depsFromEnv };

type Handle = ReturnType<typeof handle>;
let inner: Handle | undefined;

export const handler = (event: LambdaEvent, context?: LambdaContext): ReturnType<Handle> => {
  inner ??= handle(createApp({ ...depsFromEnv(process.env), sha256Hex: nodeSha256Hex }));
  return inner(event, context);
};
