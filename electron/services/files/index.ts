// Reading paths a person typed (CLI flags and arguments): regular files only, bounded by the caller.
export { checkRegularFile, readRegularFile, readRegularText, type ReadLimit } from './regular-file';
