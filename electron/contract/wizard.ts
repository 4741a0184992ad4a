// The setup wizard's progress, kept in the data folder so every step is resumable: close the
// app at step 4, reopen, and it continues at step 4 with what was chosen before.
import { z } from 'zod';

export const WizardStepSchema = z.enum(['welcome', 'hardware', 'environment', 'measure', 'workload', 'plan', 'run']);
export const wizardSteps = WizardStepSchema.options;

export const WizardStateSchema = z.object({
  step: WizardStepSchema,
  completed: z.array(WizardStepSchema),
  /** The user finished or closed the wizard; it no longer opens by itself. */
  dismissed: z.boolean(),
  /** The workload chosen in step 5 (same fields as the Plan page's form). */
  workload: z.record(z.string(), z.unknown()).nullable(),
  updatedAt: z.string().nullable(),
});

export type WizardStep = z.infer<typeof WizardStepSchema>;
export type WizardState = z.infer<typeof WizardStateSchema>;

export const wizardRequests = {
  'wizard/get': { request: z.object({}).strict(), response: WizardStateSchema },
  'wizard/save': {
    request: WizardStateSchema.omit({ updatedAt: true }).partial().strict(),
    response: WizardStateSchema,
  },
} as const;

export const wizardEvents = {} as const;
