// What the model-probe and model-import tests share: the tiny Gemma config.json they import (one KV head,
// head_dim given: the probe builds it in a second), whether an engine environment is here to probe with,
// a scratch folder, and a rejected promise read as the backend's error (code, field, message).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chooseInterpreter } from '../../electron/services/environment';

/** A 2-layer Gemma of 64 hidden units: small enough that transformers builds it on the meta device at once. */
export const TINY_GEMMA = {
  model_type: 'gemma',
  hidden_size: 64,
  intermediate_size: 128,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 1,
  head_dim: 16,
  vocab_size: 256,
};

/** The interpreter a probe runs in (the engine environment's, where one is found). */
export const engineChoice = chooseInterpreter(null);
/** An interpreter with torch and transformers (the engine environment) was found: the probe can run. */
export const haveEngine = engineChoice.source !== 'path';

export const scratchDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** The error a backend call rejects with, or null when it resolves. */
export const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as { code: string; field?: string; message: string },
  );
