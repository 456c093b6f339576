import { describe, expect, test } from 'vitest';
import { sqliteSum } from './postgres-search.ts';

describe('sqliteSum', () => {
  test('no addends: 0; one addend: itself', () => {
    expect(sqliteSum([])).toBe(0);
    expect(sqliteSum([2.5])).toBe(2.5);
  });

  test('small addends after a large one: kept by the compensation, where plain addition loses them', () => {
    const parts = [1e16, 1, 1];

    expect(parts.reduce((sum, part) => sum + part, 0)).toBe(1e16);
    expect(sqliteSum(parts)).toBe(1e16 + 2);
  });

  test('0.1 + 0.2 + 0.3: the correctly rounded 0.6, where plain addition gives 0.6000000000000001', () => {
    expect(0.1 + 0.2 + 0.3).toBe(0.6000000000000001);
    expect(sqliteSum([0.1, 0.2, 0.3])).toBe(0.6);
  });
});
