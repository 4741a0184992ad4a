// The builders as the renderer and reports import them (through the contract).
export { deltaRows, memoryPerResourceOption, predictedOption, repeatBarsOption, stepLinesOption } from '../../../electron/contract';
export type { EChartsOption } from 'echarts';
