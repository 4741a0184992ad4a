// Engine (benchmark runs) shapes, runner protocol and channels. Filled in by the engine issue.
import { z } from 'zod';

export const engineRequests = {} as const;
export const engineEvents = {} as const;
export const _engineSchemasPlaceholder = z.object({});
