// One cold detection in a fresh process (spawned by bench/detect.ts): module load + detection.
const started = performance.now();
const { detectMachine } = await import('../electron/services/hardware');
const machine = await detectMachine();
process.stdout.write(
  JSON.stringify({ totalMs: performance.now() - started, detectionMs: machine.detectionMs, gpus: machine.gpus.length }) + '\n',
);
export {};
