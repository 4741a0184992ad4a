// measure shapes and channels. Filled in by its owner (see channels.ts for how domains merge).
import { z } from 'zod';

export const measureRequests = {} as const;
export const measureEvents = {} as const;
export const _measureSchemasPlaceholder = z.object({});
