/**
 * JSON.parse, except that an integer too large for a double to hold exactly (beyond 2^53) comes
 * back as a string of its digits instead of a rounded number: Kafka records and Flink's answers
 * carry 64-bit longs, which plain JSON.parse would silently round. Node 20's JSON.parse gives
 * a reviver no access to the source text, so such numbers are quoted before parsing.
 */

// A string (skipped whole, so digits inside it stay) or an integer of 16 or more digits that
// is not the start of a fraction or an exponent, nor the digits of a fraction.
const STRING_OR_LONG_INTEGER = /"(?:[^"\\]|\\.)*"|(?<![\d.])-?\d{16,}(?![\d.eE])/g;

export function parseJsonExact(text: string): unknown {
  // The common case pays one regular expression test.
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  const quoted = text.replace(STRING_OR_LONG_INTEGER, (token) =>
    token.startsWith('"') || Number.isSafeInteger(Number(token)) ? token : `"${token}"`,
  );
  return JSON.parse(quoted);
}
