import { describe, expect, test } from 'vitest';
import { DATABASE_FILE, describeStoreLocation } from '../open-store.ts';
import { storeLocationFromEnv } from './postgres-config.ts';

describe('storeLocationFromEnv', () => {
  test('no DATABASE_URL: the embedded store in the data folder', () => {
    expect(storeLocationFromEnv({}, '/srv/kb')).toEqual({ kind: 'sqlite', path: `/srv/kb/${DATABASE_FILE}` });
  });

  test('DATABASE_URL alone: PostgreSQL with the default pool settings', () => {
    const location = storeLocationFromEnv({ DATABASE_URL: 'postgres://kb:secret@db.internal:5432/kb' }, '/srv/kb');

    expect(location).toEqual({
      kind: 'postgres',
      url: 'postgres://kb:secret@db.internal:5432/kb',
      maxConnections: 10,
      connectionTimeoutMs: 5_000,
      statementTimeoutMs: 5_000,
      idleTimeoutMs: 30_000,
      queryTimeoutMs: 5_000,
    });
  });

  test('DATABASE_URL with KB_PG_* settings: schema, pool size and timeouts (seconds, fractions allowed) taken', () => {
    const location = storeLocationFromEnv(
      {
        DATABASE_URL: 'postgresql://db/kb',
        KB_PG_SCHEMA: 'kb_widget',
        KB_PG_POOL_SIZE: '25',
        KB_PG_CONNECT_TIMEOUT_SECONDS: '2',
        KB_PG_STATEMENT_TIMEOUT_SECONDS: '0.5',
        KB_PG_IDLE_TIMEOUT_SECONDS: '60',
        KB_PG_QUERY_TIMEOUT_SECONDS: '1.5',
      },
      '/srv/kb',
    );

    expect(location).toEqual({
      kind: 'postgres',
      url: 'postgresql://db/kb',
      schema: 'kb_widget',
      maxConnections: 25,
      connectionTimeoutMs: 2_000,
      statementTimeoutMs: 500,
      idleTimeoutMs: 60_000,
      queryTimeoutMs: 1_500,
    });
  });

  test('a DATABASE_URL that is not a postgres URL: refused without showing its value (it may hold a password)', () => {
    const loading = () => storeLocationFromEnv({ DATABASE_URL: 'mysql://kb:hunter2@db/kb' }, '/srv/kb');

    expect(loading).toThrow('DATABASE_URL=(hidden): must be a postgres:// or postgresql:// URL');
    expect(loading).not.toThrow(/hunter2/);
  });

  test('invalid pool size and schema name: every problem listed with its value', () => {
    const loading = () =>
      storeLocationFromEnv({ DATABASE_URL: 'postgres://db/kb', KB_PG_POOL_SIZE: '0', KB_PG_SCHEMA: 'kb-widget' }, '/srv/kb');

    expect(loading).toThrow(/KB_PG_SCHEMA="kb-widget": .*; KB_PG_POOL_SIZE="0": /);
  });
});

describe('describeStoreLocation', () => {
  test('a PostgreSQL URL with a password and a schema: shown with the password masked, and the schema', () => {
    const shown = describeStoreLocation({ kind: 'postgres', url: 'postgres://kb:hunter2@db.internal:5432/kb', schema: 'kb_widget' });

    expect(shown).toBe('postgres://kb:***@db.internal:5432/kb (schema kb_widget)');
  });

  test('the embedded store: the database file', () => {
    expect(describeStoreLocation({ kind: 'sqlite', path: '/srv/kb/kb.sqlite' })).toBe('/srv/kb/kb.sqlite');
  });
});
