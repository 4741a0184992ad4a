// user-config: a user's own ds_config.json in (read, "auto" filled, keys checked as DeepSpeed does,
// mapped onto a strategy, planned), and the tuned alternative back as a diff of keys.
export { planUserConfig, type UserConfigInput } from './plan-user-config';
export { parseConfigText, lineColumn } from './json-text';
export { resolveAutoValues, type AutoContext } from './auto-values';
export { deriveBatch } from './batch';
export { checkKeys } from './check-keys';
export { mapConfig } from './map-config';
export { configDiff, tunedConfig } from './config-diff';
export { deepSpeedKeys } from './deepspeed-keys';
