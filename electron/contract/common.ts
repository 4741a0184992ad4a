import { z } from 'zod';

/** A request with no payload. */
export const Empty = z.object({}).strict();
