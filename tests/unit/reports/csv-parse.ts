// An RFC 4180 reader for the tests: the CSV the report writes must parse back to the same values.
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') (row.push(field), (field = ''));
    else if (c === '\r' && text[i + 1] === '\n') {
      (row.push(field), rows.push(row), (row = []), (field = ''), i++);
    } else if (c === '\n') throw new Error(`bare LF at ${i}: rows must end with CRLF`);
    else field += c;
  }
  if (field || row.length) throw new Error('last row not terminated by CRLF');
  return rows;
}
