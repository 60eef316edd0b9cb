/**
 * Schema references: a registered schema may use types defined in other
 * subjects (an imported `.proto`, a named Avro type, a `$ref`d JSON Schema).
 * Readers fetch them, transitively, before building a decoder.
 */
import type { RegisteredSchema, SchemaReference, SchemaRegistryClient } from './client.js';

/** A referenced schema: the name the referring schema uses for it, and its text. */
export interface ResolvedReference {
  readonly name: string;
  readonly schema: string;
}

/** Most schemas one schema may pull in through references (a guard against cycles gone wrong). */
const MAX_REFERENCES = 100;

/**
 * The schemas `schema` references, transitively, each once, dependencies
 * before the schemas that use them. Numbered versions are immutable, so the
 * client's caches make repeated lookups cheap.
 */
export async function resolveReferences(
  registry: SchemaRegistryClient,
  schema: RegisteredSchema,
): Promise<ResolvedReference[]> {
  const out: ResolvedReference[] = [];
  const seen = new Set<string>();
  const visit = async (refs: readonly SchemaReference[]): Promise<void> => {
    for (const ref of refs) {
      const key = `${ref.subject}\u0000${ref.version}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (seen.size > MAX_REFERENCES)
        throw new Error(`more than ${MAX_REFERENCES} schema references`);
      const found = await registry.subjectVersion(ref.subject, ref.version);
      await visit(found.references);
      out.push({ name: ref.name, schema: found.schema });
    }
  };
  await visit(schema.references);
  return out;
}
