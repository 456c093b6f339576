import { z } from 'zod';
import { embeddedStoreLocation, type StoreLocation } from '../open-store.ts';
import { POSTGRES_POOL_DEFAULTS } from './postgres-store.ts';

/**
 * Which store the entry points open (docs/operations.md "PostgreSQL"): PostgreSQL when
 * `DATABASE_URL` is set, with its pool settings from `KB_PG_*`; otherwise
 * the embedded store in the data folder. Like server/config.ts, it is given
 * the environment by `server/main.ts` and `server/cli/main.ts` and reads
 * nothing itself.
 */

const seconds = (fallbackMs: number, max: number) =>
  z.coerce.number().min(0).max(max).default(fallbackMs / 1000);

const schema = z.object({
  DATABASE_URL: z
    .string()
    .refine((value) => /^postgres(ql)?:\/\//.test(value) && URL.canParse(value), {
      error: 'must be a postgres:// or postgresql:// URL',
    })
    .optional(),
  KB_PG_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a schema name of lowercase letters, digits and _')
    .optional(),
  KB_PG_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(POSTGRES_POOL_DEFAULTS.maxConnections),
  KB_PG_CONNECT_TIMEOUT_SECONDS: seconds(POSTGRES_POOL_DEFAULTS.connectionTimeoutMs, 600),
  KB_PG_STATEMENT_TIMEOUT_SECONDS: seconds(POSTGRES_POOL_DEFAULTS.statementTimeoutMs, 3600),
  KB_PG_IDLE_TIMEOUT_SECONDS: seconds(POSTGRES_POOL_DEFAULTS.idleTimeoutMs, 86_400),
  KB_PG_QUERY_TIMEOUT_SECONDS: seconds(POSTGRES_POOL_DEFAULTS.queryTimeoutMs, 3600),
});

/**
 * @param env the environment (`process.env`)
 * @param dataDir folder of the embedded store (Config.dataDir), used when `DATABASE_URL` is not set
 * @returns the PostgreSQL location of `DATABASE_URL`, or the embedded store's
 * @throws Error listing every invalid variable (never showing `DATABASE_URL`'s value, which may hold a password)
 */
export function storeLocationFromEnv(env: Record<string, string | undefined>, dataDir: string): StoreLocation {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      return `${name}=${name === 'DATABASE_URL' ? '(hidden)' : JSON.stringify(env[name])}: ${issue.message}`;
    });
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  const values = parsed.data;
  if (values.DATABASE_URL === undefined) return embeddedStoreLocation(dataDir);
  return {
    kind: 'postgres',
    url: values.DATABASE_URL,
    ...(values.KB_PG_SCHEMA === undefined ? {} : { schema: values.KB_PG_SCHEMA }),
    maxConnections: values.KB_PG_POOL_SIZE,
    connectionTimeoutMs: Math.round(values.KB_PG_CONNECT_TIMEOUT_SECONDS * 1000),
    statementTimeoutMs: Math.round(values.KB_PG_STATEMENT_TIMEOUT_SECONDS * 1000),
    idleTimeoutMs: Math.round(values.KB_PG_IDLE_TIMEOUT_SECONDS * 1000),
    queryTimeoutMs: Math.round(values.KB_PG_QUERY_TIMEOUT_SECONDS * 1000),
  };
}
