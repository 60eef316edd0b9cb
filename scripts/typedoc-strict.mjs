// @ts-check
/**
 * TypeDoc plugin for `npm run docs:api` (typedoc.json loads it). With
 * `treatWarningsAsErrors`, every warning fails the build; this plugin lets two
 * kinds through as information only, so that any other warning still fails:
 *
 * - "X has multiple declarations with a comment" when every declaration it
 *   lists is the same line: option types built from a valibot schema
 *   (`OptionsOf<typeof schema>`) reach each field's one comment twice, which
 *   is a quirk of TypeDoc's mapped-type handling, not two comments.
 * - The exact messages in KNOWN below: warnings about doc comments in modules
 *   that are being changed elsewhere, each with the reason it is tolerated.
 *   Remove an entry once its comment is fixed; an entry that no longer occurs
 *   fails the build, so the list cannot go stale.
 *
 * It also names each module after its import (`weir`, `weir/kafka`, ...),
 * read from the `exports` of package.json, and fails the build when an export
 * has no entry point in typedoc.json.
 */

import { readFileSync } from 'node:fs';

/** Tolerated warning → why. */
const KNOWN = new Map([]);

const MULTIPLE = / has multiple declarations with a comment\. /;
const LOCATIONS = /^The comments for .* are declared at:\n/;

/** @param {import('typedoc').Application} app */
export function load(app) {
  const logger = app.logger;
  const warn = logger.warn.bind(logger);
  const info = logger.info.bind(logger);
  const seen = new Set();
  /** @type {string | undefined} */
  let pending;

  const flush = () => {
    if (pending !== undefined) warn(/** @type {never} */ (pending));
    pending = undefined;
  };

  logger.warn = /** @type {typeof logger.warn} */ (
    (/** @type {string} */ text, /** @type {any[]} */ ...rest) => {
      flush();
      const reason = KNOWN.get(text);
      if (reason !== undefined) {
        seen.add(text);
        info(/** @type {never} */ (`known warning, tolerated (${reason}): ${text}`));
        return;
      }
      if (MULTIPLE.test(text)) {
        pending = text;
        return;
      }
      warn(/** @type {never} */ (text), ...rest);
    }
  );

  const validationWarning = logger.validationWarning.bind(logger);
  logger.validationWarning = /** @type {typeof logger.validationWarning} */ (
    (/** @type {string} */ text, /** @type {any[]} */ ...rest) => {
      // A tolerated one must not count as a validation warning either.
      if (KNOWN.has(text)) logger.warn(/** @type {never} */ (text));
      else validationWarning(/** @type {never} */ (text), ...rest);
    }
  );

  logger.info = /** @type {typeof logger.info} */ (
    (/** @type {string} */ text) => {
      if (pending !== undefined && LOCATIONS.test(text)) {
        const lines = new Set(
          text
            .split('\n')
            .slice(1)
            .map((l) => l.trim()),
        );
        if (lines.size > 1) {
          flush();
          info(/** @type {never} */ (text));
        }
        pending = undefined;
        return;
      }
      flush();
      info(/** @type {never} */ (text));
    }
  );

  app.converter.on('resolveBegin', (/** @type {any} */ context) => {
    const names = importNames();
    const modules = context.project.children ?? [];
    for (const module of modules) {
      const name = names.get(module.name);
      if (name !== undefined) module.name = name;
    }
    for (const [path, name] of names) {
      if (!modules.some((/** @type {any} */ m) => m.name === name)) {
        warn(
          /** @type {never} */ (
            `package.json exports '${name}' (src/${path}.ts) but typedoc.json has no entry point for it`
          ),
        );
      }
    }
  });

  // Links are resolved by validation, after conversion: check once the output is written.
  app.renderer.on('endRender', () => {
    flush();
    for (const text of KNOWN.keys()) {
      if (!seen.has(text)) {
        warn(
          /** @type {never} */ (
            `scripts/typedoc-strict.mjs lists a known warning that no longer occurs; remove it: ${text}`
          ),
        );
      }
    }
  });
}

/**
 * TypeDoc's module name (the entry point's path under src without `.ts`, and
 * `index` for src/index.ts) → the import that reaches it, from package.json.
 * @returns {Map<string, string>}
 */
function importNames() {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const names = new Map();
  for (const [key, target] of Object.entries(pkg.exports)) {
    const types = /** @type {{ types: string }} */ (target).types;
    const path = types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '');
    const module = path === 'index' ? 'index' : path.replace(/\/index$/, '');
    names.set(module, key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`);
  }
  return names;
}
