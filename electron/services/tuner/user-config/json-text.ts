// A user's file parsed as JSON, or refused with the line and column where it stops being JSON (what an
// editor shows) and what JSON expected there (json-syntax.ts), instead of V8's "at position 1234", its
// quote of the file's text, or nothing at all. The error's field is the file's name, which the message
// starts with: the CLI and the Plan page print no field beside a message that already names it.
import { ApiError } from '../../../contract';
import { MAX_JSON_DEPTH, scanJson } from './json-syntax';

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

/** Parses a ds_config's text; a non-object or a syntax error is an ApiError naming line and column. */
export function parseConfigText(text: string, fileName: string): JsonObject {
  const body = text.replace(/^\uFEFF/, ''); // a BOM from Windows editors is not an error
  // One scan before JSON.parse: the depth (a file nested deeper than any config parses, then overflows
  // the stack of every recursive reader after it), the syntax and a key given twice.
  const scan = scanJson(body);
  if (scan.tooDeep) {
    const { line, column } = lineColumn(body, scan.tooDeep.offset);
    throw new ApiError(
      'bad_config',
      `${fileName} nests deeper than ${MAX_JSON_DEPTH} levels (at line ${line}, column ${column}); a ds_config.json is a few levels deep. Check that this is the right file.`,
      fileName,
    );
  }
  // where and what, from our own scanner: V8's message quotes the text (not shown: the file may be a
  // secret behind a symlink) and gives no position for some errors
  let value: unknown = undefined;
  try {
    if (!scan.error) value = JSON.parse(body);
  } catch {
    // the scanner follows the same grammar; should V8 still refuse, the start is the place to look
  }
  if (scan.error || value === undefined) {
    const found = scan.error ?? { offset: 0, expected: 'a JSON value' };
    const { line, column } = lineColumn(body, found.offset);
    throw new ApiError(
      'bad_config',
      `${fileName} is not JSON: at line ${line}, column ${column} JSON expected ${found.expected}. A ds_config.json is one JSON object; comments and trailing commas are not allowed (HF Trainer and accelerate read it with Python's json).`,
      fileName,
    );
  }
  const { duplicate } = scan;
  if (duplicate) {
    const { line, column } = lineColumn(body, duplicate.offset);
    throw new ApiError(
      'bad_config',
      `${fileName}: ${duplicate.key} is given twice (again at line ${line}, column ${column}); DeepSpeed refuses the file ("Duplicate keys in DeepSpeed config") and HF Trainer would silently keep the last: keep one.`,
      duplicate.key,
    );
  }
  if (!isObject(value))
    throw new ApiError(
      'bad_config',
      `${fileName}: a ds_config.json is a JSON object ({ … }), this file holds ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}.`,
      fileName,
    );
  return value;
}
