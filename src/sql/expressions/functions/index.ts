/**
 * The built-in functions defined outside functions.ts, by family; functions.ts looks a name up
 * here after its own table.
 */
import type { FunctionCompiler } from './arguments.js';
import { BINARY_LITERAL } from './binary-literal.js';
import { COLLECTION_FUNCTIONS } from './collection-functions.js';
import { CONDITIONAL_FUNCTIONS } from './conditional-functions.js';
import { ENCODING_FUNCTIONS } from './encoding-functions.js';
import { JSON_FUNCTIONS } from './json-functions.js';
import { MATH_FUNCTIONS } from './math-functions.js';
import { REGEXP_FUNCTIONS } from './regexp-functions.js';
import { STRING_FUNCTIONS } from './string-functions.js';
import { URL_FUNCTIONS } from './url-functions.js';

export const FUNCTION_FAMILIES: Readonly<Record<string, FunctionCompiler>> = {
  ...STRING_FUNCTIONS,
  ...REGEXP_FUNCTIONS,
  ...ENCODING_FUNCTIONS,
  ...URL_FUNCTIONS,
  ...MATH_FUNCTIONS,
  ...CONDITIONAL_FUNCTIONS,
  ...COLLECTION_FUNCTIONS,
  ...JSON_FUNCTIONS,
  ...BINARY_LITERAL,
};
