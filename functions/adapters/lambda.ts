// AWS Lambda entry (API Gateway v1/v2, ALB, function URLs) via hono/aws-lambda: builds AppDeps
// and the DynamoDB store from process.env on the first invocation, not at import time, and
// reuses the app for the warm container's later invocations. Credentials: the SDK's chain (the
// function's execution role).
import { handle, type LambdaContext, type LambdaEvent } from 'hono/aws-lambda';
import { serverlessStoreFromEnv } from '../../infra/serverless-store.js';
import { createApp } from '../app.js';
import { depsFromEnv } from '../config.js';
import { nodeSha256Hex } from '../node-sha256.js';
import { nodeAnswerCompressor, nodeCompression } from '../node-compression.js';

type Handle = ReturnType<typeof handle>;
let inner: Handle | undefined;

// async: a configuration error (say, malformed NETPOLC_TOKENS) rejects the invocation with its
// reason, which Lambda logs; the app is built again on the next invocation, never served half-configured.
export const handler = async (event: LambdaEvent, context?: LambdaContext): Promise<Awaited<ReturnType<Handle>>> => {
  inner ??= handle(createApp({ ...depsFromEnv(process.env, 'serverless'), store: serverlessStoreFromEnv(process.env, { credentials: 'chain', sha256Hex: nodeSha256Hex, compression: nodeCompression, contentCacheBytes: 32 * 1024 * 1024 }), sha256Hex: nodeSha256Hex, answerCompressor: nodeAnswerCompressor }));
  return inner(event, context);
};
