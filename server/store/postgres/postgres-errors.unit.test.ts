import { describe, expect, test } from 'vitest';
import { translatePostgresError } from './postgres-errors.ts';
import { ConflictError, NotFoundError, StoreUnavailableError } from '../../errors.ts';

/** An error as node-postgres reports one from the server: a message and a SQLSTATE `code`. */
function serverError(code: string, message = `server said ${code}`): Error {
  return Object.assign(new Error(message), { code });
}

describe('translatePostgresError', () => {
  test.each([
    ['08006 connection_failure', serverError('08006')],
    ['08001 unable to connect', serverError('08001')],
    ['57P01 admin_shutdown', serverError('57P01', 'terminating connection due to administrator command')],
    ['57P02 crash_shutdown', serverError('57P02')],
    ['57P03 cannot_connect_now', serverError('57P03', 'the database system is starting up')],
    ['53300 too_many_connections', serverError('53300')],
    ['57014 statement timeout', serverError('57014', 'canceling statement due to statement timeout')],
    ['40P01 deadlock', serverError('40P01')],
    ['ECONNREFUSED', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['ECONNRESET', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['a connection ended by the server', new Error('Connection terminated unexpectedly')],
    ['a pool that cannot connect in time', new Error('timeout exceeded when trying to connect')],
    ['a pool already ended', new Error('Cannot use a pool after calling end on the pool')],
    [
      'every address refused (AggregateError)',
      new AggregateError([Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' })], ''),
    ],
  ])('%s: StoreUnavailableError, the driver error as its cause', (_name, error) => {
    const translated = translatePostgresError(error);

    expect(translated).toBeInstanceOf(StoreUnavailableError);
    expect(translated.cause).toBe(error);
  });

  test('23505 unique_violation: ConflictError', () => {
    expect(translatePostgresError(serverError('23505', 'duplicate key value violates unique constraint "users_email_key"'))).toBeInstanceOf(
      ConflictError,
    );
  });

  test('23503 foreign_key_violation, 42P01 undefined_table: the driver error unchanged', () => {
    const foreignKey = serverError('23503', 'insert or update on table "sessions" violates foreign key constraint');
    const undefinedTable = serverError('42P01', 'relation "users" does not exist');

    expect(translatePostgresError(foreignKey)).toBe(foreignKey);
    expect(translatePostgresError(undefinedTable)).toBe(undefinedTable);
  });

  test('store errors and non-errors: store errors unchanged, anything else wrapped in an Error', () => {
    const notFound = new NotFoundError('No such user');

    expect(translatePostgresError(notFound)).toBe(notFound);
    expect(translatePostgresError('text')).toEqual(new Error('text'));
  });
});
