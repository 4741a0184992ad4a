// environment shapes and channels. Filled in by its owner (see channels.ts for how domains merge).
import { z } from 'zod';

export const environmentRequests = {} as const;
export const environmentEvents = {} as const;
export const _environmentSchemasPlaceholder = z.object({});
