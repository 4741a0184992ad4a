// services/monitor: the resource view of runs. Samplers per source (gpu-sampler: two
// nvidia-smi children; host-sampler: /proc), a bounded ring, the per-run monitor the sweep starts
// and stops, and the attribution of measured steps beside the tuner's predicted terms.
export { startMonitor, runGpuIndexes, pcieNominalGBps, DEFAULT_INTERVAL_MS, type MonitorOptions, type ResourceMonitor } from './monitor';
export { GpuSampler, queryArgs, DMON_ARGS, type GpuSamplerOptions } from './gpu-sampler';
export { HostSampler, type HostReading } from './host-sampler';
export { SampleRing, mergeSamples } from './ring';
export { attribute, readWindow, TERM_LANES, type PredictedInput } from './attribution';
export { parseProcStat, cpuBusyPercent, parseMeminfo, parseDiskstats } from './proc';
