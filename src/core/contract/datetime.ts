/**
 * Calendar arithmetic for $dateAdd, done on day numbers rather than with Date: Date.UTC maps
 * years 0..99 to 1900..1999 and Date parsing varies between runtimes, while the contract needs
 * years 1..9999 taken literally and identical answers in Node and workerd. Nothing here reads the
 * wall clock.
 */

type DateAddResult = { ok: true; value: string } | { ok: false; message: string };

const MIN_YEAR = 1;
const MAX_YEAR = 9999;

export const EXPECTED_DATE =
  "an ISO date YYYY-MM-DD or an ISO-8601 timestamp with Z or an offset (YYYY-MM-DDTHH:MM[:SS[.fff]](Z|±HH:MM))";

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The inverse of daysFromCivil: [year, month, day]. */
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

function pad2(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

function pad4(value: number): string {
  return value < 10 ? `000${value}` : value < 100 ? `00${value}` : value < 1000 ? `0${value}` : String(value);
}

/** The number written by `count` ASCII digits at `start`, or -1 when any of them is not a digit. */
function digitsAt(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const code = text.charCodeAt(i) - 48;
    if (!(code >= 0 && code <= 9)) return -1;
    value = value * 10 + code;
  }
  return value;
}

const BAD_FORMAT = { ok: false, message: `expected ${EXPECTED_DATE}` } as const;

/**
 * The calendar date written at the start of `value`, as a day number, or a message saying what
 * was wrong. The time and offset of a timestamp are checked for plausibility and then ignored:
 * the contract takes the date as written, at midnight UTC.
 *
 * Accepted: YYYY-MM-DD, or YYYY-MM-DDTHH:MM[:SS[.fraction]] followed by Z or ±HH:MM. RFC 3339
 * allows a lowercase t and z, and ISO 8601 allows leaving out the seconds; both are accepted so
 * that any value a "date-time" format check lets through is also accepted here. Hand-written
 * rather than a regular expression because it runs on every call that uses $dateAdd.
 */
function parseCalendarDate(value: unknown): { ok: true; day: number } | { ok: false; message: string } {
  if (typeof value !== "string" || value.length < 10) return BAD_FORMAT;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  if (year < 0 || month < 0 || day < 0 || value.charCodeAt(4) !== 45 || value.charCodeAt(7) !== 45) return BAD_FORMAT;
  if (value.length > 10 && !timeIsValid(value)) return BAD_FORMAT;
  if (year < MIN_YEAR || year > MAX_YEAR)
    return { ok: false, message: `year ${value.slice(0, 4)} is outside 0001..9999` };
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return { ok: false, message: `${value.slice(0, 10)} is not a calendar date` };
  }
  return { ok: true, day: daysFromCivil(year, month, day) };
}

/** Checks the part after the date: THH:MM[:SS[.f+]](Z|±HH:MM), with every field in range. */
function timeIsValid(text: string): boolean {
  const t = text.charCodeAt(10);
  if (t !== 84 && t !== 116) return false; // T or t
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  if (text.charCodeAt(13) !== 58 || hour < 0 || hour > 23 || minute < 0 || minute > 59) return false;
  let at = 16;
  if (text.charCodeAt(at) === 58) {
    const second = digitsAt(text, at + 1, 2);
    if (second < 0 || second > 60) return false;
    at += 3;
    if (text.charCodeAt(at) === 46) {
      const start = ++at;
      while (digitsAt(text, at, 1) >= 0) at++;
      if (at === start) return false;
    }
  }
  const zone = text.charCodeAt(at);
  if (zone === 90 || zone === 122) return at + 1 === text.length; // Z or z
  if (zone !== 43 && zone !== 45) return false; // + or -
  const offsetHour = digitsAt(text, at + 1, 2);
  const offsetMinute = digitsAt(text, at + 4, 2);
  return (
    at + 6 === text.length &&
    text.charCodeAt(at + 3) === 58 &&
    offsetHour >= 0 &&
    offsetHour <= 23 &&
    offsetMinute >= 0 &&
    offsetMinute <= 59
  );
}

/**
 * Midnight UTC of the written calendar date of `value`, plus `days` and `hours`, formatted as
 * YYYY-MM-DDTHH:MM:SS.000Z. The offsets are assumed already checked (integers in range).
 */
export function dateAdd(value: unknown, days: number, hours: number): DateAddResult {
  const parsed = parseCalendarDate(value);
  if (!parsed.ok) return parsed;
  const totalHours = (parsed.day + days) * 24 + hours;
  const dayNumber = Math.floor(totalHours / 24);
  const hour = totalHours - dayNumber * 24;
  const [year, month, day] = civilFromDays(dayNumber);
  if (year < MIN_YEAR || year > MAX_YEAR) {
    return { ok: false, message: `the result falls in year ${year}, outside 0001..9999` };
  }
  return { ok: true, value: `${pad4(year)}-${pad2(month)}-${pad2(day)}T${pad2(hour)}:00:00.000Z` };
}
