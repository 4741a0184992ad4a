// Where a text stops being JSON and what JSON expected there, for a user's file that JSON.parse
// refused. V8's own message is not used: its wording and whether it gives a position at all change
// between Node versions ("Unexpected token" has none on Node 20), and it quotes the text around the
// error — a ds_config path that is a symlink to a secret file must not print the secret. This scanner
// follows RFC 8259 and reports an offset and words about the syntax only, never the file's characters.
// It also bounds the nesting: a file 2,000 levels deep parses, then overflows the stack of every
// recursive reader after it ("Maximum call stack size exceeded"); the scan stops at MAX_JSON_DEPTH,
// so its own recursion stays that shallow.

/** Deeper than any real config (a ds_config is 3–4 levels, a config.json's text_config 3). */
export const MAX_JSON_DEPTH = 64;

export interface JsonSyntaxError {
  /** Character offset of the error in the text. */
  offset: number;
  /** What JSON expected there, in words. */
  expected: string;
}

export interface JsonScan {
  error: JsonSyntaxError | null;
  /** The first key given twice in one object (dotted path) and where its second one starts. DeepSpeed
   *  refuses a config file with one ("Duplicate keys in DeepSpeed config"); JSON.parse keeps the last. */
  duplicate: { key: string; offset: number } | null;
  /** Where the text first nests deeper than MAX_JSON_DEPTH (the scan stops there), else null. */
  tooDeep: { offset: number } | null;
}

const WS = new Set([' ', '\t', '\n', '\r']);
const VALUE = 'a value (a string in double quotes, a number, an object, an array, true, false or null)';

class TooDeep extends Error {
  constructor(readonly offset: number) {
    super('too deep');
  }
}

class Stop extends Error {
  constructor(
    readonly offset: number,
    readonly expected: string,
  ) {
    super(expected);
  }
}

/** One pass over the text: its first syntax error, its first duplicate key and whether it nests too deep. */
export function scanJson(text: string): JsonScan {
  let i = 0;
  let duplicate: JsonScan['duplicate'] = null;
  const ws = () => {
    while (i < text.length && WS.has(text[i])) i++;
  };
  const fail = (expected: string, at = i): never => {
    if (at >= text.length) throw new Stop(text.length, `${expected}, but the file ends (a missing } or ]?)`);
    if (text.startsWith('//', at) || text.startsWith('/*', at)) throw new Stop(at, `${expected}, found a comment (JSON has no comments)`);
    if (text[at] === "'") throw new Stop(at, `${expected}, found a single quote (JSON strings take double quotes)`);
    throw new Stop(at, expected);
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) fail('a closing double quote');
      const c = text[i];
      if (c === '"') return void i++;
      if (c < ' ') fail('no raw control character (tab, newline) inside a string: write it as \\t or \\n');
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('four hex digits after \\u', i + 2);
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else fail('an escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX) after the backslash', i + 1);
      } else i++;
    }
  };
  const number = () => {
    const start = i;
    const what = 'a number (digits, no leading zeros, a digit after - . or e)';
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail(what);
    i += m![0].length;
    if (i < text.length && /[0-9.eE]/.test(text[i])) fail(what, start);
  };
  const value = (depth: number, path: string) => {
    if (depth > MAX_JSON_DEPTH) throw new TooDeep(i);
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      const keys = new Set<string>();
      for (;;) {
        ws();
        if (text[i] !== '"')
          fail(
            text[i] === '}'
              ? 'a property name in double quotes (a trailing comma before } is not allowed)'
              : 'a property name in double quotes',
          );
        const start = i;
        string();
        const key = JSON.parse(text.slice(start, i)) as string;
        const at = path ? `${path}.${key}` : key;
        if (keys.has(key)) duplicate ??= { key: at, offset: start };
        keys.add(key);
        ws();
        if (text[i] !== ':') fail("':' after the property name");
        i++;
        value(depth + 1, at);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') return void i++;
        fail("',' or '}' after the property value");
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        ws();
        if (text[i] === ']') fail(`${VALUE} (a trailing comma before ] is not allowed)`);
        value(depth + 1, path);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') return void i++;
        fail("',' or ']' after the array element");
      }
    }
    if (c === '"') return string();
    if (c === '-' || (c >= '0' && c <= '9')) return number();
    for (const word of ['true', 'false', 'null'])
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    fail(VALUE);
  };
  try {
    value(0, '');
    ws();
    if (i < text.length) fail('nothing after the end of the JSON value');
    return { error: null, duplicate, tooDeep: null };
  } catch (error) {
    if (error instanceof TooDeep) return { error: null, duplicate, tooDeep: { offset: error.offset } };
    if (error instanceof Stop) return { error: { offset: error.offset, expected: error.expected }, duplicate, tooDeep: null };
    throw error;
  }
}
