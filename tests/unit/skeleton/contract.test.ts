import { describe, expect, it } from 'vitest';
import { ApiError, channels, parseRequest, requests } from '../../../electron/contract';

describe('contract', () => {
  it('names every channel domain/action', () => {
    for (const c of channels) expect(c).toMatch(/^[a-z]+\/[a-z][a-z-]*$/);
  });

  it('every channel has a request and a response schema', () => {
    for (const c of channels) {
      expect(requests[c].request, c).toBeDefined();
      expect(requests[c].response, c).toBeDefined();
    }
  });

  it('refuses a bad payload with the field named', () => {
    try {
      parseRequest('runs/list', { limit: 'ten' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).field).toBe('limit');
      expect((error as ApiError).message).toContain("field 'limit'");
    }
  });

  it('refuses unknown fields (strict requests)', () => {
    expect(() => parseRequest('runs/list', { dropTable: true })).toThrow(ApiError);
  });
});
