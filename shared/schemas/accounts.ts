import * as z from 'zod/mini';

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(100));
export const password = z.string().check(z.minLength(8, 'must be at least 8 characters'), z.maxLength(256));

export const registerBody = z.object({
  email: z.string().check(z.trim(), z.toLowerCase(), z.email(), z.maxLength(254)),
  password,
  firstName: name,
  lastName: name,
  company: z.optional(z.string().check(z.trim(), z.maxLength(200))),
});
export const loginBody = z.object({ email: z.string().check(z.trim(), z.maxLength(254)), password: z.string().check(z.maxLength(256)) });
export const forgotPasswordBody = z.object({ email: z.string().check(z.trim(), z.maxLength(254)) });
export const resetPasswordBody = z.object({ token: z.string().check(z.minLength(1), z.maxLength(200)), password });
export const verifyEmailQuery = z.object({ token: z.string().check(z.minLength(1), z.maxLength(200)) });

export const createKeyBody = z.object({ name: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)) });
export const keyIdParams = z.object({ id: z.string().check(z.minLength(1), z.maxLength(64)) });
