// A user's JSON file checked before JSON.parse, by a small iterative scanner (no recursion, so no
// input can overflow the stack here). It answers two things V8 does not:
// - how deep the file nests: a ds_config 2,000 levels deep parsed fine and then overflowed the
//   stack of every recursive reader after it ("internal: Maximum call stack size exceeded");
// - where the file stops being JSON and why, in fixed words that never quote the file: V8's
//   message quotes it ('Unexpected token 'r', "root:*:202"...' for a link to /etc/shadow), and its
//   "Unexpected token" form has no position at all.

/** Deeper than any real config (a ds_config is 3–4 levels, a config.json's text_config 3). */
export const MAX_JSON_DEPTH = 64;

export type JsonScan =
  { ok: true; depth: number } | { ok: false; offset: number; reason: string } | { ok: false; tooDeep: true; offset: number };

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WORDS = ['true', 'false', 'null'];
const ESCAPES = '"\\/bfnrt';

/** Syntax and nesting depth of `text` (JSON as JSON.parse reads it), stopping past `maxDepth`. */
export function scanJson(text: string, maxDepth = MAX_JSON_DEPTH): JsonScan {
  const n = text.length;
  const stack: string[] = [];
  let i = 0;
  let depth = 0;
  const fail = (reason: string): JsonScan => ({ ok: false, offset: i, reason: i >= n ? 'the text ends early' : reason });
  const skip = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  /** Moves past a string at i; null when it is one, else the reason. */
  const string = (): string | null => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return null;
      }
      if (c < 32) return 'a control character inside a string (write it as an escape)';
      if (c === 92) {
        const e = text[i + 1];
        if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
        else if (e !== undefined && ESCAPES.includes(e)) i += 2;
        else {
          i++;
          return 'a backslash that starts no escape';
        }
      } else i++;
    }
    return 'a string that is never closed';
  };
  let state: 'value' | 'after' | 'key' | 'colon' | 'firstKey' | 'firstValue' = 'value';
  /** Past the `}` or `]` at i: the object or array ends. */
  const close = () => {
    stack.pop();
    i++;
    state = 'after';
  };
  for (;;) {
    skip();
    if (state === 'value' || state === 'firstValue') {
      if (state === 'firstValue' && text[i] === ']') {
        close();
        continue;
      }
      const c = text[i];
      if (c === '{' || c === '[') {
        stack.push(c);
        i++;
        depth = Math.max(depth, stack.length);
        if (stack.length > maxDepth) return { ok: false, tooDeep: true, offset: i - 1 };
        state = c === '{' ? 'firstKey' : 'firstValue';
        continue;
      }
      if (c === '"') {
        const bad = string();
        if (bad) return fail(bad);
        state = 'after';
        continue;
      }
      NUMBER.lastIndex = i;
      const word = WORDS.find((w) => text.startsWith(w, i));
      if (word) i += word.length;
      else if (NUMBER.test(text)) i = NUMBER.lastIndex;
      else return fail('expected a value (an object, array, string, number, true, false or null)');
      state = 'after';
    } else if (state === 'firstKey' || state === 'key') {
      if (state === 'firstKey' && text[i] === '}') {
        close();
        continue;
      }
      if (text[i] !== '"') return fail('expected a property name in double quotes (a trailing comma?)');
      const bad = string();
      if (bad) return fail(bad);
      state = 'colon';
    } else if (state === 'colon') {
      if (text[i] !== ':') return fail("expected ':' after the property name");
      i++;
      state = 'value';
    } else {
      const top = stack.at(-1);
      if (!top) return i >= n ? { ok: true, depth } : fail('more text after the JSON value');
      const end = top === '{' ? '}' : ']';
      if (text[i] === ',') {
        i++;
        state = top === '{' ? 'key' : 'value';
      } else if (text[i] === end) close();
      else return fail(`expected ',' or '${end}'`);
    }
  }
}
