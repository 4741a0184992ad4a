// Human formatting for terminal output: the same as the UI's and the reports'.
export { formatBytes } from '../contract/format';
