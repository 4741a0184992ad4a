// The scheduler block as DeepSpeed 0.19 builds it: `scheduler.params` goes to the scheduler's
// constructor as **kwargs at deepspeed.initialize, so what it refuses surfaces only once a run has
// started (a model built, the optimizer placed). The app checks the same things first, against the
// constructors' arguments recorded from DeepSpeed itself (ds-config-keys.json `schedulers`) and the
// checks of deepspeed/runtime/lr_schedules.py: an unknown type, an unknown or missing param, a
// warmup_num_steps / lr_range_test_step_size that is not a positive integer, a OneCycle step size ≤ 0.
import { deepSpeedKeys } from './deepspeed-keys';
import { isObject, type JsonObject } from './json-text';

type Err = { field: string; message: string };

/** torch.optim.lr_scheduler classes DeepSpeed falls back to for a type it does not have itself. */
const TORCH_SCHEDULERS = [
  'LambdaLR',
  'MultiplicativeLR',
  'StepLR',
  'MultiStepLR',
  'ConstantLR',
  'LinearLR',
  'ExponentialLR',
  'SequentialLR',
  'CosineAnnealingLR',
  'ChainedScheduler',
  'ReduceLROnPlateau',
  'CyclicLR',
  'CosineAnnealingWarmRestarts',
  'OneCycleLR',
  'PolynomialLR',
];

/** Params lr_schedules.py requires to be a positive Python int (isinstance(x, int) and x > 0). */
const POSITIVE_INT = ['warmup_num_steps', 'lr_range_test_step_size'];

export function checkScheduler(config: JsonObject, errors: Err[]): void {
  const block = config.scheduler;
  if (block === undefined || block === null) return;
  if (!isObject(block)) {
    errors.push({ field: 'scheduler', message: 'must be an object ({"type": "WarmupLR", "params": {…}})' });
    return;
  }
  const { schedulers, deepspeedVersion } = deepSpeedKeys();
  const type = block.type;
  if (typeof type !== 'string') {
    errors.push({ field: 'scheduler.type', message: `must name a scheduler (${Object.keys(schedulers).join(', ')})` });
    return;
  }
  const params = block.params ?? {};
  if (!isObject(params)) {
    errors.push({ field: 'scheduler.params', message: "must be an object of the scheduler's arguments" });
    return;
  }
  const signature = schedulers[type];
  if (!signature) {
    if (!TORCH_SCHEDULERS.includes(type))
      errors.push({
        field: 'scheduler.type',
        message: `DeepSpeed ${deepspeedVersion} does not recognize LR scheduler ${type} (its own: ${Object.keys(schedulers).join(', ')}; or a torch.optim.lr_scheduler class)`,
      });
    return; // a torch scheduler's arguments are torch's to check
  }
  for (const key of Object.keys(params))
    if (!(key in signature))
      errors.push({
        field: `scheduler.params.${key}`,
        message: `${type} takes no argument "${key}" (DeepSpeed ${deepspeedVersion} stops with "unexpected keyword argument"); it takes ${Object.keys(signature).join(', ')}`,
      });
  for (const [key, arg] of Object.entries(signature))
    if (arg.required && params[key] === undefined)
      errors.push({
        field: `scheduler.params.${key}`,
        message: `${type} requires it (no default in DeepSpeed ${deepspeedVersion}): give a number of steps`,
      });
  for (const key of POSITIVE_INT) {
    const v = params[key];
    if (key in signature && v !== undefined && !(typeof v === 'number' && Number.isInteger(v) && v > 0))
      errors.push({
        field: `scheduler.params.${key}`,
        message: `must be a positive integer, got ${JSON.stringify(v)} (DeepSpeed ${deepspeedVersion} lr_schedules.py refuses it when the run starts)`,
      });
  }
  if (type === 'OneCycle') {
    const first = params.cycle_first_step_size;
    const second = params.cycle_second_step_size;
    if (first !== undefined && !(typeof first === 'number' && first > 0))
      errors.push({ field: 'scheduler.params.cycle_first_step_size', message: `must be positive, got ${JSON.stringify(first)}` });
    if (second !== undefined && second !== null && !(typeof second === 'number' && second >= 0))
      errors.push({ field: 'scheduler.params.cycle_second_step_size', message: `must be non-negative, got ${JSON.stringify(second)}` });
  }
}
