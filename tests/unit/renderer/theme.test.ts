// One dark-mode source: an explicit theme wins over the OS preference; 'system' follows the OS.
import { describe, expect, it } from 'vitest';
import { isDarkTheme } from '../../../renderer/src/theme';

const media = (dark: boolean) => () => ({ matches: dark });

describe('isDarkTheme', () => {
  it('an explicit theme wins over the OS preference', () => {
    expect(isDarkTheme({ dataset: { theme: 'light' } }, media(true))).toBe(false);
    expect(isDarkTheme({ dataset: { theme: 'dark' } }, media(false))).toBe(true);
  });
  it("'system' or no choice yet follows the OS", () => {
    expect(isDarkTheme({ dataset: { theme: 'system' } }, media(true))).toBe(true);
    expect(isDarkTheme({ dataset: {} }, media(false))).toBe(false);
  });
});
