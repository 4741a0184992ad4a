import { z } from 'zod';

/** A request with no payload. */
export const Empty = z.object({}).strict();

/** Where a run is in its life (runs table `status`). Here, not in runs.ts, so that engine.ts and the
 *  stored-document readings (stored.ts) can use it without an import cycle through runs.ts. */
export const RunStatusSchema = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted']);
