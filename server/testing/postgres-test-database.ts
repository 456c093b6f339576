import pg from 'pg';
import type { TestProject } from 'vitest/node';

/**
 * Vitest global setup of the `postgres` test project (vite.config.ts): creates
 * one database for the run, `kbw_test_<pid>_<epoch ms>`, on the server of
 * `KB_TEST_POSTGRES_URL` (default: the local server, user `postgres`),
 * commits without waiting for the disk (`synchronous_commit = off`: the
 * data need not survive a crash), hands its URL to the tests (`inject('kbTestDatabaseUrl')`, read by
 * server/testing/test-store.ts), and drops it when the run ends. Each test
 * store then lives in a schema of its own inside it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const adminUrl = process.env.KB_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `kbw_test_${process.pid}_${Date.now()}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  // Tests need no durability: commits that wait for no WAL flush keep the
  // many small write transactions of the suite from waiting on the disk.
  await adminQuery(adminUrl, `ALTER DATABASE ${name} SET synchronous_commit = off`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  project.provide('kbTestDatabaseUrl', url.toString());
  return async () => {
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  };
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `The PostgreSQL test project needs a server at ${redact(adminUrl)} (set KB_TEST_POSTGRES_URL): ${(error as Error).message}`,
      { cause: error },
    );
  }
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function redact(adminUrl: string): string {
  try {
    const url = new URL(adminUrl);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return 'KB_TEST_POSTGRES_URL';
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the database created for this test run (postgres test project only). */
    kbTestDatabaseUrl: string;
  }
}
