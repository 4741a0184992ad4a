// Planning (tuner) shapes and channels. Filled in by the tuner issue.
import { z } from 'zod';

export const planRequests = {} as const;
export const planEvents = {} as const;
export const _planSchemasPlaceholder = z.object({});
