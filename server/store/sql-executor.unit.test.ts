import { describe, expect, test } from 'vitest';
import { numberedPlaceholders, POSTGRES_DIALECT, SQLITE_DIALECT } from './sql-executor.ts';

describe('numberedPlaceholders', () => {
  test('each ? in order becomes $1, $2, ...; a statement without any is unchanged', () => {
    expect(numberedPlaceholders('UPDATE t SET a = ? WHERE b = ? AND c > ?')).toBe('UPDATE t SET a = $1 WHERE b = $2 AND c > $3');
    expect(numberedPlaceholders('SELECT 1')).toBe('SELECT 1');
  });
});

describe('dialects', () => {
  test('the larger of two values: MAX in SQLite, GREATEST in PostgreSQL', () => {
    expect(SQLITE_DIALECT.greatest('hits - 1', '0')).toBe('MAX(hits - 1, 0)');
    expect(POSTGRES_DIALECT.greatest('hits - 1', '0')).toBe('GREATEST(hits - 1, 0)');
  });
});
