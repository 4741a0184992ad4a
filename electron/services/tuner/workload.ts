// Workload input → a validated Workload (defaults filled), with the offending field named.
import { ApiError, WorkloadSchema, type Workload, type WorkloadInput } from '../../contract';

export function parseWorkload(input: WorkloadInput | Workload): Workload {
  const result = WorkloadSchema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path.length ? issue.path.join('.') : '(root)';
    throw new ApiError('bad_workload', `workload: field '${field}' ${issue?.message ?? 'invalid'}`, field);
  }
  return result.data;
}
