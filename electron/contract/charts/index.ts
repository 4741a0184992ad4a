// Shared, pure chart and comparison helpers (type imports only): used by the renderer's Compare
// page, the comparison service and the server-side HTML reports.
export * from './diff';
export * from './labels';
export * from './compare-charts';
export * from './plan-charts';
export * from './live-charts';
export * from './measure-charts';
export * from './memory-panels';
export * from './escape';
export * from './resource-lanes';
export * from './loss-curve';
export * from './resource-live';
export * from './resource-overlay';
