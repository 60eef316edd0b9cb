/**
 * Splits typed input into statements: a statement ends at a `;` outside quotes and comments,
 * so one may span lines, and one line may hold several.
 */

export interface Split {
  /** Complete statements, without their `;`, trimmed; empty ones dropped. */
  readonly statements: string[];
  /** The text after the last `;`, still being typed. */
  readonly rest: string;
}

export function splitStatements(text: string): Split {
  const statements: string[] = [];
  let start = 0;
  let quote: string | undefined;
  let lineComment = false;
  let blockComment = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    const next = text.charAt(i + 1);
    if (lineComment) {
      if (c === '\n') lineComment = false;
    } else if (blockComment) {
      if (c === '*' && next === '/') {
        blockComment = false;
        i++;
      }
    } else if (quote !== undefined) {
      // A doubled quote inside a literal is the quote itself.
      if (c === quote) {
        if (next === quote) i++;
        else quote = undefined;
      }
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '-' && next === '-') lineComment = true;
    else if (c === '/' && next === '*') blockComment = true;
    else if (c === ';') {
      const statement = text.slice(start, i).trim();
      if (statement !== '') statements.push(statement);
      start = i + 1;
    }
  }
  return { statements, rest: text.slice(start) };
}
