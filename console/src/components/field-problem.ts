import type * as z from 'zod/mini';

const NUMERIC: ReadonlySet<string> = new Set(['number', 'int', 'bigint']);
const plainNumber = (n: number | bigint) => Number(n).toLocaleString('en-US', { maximumFractionDigits: 20 });

/**
 * What is wrong with one form field, said to the person filling it in: the field itself is beside the
 * message, so it is not named, and zod's wording for developers ("Invalid input: expected number,
 * received NaN") becomes what to do. The API answers a request with zod's own words, naming the field.
 */
export function fieldProblem(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      // zod's `int()` refuses a fraction as an invalid type, expecting `int`.
      if (issue.expected === 'int') return 'Enter a whole number.';
      return issue.expected === 'number' ? 'Enter a number.' : 'Fill this in.';
    case 'too_small':
      if (NUMERIC.has(issue.origin)) return `Must be ${issue.inclusive ? 'at least' : 'more than'} ${plainNumber(issue.minimum)}.`;
      return 'Too short.';
    case 'too_big':
      if (NUMERIC.has(issue.origin)) return `Must be ${issue.inclusive ? 'at most' : 'less than'} ${plainNumber(issue.maximum)}.`;
      return 'Too long.';
    case 'invalid_format':
      if (issue.format === 'email') return 'Enter an e-mail address, such as name@example.com.';
      return sentence(issue.message);
    default:
      return sentence(issue.message);
  }
}

const sentence = (message: string) => {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
};
