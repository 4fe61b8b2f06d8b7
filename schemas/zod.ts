// zod with the OpenAPI method (`.openapi()`) that schemas/api calls on schemas defined in
// schemas/k8s. zod 4 gives a schema its methods when the schema is made, so the extension must
// come before the process makes its first schema, whichever module loads first (an entry that
// opens the store before the app, the CLI, a core stage). Every schema module takes z from here.
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

// A required field left out is said as the API server says it (field.Required: "Required
// value"), not as a type mismatch with undefined. A schema's own message still comes first.
z.config({ customError: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'Required value' : undefined) });

export { z };
