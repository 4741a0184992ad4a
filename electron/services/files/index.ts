// Reading paths a person typed (CLI flags and arguments): regular files only, bounded by the caller.
export { MODEL_CONFIG_MAX_BYTES, checkRegularFile, readRegularFile, readRegularText, type ReadLimit } from './regular-file';
