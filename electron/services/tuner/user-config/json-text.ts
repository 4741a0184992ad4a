// A user's file parsed as JSON, or refused with the line and column where it stops being JSON (what an
// editor shows), instead of V8's "at position 1234" or nothing at all.
import { ApiError } from '../../../contract';
import { MAX_JSON_DEPTH, scanJson } from './json-scan';

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** 1-based line and column of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

/** Where JSON.parse stopped: V8 says "position N" (Node 20) or "(line L column C)" (Node 22), or nothing at the end of input. */
function errorOffset(text: string, message: string): number {
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (lc) {
    const lines = text.split('\n');
    const line = Math.min(Number(lc[1]), lines.length);
    return lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + Number(lc[2]) - 1;
  }
  const pos = /position (\d+)/.exec(message);
  if (pos) return Number(pos[1]);
  return text.length; // "Unexpected end of JSON input"
}

/** Parses a ds_config's text; a non-object or a syntax error is an ApiError naming line and column. */
export function parseConfigText(text: string, fileName: string): JsonObject {
  const body = text.replace(/^\uFEFF/, ''); // a BOM from Windows editors is not an error
  // Scanned first (json-scan.ts): a depth no recursive reader after this survives is refused here,
  // and the reason for a syntax error is in fixed words (V8's quotes the file: /etc/shadow once).
  const scan = scanJson(body);
  const notJson = (reason: string, offset: number) => {
    const { line, column } = lineColumn(body, offset);
    return new ApiError(
      'bad_config',
      `${fileName} is not JSON: ${reason} at line ${line}, column ${column}. A ds_config.json is one JSON object; comments and trailing commas are not allowed (DeepSpeed reads it with Python's json).`,
      '(json)',
    );
  };
  if (!scan.ok && 'tooDeep' in scan) {
    const { line, column } = lineColumn(body, scan.offset);
    throw new ApiError(
      'bad_config',
      `${fileName} nests deeper than ${MAX_JSON_DEPTH} levels (at line ${line}, column ${column}); a ds_config.json is a few levels deep. Check that this is the right file.`,
      '(json)',
    );
  }
  if (!scan.ok) throw notJson(scan.reason, scan.offset);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw notJson('not valid JSON', errorOffset(body, (error as Error).message)); // (the scanner agreed: not expected)
  }
  if (!isObject(value))
    throw new ApiError(
      'bad_config',
      `${fileName}: a ds_config.json is a JSON object ({ … }), this file holds ${Array.isArray(value) ? 'an array' : typeof value === 'string' ? 'a string' : String(value)}.`,
      '(root)',
    );
  return value;
}
