// The step sample is declared once (contract step-sample.ts); the runner's step line and
// the runs/progress event extend it, so a field added to the sample reaches both, with its check.
import { describe, expect, it } from 'vitest';
import { RunProgressEventSchema, RunSampleSchema, StepMessageSchema, toRunSample } from '../../../electron/contract';

const sampleKeys = Object.keys(RunSampleSchema.shape).sort();

describe('the step sample', () => {
  it('is every field of the runner step line and of the progress event, with the same checks', () => {
    for (const schema of [StepMessageSchema, RunProgressEventSchema]) {
      const shape = schema.shape as Record<string, unknown>;
      for (const k of sampleKeys) expect(shape[k], k).toBeDefined();
      // same checks: a sample's byte field takes null and refuses text in every variant
      expect(schema.shape.gpuReservedBytes.safeParse(null).success).toBe(true);
      expect(schema.shape.gpuReservedBytes.safeParse('1').success).toBe(false);
    }
    // the step line keeps its own stricter step (1-based)
    expect(StepMessageSchema.shape.step.safeParse(0).success).toBe(false);
  });

  it('toRunSample keeps exactly the sample fields of a step line', () => {
    const line = StepMessageSchema.parse({
      v: 1,
      t: 2,
      type: 'step',
      step: 3,
      warmup: false,
      stepSeconds: 0.5,
      tokensPerSecond: 100,
      tflopsPerGpu: 1,
      tflopsAggregate: 2,
      loss: 5,
      gpuAllocatedBytes: 1,
      gpuReservedBytes: 2,
      gpuPeakBytes: 3,
      hostRssBytes: 4,
      extra: 'kept by passthrough',
    });
    const s = toRunSample(line);
    expect(Object.keys(s).sort()).toEqual(sampleKeys);
    expect(RunSampleSchema.strict().parse(s)).toEqual(s);
    expect(s).toMatchObject({ step: 3, gpuPeakBytes: 3, hostRssBytes: 4 });
  });
});
