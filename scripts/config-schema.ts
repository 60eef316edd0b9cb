/**
 * Writes weir.config.schema.json, the JSON Schema of `weir run` config files
 * for editors (`"$schema"` in JSON, a `yaml-language-server` comment in
 * YAML), generated from the valibot schema the CLI validates with
 * (src/cli/config/config-schema.ts). test/cli/config-file.test.ts fails
 * when the file is out of date.
 *
 *   npm run schema:config
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toJsonSchema } from '@valibot/to-json-schema';
import { CONFIG_SCHEMA } from '../src/cli/config/config-schema.js';

export const CONFIG_SCHEMA_FILE = fileURLToPath(
  new URL('../weir.config.schema.json', import.meta.url),
);

/** The JSON Schema of a config file. */
export function configJsonSchema(): Record<string, unknown> {
  // Checks with no JSON Schema counterpart (trimming) are left to the CLI.
  const schema = toJsonSchema(CONFIG_SCHEMA, { errorMode: 'ignore' });
  return {
    ...schema,
    title: 'weir run config file',
    description:
      "Settings of 'weir run': every key is a run flag's long name, plus module and args (docs/cli.md).",
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(CONFIG_SCHEMA_FILE, `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
  console.log(`wrote ${CONFIG_SCHEMA_FILE}`);
}
