// The one date/time format and the one signed-percent format (contract/format): every page, the
// reports and the CLI print these, whatever the browser's locale or time zone.
import { describe, expect, it } from 'vitest';
import {
  formatDateTime,
  formatDelta,
  formatDuration,
  formatMetricValue,
  formatRate,
  formatRepeats,
  MINUS,
} from '../../../electron/contract/format';
import { fmtPct, fmtTime } from '../../../electron/services/reports/format';

describe('formatDateTime', () => {
  it('writes "3 Dec 2026, 08:14 UTC" in full and "3 Dec 2026, 08:14" short, in UTC', () => {
    expect(formatDateTime('2026-12-03T08:14:37.512Z')).toBe('3 Dec 2026, 08:14 UTC');
    expect(formatDateTime('2026-12-03T08:14:37.512Z', 'short')).toBe('3 Dec 2026, 08:14');
    // An offset is read as the instant it names, then shown in UTC.
    expect(formatDateTime('2026-12-02T23:05:00-09:00')).toBe('3 Dec 2026, 08:05 UTC');
    expect(formatDateTime(new Date(Date.UTC(2027, 0, 1, 0, 0)))).toBe('1 Jan 2027, 00:00 UTC');
    expect(formatDateTime(Date.UTC(2026, 6, 9, 16, 31))).toBe('9 Jul 2026, 16:31 UTC');
  });

  it('says "—" for a missing or unreadable time', () => {
    for (const v of [null, undefined, '', 'not a date', Number.NaN]) expect(formatDateTime(v)).toBe('—');
  });

  it("is the reports' formatter too", () => {
    expect(fmtTime('2026-12-03T08:14:00Z')).toBe(formatDateTime('2026-12-03T08:14:00Z'));
  });
});

describe('formatDelta', () => {
  it('signs a percent change with + or the typographic minus, ± when it rounds to zero', () => {
    expect(formatDelta(12.34)).toBe('+12.3 %');
    expect(formatDelta(-12.34)).toBe(`${MINUS}12.3 %`);
    expect(formatDelta(-12.34)).toBe('\u221212.3 %');
    expect(formatDelta(0)).toBe('±0.0 %');
    expect(formatDelta(-0.04)).toBe('±0.0 %');
    expect(formatDelta(0.06)).toBe('+0.1 %');
    expect(formatDelta(-33.6, 0)).toBe(`${MINUS}34 %`);
  });

  it('says "—" for a missing figure, and is the reports\' formatter', () => {
    expect(formatDelta(null)).toBe('—');
    expect(formatDelta(undefined)).toBe('—');
    expect(formatDelta(Number.POSITIVE_INFINITY)).toBe('—');
    expect(fmtPct(-5)).toBe(formatDelta(-5));
    expect(formatDelta(-5)).not.toContain('-');
  });
});

describe('formatDuration', () => {
  it('is the one duration style of UI, CLI and log lines: "51s", "1m 05s", "1h 2m"', () => {
    expect(formatDuration(51.4)).toBe('51s');
    expect(formatDuration(65)).toBe('1m 05s');
    expect(formatDuration(120)).toBe('2m 00s');
    expect(formatDuration(3720)).toBe('1h 2m');
    expect(formatDuration(-3)).toBe('0s');
    expect(formatDuration(null)).toBe('—');
    expect(formatDuration(Number.NaN)).toBe('—');
  });
});

describe('formatRate', () => {
  it('writes measured rates in decimal giga-units, as hardware quotes them', () => {
    expect(formatRate(12.345e9, 'B')).toBe('12.35 GB/s');
    expect(formatRate(1.2346e9, ' params', 3)).toBe('1.235 G params/s');
    expect(formatRate(null, 'B')).toBe('—');
  });
});

describe('a single repeat reads as its median', () => {
  // Compare's delta table: "0.0029" in the Median column and "repeats: 0.00290" beside it (walk, three CPU runs)
  it('one value is the figure formatMetricValue prints; several share the smallest one’s decimals', () => {
    expect(formatRepeats([0.0029], 'TFLOPS')).toBe(formatMetricValue(0.0029, 'TFLOPS'));
    expect(formatRepeats([1.5], 's')).toBe(formatMetricValue(1.5, 's'));
    expect(formatRepeats([0.000318, 0.00016], 'TFLOPS')).toBe('0.000318, 0.000160');
  });
});
