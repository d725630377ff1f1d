/**
 * The tokens of the label selector string syntax, split as Kubernetes apimachinery's lexer splits
 * them (`labels.Parse`).
 */

/** A token kind: an identifier, a keyword, an operator or punctuation, or the end of the input. */
export type TokenKind = 'id' | 'in' | 'notin' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<' | 'end';

/** One token and the offset of its first character in the selector. */
export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly at: number;
}

const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const NUL = '\u0000';

/** Only these four characters separate tokens; other Unicode spaces are identifier characters. */
function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === '\n';
}

/**
 * Splits a label selector into tokens, ending with one `end` token. An identifier runs up to a space,
 * one of `=!(),<>` or the end; `in` and `notin` are keywords. `!=` and `==` are two-character
 * operators, every other special character is a token of its own. A NUL character reads as the end
 * of the input where a token would start (the rest is ignored), and ends (and is dropped from) an
 * identifier or operator it directly follows — apimachinery's lexer reads byte 0 as "no more input".
 */
export function lexLabelSelector(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  for (;;) {
    while (isSpace(text[i])) i++;
    const at = i;
    const c = text[i];
    if (c === undefined || c === NUL) {
      tokens.push({ kind: 'end', text: '', at });
      return tokens;
    }
    let kind: TokenKind;
    if (SPECIAL.has(c)) {
      const pair = text.slice(i, i + 2);
      kind = pair === '!=' || pair === '==' ? pair : (c as TokenKind);
      i += kind.length;
    } else {
      while (i < text.length && text[i] !== NUL && !isSpace(text[i]) && !SPECIAL.has(text[i] ?? '')) i++;
      const word = text.slice(at, i);
      kind = word === 'in' || word === 'notin' ? word : 'id';
    }
    tokens.push({ kind, text: text.slice(at, i), at });
    if (text[i] === NUL) i++;
  }
}
