// Workload input → a validated Workload (defaults filled), with the offending field named.
import { describeIssue, firstIssue, ApiError, WorkloadSchema, type Workload, type WorkloadInput } from '../../../contract';

export function parseWorkload(input: WorkloadInput | Workload): Workload {
  const result = WorkloadSchema.safeParse(input);
  if (!result.success) {
    throw new ApiError('bad_workload', `workload: ${describeIssue(result.error)}`, firstIssue(result.error).path);
  }
  return result.data;
}
